#!/usr/bin/env python3
"""bench/compare/broker: `seglog serve` against a real Apache Kafka 4.4.0 broker, end to end.

Kafka 4.4.0's own ProducerPerformance (1 KiB records, --throughput -1) for acks=1 and acks=-1
into topics of 1 and 8 partitions, each run followed by Kafka's ConsumerPerformance (one consumer
in a new group, reading the topic from the beginning: its rebalance through the broker's group
coordinator is timed apart from the fetching). For every configuration
both brokers start on fresh data directories (same filesystem, 127.0.0.1 only), get the same
topics through the Admin client, one unmeasured warm-up run each, and then the measured runs
alternate: seglog, Kafka, seglog, Kafka, ... one pair per round, each round on a fresh topic.

Per run: producer records/s, MB/s, p50/p99 latency (its summary line); broker CPU
(utime+stime of /proc/<pid>/stat before and after: CPU-seconds, and cores = CPU-seconds over
the producer's send time); broker RSS (largest VmRSS sampled every 50 ms during the run, and
VmHWM after it); the producer client's own CPU (wait4 rusage); then the consumer's MB/s,
records/s and fetch time, and the broker's CPU while it ran. Medians over the rounds.

  bench/compare/broker/run.sh [--records 500000] [--rounds 3] [--quick]
                              [--configs acks1-p1,acksall-p1,acks1-p8,acksall-p8]
                              [--throughput -1] [--producer-warmup-records 0]

Writes bench/results/broker_compare.json and bench/results/broker_compare.md (see --help).
Kafka runs with kafka-server-start.sh's defaults (-Xms1G -Xmx1G, G1 with its pause options);
both brokers otherwise run on their default settings.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.join(ROOT, "bench", "compare", "broker")
ORACLE = os.path.join(ROOT, "interop", "kafka", "oracle.sh")
TOOLS_LOG4J = os.path.join(ROOT, "interop", "kafka", "log4j2.properties")
CLK_TCK = os.sysconf("SC_CLK_TCK")
MiB = 1024 * 1024

# What bin/kafka-server-start.sh and bin/kafka-run-class.sh of Kafka 4.4.0 give the broker JVM
# (KAFKA_HEAP_OPTS and KAFKA_JVM_PERFORMANCE_OPTS); GC logging to a file is left out.
KAFKA_HEAP = ["-Xms1G", "-Xmx1G"]
KAFKA_JVM_OPTS = ["-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                  "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                  "-Djava.awt.headless=true"]
# bin/kafka-producer-perf-test.sh's heap for the client tools.
CLIENT_HEAP = ["-Xmx512M"]

CONFIGS = {
    "acks1-p1": ("1", 1),
    "acksall-p1": ("-1", 1),
    "acks1-p8": ("1", 8),
    "acksall-p8": ("-1", 8),
}


class BenchError(Exception):
    pass


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def proc_cpu_s(pid):
    """utime + stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / CLK_TCK  # fields 14 and 15 of proc(5)


def proc_mem_kib(pid):
    """(VmRSS, VmHWM) in KiB."""
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def wait_bounded(proc, timeout, what):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)
        raise BenchError(f"{what} did not exit within {timeout}s; killed")


class SeglogBroker:
    # --metrics: the seglog under test serves /metrics (http.listener) and is scraped every
    # SCRAPE_SECONDS while it runs, as Prometheus would; the baseline has no HTTP listener.
    METRICS = False
    SCRAPE_SECONDS = 5

    def __init__(self, binary, workdir, name="seglog"):
        self.name = name
        self.binary = binary
        self.workdir = workdir
        self.data = os.path.join(workdir, "data")
        self.port = free_port()
        self.proc = None
        self.http_port = free_port() if (SeglogBroker.METRICS and name == "seglog") else None
        self.scraper = None
        self.scrapes = 0

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=30):
        os.makedirs(self.workdir, exist_ok=True)
        out = open(os.path.join(self.workdir, "serve.log"), "w")
        cmd = [self.binary, "serve", "--log-dir", self.data,
               "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}"]
        if self.http_port is not None:
            cmd += ["--override", f"http.listener=127.0.0.1:{self.http_port}"]
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        out.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"seglog serve exited {self.proc.returncode}; see {self.workdir}/serve.log")
            if listening(self.port):
                if self.http_port is not None:
                    self._start_scraper()
                return
            time.sleep(0.1)
        raise BenchError(f"seglog serve not listening after {timeout}s")

    def _start_scraper(self):
        import threading
        import urllib.request
        stop = threading.Event()

        def loop():
            while not stop.wait(SeglogBroker.SCRAPE_SECONDS):
                try:
                    with urllib.request.urlopen(
                            f"http://127.0.0.1:{self.http_port}/metrics", timeout=10) as r:
                        r.read()
                    self.scrapes += 1
                except OSError:
                    pass
        t = threading.Thread(target=loop, daemon=True)
        t.start()
        self.scraper = (stop, t)

    @property
    def pid(self):
        return self.proc.pid

    def stop(self, timeout=60):
        if self.scraper is not None:
            self.scraper[0].set()
            self.scraper[1].join(timeout=15)
            self.scraper = None
        if self.proc is None or self.proc.poll() is not None:
            self.proc = None
            return
        self.proc.send_signal(signal.SIGTERM)
        rc = wait_bounded(self.proc, timeout, "seglog serve (SIGTERM)")
        self.proc = None
        if rc != 0:
            raise BenchError(f"seglog serve exited {rc} after SIGTERM")


