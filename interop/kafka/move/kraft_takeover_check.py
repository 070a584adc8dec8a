#!/usr/bin/env python3
"""`seglog serve` and Apache Kafka 4.4.0 (combined mode) take turns on ONE log directory with
ONE server.properties, three round trips seglog -> Kafka -> seglog (issue 27; ctest
interop.kraft_takeover_round_trip, label `interop`).

    kraft_takeover_check.py [--seglog build/release/cli/seglog] [--rounds 3] [--keep]
                            [--kafka-only] [--kafka-first [--seglog-without-authorizer]]
                            [--go-on] [--timeout 780]

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
    phase; K1 deletes `doomed-by-kafka`, S2 deletes `doomed-by-seglog` (both made in S1);
  * dynamic broker configs (BROKER_CONFIG_OPS, phases 1-3) with Kafka's ConfigCommand:
    cluster-wide log.retention.ms and log.cleanup.policy, the node's log.roll.ms, one deleted
    again; the program must show them as the broker's dynamic configs and in every topic's
    effective config (DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG), and the next
    program must show the same (the state below);
  * P sets metadata.log.max.snapshot.interval.ms=4000, so both programs write metadata
    snapshots and each starts from one the other wrote;
  * tiered storage (not with --kafka-first): `tiered` (remote.storage.enable, ~300 KB
    segments, local.retention.ms=1000) gets TIERED_RECORDS records of ~40 KB per phase; each
    program must tier a segment more and trim its local copies to TIERED_LOCAL_MAX .log files
    (an S3 store, versitygw from tests/clients/s3.py; Kafka through
    dev.seglog.kafka.SeglogS3RemoteStorageManager, move/src), so the verification below reads
    the earlier phases' records from the store, tiered by either program.
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

--standalone (ctest interop.kraft_takeover_standalone, with --rounds 1): a dynamic quorum.
P names controller.quorum.bootstrap.servers instead of the voters, and seglog formats D with
`seglog format --standalone` before S1 (kraft.version 1; the KRaftVersionRecord and the
VotersRecord in the bootstrap snapshot and at the log's start), so both programs must list
kraft.version 1 among the finalized features.

--kafka-only runs every phase with Kafka (formatting D first with kafka.tools.StorageTool, as
for a directory that is Kafka's first): the harness checked on Kafka itself.

--kafka-first (ctest interop.kraft_takeover_from_kafka; issue 27, item 4): seglog takes over a
stopped Kafka's directory. Kafka formats D with its own StorageTool (`kafka.tools.StorageTool
format -t <random id> -c P`, Kafka's default features: share.version=2, streams.version=1 among
them) and runs first, phases K1 S1 K2 S2 K3 S3 (--rounds of K then S), so seglog starts on
Kafka's bootstrap records (the cluster-wide min.insync.replicas ConfigRecord among them) and
Kafka's own broker and controller registrations. P has Kafka's StandardAuthorizer on (Kafka
refuses CreateAcls without an authorizer: SecurityDisabledException), super.users=User:ANONYMOUS
and allow.everyone.if.no.acl.found=true, so the PLAINTEXT clients may still do everything. What
this mode adds to the above:
  * K1 also creates topics with a variety of configs (ZOO_TOPICS: compact,delete with gzip at a
    level, LogAppendTime with zstd at a level, segment.bytes 1 MiB with ~40 KB records so that
    every phase rolls it, lz4, snappy with preallocate, retention.ms/bytes, max.message.bytes,
    min.insync.replicas, unclean.leader.election.enable, ...);
    every program appends to each of them in every phase (zoo-rolling must gain a segment each
    phase; zoo-appendtime's records carry the writer's LogAppendTime, learned right after the
    write and then checked exactly like every other timestamp);
  * the Kafka phases make what seglog keeps but does not serve (SECURITY_OPS): SCRAM-SHA-256/512
    credentials (K1 with Kafka's own ConfigCommand, later ones with AlterUserScramCredentials,
    deletions too), ACLs (K1 with Kafka's own AclCommand, later CreateAcls/DeleteAcls), a client
    quota and a group config. Each Kafka phase must show, at its start, exactly the
    DescribeUserScramCredentials (users, mechanisms, iterations), DescribeAcls,
    DescribeClientQuotas, cluster-wide dynamic broker configs and group configs the previous
    Kafka phase showed before it stopped (with the seglog phase's ACL and dynamic broker config
    changes), and at its end what its own changes make of them;
  * the seglog phases change ACLs too (SEGLOG_ACL_OPS: Kafka's AclCommand and the admin client
    against seglog, which keeps them in the metadata log);
  * after every stop, Kafka's DumpLogSegments --cluster-metadata-decoder reads
    D/__cluster_metadata-0 (the newest snapshot, then the log after it): the ACL records and the
    dynamic broker configs must be the ones the test made, and the records seglog keeps without
    serving (features, group configs, SCRAM credentials with their salts and keys, client quotas)
    exactly what they were before a seglog phase;
  * the state comparison leaves out what seglog does not serve yet, and only that (UNSERVED;
    each is checked on Kafka's side instead).
--kafka-first --kafka-only runs that mode's phases all on Kafka (its harness checked on Kafka).
--seglog-without-authorizer (debugging, with --kafka-first): seglog gets a copy of P without the
three authorizer settings, which `seglog serve` refuses today ("Unknown configuration"), so that
the rest of the run can be checked; the test then fails at the end all the same. --go-on (for
debugging) only reports an unclean log or a changed state and goes on to the next checks; the
test still fails at the end. The work directory is kept when the check fails (or with --keep):
data/ (D), server.properties (P), seglog-serve.log, logs/server.log[.n] (one per Kafka start),
clients.err (the client JVM's warnings).
"""

