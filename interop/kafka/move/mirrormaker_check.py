#!/usr/bin/env python3
"""MirrorMaker 2 moves a topic and a consumer group from `seglog serve` to a real Kafka 4.4.0
broker (ctest interop.mirrormaker_seglog_to_kafka, label `interop`).

    mirrormaker_check.py [--seglog build/release/cli/seglog] [--keep] [--both-directions]
                         [--set KEY=VALUE ...]

1. `seglog serve` and a single-node KRaft Kafka 4.4.0 broker, each on a free 127.0.0.1 port.
2. On seglog: topic `orders` (3 partitions, retention.ms=12345678, cleanup.policy=delete,
   max.message.bytes=200000) with K keyed records (key-<i>/value-<i>, a header, recent
   timestamps); group `mm-group` consumes all K and commits; group `mm-lagging` consumes only LAG
   of them and commits.
3. MirrorMaker 2 (org.apache.kafka.connect.mirror.MirrorMaker, dedicated mode, target `kafka`
   only; mm2.properties below, IdentityReplicationPolicy) in the background.
4. Until (bounded) on Kafka: `orders` has 3 partitions and the K records, its three configs came
   over (DescribeConfigs: set on the topic), and `mm-group` has committed exactly the
   offsets it has on seglog. Then N-K more records are produced on seglog while MM2 runs (the
   producers keep writing during the move); they arrive on Kafka too, and every partition holds
   the same records at the same offsets with the same keys, values, headers and timestamps.
   `mm-lagging`'s translated offsets, if any, are never past its offsets on seglog.
5. MM2 is stopped; a consumer on Kafka with group `mm-group` gets exactly the N-K records the
   group had not consumed on seglog, in order per partition, and nothing more.
The test prints the requests (API and version) MM2's clients sent to seglog, from their
NetworkClient DEBUG lines, and fails if MM2 met an API a broker does not support (but KIP-714's
GetTelemetrySubscriptions, which neither broker here offers). Finally seglog's log must show no
warning and no request it refused ("not enabled", "No handler", parse errors), and seglog must
stop cleanly. The work directory (MM2's log among it) is kept when the check fails or with --keep.

Why the group is at the end of its partitions when MM2 first sees it: MM2 translates a group's
offset exactly only at an offset sync (OffsetSyncStore.translateDownstream: a sync at upstream
offset u maps u exactly and anything past u to the sync's downstream offset + 1). The syncs it
keeps are the newest one and a sparse, power-of-two spaced history of older ones, so a group that
lags behind the newest sync is translated to an earlier offset (re-delivery) or not at all; a
group at the end is translated exactly, and MM2 never moves a translated offset backwards
afterwards. `mm-lagging` shows the first case, `mm-group` the migration done right.

Why IdentityReplicationPolicy: the move is one-way and for good, so the applications should find
their topic under the same name on Kafka and change nothing but bootstrap.servers. With the
default policy the topic would be `seglog.orders` and every consumer would have to be
reconfigured (the group's offsets would be translated to `seglog.orders`).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
ORACLE = os.path.join(ROOT, "interop", "kafka", "oracle.sh")
TOOLS_LOG4J = os.path.join(ROOT, "interop", "kafka", "log4j2.properties")
sys.path.insert(0, os.path.join(ROOT, "tests", "clients"))
sys.path.insert(0, os.path.join(ROOT, "bench", "compare", "broker"))
from harness import Broker, Failure, check  # noqa: E402
from broker_compare import KafkaBroker  # noqa: E402

TOPIC = "orders"
PARTITIONS = 3
K = 60          # records before MM2 starts, all consumed by mm-group (20 per partition)
N = 150         # records in all (50 per partition)
LAG = 10        # records mm-lagging consumes
CONFIGS = {"retention.ms": "12345678", "cleanup.policy": "delete", "max.message.bytes": "200000"}
CLIENT_HEAP = "-Xmx512m"
# Record i's timestamp is BASE_TS + i. Recent, since MM2 keeps the timestamps and both brokers
# delete by them: older than retention.ms, Kafka would delete the mirrored records (and roll its
# active segment to do so) at its first retention check.
BASE_TS = int(time.time() * 1000) - 60000
T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


class KafkaTarget(KafkaBroker):
    """broker_compare's single-node KRaft broker (-Xmx1G), with groups that form at once;
    optionally with its log directory `data` and its metadata log in `metadata_dir`. Each start
    begins a new server.log (the previous one becomes server.log.<n>)."""

    def __init__(self, cp, workdir, data=None, metadata_dir=None):
        super().__init__(cp, workdir)
        self.data = data or self.data
        self.metadata_dir = metadata_dir
        self.starts = 0

    def _write_config(self):
        super()._write_config()
        with open(os.path.join(self.workdir, "server.properties"), "a") as f:
            f.write("group.initial.rebalance.delay.ms=0\nauto.create.topics.enable=false\n")
            if self.metadata_dir:
                f.write(f"metadata.log.dir={self.metadata_dir}\n")

    @property
    def server_log(self):
        return os.path.join(self.workdir, "logs", "server.log")

    def start(self, *args, **kwargs):
        if os.path.exists(self.server_log):
            os.rename(self.server_log, f"{self.server_log}.{self.starts}")
        self.starts += 1
        return super().start(*args, **kwargs)

    def log(self):
        try:
            with open(self.server_log) as f:
                return f.read()
        except OSError:
            return ""


def helper(cp, *args, timeout=90):
    """One MirrorCheck command; returns its JSON."""
    cmd = ["java", CLIENT_HEAP, f"-Dlog4j2.configurationFile={TOOLS_LOG4J}", "-cp", cp,
           "MirrorCheck", *[str(a) for a in args]]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Failure(f"MirrorCheck {' '.join(map(str, args[:3]))} did not finish in {timeout}s")
    if p.returncode != 0:
        raise Failure(f"MirrorCheck {' '.join(map(str, args))} exited {p.returncode}:\n"
                      f"{p.stdout[-2000:]}\n{p.stderr[-4000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def mm2_properties(seglog, kafka):
    return f"""# Written by interop/kafka/move/mirrormaker_check.py (docs/operations.md shows the same).
