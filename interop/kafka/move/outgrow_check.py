#!/usr/bin/env python3
"""Outgrowing one node on Apache Kafka itself: Kafka 4.4.0 starts on `seglog serve`'s directory, a
second Kafka broker joins, kafka-reassign-partitions moves partitions to it, and every record and
group offset is read back from the two-broker cluster (issue 27 item 5; ctest
interop.outgrow_to_kafka_cluster, label `interop`; docs/operations.md shows the same steps).

    outgrow_check.py [--seglog build/release/cli/seglog] [--keep] [--kafka-only]
                     [--seglog-log-dir] [--broker2-quorum voters|bootstrap] [--timeout 420]

1. seglog: `seglog serve --server-config P` on a fresh directory D. P is the one
   server.properties of kraft_takeover_check.py (process.roles=broker,controller, node.id=1,
   controller.quorum.voters=1@127.0.0.1:<cport>, a CONTROLLER listener, log.dirs=D,
   replication factors 1, free 127.0.0.1 ports). Topics `orders` (3 partitions, retention.ms,
   cleanup.policy=delete, max.message.bytes) and `compacted` (2 partitions, cleanup.policy=compact),
   keyed records (a fresh idempotent producer; a long-lived one that lives on into the two-broker
   cluster; tombstones in `compacted`), group g-classic (classic protocol) consumes part of
   `orders` and commits, group g-consumer (KIP-848 consumer protocol) part of `compacted`.
   SIGTERM, clean shutdown, no WARN or ERROR in seglog's log. (--seglog-log-dir: seglog runs
   with log.dirs, listeners and the coordinator partition counts only, as most run it.)
2. Kafka node 1: `kafka.Kafka P` on D, no format step. Its log is clean (no ERROR, no stray, no
   unclean election, no recovery of a user partition), every partition is led by node 1, every
   record and group offset is there.
3. Kafka node 2: process.roles=broker, node.id=2, its own log directory D2, the same quorum
   (controller.quorum.voters, or with --broker2-quorum bootstrap
   controller.quorum.bootstrap.servers), no controller listener of its own. D2 is formatted with
   `kafka.tools.StorageTool format --cluster-id <cluster.id of D/meta.properties> -c P2` (no
   --standalone/--initial-controllers/--no-initial-controllers: a broker-only node of a static
   quorum needs none; --standalone and --initial-controllers are refused with
   controller.quorum.voters). It registers with node 1's controller (DescribeCluster: nodes 1, 2;
   MetadataQuorumCommand describe --status: leader 1, voters [1], broker 2 an observer).
4. The move, with Kafka's own tools (the classes behind bin/kafka-*.sh):
   ReassignPartitionsCommand --generate (its proposal names every partition and only brokers 1
   and 2), then --execute of the test's plan and --verify until every partition "is completed":
       orders-0 -> [2], orders-1 -> [1,2], orders-2 -> [2,1], compacted-0 -> [2],
       compacted-1 -> [1,2], __consumer_offsets: g-classic's partition (3) and 0, 4 -> [2],
       g-consumer's (2) and 1 -> [1,2];
   then LeaderElectionCommand --election-type PREFERRED for orders-2 (its leader becomes 2).
   TopicCommand --describe shows exactly those replicas, leaders and ISRs; LogDirsCommand
   --describe shows each replica on its broker, offset lag 0, the replicas of a partition the
   same size; D keeps no live directory of a partition moved away, D2 has every partition it got.
5. Writes to the two-broker cluster: the long-lived idempotent producer of step 1 (its producer
   id and sequence carried on by broker 2, which built the producer state from the replicated
   log), a fresh producer and keyed records bootstrapped at broker 2 only.
6. Reads from the two-broker cluster, once bootstrapped at broker 1 and once at broker 2 only:
   every record of both topics (partition, offset, key, value, headers, timestamp) equals the
   test's model, log start 0 and end offsets as expected; the groups' committed offsets equal the
   model; kafka-consumer-groups --describe --state names broker 2 as g-classic's coordinator and
   broker 1 as g-consumer's; each group, bootstrapped at broker 2 only, resumes exactly at the
   next record of each partition, reads to the end and gets nothing more.
7. Both brokers' logs: no ERROR but Kafka's "Expected partition <p> with topic id <id> to exist,
   but it was missing. Creating..." on broker 2, once for each partition it was given (Kafka logs
   that at ERROR for every replica a reassignment adds to a broker: KAFKA-20118); no WARN but
   "Performing controller activation." and, at SIGTERM, "Attempting to close NetworkClient that
   has already been closed"; no -stray directory. SIGTERM broker 2, then node 1: clean shutdowns.
Prints `outgrow_check: passed`.

--kafka-only formats D with StorageTool and runs step 1 on Kafka instead of seglog (the harness,
and Kafka's own log lines, checked on Kafka alone). --broker2-quorum bootstrap gives broker 2
controller.quorum.bootstrap.servers instead of controller.quorum.voters: with Kafka 4.4.0 it then
follows the metadata log but never registers ("Unable to register the broker because the RPC got
timed out before it could be sent", then "Shutting down because we were unable to register with
the controller quorum" after a minute), with --kafka-only too: D's quorum is static (kraft.version
0, its voters only in controller.quorum.voters, none in the metadata log), so a broker must name
them in controller.quorum.voters. The work directory is kept when the check fails
(or with --keep): data/ (D), server.properties (P), seglog-serve.log, logs/server.log[.n] (node 1),
broker2/ (D2 as broker2/data, P2 as broker2/server.properties, broker2/logs/server.log),
reassign-plan.json, clients.err.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# (importing kraft_takeover_check sets broker_compare.KAFKA_HEAP to -Xms256m -Xmx512m)
from kraft_takeover_check import (BASE_TS, COMPACTED_CONFIGS, KAFKA_WARN_OK,  # noqa: E402
                                  ORDERS_CONFIGS, KafkaNode, Model, SeglogNode, Session,
                                  first_diff, server_properties, short, strip, tail_errors)
from mirrormaker_check import ROOT, ORACLE, TOOLS_LOG4J, Failure, check, log, wait_until  # noqa: E402
from harness import free_port  # noqa: E402

GROUPS = {"g-classic": ("classic", "orders"), "g-consumer": ("consumer", "compacted")}
OFFSETS_PARTITIONS = 5  # offsets.topic.num.partitions in P (and P2)
TOPICS = {"orders": 3, "compacted": 2}
TOOL_HEAP = "-Xmx256m"
# Kafka 4.4.0 logs this at ERROR on a broker for every partition replica a reassignment adds to it
# (ReplicaManager.getOrCreatePartition: the topic was in the previous metadata image, the partition
# not on this broker). Normal Kafka behaviour, KAFKA-20118 (apache/kafka PR #21470 makes it INFO).
NEW_REPLICA_ERROR = re.compile(r"ERROR \[Broker id=(\d+)\] Expected partition (\S+) with topic id "
                               r"\S+ to exist, but it was missing\. Creating\.\.\.")


def group_partition(group, partitions=OFFSETS_PARTITIONS):
    """Kafka's GroupCoordinator partitionFor: Utils.abs(groupId.hashCode()) % partitions."""
    units = group.encode("utf-16-be")  # String.hashCode runs over UTF-16 code units
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    if h >= 2**31:
        h -= 2**32
    return (0 if h == -2**31 else abs(h)) % partitions