import argparse
import glob
import hashlib
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
from harness import free_port  # noqa: E402  (tests/clients, on sys.path the same way)
from s3 import S3Store  # noqa: E402

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
# --kafka-first: topics of many configs, made by Kafka in K1 (name -> (partitions, configs,
# kind of records: plain, keyed, big, appendtime)).
ZOO_TOPICS = {
    "zoo-compact-delete": (2, {"cleanup.policy": "compact,delete", "retention.ms": "604800000",
                               "delete.retention.ms": "3600000", "min.compaction.lag.ms": "1000",
                               "max.compaction.lag.ms": "86400000",
                               "min.cleanable.dirty.ratio": "0.2", "compression.type": "gzip",
                               "compression.gzip.level": "6"}, "keyed"),
    "zoo-appendtime": (2, {"message.timestamp.type": "LogAppendTime", "compression.type": "zstd",
                           "compression.zstd.level": "5", "retention.bytes": "104857600",
                           "max.message.bytes": "500000"}, "appendtime"),
    "zoo-rolling": (1, {"segment.bytes": "1048576", "compression.type": "uncompressed",
                        "retention.ms": "-1", "retention.bytes": "-1",
                        "max.message.bytes": "2097152", "index.interval.bytes": "1024",
                        "segment.index.bytes": "65536", "segment.ms": "86400000",
                        "message.timestamp.type": "CreateTime", "min.insync.replicas": "1",
                        "unclean.leader.election.enable": "false"}, "big"),
    "zoo-lz4": (3, {"compression.type": "lz4", "retention.ms": "86400000",
                    "file.delete.delay.ms": "30000", "flush.ms": "60000",
                    "message.timestamp.after.max.ms": "86400000"}, "plain"),
    "zoo-snappy": (1, {"compression.type": "snappy", "preallocate": "true",
                       "segment.bytes": "1048576", "segment.jitter.ms": "1000"}, "plain"),
}
BIG_RECORDS = 30  # zoo-rolling's records per phase: ~1.2 MB, more than one segment.bytes
# Tiered storage (not with --kafka-first): both programs tier to one S3 store (versitygw,
# tests/clients/s3.py), Kafka through seglog's RemoteStorageManager for Kafka, which reads and
# writes seglog's layout. `tiered` rolls a ~300 KB segment every ~7 records of ~40 KB (a batch
# of the producer is up to 256 KiB) and keeps
# its local copies 1 s after they are tiered, so each program reads the earlier phases' records
# from the store, some of them tiered by the other program.
TIERED_SETTINGS = {
    "remote.log.storage.system.enable": "true",
    "remote.log.storage.manager.class.name": "dev.seglog.kafka.SeglogS3RemoteStorageManager",
    "remote.log.metadata.manager.listener.name": "PLAINTEXT",
    "remote.log.manager.task.interval.ms": "500",
    "rlmm.config.remote.log.metadata.topic.num.partitions": "1",
    "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
    "log.retention.check.interval.ms": "500",
    # The retention task's first run (default 30 s, longer than a phase): not 0, with which
    # Kafka 4.4.0's first run can race its cleaner's start ("Compaction for partition ...
    # cannot be resumed since it is not paused", an uncaught exception in kafka-log-retention).
    "log.initial.task.delay.ms": "3000",
}
TIERED_CONFIGS = {"remote.storage.enable": "true", "internal.segment.bytes": "300000",
                  "local.retention.ms": "1000"}
