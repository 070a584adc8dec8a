#!/usr/bin/env python3
"""`seglog serve` and Apache Kafka 4.4.0 (combined mode) take turns on ONE log directory with
ONE server.properties, three round trips seglog -> Kafka -> seglog (issue 27; ctest
interop.kraft_takeover_round_trip, label `interop`).

    kraft_takeover_check.py [--seglog build/release/cli/seglog] [--rounds 3] [--keep]
                            [--kafka-only] [--go-on] [--timeout 780]

The directory D and the file P (process.roles=broker,controller, node.id=1, a static quorum
of one voter on a CONTROLLER listener, log.dirs=D, replication factors 1; both listeners on
free 127.0.0.1 ports) never change. seglog runs as `seglog serve --server-config P` and
formats D itself at its first start; Kafka runs as `kafka.Kafka P` with no format step, on
whatever the other program left. Phases S1 K1 S2 K2 S3 K3 S4 (S = seglog, K = Kafka), each
ended by SIGTERM and a clean shutdown.

Clients: one client JVM (move/src/TakeoverCheck.java) for the whole test, so two producers
live across every switch: an idempotent one (its producer id, epoch and sequence numbers must
be accepted by the next program) and a transactional one (transactional.id takeover-long)
whose transaction begun on one program is committed or aborted on the next. Per phase:
  * `orders` (3 partitions, retention.ms, max.message.bytes, cleanup.policy=delete): 30 records
    from a fresh idempotent producer (key-<i>/value-<i>, header seq=<i>, timestamp
    BASE_TS+i), 12 from the long-lived one;
  * `compacted` (2 partitions, cleanup.policy=compact): 22 keyed records, tombstones among them;
  * `txn` (2 partitions): the open transaction of the previous phase is committed (odd
    phases) or aborted (even) here, then the long-lived producer commits one transaction and
    aborts one, a fresh producer with transactional.id takeover-fresh (initTransactions on
    the new program: the same producer id, a higher epoch) commits one, in odd phases aborts
    one, and the long-lived producer leaves one open across the switch (not in the last
    phase);
  * group `g-classic` (classic protocol) consumes 25 records of `orders` and commits, group
    `g-consumer` (KIP-848 consumer protocol) consumes up to 5 of `txn` (read_committed);
  * topic changes: Kafka creates `made-by-kafka-<phase>`, seglog (after S1)
    `made-by-seglog-<phase>` (2 partitions, retention.ms), every program appends to every one of
    them; `orders`'s retention.ms is altered each
    phase; K1 deletes `doomed-by-kafka`, S2 deletes `doomed-by-seglog` (both made in S1).
Every acknowledged offset must be the one the test's model predicts (the end of the
partition, a transaction marker after each committed or aborted transaction).

After each switch (on the program that just started):
  * its log has no ERROR and nothing about strays, inconsistent topic ids or an unclean
    leader election (Kafka: handleBrokerUncleanShutdown, "using an unclean election"); Kafka's
    has no WARN but "Performing controller activation." and no recovery of a user partition
    (the other program left a clean shutdown); seglog's has no WARN; D has no `-stray`
    directory. The same for the whole run's log after the SIGTERM (Kafka may also print
    "Attempting to close NetworkClient that has already been closed" then);
  * Admin state equals the state the previous program showed just before it stopped: cluster
    id, controller, nodes and finalized features, every topic name (internal ones too), topic
    ids, partition counts, leaders/ISR, every non-default
    config with its source, each group's type, state, epochs and committed offsets (with leader
    epoch and metadata), DescribeProducers of every partition (producer id, epoch, last
    sequence and timestamp, open transaction start offset, coordinator epoch),
    ListTransactions and DescribeTransactions (state, producer id/epoch, timeout, start time,
    partitions); topic ids equal D/<topic>-<p>/partition.metadata and the ids at creation;
  * every record of every topic, read_uncommitted and read_committed, equals the model
    (partition, offset, key, value, headers, timestamp; aborted records and records of the open
    transaction absent from read_committed), log start and end offsets (the last stable offset
    for read_committed) equal the model's, ListOffsets by timestamp and max-timestamp of `orders`
    equal the model's, the groups' committed offsets equal the model's, and a group consumer
    resumes at exactly the next record of each partition;
  * every producer id the new program hands out (DescribeProducers) is one no earlier program
    had handed out.
At the end (S4): both groups consume everything left and get nothing more; D has no `-stray`
directory; `seglog check --log-dir D` passes; Kafka's DumpLogSegments
--cluster-metadata-decoder reads every segment and snapshot of D/__cluster_metadata-0.
Prints `kraft_takeover_check: passed`.

--kafka-only runs every phase with Kafka (formatting D first with kafka.tools.StorageTool, as
for a directory that is Kafka's first): the harness checked on Kafka itself. --go-on (for
debugging) only reports an unclean log or a changed state and goes on to the next checks; the
test still fails at the end. The work directory is kept when the check fails (or with --keep):
data/ (D), server.properties (P), seglog-serve.log, logs/server.log[.n] (one per Kafka start),
clients.err (the client JVM's warnings).
"""

