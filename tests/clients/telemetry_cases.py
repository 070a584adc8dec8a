"""KIP-714 client telemetry (issue 30): Kafka 4.4.0's kafka-client-metrics.sh
(ClientMetricsCommand) adds a subscription for producer metrics every second, describes and
lists it back; a Java producer (ProducerPerformance, enable.metrics.push's default) then pushes
its metrics, which /metrics shows under the client's instance id with a plausible record send
total; once the subscription is deleted, a new producer's metrics are no longer pushed."""
import os
import re
import subprocess
import time

from harness import ORACLE, check, free_port, java_helper, kafka_tool, run
from metrics_cases import scrape

KAFKA_BROKER_SH = os.path.join(os.path.dirname(ORACLE), "broker", "broker.sh")

CMD = "org.apache.kafka.tools.ClientMetricsCommand"
SEND_TOTAL = "seglog_client_telemetry_org_apache_kafka_producer_record_send_total"
PUSHES = "seglog_client_telemetry_pushes_total"


def client_metrics(ctx, *args, ok=True):
    return kafka_tool(CMD, "--bootstrap-server", ctx.broker.bootstrap, *args, ok=ok)


def produce(ctx, topic, n, rate):
    out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                     "--num-records", str(n), "--record-size", "100", "--throughput", str(rate),
                     "--producer-props", f"bootstrap.servers={ctx.broker.bootstrap}",
                     "client.id=telemetry-producer", timeout=180).stdout
    check(re.search(rf"^{n} records sent", out, re.M), out[-2000:])


def instances_pushing(samples):
    return {dict(labels)["client_instance_id"]: v for (name, labels), v in samples.items()
            if name == PUSHES}