TIERED_RECORDS = 20
TIERED_LOCAL_MAX = 2
# The authorizer settings of P with --kafka-first (see the docstring).
AUTHORIZER_SETTINGS = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
    "allow.everyone.if.no.acl.found": "true",
}
# --kafka-first: what each Kafka phase (0 = K1) changes of what seglog keeps but does not serve.
# ("tool-scram", user, mechanism, iterations, password): Kafka's ConfigCommand (kafka-configs);
# ("tool-acl", binding): Kafka's AclCommand (kafka-acls); the others through the Admin API.
# An ACL binding: resource type, pattern type, name, principal, host, operation, permission.
SECURITY_OPS = [
    [("tool-scram", "alice", "SCRAM-SHA-256", 8192, "alice-secret"),
     ("tool-scram", "alice", "SCRAM-SHA-512", 4096, "alice-secret"),
     ("tool-scram", "bob", "SCRAM-SHA-512", 4096, "bob-secret"),
     ("tool-acl", ("TOPIC", "LITERAL", "orders", "User:alice", "*", "READ", "ALLOW")),
     ("tool-acl", ("GROUP", "LITERAL", "g-classic", "User:alice", "*", "READ", "ALLOW")),
     ("tool-acl", ("TOPIC", "PREFIXED", "orders", "User:bob", "*", "WRITE", "DENY")),
     ("acl-add", ("GROUP", "LITERAL", "g-classic", "User:alice", "*", "DESCRIBE", "ALLOW")),
     ("acl-add", ("TRANSACTIONAL_ID", "LITERAL", "takeover-long", "User:alice", "127.0.0.1",
                  "WRITE", "ALLOW")),
     ("quota-set", "user", "alice", "producer_byte_rate", "1048576"),
     ("config-set", "GROUP", "g-consumer", "consumer.session.timeout.ms", "50000")],
    [("scram-delete", "bob", "SCRAM-SHA-512"),
     ("scram-set", "carol", "SCRAM-SHA-512", 10000, "carol-secret"),
     ("acl-delete", ("GROUP", "LITERAL", "g-classic", "User:alice", "*", "DESCRIBE", "ALLOW")),
     ("acl-add", ("CLUSTER", "LITERAL", "kafka-cluster", "User:carol", "*", "ALTER_CONFIGS",
                  "ALLOW")),
     ("acl-add", ("TOPIC", "PREFIXED", "made-by-", "User:carol", "*", "ALL", "ALLOW")),
     ("quota-set", "user", "alice", "consumer_byte_rate", "2097152")],
    [("scram-set", "alice", "SCRAM-SHA-256", 16384, "alice-new-secret"),
     ("scram-set", "dave", "SCRAM-SHA-256", 4096, "dave-secret"),
     ("acl-delete", ("TOPIC", "PREFIXED", "orders", "User:bob", "*", "WRITE", "DENY")),
     ("acl-add", ("USER", "LITERAL", "dave", "User:carol", "*", "DESCRIBE", "ALLOW")),
     ("quota-set", "user", "alice", "producer_byte_rate", "-")],
]
# --kafka-first: the ACL changes each seglog phase makes (kafka-acls.sh and the admin client
# against seglog, which keeps them in the metadata log); the next Kafka phase must list them, and
# the metadata log must hold them as the model says.
SEGLOG_ACL_OPS = [
    [("tool-acl", ("TOPIC", "PREFIXED", "zoo-", "User:erin", "*", "READ", "ALLOW")),
     ("acl-add", ("GROUP", "LITERAL", "g-consumer", "User:erin", "127.0.0.1", "READ", "ALLOW")),
     ("acl-delete", ("TOPIC", "LITERAL", "orders", "User:alice", "*", "READ", "ALLOW"))],
    [("acl-add", ("CLUSTER", "LITERAL", "kafka-cluster", "User:erin", "*", "DESCRIBE", "DENY"))],
]
# What seglog does not serve yet, so that on a directory Kafka formatted its Admin answers leave
# out what Kafka's show. Only these are taken out of the state comparison (--kafka-first), each
# checked on Kafka's side instead (Kafka's state keeps them across seglog's phases, and the
# metadata records stay byte-for-byte, see kept_records):
UNSERVED = {
    # Finalized features seglog keeps but does not list. None since issue 31: share.version 2
    # and streams.version 1 are served and finalized as Kafka's StorageTool finalizes them.
    "finalized_features": [],
}
# WARN lines Kafka 4.4.0 prints at every start of a single-node combined server.
KAFKA_WARN_OK = ["Performing controller activation",
                 # the retention check, first run 30 s after a start (a --kafka-first phase
                 # may last that long), on `orders`: the long-lived producer's records carry
                 # BASE_TS + 100000 + i, up to ~40 s ahead of the clock when the test began
                 "contains future timestamp(s), making it ineligible to be deleted",
                 # --kafka-first, K1: Kafka makes the internal topics itself, and two
                 # FindCoordinator requests at once both ask for the creation of one
                 "Auto topic creation failed for __transaction_state with error "
                 "'TOPIC_ALREADY_EXISTS'",
                 "Auto topic creation failed for __consumer_offsets with error "
                 "'TOPIC_ALREADY_EXISTS'",
                 # at SIGTERM
                 "Attempting to close NetworkClient that has already been closed",
                 # at SIGTERM with tiered storage: the remote log metadata manager's consumer
                 # sees its own broker go away
                 *[f"clientId=__remote_log_metadata_client_1_{who}] {what}"
                   for who in ("consumer, groupId=null", "producer")
                   for what in ("Bootstrap broker", "Connection to node")]]


def server_properties(data, port, cport, authorizer=False, standalone=False, tiered=()):
    # A static quorum names its voters; a dynamic one (KIP-853, --standalone) finds them
    # through the bootstrap servers and keeps them in the metadata log (VotersRecord).
    quorum = (f"controller.quorum.bootstrap.servers=127.0.0.1:{cport}" if standalone
              else f"controller.quorum.voters=1@127.0.0.1:{cport}")
    return f"""# Written by interop/kafka/move/kraft_takeover_check.py: the one file both
# seglog serve and Kafka 4.4.0 (kafka.Kafka) run with, on the one log directory.
process.roles=broker,controller
node.id=1
{quorum}
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
""" + "".join(f"{x}\n" for x in tiered) + """# Metadata snapshots every few seconds (Kafka's default: hourly), so that each program starts
# from a snapshot the other one wrote, and deletes old snapshots and segments as it does.
metadata.log.max.snapshot.interval.ms=4000
""" + ("""# ACLs: Kafka refuses CreateAcls without an authorizer (SecurityDisabledException). Every
# PLAINTEXT client is User:ANONYMOUS, a super user, so the test's clients may do everything.
""" + "".join(f"{k}={v}\n" for k, v in AUTHORIZER_SETTINGS.items()) if authorizer else "")


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


def kafka_race(line, text):
    """Kafka's own start-up race, seen on Kafka after Kafka too: its ControllerRegistrationManager
    can send CONTROLLER_REGISTRATION before the QuorumController has activated, which ControllerApis
    logs as an ERROR (NotControllerException: "The active controller appears to be node 1");
    the manager retries and the registration is persisted a moment later."""
    return ("apiKey=CONTROLLER_REGISTRATION" in line and
            "NotControllerException: The active controller appears to be node 1" in text and
            "Our registration has been persisted to the metadata log" in text)


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
            elif kind == "big":
                key, value = f"big-{i}", big_value_digest(i)
            else:
                key, value = f"key-{i}", f"value-{i}"
            r = {"partition": p, "offset": off, "timestamp": BASE_TS + i, "key": key,
                 "value": value, "headers": [["seq", str(i)]], "status": status}
            if kind == "appendtime":
                # the broker's clock at the append: learned right after the write
                r["timestamp"], r["tsType"] = None, "LogAppendTime"
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


def big_value_digest(i):
    """TakeoverCheck.bigValue(i) as its dump prints it (sha256 and length)."""
    v = (f"big-{i}-" + "0123456789abcdef" * 2500).encode()
    return f"sha256:{hashlib.sha256(v).hexdigest()}:{len(v)}"


def without_unserved(st):
    """The state without what seglog does not serve yet (UNSERVED; --kafka-first only)."""
    st = json.loads(json.dumps(st))
    for f in UNSERVED["finalized_features"]:
        st["cluster"]["finalized_features"].pop(f, None)
    return st