import argparse
import glob
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mirrormaker_check import (CLIENT_HEAP, ORACLE, ROOT, TOOLS_LOG4J, Broker,  # noqa: E402
                               Failure, KafkaTarget, check, log, wait_until)
import broker_compare  # noqa: E402  (on sys.path through mirrormaker_check)
from harness import free_port  # noqa: E402

# Kafka's broker JVM: kafka-server-start.sh gives it 1 GiB; this small workload needs far less,
# and the machine has two cores and other JVMs (the clients) running.
broker_compare.KAFKA_HEAP[:] = ["-Xms256m", "-Xmx512m"]

BASE_TS = int(time.time() * 1000) - 60000
ORDERS_CONFIGS = {"retention.ms": "12345678", "cleanup.policy": "delete",
                  "max.message.bytes": "200000"}
COMPACTED_CONFIGS = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01",
                     "segment.bytes": "1048576"}
GROUPS = {"g-classic": ("classic", "orders"), "g-consumer": ("consumer", "txn")}
LONG_TXN = "takeover-long"
FRESH_TXN = "takeover-fresh"
TXN_IDS = [LONG_TXN, FRESH_TXN]
# WARN lines Kafka 4.4.0 prints at every start of a single-node combined server.
KAFKA_WARN_OK = ["Performing controller activation",
                 # at SIGTERM
                 "Attempting to close NetworkClient that has already been closed"]


def server_properties(data, port, cport):
    return f"""# Written by interop/kafka/move/kraft_takeover_check.py: the one file both
# seglog serve and Kafka 4.4.0 (kafka.Kafka) run with, on the one log directory.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{cport}
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={data}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Fewer coordinator partitions than the defaults (50 each): the same code paths, faster starts.
offsets.topic.num.partitions=5
transaction.state.log.num.partitions=3
"""


