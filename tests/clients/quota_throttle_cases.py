"""Client quotas enforced (issue 29): Kafka 4.4.0's Java producer and consumer, given quotas
with kafka-configs.sh, are throttled to them as against Kafka - the broker answers with
throttle_time_ms and reads nothing more from the client for that long (KIP-219), and the
client's own throttle metrics show it. The rates measured after the first quota window (Kafka's
rate is measured over at least 10 of its 11 one-second windows, so a client may burst about ten
seconds' worth at first) must be within 10% of the quota.
"""
import re
import time

from harness import check, kafka_tool

CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"
PRODUCER_RATE = 2 * 1024 * 1024  # bytes/s
CONSUMER_RATE = 4 * 1024 * 1024


def interval_rates(out):
    """ProducerPerformance's 5-second reports: [(records/s, MB/s)]."""
    return [(float(m.group(1)), float(m.group(2))) for m in re.finditer(
        r"^\d+ records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\)", out, re.M)]


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
    # Steady state: the 5-second reports after the first 15 s.
    rates = [mb for _, mb in interval_rates(out)]
    steady = rates[3:-1]
    check(len(steady) >= 3, f"too few reports ({rates}) in {elapsed:.0f}s")
    mean = sum(steady) / len(steady) * 1024 * 1024
    check(abs(mean - PRODUCER_RATE) <= 0.10 * PRODUCER_RATE,
          f"producer at {mean / 1048576:.2f} MiB/s against a quota of "
          f"{PRODUCER_RATE / 1048576:.2f} (reports {rates})")
    print(f"producer: {mean / 1048576:.3f} MiB/s steady against {PRODUCER_RATE / 1048576:.1f} "
          f"MiB/s ({rates}); {n} records in {elapsed:.1f}s")
    # An unthrottled client id beside it is not slowed.
    out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", "free",
                     "--num-records", "20000", "--record-size", "1024", "--throughput", "-1",
                     "--producer-props", f"bootstrap.servers={b.bootstrap}", "acks=1",
                     "client.id=free", timeout=120).stdout
    total = re.search(r"^20000 records sent, [\d.]+ records/sec \(([\d.]+) MB/sec\)", out, re.M)
    check(total and float(total.group(1)) > 3 * PRODUCER_RATE / 1048576,
          f"unthrottled producer slow:\n{out[-1500:]}")
    # The consumer: 100 MiB at 4 MiB/s with its 5-second reports.
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
    steady = mb_sec[3:-1]
    check(len(steady) >= 2, f"too few consumer reports: {out[-2000:]}")
    mean = sum(steady) / len(steady) * 1024 * 1024
    check(abs(mean - CONSUMER_RATE) <= 0.10 * CONSUMER_RATE,
          f"consumer at {mean / 1048576:.2f} MiB/s against a quota of "
          f"{CONSUMER_RATE / 1048576:.2f} (reports {mb_sec})")
    print(f"consumer: {mean / 1048576:.3f} MiB/s steady against {CONSUMER_RATE / 1048576:.1f} "
          f"MiB/s ({mb_sec}); {elapsed:.1f}s")
    ctx.expect_records = n + 20000


CASES = [client_quotas_throttle_java]