# ids in the metadata records -> the names Admin uses (AclResourceType, PatternType,
# AclOperation, AclPermissionType, ScramMechanism)
ACL_RESOURCE = {2: "TOPIC", 3: "GROUP", 4: "CLUSTER", 5: "TRANSACTIONAL_ID",
                6: "DELEGATION_TOKEN", 7: "USER"}
ACL_PATTERN = {3: "LITERAL", 4: "PREFIXED"}
ACL_OPERATION = {2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER",
                 8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS",
                 11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS",
                 14: "DESCRIBE_TOKENS", 15: "TWO_PHASE_COMMIT"}
ACL_PERMISSION = {2: "DENY", 3: "ALLOW"}
SCRAM_MECHANISM = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}


def kept_records(dump_out):
    """What seglog keeps without serving it, replayed from DumpLogSegments
    --cluster-metadata-decoder's output over the newest snapshot and the log segments of
    __cluster_metadata-0: the features, the non-topic ConfigRecords, the SCRAM credentials
    (salt, keys, iterations), the ACLs (with their ids) and the client quotas."""
    sections, cur = {}, None
    for line in dump_out.splitlines():
        m = re.match(r"Dumping (\S+)", line)
        if m:
            cur = sections.setdefault(m.group(1), [])
            continue
        m = re.match(r"\| offset: (\d+) .*payload: (\{.*\})\s*$", line)
        if m and cur is not None:
            cur.append((int(m.group(1)), json.loads(m.group(2))))
    snaps = sorted(f for f in sections if f.endswith(".checkpoint"))
    order, start = [], 0
    if snaps:
        order.append((snaps[-1], 0))
        start = int(os.path.basename(snaps[-1]).split("-")[0])
    order += [(f, start) for f in sorted(f for f in sections if f.endswith(".log"))]
    st = {"features": {}, "configs": {}, "scram": {}, "acls": {}, "quotas": {}}
    for f, lo in order:
        for off, rec in sections[f]:
            if f.endswith(".log") and off < lo:
                continue
            t, d = rec.get("type"), rec.get("data", {})
            if t == "FEATURE_LEVEL_RECORD":
                st["features"][d["name"]] = d["featureLevel"]
            elif t == "CONFIG_RECORD" and d["resourceType"] != 2:
                k = f"{d['resourceType']}:{d['resourceName']}:{d['name']}"
                if d.get("value") is None:
                    st["configs"].pop(k, None)
                else:
                    st["configs"][k] = d["value"]
            elif t == "USER_SCRAM_CREDENTIAL_RECORD":
                st["scram"][f"{d['name']}/{SCRAM_MECHANISM.get(d['mechanism'])}"] = d
            elif t == "REMOVE_USER_SCRAM_CREDENTIAL_RECORD":
                st["scram"].pop(f"{d['name']}/{SCRAM_MECHANISM.get(d['mechanism'])}", None)
            elif t == "ACCESS_CONTROL_ENTRY_RECORD":
                st["acls"][d["id"]] = d
            elif t == "REMOVE_ACCESS_CONTROL_ENTRY_RECORD":
                st["acls"].pop(d["id"], None)
            elif t == "CLIENT_QUOTA_RECORD":
                k = json.dumps([d["entity"], d["key"]], sort_keys=True)
                if d.get("remove"):
                    st["quotas"].pop(k, None)
                else:
                    st["quotas"][k] = d["value"]
    return st


def acl_string(d):
    return " ".join([ACL_RESOURCE.get(d["resourceType"], str(d["resourceType"])),
                     ACL_PATTERN.get(d["patternType"], str(d["patternType"])), d["resourceName"],
                     d["principal"], d["host"], ACL_OPERATION.get(d["operation"]),
                     ACL_PERMISSION.get(d["permissionType"])])


def segment_count(data, topic, p):
    d = os.path.join(data, f"{topic}-{p}")
    return len(glob.glob(os.path.join(d, "*.log"))) if os.path.isdir(d) else 0