def plan():
    """{(topic, partition): replicas} the test moves to; leaders after the preferred election."""
    classic, consumer = group_partition("g-classic"), group_partition("g-consumer")
    check(classic != consumer, "the two groups share a __consumer_offsets partition")
    moves = {("orders", 0): [2], ("orders", 1): [1, 2], ("orders", 2): [2, 1],
             ("compacted", 0): [2], ("compacted", 1): [1, 2]}
    for p in range(OFFSETS_PARTITIONS):
        if p == classic:
            moves[("__consumer_offsets", p)] = [2]
        elif p == consumer:
            moves[("__consumer_offsets", p)] = [1, 2]
        else:
            moves[("__consumer_offsets", p)] = [2] if p % 2 == 0 else [1, 2]
    return moves


def broker2_properties(data, port, cport, quorum):
    where = (f"controller.quorum.voters=1@127.0.0.1:{cport}" if quorum == "voters" else
             f"controller.quorum.bootstrap.servers=127.0.0.1:{cport}")
    return f"""# Written by interop/kafka/move/outgrow_check.py: the second broker of the cluster that
# grew out of seglog's directory. A broker only: the controller stays node 1 (D's quorum).
process.roles=broker
node.id=2
{where}
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://127.0.0.1:{port}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={data}
auto.create.topics.enable=false
# (num.partitions is the controller's: Kafka 4.4.0 WARNs about it in a broker's file.)
# The cluster-wide settings of node 1's file, kept the same on every broker.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
offsets.topic.num.partitions={OFFSETS_PARTITIONS}
transaction.state.log.num.partitions=3
"""