class KafkaBroker:
    name = "kafka"

    def __init__(self, classpath, workdir):
        self.cp = classpath
        self.workdir = workdir
        self.data = os.path.join(workdir, "data")
        self.port = free_port()
        self.controller_port = free_port()
        self.proc = None

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def _write_config(self):
        os.makedirs(os.path.join(self.workdir, "logs"), exist_ok=True)
        with open(os.path.join(self.workdir, "server.properties"), "w") as f:
            f.write(f"""# bench/compare/broker: single-node KRaft on loopback; everything else Kafka's defaults.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{self.controller_port}
listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}
advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={self.data}
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
""")
        # Kafka's shipped log4j2 config logs INFO to files; the same here, one file.
        with open(os.path.join(self.workdir, "log4j2.properties"), "w") as f:
            f.write(f"""status = error
name = seglog-bench-kafka
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {self.workdir}/logs/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{{ISO8601}}] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
""")

    def start(self, timeout=120, cluster_id=None, format_storage=True, format_args=()):
        """Formats the storage (a new cluster id unless one is given; kafka-storage.sh format
        with `format_args` added) unless format_storage is false, then starts the broker."""
        self._write_config()
        tool = ["java", f"-Dlog4j2.configurationFile={TOOLS_LOG4J}", "-cp", self.cp]
        if format_storage:
            cid = cluster_id or subprocess.run(
                tool + ["kafka.tools.StorageTool", "random-uuid"], check=True,
                capture_output=True, text=True, timeout=60).stdout.strip()
            p = subprocess.run(tool + ["kafka.tools.StorageTool", "format", "-t", cid, "-c",
                                       os.path.join(self.workdir, "server.properties"),
                                       *format_args],
                               capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                raise BenchError(f"kafka storage format failed: {p.stdout}{p.stderr}")
        out = open(os.path.join(self.workdir, "logs", "broker.out"), "w")
        self.proc = subprocess.Popen(
            ["java", *KAFKA_HEAP, *KAFKA_JVM_OPTS,
             f"-Dlog4j2.configurationFile={self.workdir}/log4j2.properties",
             f"-Dkafka.logs.dir={self.workdir}/logs", "-cp", self.cp, "kafka.Kafka",
             os.path.join(self.workdir, "server.properties")],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()
        server_log = os.path.join(self.workdir, "logs", "server.log")
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"kafka exited {self.proc.returncode} during startup; see {self.workdir}/logs")
            try:
                with open(server_log) as f:
                    started = "Kafka Server started" in f.read()
            except OSError:
                started = False
            if started and listening(self.port):
                return
            time.sleep(0.2)
        raise BenchError(f"kafka not started after {timeout}s; see {server_log}")

    @property
    def pid(self):
        return self.proc.pid

    def stop(self, timeout=90):
        if self.proc is None or self.proc.poll() is not None:
            self.proc = None
            return
        self.proc.send_signal(signal.SIGTERM)
        wait_bounded(self.proc, timeout, "kafka (SIGTERM)")  # the JVM exits 143 on SIGTERM
        self.proc = None


def measured_run(cmd, broker, other, timeout, outfile):
    """Runs one client command to completion (bounded), sampling the measured broker's RSS
    every 50 ms; returns the client's output and the resource numbers."""
    cpu0 = proc_cpu_s(broker.pid)
    other0 = proc_cpu_s(other.pid)
    rss0, _ = proc_mem_kib(broker.pid)
    max_rss = rss0
    with open(outfile, "w") as out, open(outfile + ".err", "w") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    deadline = t0 + timeout
    status = rusage = None
    while True:
        pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            status, rusage = st, ru
            break
        max_rss = max(max_rss, proc_mem_kib(broker.pid)[0])
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            proc.returncode = -9
            raise BenchError(f"client did not finish within {timeout}s: {' '.join(cmd[-12:])}")
        time.sleep(0.05)
    wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu1 = proc_cpu_s(broker.pid)
    other1 = proc_cpu_s(other.pid)
    rss1, hwm = proc_mem_kib(broker.pid)
    max_rss = max(max_rss, rss1)
    with open(outfile) as f:
        text = f.read()
    if proc.returncode != 0:
        with open(outfile + ".err") as f:
            raise BenchError(f"client exited {proc.returncode}: {' '.join(cmd[-12:])}\n"
                             f"{text[-2000:]}\n{f.read()[-3000:]}")
    return text, {
        "wall_s": round(wall, 3),
        "broker_cpu_s": round(cpu1 - cpu0, 3),
        "other_broker_cpu_s": round(other1 - other0, 3),
        "broker_rss_before_mib": round(rss0 / 1024, 1),
        "broker_rss_max_mib": round(max_rss / 1024, 1),
        "broker_vmhwm_mib": round(hwm / 1024, 1),
        "client_cpu_s": round(rusage.ru_utime + rusage.ru_stime, 3),
    }


GROUP_CONSUME = re.compile(r"^group\.consume records=(\d+) members=(\d+) first\.assignment\.ms=(\d+) "
                           r"fetch\.ms=(\d+) mb\.per\.sec=([\d.]+) records\.per\.sec=([\d.]+)", re.M)
GROUP_REBALANCE = re.compile(r"^rebalance\.ms median=(\d+) max=(\d+) rounds=(\d+)", re.M)
GROUP_COMMITS = re.compile(r"^commits\.per\.sec count=(\d+) seconds=([\d.]+) rate=([\d.]+)", re.M)


PROBE_LINE = re.compile(r"^latency\.us records=(\d+) p50=(\d+) p90=(\d+) p99=(\d+) p999=(\d+) "
                        r"max=(\d+) mean=([\d.]+)", re.M)


PRODUCER_SUMMARY = re.compile(
    r"^(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, "
    r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th", re.M)


# With --warmup-records ProducerPerformance prints a second summary over the records after them.
PRODUCER_STEADY = re.compile(
    r"^(\d+) steady state records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, "
    r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th", re.M)


def parse_producer(text):
    m = None
    for m in PRODUCER_SUMMARY.finditer(text):
        pass  # the last match is the summary (the periodic lines have no percentiles)
    if m is None:
        raise BenchError(f"no ProducerPerformance summary line in:\n{text[-2000:]}")
    st = PRODUCER_STEADY.search(text)
    steady = {}
    if st:
        steady = {"steady_records": int(st[1]), "steady_records_per_s": float(st[2]),
                  "steady_p50_ms": int(st[6]), "steady_p95_ms": int(st[7]), "steady_p99_ms": int(st[8]),
                  "steady_p999_ms": int(st[9]), "steady_max_latency_ms": float(st[5]),
                  "steady_summary": st[0]}
    return {**steady, "records": int(m[1]), "records_per_s": float(m[2]), "mb_per_s": float(m[3]),
            "avg_latency_ms": float(m[4]), "max_latency_ms": float(m[5]), "p50_ms": int(m[6]),
            "p95_ms": int(m[7]), "p99_ms": int(m[8]), "p999_ms": int(m[9]),
            "summary": m[0]}


def parse_consumer(text):
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) < 2 or not lines[0].startswith("start.time"):
        raise BenchError(f"no ConsumerPerformance result in:\n{text[-2000:]}")
    keys = [k.strip() for k in lines[0].split(",")]
    vals = [v.strip() for v in lines[1].split(",")]
    row = dict(zip(keys, vals))
    return {"records": int(row["data.consumed.in.nMsg"]), "mb": float(row["data.consumed.in.MB"]),
            "mb_per_s": float(row["MB.sec"]), "records_per_s": float(row["nMsg.sec"]),
            "rebalance_ms": int(row["rebalance.time.ms"]), "fetch_ms": int(row["fetch.time.ms"]),
            "fetch_mb_per_s": float(row["fetch.MB.sec"]),
            "fetch_records_per_s": float(row["fetch.nMsg.sec"]), "line": lines[1]}


class Bench:
    def __init__(self, args, classpath):
        self.args = args
        self.cp = classpath
        self.java = ["java", *CLIENT_HEAP, f"-Dlog4j2.configurationFile={TOOLS_LOG4J}", "-cp", classpath]

    def create_topics(self, broker, partitions, topics):
        p = subprocess.run(self.java + ["CreateBenchTopics", "--bootstrap-server", broker.bootstrap,
                                        "--partitions", str(partitions), *topics],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise BenchError(f"CreateBenchTopics on {broker.name}: {p.stdout}{p.stderr[-3000:]}")

    def produce(self, broker, other, topic, acks, records, outfile):
        cmd = self.java + ["org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                           "--num-records", str(records), "--record-size", "1024",
                           "--throughput", str(self.args.throughput), "--bootstrap-server", broker.bootstrap,
                           "--command-property", f"acks={acks}"]
        if 0 < self.args.producer_warmup_records < records:  # (not for the shorter warm-up runs)
            cmd += ["--warmup-records", str(self.args.producer_warmup_records)]
        text, res = measured_run(cmd, broker, other, self.timeout(records), outfile)
        prod = parse_producer(text)
        if prod["records"] != records:
            raise BenchError(f"{broker.name}: {prod['records']} of {records} records sent")
        send_s = prod["records"] / prod["records_per_s"]
        res.update(prod)
        res["send_s"] = round(send_s, 3)
        res["broker_cores"] = round(res["broker_cpu_s"] / send_s, 3)
        res["broker_cpu_s_per_gib"] = round(res["broker_cpu_s"] / (records * 1024 / 2**30), 3)
        res["client_cores"] = round(res["client_cpu_s"] / res["wall_s"], 3)
        return res

    def consume(self, broker, other, topic, records, outfile):
        cmd = self.java + ["org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                           broker.bootstrap, "--topic", topic, "--num-records", str(records),
                           "--timeout", "30000"]
        text, res = measured_run(cmd, broker, other, self.timeout(records), outfile)
        cons = parse_consumer(text)
        if cons["records"] < records:
            raise BenchError(f"{broker.name}: ConsumerPerformance read {cons['records']} of {records}")
        res.update(cons)
        res["broker_cores"] = round(res["broker_cpu_s"] / max(cons["fetch_ms"] / 1000, 1e-3), 3)
        return res

    def probe(self, broker, other, topic, acks, outfile):
        cmd = self.java + ["ProduceLatencyProbe", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                           "--records", str(self.args.probe_records), "--record-size", "1024",
                           "--producer-property", f"acks={acks}"]
        text, res = measured_run(cmd, broker, other, self.timeout(self.args.probe_records * 10), outfile)
        m = PROBE_LINE.search(text)
        if m is None:
            raise BenchError(f"no ProduceLatencyProbe result in:\n{text[-2000:]}")
        res.update({"records": int(m[1]), "p50_us": int(m[2]), "p90_us": int(m[3]), "p99_us": int(m[4]),
                    "p999_us": int(m[5]), "max_us": int(m[6]), "mean_us": float(m[7])})
        return res

    def group_tool(self, broker, other, mode, topic, extra, outfile, pattern, timeout=300):
        cmd = self.java + ["GroupBench", mode, "--bootstrap-server", broker.bootstrap, "--topic", topic, *extra]
        text, res = measured_run(cmd, broker, other, timeout, outfile)
        m = pattern.search(text)
        if m is None:
            raise BenchError(f"no GroupBench {mode} result in:\n{text[-2000:]}")
        return text, m, res

    def run_groups(self, workroot, seglog_bin):
        """The group coordinator: 4 members reading 8 partitions, the rebalance when a member
        joins 3 others, and OffsetCommit round trips, alternating between the brokers."""
        args = self.args
        cdir = os.path.join(workroot, "groups")
        shutil.rmtree(cdir, ignore_errors=True)
        if args.baseline:
            other_b = SeglogBroker(args.baseline, os.path.join(cdir, OTHER), name=OTHER)
        else:
            other_b = KafkaBroker(self.cp, os.path.join(cdir, "kafka"))
        brokers = [SeglogBroker(seglog_bin, os.path.join(cdir, "seglog")), other_b]
        out = {"records": args.group_records, "rounds": args.rounds, "runs": []}
        try:
            for b in brokers:
                b.start()
            for i, b in enumerate(brokers):
                self.create_topics(b, 8, ["bench-groups"])
                self.produce(b, brokers[1 - i], "bench-groups", "1", args.group_records,
                             os.path.join(cdir, f"fill-{b.name}.out"))
            for r in range(args.rounds):
                for i, b in enumerate(brokers):
                    o = brokers[1 - i]
                    base = os.path.join(cdir, f"r{r}-{b.name}")
                    run = {"round": r, "broker": b.name}
                    _, m, res = self.group_tool(b, o, "consume", "bench-groups",
                                                ["--members", "4", "--records", str(args.group_records)],
                                                base + ".consume.out", GROUP_CONSUME)
                    run["consume"] = {**res, "first_assignment_ms": int(m[3]), "fetch_ms": int(m[4]),
                                      "mb_per_s": float(m[5]), "records_per_s": float(m[6])}
                    text, m, res = self.group_tool(b, o, "rebalance", "bench-groups",
                                                   ["--members", "3", "--rounds", "3"],
                                                   base + ".rebalance.out", GROUP_REBALANCE)
                    run["rebalance"] = {**res, "median_ms": int(m[1]), "max_ms": int(m[2]),
                                        "rounds_ms": [int(x) for x in re.findall(r"round=\d+ ms=(\d+)", text)]}
                    _, m, res = self.group_tool(b, o, "commits", "bench-groups", ["--seconds", "10"],
                                                base + ".commits.out", GROUP_COMMITS)
                    run["commits"] = {**res, "count": int(m[1]), "rate": float(m[3])}
                    out["runs"].append(run)
                    log(f"groups round {r} {b.name:6}: consume {run['consume']['mb_per_s']:.1f} MB/s "
                        f"(assigned in {run['consume']['first_assignment_ms']} ms), join rebalance median "
                        f"{run['rebalance']['median_ms']} ms, commits {run['commits']['rate']:.0f}/s, "
                        f"broker cpu {run['commits']['broker_cpu_s']:.2f}s over the commits")
        finally:
            for b in brokers:
                try:
                    b.stop()
                except BenchError as e:
                    log(f"groups: {e}")
        if not args.keep:
            shutil.rmtree(cdir, ignore_errors=True)
        med = {}
        for b in ("seglog", OTHER):
            rs = [r for r in out["runs"] if r["broker"] == b]
            if rs:
                med[b] = {"consume_mb_per_s": statistics.median(r["consume"]["mb_per_s"] for r in rs),
                          "consume_first_assignment_ms": statistics.median(
                              r["consume"]["first_assignment_ms"] for r in rs),
                          "consume_broker_cpu_s": statistics.median(r["consume"]["broker_cpu_s"] for r in rs),
                          "rebalance_median_ms": statistics.median(r["rebalance"]["median_ms"] for r in rs),
                          "rebalance_max_ms": max(r["rebalance"]["max_ms"] for r in rs),
                          "commits_per_s": statistics.median(r["commits"]["rate"] for r in rs),
                          "commits_broker_cpu_s": statistics.median(r["commits"]["broker_cpu_s"] for r in rs),
                          "broker_rss_max_mib": max(r["commits"]["broker_rss_max_mib"] for r in rs)}
        out["median"] = med
        return out

    def timeout(self, records):
        return max(180, records // 2000)

    def run_config(self, name, acks, partitions, workroot, seglog_bin):
        args = self.args
        cdir = os.path.join(workroot, name)
        shutil.rmtree(cdir, ignore_errors=True)
        if args.baseline:
            other = SeglogBroker(args.baseline, os.path.join(cdir, OTHER), name=OTHER)
        else:
            other = KafkaBroker(self.cp, os.path.join(cdir, "kafka"))
        brokers = [SeglogBroker(seglog_bin, os.path.join(cdir, "seglog")), other]
        if args.floor:  # producer runs only: the null broker keeps no records to consume
            brokers.append(SeglogBroker(args.floor, os.path.join(cdir, FLOOR), name=FLOOR))
        result = {"name": name, "acks": acks, "partitions": partitions, "warmup": [], "runs": []}
        try:
            for b in brokers:
                t = time.monotonic()
                b.start()
                log(f"{name}: {b.name} up on {b.bootstrap} (pid {b.pid}) in {time.monotonic() - t:.1f}s")
            topics = [f"bench-{name}-r{r}" for r in range(args.rounds)]
            if args.warmup_records:
                topics.append(f"bench-{name}-warmup")
            for b in brokers:
                self.create_topics(b, partitions, topics)
            if args.warmup_records:
                for i, b in enumerate(brokers):
                    other = brokers[(i + 1) % len(brokers)]
                    base = os.path.join(cdir, f"warmup-{b.name}")
                    w = {"broker": b.name}
                    w["producer"] = self.produce(b, other, topics[-1], acks, args.warmup_records,
                                                 base + ".producer.out")
                    if b.name != FLOOR:
                        w["consumer"] = self.consume(b, other, topics[-1], args.warmup_records,
                                                     base + ".consumer.out")
                    result["warmup"].append(w)
                    log(f"{name}: warm-up {b.name}: {w['producer']['records_per_s']:.0f} rec/s")
            for r in range(args.rounds):
                # seglog, kafka (or baseline)[, floor], seglog, kafka, ...
                for i, b in enumerate(brokers):
                    other = brokers[(i + 1) % len(brokers)]
                    base = os.path.join(cdir, f"r{r}-{b.name}")
                    run = {"round": r, "broker": b.name, "loadavg_before": loadavg()}
                    run["producer"] = self.produce(b, other, topics[r], acks, args.records,
                                                   base + ".producer.out")
                    if b.name != FLOOR:
                        run["consumer"] = self.consume(b, other, topics[r], args.records,
                                                       base + ".consumer.out")
                    if args.probe_records:
                        run["probe"] = self.probe(b, other, topics[r], acks, base + ".probe.out")
                    result["runs"].append(run)
                    p, c = run["producer"], run.get("consumer")
                    log(f"{name} round {r} {b.name:6}: {p['records_per_s']:>9.0f} rec/s "
                        f"{p['mb_per_s']:7.2f} MB/s p50 {p['p50_ms']} p99 {p['p99_ms']} ms, "
                        f"cpu {p['broker_cpu_s']:.2f}s ({p['broker_cores']:.2f} cores), "
                        f"rss {p['broker_rss_max_mib']:.0f} MiB, client {p['client_cpu_s']:.1f}s"
                        + (f" | consume {c['mb_per_s']:.1f} MB/s fetch {c['fetch_ms']} ms" if c else "")
                        + (f" | round trip p50 {run['probe']['p50_us']} p99 {run['probe']['p99_us']} us"
                           if "probe" in run else ""))
            for b in brokers:
                result[f"{b.name}_vmhwm_end_mib"] = round(proc_mem_kib(b.pid)[1] / 1024, 1)
                result[f"{b.name}_du_mib"] = round(dir_bytes(b.data) / MiB, 1)
        finally:
            for b in brokers:
                try:
                    b.stop()
                except BenchError as e:
                    log(f"{name}: {e}")
        if not args.keep:
            shutil.rmtree(cdir, ignore_errors=True)
        result["median"] = medians(result["runs"])
        return result


def dir_bytes(d):
    total = 0
    for dp, _, files in os.walk(d):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(dp, f))
            except OSError:
                pass
    return total


MEDIAN_KEYS = {
    "producer": ["records_per_s", "mb_per_s", "p50_ms", "p99_ms", "avg_latency_ms", "max_latency_ms",
                 "broker_cpu_s", "broker_cores", "broker_cpu_s_per_gib", "broker_rss_max_mib",
                 "broker_vmhwm_mib", "client_cpu_s", "client_cores", "other_broker_cpu_s"],
    "consumer": ["mb_per_s", "records_per_s", "fetch_ms", "fetch_mb_per_s", "fetch_records_per_s",
                 "rebalance_ms", "broker_cpu_s", "broker_cores", "broker_rss_max_mib"],
    "probe": ["p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "broker_cpu_s"],
}
# The broker seglog is compared with: "kafka", or "baseline" (another seglog binary, --baseline).
OTHER = "kafka"
# The null broker of --floor (bench/compare/broker/null_broker.cc): Produce answered at once,
# nothing stored - what the clients achieve against a broker that takes no time.
FLOOR = "floor"
STEADY_KEYS = ["steady_records_per_s", "steady_p50_ms", "steady_p99_ms", "steady_max_latency_ms"]


def medians(runs):
    out = {}
    for broker in ("seglog", OTHER, FLOOR):
        rs = [r for r in runs if r["broker"] == broker]
        if not rs:
            continue
        out[broker] = {part: {k: statistics.median(r[part][k] for r in rs) for k in keys}
                       for part, keys in MEDIAN_KEYS.items() if all(part in r for r in rs)}
        if all("steady_p99_ms" in r["producer"] for r in rs):
            out[broker]["producer"].update(
                {k: statistics.median(r["producer"][k] for r in rs) for k in STEADY_KEYS})
    return out


def machine():
    mem = ""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return {"nproc": os.cpu_count(), "memory": mem, "uname_r": platform.release(), "cpu": cpu,
            "java": java[0] if java else ""}


def fmt(v, digits=0):
    return f"{v:,.{digits}f}"


def markdown(res):
    lines = []
    s = res["settings"]
    lines.append(f"ProducerPerformance --throughput {s['throughput']}. Records per run: {s['records']:,} x 1 KiB ({s['records'] * 1024 / MiB:,.0f} MiB), "
                 f"{s['rounds']} rounds, warm-up {s['warmup_records']:,} records per broker and "
                 f"configuration. Load average before: {res['loadavg_start']}, after: "
                 f"{res.get('loadavg_end')}.")
    lines.append("")
    lines.append("Producer (ProducerPerformance), medians of the rounds:")
    lines.append("")
    lines.append("| configuration | broker | records/s | MB/s | p50 ms | p99 ms | broker CPU-s per run | "
                 "broker cores | broker RSS max MiB | producer client CPU-s |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        for b in ("seglog", OTHER, FLOOR):
            m = c["median"].get(b)
            if not m:
                continue
            p = m["producer"]
            lines.append(f"| acks={c['acks']}, {c['partitions']} partition(s) | {b} | "
                         f"{fmt(p['records_per_s'])} | {fmt(p['mb_per_s'], 1)} | {fmt(p['p50_ms'])} | "
                         f"{fmt(p['p99_ms'])} | {fmt(p['broker_cpu_s'], 2)} | {fmt(p['broker_cores'], 2)} | "
                         f"{fmt(p['broker_rss_max_mib'], 1)} | {fmt(p['client_cpu_s'], 1)} |")
    steady = [c for c in res["configs"]
              if all("steady_p99_ms" in c["median"].get(b, {}).get("producer", {}) for b in ("seglog", OTHER))]
    if steady:
        lines.append("")
        lines.append(f"Producer after its first {s['producer_warmup_records']:,} records "
                     "(ProducerPerformance's steady-state summary), medians:")
        lines.append("")
        lines.append(f"| configuration | broker | records/s | p50 ms | p99 ms | max ms | p99 seglog/{OTHER} |")
        lines.append("|---|---|---|---|---|---|---|")
        for c in steady:
            sp, kp = c["median"]["seglog"]["producer"], c["median"][OTHER]["producer"]
            for b, p in (("seglog", sp), (OTHER, kp)):
                rat = f"{sp['steady_p99_ms'] / kp['steady_p99_ms']:.2f}" if b == "seglog" and kp["steady_p99_ms"] else ""
                lines.append(f"| acks={c['acks']}, {c['partitions']} partition(s) | {b} | "
                             f"{fmt(p['steady_records_per_s'])} | {fmt(p['steady_p50_ms'])} | "
                             f"{fmt(p['steady_p99_ms'])} | {fmt(p['steady_max_latency_ms'])} | {rat} |")
    lines.append("")
    lines.append("Consumer (ConsumerPerformance: one consumer in a new group, from the beginning; MB/s and "
                 "records/s over the fetch time, the group's rebalance apart), medians:")
    lines.append("")
    lines.append("| configuration | broker | fetch MB/s | fetch records/s | rebalance ms | fetch ms | broker CPU-s | "
                 "broker RSS max MiB |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        for b in ("seglog", OTHER):
            m = c["median"].get(b)
            if not m:
                continue
            q = m["consumer"]
            lines.append(f"| acks={c['acks']}, {c['partitions']} partition(s) | {b} | "
                         f"{fmt(q['fetch_mb_per_s'], 1)} | {fmt(q['fetch_records_per_s'])} | "
                         f"{fmt(q['rebalance_ms'])} | {fmt(q['fetch_ms'])} | "
                         f"{fmt(q['broker_cpu_s'], 2)} | {fmt(q['broker_rss_max_mib'], 1)} |")
    probed = [c for c in res["configs"] if all("probe" in c["median"].get(b, {}) for b in ("seglog", OTHER))]
    if probed:
        lines.append("")
        lines.append(f"Produce round trip (ProduceLatencyProbe: {s.get('probe_records', 0):,} records of 1 KiB, one in "
                     "flight, the first fifth unmeasured), medians of the rounds, microseconds:")
        lines.append("")
        lines.append(f"| configuration | broker | p50 | p90 | p99 | p99.9 | max | mean | p99 seglog/{OTHER} |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for c in probed:
            sp, kp = c["median"]["seglog"]["probe"], c["median"][OTHER]["probe"]
            rows = [("seglog", sp), (OTHER, kp)]
            if "probe" in c["median"].get(FLOOR, {}):
                rows.append((FLOOR, c["median"][FLOOR]["probe"]))
            for b, q in rows:
                rat = f"{sp['p99_us'] / kp['p99_us']:.2f}" if b == "seglog" and kp["p99_us"] else ""
                lines.append(f"| acks={c['acks']}, {c['partitions']} partition(s) | {b} | {fmt(q['p50_us'])} | "
                             f"{fmt(q['p90_us'])} | {fmt(q['p99_us'])} | {fmt(q['p999_us'])} | {fmt(q['max_us'])} | "
                             f"{fmt(q['mean_us'])} | {rat} |")
    lines.append("")
    if OTHER == "kafka":
        lines.append("Against the targets (seglog / Kafka, medians):")
        lines.append("")
        lines.append("| configuration | throughput (target >= 1) | p99 latency, full speed (target <= 0.5) | "
                     "p99 round trip (target <= 0.5) | RSS (target <= 0.1) | broker CPU per record |")
    else:
        lines.append(f"seglog / {OTHER}, medians:")
        lines.append("")
        lines.append("| configuration | throughput | p99 latency, full speed | p99 round trip | RSS | "
                     "broker CPU per record |")
    lines.append("|---|---|---|---|---|---|")
    for c in res["configs"]:
        m = c["median"]
        if "seglog" not in m or OTHER not in m:
            continue
        sp, kp = m["seglog"]["producer"], m[OTHER]["producer"]
        ratio = lambda a, b: f"{a / b:.2f}" if b else "n/a"
        lines.append(f"| acks={c['acks']}, {c['partitions']} partition(s) | "
                     f"{ratio(sp['records_per_s'], kp['records_per_s'])} | "
                     f"{ratio(sp['p99_ms'], kp['p99_ms'])} ({fmt(sp['p99_ms'])} vs {fmt(kp['p99_ms'])} ms) | "
                     + (f"{ratio(m['seglog']['probe']['p99_us'], m[OTHER]['probe']['p99_us'])} "
                        f"({fmt(m['seglog']['probe']['p99_us'])} vs {fmt(m[OTHER]['probe']['p99_us'])} us) | "
                        if "probe" in m["seglog"] and "probe" in m[OTHER] else "n/a | ") +
                     f"{ratio(sp['broker_rss_max_mib'], kp['broker_rss_max_mib'])} | "
                     f"{ratio(sp['broker_cpu_s_per_gib'], kp['broker_cpu_s_per_gib'])} |")
    floored = [c for c in res["configs"] if FLOOR in c["median"] and OTHER in c["median"]]
    if floored:
        lines.append("")
        lines.append("The floor: the same clients against seglog_null_broker (Produce answered at once, "
                     "nothing stored). Latency a broker adds = its p99 minus the floor's; the best any "
                     f"broker can reach here is the floor, so 'p99 at most half of {OTHER}'s' is "
                     f"reachable only where floor / {OTHER} <= 0.5. Medians:")
        lines.append("")
        lines.append(f"| configuration | full-speed p99 ms: seglog, {OTHER}, floor | floor/{OTHER} | "
                     f"added by the broker (seglog vs {OTHER}) | round-trip p99 us: seglog, {OTHER}, floor | "
                     f"floor/{OTHER} | added by the broker (seglog vs {OTHER}) | floor records/s |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for c in floored:
            m = c["median"]
            sp, kp, fp = m["seglog"]["producer"], m[OTHER]["producer"], m[FLOOR]["producer"]
            row = (f"| acks={c['acks']}, {c['partitions']} partition(s) | {fmt(sp['p99_ms'])}, "
                   f"{fmt(kp['p99_ms'])}, {fmt(fp['p99_ms'])} | {fp['p99_ms'] / kp['p99_ms']:.2f} | "
                   f"{fmt(sp['p99_ms'] - fp['p99_ms'])} vs {fmt(kp['p99_ms'] - fp['p99_ms'])} ms | ")
            if all("probe" in m[b] for b in ("seglog", OTHER, FLOOR)):
                sq, kq, fq = m["seglog"]["probe"], m[OTHER]["probe"], m[FLOOR]["probe"]
                row += (f"{fmt(sq['p99_us'])}, {fmt(kq['p99_us'])}, {fmt(fq['p99_us'])} | "
                        f"{fq['p99_us'] / kq['p99_us']:.2f} | {fmt(sq['p99_us'] - fq['p99_us'])} vs "
                        f"{fmt(kq['p99_us'] - fq['p99_us'])} us | ")
            else:
                row += "n/a | n/a | n/a | "
            lines.append(row + f"{fmt(fp['records_per_s'])} |")
    g = res.get("groups")
    if g and g.get("median"):
        lines.append("")
        lines.append(f"Consumer groups (GroupBench, {g['records']:,} records of 1 KiB in 8 partitions, "
                     f"{g['rounds']} rounds, medians): 4 members of a new group read everything; a 4th member "
                     "joins a group of 3 (3 joins per round, the time until every member has its new "
                     "partitions); one member's commitSync() loop for 10 s.")
        lines.append("")
        lines.append("| broker | 4-member read MB/s | until all assigned ms | broker CPU-s (read) | "
                     "join rebalance ms (median, max) | OffsetCommit/s | broker CPU-s (10 s of commits) | broker RSS max MiB |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for b in ("seglog", OTHER):
            m = g["median"].get(b)
            if not m:
                continue
            lines.append(f"| {b} | {fmt(m['consume_mb_per_s'], 1)} | {fmt(m['consume_first_assignment_ms'])} | "
                         f"{fmt(m['consume_broker_cpu_s'], 2)} | {fmt(m['rebalance_median_ms'])}, "
                         f"{fmt(m['rebalance_max_ms'])} | {fmt(m['commits_per_s'])} | "
                         f"{fmt(m['commits_broker_cpu_s'], 2)} | {fmt(m['broker_rss_max_mib'], 1)} |")
    lines.append("")
    lines.append("Every run:")
    lines.append("")
    lines.append("| configuration | round | broker | load before | records/s | MB/s | p50 | p99 | CPU-s | RSS max | "
                 "client CPU-s | consumer fetch MB/s |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        for r in c["runs"]:
            p, q = r["producer"], r.get("consumer")
            lines.append(f"| {c['name']} | {r['round']} | {r['broker']} | {r['loadavg_before'][0]:.2f} | "
                         f"{fmt(p['records_per_s'])} | {fmt(p['mb_per_s'], 1)} | {p['p50_ms']} | {p['p99_ms']} | "
                         f"{p['broker_cpu_s']:.2f} | {p['broker_rss_max_mib']:.0f} | {p['client_cpu_s']:.1f} | "
                         + (f"{q['fetch_mb_per_s']:.1f} |" if q else "- |"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=500000, help="records per measured run (500000)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per configuration (3)")
    ap.add_argument("--warmup-records", type=int, default=None,
                    help="unmeasured warm-up run per broker and configuration (records/5, at least "
                         "10000; 0: none)")
    ap.add_argument("--throughput", type=int, default=-1,
                    help="ProducerPerformance --throughput: -1 (default) sends as fast as it can, so "
                         "its latencies are mostly time in the producer's full buffer; a fixed rate "
                         "below both brokers' limits measures the brokers' service time instead")
    ap.add_argument("--producer-warmup-records", type=int, default=0,
                    help="ProducerPerformance --warmup-records: its second, steady-state summary "
                         "(after the client's start-up) is recorded and tabled too (default 0: off)")
    ap.add_argument("--probe-records", type=int, default=20000,
                    help="ProduceLatencyProbe records per run after the consumer (one in flight: the "
                         "broker's produce round trip in microseconds); 0: skip it")
    ap.add_argument("--group-records", type=int, default=None,
                    help="records of the consumer-group runs (default: --records); 0: skip the group runs")
    ap.add_argument("--quick", action="store_true", help="smoke check: --records 20000 --rounds 1")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma list of " + ", ".join(CONFIGS))
    ap.add_argument("--seglog", default=os.environ.get("SEGLOG", os.path.join(ROOT, "build/release/cli/seglog")))
    ap.add_argument("--metrics", action="store_true",
                    help="the seglog under test serves /metrics and is scraped every 5 s (the "
                         "cost of metrics: pass the same binary as --baseline)")
    ap.add_argument("--baseline", default=None,
                    help="another seglog binary to compare with instead of Kafka (before/after a "
                         "change in one run: its results are named 'baseline')")
    ap.add_argument("--floor", nargs="?", const=os.path.join(ROOT, "build/release/bench/seglog_null_broker"),
                    default=None,
                    help="also run the producer and the probe against this null broker (default path: "
                         "build/release/bench/seglog_null_broker): Produce answered at once, nothing "
                         "stored, the floor of what the clients can do on this machine")
    ap.add_argument("--work-dir", default=os.environ.get("SEGLOG_BROKER_BENCH_DIR", "/tmp/seglog-broker-compare"),
                    help="scratch directory for both brokers' data (same filesystem for both)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/broker_compare.json"))
    ap.add_argument("--md", default=None, help="markdown table (default: --out with .md)")
    ap.add_argument("--keep", action="store_true", help="keep the data directories")
    args = ap.parse_args()
    if args.quick:
        args.records, args.rounds = 20000, 1
        args.probe_records = min(args.probe_records, 2000)
    if args.group_records is None:
        args.group_records = args.records
    if args.warmup_records is None:
        args.warmup_records = max(10000, args.records // 5)
    if args.md is None:
        args.md = os.path.splitext(args.out)[0] + ".md"
    names = [n for n in args.configs.split(",") if n]
    for n in names:
        if n not in CONFIGS:
            ap.error(f"unknown configuration {n}")
    if not os.access(args.seglog, os.X_OK):
        ap.error(f"no seglog binary at {args.seglog} (build: ninja -C build/release seglog)")
    if args.baseline:
        if not os.access(args.baseline, os.X_OK):
            ap.error(f"no seglog binary at {args.baseline}")
        global OTHER
        OTHER = "baseline"
    SeglogBroker.METRICS = args.metrics
    if args.floor and not os.access(args.floor, os.X_OK):
        ap.error(f"no null broker at {args.floor} (build: ninja -C build/release seglog_null_broker)")
    if args.records < 1 or args.rounds < 1:
        ap.error("--records and --rounds must be positive")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks
    cp = subprocess.run([ORACLE, "classpath-with", "brokerbench", os.path.join(HERE, "src")],
                        check=True, capture_output=True, text=True).stdout.strip()
    os.makedirs(args.work_dir, exist_ok=True)
    bench = Bench(args, cp)
    res = {
        "what": ("seglog serve vs " + (f"seglog serve {args.baseline} (baseline)" if args.baseline
                                       else "Apache Kafka 4.4.0") +
                 ", ProducerPerformance + ConsumerPerformance + ProduceLatencyProbe"),
        "command": " ".join(["bench/compare/broker/run.sh", *sys.argv[1:]]),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "git_head": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                   capture_output=True, text=True).stdout.strip(),
        "machine": machine(),
        "work_dir": args.work_dir,
        "filesystem": subprocess.run(["df", "-T", args.work_dir], capture_output=True,
                                     text=True).stdout.splitlines()[-1].split()[:2],
        "settings": {"records": args.records, "rounds": args.rounds, "record_size": 1024,
                     "metrics": args.metrics,
                     "throughput": args.throughput,
                     "producer_warmup_records": args.producer_warmup_records, "warmup_records": args.warmup_records,
                     "probe_records": args.probe_records,
                     "kafka_jvm": KAFKA_HEAP + KAFKA_JVM_OPTS, "client_jvm": CLIENT_HEAP,
                     "order": "per round: seglog then kafka; each run = producer then consumer"},
        "loadavg_start": loadavg(),
        "configs": [],
    }
    log(f"machine {res['machine']}, load {res['loadavg_start']}")
    for n in names:
        acks, parts = CONFIGS[n]
        res["configs"].append(bench.run_config(n, acks, parts, args.work_dir, args.seglog))
        res["loadavg_end"] = loadavg()
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w") as f:  # after every configuration, so a long run leaves a partial file
            json.dump(res, f, indent=1)
            f.write("\n")
    if args.group_records:
        res["groups"] = bench.run_groups(args.work_dir, args.seglog)
        res["loadavg_end"] = loadavg()
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")
    md = markdown(res)
    with open(args.md, "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        log(f"error: {e}")
        sys.exit(1)