clusters = seglog, kafka
seglog.bootstrap.servers = {seglog.bootstrap}
kafka.bootstrap.servers = {kafka.bootstrap}

# One flow, seglog -> kafka; the reverse one is off (and --clusters kafka runs no worker that
# writes to seglog).
seglog->kafka.enabled = true
kafka->seglog.enabled = false
seglog->kafka.topics = {TOPIC}
seglog->kafka.groups = mm-group, mm-lagging

# The same topic names on Kafka (see the docstring).
replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy

# A single broker on each side: every topic MM2 creates gets one replica.
replication.factor = 1
checkpoints.topic.replication.factor = 1
heartbeats.topic.replication.factor = 1
offset-syncs.topic.replication.factor = 1
offset.storage.replication.factor = 1
status.storage.replication.factor = 1
config.storage.replication.factor = 1

# seglog has no ACLs (DescribeAcls is not served).
sync.topic.acls.enabled = false

# Group offsets translated and written to Kafka's __consumer_offsets.
sync.group.offsets.enabled = true
# The offset syncs topic (mm2-offset-syncs.kafka.internal) stays on the source, seglog (the default).
offset-syncs.topic.location = source

# Short intervals for the test; the defaults are minutes.
emit.checkpoints.interval.seconds = 1
sync.group.offsets.interval.seconds = 1
emit.heartbeats.interval.seconds = 1
refresh.topics.interval.seconds = 2
refresh.groups.interval.seconds = 2
sync.topic.configs.interval.seconds = 2
tasks.max = 1
# A worker setting, taken from the target cluster's settings: MirrorSourceTask.commit() sends the
# newest offset sync of each partition at this interval (default 60 s); translation waits for it.
kafka.offset.flush.interval.ms = 1000
"""


# INFO to mm2.log, and the clients' NetworkClient at DEBUG: its "Sending <API> request with
# header RequestHeader(apiKey=..., apiVersion=..., clientId=...) ... to node <id>" lines tell which
# requests MM2 sent to seglog (node SEGLOG_NODE; Kafka's broker is node 1).
MM2_LOG4J = """status = error
name = seglog-mm2-check
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{{ISO8601}}] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
logger.nc.name = org.apache.kafka.clients.NetworkClient
logger.nc.level = debug
"""
SEGLOG_NODE = 7
REQUEST_LINE = re.compile(r"Sending \w+ request with header RequestHeader\(apiKey=(\w+), "
                          r"apiVersion=(\d+), clientId=(.*?), correlationId=.* to node ([+-]?\d+)")


class MirrorMaker:
    def __init__(self, cp, workdir, seglog, kafka, extra=(), both_directions=False):
        self.cp = cp
        self.clusters = [] if both_directions else ["--clusters", "kafka"]
        self.workdir = workdir
        self.props = os.path.join(workdir, "mm2.properties")
        self.seglog_bootstrap = seglog.bootstrap
        self.log_path = os.path.join(workdir, "mm2.log")
        self.proc = None
        os.makedirs(workdir, exist_ok=True)
        with open(self.props, "w") as f:
            f.write(mm2_properties(seglog, kafka))
            for line in extra:
                f.write(f"{line}\n")
        with open(os.path.join(workdir, "log4j2.properties"), "w") as f:
            f.write(MM2_LOG4J.format(path=self.log_path))

    def start(self):
        out = open(os.path.join(self.workdir, "mm2.out"), "w")
        self.proc = subprocess.Popen(
            ["java", CLIENT_HEAP, f"-Dlog4j2.configurationFile={self.workdir}/log4j2.properties",
             "-cp", self.cp, "org.apache.kafka.connect.mirror.MirrorMaker", self.props,
             *self.clusters],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=60):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.proc = None

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""

    def requests_to(self, node):
        """{API name: sorted versions} of the requests MM2's clients sent to broker `node`. Each
        client talks to one cluster, so a client that ever sent to `node` (or to its coordinator
        id, 2^31-1-node) is that cluster's, and its requests to a bootstrap address (negative
        node ids) count too."""
        ids = {str(node), str(2**31 - 1 - node)}
        sent = []
        theirs = set()
        for line in self.log().splitlines():
            m = REQUEST_LINE.search(line)
            if m:
                api, version, client, to = m.group(1), int(m.group(2)), m.group(3), m.group(4)
                sent.append((client, api, version))
                if to in ids:
                    theirs.add(client)
        out = {}
        for client, api, version in sent:
            if client in theirs:
                out.setdefault(api, set()).add(version)
        return {a: sorted(v) for a, v in sorted(out.items())}


def wait_until(what, fn, timeout, mm2=None, every=1.0):
    """Calls fn() until it returns a true value (returned), at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if mm2 is not None and not mm2.alive():
            raise Failure(f"MirrorMaker exited while waiting for {what}:\n{mm2.log()[-4000:]}")
        last = fn()
        if last and last[0]:
            return last[1]
        time.sleep(every)
    state = json.dumps(last[1]) if last else None
    raise Failure(f"{what}: not within {timeout}s; last state: {state[:1500] if state else None}")