def kafka_tool(args, expect, timeout=120):
    """One of Kafka's own tools (oracle.sh kafka-class); its output must contain `expect`."""
    p = subprocess.run([ORACLE, "kafka-class", *args], capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    check(p.returncode == 0 and expect in out and "Exception" not in out,
          f"{args[0].rsplit('.', 1)[-1]} {' '.join(args[1:])} exited {p.returncode}:\n"
          f"{out[-3000:]}")
    return out


# Dynamic broker configs set by phase (kafka-configs, --entity-default or --entity-name 1):
# (entity, key, value or None to delete); each then shows in every topic's DescribeConfigs
# (the state compares them across the switches) and in both programs' broker configs.
BROKER_CONFIG_OPS = [
    [("", "log.retention.ms", "2592000000")],
    [("1", "log.roll.ms", "604800001"), ("", "log.cleanup.policy", "delete")],
    [("", "log.retention.ms", None)],
]


def dump_metadata(files):
    """Kafka's DumpLogSegments --cluster-metadata-decoder over the given files; it must read
    each of them without an error."""
    p = subprocess.run([ORACLE, "kafka-class", "org.apache.kafka.tools.DumpLogSegments",
                        "--cluster-metadata-decoder", "--files", ",".join(files)],
                       capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    check(p.returncode == 0 and "Exception" not in out and "Error" not in out,
          f"DumpLogSegments --cluster-metadata-decoder on the metadata log exited "
          f"{p.returncode}:\n{tail_errors(out)}")
    return p.stdout


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
        self.store = None
        self.remote_segments = 0  # of `tiered`, in the store after the last phase
        tiered = []
        if not args.kafka_first:
            self.store = S3Store(os.path.join(work, "s3")).start()
            tiered = ["# Tiered storage: both programs, one S3 store (TIERED_SETTINGS)."]
            tiered += [f"{k}={v}" for k, v in TIERED_SETTINGS.items()]
            tiered += self.store.broker_overrides()
        self.config_text = server_properties(self.data, port, cport,
                                             authorizer=args.kafka_first,
                                             standalone=args.standalone, tiered=tiered)
        self.config = os.path.join(work, "server.properties")
        with open(self.config, "w") as f:
            f.write(self.config_text)
        seglog_config = self.config
        if args.seglog_without_authorizer:
            # Debugging only (see the docstring): P without the authorizer settings.
            seglog_config = os.path.join(work, "server-seglog.properties")
            with open(seglog_config, "w") as f:
                f.write("".join(line for line in self.config_text.splitlines(True)
                                if line.split("=", 1)[0] not in AUTHORIZER_SETTINGS))
        self.seglog = SeglogNode(args.seglog, self.data, port, seglog_config)
        self.kafka = KafkaNode(cp, work, self.data, port, cport, self.config_text)
        self.session = None
        self.current = None         # (who, node) of the program running now
        self.soft_failures = 0
        self.model = Model()
        self.pids = set()           # producer ids seen so far
        self.producers_made = 0     # producers the test created (each needs its own id)
        self.long_lived = {}        # the client JVM's two producers, once created
        self.fresh_txn = None       # (producer id, epoch) of takeover-fresh
        # --kafka-first: what only Kafka answers (kafka-state), as the test's changes make it
        self.security = {"scram": {}, "acls": set(), "quotas": {}, "group_configs": {}}
        self.kafka_state_before = None  # kafka-state when the last Kafka phase stopped
        self.kafka_features = None      # Kafka's finalized features (all of them)
        self.kept = None                # kept_records() after the last phase
        self.kafka_phases = 0           # Kafka phases done
        self.seglog_phases = 0          # seglog phases done (--kafka-first: SEGLOG_ACL_OPS)
        self.broker_configs = {}        # BROKER_CONFIG_OPS so far: entity -> {key: value}
        self.starts = {}                # program -> phases started

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
            if self.args.kafka_first:
                for t, (parts, configs, _) in ZOO_TOPICS.items():
                    self.create_topic(who, t, parts, configs)
            if self.store is not None:
                self.create_topic(who, "tiered", 1, TIERED_CONFIGS)
        if self.args.kafka_first:
            self.zoo_writes(who)
        if self.store is not None:
            self.tiered_writes(who)
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
        if n in (1, 2):  # the second program deletes its own doomed topic, then the first
            doomed = [t for t in m.topics if t.startswith("doomed-by-")]
            self.delete(f"doomed-by-{kind}" if f"doomed-by-{kind}" in doomed else doomed[0], who)
        value = str(12345678 + 1000 * n)
        self.c("alter-config", self.bootstrap, "orders", f"retention.ms={value}")
        # groups
        self.consume(who, "g-classic", 25, final=last)
        self.consume(who, "g-consumer", 5, final=last)
        if not last:
            self.txn(who, "open")
        log(f"{who}: wrote {sum(len(v) for v in m.recs.values())} records in all so far; "
            f"{'no' if last else 'one'} transaction left open")

    def tiered_writes(self, who):
        """TIERED_RECORDS records of ~40 KB to `tiered`, then waits until this program has
        tiered at least one more segment and trimmed its local copies to at most
        TIERED_LOCAL_MAX .log files (the active segment and one not tiered yet), so the
        earlier phases' records are read from the store only."""
        m = self.model
        lo, hi = m.take("tiered", TIERED_RECORDS)
        acked = self.c("produce-kind", self.bootstrap, "tiered", 1, lo, hi, BASE_TS, "big")["acked"]
        self.producers_made += 1
        m.add(who, "tiered", acked, "big")

        def tiered_more():
            segs = [k for k in self.store.segments() if k[0].split("/")[-2].startswith("tiered-")]
            local = segment_count(self.data, "tiered", 0)
            return (len(segs) if len(segs) > self.remote_segments and local <= TIERED_LOCAL_MAX
                    else None)
        deadline = time.monotonic() + 60
        while (n := tiered_more()) is None:
            check(time.monotonic() < deadline,
                  f"{who}: within 60 s, tiered-0 did not gain a segment in the store (it holds "
                  f"{self.remote_segments} from earlier phases) or keep at most "
                  f"{TIERED_LOCAL_MAX} local .log files (it has "
                  f"{segment_count(self.data, 'tiered', 0)})")
            time.sleep(0.25)
        log(f"{who}: tiered-0 has {n} segments in the store ({n - self.remote_segments} "
            f"tiered in this phase); its local .log files: "
            f"{segment_count(self.data, 'tiered', 0)}")
        self.remote_segments = n

    def zoo_writes(self, who):
        """--kafka-first: appends to each of ZOO_TOPICS."""
        m = self.model
        for t, (parts, _, kind) in ZOO_TOPICS.items():
            n = BIG_RECORDS if kind == "big" else 20
            lo, hi = m.take(t, n)
            segments = segment_count(self.data, t, 0)
            t0 = int(time.time() * 1000)
            acked = self.c("produce-kind", self.bootstrap, t, parts, lo, hi, BASE_TS,
                           "plain" if kind == "appendtime" else kind)["acked"]
            t1 = int(time.time() * 1000)
            self.producers_made += 1
            m.add(who, t, acked, kind)
            if kind == "appendtime":
                self.learn_append_times(who, t, t0, t1)
            if kind == "big":
                now = segment_count(self.data, t, 0)
                check(now > segments, f"{who}: {t}-0 had {segments} segments before "
                                      f"{n} records of ~40 KB (segment.bytes 1 MiB) and has "
                                      f"{now} after: no roll")

    def learn_append_times(self, who, topic, t0, t1):
        """The LogAppendTime timestamps the writer gave (then checked like any other)."""
        d = self.c("dump", self.bootstrap, topic, "read_uncommitted")
        got = {(r["partition"], r["offset"]): r for r in d["records"]}
        for p in range(self.model.topics[topic]["partitions"]):
            for r in self.model.recs[(topic, p)]:
                if r["timestamp"] is not None:
                    continue
                g = got.get((p, r["offset"]))
                check(g is not None and g.get("tsType") == "LogAppendTime" and
                      t0 - 2000 <= g["timestamp"] <= t1 + 2000,
                      f"{who}: {topic}-{p} offset {r['offset']} (LogAppendTime) reads back as "
                      f"{short(g)}; expected a LogAppendTime timestamp in [{t0}, {t1}]")
                r["timestamp"] = g["timestamp"]

    def security_ops(self, who, k, table=SECURITY_OPS):
        """--kafka-first: the k-th Kafka phase's SECURITY_OPS (or a seglog phase's
        SEGLOG_ACL_OPS), and the state they make."""
        if k >= len(table):
            return
        sec = self.security
        for op in table[k]:
            kind = op[0]
            if kind == "tool-scram":
                _, user, mech, iters, pw = op
                kafka_tool(["org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                            self.bootstrap, "--alter", "--add-config",
                            f"{mech}=[iterations={iters},password={pw}]", "--entity-type",
                            "users", "--entity-name", user], "Completed updating config")
                sec["scram"].setdefault(user, {})[mech] = iters
            elif kind == "scram-set":
                _, user, mech, iters, pw = op
                self.c("scram-set", self.bootstrap, user, mech, iters, pw)
                sec["scram"].setdefault(user, {})[mech] = iters
            elif kind == "scram-delete":
                _, user, mech = op
                self.c("scram-delete", self.bootstrap, user, mech)
                del sec["scram"][user][mech]
                if not sec["scram"][user]:
                    del sec["scram"][user]
            elif kind == "tool-acl":
                rtype, ptype, name, principal, host, operation, perm = op[1]
                kafka_tool(["org.apache.kafka.tools.AclCommand", "--bootstrap-server",
                            self.bootstrap, "--add",
                            f"--{'allow' if perm == 'ALLOW' else 'deny'}-principal", principal,
                            f"--{'allow' if perm == 'ALLOW' else 'deny'}-host", host,
                            "--operation", operation, f"--{rtype.lower()}", name,
                            "--resource-pattern-type", ptype.lower()], "Adding ACLs")
                sec["acls"].add(" ".join(op[1]))
            elif kind in ("acl-add", "acl-delete"):
                self.c(kind, self.bootstrap, *op[1])
                if kind == "acl-add":
                    sec["acls"].add(" ".join(op[1]))
                else:
                    sec["acls"].remove(" ".join(op[1]))
            elif kind == "quota-set":
                _, etype, ename, key, value = op
                self.c("quota-set", self.bootstrap, etype, ename, key, value)
                q = sec["quotas"].setdefault(f"{{{etype}={ename}}}", {})
                if value == "-":
                    q.pop(key, None)
                else:
                    q[key] = float(value)
                if not q:
                    del sec["quotas"][f"{{{etype}={ename}}}"]
            elif kind == "config-set":
                _, rtype, name, key, value = op
                self.c("config-set", self.bootstrap, rtype, name, f"{key}={value}")
                sec["group_configs"].setdefault(name, {})[key] = [value, "DYNAMIC_GROUP_CONFIG"]
            else:
                raise ValueError(kind)
        log(f"{who}: {len(table[k])} changes to SCRAM credentials, ACLs, quotas and "
            f"group configs")

    def broker_config_ops(self, n, who):
        """Phase n's BROKER_CONFIG_OPS through Kafka's ConfigCommand, then checks that the
        program answers with them: the broker's dynamic configs, and a topic's effective config."""
        if n >= len(BROKER_CONFIG_OPS):
            return
        for entity, key, value in BROKER_CONFIG_OPS[n]:
            target = ["--entity-default"] if entity == "" else ["--entity-name", entity]
            change = ["--add-config", f"{key}={value}"] if value is not None else \
                ["--delete-config", key]
            kafka_tool(["org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                        self.bootstrap, "--alter", "--entity-type", "brokers", *target, *change],
                       "Completed updating")
            want = self.broker_configs.setdefault(entity, {})
            if value is None:
                want.pop(key, None)
            else:
                want[key] = value
        st = self.state()
        for entity, field, source in (("1", "broker_configs", "DYNAMIC_BROKER_CONFIG"),
                                      ("", "default_broker_configs",
                                       "DYNAMIC_DEFAULT_BROKER_CONFIG")):
            have = {k: v for k, v in st["cluster"][field].items() if k != "min.insync.replicas"}
            want = {k: [v, source] for k, v in self.broker_configs.get(entity, {}).items()}
            check(have == want, f"{who}: dynamic broker configs of '{entity}' are {have}, "
                                f"expected {want}")
        # Each topic without its own value takes the dynamic one (the node's over the cluster's).
        expect = {}
        for topic_key, broker_key in (("retention.ms", "log.retention.ms"),
                                      ("segment.ms", "log.roll.ms")):
            for entity, source in (("1", "DYNAMIC_BROKER_CONFIG"),
                                   ("", "DYNAMIC_DEFAULT_BROKER_CONFIG")):
                if broker_key in self.broker_configs.get(entity, {}):
                    expect[topic_key] = [self.broker_configs[entity][broker_key], source]
                    break
        checked = 0
        for t, d in st["topics"].items():
            if d.get("partitions", -1) == -1 or t.startswith("__"):
                continue
            for key, want in expect.items():
                have = d["configs"].get(key)
                if have is not None and have[1] == "DYNAMIC_TOPIC_CONFIG":
                    continue
                check(have == want, f"{who}: {t}'s {key} is {have}, expected {want}")
                checked += 1
        check(checked > 0 or not expect, f"{who}: no topic takes the dynamic defaults")
        log(f"{who}: dynamic broker configs {self.broker_configs} set with kafka-configs")

    def kafka_state(self, who, at_start):
        """--kafka-first, on Kafka: kafka-state at the start of a phase must equal the one the
        previous Kafka phase showed when it stopped; at its end, what the test's changes made."""
        ks = self.c("kafka-state", self.bootstrap, ",".join(GROUPS))
        cluster_configs = {k: [v, "DYNAMIC_DEFAULT_BROKER_CONFIG"]
                           for k, v in {"min.insync.replicas": "1",
                                        **self.broker_configs.get("", {})}.items()}
        if at_start:
            # (seglog's phase may have changed the dynamic broker configs: BROKER_CONFIG_OPS)
            # (and its ACL changes: SEGLOG_ACL_OPS)
            d = diff({**self.kafka_state_before, "cluster_broker_configs": cluster_configs,
                      "acls": sorted(self.security["acls"])}, ks)
            self.soft(not d, f"{who}: SCRAM users, ACLs, quotas or dynamic configs differ from "
                             f"what the previous Kafka phase showed before it stopped:\n" +
                             "\n".join(d[:25]))
            return ks
        sec = self.security
        want = {"scram": {u: sorted(f"{m}/{i}" for m, i in ms.items())
                          for u, ms in sec["scram"].items()},
                "acls": sorted(sec["acls"]), "quotas": sec["quotas"],
                "cluster_broker_configs": cluster_configs,
                "group_configs": {g: sec["group_configs"].get(g, {}) for g in GROUPS}}
        d = diff(want, ks)
        check(not d, f"{who}: Kafka's SCRAM users, ACLs, quotas or dynamic configs are not "
                     f"what the test made:\n" + "\n".join(d[:25]))
        self.kafka_state_before = ks
        return ks

    def check_kept(self, who, kafka):
        """After a stop (--kafka-first): the records seglog keeps without serving them, from the
        metadata log as Kafka's DumpLogSegments reads it; a seglog phase must leave them as the
        previous phase did, and in a Kafka phase they must name what Admin showed."""
        meta = os.path.join(self.data, "__cluster_metadata-0")
        files = sorted(glob.glob(os.path.join(meta, "*.log")) +
                       glob.glob(os.path.join(meta, "*.checkpoint")))
        out = dump_metadata(files)
        kept = kept_records(out)
        # Dynamic broker configs are served now: the records must hold what the test set.
        broker = {c: v for c, v in kept["configs"].items() if c.startswith("4:")}
        want = {"4::min.insync.replicas": "1",
                **{f"4:{e}:{k}": v for e, kv in self.broker_configs.items() for k, v in kv.items()}}
        check(broker == want, f"{who}: the metadata log's dynamic broker configs are {broker}, "
                              f"expected {want}")
        kept["configs"] = {c: v for c, v in kept["configs"].items() if not c.startswith("4:")}
        if not kafka:
            # seglog changes ACLs now (SEGLOG_ACL_OPS): the records must be the model's.
            acls = sorted(acl_string(d) for d in kept["acls"].values())
            check(acls == sorted(self.security["acls"]),
                  f"{who}: the metadata log's ACL records {acls} are not the ACLs made so far "
                  f"{sorted(self.security['acls'])}")
            d = diff({**self.kept, "acls": {}}, {**kept, "acls": {}})
            self.soft(not d, f"{who}: the metadata records seglog keeps without serving them "
                             f"(features, broker/group configs, SCRAM credentials, ACLs, quotas) "
                             f"changed during its phase:\n" + "\n".join(d[:25]))
        else:
            ks = self.kafka_state_before
            scram = {}
            for d in kept["scram"].values():
                scram.setdefault(d["name"], []).append(
                    f"{SCRAM_MECHANISM[d['mechanism']]}/{d['iterations']}")
            have = {"scram": {u: sorted(v) for u, v in scram.items()},
                    "acls": sorted(acl_string(d) for d in kept["acls"].values())}
            want = {"scram": ks["scram"], "acls": ks["acls"]}
            check(have == want, f"{who}: the metadata log's SCRAM and ACL records {short(have)} "
                                f"are not what Kafka's Admin showed {short(want)}")
        n = {k: len(v) for k, v in kept.items()}
        log(f"{who}: the metadata log keeps {n} (features, non-topic configs, SCRAM "
            f"credentials, ACLs, quotas)")
        self.kept = kept

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

    def check_unserved(self, who, st, kafka):
        """--kafka-first: what UNSERVED takes out of the comparison, checked on each side:
        Kafka always shows the features its StorageTool finalized; seglog does not (and nothing
        else in their place)."""
        features = st["cluster"]["finalized_features"]
        if kafka:
            if self.kafka_features is None:
                self.kafka_features = features
                log(f"{who}: Kafka's finalized features {short(features)}")
            self.soft(features == self.kafka_features,
                      f"{who}: Kafka's finalized features {short(features)}, at first "
                      f"{short(self.kafka_features)}")
            for f in UNSERVED["finalized_features"]:
                check(f in features, f"{who}: {f} is no longer finalized: {short(features)}")
        else:
            shown = [f for f in UNSERVED["finalized_features"] if f in features]
            self.soft(not shown, f"{who}: seglog now lists {shown} among its finalized "
                                 f"features: take them out of UNSERVED")

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
            ("ERROR", lambda x: "] ERROR " in x and not (kafka and kafka_race(x, text))),
        ]
        if kafka:
            kinds += [("recovery of a user partition (no clean shutdown seen)",
                       lambda x: ("Recovering unflushed segment" in x and
                                  "__cluster_metadata-0" not in x)),
                      ("WARN", lambda x: ("] WARN " in x and
                                          not any(ok in x for ok in KAFKA_WARN_OK)))]
        else:
            # (seglog's words for Kafka's "contains future timestamp(s)": `orders`' long-lived
            # producer writes ahead of the clock on purpose, see KAFKA_WARN_OK)
            kinds += [("WARN", lambda x: "] WARN " in x and not (
                "partition=orders-" in x and "in the future" in x and
                "never deleted by retention.ms" in x))]
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
        self.starts[name] = self.starts.get(name, 0) + 1
        who = f"{name} (phase {n + 1}, {name[0].upper()}{self.starts[name]})"
        t0 = time.monotonic()
        self.current = None
        if kafka:
            first = n == 0
            self.kafka.start(timeout=150, format_storage=first)
        else:
            if n == 0 and self.args.standalone:
                # `seglog format --standalone`: kraft.version 1 and this node the one voter
                # (KRaftVersionRecord and VotersRecord in the bootstrap snapshot).
                p = subprocess.run([self.args.seglog, "format", "--standalone", "--cluster-id",
                                    "q1Sh-9_ISia_zwGINzRvyQ", "--config", self.config],
                                   capture_output=True, text=True, timeout=60)
                check(p.returncode == 0 and "Formatting" in p.stdout,
                      f"seglog format --standalone exited {p.returncode}:\n{p.stdout}{p.stderr}")
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
        kafka_first = self.args.kafka_first
        phases = 2 * rounds if kafka_first else 2 * rounds + 1
        before = None
        for n in range(phases):
            kafka = self.args.kafka_only or n % 2 == (0 if kafka_first else 1)
            last = n == phases - 1
            who = self.start(n, kafka)
            if self.session is None:
                self.session = Session(self.cp, self.work)
            if n > 0:
                self.check_log(who, self.kafka.log() if kafka else self.seglog.log(), kafka)
                st = wait_until(f"every partition led by node 1 on {who}", self.leaders_ready, 60)
                if kafka_first:
                    self.check_unserved(who, st, kafka)
                    d = diff(without_unserved(before), without_unserved(st))
                else:
                    d = diff(before, st)
                self.soft(not d, f"{who}: the state differs from the one the previous program "
                                 f"showed before it stopped:\n" + "\n".join(d[:25]))
                self.check_state(who, st)
                nrec = self.verify(who)
                log(f"{who}: same state as before the switch ({len(st['all_topics'])} topics, "
                    f"{sum(len(v) for v in st['producers'].values())} producer entries, "
                    f"transactions {short(st['transaction_listing'], 200)}); {nrec} records, "
                    f"their offsets, timestamps and the group offsets as expected")
                if kafka_first and kafka:
                    self.kafka_state(who, at_start=True)
            self.writes(n, who, last)
            self.broker_config_ops(n, who)
            if kafka_first and kafka:
                self.security_ops(who, self.kafka_phases)
                self.kafka_state(who, at_start=False)
                self.kafka_phases += 1
            elif kafka_first:
                self.security_ops(who, self.seglog_phases, SEGLOG_ACL_OPS)
                self.seglog_phases += 1
            if n == 0 or last:
                self.verify(who)
            before = wait_until(f"every partition led by node 1 on {who}", self.leaders_ready, 60)
            if kafka_first:
                self.check_unserved(who, before, kafka)
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
            if kafka_first:
                self.check_kept(who, kafka)
        self.session.close()
        self.final_checks()

    def final_checks(self):
        strays = [d for d in os.listdir(self.data) if d.endswith("-stray")]
        check(not strays, f"-stray directories at the end: {strays}")
        meta = os.path.join(self.data, "__cluster_metadata-0")
        files = sorted(glob.glob(os.path.join(meta, "*.log")) +
                       glob.glob(os.path.join(meta, "*.checkpoint")))
        check(files, "no __cluster_metadata-0 segments or snapshots at the end")
        out = dump_metadata(files)
        topics = sorted(self.model.topics)
        missing = [t for t in topics if f'"name":"{t}"' not in out]
        check(not missing, f"the metadata log names no TopicRecord for {missing}")
        log(f"DumpLogSegments --cluster-metadata-decoder read {len(files)} files of "
            f"__cluster_metadata-0 ({len(out.splitlines())} lines)")
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
    ap.add_argument("--kafka-first", action="store_true",
                    help="Kafka formats D and runs first (K1 S1 K2 S2 ...): seglog takes over "
                         "Kafka's directory, with topics of many configs, SCRAM users, ACLs")
    ap.add_argument("--standalone", action="store_true",
                    help="a dynamic quorum (controller.quorum.bootstrap.servers): seglog "
                         "formats D with --standalone (kraft.version 1) before S1")
    ap.add_argument("--seglog-without-authorizer", action="store_true",
                    help="debugging, with --kafka-first: seglog gets P without the authorizer "
                         "settings it refuses today (the test still fails at the end)")
    ap.add_argument("--go-on", action="store_true",
                    help="debugging: report an unclean log or a state that differs after a "
                         "switch and go on to the next checks (the test then fails at the end)")
    ap.add_argument("--timeout", type=int, default=780,
                    help="the whole test after the classpath is ready, seconds (then it fails "
                         "and stops every process it started)")
    args = ap.parse_args()
    if args.seglog_without_authorizer and not args.kafka_first:
        ap.error("--seglog-without-authorizer goes with --kafka-first")
    if args.standalone and (args.kafka_first or args.kafka_only):
        ap.error("--standalone is a seglog-first mode")
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
        check(not args.seglog_without_authorizer,
              "every check passed, but seglog ran with a server.properties of its own "
              "(--seglog-without-authorizer), not Kafka's")
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
        if test.store is not None:
            test.store.kill()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)
        log("done")


if __name__ == "__main__":
    sys.exit(main())