def read_props(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip()
    return out


class Test:
    def __init__(self, args, cp, work):
        self.args = args
        self.cp = cp
        self.work = work
        self.data = os.path.join(work, "data")
        os.makedirs(self.data)
        port, cport, port2 = free_port(), free_port(), free_port()
        self.b1 = f"127.0.0.1:{port}"
        self.b2 = f"127.0.0.1:{port2}"
        self.cport = cport
        self.config_text = server_properties(self.data, port, cport)
        self.config = os.path.join(work, "server.properties")
        with open(self.config, "w") as f:
            f.write(self.config_text)
        self.seglog = SeglogNode(args.seglog, self.data, port, self.config)
        if args.seglog_log_dir:
            # seglog as most run it: no server.properties, no controller settings.
            self.config_plain = os.path.join(work, "seglog.properties")
            with open(self.config_plain, "w") as f:
                f.write(f"log.dirs={self.data}\nlisteners=PLAINTEXT://127.0.0.1:{port}\n"
                        f"offsets.topic.num.partitions={OFFSETS_PARTITIONS}\n"
                        f"transaction.state.log.num.partitions=3\n"
                        f"group.initial.rebalance.delay.ms=0\n")
            self.seglog.config = self.config_plain
        self.kafka1 = KafkaNode(cp, work, self.data, port, cport, self.config_text)
        self.dir2 = os.path.join(work, "broker2")
        self.data2 = os.path.join(self.dir2, "data")
        self.config2_text = broker2_properties(self.data2, port2, cport, args.broker2_quorum)
        self.kafka2 = KafkaNode(cp, self.dir2, self.data2, port2, cport, self.config2_text)
        self.config2 = os.path.join(self.dir2, "server.properties")
        self.session = None
        self.model = Model()
        self.model.committed = {g: {} for g in GROUPS}
        self.moves = plan()

    # -- helpers ----------------------------------------------------------------------------
    def c(self, *args, **kw):
        return self.session.call(*args, **kw)

    def tool(self, cls, *args, timeout=120, ok=True):
        """One of Kafka's command-line tools (the class behind bin/kafka-*.sh); its stdout."""
        cmd = ["java", TOOL_HEAP, f"-Dlog4j2.configurationFile={TOOLS_LOG4J}", "-cp", self.cp,
               cls, *[str(a) for a in args]]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise Failure(f"{cls.rsplit('.', 1)[-1]} {' '.join(map(str, args[:4]))} did not "
                          f"finish in {timeout}s")
        if ok and p.returncode != 0:
            raise Failure(f"{cls.rsplit('.', 1)[-1]} {' '.join(map(str, args))} exited "
                          f"{p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        return p.stdout

    def produce(self, who, topic, n, bootstrap, kind="plain"):
        lo, hi = self.model.take(topic, n)
        parts = TOPICS[topic]
        cmd = "produce-keyed" if kind == "keyed" else "produce"
        acked = self.c(cmd, bootstrap, topic, parts, lo, hi, BASE_TS)["acked"]
        self.model.add(who, topic, acked, kind)

    def idem_send(self, who, n):
        """The long-lived idempotent producer (bootstrapped at node 1's address in step 1)."""
        # Records 1000.. (keys key-1000...), timestamps BASE_TS + 1000... still in the past: a
        # segment with a future timestamp makes Kafka WARN at its retention check.
        lo, hi = self.model.take("orders-long", n)
        acked = self.c("idem-send", self.b1, "orders", 3, 1000 + lo, 1000 + hi,
                       BASE_TS)["acked"]
        self.model.add(who, "orders", acked, "plain")

    def consume(self, who, group, want, bootstrap, final=False):
        protocol, topic = GROUPS[group]
        left = self.model.unconsumed(group, topic)
        available = sum(len(v) for v in left.values())
        count = available if final else min(want, available)
        got = self.c("consume", bootstrap, group, protocol, topic, count, 2000 if final else 0,
                     60000)
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
        return count

    def state(self, bootstrap):
        return self.c("state", bootstrap, ",".join(TOPICS), ",".join(GROUPS), "-")

    def verify(self, who, bootstrap):
        """Every record, log start/end offsets, the topics' configs and the groups' committed
        offsets against the model, through a client bootstrapped at `bootstrap` only."""
        m = self.model
        nrec = 0
        for topic, parts in TOPICS.items():
            d = self.c("dump", bootstrap, topic, "read_uncommitted")
            got = {}
            for rec in d["records"]:
                got.setdefault(rec["partition"], []).append(rec)
            for p in range(parts):
                want = [strip(r) for r in m.recs[(topic, p)]]
                have = got.get(p, [])
                check(have == want, f"{who}: {topic}-{p} holds {len(have)} records, expected "
                                    f"{len(want)}; first difference: {first_diff(have, want)}")
                end = m.next[(topic, p)]
                check(d["start"].get(str(p)) == 0 and d["end"].get(str(p)) == end,
                      f"{who}: {topic}-{p} log start/end offsets {d['start'].get(str(p))}/"
                      f"{d['end'].get(str(p))}, expected 0/{end}")
                nrec += len(have)
        st = self.state(bootstrap)
        for topic, configs in (("orders", ORDERS_CONFIGS), ("compacted", COMPACTED_CONFIGS)):
            have = {k: v for k, v in st["topics"][topic]["configs"].items() if k in configs}
            want = {k: [v, "DYNAMIC_TOPIC_CONFIG"] for k, v in configs.items()}
            check(have == want, f"{who}: {topic}'s configs {have}, expected {want}")
        for g in GROUPS:
            have = {k: v[0] for k, v in st["groups"][g]["offsets"].items()}
            want = {f"{t}-{p}": o for (t, p), o in m.committed[g].items()}
            check(have == want, f"{who}: group {g} committed offsets {have}, expected {want}")
        return nrec, st

    def check_log(self, who, text, node, data, moved_in=()):
        """Fails on the bad lines of a broker's log (see the docstring, step 7)."""
        kinds = [
            ("marked stray / stray log", lambda x: re.search(r"stray", x, re.I)),
            ("inconsistent topic id",
             lambda x: re.search(r"InconsistentTopicId|inconsistent topic", x, re.I)),
            ("unclean leader election",
             lambda x: "an unclean election" in x or "handleBrokerUncleanShutdown" in x),
            ("recovery of a user partition (no clean shutdown seen)",
             lambda x: "Recovering unflushed segment" in x and "__cluster_metadata-0" not in x),
            ("ERROR", lambda x: "] ERROR " in x),
            ("WARN", lambda x: "] WARN " in x and not any(ok in x for ok in KAFKA_WARN_OK)),
        ]
        found = {}
        created = []
        for line in text.splitlines():
            m = NEW_REPLICA_ERROR.search(line)
            if m and int(m.group(1)) == node:
                created.append(m.group(2))
                continue
            for name, match in kinds:
                if match(line):
                    found.setdefault(name, []).append(line)
                    break
        check(sorted(created) == sorted(moved_in),
              f"{who}: Kafka's \"Expected partition ... missing. Creating...\" ERROR for "
              f"{sorted(created)}, expected exactly the replicas moved to it: {sorted(moved_in)}")
        strays = sorted(d for d in os.listdir(data) if d.endswith("-stray"))
        if strays:
            found.setdefault("-stray directories", []).extend(strays)
        report = []
        for name, lines in found.items():
            report.append(f"  {len(lines)} x {name}, e.g.:")
            report += [f"    {x[:300]}" for x in lines[:3]]
        check(not found, f"{who}: its log is not clean:\n" + "\n".join(report))

    def moved_to(self, node):
        return [f"{t}-{p}" for (t, p), r in self.moves.items() if node in r]

    # -- steps ------------------------------------------------------------------------------
    def step1_seglog(self):
        who = "Kafka alone (--kafka-only)" if self.args.kafka_only else "seglog"
        t0 = time.monotonic()
        if self.args.kafka_only:
            self.kafka1.start(timeout=150, format_storage=True)
        else:
            self.seglog.start(timeout=60)
        log(f"step 1: {who} serving D on {self.b1} (started in {time.monotonic() - t0:.1f}s)")
        self.session = Session(self.cp, self.work)
        for topic, configs in (("orders", ORDERS_CONFIGS), ("compacted", COMPACTED_CONFIGS)):
            self.c("create-topic", self.b1, topic, TOPICS[topic],
                   *[f"{k}={v}" for k, v in configs.items()])
            self.model.add_topic(topic, TOPICS[topic])
        self.produce(who, "orders", 60, self.b1)
        self.idem_send(who, 12)
        self.produce(who, "compacted", 44, self.b1, "keyed")
        self.consume(who, "g-classic", 25, self.b1)
        self.consume(who, "g-consumer", 9, self.b1)
        nrec, st = self.verify(who, self.b1)
        self.long_pid = self.long_lived_producer(who, st, 3)
        log(f"step 1: {who}: {nrec} records in orders and compacted, g-classic committed "
            f"{self.offsets('g-classic')}, g-consumer {self.offsets('g-consumer')}; the "
            f"long-lived idempotent producer has producer id {self.long_pid}")
        if self.args.kafka_only:
            self.kafka1.stop_clean()
        else:
            self.seglog.stop()
            bad = [x for x in self.seglog.log().splitlines()
                   if "] WARN " in x or "] ERROR " in x or re.search(r"stray", x, re.I)]
            check(not bad, "seglog's log has WARN/ERROR lines:\n" + "\n".join(bad[:10]))
        check(os.path.isfile(os.path.join(self.data, ".kafka_cleanshutdown")),
              f"{who} stopped without leaving D/.kafka_cleanshutdown")
        log(f"step 1: {who} stopped cleanly (SIGTERM)")

    def offsets(self, group):
        return {f"{t}-{p}": o for (t, p), o in sorted(self.model.committed[group].items())}

    def step2_kafka1(self):
        t0 = time.monotonic()
        self.kafka1.start(timeout=150, format_storage=False)
        log(f"step 2: Kafka node 1 (combined) started on D with P in "
            f"{time.monotonic() - t0:.1f}s")
        self.check_log("Kafka node 1 at its start", self.kafka1.log(), 1, self.data)

        def led_by_1():
            st = self.state(self.b1)
            bad = {t: d.get("leaders") for t, d in st["topics"].items()
                   if any(lead != 1 or isr != [1] for _, lead, isr in d.get("leaders", [[0, -1, []]]))}
            return not bad, (st if not bad else bad)

        wait_until("every partition led by node 1", led_by_1, 60)
        nrec, st = self.verify("Kafka node 1", self.b1)
        self.cluster_id = st["cluster"]["id"]
        meta = read_props(os.path.join(self.data, "meta.properties"))
        check(meta.get("cluster.id") == self.cluster_id,
              f"D/meta.properties cluster.id {meta.get('cluster.id')}, DescribeCluster "
              f"{self.cluster_id}")
        log(f"step 2: Kafka node 1 serves all {nrec} records and both groups' offsets; cluster id "
            f"{self.cluster_id} (D/meta.properties)")

    def step3_broker2(self):
        os.makedirs(os.path.join(self.dir2, "logs"), exist_ok=True)
        with open(self.config2, "w") as f:
            f.write(self.config2_text)
        out = self.tool("kafka.tools.StorageTool", "format", "--cluster-id", self.cluster_id,
                        "-c", self.config2)
        check(os.path.isfile(os.path.join(self.data2, "meta.properties")),
              f"StorageTool format wrote no D2/meta.properties:\n{out}")
        meta = read_props(os.path.join(self.data2, "meta.properties"))
        check(meta.get("cluster.id") == self.cluster_id and meta.get("node.id") == "2",
              f"D2/meta.properties: {meta}")
        log(f"step 3: D2 formatted (StorageTool format --cluster-id {self.cluster_id} -c P2): "
            f"{out.strip().splitlines()[-1]}")
        t0 = time.monotonic()
        self.kafka2.start(timeout=150, format_storage=False)
        log(f"step 3: Kafka node 2 (broker only, {self.args.broker2_quorum}) started in "
            f"{time.monotonic() - t0:.1f}s")

        def registered():
            st = self.state(self.b2)
            nodes = sorted(n.split("@")[0] for n in st["cluster"]["nodes"])
            return nodes == ["1", "2"], st["cluster"]

        cl = wait_until("DescribeCluster shows nodes 1 and 2", registered, 60)
        # (DescribeCluster's "controller" is any live broker in KRaft, not the quorum's leader.)
        check(cl["id"] == self.cluster_id, f"cluster as seen from broker 2: {cl}")
        out = self.tool("org.apache.kafka.tools.MetadataQuorumCommand", "--bootstrap-server",
                        self.b2, "describe", "--status")
        q = dict(re.findall(r"^(\w+):\s*(.*)$", out, re.M))
        voters = re.findall(r'"id":\s*(\d+)', q.get("CurrentVoters", ""))
        observers = re.findall(r'"id":\s*(\d+)', q.get("CurrentObservers", ""))
        check(q.get("LeaderId") == "1" and voters == ["1"] and "2" in observers,
              f"kafka-metadata-quorum describe --status:\n{out}")
        log(f"step 3: the cluster has nodes {cl['nodes']}; kafka-metadata-quorum: leader 1, "
            f"voters {voters}, observers {sorted(observers)}")

    def step4_move(self):
        work = self.work
        topics_json = os.path.join(work, "topics-to-move.json")
        with open(topics_json, "w") as f:
            json.dump({"version": 1, "topics": [{"topic": t} for t in TOPICS]}, f)
        out = self.tool("org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                        "--bootstrap-server", self.b1, "--generate",
                        "--topics-to-move-json-file", topics_json, "--broker-list", "1,2")
        proposed = json.loads(out.split("Proposed partition reassignment configuration")[1]
                              .strip().splitlines()[0])
        got = {(p["topic"], p["partition"]): p["replicas"] for p in proposed["partitions"]}
        want_keys = {(t, p) for t, n in TOPICS.items() for p in range(n)}
        check(set(got) == want_keys and all(set(r) <= {1, 2} and len(r) == 1 for r in got.values()),
              f"--generate proposed {got}")
        log("step 4: --generate proposes " + ", ".join(f"{t}-{p} {r}" for (t, p), r in
                                                     sorted(got.items())) +
            " (not used: the test's own plan below)")
        plan_path = os.path.join(work, "reassign-plan.json")
        with open(plan_path, "w") as f:
            json.dump({"version": 1, "partitions": [
                {"topic": t, "partition": p, "replicas": r}
                for (t, p), r in sorted(self.moves.items())]}, f, indent=1)
        t0 = time.monotonic()
        out = self.tool("org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                        "--bootstrap-server", self.b1, "--execute",
                        "--reassignment-json-file", plan_path)
        check("Successfully started partition reassignment" in out,
              f"--execute printed:\n{out[-2000:]}")

        def verified():
            out = self.tool("org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                            "--bootstrap-server", self.b1, "--verify",
                            "--reassignment-json-file", plan_path)
            done = re.findall(r"Reassignment of partition (\S+) is completed\.", out)
            return sorted(done) == sorted(f"{t}-{p}" for t, p in self.moves), out

        out = wait_until("ReassignPartitionsCommand --verify: every partition completed",
                         verified, 90, every=2.0)
        log(f"step 4: reassignment of {len(self.moves)} partitions completed "
            f"({time.monotonic() - t0:.1f}s after --execute): --verify says \"Reassignment of "
            f"partition <p> is completed.\" for each")
        out = self.tool("org.apache.kafka.tools.LeaderElectionCommand", "--bootstrap-server",
                        self.b1, "--election-type", "PREFERRED", "--topic", "orders",
                        "--partition", "2")
        log(f"step 4: preferred leader election of orders-2: {out.strip().splitlines()[-1]}")
        self.check_assignment()

    def expected(self):
        """{partition name: (leader, replicas, isr)} after the move."""
        out = {}
        for (t, p), r in self.moves.items():
            out[f"{t}-{p}"] = (r[0], r, sorted(r))
        return out

    def check_assignment(self):
        want = self.expected()

        def described():
            out = self.tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", self.b2,
                            "--describe", "--topic", "orders|compacted|__consumer_offsets")
            have = {}
            for m in re.finditer(r"Topic: (\S+)\tPartition: (\d+)\tLeader: (-?\d+)\t"
                                 r"Replicas: ([\d,]*)\tIsr: ([\d,]*)", out):
                have[f"{m.group(1)}-{m.group(2)}"] = (
                    int(m.group(3)), [int(x) for x in m.group(4).split(",") if x],
                    sorted(int(x) for x in m.group(5).split(",") if x))
            return have == want, {"differ": {k: (have.get(k), want.get(k)) for k in
                                             set(have) | set(want) if have.get(k) != want.get(k)},
                                  "output": out[-1500:]}

        wait_until("TopicCommand --describe shows the new replicas, leaders and ISRs", described,
                   60, every=2.0)
        log("step 4: kafka-topics --describe: " + ", ".join(
            f"{k} leader {v[0]} replicas {v[1]} isr {v[2]}" for k, v in sorted(want.items())
            if not k.startswith("__")) + "; __consumer_offsets as planned")

    def check_replicas(self, who):
        """LogDirsCommand --describe: every replica on its broker, lag 0, equal sizes."""
        def caught_up():
            out = self.tool("org.apache.kafka.tools.LogDirsCommand", "--bootstrap-server",
                            self.b1, "--describe", "--broker-list", "1,2")
            doc = json.loads(next(x for x in out.splitlines() if x.startswith("{")))
            where = {}
            for b in doc["brokers"]:
                for ld in b["logDirs"]:
                    for p in ld["partitions"]:
                        where.setdefault(p["partition"], {})[b["broker"]] = (
                            ld["logDir"], p["size"], p["offsetLag"])
            bad = {}
            for name, (_, replicas, _) in self.expected().items():
                w = where.get(name, {})
                sizes = {s for _, s, _ in w.values()}
                if sorted(w) != sorted(replicas) or len(sizes) != 1 or \
                        any(lag != 0 for _, _, lag in w.values()):
                    bad[name] = w
            return not bad, (where if not bad else bad)

        where = wait_until(f"{who}: LogDirsCommand shows each replica on its broker, caught up",
                           caught_up, 60, every=2.0)
        dirs = {b: {v[b][0] for v in where.values() if b in v} for b in (1, 2)}
        check(dirs == {1: {self.data}, 2: {self.data2}}, f"{who}: log dirs {dirs}")
        log(f"{who}: kafka-log-dirs: every replica where planned, offset lag 0, replicas of a "
            f"partition the same size (" + ", ".join(
                f"{k} {sorted(v)}:{next(iter(v.values()))[1]}B" for k, v in sorted(where.items())
                if not k.startswith("__")) + ")")

    def check_dirs(self):
        """D keeps no live directory of a partition moved away; D2 has every one it got."""
        want1 = set(self.moved_to(1)) | {"__cluster_metadata-0"}
        want2 = set(self.moved_to(2)) | {"__cluster_metadata-0"}

        def live():
            live1 = {d for d in os.listdir(self.data) if re.fullmatch(r".+-\d+", d)}
            live2 = {d for d in os.listdir(self.data2) if re.fullmatch(r".+-\d+", d)}
            return (live1, live2) == (want1, want2), (live1, live2)

        live1, live2 = wait_until(f"partition directories: D {sorted(want1)}, D2 "
                                  f"{sorted(want2)}", live, 30)
        gone = sorted(d for d in os.listdir(self.data) if d.endswith("-delete"))
        log(f"step 4: D holds {sorted(live1 - {'__cluster_metadata-0'})}, D2 "
            f"{sorted(live2 - {'__cluster_metadata-0'})}; moved away from D "
            f"(Kafka renames them <topic>-<p>.<uuid>-delete, removes them after "
            f"file.delete.delay.ms): {len(gone)} directories")

    def step5_writes(self):
        who = "the two-broker cluster"
        self.idem_send(who, 12)
        self.produce(who, "orders", 30, self.b2)
        self.produce(who, "compacted", 22, self.b2, "keyed")
        pid = self.long_lived_producer(who, self.state(self.b2), 7)
        check(pid == self.long_pid, f"{who}: the long-lived producer's records carry producer "
                                    f"id {pid}, on seglog {self.long_pid}")
        log(f"step 5: the long-lived idempotent producer of step 1 (producer id {pid}, its "
            f"sequence numbers going on: last sequence 7 in each orders partition) and two fresh "
            f"producers (bootstrapped at broker 2) wrote 64 more records, acked at the expected "
            f"offsets")

    def long_lived_producer(self, who, st, last_seq):
        """The producer id with last sequence `last_seq` in every orders partition
        (DescribeProducers; the long-lived producer sends 4 records to each per call, the fresh
        ones 20 or 10)."""
        ids = []
        for p in range(TOPICS["orders"]):
            ps = st["producers"][f"orders-{p}"]
            ids.append({x["producerId"] for x in ps if x["lastSequence"] == last_seq})
        common = set.intersection(*ids)
        check(len(common) == 1, f"{who}: DescribeProducers of orders shows no single producer "
                                f"with last sequence {last_seq} in every partition: "
                                f"{short(st['producers'], 600)}")
        return common.pop()

    def step6_reads(self):
        for name, b in (("bootstrapped at broker 1", self.b1), ("bootstrapped at broker 2 only",
                                                                self.b2)):
            nrec, _ = self.verify(f"the two-broker cluster, {name}", b)
            log(f"step 6: {name}: all {nrec} records (partition, offset, key, value, headers, "
                f"timestamp), log start/end offsets, configs and group offsets as expected")
        coordinators = {}
        for g in GROUPS:
            out = self.tool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                            "--bootstrap-server", self.b2, "--describe", "--group", g, "--state")
            m = re.search(r"^\S+\s+127\.0\.0\.1:\d+\s+\((\d+)\)", out, re.M)
            check(m, f"kafka-consumer-groups --describe --state --group {g}:\n{out}")
            coordinators[g] = int(m.group(1))
        want = {g: self.moves[("__consumer_offsets", group_partition(g))][0] for g in GROUPS}
        check(coordinators == want, f"group coordinators {coordinators}, expected {want}")
        log(f"step 6: group coordinators {coordinators} (the leaders of their "
            f"__consumer_offsets partitions)")
        for g in GROUPS:
            before = self.offsets(g)
            n = self.consume("the two-broker cluster", g, 0, self.b2, final=True)
            log(f"step 6: {g} ({GROUPS[g][0]} protocol, bootstrapped at broker 2 only) resumed "
                f"at {before}, got exactly the {n} records left and nothing more; committed "
                f"{self.offsets(g)}")
        self.verify("the two-broker cluster after the groups read to the end", self.b2)

    def run(self):
        self.step1_seglog()
        self.step2_kafka1()
        self.step3_broker2()
        self.step4_move()
        self.check_dirs()
        self.check_replicas("step 4")
        self.step5_writes()
        self.step6_reads()
        self.check_replicas("step 6")
        self.session.close()
        self.session = None
        # step 7
        self.check_log("Kafka node 1", self.kafka1.log(), 1, self.data)
        self.check_log("Kafka node 2", self.kafka2.log(), 2, self.data2, self.moved_to(2))
        self.kafka2.stop_clean()
        self.kafka1.stop_clean()
        self.check_log("Kafka node 1, its whole run", self.kafka1.log(), 1, self.data)
        self.check_log("Kafka node 2, its whole run", self.kafka2.log(), 2, self.data2,
                       self.moved_to(2))
        log("step 7: both brokers' logs clean (but broker 2's ERROR per replica it was given, "
            "KAFKA-20118); SIGTERM broker 2, then node 1: clean shutdowns")
        if not self.args.kafka_only:
            self.step8_seglog_refuses()

    def step8_seglog_refuses(self):
        """seglog on the grown directory: it must refuse (the metadata names broker 2 and
        partitions whose replicas moved there), and change nothing: the metadata log, the
        partition directories and Kafka's clean-shutdown marker stay as Kafka left them."""
        meta = os.path.join(self.data, "__cluster_metadata-0")

        def snapshot_state():
            logs = {f: os.path.getsize(os.path.join(meta, f))
                    for f in os.listdir(meta) if f.endswith(".log")}
            return logs, sorted(os.listdir(self.data))

        before = snapshot_state()
        marker = os.path.join(self.data, ".kafka_cleanshutdown")
        check(os.path.exists(marker), "Kafka node 1 left no .kafka_cleanshutdown")
        p = subprocess.run([self.args.seglog, "serve", "--server-config", self.config],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        out = p.stdout + p.stderr
        check(p.returncode != 0, f"seglog served a directory Kafka grew into a cluster:\n{out[-2000:]}")
        check("belongs to a Kafka cluster of several brokers" in out,
              f"seglog's refusal does not say why:\n{out[-2000:]}")
        check(snapshot_state() == before, "seglog's refused start changed the directory")
        check(os.path.exists(marker), "seglog's refused start removed .kafka_cleanshutdown")
        log("step 8: seglog refuses the grown directory (\"belongs to a Kafka cluster of several "
            "brokers\") and changes nothing")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--kafka-only", action="store_true",
                    help="step 1 on Kafka (D formatted by StorageTool) instead of seglog")
    ap.add_argument("--seglog-log-dir", action="store_true",
                    help="step 1: seglog with log.dirs, listeners and the coordinator partition "
                         "counts only (no node.id, process.roles or controller settings); Kafka "
                         "then starts with P as usual")
    ap.add_argument("--broker2-quorum", choices=["voters", "bootstrap"], default="voters",
                    help="broker 2 finds the controller by controller.quorum.voters (as P) or by "
                         "controller.quorum.bootstrap.servers")
    ap.add_argument("--timeout", type=int, default=420,
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
    work = tempfile.mkdtemp(prefix="seglog-outgrow-")
    test = Test(args, cp, work)
    log(f"work directory {work}; D = data/, P = server.properties, D2 = broker2/data/, "
        f"P2 = broker2/server.properties; node 1 {test.b1} (controller 127.0.0.1:{test.cport}), "
        f"node 2 {test.b2}")
    ok = False
    try:
        test.run()
        ok = True
        print("outgrow_check: passed")
        return 0
    except Exception as e:  # noqa: BLE001 - Failure, or broker_compare's BenchError
        print(f"FAILED: {e}", file=sys.stderr)
        for name, node in (("Kafka node 1", test.kafka1), ("Kafka node 2", test.kafka2)):
            lines = [x[:400] for x in node.log().splitlines()
                     if ("] ERROR " in x or "] WARN " in x) and not NEW_REPLICA_ERROR.search(x)]
            if lines:
                print(f"{name}'s log, ERROR and WARN lines ({len(lines)}):\n" +
                      "\n".join(lines[-12:]), file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
        if test.session is not None:
            test.session.close()
        for node in (test.kafka2, test.kafka1):  # the broker first, the controller last
            try:
                node.stop()
            except Exception as e:  # noqa: BLE001 - report, keep cleaning up
                print(f"kafka stop: {e}", file=sys.stderr)
                if node.proc is not None:
                    node.proc.kill()
                    node.proc.wait(timeout=30)
        if test.seglog.proc is not None:
            test.seglog.kill()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)
        log("done")


if __name__ == "__main__":
    sys.exit(main())