def client_telemetry_java(ctx):
    port = ctx.http_port
    # Subscriptions through Kafka's tool; refused values as Kafka refuses them.
    out = client_metrics(ctx, "--alter", "--name", "producers", "--metrics",
                         "org.apache.kafka.producer.", "--interval", "1000", "--match",
                         "client_software_name=apache-kafka-java").stdout
    check("Altered client metrics config for producers." in out, out)
    bad = client_metrics(ctx, "--alter", "--name", "bad", "--interval", "10", ok=False).stdout
    check("interval must be between 100 and 3600000" in bad, f"interval 10 accepted: {bad}")
    bad = client_metrics(ctx, "--alter", "--name", "bad", "--match", "client_rack=x",
                         ok=False).stdout
    check("Illegal client matching pattern" in bad, f"client_rack accepted: {bad}")
    out = client_metrics(ctx, "--describe", "--name", "producers").stdout
    for line in ("Client metrics configs for producers are:",
                 "  metrics=org.apache.kafka.producer.", "  interval.ms=1000",
                 "  match=client_software_name=apache-kafka-java"):
        check(line in out.splitlines(), f"describe: no {line!r} in\n{out}")
    listed = client_metrics(ctx, "--list").stdout.split()
    check(listed == ["producers"], f"--list: {listed}")

    # A console producer sends 2000 records and stays open: its pushes, about once a second,
    # carry deltas that add up to every record sent. (The terminating push on close is best
    # effort in the Java client and may not be sent, so the count is read while it runs.)
    n = 2000
    held = subprocess.Popen(
        [ORACLE, "kafka-class", "org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server",
         ctx.broker.bootstrap, "--topic", "telemetry", "--producer-property",
         "client.id=telemetry-producer"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        for i in range(n):
            held.stdin.write(f"record-{i}\n")
        held.stdin.flush()
        deadline = time.monotonic() + 60
        while True:
            samples, types = scrape(port)
            totals = [v for (name, _), v in samples.items() if name == SEND_TOTAL]
            pushes = instances_pushing(samples).values()
            # Every record counted, over at least two pushes (the first may carry them all).
            if (totals and totals[0] == n and pushes and min(pushes) >= 2) or \
                    time.monotonic() > deadline:
                break
            time.sleep(0.5)
    finally:
        held.stdin.close()
        try:
            held.wait(timeout=60)
        except subprocess.TimeoutExpired:
            held.kill()
    pushing = instances_pushing(samples)
    check(len(pushing) == 1 and min(pushing.values()) >= 2,
          f"pushes by client instance: {pushing}")
    sends = {labels: v for (name, labels), v in samples.items() if name == SEND_TOTAL}
    pushed_names = sorted({name for (name, _) in samples
                           if name.startswith("seglog_client_telemetry_org_apache_kafka")})
    check(sends, f"no {SEND_TOTAL}; pushed: {pushed_names[:40]}")
    labels, total = next(iter(sends.items()))
    labels = dict(labels)
    check(labels.get("client_id") == "telemetry-producer" and
          labels.get("client_software_name") == "apache-kafka-java" and
          labels.get("client_software_version") == "4.4.0" and
          labels.get("client_instance_id") in pushing, f"labels: {labels}")
    # Deltas added up: every record the producer sent (its metric counts sends, all of which
    # are in the final push before close).
    errors = {dict(labels)["error_code"]: v for (name, labels), v in samples.items()
              if name == "seglog_client_telemetry_errors_total" and v}
    check(total == n, f"record send total {total}, sent {n}; pushes {pushing}, errors {errors}")
    check(types.get(SEND_TOTAL) == "counter", f"type {types.get(SEND_TOTAL)}")
    check(all(n.startswith("seglog_client_telemetry_org_apache_kafka_producer_")
              for n in pushed_names), f"metrics outside the subscription: {pushed_names}")

    # Deleted: gone from --list, and a new producer pushes nothing.
    out = client_metrics(ctx, "--delete", "--name", "producers").stdout
    check("Deleted client metrics config for producers." in out, out)
    check(client_metrics(ctx, "--list").stdout.split() == [], "still listed after --delete")
    produce(ctx, "telemetry", 1000, 500)
    time.sleep(1)
    after = instances_pushing(scrape(port)[0])
    check(set(after) == set(pushing),
          f"a client pushed without a subscription: {set(after) - set(pushing)}")
    print(f"client telemetry: {len(pushed_names)} producer metrics pushed, record send total "
          f"{total:.0f} of {n}; none pushed after the subscription was deleted")
    ctx.expect_records = None


def _setup(ctx):
    ctx.http_port = free_port()
    ctx.broker.overrides.append(f"http.listener=127.0.0.1:{ctx.http_port}")


client_telemetry_java.setup = _setup

CASES = [client_telemetry_java]


def telemetry_answers_match_kafka(ctx):
    """The same GetTelemetrySubscriptions / PushTelemetry sequence (java/CompareTelemetry.java:
    a new client, a Get within the interval, pushes with a zero id, a wrong subscription id, too
    soon, an unknown codec, over telemetry.max.bytes, undecodable payloads, a valid one, a
    terminating one and one after it) against Kafka 4.4.0, with a telemetry reporter plugin
    (java/TelemetrySink.java), and against seglog: the same answers line by line."""
    wd = os.path.join(ctx.ws.dir, "kafka")
    os.makedirs(wd, exist_ok=True)
    extra = os.path.join(ctx.ws.dir, "kafka-extra.properties")
    with open(extra, "w") as f:
        f.write("metric.reporters=TelemetrySink\n")
    cp = java_helper("CompareTelemetry")[3]
    env = dict(os.environ, KAFKA_BROKER_PORT=str(free_port()),
               KAFKA_CONTROLLER_PORT=str(free_port()), KAFKA_EXTRA_PROPERTIES=extra,
               KAFKA_EXTRA_CLASSPATH=cp)
    run(["bash", KAFKA_BROKER_SH, "start", wd], env=env, timeout=300)
    try:
        kafka = run(java_helper("CompareTelemetry", f"127.0.0.1:{env['KAFKA_BROKER_PORT']}"),
                    timeout=120).stdout.strip().splitlines()
    finally:
        run(["bash", KAFKA_BROKER_SH, "stop", wd], env=env, timeout=120, ok=False)
    seglog = run(java_helper("CompareTelemetry", ctx.broker.bootstrap),
                 timeout=120).stdout.strip().splitlines()
    print("\n".join(f"kafka:  {k}\nseglog: {s}" for k, s in zip(kafka, seglog)))
    check(len(kafka) == len(seglog) == 13, f"{len(kafka)} and {len(seglog)} answers")
    diff = [(k, s) for k, s in zip(kafka, seglog) if k != s]
    check(not diff, f"Kafka and seglog answer differently: {diff}")
    ctx.expect_records = None


telemetry_answers_match_kafka.setup = _setup

CASES.append(telemetry_answers_match_kafka)