class SeglogNode(Broker):
    """harness.Broker, started with the shared server.properties and nothing else. Each start
    appends to one log file; log() is the text of the current (or last) start."""

    def __init__(self, seglog, data_dir, port, config):
        super().__init__(seglog, data_dir, port=port)
        self.config = config
        self.log_path = os.path.join(os.path.dirname(data_dir), "seglog-serve.log")
        self.mark = 0

    def full_log(self):
        return Broker.log(self)

    def log(self):
        return self.full_log()[self.mark:]

    def start(self, timeout=60):
        self.mark = len(self.full_log())
        self.starts += 1
        with open(self.log_path, "a") as out:
            self.proc = subprocess.Popen([self.seglog, "serve", "--server-config", self.config],
                                         stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                rc, self.proc = self.proc.returncode, None
                raise Failure(f"seglog serve exited with {rc} at start:\n{self.log()[-4000:]}")
            if broker_compare.listening(self.port):
                return self
            time.sleep(0.1)
        raise Failure(f"seglog serve did not listen within {timeout}s:\n{self.log()[-4000:]}")


class KafkaNode(KafkaTarget):
    """mirrormaker_check's KafkaTarget run with the shared server.properties (workdir/
    server.properties is that file; KafkaTarget's own settings are all in it)."""

    def __init__(self, cp, workdir, data, port, cport, config_text):
        super().__init__(cp, workdir, data=data)
        self.port, self.controller_port = port, cport
        self.config_text = config_text

    def _write_config(self):
        super()._write_config()  # logs/ and log4j2.properties (and its own server.properties)
        with open(os.path.join(self.workdir, "server.properties"), "w") as f:
            f.write(self.config_text)

    def start(self, *args, **kwargs):
        try:
            return super().start(*args, **kwargs)
        except broker_compare.BenchError as e:
            raise Failure(f"Kafka did not start: {e}\n{tail_errors(self.log())}")

    def stop_clean(self, timeout=90):
        if self.proc is None:
            return
        self.stop(timeout)
        text = self.log()
        check("shut down completed" in text,
              f"Kafka's log has no \"shut down completed\" after SIGTERM:\n{text[-3000:]}")


def tail_errors(text, n=15):
    lines = [x for x in text.splitlines() if "] ERROR " in x or "] WARN " in x or "Exception" in x]
    return "\n".join(lines[:n]) or text[-3000:]


class Session:
    """The TakeoverCheck JVM: one command line in, one JSON line out."""

    def __init__(self, cp, workdir):
        self.err_path = os.path.join(workdir, "clients.err")
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(
            ["java", CLIENT_HEAP, f"-Dlog4j2.configurationFile={TOOLS_LOG4J}", "-cp", cp,
             "TakeoverCheck"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
            text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put(line)
        self.lines.put(None)

    def call(self, *args, timeout=150):
        cmd = " ".join(str(a) for a in args)
        try:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        except OSError:
            raise Failure(f"client JVM is gone ({cmd[:80]}):\n{self.err_tail()}")
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise Failure(f"client command `{cmd[:160]}` did not answer within {timeout}s")
        if line is None:
            raise Failure(f"client JVM exited during `{cmd[:160]}`:\n{self.err_tail()}")
        out = json.loads(line)
        if isinstance(out, dict) and "error" in out:
            raise Failure(f"client command `{cmd[:160]}` failed: {out['error']}\n{out['trace']}")
        return out

    def err_tail(self):
        self.err.flush()
        with open(self.err_path) as f:
            return f.read()[-3000:]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.err.close()


def short(v, n=300):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


def diff(a, b, path=""):
    """Differences between two JSON values, one line each."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                out.append(f"{path}/{k}: missing before, now {short(b[k])}")
            elif k not in b:
                out.append(f"{path}/{k}: was {short(a[k])}, now missing")
            else:
                out += diff(a[k], b[k], f"{path}/{k}")
        return out
    return [] if a == b else [f"{path}: was {short(a)}, now {short(b)}"]


class Model:
    """What every partition must hold: the records in offset order, each with its status (plain,
    committed, aborted, open), and the next offset (transaction markers take one each)."""

    def __init__(self):
        self.recs = {}      # (topic, p) -> [record dict + "status"]
        self.next = {}      # (topic, p) -> next offset
        self.topics = {}    # live topic -> {"partitions", "id"}
        self.deleted = []
        self.committed = {g: {} for g in GROUPS}  # group -> {(topic, p): offset}
        self.open_txn = []  # records of the long-lived producer's open transaction
        self.counters = {}

    def add_topic(self, name, partitions):
        self.topics[name] = {"partitions": partitions, "id": None}
        for p in range(partitions):
            self.recs[(name, p)] = []
            self.next[(name, p)] = 0

    def delete_topic(self, name):
        parts = self.topics.pop(name)["partitions"]
        for p in range(parts):
            del self.recs[(name, p)], self.next[(name, p)]
        self.deleted.append(name)

    def take(self, stream, n):
        """The next n record numbers of a stream (disjoint ranges, so every record is unique)."""
        start = self.counters.get(stream, 0)
        self.counters[stream] = start + n
        return start, start + n

    def add(self, who, topic, acked, kind, status="plain"):
        out = []
        for a in acked:
            i, p, off = a["i"], a["partition"], a["offset"]
            want = self.next[(topic, p)]
            check(off == want, f"{who}: record {i} of {topic} acked at {topic}-{p} offset {off}, "
                               f"expected offset {want} (the end of the partition)")
            if kind == "keyed":
                key, value = f"k-{i % 11}", (None if i % 5 == 4 else f"v-{i}")
            elif kind == "txn":
                key, value = f"t-{i}", f"tv-{i}"
            else:
                key, value = f"key-{i}", f"value-{i}"
            r = {"partition": p, "offset": off, "timestamp": BASE_TS + i, "key": key,
                 "value": value, "headers": [["seq", str(i)]], "status": status}
            self.recs[(topic, p)].append(r)
            self.next[(topic, p)] = off + 1
            out.append(r)
        return out

    def end_txn(self, recs, commit):
        for r in recs:
            r["status"] = "committed" if commit else "aborted"
        for topic, p in sorted({(self.topic_of(r), r["partition"]) for r in recs}):
            self.next[(topic, p)] += 1  # the marker

    def topic_of(self, r):
        for (t, p), rs in self.recs.items():
            if any(x is r for x in rs):
                return t
        raise KeyError(r)

    def lso(self, topic, p):
        opens = [r["offset"] for r in self.recs[(topic, p)] if r["status"] == "open"]
        return min(opens) if opens else self.next[(topic, p)]

    def visible(self, topic, p, isolation):
        rs = self.recs[(topic, p)]
        if isolation == "read_uncommitted":
            return rs
        lso = self.lso(topic, p)
        return [r for r in rs if r["status"] in ("plain", "committed") and r["offset"] < lso]

    def unconsumed(self, group, topic):
        out = {}
        for p in range(self.topics[topic]["partitions"]):
            c = self.committed[group].get((topic, p), 0)
            out[p] = [r for r in self.visible(topic, p, "read_committed") if r["offset"] >= c]
        return out


def strip(r):
    return {k: v for k, v in r.items() if k != "status"}


def partition_metadata_ids(data):
    """{topic: {topic id}} from D/<topic>-<p>/partition.metadata (live partition dirs only)."""
    out = {}
    for d in sorted(os.listdir(data)):
        path = os.path.join(data, d, "partition.metadata")
        name, _, num = d.rpartition("-")
        if not (num.isdigit() and os.path.isfile(path)):
            continue
        with open(path) as f:
            m = re.search(r"topic_id: (\S+)", f.read())
        out.setdefault(name, set()).add(m.group(1) if m else None)
    return out


class Test:
    def __init__(self, args, cp, work):
        self.args = args
        self.cp = cp
        self.work = work
        self.data = os.path.join(work, "data")
        os.makedirs(self.data)
        port, cport = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{port}"
        self.config_text = server_properties(self.data, port, cport)
        self.config = os.path.join(work, "server.properties")
        with open(self.config, "w") as f:
            f.write(self.config_text)
        self.seglog = SeglogNode(args.seglog, self.data, port, self.config)
        self.kafka = KafkaNode(cp, work, self.data, port, cport, self.config_text)
        self.session = None
        self.current = None         # (who, node) of the program running now
        self.soft_failures = 0
        self.model = Model()
        self.pids = set()           # producer ids seen so far
        self.producers_made = 0     # producers the test created (each needs its own id)
        self.long_lived = {}        # the client JVM's two producers, once created
        self.fresh_txn = None       # (producer id, epoch) of takeover-fresh

    # -- helpers ----------------------------------------------------------------------------
    def c(self, *args, **kw):
        return self.session.call(*args, **kw)

    def state(self):
        topics = sorted(self.model.topics) + self.model.deleted
        return self.c("state", self.bootstrap, ",".join(topics), ",".join(GROUPS),
                      ",".join(TXN_IDS))

    def leaders_ready(self):
        st = self.state()
        bad = {t: d for t, d in st["topics"].items() if t in self.model.topics and
               any(lead != 1 or isr != [1] for _, lead, isr in d.get("leaders", [[0, -1, []]]))}
        return not bad, (st if not bad else bad)

    # -- the workload -----------------------------------------------------------------------
    def create_topic(self, who, name, partitions, configs):
        self.c("create-topic", self.bootstrap, name, partitions,
               *[f"{k}={v}" for k, v in configs.items()])
        self.model.add_topic(name, partitions)
        wait_until(f"{name} led by node 1 on {who}", self.leaders_ready, 30)

    def produce_plain(self, who, topic, n):
        lo, hi = self.model.take(topic, n)
        parts = self.model.topics[topic]["partitions"]
        acked = self.c("produce", self.bootstrap, topic, parts, lo, hi, BASE_TS)["acked"]
        self.producers_made += 1
        self.model.add(who, topic, acked, "plain")

    def txn(self, who, commit_or_abort_or_open):
        if not self.long_lived.get("txn"):
            self.long_lived["txn"] = self.producers_made = self.producers_made + 1
        lo, hi = self.model.take("txn", 6)
        acked = self.c("txn", self.bootstrap, "txn", 2, lo, hi, BASE_TS,
                       commit_or_abort_or_open)["acked"]
        recs = self.model.add(who, "txn", acked, "txn", "open")
        if commit_or_abort_or_open == "open":
            self.model.open_txn = recs
        else:
            self.model.end_txn(recs, commit_or_abort_or_open == "commit")

    def writes(self, n, who, last):
        m = self.model
        kind = who.split()[0].lower()
        if n == 0:
            self.create_topic(who, "orders", 3, ORDERS_CONFIGS)
            self.create_topic(who, "compacted", 2, COMPACTED_CONFIGS)
            self.create_topic(who, "txn", 2, {})
            for t in ("doomed-by-kafka", "doomed-by-seglog"):
                self.create_topic(who, t, 1, {})
                self.produce_plain(who, t, 3)
        # plain and keyed records; the long-lived idempotent producer
        self.produce_plain(who, "orders", 30)
        if not self.long_lived.get("idem"):
            self.long_lived["idem"] = self.producers_made = self.producers_made + 1
        lo, hi = m.take("orders-long", 12)
        acked = self.c("idem-send", self.bootstrap, "orders", 3, 100000 + lo, 100000 + hi,
                       BASE_TS)["acked"]
        m.add(who, "orders", acked, "plain")
        lo, hi = m.take("compacted", 22)
        acked = self.c("produce-keyed", self.bootstrap, "compacted", 2, lo, hi, BASE_TS)["acked"]
        self.producers_made += 1
        m.add(who, "compacted", acked, "keyed")
        # transactions
        if m.open_txn:
            commit = n % 2 == 1
            self.c("txn-end", self.bootstrap, "commit" if commit else "abort")
            m.end_txn(m.open_txn, commit)
            log(f"{who}: the transaction left open by the previous program "
                f"{'committed' if commit else 'aborted'} here")
            m.open_txn = []
        self.txn(who, "commit")
        self.txn(who, "abort")
        self.producers_made += self.fresh_txn is None  # takeover-fresh keeps its id
        for end in (["commit", "abort"] if n % 2 else ["commit"]):
            lo, hi = m.take("txn", 4)
            acked = self.c("txn-fresh", self.bootstrap, FRESH_TXN, "txn", 2, lo, hi, BASE_TS,
                           end)["acked"]
            m.end_txn(m.add(who, "txn", acked, "txn", "open"), end == "commit")
        d = self.state()["transactions"][FRESH_TXN]
        if self.fresh_txn is not None:
            check(d["producerId"] == self.fresh_txn[0] and d["producerEpoch"] > self.fresh_txn[1],
                  f"{who}: {FRESH_TXN} initTransactions gave producer id/epoch "
                  f"{d['producerId']}/{d['producerEpoch']}; before the switch it had "
                  f"{self.fresh_txn[0]}/{self.fresh_txn[1]} (same id, higher epoch expected)")
        self.fresh_txn = (d["producerId"], d["producerEpoch"])
        # topics made by this program, appends to the other program's
        if n > 0:
            name = f"made-by-{kind}-{n + 1}"  # the phase that made it
            self.create_topic(who, name, 2, {"retention.ms": str(86400000 + n),
                                             "cleanup.policy": "delete"})
        for t in sorted(m.topics):
            if t.startswith("made-by-"):
                self.produce_plain(who, t, 6)
        if n == 1:
            self.delete("doomed-by-kafka", who)
        if n == 2:
            self.delete("doomed-by-seglog", who)
        value = str(12345678 + 1000 * n)
        self.c("alter-config", self.bootstrap, "orders", f"retention.ms={value}")
        # groups
        self.consume(who, "g-classic", 25, final=last)
        self.consume(who, "g-consumer", 5, final=last)
        if not last:
            self.txn(who, "open")
        log(f"{who}: wrote {sum(len(v) for v in m.recs.values())} records in all so far; "
            f"{'no' if last else 'one'} transaction left open")

    def delete(self, topic, who):
        self.c("delete-topic", self.bootstrap, topic)
        self.model.delete_topic(topic)

        def gone():
            st = self.c("state", self.bootstrap, topic, "-", "-")
            return topic not in st["all_topics"], st["all_topics"]

        wait_until(f"{topic} deleted on {who}", gone, 30)
        log(f"{who}: deleted {topic}")

    def consume(self, who, group, want, final=False):
        protocol, topic = GROUPS[group]
        left = self.model.unconsumed(group, topic)
        available = sum(len(v) for v in left.values())
        count = available if final else min(want, available)
        if count == 0:
            return
        got = self.c("consume", self.bootstrap, group, protocol, topic, count,
                     2000 if final else 0, 60000)
        check(len(got["taken"]) == count, f"{who}: {group} got {len(got['taken'])} of {count} "
                                          f"records of {topic}")
        if final:
            check(not got["extra"], f"{who}: {group} got {len(got['extra'])} records past the "
                                    f"end: {short(got['extra'][:3])}")
        per = {}
        for rec in got["taken"]:
            per.setdefault(rec["partition"], []).append(rec)
        for p, recs in per.items():
            want_recs = [strip(r) for r in left[p][:len(recs)]]
            check(recs == want_recs, f"{who}: {group} resumed {topic}-{p} with offsets "
                                     f"{[r['offset'] for r in recs][:6]}, expected "
                                     f"{[r['offset'] for r in want_recs][:6]} (committed "
                                     f"{self.model.committed[group].get((topic, p), 0)}); first "
                                     f"difference: {first_diff(recs, want_recs)}")
        for p, off in got["committed"].items():
            self.model.committed[group][(topic, int(p))] = off

    # -- checks -----------------------------------------------------------------------------
    def verify(self, who):
        """Records, offsets, timestamps lookups and group offsets against the model."""
        m = self.model
        nrec = 0
        for topic in sorted(m.topics):
            for iso in ["read_uncommitted"] + (["read_committed"] if topic == "txn" else []):
                d = self.c("dump", self.bootstrap, topic, iso)
                got = {}
                for rec in d["records"]:
                    got.setdefault(rec["partition"], []).append(rec)
                for p in range(m.topics[topic]["partitions"]):
                    want = [strip(r) for r in m.visible(topic, p, iso)]
                    have = got.get(p, [])
                    check(have == want, f"{who}: {topic}-{p} ({iso}) holds {len(have)} records, "
                                        f"expected {len(want)}; first difference: "
                                        f"{first_diff(have, want)}")
                    end = m.next[(topic, p)] if iso == "read_uncommitted" else m.lso(topic, p)
                    check(d["start"].get(str(p)) == 0 and d["end"].get(str(p)) == end,
                          f"{who}: {topic}-{p} ({iso}) log start/end offsets "
                          f"{d['start'].get(str(p))}/{d['end'].get(str(p))}, expected 0/{end}")
                    nrec += len(have)
        # ListOffsets by timestamp and max-timestamp
        targets = [BASE_TS, BASE_TS + 31, BASE_TS + 100013, BASE_TS + 10**8]
        d = self.c("offsets-for-times", self.bootstrap, "orders", ",".join(map(str, targets)))
        for p in range(3):
            rs = m.recs[("orders", p)]
            for ts in targets:
                hit = next((r for r in rs if r["timestamp"] >= ts), None)
                want = [hit["offset"], hit["timestamp"]] if hit else [-1, -1]
                check(d[str(ts)][str(p)] == want, f"{who}: ListOffsets orders-{p} timestamp {ts}: "
                                                  f"{d[str(ts)][str(p)]}, expected {want}")
            top = max(rs, key=lambda r: r["timestamp"]) if rs else None
            want = [top["offset"], top["timestamp"]] if top else [-1, -1]
            check(d["max"][str(p)] == want, f"{who}: ListOffsets orders-{p} max-timestamp "
                                            f"{d['max'][str(p)]}, expected {want}")
        return nrec

    def check_state(self, who, st):
        m = self.model
        for t in m.deleted:
            check(t not in st["all_topics"] and st["topics"][t]["partitions"] == -1,
                  f"{who}: deleted topic {t} is back: {short(st['topics'][t])}")
        ids = partition_metadata_ids(self.data)
        for t, info in m.topics.items():
            d = st["topics"][t]
            check(d["partitions"] == info["partitions"],
                  f"{who}: {t} has {d['partitions']} partitions, expected {info['partitions']}")
            if info["id"] is None:
                info["id"] = d["id"]
            check(d["id"] == info["id"], f"{who}: {t} has topic id {d['id']}, it was created "
                                         f"with {info['id']}")
            check(ids.get(t) == {d["id"]}, f"{who}: {t}'s partition.metadata files name topic "
                                           f"ids {ids.get(t)}, the metadata {d['id']}")
        for g in GROUPS:
            have = {k: v[0] for k, v in st["groups"][g]["offsets"].items()}
            want = {f"{t}-{p}": o for (t, p), o in m.committed[g].items()}
            check(have == want, f"{who}: group {g} committed offsets {have}, expected {want}")
        pids = {p["producerId"] for ps in st["producers"].values() for p in ps}
        pids |= {t["producerId"] for t in st["transactions"].values() if "producerId" in t}
        return pids

    def check_log(self, who, text, kafka):
        """Fails on the bad lines of one start's log, grouped by kind with a few examples."""
        kinds = [
            ("marked stray / stray log (partition directories the metadata does not name)",
             lambda x: re.search(r"stray", x, re.I)),
            ("inconsistent topic id",
             lambda x: re.search(r"InconsistentTopicId|inconsistent topic", x, re.I)),
            ("unclean leader election (the last program's shutdown was not taken as clean: "
             ".kafka_cleanshutdown, broker registration and ELR in the metadata log)",
             lambda x: "an unclean election" in x or "handleBrokerUncleanShutdown" in x),
            ("ERROR", lambda x: "] ERROR " in x),
        ]
        if kafka:
            kinds += [("recovery of a user partition (no clean shutdown seen)",
                       lambda x: ("Recovering unflushed segment" in x and
                                  "__cluster_metadata-0" not in x)),
                      ("WARN", lambda x: ("] WARN " in x and
                                          not any(ok in x for ok in KAFKA_WARN_OK)))]
        else:
            kinds += [("WARN", lambda x: "] WARN " in x)]
        found = {}
        for line in text.splitlines():
            for name, match in kinds:
                if match(line):
                    found.setdefault(name, []).append(line)
                    break
        strays = sorted(d for d in os.listdir(self.data) if d.endswith("-stray"))
        if strays:
            meta = os.path.isdir(os.path.join(self.data, "__cluster_metadata-0"))
            found.setdefault(f"-stray directories in D (D/__cluster_metadata-0 "
                             f"{'exists' if meta else 'does not exist'})", []).extend(strays)
        report = []
        for name, lines in found.items():
            report.append(f"  {len(lines)} x {name}, e.g.:")
            report += [f"    {x[:300]}" for x in lines[:3]]
        self.soft(not found, f"{who}: its log is not clean:\n" + "\n".join(report))

    def soft(self, cond, what):
        """check(), or with --go-on a report and one more failure counted for the end."""
        if not cond and self.args.go_on:
            log(f"NOT PASSING (going on): {what}")
            self.soft_failures += 1
            return
        check(cond, what)

    # -- phases -----------------------------------------------------------------------------
    def start(self, n, kafka):
        name = "Kafka" if kafka else "seglog"
        who = f"{name} (phase {n + 1}, {name[0].upper()}{n // 2 + 1})"
        t0 = time.monotonic()
        self.current = None
        if kafka:
            first = n == 0
            self.kafka.start(timeout=150, format_storage=first)
        else:
            self.seglog.start(timeout=60)
        self.current = (who, self.kafka if kafka else self.seglog)
        log(f"{who} started on D in {time.monotonic() - t0:.1f}s")
        return who

    def stop(self, who, kafka):
        t0 = time.monotonic()
        if kafka:
            self.kafka.stop_clean()
        else:
            self.seglog.stop()
        self.check_log(f"{who}, its whole run", self.kafka.log() if kafka else self.seglog.log(),
                       kafka)
        check(os.path.isfile(os.path.join(self.data, ".kafka_cleanshutdown")),
              f"{who} stopped without leaving D/.kafka_cleanshutdown")
        meta = os.path.join(self.data, "__cluster_metadata-0")
        files = sorted(os.listdir(meta)) if os.path.isdir(meta) else None
        log(f"{who} stopped cleanly in {time.monotonic() - t0:.1f}s; __cluster_metadata-0: "
            f"{files if files is not None else 'MISSING'}")

    def run(self):
        rounds = self.args.rounds
        phases = 2 * rounds + 1
        before = None
        for n in range(phases):
            kafka = self.args.kafka_only or n % 2 == 1
            last = n == phases - 1
            who = self.start(n, kafka)
            if self.session is None:
                self.session = Session(self.cp, self.work)
            if n > 0:
                self.check_log(who, self.kafka.log() if kafka else self.seglog.log(), kafka)
                st = wait_until(f"every partition led by node 1 on {who}", self.leaders_ready, 60)
                d = diff(before, st)
                self.soft(not d, f"{who}: the state differs from the one the previous program "
                                 f"showed before it stopped:\n" + "\n".join(d[:25]))
                self.check_state(who, st)
                nrec = self.verify(who)
                log(f"{who}: same state as before the switch ({len(st['all_topics'])} topics, "
                    f"{sum(len(v) for v in st['producers'].values())} producer entries, "
                    f"transactions {short(st['transaction_listing'], 200)}); {nrec} records, "
                    f"their offsets, timestamps and the group offsets as expected")
            self.writes(n, who, last)
            if n == 0 or last:
                self.verify(who)
            before = wait_until(f"every partition led by node 1 on {who}", self.leaders_ready, 60)
            self.pids |= self.check_state(who, before)
            check(len(self.pids) == self.producers_made,
                  f"{who}: {self.producers_made} producers were created so far, but "
                  f"DescribeProducers and DescribeTransactions show {len(self.pids)} distinct "
                  f"producer ids ({sorted(self.pids)}): an id handed out twice, or a producer "
                  f"lost")
            log(f"{who}: {len(self.pids)} producers so far, each with its own producer id")
            if last:
                check(not self.model.open_txn, "open transaction at the end")
            self.stop(who, kafka)
        self.session.close()
        self.final_checks()

    def final_checks(self):
        strays = [d for d in os.listdir(self.data) if d.endswith("-stray")]
        check(not strays, f"-stray directories at the end: {strays}")
        meta = os.path.join(self.data, "__cluster_metadata-0")
        files = sorted(glob.glob(os.path.join(meta, "*.log")) +
                       glob.glob(os.path.join(meta, "*.checkpoint")))
        check(files, "no __cluster_metadata-0 segments or snapshots at the end")
        p = subprocess.run([ORACLE, "kafka-class", "org.apache.kafka.tools.DumpLogSegments",
                            "--cluster-metadata-decoder", "--files", ",".join(files)],
                           capture_output=True, text=True, timeout=300)
        out = p.stdout + p.stderr
        check(p.returncode == 0 and "Exception" not in out and "Error" not in out,
              f"DumpLogSegments --cluster-metadata-decoder on the metadata log exited "
              f"{p.returncode}:\n{tail_errors(out)}")
        topics = sorted(self.model.topics)
        missing = [t for t in topics if f'"name":"{t}"' not in p.stdout]
        check(not missing, f"the metadata log names no TopicRecord for {missing}")
        log(f"DumpLogSegments --cluster-metadata-decoder read {len(files)} files of "
            f"__cluster_metadata-0 ({len(p.stdout.splitlines())} lines)")
        p = subprocess.run([self.args.seglog, "check", "--log-dir", self.data],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"seglog check --log-dir D exited {p.returncode}:\n"
                                 f"{p.stdout[-3000:]}\n{p.stderr[-2000:]}")
        log("seglog check --log-dir D: passed")


def first_diff(have, want):
    for i, (h, w) in enumerate(zip(have, want)):
        if h != w:
            return f"#{i}: got {short(h, 200)}, expected {short(w, 200)}"
    if len(have) != len(want):
        extra = have[len(want):] or want[len(have):]
        what = "extra" if len(have) > len(want) else "missing"
        return f"{what} from #{min(len(have), len(want))}: {short(extra[:2], 300)}"
    return "none"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--rounds", type=int, default=3, help="seglog -> Kafka -> seglog round trips")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--kafka-only", action="store_true",
                    help="every phase on Kafka (checks the harness on Kafka itself)")
    ap.add_argument("--go-on", action="store_true",
                    help="debugging: report an unclean log or a state that differs after a "
                         "switch and go on to the next checks (the test then fails at the end)")
    ap.add_argument("--timeout", type=int, default=780,
                    help="the whole test after the classpath is ready, seconds (then it fails "
                         "and stops every process it started)")
    args = ap.parse_args()
    if not args.kafka_only and not os.access(args.seglog, os.X_OK):
        print(f"no seglog binary at {args.seglog}", file=sys.stderr)
        return 2

    def on_signal(signum, _frame):
        if signum == signal.SIGALRM:
            raise Failure(f"the whole test took more than {args.timeout}s")
        sys.exit(143)

    signal.signal(signal.SIGTERM, on_signal)  # run the finally blocks
    signal.signal(signal.SIGALRM, on_signal)
    p = subprocess.run([ORACLE, "mirror-classpath"], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        print(f"oracle.sh mirror-classpath failed:\n{p.stderr}", file=sys.stderr)
        return 1
    cp = p.stdout.strip()
    signal.alarm(args.timeout)  # from here on every process is this test's to stop
    work = tempfile.mkdtemp(prefix="seglog-kraft-")
    test = Test(args, cp, work)
    log(f"work directory {work}; D = data/, P = server.properties; {test.bootstrap}")
    ok = False
    try:
        test.run()
        check(not test.soft_failures, f"{test.soft_failures} failed checks (see above)")
        ok = True
        print("kraft_takeover_check: passed")
        return 0
    except Exception as e:  # noqa: BLE001 - Failure, or broker_compare's BenchError
        print(f"FAILED: {e}", file=sys.stderr)
        if test.current is not None:
            who, node = test.current
            lines = [x[:400] for x in node.log().splitlines() if "] ERROR " in x or "] WARN " in x]
            if lines:
                print(f"{who}'s log, ERROR and WARN lines ({len(lines)}):\n" +
                      "\n".join(lines[-12:]), file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
        if test.session is not None:
            test.session.close()
        try:
            test.kafka.stop()
        except Exception as e:  # noqa: BLE001 - report, keep cleaning up
            print(f"kafka stop: {e}", file=sys.stderr)
        if test.seglog.proc is not None:
            test.seglog.kill()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)
        log("done")


if __name__ == "__main__":
    sys.exit(main())
