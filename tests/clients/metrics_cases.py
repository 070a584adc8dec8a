"""/metrics on the HTTP listener (issue 30): after kcat produces and consumes, the broker's
metrics under the JMX exporter's Kafka names hold exactly what happened (records and bytes in
per topic and for all topics, bytes out, log sizes and offsets, partition counts), in
Prometheus' text format; a deleted topic's series go; unknown paths are 404 and other methods
405."""
import json
import os
import re
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from harness import check, free_port, kafka_tool, run

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


def parse(text):
    """({(name, frozenset of label pairs): value}, {family: type}) of Prometheus text."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        check(m is not None, f"not a Prometheus sample line: {line!r}")
        labels = frozenset((k, unescape(v)) for k, v in LABEL.findall(m.group(3) or ""))
        key = (m.group(1), labels)
        check(key not in samples, f"a series twice: {line}")
        samples[key] = float(m.group(4))
    return samples, types


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        check(r.status == 200, f"/metrics answered {r.status}")
        ctype = r.headers.get("Content-Type", "")
        check(ctype.startswith("text/plain; version=0.0.4"), f"Content-Type {ctype}")
        return parse(r.read().decode())


def value(samples, name, **labels):
    key = (name, frozenset(labels.items()))
    check(key in samples, f"no series {name}{labels}")
    return samples[key]


def status_of(port, path, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=b"x" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def kcat(*args, input=None):
    return run(["kcat", *args], input=input, timeout=60)


def metrics_endpoint(ctx):
    b, port = ctx.broker, ctx.http_port
    sent = {"orders": 100, "audit": 20}
    for topic, n in sent.items():
        kcat("-b", b.bootstrap, "-P", "-t", topic, "-K", ":",
             input="".join(f"k{i}:{topic}-value-{i}\n" for i in range(n)))
        got = kcat("-b", b.bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q",
                   "-f", "%s\n").stdout.splitlines()
        check(got == [f"{topic}-value-{i}" for i in range(n)], f"{topic}: read back {got[:3]}...")
    samples, types = scrape(port)
    for topic, n in sent.items():
        got = value(samples, "kafka_server_brokertopicmetrics_messagesin_total", topic=topic)
        check(got == n, f"messagesin {topic}: {got}, produced {n}")
        size = value(samples, "kafka_log_log_size", topic=topic, partition="0")
        bytes_in = value(samples, "kafka_server_brokertopicmetrics_bytesin_total", topic=topic)
        check(bytes_in == size and size > 0, f"{topic}: bytesin {bytes_in}, log size {size}")
        bytes_out = value(samples, "kafka_server_brokertopicmetrics_bytesout_total", topic=topic)
        check(bytes_out >= size, f"{topic}: bytesout {bytes_out} after reading all {size}")
        check(value(samples, "kafka_log_log_logendoffset", topic=topic, partition="0") == n,
              f"{topic}: log end offset")
    check(value(samples, "kafka_server_brokertopicmetrics_messagesin_total") == sum(sent.values()),
          "messagesin for all topics")
    partitions = sum(1 for (name, _) in samples if name == "kafka_log_log_size")
    check(value(samples, "kafka_server_replicamanager_partitioncount") == partitions >= 2,
          f"partitioncount vs {partitions} log sizes")
    check(value(samples, "kafka_controller_kafkacontroller_activecontrollercount") == 1,
          "active controller")
    produces = sum(v for (name, labels), v in samples.items()
                   if name == "kafka_network_requestmetrics_requests_total" and
                   ("request", "Produce") in labels)
    check(produces >= 2, f"{produces} Produce requests counted")
    # Latency histograms as the exporter gives Yammer's: a gauge per quantile, a _count.
    produce_count = value(samples, "kafka_network_requestmetrics_totaltimems_count",
                          request="Produce")
    check(produce_count == produces, f"totaltimems_count {produce_count} vs {produces} Produce")
    qs = [value(samples, "kafka_network_requestmetrics_totaltimems", request="Produce",
                quantile=q) for q in ("0.50", "0.75", "0.95", "0.98", "0.99", "0.999")]
    check(all(0 < a <= b < 10000 for a, b in zip(qs, qs[1:])), f"Produce quantiles {qs}")
    for phase in ("requestqueuetimems", "localtimems", "remotetimems", "responsequeuetimems",
                  "responsesendtimems"):
        check(value(samples, f"kafka_network_requestmetrics_{phase}_count",
                    request="FetchConsumer") >= 2, f"{phase} of consumer fetches")
    for name in ("kafka_network_socketserver_networkprocessoravgidle_percent",
                 "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent"):
        idle = value(samples, name)
        check(0.5 < idle <= 1, f"{name} {idle} on a broker that is mostly waiting")
    check(value(samples, "process_resident_memory_bytes") > 1 << 20, "process RSS")
    # A connection held open is counted under its listener and network thread.
    held = subprocess.Popen(["kcat", "-b", b.bootstrap, "-C", "-t", "orders", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            s2, _ = scrape(port)
            open_now = sum(v for (name, labels), v in s2.items()
                           if name == "kafka_server_socket_server_metrics_connection_count" and
                           ("listener", "PLAINTEXT") in labels)
            if open_now >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        check(open_now >= 1, f"connection_count {open_now} while a consumer is connected")
    finally:
        held.terminate()
        held.wait(timeout=10)
    # A group that committed its offsets, as both coordinator metric sets count it.
    from confluent_kafka import Consumer
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "metrics-group",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe(["orders"])
    got, deadline = 0, time.monotonic() + 30
    while got < sent["orders"] and time.monotonic() < deadline:
        got += len(consumer.consume(100, timeout=1))
    consumer.commit(asynchronous=False)
    consumer.close()
    check(got == sent["orders"], f"group consumer read {got}")
    s3, _ = scrape(port)
    check(value(s3, "kafka_coordinator_group_groupmetadatamanager_numoffsets") >= 1,
          "numoffsets after a commit")
    check(value(s3, "kafka_server_group_coordinator_metrics_group_count",
                protocol="classic") >= 1, "classic group count")
    check(value(s3, "kafka_coordinator_group_groupmetadatamanager_numgroupsempty") >= 1,
          "the closed group is Empty")
    check(value(s3, "kafka_network_requestmetrics_totaltimems_count",
                request="OffsetCommit") >= 1, "OffsetCommit timed")
    check(value(s3, "kafka_log_logflushstats_logflushrateandtimems_count") >= 0 and
          ("kafka_log_logcleaner_cleaner_recopy_percent", frozenset()) in s3,
          "flush and cleaner families present")
    # A transaction open, then committed: seglog_transactions by state.
    from confluent_kafka import Producer
    txp = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "metrics-txn"})
    txp.init_transactions(30)
    txp.begin_transaction()
    txp.produce("orders", value=b"in a transaction")
    txp.flush(30)
    s4, _ = scrape(port)
    check(value(s4, "seglog_transactions", state="Ongoing") == 1, "one Ongoing transaction")
    txp.commit_transaction(30)
    s4, _ = scrape(port)
    check(value(s4, "seglog_transactions", state="Ongoing") == 0 and
          value(s4, "seglog_transactions", state="CompleteCommit") == 1, "the committed one")
    check(value(s4, "seglog_connections_accepted_total") >= 4, "accepted connections")
    check(types.get("kafka_server_brokertopicmetrics_messagesin_total") == "counter" and
          types.get("kafka_log_log_size") == "gauge", f"types: {types}")
    # A deleted topic's series go; the all-topics totals stay.
    kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", b.bootstrap,
               "--delete", "--topic", "audit")
    samples, _ = scrape(port)
    check(not any(("topic", "audit") in labels for (_, labels) in samples),
          "series of the deleted topic remain")
    # (and the one transactional record since)
    check(value(samples, "kafka_server_brokertopicmetrics_messagesin_total") ==
          sum(sent.values()) + 1, "messagesin for all topics after the delete")
    for path, method, want in [("/nope", "GET", 404), ("/metrics", "POST", 405),
                               ("/metrics/../etc", "GET", 404)]:
        got = status_of(port, path, method)
        check(got == want, f"{method} {path}: {got}, expected {want}")
    print(f"/metrics: {len(samples)} series; messagesin, bytesin = log size, bytesout, offsets "
          "and partition counts as produced and consumed")
    ctx.expect_records = None


def _setup(ctx):
    ctx.http_port = free_port()
    ctx.broker.overrides.append(f"http.listener=127.0.0.1:{ctx.http_port}")


metrics_endpoint.setup = _setup


def _prometheus_query(prom_port, query, at=None):
    params = {"query": query}
    if at is not None:
        params["time"] = f"{at:.3f}"
    url = (f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode(params))
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.loads(r.read())
    check(body.get("status") == "success", f"PromQL {query}: {body}")
    return {tuple(sorted(x["metric"].items())): float(x["value"][1])
            for x in body["data"]["result"]}


def prometheus_scrape(ctx):
    """A real Prometheus server (Debian's) scrapes /metrics every second while a producer sends
    two topics at known rates; PromQL over what it stored gives those per-topic rates, the
    totals, and the latency quantiles."""
    b, port = ctx.broker, ctx.http_port
    prom_port = free_port()
    work = os.path.join(ctx.ws.dir, "prometheus")
    os.makedirs(work)
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: seglog
    static_configs:
      - targets: ["127.0.0.1:{port}"]
""")
    prom = subprocess.Popen(
        ["prometheus", f"--config.file={work}/prometheus.yml",
         f"--storage.tsdb.path={work}/data", f"--web.listen-address=127.0.0.1:{prom_port}",
         "--storage.tsdb.retention.time=1h"],
        stdout=open(os.path.join(work, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:  # ready, and has scraped seglog once
            try:
                if _prometheus_query(prom_port, 'up{job="seglog"} == 1'):
                    break
            except (OSError, ValueError):
                pass
            check(time.monotonic() < deadline and prom.poll() is None,
                  "prometheus did not scrape seglog within 60 s")
            time.sleep(0.5)
        from confluent_kafka import Producer
        producer = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 5})
        rates = {"fast": 200, "slow": 50}  # records per second
        seconds = 14
        sent = {t: 0 for t in rates}
        start = time.time()
        for tick in range(seconds * 10):  # every 100 ms, a tenth of each topic's rate
            for topic, rate in rates.items():
                for _ in range(rate // 10):
                    producer.produce(topic, value=b"x" * 100)
                    sent[topic] += 1
            producer.poll(0)
            pause = start + (tick + 1) / 10 - time.time()
            if pause > 0:
                time.sleep(pause)
        check(producer.flush(30) == 0, "producer could not deliver everything")
        end = time.time()
        time.sleep(3)  # a few more scrapes after the last record
        # The counters as Prometheus stored them: exactly what was produced.
        for topic, n in sent.items():
            got = _prometheus_query(
                prom_port, f'kafka_server_brokertopicmetrics_messagesin_total{{topic="{topic}"}}')
            check(len(got) == 1 and list(got.values())[0] == n, f"{topic}: stored {got}, sent {n}")
        # PromQL per-topic rates over the middle of the run, against the rates sent.
        mid = start + seconds / 2 + 1
        by_topic = _prometheus_query(
            prom_port,
            'sum by (topic) (rate(kafka_server_brokertopicmetrics_messagesin_total'
            '{topic!=""}[6s]))', at=mid)
        got = {dict(k)["topic"]: v for k, v in by_topic.items()}
        for topic, rate in rates.items():
            check(topic in got and abs(got[topic] - rate) <= 0.25 * rate,
                  f"PromQL rate of {topic}: {got.get(topic)}, sent at {rate}/s")
        total = _prometheus_query(
            prom_port, 'rate(kafka_server_brokertopicmetrics_messagesin_total{topic=""}[6s])',
            at=mid)
        check(len(total) == 1 and abs(list(total.values())[0] - sum(rates.values())) <=
              0.25 * sum(rates.values()), f"PromQL all-topics rate {total}")
        bytes_rate = _prometheus_query(
            prom_port,
            'rate(kafka_server_brokertopicmetrics_bytesin_total{topic="fast"}[6s])', at=mid)
        per_record = list(bytes_rate.values())[0] / rates["fast"] if bytes_rate else 0
        check(100 < per_record < 400, f"bytes in per record of fast: {per_record}")
        p99 = _prometheus_query(
            prom_port, 'kafka_network_requestmetrics_totaltimems{request="Produce",'
            'quantile="0.99"}', at=end)
        check(len(p99) == 1 and 0 < list(p99.values())[0] < 5000, f"Produce p99 {p99}")
        produced = _prometheus_query(
            prom_port, 'increase(kafka_network_requestmetrics_totaltimems_count'
            '{request="Produce"}[10s])', at=mid + 3)
        check(len(produced) == 1 and list(produced.values())[0] > 10,
              f"Produce requests counted by Prometheus: {produced}")
        print(f"prometheus {prom_port} scraped /metrics; PromQL rates {got} "
              f"(sent {rates}), all topics {list(total.values())[0]:.1f}/s, "
              f"Produce p99 {list(p99.values())[0]:.2f} ms")
    finally:
        prom.terminate()
        try:
            prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
    ctx.expect_records = None


prometheus_scrape.setup = _setup


def metrics_during_recovery(ctx):
    """/metrics answers while the logs load after an unclean shutdown: Kafka's LogManager
    recovery gauges count the directory's logs and segments down, with BrokerState 1
    (STARTING); once loaded, the full /metrics has no recovery gauges and BrokerState 3."""
    b, port = ctx.broker, ctx.http_port
    topics = 60
    for t in range(topics):  # 60 topics x 4 partitions, each with records: 240+ logs to load
        kcat("-b", b.bootstrap, "-P", "-t", f"r{t}", "-p", "-1",
             input="".join(f"v{i}\n" for i in range(20)))
    b.kill()  # unclean: every log is recovered at the next start
    seen, stop = [], threading.Event()

    def poll():
        while not stop.is_set():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                    samples, _ = parse(r.read().decode())
                if any(n == "kafka_log_logmanager_remaininglogstorecover" for n, _ in samples):
                    seen.append(samples)
            except (OSError, ValueError):
                pass
            time.sleep(0.005)
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        b.start()
    finally:
        stop.set()
        poller.join(10)
    check(seen, "no scrape during the logs' loading showed the recovery gauges")
    data_dir = f'"{os.path.realpath(b.data_dir)}"'
    remaining = [v for s in seen for (n, labels), v in s.items()
                 if n == "kafka_log_logmanager_remaininglogstorecover"]
    check(all(v >= 0 for v in remaining), f"remaining logs {remaining}")
    dirs = {dict(labels).get("dir") for s in seen for (n, labels) in s
            if n == "kafka_log_logmanager_remaininglogstorecover"}
    check(dirs == {data_dir} or dirs == {f'"{b.data_dir}"'}, f"dir labels {dirs}")
    check(all(s.get(("kafka_server_kafkaserver_brokerstate", frozenset())) == 1 for s in seen),
          "BrokerState while loading")
    check("Attempting recovery for all logs" in b.log(), "the restart did not recover")
    samples, _ = scrape(port)
    check(not any(n.startswith("kafka_log_logmanager_remaining") for n, _ in samples),
          "recovery gauges after the load")
    check(value(samples, "kafka_server_kafkaserver_brokerstate") == 3, "BrokerState running")
    print(f"/metrics during recovery: {len(seen)} scrapes showed remaining logs "
          f"{max(remaining):.0f} .. {min(remaining):.0f}")
    ctx.expect_records = None


def _setup_recovery(ctx):
    _setup(ctx)
    ctx.broker.overrides += ["num.partitions=4", "num.recovery.threads.per.data.dir=1"]


metrics_during_recovery.setup = _setup_recovery

CASES = [metrics_endpoint, prometheus_scrape, metrics_during_recovery]