def by_partition(records):
    out = {}
    for r in records:
        out.setdefault(r["partition"], []).append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--both-directions", action="store_true",
                    help="run MM2 without --clusters kafka: it then also runs a worker that "
                         "targets seglog (Connect's internal topics and worker group, heartbeats)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="append a line to mm2.properties (to try other MM2 settings)")
    args = ap.parse_args()
    if not os.access(args.seglog, os.X_OK):
        print(f"no seglog binary at {args.seglog}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks

    p = subprocess.run([ORACLE, "mirror-classpath"], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        print(f"oracle.sh mirror-classpath failed:\n{p.stderr}", file=sys.stderr)
        return 1
    cp = p.stdout.strip()
    work = tempfile.mkdtemp(prefix="seglog-mm2-")
    seglog = Broker(args.seglog, os.path.join(work, "seglog", "data"),
                    overrides=["group.initial.rebalance.delay.ms=0", f"node.id={SEGLOG_NODE}"])
    os.makedirs(os.path.dirname(seglog.data_dir), exist_ok=True)
    kafka = KafkaTarget(cp, os.path.join(work, "kafka"))
    mm2 = None
    ok = False
    try:
        seglog.start()
        log(f"seglog serve on {seglog.bootstrap}; starting Kafka 4.4.0")
        kafka.start()
        log(f"Kafka on {kafka.bootstrap}")

        # -- 2. the topic, K records, two groups on seglog
        helper(cp, "create-topic", seglog.bootstrap, TOPIC, PARTITIONS,
               *[f"{k}={v}" for k, v in CONFIGS.items()])
        acked = helper(cp, "produce", seglog.bootstrap, TOPIC, PARTITIONS, 0, K, BASE_TS)["acked"]
        check([(a["partition"], a["offset"]) for a in acked] ==
              [(i % PARTITIONS, i // PARTITIONS) for i in range(K)], f"seglog acked {acked[:4]}...")
        src = helper(cp, "describe", seglog.bootstrap, TOPIC)
        src_cfg = {c["name"]: (c["value"], c["source"]) for c in src["configs"]}
        for k, v in CONFIGS.items():
            check(src_cfg.get(k) == (v, "DYNAMIC_TOPIC_CONFIG"), f"seglog DescribeConfigs {k}: {src_cfg}")
        got = helper(cp, "consume-group", seglog.bootstrap, "mm-group", TOPIC, K, 1500, 30000)
        check(len(got["taken"]) == K and not got["extra"], f"mm-group took {len(got['taken'])} "
              f"of {K}, {len(got['extra'])} extra")
        upstream = {int(p): o for p, o in got["committed"].items()}
        check(upstream == {p: K // PARTITIONS for p in range(PARTITIONS)}, f"mm-group: {upstream}")
        lag = helper(cp, "consume-group", seglog.bootstrap, "mm-lagging", TOPIC, LAG, 0, 30000)
        lagging = {int(p): o for p, o in lag["committed"].items()}
        check(sum(lagging.values()) == LAG and len(lag["taken"]) == LAG, f"mm-lagging: {lag['committed']}")
        offs = helper(cp, "describe", seglog.bootstrap, TOPIC, "mm-group", "mm-lagging")["groups"]
        check({int(p): o for p, o in offs["mm-group"].items()} == upstream, f"OffsetFetch: {offs}")
        log(f"seglog: {K} records, mm-group at {upstream}, mm-lagging at {lagging}")

        # -- 3. MirrorMaker 2
        mm2 = MirrorMaker(cp, os.path.join(work, "mm2"), seglog, kafka, args.set,
                          args.both_directions)
        mm2.start()
        log("MirrorMaker 2 started")

        # -- 4. topic, records, configs, group offsets on Kafka
        def first_phase():
            d = helper(cp, "describe", kafka.bootstrap, TOPIC, "mm-group")
            if d["partitions"] != PARTITIONS:
                return False, d
            g = {int(p): o for p, o in d["groups"]["mm-group"].items()}
            return g == upstream, d

        d = wait_until("topic, configs and mm-group's offsets on Kafka", first_phase, 120, mm2)
        dst_cfg = {c["name"]: (c["value"], c["source"]) for c in d["configs"]}
        log(f"Kafka: {TOPIC} with {d['partitions']} partitions, mm-group at {d['groups']}; "
            f"configs {dst_cfg}")
        for k in CONFIGS:
            check(dst_cfg.get(k) == (CONFIGS[k], "DYNAMIC_TOPIC_CONFIG"),
                  f"Kafka DescribeConfigs {k}: {dst_cfg}")

        acked = helper(cp, "produce", seglog.bootstrap, TOPIC, PARTITIONS, K, N, BASE_TS)["acked"]
        check([(a["partition"], a["offset"]) for a in acked] ==
              [(i % PARTITIONS, i // PARTITIONS) for i in range(K, N)], "seglog acked the rest")
        log(f"seglog: {N - K} more records while MM2 runs")

        source = helper(cp, "dump", seglog.bootstrap, TOPIC)["records"]
        check(len(source) == N, f"seglog holds {len(source)} records")

        def all_records():
            recs = helper(cp, "dump", kafka.bootstrap, TOPIC)["records"]
            if len(recs) >= N:
                return True, recs
            return False, {f"{r['partition']}": f"{r['offset']}.." for r in recs[:1]} | {"count": len(recs)}

        mirrored = wait_until(f"all {N} records on Kafka", all_records, 90, mm2)
        sp, mp = by_partition(source), by_partition(mirrored)
        for p in range(PARTITIONS):
            check(mp.get(p) == sp.get(p), f"partition {p} differs: seglog {sp.get(p, [])[:2]}... "
                                          f"kafka {mp.get(p, [])[:2]}...")
        for r in source:
            i = int(r["key"].split("-")[1])
            check(r["value"] == f"value-{i}" and r["headers"] == [["seq", str(i)]] and
                  r["timestamp"] == BASE_TS + i and r["partition"] == i % PARTITIONS and
                  r["offset"] == i // PARTITIONS, f"seglog record {r}")
        log(f"Kafka: all {N} records, identical per partition (offsets, keys, values, headers, "
            f"timestamps)")

        d = helper(cp, "describe", kafka.bootstrap, TOPIC, "mm-group", "mm-lagging")
        translated_lagging = {int(p): o for p, o in d["groups"]["mm-lagging"].items()}
        for p, o in translated_lagging.items():
            check(o <= lagging.get(p, 0), f"mm-lagging translated past its seglog offset: "
                                          f"{translated_lagging} vs {lagging}")
        check({int(p): o for p, o in d["groups"]["mm-group"].items()} == upstream,
              f"mm-group moved on Kafka: {d['groups']}")
        log(f"mm-lagging: seglog {lagging}, Kafka {translated_lagging} (never past)")

        # -- 5. stop MM2; the consumer resumes on Kafka
        mm2.stop()
        log("MirrorMaker 2 stopped")
        sent = mm2.requests_to(SEGLOG_NODE)
        check("FETCH" in sent and "OFFSET_FETCH" in sent, f"MM2's requests to seglog: {sent}")
        log("MM2 sent seglog " + ", ".join(f"{a} v{'/'.join(map(str, v))}" for a, v in sent.items()))
        # Kafka advertises GetTelemetrySubscriptions (KIP-714) only with a client-telemetry metrics
        # reporter, and neither broker here has one: every client gives it up at DEBUG.
        unsupported = [line for line in mm2.log().splitlines() if "UnsupportedVersion" in line
                       and "GET_TELEMETRY_SUBSCRIPTIONS" not in line]
        check(not unsupported, "MM2 met unsupported APIs:\n" + "\n".join(unsupported[:5]))
        got = helper(cp, "consume-group", kafka.bootstrap, "mm-group", TOPIC, N - K, 3000, 60000)
        want = {p: [r for r in sp[p] if r["offset"] >= upstream[p]] for p in range(PARTITIONS)}
        gp = by_partition(got["taken"])
        check(not got["extra"], f"{len(got['extra'])} records past the N-K: {got['extra'][:3]}")
        for p in range(PARTITIONS):
            check(gp.get(p) == want[p], f"partition {p} on Kafka resumed with "
                                        f"{[r['offset'] for r in gp.get(p, [])][:5]}..., want "
                                        f"{[r['offset'] for r in want[p]][:5]}...")
        log(f"Kafka consumer in mm-group got exactly the {N - K} records not consumed on seglog")

        # -- seglog's log: no warning, no request it refused
        text = seglog.log()
        bad = [line for line in text.splitlines()
               if re.search(r"\] (WARN|ERROR) |not enabled|No handler|Error getting request|"
                            r"Error parsing|Failed to encode|Closing socket connection", line)]
        check(not bad, "seglog logged warnings or refused requests:\n" + "\n".join(bad[:20]))
        seglog.stop()
        ok = True
        print("mirrormaker_seglog_to_kafka: passed")
        return 0
    except Exception as e:  # noqa: BLE001 - Failure, or broker_compare's BenchError
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        if mm2 is not None:
            mm2.stop()
        try:
            kafka.stop()
        except Exception as e:  # noqa: BLE001 - report, keep cleaning up
            print(f"kafka stop: {e}", file=sys.stderr)
        if seglog.proc is not None:
            seglog.kill()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)
        log("done")


if __name__ == "__main__":
    sys.exit(main())
