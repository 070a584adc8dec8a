"""Client quotas enforced (issue 29): Kafka 4.4.0's Java producer and consumer, given quotas
with kafka-configs.sh, are throttled to them as against Kafka - the broker answers with
throttle_time_ms and reads nothing more from the client for that long (KIP-219), and the
client's own throttle metrics show it. A greedy client's rate swings (Kafka's rate is measured
over at least 10 of its 11 one-second windows: a client bursts ten seconds' worth at first,
then alternates about six seconds of sending with five of throttling; Kafka 4.4.0 shows the same
3.9/0.01/3.6/0.01 MiB/s in ProducerPerformance's reports at a 2 MiB/s quota). So the rate
judged is over whole cycles after the first burst: within 10% of the quota.
"""
import re
import time

from harness import check, kafka_tool

CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"
PRODUCER_RATE = 2 * 1024 * 1024  # bytes/s
CONSUMER_RATE = 4 * 1024 * 1024


def client_quotas_throttle_java(ctx):
    b = ctx.broker
    kafka_tool(CONFIG_COMMAND, "--bootstrap-server", b.bootstrap, "--alter", "--entity-type",
               "clients", "--entity-name", "throttled", "--add-config",
               f"producer_byte_rate={PRODUCER_RATE},consumer_byte_rate={CONSUMER_RATE}")
    # 40 s of 1 KiB records at 2 MiB/s, after a first burst: 100 MiB offered.
    n = 100 * 1024
    started = time.time()
    out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", "quota",
                     "--num-records", str(n), "--record-size", "1024", "--throughput", "-1",
                     "--print-metrics", "--producer-props", f"bootstrap.servers={b.bootstrap}",
                     "acks=1", "client.id=throttled", "linger.ms=5", timeout=300).stdout
    elapsed = time.time() - started
    check(re.search(rf"^{n} records sent", out, re.M), out[-3000:])
    throttle = re.search(r"producer-metrics:produce-throttle-time-max:\{client-id=throttled\}\s*:"
                         r"\s*([\d.]+)", out)
    check(throttle and float(throttle.group(1)) > 0, f"no produce throttle seen:\n{out[-3000:]}")
    # Whole cycles after the first burst: from the first throttled report to the last one
    # with records flowing.
    reports = [(int(m.group(1)), float(m.group(2))) for m in re.finditer(
        r"^(\d+) records sent, ([\d.]+) records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency",
        out, re.M)][:-1]  # the last line is the run's total
    off = [i for i, (_, rps) in enumerate(reports) if rps * 1024 < 0.25 * PRODUCER_RATE]
    on = [i for i, (_, rps) in enumerate(reports) if rps * 1024 > 0.5 * PRODUCER_RATE]
    check(off and on and on[-1] > off[0], f"no throttling cycle in {reports}")
    cycle = reports[off[0]:on[-1] + 1]
    records = sum(r for r, _ in cycle)
    seconds = sum(r / rps for r, rps in cycle)
    rate = records * 1024 / seconds
    check(abs(rate - PRODUCER_RATE) <= 0.10 * PRODUCER_RATE,
          f"producer at {rate / 1048576:.2f} MiB/s against a quota of "
          f"{PRODUCER_RATE / 1048576:.2f} (reports {reports})")
    print(f"producer: {rate / 1048576:.3f} MiB/s over {seconds:.1f}s of whole cycles against "
          f"{PRODUCER_RATE / 1048576:.1f} MiB/s; {n} records in {elapsed:.1f}s; reports {reports}")
    # An unthrottled client id beside it is not slowed.
    out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", "free",
                     "--num-records", "20000", "--record-size", "1024", "--throughput", "-1",
                     "--producer-props", f"bootstrap.servers={b.bootstrap}", "acks=1",
                     "client.id=free", timeout=120).stdout
    total = re.search(r"^20000 records sent, [\d.]+ records/sec \(([\d.]+) MB/sec\)", out, re.M)
    check(total and float(total.group(1)) > 3 * PRODUCER_RATE / 1048576,
          f"unthrottled producer slow:\n{out[-1500:]}")
    # The consumer: 100 MiB at 4 MiB/s.
    started = time.time()
    out = kafka_tool("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                     b.bootstrap, "--topic", "quota", "--num-records", str(n), "--group", "quota-g",
                     "--timeout", "60000", "--show-detailed-stats", "--reporting-interval", "5000",
                     "--command-property", "client.id=throttled", timeout=300).stdout
    elapsed = time.time() - started
    lines = out.strip().splitlines()
    header = next((line.split(", ") for line in lines if line.startswith("time, ")), None)
    check(header is not None and "MB.sec" in header, f"no detailed stats header:\n{out[-2000:]}")
    column = header.index("MB.sec")
    rows = [line.split(", ") for line in lines if re.match(r"^\d{4}-", line)]
    mb_sec = [float(r[column]) for r in rows if len(r) > column]
    consumed = [float(r[header.index("data.consumed.in.MB")]) for r in rows]
    # (The last interval before the end is not reported: the reports stop short of the total.)
    check(consumed and consumed[-1] >= n / 1024 * 0.6, f"consumed {consumed[-1:]} MiB of {n}")
    # The reports after the first (which holds the group's join): a consumer is paced by
    # throttled (empty) fetches rather than bursts, as its fetches are cut to the quota.
    steady = mb_sec[1:]
    check(steady, f"too few consumer reports: {mb_sec}")
    rate = sum(steady) / len(steady) * 1048576
    check(abs(rate - CONSUMER_RATE) <= 0.10 * CONSUMER_RATE,
          f"consumer at {rate / 1048576:.2f} MiB/s against a quota of "
          f"{CONSUMER_RATE / 1048576:.2f} (5-second reports {mb_sec})")
    print(f"consumer: {rate / 1048576:.3f} MiB/s after the first report against "
          f"{CONSUMER_RATE / 1048576:.1f} MiB/s; {elapsed:.1f}s; reports {mb_sec}")
    ctx.expect_records = n + 20000


CASES = [client_quotas_throttle_java]
