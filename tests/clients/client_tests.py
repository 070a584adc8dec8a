#!/usr/bin/env python3
"""Real Kafka clients against `seglog serve` (ctest label `clients`).

    client_tests.py --seglog build/release/cli/seglog --case NAME
    client_tests.py --list

Each case starts its own broker on a free 127.0.0.1 port over a fresh directory, drives one
client, checks the records that come back (values, keys, offsets), stops the broker with
SIGTERM (a clean shutdown), and judges the partition directories with `seglog check` and
Kafka's DumpLogSegments --deep-iteration.
"""

import argparse
import json
import os
import random
import shutil
import re
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (OFFSETS_TOPIC, ORACLE, Broker, CaptureProxy, Failure, Workspace, check,  # noqa
                     free_port, java_helper, java_streams_helper, judge_directories,
                     kafka_tool, run, write_frames)
from s3 import S3Store  # noqa

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def kcat(*args, input=None, timeout=60):
    return run(["kcat", *args], input=input, timeout=timeout)


# ----------------------------------------------------------------------------------------------
# kcat (librdkafka 2.0.2 from Debian: Metadata v4, Produce v7, Fetch v11)


@case
def kcat_produce_consume(ctx):
    b = ctx.broker
    expected = []
    for codec in CODECS:
        lines = [f"{codec}-key-{i}:{codec}-value-{i}" for i in range(50)]
        kcat("-b", b.bootstrap, "-P", "-t", "kc", "-z", codec, "-K", ":", input="\n".join(lines) + "\n")
        expected += [tuple(l.split(":", 1)) for l in lines]
    p = kcat("-b", b.bootstrap, "-C", "-t", "kc", "-o", "beginning", "-e", "-f", "%o|%k|%s\n")
    got = [l.split("|") for l in p.stdout.splitlines() if l]
    check([int(o) for o, _, _ in got] == list(range(len(expected))), "offsets not contiguous")
    check([(k, v) for _, k, v in got] == expected, "kcat read back different records")
    # A fetch from the middle of a compressed batch returns the whole batch; kcat skips to it.
    p = kcat("-b", b.bootstrap, "-C", "-t", "kc", "-o", "75", "-e", "-f", "%o|%s\n")
    got = [l.split("|") for l in p.stdout.splitlines() if l]
    check(got[0] == ["75", expected[75][1]], f"consume from offset 75 began at {got[:1]}")
    check(len(got) == len(expected) - 75, "consume from 75 missed records")
    md = kcat("-b", b.bootstrap, "-L", "-t", "kc").stdout
    check(f"broker {ctx.node_id} at {b.bootstrap}" in md, f"metadata:\n{md}")
    check('topic "kc" with 1 partitions' in md, f"metadata:\n{md}")
    ctx.expect_records = len(expected)


# ----------------------------------------------------------------------------------------------
# Kafka 4.4.0's own tools


@case
def console_producer_consumer(ctx):
    b = ctx.broker
    expected = []
    for codec in CODECS:
        lines = [f"{codec} line {i}" for i in range(100)]
        kafka_tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", b.bootstrap,
                   "--topic", "console", "--compression-codec", codec,
                   input="\n".join(lines) + "\n")
        expected += lines
    p = kafka_tool("org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server",
                   b.bootstrap, "--topic", "console", "--partition", "0", "--offset", "earliest",
                   "--max-messages", str(len(expected)), "--formatter-property", "print.offset=true")
    got = [l for l in p.stdout.splitlines() if l.startswith("Offset:")]
    check(got == [f"Offset:{i}\t{v}" for i, v in enumerate(expected)],
          f"console consumer read {len(got)} records, first {got[:3]}")
    # The console producer is idempotent by default: its batches carry a producer id.
    d = os.path.join(ctx.ws.data, "console-0")
    dump = kafka_tool("org.apache.kafka.tools.DumpLogSegments", "--files",
                      os.path.join(d, "00000000000000000000.log")).stdout
    ids = set(re.findall(r"producerId: (-?\d+)", dump))
    check(ids and all(int(i) >= 0 for i in ids), f"batches without a producer id: {ids}")
    ctx.expect_records = len(expected)


@case
def kafka_topics(ctx):
    b = ctx.broker
    T = "org.apache.kafka.tools.TopicCommand"
    out = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "orders",
                     "--partitions", "3", "--config", "retention.ms=86400000").stdout
    check("Created topic orders." in out, out)
    p = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "orders",
                   ok=False)
    check(p.returncode != 0 and "already exists" in (p.stdout + p.stderr), p.stdout + p.stderr)
    p = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "r3",
                   "--replication-factor", "3", ok=False)
    check("only 1 broker(s) are registered" in p.stdout + p.stderr, p.stdout + p.stderr)
    out = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--list").stdout.split()
    check(out == ["orders"], f"list: {out}")
    out = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--describe", "--topic", "orders").stdout
    check("PartitionCount: 3" in out and "ReplicationFactor: 1" in out, out)
    check("retention.ms=86400000" in out, out)
    for p in range(3):
        check(re.search(rf"Partition: {p}\s+Leader: {ctx.node_id}\s+Replicas: {ctx.node_id}\s+Isr: "
                        rf"{ctx.node_id}", out), out)
    kafka_tool(T, "--bootstrap-server", b.bootstrap, "--alter", "--topic", "orders",
               "--partitions", "5")
    out = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--describe", "--topic", "orders").stdout
    check("PartitionCount: 5" in out, out)
    check(os.path.isdir(os.path.join(ctx.ws.data, "orders-4")), "orders-4 was not created")
    kafka_tool(T, "--bootstrap-server", b.bootstrap, "--delete", "--topic", "orders")
    deadline = time.time() + 30
    while time.time() < deadline:
        out = kafka_tool(T, "--bootstrap-server", b.bootstrap, "--list").stdout.split()
        if out == []:
            break
        time.sleep(0.5)
    check(out == [], f"after delete: {out}")


@case
def kafka_configs(ctx):
    b = ctx.broker
    kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", b.bootstrap,
               "--create", "--topic", "cfg", "--partitions", "1")
    C = "org.apache.kafka.tools.ConfigCommand"
    kafka_tool(C, "--bootstrap-server", b.bootstrap, "--alter", "--entity-type", "topics",
               "--entity-name", "cfg", "--add-config", "retention.ms=3600000,cleanup.policy=compact")
    out = kafka_tool(C, "--bootstrap-server", b.bootstrap, "--describe", "--entity-type", "topics",
                     "--entity-name", "cfg").stdout
    check("retention.ms=3600000" in out and "cleanup.policy=compact" in out, out)
    kafka_tool(C, "--bootstrap-server", b.bootstrap, "--alter", "--entity-type", "topics",
               "--entity-name", "cfg", "--delete-config", "retention.ms")
    out = kafka_tool(C, "--bootstrap-server", b.bootstrap, "--describe", "--entity-type", "topics",
                     "--entity-name", "cfg").stdout
    check("retention.ms" not in out and "cleanup.policy=compact" in out, out)
    p = kafka_tool(C, "--bootstrap-server", b.bootstrap, "--alter", "--entity-type", "topics",
                   "--entity-name", "cfg", "--add-config", "retention.ms=banana", ok=False)
    check(p.returncode != 0 and "retention.ms" in p.stdout + p.stderr, p.stdout + p.stderr)


# ----------------------------------------------------------------------------------------------
# Kafka 4.4.0 itself as the judge of the broker listener (issue 25)

KAFKA_BROKER_SH = os.path.join(os.path.dirname(ORACLE), "broker", "broker.sh")
API_EXCEPTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_exceptions.txt")
COMPATIBILITY_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "compatibility.md")
TABLE_BEGIN = "<!-- generated by clients.api_versions_match_kafka: begin -->"
TABLE_END = "<!-- generated by clients.api_versions_match_kafka: end -->"


@case
def api_versions_match_kafka(ctx):
    """A default single-node Kafka 4.4.0 (KRaft, combined) and seglog get ApiVersions v4 and
    every request of every version Kafka advertises, with default fields
    (java/CompareBrokers.java): the same versions, never a closed connection, the same error
    codes. The table it writes is docs/compatibility.md's, which must be up to date."""
    wd = os.path.join(ctx.ws.dir, "kafka")
    env = dict(os.environ, KAFKA_BROKER_PORT=str(free_port()),
               KAFKA_CONTROLLER_PORT=str(free_port()))
    run(["bash", KAFKA_BROKER_SH, "start", wd], env=env, timeout=300)
    try:
        table = os.path.join(ctx.ws.dir, "table.md")
        p = run(java_helper("CompareBrokers", f"127.0.0.1:{env['KAFKA_BROKER_PORT']}",
                            ctx.broker.bootstrap, API_EXCEPTIONS, table), timeout=580, ok=False)
        print(p.stdout[-6000:])
        check(p.returncode == 0 and re.search(r"^\d+ passed, 0 failed$", p.stdout, re.M),
              f"Kafka and seglog answer differently:\n{p.stdout[-6000:]}\n{p.stderr[-3000:]}")
    finally:
        run(["bash", KAFKA_BROKER_SH, "stop", wd], env=env, timeout=120, ok=False)
    with open(table) as f:
        generated = f.read()
    with open(COMPATIBILITY_DOC) as f:
        doc = f.read()
    begin, end = doc.find(TABLE_BEGIN), doc.find(TABLE_END)
    check(begin >= 0 and end > begin, f"{COMPATIBILITY_DOC} has no generated table markers")
    committed = doc[begin + len(TABLE_BEGIN):end].strip()
    if committed != generated.strip():
        if os.environ.get("SEGLOG_UPDATE_DOCS") == "1":
            with open(COMPATIBILITY_DOC, "w") as f:
                f.write(doc[:begin + len(TABLE_BEGIN)] + "\n" + generated + doc[end:])
        check(False, "docs/compatibility.md's table is stale (rerun with SEGLOG_UPDATE_DOCS=1 "
                     f"to rewrite it):\n{generated}")


api_versions_match_kafka.setup = lambda ctx: ctx.broker.overrides.extend([
    "auto.create.topics.enable=false", "offsets.topic.num.partitions=1",
    "group.initial.rebalance.delay.ms=0"])


@case
def admin_tools_single_node(ctx):
    """Kafka 4.4.0's admin tools for the APIs of a single node (issue 25): leader election,
    reassignments, the metadata quorum, features, broker configs, log dirs, and the
    transaction tools over a hanging transaction (found, described, aborted, and then read
    past by a read_committed consumer)."""
    b = ctx.broker
    T = "org.apache.kafka.tools."
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", "adm",
               "--partitions", "2")
    kcat("-b", b.bootstrap, "-P", "-t", "adm", "-p", "0",
         input="\n".join(f"r{i}" for i in range(10)) + "\n")

    out = kafka_tool(T + "LeaderElectionCommand", "--bootstrap-server", b.bootstrap,
                     "--election-type", "PREFERRED", "--topic", "adm", "--partition", "0").stdout
    check("Valid replica already elected for partitions adm-0" in out, out)
    out = kafka_tool(T + "LeaderElectionCommand", "--bootstrap-server", b.bootstrap,
                     "--election-type", "UNCLEAN", "--all-topic-partitions").stdout
    check("Valid replica already elected" in out or out.strip() == "", out)
    p = kafka_tool(T + "LeaderElectionCommand", "--bootstrap-server", b.bootstrap,
                   "--election-type", "PREFERRED", "--topic", "adm", "--partition", "9", ok=False)
    check("adm-9" in p.stdout + p.stderr, p.stdout + p.stderr)

    out = kafka_tool(T + "reassign.ReassignPartitionsCommand", "--bootstrap-server", b.bootstrap,
                     "--list").stdout
    check("No partition reassignments found." in out, out)

    out = kafka_tool(T + "MetadataQuorumCommand", "--bootstrap-server", b.bootstrap, "describe",
                     "--status").stdout
    check(re.search(r"LeaderId:\s+1\b", out) and re.search(r"CurrentVoters:\s+\[\{\"id\": 1", out),
          out)

    F = T + "FeatureCommand"
    out = kafka_tool(F, "--bootstrap-server", b.bootstrap, "describe").stdout
    check(re.search(r"Feature: transaction.version\s+SupportedMinVersion: 0\s+"
                    r"SupportedMaxVersion: 2\s+FinalizedVersionLevel: 2", out), out)
    check(re.search(r"Feature: group.version\s.*FinalizedVersionLevel: 1", out), out)
    check(re.search(r"Feature: metadata.version\s+SupportedMinVersion: 4.4-IV2\s", out), out)
    out = kafka_tool(F, "--bootstrap-server", b.bootstrap, "upgrade", "--feature",
                     "transaction.version=2").stdout
    check("transaction.version was upgraded to 2" in out, out)
    p = kafka_tool(F, "--bootstrap-server", b.bootstrap, "upgrade", "--feature",
                   "transaction.version=3", ok=False)
    check(p.returncode != 0 and "only supports versions 0-2" in p.stdout + p.stderr,
          p.stdout + p.stderr)

    C = T + "ConfigCommand"
    out = kafka_tool(C, "--bootstrap-server", b.bootstrap, "--describe", "--entity-type",
                     "brokers", "--entity-name", "1", "--all").stdout
    # Every broker config Kafka has, each with Kafka's synonyms: the listeners seglog serve was
    # started with are STATIC_BROKER_CONFIG; num.io.threads is Kafka's default.
    check(re.search(r"^\s+listeners=PLAINTEXT://127\.0\.0\.1:\d+ sensitive=false "
                    r"synonyms=\{STATIC_BROKER_CONFIG:listeners=PLAINTEXT", out, re.M), out[:3000])
    check(re.search(r"^\s+num\.io\.threads=8 sensitive=false synonyms=\{DEFAULT_CONFIG:"
                    r"num\.io\.threads=8\}", out, re.M), out[:3000])
    check(re.search(r"^\s+ssl\.key\.password=null sensitive=true", out, re.M), out[:3000])
    check(len(re.findall(r"^\s+\S+=.* sensitive=(true|false)", out, re.M)) > 300,
          f"fewer than 300 broker configs:\n{out[:2000]}")
    out = kafka_tool(C, "--bootstrap-server", b.bootstrap, "--describe", "--entity-type",
                     "broker-loggers", "--entity-name", "1").stdout
    check(re.search(r"^\s+root=INFO sensitive=false", out, re.M), out)

    out = kafka_tool(T + "LogDirsCommand", "--bootstrap-server", b.bootstrap, "--describe",
                     "--topic-list", "adm").stdout
    check('"partition":"adm-0"' in out and '"isFuture":false' in out, out)

    # A transaction the coordinator never heard of, left open in adm-0 at offset 10.
    p = run(java_helper("HangingTxn", b.bootstrap, "adm", "0", "4242", "3"))
    check("produced 3 at 10" in p.stdout, p.stdout)
    X = T + "TransactionsCommand"
    out = kafka_tool(X, "--bootstrap-server", b.bootstrap, "describe-producers", "--topic", "adm",
                     "--partition", "0").stdout
    check(re.search(r"^4242\s+0\s+2\s+-1\s+\S+\s+\S+\s+10\s*$", out, re.M) or
          re.search(r"\b4242\b.*\b10\b", out), out)
    out = kafka_tool(X, "--bootstrap-server", b.bootstrap, "find-hanging", "--broker-id", "1",
                     "--max-transaction-timeout", "0").stdout
    check(re.search(r"^adm\s+0\s+4242\b", out, re.M), out)
    kafka_tool(X, "--bootstrap-server", b.bootstrap, "abort", "--topic", "adm", "--partition", "0",
               "--start-offset", "10")
    out = kafka_tool(X, "--bootstrap-server", b.bootstrap, "find-hanging", "--broker-id", "1",
                     "--max-transaction-timeout", "0").stdout
    check("4242" not in out, out)
    # read_committed readers get past the aborted records; kcat stops at the end.
    p = kcat("-b", b.bootstrap, "-C", "-t", "adm", "-p", "0", "-o", "beginning", "-e",
             "-X", "isolation.level=read_committed", "-f", "%s\n")
    check(p.stdout.split() == [f"r{i}" for i in range(10)], p.stdout)
    ctx.expect_records = None


admin_tools_single_node.setup = lambda ctx: ctx.broker.overrides.append(
    "transaction.partition.verification.enable=false")


@case
def admin_python_clients(ctx):
    """confluent-kafka (librdkafka 2.16: its Metadata v13 for all topics carries bytes after
    the request's fields, which seglog once refused) and kafka-python's admin clients for the
    single-node APIs of issue 25; kcat -L (librdkafka 2.0) for the same metadata."""
    from confluent_kafka import Consumer, ElectionType
    from confluent_kafka import TopicPartition as CTopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    from kafka import TopicPartition
    from kafka.admin import KafkaAdminClient
    b = ctx.broker
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("pa", 3, 1)])["pa"].result(timeout=30)
    md = admin.list_topics(timeout=10)
    check("pa" in md.topics and len(md.topics["pa"].partitions) == 3, f"list_topics: {md.topics}")
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "md"})
    try:
        check("pa" in consumer.list_topics(timeout=10).topics, "Consumer.list_topics")
    finally:
        consumer.close()
    out = kcat("-b", b.bootstrap, "-L").stdout
    check(re.search(r'topic "pa" with 3 partitions', out), out)

    got = admin.elect_leaders(ElectionType.PREFERRED,
                              [CTopicPartition("pa", 0), CTopicPartition("pa", 9)]).result(timeout=30)
    codes = {tp.partition: (err.code() if err is not None else None) for tp, err in got.items()}
    check(codes.get(0) is not None and "ELECTION_NOT_NEEDED" in str(got), f"elect_leaders: {got}")
    check("UNKNOWN_TOPIC_OR_PART" in str(got), f"elect_leaders of pa-9: {got}")

    k = KafkaAdminClient(bootstrap_servers=b.bootstrap)
    try:
        quorum = k.describe_metadata_quorum()
        part = quorum["topics"][0]["partitions"][0]
        check(part["leader_id"] == 1 and [v["replica_id"] for v in part["current_voters"]] == [1],
              f"describe_metadata_quorum: {quorum}")
        features = k.describe_features()
        check(features["transaction.version"]["finalized"] == (2, 2) and
              features["metadata.version"]["supported"] == (33, 33), f"features: {features}")
        check(k.list_partition_reassignments() == {}, "a reassignment in progress?")
        resources = k.list_config_resources()
        check(resources.get("broker") == ["1"] and "pa" in resources.get("topic", []),
              f"list_config_resources: {resources}")
        producers = k.describe_producers([TopicPartition("pa", 0)])
        check(list(producers.values())[0].active_producers == [], f"producers: {producers}")
        check(k.update_features({"transaction.version": 2}) == {"transaction.version": "OK"},
              "update_features to the level the node runs at")
        try:
            k.update_features({"transaction.version": 3})
            raise Failure("transaction.version 3 was accepted")
        except Failure:
            raise
        except Exception as e:  # kafka-python's InvalidUpdateVersionError
            check("only supports versions 0-2" in str(e), f"update_features: {e}")
        moved = k.alter_partition_reassignments({TopicPartition("pa", 0): [1],
                                                 TopicPartition("pa", 1): [2]})
        check(moved[TopicPartition("pa", 0)] is None, f"reassignment to this node: {moved}")
        check("InvalidReplicationAssignment" in str(moved[TopicPartition("pa", 1)]),
              f"reassignment to a broker that does not exist: {moved}")
        check(k.find_hanging_transactions(broker_ids=[1], max_transaction_timeout_ms=0) == [],
              "a hanging transaction on a fresh node?")
    finally:
        k.close()
    from confluent_kafka.admin import ConfigResource, ResourceType
    described = admin.describe_configs([ConfigResource(ResourceType.BROKER, "1")])
    entries = list(described.values())[0].result(timeout=30)
    check(len(entries) > 300 and entries["num.io.threads"].value == "8" and
          entries["ssl.key.password"].is_sensitive, f"describe_configs BROKER: {len(entries)}")
    ctx.expect_records = None


FRANZGO = os.path.join(os.environ.get("SEGLOG_CACHE", os.path.expanduser("~/.cache/seglog")),
                       "bin", "franzgo")
CLIENT_REQUESTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "data", "protocol", "client_requests")


@case
def franz_go_client(ctx):
    """franz-go (kgo and kadm; the pure-Go client, tests/clients/go/franzgo): creates a topic,
    produces 2000 records with its defaults (idempotent), consumes them in a group, commits, and
    describes the group and its offsets."""
    p = run([FRANZGO, ctx.broker.bootstrap, "fg", "2000"], timeout=120)
    check("produced 2000 consumed 2000" in p.stdout, p.stdout + p.stderr)
    ctx.expect_records = 2000


def _capture_java(bootstrap):
    T = "org.apache.kafka.tools."
    kafka_tool(T + "TopicCommand", "--bootstrap-server", bootstrap, "--create", "--topic", "cj",
               "--partitions", "2")
    kafka_tool(T + "TopicCommand", "--bootstrap-server", bootstrap, "--describe", "--topic", "cj")
    kafka_tool(T + "ConsoleProducer", "--bootstrap-server", bootstrap, "--topic", "cj",
               "--producer-property", "compression.type=zstd",
               input="".join(f"j{i}\n" for i in range(50)))
    kafka_tool(T + "consumer.ConsoleConsumer", "--bootstrap-server", bootstrap, "--topic", "cj",
               "--group", "cj-group", "--from-beginning", "--max-messages", "50",
               "--timeout-ms", "30000")
    kafka_tool(T + "ConfigCommand", "--bootstrap-server", bootstrap, "--describe",
               "--entity-type", "topics", "--entity-name", "cj")
    kafka_tool(T + "consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap,
               "--describe", "--group", "cj-group")
    kafka_tool(T + "GetOffsetShell", "--bootstrap-server", bootstrap, "--topic", "cj")


def _capture_librdkafka(bootstrap):
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("cl", 2, 1)])["cl"].result(timeout=30)
    admin.list_topics(timeout=10)
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                  "compression.type": "lz4"})
    for i in range(50):
        p.produce("cl", key=f"k{i}", value=f"l{i}")
    check(p.flush(30) == 0, "librdkafka producer did not flush")
    t = Producer({"bootstrap.servers": bootstrap, "transactional.id": "cl-txn"})
    t.init_transactions(30)
    t.begin_transaction()
    t.produce("cl", value="in-txn")
    t.commit_transaction(30)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "cl-group",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["cl"])
    got, deadline = 0, time.time() + 60
    while got < 51 and time.time() < deadline:
        m = c.poll(1)
        if m is not None and not m.error():
            got += 1
    check(got == 51, f"librdkafka consumer read {got} of 51")
    c.commit(asynchronous=False)
    c.close()
    admin.list_consumer_groups().result(timeout=30)
    admin.describe_consumer_groups(["cl-group"])["cl-group"].result(timeout=30)


@case
def client_request_frames(ctx):
    """Every request librdkafka 2.16 (confluent-kafka), Kafka 4.4.0's Java clients and tools,
    franz-go and kcat (librdkafka 2.0) send while they create topics, produce (idempotent,
    transactional, compressed), consume in groups and describe things is captured through a
    proxy, and each one decodes and encodes again to the same bytes with seglog's messages
    (protocol_test's ClientRequestsTest over this capture): a new client release whose requests
    seglog cannot read fails here. SEGLOG_UPDATE_CAPTURES=1 also writes the capture into
    tests/data/protocol/client_requests, which protocol_test reads in every run."""
    proxy = ctx.proxy
    import confluent_kafka
    librdkafka = confluent_kafka.libversion()[0]
    out = os.path.join(ctx.ws.dir, "captures")
    os.makedirs(out)
    bootstrap = f"127.0.0.1:{proxy.port}"
    runs = [(f"librdkafka-{librdkafka}", lambda: _capture_librdkafka(bootstrap)),
            ("java-4.4.0", lambda: _capture_java(bootstrap)),
            ("franz-go-1.22.3", lambda: run([FRANZGO, bootstrap, "cg", "100"], timeout=120)),
            ("librdkafka-2.0.2-kcat", lambda: (
                kcat("-b", bootstrap, "-P", "-t", "ck", input="a\nb\n"),
                kcat("-b", bootstrap, "-C", "-t", "ck", "-o", "beginning", "-e"),
                kcat("-b", bootstrap, "-L")))]
    counts = {}
    for name, fn in runs:
        proxy.take()
        fn()
        time.sleep(0.5)  # the last requests through the proxy
        counts[name] = write_frames(os.path.join(out, f"{name}.txt"), proxy.take())
        check(counts[name] > 0, f"nothing captured from {name}")
    proxy.stop()
    print(f"captured API versions per client: {counts}")
    build = os.path.dirname(os.path.dirname(ctx.broker.seglog))
    test = os.path.join(build, "src", "protocol", "protocol_test")
    p = run([test, "--gtest_filter=ClientRequestsTest.*"], timeout=120, ok=False,
            env=dict(os.environ, SEGLOG_CLIENT_REQUESTS_DIR=out))
    print(p.stdout[-2000:])
    check(p.returncode == 0, f"captured requests do not round-trip:\n{p.stdout[-6000:]}")
    check("Error getting request" not in ctx.broker.log(), "seglog refused a captured request")
    if os.environ.get("SEGLOG_UPDATE_CAPTURES") == "1":
        for name in counts:
            shutil.copy(os.path.join(out, f"{name}.txt"), CLIENT_REQUESTS_DIR)
    ctx.expect_records = None


def _client_request_frames_setup(ctx):
    ctx.proxy = CaptureProxy(ctx.broker.port)
    ctx.broker.overrides.append(f"advertised.listeners=PLAINTEXT://127.0.0.1:{ctx.proxy.port}")


client_request_frames.setup = _client_request_frames_setup


@case
def alter_replica_log_dirs_under_load(ctx):
    """A partition moves to the broker's other log directory while a producer writes to it
    (issue 25): kafka-reassign-partitions.sh --execute with log_dirs starts the move
    (AlterPartitionReassignments, then AlterReplicaLogDirs), --verify polls it to the end,
    kafka-log-dirs.sh shows the partition in its new directory only, and every acknowledged
    record is read back once, in order. Refusals: a directory that is not a log directory."""
    b = ctx.broker
    create_topic(b.bootstrap, "mv", 1)
    producer = BackgroundProducer(b.bootstrap, "mv", 1, interval=0.002)
    try:
        time.sleep(3)
        T = "org.apache.kafka.tools."

        def dirs_of_mv():
            out = kafka_tool(T + "LogDirsCommand", "--bootstrap-server", b.bootstrap,
                             "--describe", "--topic-list", "mv").stdout
            doc = json.loads(next(l for l in out.splitlines() if l.startswith("{")))
            return {d["logDir"]: [p for p in d["partitions"]]
                    for d in doc["brokers"][0]["logDirs"]}
        before = dirs_of_mv()
        source = next(d for d, ps in before.items() if ps)
        target = next(d for d in before if d != source)
        plan = os.path.join(ctx.ws.dir, "move.json")
        with open(plan, "w") as f:
            json.dump({"version": 1, "partitions": [{"topic": "mv", "partition": 0,
                                                     "replicas": [1], "log_dirs": [target]}]}, f)
        R = T + "reassign.ReassignPartitionsCommand"
        out = kafka_tool(R, "--bootstrap-server", b.bootstrap, "--execute",
                         "--reassignment-json-file", plan).stdout
        check("Successfully started moving log directory to " + target in out, out)
        deadline, out = time.time() + 60, ""
        while time.time() < deadline:
            out = kafka_tool(R, "--bootstrap-server", b.bootstrap, "--verify",
                             "--reassignment-json-file", plan).stdout
            if "completed successfully" in out and "still in progress" not in out:
                break
            time.sleep(0.5)
        check("Reassignment of replica mv-0-1 completed successfully." in out, out)
        time.sleep(1)  # the producer goes on writing into the moved log
        acked = producer.stop()
    finally:
        producer.stop_event.set()
    after = dirs_of_mv()
    check(after[source] == [] and [p["partition"] for p in after[target]] == ["mv-0"] and
          not after[target][0]["isFuture"], f"kafka-log-dirs after the move: {after}")
    check(f"Moved partition mv-0 from {source}" in b.log(), "no move in the broker's log")
    rows = kcat("-b", b.bootstrap, "-C", "-t", "mv", "-o", "beginning", "-e", "-f", "%o %s\n",
                timeout=120).stdout.split("\n")
    got = [tuple(r.split(" ", 1)) for r in rows if r]
    want = sorted((o, v) for (_, o), v in acked.items())
    check([v for _, v in got] == [v for _, v in want] and
          [int(o) for o, _ in got] == [o for o, _ in want],
          f"read {len(got)} records back, {len(want)} acknowledged")
    print(f"moved mv-0 from {source} to {target} under a producer: {len(want)} records")
    # A path that is not one of log.dirs: Kafka's error, and nothing moves.
    with open(plan, "w") as f:
        json.dump({"version": 1, "partitions": [{"topic": "mv", "partition": 0,
                                                 "replicas": [1], "log_dirs": ["/nowhere"]}]}, f)
    p = kafka_tool(R, "--bootstrap-server", b.bootstrap, "--execute",
                   "--reassignment-json-file", plan, ok=False)
    check("LogDirNotFoundException" in p.stdout + p.stderr or "/nowhere" in p.stdout + p.stderr,
          p.stdout + p.stderr)
    ctx.expect_records = None


def _alter_replica_log_dirs_setup(ctx):
    second = os.path.join(ctx.ws.dir, "data2")
    os.makedirs(second)
    ctx.broker.extra_dirs.append(second)
    ctx.broker.overrides.append("log.segment.delete.delay.ms=1000")


alter_replica_log_dirs_under_load.setup = _alter_replica_log_dirs_setup


@case
def alter_replica_log_dirs_sigkill(ctx):
    """seglog SIGKILLed at moments during moves of a 30 MB partition between its two log
    directories (right after the request, and 20, 60, 150 ms later): each restart finishes or
    undoes the move (docs/design/alter_replica_log_dirs.md), the partition is in exactly one
    directory, and every record produced before is read back once, in order."""
    b = ctx.broker
    create_topic(b.bootstrap, "mk", 1)
    payload = "x" * 1000
    values = [f"{i}-{payload}" for i in range(30000)]
    kcat("-b", b.bootstrap, "-P", "-t", "mk", "-X", "linger.ms=50", input="\n".join(values) + "\n",
         timeout=300)
    dirs = [b.data_dir, *b.extra_dirs]
    T = "org.apache.kafka.tools."
    outcomes = []
    for delay in (0.0, 0.02, 0.06, 0.15):
        current = [d for d in dirs if os.path.isdir(os.path.join(d, "mk-0"))]
        check(len(current) == 1, f"mk-0 is in {current}")
        target = next(d for d in dirs if d != current[0])
        # AlterReplicaLogDirs straight from the admin client (one request), then the kill.
        p = run(java_helper("MoveReplica", b.bootstrap, "mk", "0", target), timeout=120)
        check("move started" in p.stdout, p.stdout + p.stderr)
        time.sleep(delay)
        b.kill()
        b.start()
        where = [d for d in dirs if os.path.isdir(os.path.join(d, "mk-0"))]
        futures = [n for d in dirs for n in os.listdir(d) if n.endswith("-future")]
        check(len(where) == 1 and not futures, f"after the kill at {delay}s: mk-0 in {where}, "
                                               f"future dirs {futures}")
        outcomes.append("moved" if where[0] == target else "undone")
        rows = kcat("-b", b.bootstrap, "-C", "-t", "mk", "-o", "beginning", "-e", "-f", "%s\n",
                    timeout=300).stdout.split("\n")
        got = [r for r in rows if r]
        check(got == values, f"after the kill at {delay}s: read {len(got)} of {len(values)} "
                             f"records back (first difference at "
                             f"{next((i for i, (x, y) in enumerate(zip(got, values)) if x != y), None)})")
    print(f"kills during moves: {outcomes}")
    ctx.expect_records = None


alter_replica_log_dirs_sigkill.setup = _alter_replica_log_dirs_setup


@case
def get_offsets_and_delete_records(ctx):
    b = ctx.broker
    lines = [f"r{i}" for i in range(40)]
    kcat("-b", b.bootstrap, "-P", "-t", "del", input="\n".join(lines) + "\n")
    G = "org.apache.kafka.tools.GetOffsetShell"
    out = kafka_tool(G, "--bootstrap-server", b.bootstrap, "--topic", "del").stdout.split()
    check(out == ["del:0:40"], f"latest: {out}")
    out = kafka_tool(G, "--bootstrap-server", b.bootstrap, "--topic", "del", "--time", "-2").stdout.split()
    check(out == ["del:0:0"], f"earliest: {out}")
    out = kafka_tool(G, "--bootstrap-server", b.bootstrap, "--topic", "del", "--time", "-3").stdout.split()
    check(len(out) == 1 and out[0].startswith("del:0:"), f"max timestamp: {out}")
    spec = os.path.join(ctx.ws.dir, "delete.json")
    with open(spec, "w") as f:
        f.write('{"version":1,"partitions":[{"topic":"del","partition":0,"offset":25}]}')
    out = kafka_tool("org.apache.kafka.tools.DeleteRecordsCommand", "--bootstrap-server",
                     b.bootstrap, "--offset-json-file", spec).stdout
    check("low_watermark: 25" in out, out)
    out = kafka_tool(G, "--bootstrap-server", b.bootstrap, "--topic", "del", "--time", "-2").stdout.split()
    check(out == ["del:0:25"], f"earliest after delete-records: {out}")
    p = kcat("-b", b.bootstrap, "-C", "-t", "del", "-o", "beginning", "-e", "-f", "%o %s\n")
    got = p.stdout.split("\n")[:-1]
    check(got[0] == "25 r25" and len(got) == 15, f"after delete-records: {got[:2]} ({len(got)})")


@case
def producer_performance(ctx):
    b = ctx.broker
    for acks in ("1", "-1"):
        out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", f"perf{acks}",
                         "--num-records", "20000", "--record-size", "1024", "--throughput", "-1",
                         "--producer-props", f"bootstrap.servers={b.bootstrap}", f"acks={acks}",
                         timeout=180).stdout
        check(re.search(r"^20000 records sent", out, re.M), out[-2000:])
        p = kcat("-b", b.bootstrap, "-C", "-t", f"perf{acks}", "-o", "beginning", "-e", "-f", "%o\n",
                 timeout=120)
        offsets = [int(x) for x in p.stdout.split()]
        check(offsets == list(range(20000)), f"read back {len(offsets)} of 20000")
        # Kafka's consumer benchmark reads them again in a consumer group of its own.
        out = kafka_tool("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                         b.bootstrap, "--topic", f"perf{acks}", "--num-records", "20000",
                         "--group", f"perf-group{acks}", "--timeout", "30000",
                         timeout=180).stdout
        lines = out.strip().splitlines()
        check(len(lines) == 2 and lines[0].startswith("start.time, end.time, data.consumed.in.MB"),
              out[-2000:])
        stats = dict(zip(lines[0].split(", "), lines[1].split(", ")))
        check(stats["data.consumed.in.nMsg"] == "20000" and
              stats["data.consumed.in.MB"] == "19.5313", f"ConsumerPerformance: {stats}")
        offsets, out = describe_offsets(b.bootstrap, f"perf-group{acks}")
        check(offsets == {0: (20000, 20000, 0, "-")}, f"describe:\n{out}")
    ctx.expect_records = 40000


# ----------------------------------------------------------------------------------------------
# librdkafka 2.1x from PyPI (confluent-kafka) and pure Python kafka-python


def confluent_round_trip(bootstrap, topic, codec, idempotent, n=200):
    from confluent_kafka import Consumer, Producer, TopicPartition, OFFSET_BEGINNING
    acked = []
    errors = []

    def on_delivery(err, msg):
        (errors if err else acked).append(err or (msg.key(), msg.offset()))

    p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                  "enable.idempotence": idempotent, "acks": "all", "linger.ms": 5})
    for i in range(n):
        p.produce(topic, key=f"k{i}".encode(), value=f"{codec}-{i}".encode(), on_delivery=on_delivery)
    check(p.flush(30) == 0, "confluent producer did not flush")
    check(not errors, f"delivery errors: {errors[:3]}")
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-no-commit",
                  "enable.auto.commit": False, "enable.partition.eof": True})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = []
    deadline = time.time() + 30
    while time.time() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                if len(got) >= n:
                    break
                continue
            raise Failure(f"consumer error {m.error()}")
        got.append((m.offset(), m.key().decode(), m.value().decode()))
    c.close()
    return got


@case
def confluent_kafka_client(ctx):
    b = ctx.broker
    total = 0
    for codec in CODECS:
        for idem in (False, True):
            topic = f"ck-{codec}-{int(idem)}"
            got = confluent_round_trip(b.bootstrap, topic, codec, idem)
            check([g[0] for g in got] == list(range(200)), f"{topic}: offsets {got[:3]}")
            check([g[2] for g in got] == [f"{codec}-{i}" for i in range(200)], f"{topic}: values")
            total += 200
    ctx.expect_records = total


@case
def kafka_python_client(ctx):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    b = ctx.broker
    total = 0
    for codec in CODECS:
        topic = f"kp-{codec}"
        prod = KafkaProducer(bootstrap_servers=b.bootstrap, acks="all",
                             compression_type=None if codec == "none" else codec)
        futures = [prod.send(topic, key=f"k{i}".encode(), value=f"{codec}-{i}".encode())
                   for i in range(100)]
        offsets = [f.get(timeout=30).offset for f in futures]
        prod.close()
        check(offsets == list(range(100)), f"{topic}: acked offsets {offsets[:5]}")
        cons = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id=None,
                             enable_auto_commit=False, consumer_timeout_ms=5000)
        tp = TopicPartition(topic, 0)
        cons.assign([tp])
        cons.seek_to_beginning(tp)
        got = [(m.offset, m.value.decode()) for m in cons]
        cons.close()
        check(got == [(i, f"{codec}-{i}") for i in range(100)], f"{topic}: read {got[:3]}")
        total += 100
    ctx.expect_records = total


# ----------------------------------------------------------------------------------------------
# Bad input beside good clients, and a crash under load


def garbage_connection(port, rng, stop):
    """One connection that sends one kind of garbage, then goes away."""
    kind = rng.randrange(6)
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        if kind == 0:
            s.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
        elif kind == 1:  # a length that lies: promises more than it sends
            s.sendall(struct.pack(">i", 5000) + b"\x00\x00")
        elif kind == 2:  # a negative length
            s.sendall(struct.pack(">i", -7))
        elif kind == 3:  # over socket.request.max.bytes
            s.sendall(struct.pack(">i", 200 * 1024 * 1024))
        elif kind == 4:  # an unknown API key, then a valid-looking header of a bad version
            body = struct.pack(">hhi", 9999, 0, 1) + b"\x00\x00"
            s.sendall(struct.pack(">i", len(body)) + body)
        else:  # a Produce v9 header whose body is random
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
            body = struct.pack(">hhih", 0, 9, 7, 1) + b"x" + b"\x00" + junk
            s.sendall(struct.pack(">i", len(body)) + body)
        s.settimeout(2)
        try:
            s.recv(1024)
        except OSError:
            pass
        s.close()
    except OSError:
        pass


@case
def garbage_beside_clients(ctx):
    b = ctx.broker
    stop = threading.Event()
    rng = random.Random(13)
    sent = [0]

    def garbage():
        deadline = time.time() + 60
        while not stop.is_set() and sent[0] < 400 and time.time() < deadline:
            threads = [threading.Thread(target=garbage_connection,
                                        args=(b.port, random.Random(rng.random()), stop))
                       for _ in range(50)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(10)
            sent[0] += len(threads)

    g = threading.Thread(target=garbage)
    g.start()
    rounds = 0
    try:
        # Good clients keep producing and consuming for as long as the garbage flows.
        deadline = time.time() + 90
        while (g.is_alive() or rounds == 0) and time.time() < deadline:
            got = confluent_round_trip(b.bootstrap, f"good-{rounds}", "lz4", True, n=500)
            check([x[0] for x in got] == list(range(500)), f"round {rounds}: read {len(got)} of 500")
            check([x[2] for x in got] == [f"lz4-{i}" for i in range(500)], f"round {rounds}: values")
            rounds += 1
    finally:
        stop.set()
        g.join(70)
    check(sent[0] >= 300, f"only {sent[0]} garbage connections")
    check(b.proc.poll() is None, "broker died")
    log = b.log()
    check("Closing socket connection" in log and "Invalid receive" in log, "no log of a bad client")
    print(f"{sent[0]} garbage connections beside {rounds} good produce/consume rounds")
    ctx.expect_records = 500 * rounds


@case
def crash_durability(ctx):
    """acks=-1 from an idempotent producer; SIGKILL the broker mid-stream; restart; every
    acknowledged record is there exactly once, with contiguous offsets."""
    from confluent_kafka import Producer
    b = ctx.broker
    acked = {}
    lock = threading.Lock()

    def on_delivery(err, msg):
        if err is None:
            with lock:
                acked[msg.value().decode()] = msg.offset()

    p = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 2, "message.timeout.ms": 60000, "retry.backoff.ms": 100,
                  "reconnect.backoff.ms": 100, "reconnect.backoff.max.ms": 500})
    n = 30000
    killed = False
    for i in range(n):
        while True:
            try:
                p.produce("durable", value=f"m{i}".encode(), on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
        if i == n // 2 and not killed:
            p.flush(5)
            b.kill()  # SIGKILL: no clean shutdown
            killed = True
            time.sleep(0.5)
            b.start()
    check(p.flush(90) == 0, "producer did not finish after the restart")
    check(len(acked) == n, f"{len(acked)} of {n} acknowledged")
    p2 = kcat("-b", b.bootstrap, "-C", "-t", "durable", "-o", "beginning", "-e", "-f", "%o %s\n",
              timeout=120)
    rows = [l.split(" ") for l in p2.stdout.splitlines() if l]
    values = [v for _, v in rows]
    check([int(o) for o, _ in rows] == list(range(len(rows))), "offsets not contiguous")
    check(len(values) == len(set(values)), f"{len(values) - len(set(values))} duplicates")
    missing = [v for v in acked if v not in set(values)]
    check(not missing, f"{len(missing)} acknowledged records lost, e.g. {missing[:3]}")
    check("recover" in b.log().lower() or b.starts == 2, "no restart")
    ctx.expect_records = len(rows)


# ----------------------------------------------------------------------------------------------
# Consumer groups (the classic protocol): Kafka's console consumer and kafka-consumer-groups,
# KafkaConsumer members rebalancing, offsets across restarts, librdkafka and kafka-python


TOPICS = "org.apache.kafka.tools.TopicCommand"
GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"


def create_topic(bootstrap, topic, partitions):
    out = kafka_tool(TOPICS, "--bootstrap-server", bootstrap, "--create", "--topic", topic,
                     "--partitions", str(partitions)).stdout
    check(f"Created topic {topic}." in out, out)


def console_produce(bootstrap, topic, pairs):
    """(key, value) pairs through Kafka's ConsoleProducer (keys spread them over partitions)."""
    kafka_tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", bootstrap,
               "--topic", topic, "--reader-property", "parse.key=true",
               "--reader-property", "key.separator=:",
               input="".join(f"{k}:{v}\n" for k, v in pairs))


def console_consume_args(bootstrap, topic, group, *extra):
    return ["--bootstrap-server", bootstrap, "--topic", topic, "--group", group,
            "--formatter-property", "print.partition=true",
            "--formatter-property", "print.offset=true",
            "--formatter-property", "print.key=true", *extra]


def console_consume(bootstrap, topic, group, *extra, timeout=90):
    """Kafka's ConsoleConsumer in `group`: [(partition, offset, key, value)] in the order read."""
    p = kafka_tool(CONSOLE_CONSUMER, *console_consume_args(bootstrap, topic, group, *extra),
                   timeout=timeout)
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r"Partition:(\d+)\tOffset:(\d+)\t([^\t]*)\t(.*)$", line)
        check(m, f"console consumer printed {line!r}")
        rows.append((int(m[1]), int(m[2]), m[3], m[4]))
    return rows


def groups_tool(bootstrap, *args, ok=True):
    """kafka-consumer-groups; stdout and stderr together (its notes go to stderr)."""
    p = kafka_tool(GROUPS, "--bootstrap-server", bootstrap, *args, ok=ok)
    return p.stdout + p.stderr


def describe_offsets(bootstrap, group):
    """kafka-consumer-groups --describe: {partition: (CURRENT-OFFSET, LOG-END-OFFSET, LAG,
    CONSUMER-ID)}, None for a "-" number, and the whole output."""
    out = groups_tool(bootstrap, "--describe", "--group", group)
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 9 and f[0] == group and f[2].isdigit():
            num = [None if x == "-" else int(x) for x in f[3:6]]
            check(int(f[2]) not in rows, f"partition {f[2]} twice:\n{out}")
            rows[int(f[2])] = (*num, f[6])
    return rows, out


def group_state(bootstrap, group):
    """kafka-consumer-groups --describe --state: (ASSIGNMENT-STRATEGY, STATE, #MEMBERS), or
    None, and the whole output."""
    out = groups_tool(bootstrap, "--describe", "--state", "--group", group)
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] == group and f[-1].isdigit():
            return (f[-3], f[-2], int(f[-1])), out
    return None, out


def wait_group_state(bootstrap, group, state, members, timeout=30):
    deadline = time.time() + timeout
    while True:
        got, out = group_state(bootstrap, group)
        if got and got[1:] == (state, members):
            return got
        if time.time() > deadline:
            raise Failure(f"group {group} never was {state} with {members} member(s):\n{out}")
        time.sleep(0.5)


def check_rows(rows, expected, what):
    """Console-consumed rows are exactly the (key, value) pairs expected, each once, at
    consecutive offsets of each partition."""
    got = sorted((k, v) for _, _, k, v in rows)
    check(got == sorted(expected), f"{what}: read {len(rows)} records, expected "
                                   f"{len(expected)}; first {rows[:3]}")
    by_part = {}
    for p, o, _, _ in rows:
        by_part.setdefault(p, []).append(o)
    for p, offs in by_part.items():
        check(offs == list(range(offs[0], offs[0] + len(offs))),
              f"{what}: partition {p} offsets {offs[:10]}")
    return {p: len(offs) for p, offs in by_part.items()}


@case
def console_consumer_group(ctx):
    """Kafka's console consumer in a group commits what it read; kafka-consumer-groups lists,
    describes (lag), resets and deletes the group, and refuses to delete it with a member."""
    b = ctx.broker
    create_topic(b.bootstrap, "grp", 3)
    first = [(f"k{i}", f"first-{i}") for i in range(90)]
    console_produce(b.bootstrap, "grp", first)
    rows = console_consume(b.bootstrap, "grp", "g1", "--from-beginning", "--max-messages", "90")
    counts = check_rows(rows, first, "first run")
    check(sorted(counts) == [0, 1, 2], f"records of only partitions {sorted(counts)}")
    check(all(min(o for p, o, _, _ in rows if p == q) == 0 for q in counts),
          "the first run did not start at offset 0")

    # The same group again: the offsets it committed on close leave nothing to read. The
    # broker's log shows the second run was assigned the partitions (it did not just time out).
    before = len(b.log())
    rows = console_consume(b.bootstrap, "grp", "g1", "--timeout-ms", "8000")
    check(rows == [], f"second run read {len(rows)} records: {rows[:3]}")
    check(re.search(r"Assignment received from leader \S+ for group g1 ", b.log()[before:]),
          f"the second run was never assigned:\n{b.log()[before:][-2000:]}")

    out = groups_tool(b.bootstrap, "--list")
    check(out.split() == ["g1"], f"--list: {out}")
    offsets, out = describe_offsets(b.bootstrap, "g1")
    check(offsets == {p: (n, n, 0, "-") for p, n in counts.items()}, f"describe:\n{out}")
    check("Consumer group 'g1' has no active members." in out, out)

    second = [(f"k{i}", f"second-{i}") for i in range(90, 120)]
    console_produce(b.bootstrap, "grp", second)
    offsets, out = describe_offsets(b.bootstrap, "g1")
    check(sum(lag for _, _, lag, _ in offsets.values()) == len(second), f"lag:\n{out}")
    check(all(offsets[p][0] == n and offsets[p][1] == n + offsets[p][2]
              for p, n in counts.items()), f"describe after producing {len(second)}:\n{out}")
    ends = {p: offsets[p][1] for p in offsets}

    out = groups_tool(b.bootstrap, "--reset-offsets", "--to-earliest", "--execute",
                      "--topic", "grp", "--group", "g1")
    reset = sorted(tuple(l.split()) for l in out.splitlines() if l.startswith("g1 "))
    check(reset == [("g1", "grp", str(p), "0") for p in range(3)], f"--reset-offsets:\n{out}")
    offsets, out = describe_offsets(b.bootstrap, "g1")
    check(offsets == {p: (0, ends[p], ends[p], "-") for p in range(3)}, f"after reset:\n{out}")

    rows = console_consume(b.bootstrap, "grp", "g1", "--max-messages", str(len(first + second)))
    check_rows(rows, first + second, "after reset")
    offsets, out = describe_offsets(b.bootstrap, "g1")
    check(offsets == {p: (ends[p], ends[p], 0, "-") for p in range(3)}, f"after rereading:\n{out}")

    # A group with a member cannot be deleted (Kafka's GroupNotEmptyException).
    bg_out = open(os.path.join(ctx.ws.dir, "background-consumer.log"), "w")
    bg = subprocess.Popen(
        [ORACLE, "kafka-class", CONSOLE_CONSUMER,
         *console_consume_args(b.bootstrap, "grp", "g1", "--timeout-ms", "60000")],
        stdout=bg_out, stderr=subprocess.STDOUT)
    try:
        strategy = wait_group_state(b.bootstrap, "g1", "Stable", 1)
        check(strategy[0] == "range", f"assignment strategy {strategy}")
        _, out = describe_offsets(b.bootstrap, "g1")
        check(out.count("console-consumer-") == 3,
              f"the member does not own the 3 partitions:\n{out}")
        out = groups_tool(b.bootstrap, "--delete", "--group", "g1")
        check("Group 'g1' could not be deleted due to: org.apache.kafka.common.errors."
              "GroupNotEmptyException: The group is not empty." in out, f"--delete:\n{out}")
    finally:
        bg.terminate()  # its shutdown hook closes the consumer: a LeaveGroup
        try:
            bg.wait(timeout=30)
        except subprocess.TimeoutExpired:
            bg.kill()
            bg.wait(timeout=30)
        bg_out.close()
    wait_group_state(b.bootstrap, "g1", "Empty", 0)
    out = groups_tool(b.bootstrap, "--delete", "--group", "g1")
    check("Deletion of requested consumer groups ('g1') was successful." in out,
          f"--delete:\n{out}")
    out = groups_tool(b.bootstrap, "--list")
    check(out.split() == [], f"--list after --delete: {out}")
    check("The following groups were deleted: g1. A total of 3 offsets were removed." in b.log(),
          "no deletion in the broker's log")
    ctx.expect_records = len(first + second)


class JavaMember:
    """One GroupMember (tests/clients/java/GroupMember.java): a KafkaConsumer in a group, whose
    printed assignments, records and commits a reader thread collects."""

    def __init__(self, ctx, name, group, topic, *extra, seconds=120):
        self.name = name
        # Its stdout and stderr, kept in the workspace (which a failed case leaves behind).
        self.out = open(os.path.join(ctx.ws.dir, f"member-{name}.out"), "w")
        self.err_path = os.path.join(ctx.ws.dir, f"member-{name}.err")
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(
            java_helper("GroupMember", ctx.broker.bootstrap, group, topic, "--seconds",
                        str(seconds), "--prop", f"client.id={name}", *extra),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.lock = threading.Lock()
        self.lines = []
        self.records = []          # (partition, offset, value)
        self.assignment = None     # (generation, frozenset of partitions); None while revoked
        self.member_id = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.out.write(line)
            self.out.flush()
            f = line.rstrip("\n").split(" ", 3)
            with self.lock:
                self.lines.append(" ".join(f))
                if f[0] == "assigned":
                    parts = frozenset() if f[3] == "-" else frozenset(map(int, f[3].split(",")))
                    self.assignment = (int(f[1]), parts)
                    self.member_id = f[2]
                elif f[0] in ("revoked", "lost"):
                    self.assignment = None
                elif f[0] == "record":
                    self.records.append((int(f[1]), int(f[2]), f[3]))
        self.out.close()

    def snapshot(self):
        with self.lock:
            return self.assignment

    def output(self):
        with self.lock:
            return list(self.lines)

    def stop(self, timeout=40):
        """Closes stdin: the member closes its consumer (a dynamic member sends LeaveGroup) and
        exits."""
        self.proc.stdin.close()
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure(f"member {self.name} did not stop within {timeout}s")
        self.reader.join(10)
        self.err.close()
        check(rc == 0 and self.output()[-1:] == ["closed eof"],
              f"member {self.name} exited {rc}: {self.output()[-3:]}\n{self.stderr()}")

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.reader.join(10)
        self.err.close()

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()[-3000:]

    def ensure_gone(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def wait_assignments(members, partitions, after_generation, what, incremental=False, timeout=60):
    """Waits until every member reports an assignment of one generation newer than
    `after_generation` that together cover `partitions`: disjoint and balanced. Returns the
    generation. Assignments of one generation that overlap fail at once; so do ones that miss
    partitions, unless `incremental` (cooperative rebalancing: a generation that revokes
    partitions leaves them to the next)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        snap = [m.snapshot() for m in members]
        if all(snap) and len({g for g, _ in snap}) == 1 and snap[0][0] > after_generation:
            parts = [p for _, p in snap]
            summary = {m.name: sorted(p) for m, p in zip(members, parts)}
            union = set().union(*parts)
            check(sum(map(len, parts)) == len(union),
                  f"{what}: generation {snap[0][0]} assignments overlap: {summary}")
            if union == set(range(partitions)):
                sizes = sorted(map(len, parts))
                check(sizes[-1] - sizes[0] <= 1, f"{what}: unbalanced assignments {summary}")
                print(f"{what}: generation {snap[0][0]}: {summary}")
                return snap[0][0]
            check(incremental, f"{what}: generation {snap[0][0]} assignments miss partitions: "
                               f"{summary}")
        time.sleep(0.1)
    raise Failure(f"{what}: no common generation after {after_generation} covering the "
                  f"partitions within {timeout}s: "
                  + "; ".join(f"{m.name}: {m.snapshot()} {m.output()[-2:]}" for m in members))


class BackgroundProducer:
    """confluent-kafka producing r0, r1, ... (or what `value(i)` of a subclass says)
    round-robin over the partitions of a topic, a record every `interval` seconds, idempotent
    with acks=all, until stopped; remembers where each was acknowledged. It keeps producing
    while the broker is down (librdkafka queues and retries)."""

    def __init__(self, bootstrap, topic, partitions, interval=0.02):
        from confluent_kafka import Producer
        self.acked = {}  # (partition, offset) -> value
        self.errors = []
        self.stop_event = threading.Event()
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                  "enable.idempotence": True, "linger.ms": 5})
        self.topic, self.partitions, self.interval = topic, partitions, interval
        self.sent = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _on_delivery(self, err, msg):
        if err:
            self.errors.append(err)
        else:
            self.acked[(msg.partition(), msg.offset())] = msg.value().decode()

    def _run(self):
        while not self.stop_event.is_set():
            i = self.sent
            self.producer.produce(self.topic, value=self.value(i).encode(),
                                  partition=i % self.partitions, on_delivery=self._on_delivery)
            self.sent += 1
            self.producer.poll(self.interval)

    def value(self, i):
        return f"r{i}"

    def stop(self):
        self.stop_event.set()
        self.thread.join(30)
        check(self.producer.flush(60) == 0, "the producer did not flush")
        check(not self.errors and len(self.acked) == self.sent,
              f"{len(self.acked)} of {self.sent} acknowledged: {self.errors[:3]}")
        return self.acked


def drain_and_check(members, acked):
    """Every acknowledged record reached some member with its value (at least once)."""
    deadline = time.time() + 30
    while time.time() < deadline:
        consumed = {(p, o) for m in members.values() for p, o, _ in list(m.records)}
        if consumed >= set(acked):
            break
        time.sleep(0.2)
    missing = sorted(set(acked) - consumed)
    check(not missing, f"{len(missing)} of {len(acked)} records never consumed, e.g. {missing[:5]}")
    for m in members.values():
        for p, o, v in list(m.records):
            check(acked.get((p, o)) == v, f"{m.name} read {v!r} at {p}/{o}, produced "
                                          f"{acked.get((p, o))!r}")
    total = sum(len(m.records) for m in members.values())
    print(f"{len(acked)} records produced, {total} consumed ({total - len(acked)} again after "
          f"a rebalance or a kill)")


def wait_group_caught_up(bootstrap, group, acked, partitions, members_gone, timeout=30):
    """Waits until the group's committed offsets are the log end offsets of what was
    acknowledged (no lag); `members_gone`: and the group has no members left."""
    ends = {p: 0 for p in range(partitions)}
    for p, o in acked:
        ends[p] = max(ends[p], o + 1)
    deadline = time.time() + timeout
    while True:
        offsets, out = describe_offsets(bootstrap, group)
        if ({p: o[:3] for p, o in offsets.items()} == {p: (e, e, 0) for p, e in ends.items()} and
                (not members_gone or all(o[3] == "-" for o in offsets.values()))):
            return
        if time.time() > deadline:
            raise Failure(f"group {group} did not commit up to {ends}:\n{out}")
        time.sleep(0.5)


@case
def group_rebalance_java(ctx):
    """KafkaConsumer members join, leave cleanly and die: at every generation their assignments
    are disjoint and cover the topic's 6 partitions, and every record is consumed."""
    b = ctx.broker
    create_topic(b.bootstrap, "rebalance", 6)
    member_props = ["--prop", "session.timeout.ms=6000", "--prop", "heartbeat.interval.ms=1000"]
    members = {}

    def start(name):
        members[name] = JavaMember(ctx, name, "rg", "rebalance", *member_props)
        return members[name]

    producer = BackgroundProducer(b.bootstrap, "rebalance", 6)
    try:
        m1, m2 = start("m1"), start("m2")
        gen = wait_assignments([m1, m2], 6, 0, "two members")
        m3 = start("m3")
        gen = wait_assignments([m1, m2, m3], 6, gen, "m3 joined")

        # A clean stop: KafkaConsumer.close() sends LeaveGroup, the group rebalances at once.
        m1_id = m1.member_id
        m1.stop()
        gen = wait_assignments([m2, m3], 6, gen, "m1 left")
        check(f"Member {m1_id} has left group rg through explicit LeaveGroup request." in b.log(),
              "no LeaveGroup of m1 in the broker's log")
        m4 = start("m4")
        gen = wait_assignments([m2, m3, m4], 6, gen, "m4 joined")

        # SIGKILL: nobody says goodbye; the broker removes m3 when its session times out.
        m3_id = m3.member_id
        killed = time.time()
        m3.kill()
        gen = wait_assignments([m2, m4], 6, gen, "m3 killed")
        waited = time.time() - killed
        check(f"Member {m3_id} in group rg has failed, removing it from the group." in b.log(),
              "no session expiry of m3 in the broker's log")
        check(waited > 4, f"m3's partitions were taken over {waited:.1f}s after the kill, before "
                          f"its 6 s session timeout")
        print(f"m3's session expired and the survivors took over {waited:.1f}s after the kill")

        acked = producer.stop()
        drain_and_check(members, acked)
        # The members commit what they consumed (again, if a commit failed mid-rebalance).
        wait_group_caught_up(b.bootstrap, "rg", acked, 6, members_gone=False)
        m2.stop()
        m4.stop()
    finally:
        producer.stop_event.set()
        for m in members.values():
            m.ensure_gone()
    wait_group_caught_up(b.bootstrap, "rg", acked, 6, members_gone=True, timeout=0)
    ctx.expect_records = len(acked)


def wait_consumer_protocol_assignments(members, partitions, what, timeout=60):
    """KIP-848 groups have no common generation (each member has its own epoch): waits until
    the members' latest assignments are disjoint, cover `partitions` and are balanced. A
    partition is never reported by two members at once (the broker gives it to the next owner
    only after the previous one has revoked it), so an overlap fails at once."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        snap = [m.snapshot() for m in members]
        if all(snap):
            parts = [p for _, p in snap]
            summary = {m.name: sorted(p) for m, p in zip(members, parts)}
            union = set().union(*parts)
            check(sum(map(len, parts)) == len(union), f"{what}: assignments overlap: {summary}")
            sizes = sorted(map(len, parts))
            if union == set(range(partitions)) and sizes[-1] - sizes[0] <= 1:
                print(f"{what}: " + ", ".join(f"{m.name} (epoch {g}): {sorted(p)}"
                                               for m, (g, p) in zip(members, snap)))
                return
        time.sleep(0.1)
    raise Failure(f"{what}: no disjoint, complete, balanced assignment within {timeout}s: "
                  + "; ".join(f"{m.name}: {m.snapshot()} {m.output()[-2:]}" for m in members))


@case
def group_consumer_protocol_java(ctx):
    """KafkaConsumer members with group.protocol=consumer (KIP-848: ConsumerGroupHeartbeat and
    the broker's uniform assignor; one subscribed by a regular expression) join, leave cleanly
    and die: their assignments are always
    disjoint and end up covering the 6 partitions, every record is consumed, the group's
    offsets are committed (OffsetCommit with member epochs), and kafka-consumer-groups lists
    and describes it as a consumer group (ConsumerGroupDescribe)."""
    b = ctx.broker
    # Short sessions, so a killed member's partitions move within seconds.
    b.stop()
    b.overrides += ["group.consumer.session.timeout.ms=6000",
                    "group.consumer.heartbeat.interval.ms=1000"]
    b.start()
    create_topic(b.bootstrap, "kip848", 6)
    members = {}

    def start(name, *extra):
        members[name] = JavaMember(ctx, name, "cg", "kip848", "--prop", "group.protocol=consumer",
                                   *extra)
        return members[name]

    producer = BackgroundProducer(b.bootstrap, "kip848", 6)
    try:
        # m2 subscribes by a regular expression the broker resolves (SubscriptionPattern). It
        # has all six before m1 joins: a member that joins while a regex member is still
        # resolving its first assignment's topic id (a metadata request of the client's own)
        # can see that member's partitions briefly overlap its own - the Java client
        # acknowledges the resolved part (nothing) with owned=[] in a heartbeat, then takes the
        # unresolved rest of its stale target after the broker moved half of it elsewhere.
        # Kafka's CurrentAssignmentBuilder (ownsRevokedPartitions) releases them on such a
        # heartbeat just as seglog's does (seen once in CI: the records of __consumer_offsets
        # showed m2 at epoch 1 with 0-5, then at epoch 2 with 0-2 straight from STABLE).
        m2 = start("m2", "--subscription-pattern", "kip8[0-9]+")
        wait_consumer_protocol_assignments([m2], 6, "regex member alone")
        m1 = start("m1")
        wait_consumer_protocol_assignments([m1, m2], 6, "two members")
        m3 = start("m3")
        wait_consumer_protocol_assignments([m1, m2, m3], 6, "m3 joined")
        listed = groups_tool(b.bootstrap, "--list", "--type")
        check(any(l.split()[:2] == ["cg", "Consumer"] or l.split()[:2] == ["cg", "consumer"]
                  for l in listed.splitlines()), f"cg is not listed as a consumer group:\n{listed}")
        described = groups_tool(b.bootstrap, "--describe", "--members", "--group", "cg")
        check(described.count("m1") + described.count("m2") + described.count("m3") >= 3,
              f"--describe --members does not show the three members:\n{described}")

        m1.stop()  # KafkaConsumer.close(): a heartbeat with epoch -1
        wait_consumer_protocol_assignments([m2, m3], 6, "m1 left")
        killed = time.time()
        m3.kill()  # no goodbye: fenced when its 6 s session runs out
        wait_consumer_protocol_assignments([m2], 6, "m3 killed")
        waited = time.time() - killed
        check("fenced from the group because its session expired" in b.log(),
              "no session expiry in the broker's log")
        check(waited > 4, f"m3's partitions moved {waited:.1f}s after the kill, before its 6 s "
                          f"session timeout")
        print(f"m3's session expired and m2 took over {waited:.1f}s after the kill")

        acked = producer.stop()
        drain_and_check(members, acked)
        wait_group_caught_up(b.bootstrap, "cg", acked, 6, members_gone=False)
        m2.stop()
    finally:
        producer.stop_event.set()
        for m in members.values():
            m.ensure_gone()
    wait_group_caught_up(b.bootstrap, "cg", acked, 6, members_gone=True, timeout=10)
    ctx.expect_records = len(acked)


@case
def group_regex_internal_topic_java(ctx):
    """A KIP-848 KafkaConsumer whose SubscriptionPattern matches __consumer_offsets exactly,
    beside a plain topic: as Kafka 4.4.0 does, the broker resolves the expression against every
    topic, internal ones included, and assigns both (issue 25); the member reads the plain
    topic's records."""
    b = ctx.broker
    create_topic(b.bootstrap, "plain", 2)
    kcat("-b", b.bootstrap, "-P", "-t", "plain", input="\n".join(f"v{i}" for i in range(20)) + "\n")
    # __consumer_offsets exists once a group coordinator is found.
    kcat("-b", b.bootstrap, "-C", "-G", "warm", "plain", "-e", "-q", "-c", "1", timeout=60)
    p = run(java_helper("RegexMember", b.bootstrap, "rx", "plain|__consumer_offsets",
                        "plain,__consumer_offsets", "20"), timeout=120, ok=False)
    check(p.returncode == 0, f"RegexMember: {p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    assigned = next(l for l in p.stdout.splitlines() if l.startswith("assigned "))
    check("__consumer_offsets-0" in assigned and "plain-0" in assigned and "plain-1" in assigned,
          assigned)
    check("read 20" in p.stdout, p.stdout)
    ctx.expect_records = None


def regex_new_topic_run(bootstrap, label):
    """group_regex_new_topic_java's scenario against one broker (seglog's or Kafka's): a
    RegexMember on "rx-.*" gets rx-a, rx-b is created, the member gets it. Returns (seconds from
    rx-a to rx-b assigned, seconds from rx-b's creation to assigned)."""
    create_topic(bootstrap, "rx-a", 2)
    kcat("-b", bootstrap, "-P", "-t", "rx-a", input="\n".join(f"a{i}" for i in range(20)) + "\n")
    lines = []
    lock = threading.Lock()
    proc = subprocess.Popen(java_helper("RegexMember", bootstrap, "rxg", "rx-.*", "rx-a,rx-b",
                                        "20"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def read():
        for line in proc.stdout:
            with lock:
                lines.append((time.time(), line.rstrip("\n")))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait_line(pred, what, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with lock:
                hit = next(((t, l) for t, l in lines if pred(l)), None)
            if hit:
                return hit
            if proc.poll() is not None and not reader.is_alive():
                break
            time.sleep(0.05)
        with lock:
            seen = [l for _, l in lines]
        raise Failure(f"{label}: {what}: not within {timeout}s; the member printed {seen[-5:]}")

    try:
        got_a, line = wait_line(lambda l: l.startswith("assignment ") and "rx-a-0" in l
                                and "rx-a-1" in l, "rx-a assigned", 60)
        create_topic(bootstrap, "rx-b", 3)
        created = time.time()
        got_b, line = wait_line(lambda l: l.startswith("assigned "), "rx-b assigned", 45)
        check(all(f"rx-b-{i}" in line for i in range(3)) and "rx-a-0" in line, f"{label}: {line}")
        print(f"{label}: the member got rx-b {got_b - created:.1f}s after it was created, "
              f"{got_b - got_a:.1f}s after it got rx-a: {line}")
        proc.wait(timeout=60)
        check(proc.returncode == 0, f"{label}: RegexMember exited {proc.returncode}: "
                                    f"{proc.stderr.read()[-3000:]}")
        with lock:
            check(any(l == "read 20" for _, l in lines), [l for _, l in lines][-5:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return got_b - got_a, got_b - created


def resolutions_on_disk(data_dir):
    """The ConsumerGroupRegularExpression records (type 16) of rx-.* in data_dir's
    __consumer_offsets, as Kafka 4.4.0's --offsets-decoder prints them."""
    offsets = [os.path.join(data_dir, d) for d in os.listdir(data_dir)
               if d.startswith(OFFSETS_TOPIC + "-")]
    logs = [os.path.join(d, f) for d in offsets for f in sorted(os.listdir(d))
            if f.endswith(".log") and os.path.getsize(os.path.join(d, f)) > 0]
    p = kafka_tool("org.apache.kafka.tools.DumpLogSegments", "--files", ",".join(logs),
                   "--offsets-decoder")
    return [l for l in p.stdout.splitlines()
            if '"type":"16"' in l and '"regularExpression":"rx-.*"' in l]


@case
def group_regex_new_topic_java(ctx):
    """A KIP-848 KafkaConsumer subscribed with SubscriptionPattern("rx-.*") and a topic that
    matches created while it runs, against a default single-node Kafka 4.4.0 and then seglog:
    both resolve the expression apart from the heartbeats, at most once per 10 s, and again
    when topics were created; the resolution (a ConsumerGroupRegularExpression record, type
    16, that Kafka's own --offsets-decoder reads with both topics from either directory) moves
    the group epoch, and the member gets the new topic's partitions at a later heartbeat -
    never sooner than 5 s after it got the first topic's (the 10 s gap less one heartbeat
    interval), nor later than 30 s after the topic was created."""
    wd = os.path.join(ctx.ws.dir, "kafka")
    env = dict(os.environ, KAFKA_BROKER_PORT=str(free_port()),
               KAFKA_CONTROLLER_PORT=str(free_port()))
    run(["bash", KAFKA_BROKER_SH, "start", wd], env=env, timeout=300)
    try:
        runs = {"Kafka 4.4.0": regex_new_topic_run(f"127.0.0.1:{env['KAFKA_BROKER_PORT']}",
                                                   "Kafka 4.4.0")}
    finally:
        run(["bash", KAFKA_BROKER_SH, "stop", wd], env=env, timeout=120, ok=False)
    kafka_resolutions = resolutions_on_disk(os.path.join(wd, "data"))
    b = ctx.broker
    runs["seglog"] = regex_new_topic_run(b.bootstrap, "seglog")
    for label, (after_a, after_created) in runs.items():
        check(after_created <= 30, f"{label}: rx-b assigned {after_created:.1f}s after its "
                                   f"creation")
        check(after_a > 4.5, f"{label}: rx-b assigned {after_a:.1f}s after rx-a: sooner than "
                             f"10 s between two resolutions allows")
    check("after resolving its regular expressions" in b.log(),
          "no group epoch bump from a resolution in seglog's log")
    b.stop()
    ours = resolutions_on_disk(b.data_dir)
    b.start()
    for label, found in (("Kafka 4.4.0", kafka_resolutions), ("seglog", ours)):
        check(any('"topics":["rx-a","rx-b"]' in l for l in found),
              f"{label}: no type-16 record of rx-.* with both topics: {found[-3:]}")
        print(f"{label}: --offsets-decoder read {len(found)} record(s) of rx-.*")
    ctx.expect_records = None


@case
def group_migration_java(ctx):
    """A rolling upgrade and downgrade of Kafka 4.x (group.consumer.migration.policy's default
    bidirectional): two classic KafkaConsumers (one eager with the range assignor, one
    cooperative-sticky) form a group; a group.protocol=consumer member joins it and the group
    becomes a consumer group, the classic members carrying on inside it (JoinGroup/SyncGroup/
    Heartbeat served by the server-side assignor); the classic members are replaced one by one
    by consumer-protocol members; a classic member joins the consumer group; and when the last
    consumer-protocol member leaves, the group is a classic group again. At every step the
    assignments are disjoint and end up covering the 6 partitions, and every record is
    consumed and committed."""
    b = ctx.broker
    b.stop()
    b.overrides += ["group.consumer.session.timeout.ms=6000",
                    "group.consumer.heartbeat.interval.ms=1000"]
    b.start()
    create_topic(b.bootstrap, "migrate", 6)
    classic = ["--prop", "session.timeout.ms=6000", "--prop", "heartbeat.interval.ms=1000"]
    cooperative = ["--prop", "partition.assignment.strategy="
                             "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"]
    consumer = ["--prop", "group.protocol=consumer"]
    members = {}

    def start(name, *extra):
        members[name] = JavaMember(ctx, name, "mg", "migrate", *extra)
        return members[name]

    def listed_type():
        out = groups_tool(b.bootstrap, "--list", "--type")
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "mg":
                return f[1].lower() if len(f) > 1 else "?"
        return None

    def expect_type(t):
        check(listed_type() == t, f"mg is listed as {listed_type()}, not {t}")

    producer = BackgroundProducer(b.bootstrap, "migrate", 6)
    try:
        c1, c2 = start("c1", *classic), start("c2", *classic, *cooperative)
        wait_assignments([c1, c2], 6, 0, "two classic members", incremental=True)
        expect_type("classic")

        # Upgrade: a consumer-protocol member joins the live classic group.
        k1 = start("k1", *consumer)
        wait_consumer_protocol_assignments([c1, c2, k1], 6, "consumer member k1 joined")
        check("[GroupId mg] Converted the classic group to a consumer group." in b.log(),
              "no upgrade in the broker's log")
        expect_type("consumer")
        described = groups_tool(b.bootstrap, "--describe", "--members", "--group", "mg")
        check(all(n in described for n in ("c1", "c2", "k1")),
              f"--describe --members does not show the three members:\n{described}")

        # The rolling upgrade: classic members leave (LeaveGroup inside the consumer group),
        # consumer-protocol members take their place.
        c1_id = c1.member_id
        c1.stop()
        wait_consumer_protocol_assignments([c2, k1], 6, "classic member c1 left")
        check(f"Member {c1_id} has left group mg through explicit LeaveGroup request." in b.log(),
              "no LeaveGroup of c1 in the broker's log")
        k2 = start("k2", *consumer)
        wait_consumer_protocol_assignments([c2, k1, k2], 6, "consumer member k2 joined")
        c2.stop()
        wait_consumer_protocol_assignments([k1, k2], 6, "classic member c2 left")
        expect_type("consumer")

        # A classic member joins the consumer group, then the consumer-protocol members leave:
        # the last one's leave makes it a classic group again.
        c3 = start("c3", *classic)
        wait_consumer_protocol_assignments([k1, k2, c3], 6, "classic member c3 joined")
        k1.stop()
        wait_consumer_protocol_assignments([k2, c3], 6, "consumer member k1 left")
        gen = c3.snapshot()[0]
        k2.stop()
        wait_assignments([c3], 6, gen, "consumer member k2 left")
        check("Converted the consumer group to a classic group" in b.log(),
              "no downgrade in the broker's log")
        expect_type("classic")

        acked = producer.stop()
        drain_and_check(members, acked)
        wait_group_caught_up(b.bootstrap, "mg", acked, 6, members_gone=False)
        c3.stop()
    finally:
        producer.stop_event.set()
        for m in members.values():
            m.ensure_gone()
    wait_group_caught_up(b.bootstrap, "mg", acked, 6, members_gone=True, timeout=10)
    ctx.expect_records = len(acked)


@case
def group_cooperative_static_java(ctx):
    """KafkaConsumer members with the CooperativeStickyAssignor (incremental rebalances) and a
    static member (KIP-345): a restarted static member takes its place back without a
    rebalance; a closed one leaves no LeaveGroup, so its partitions move at its session
    timeout."""
    b = ctx.broker
    create_topic(b.bootstrap, "coop", 6)
    props = ["--prop", "session.timeout.ms=6000", "--prop", "heartbeat.interval.ms=1000",
             "--prop", "partition.assignment.strategy="
                       "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"]
    members = {}

    def start(name, *extra):
        members[name] = JavaMember(ctx, name, "cg", "coop", *props, *extra)
        return members[name]

    producer = BackgroundProducer(b.bootstrap, "coop", 6)
    try:
        a, c = start("a"), start("c")
        gen = wait_assignments([a, c], 6, 0, "two members", incremental=True)
        before = {m.name: m.snapshot()[1] for m in (a, c)}
        s1 = start("s1", "--prop", "group.instance.id=static-1")
        gen = wait_assignments([a, c, s1], 6, gen, "static member joined", incremental=True)
        # Sticky and incremental: the members already there only gave partitions up.
        for m in (a, c):
            check(m.snapshot()[1] <= before[m.name],
                  f"{m.name} went from {sorted(before[m.name])} to {sorted(m.snapshot()[1])}")
        check(not any(l.startswith("lost") for m in (a, c) for l in m.output()),
              "a member lost its partitions")

        # SIGKILL the static member and start it again with the same group.instance.id: the
        # coordinator gives the new incarnation the old one's place, generation and partitions.
        owned = s1.snapshot()[1]
        s1.kill()
        s2 = start("s2", "--prop", "group.instance.id=static-1")
        same = wait_assignments([a, c, s2], 6, gen - 1, "static member restarted",
                                incremental=True)
        check(same == gen and s2.snapshot()[1] == owned,
              f"the restarted static member got generation {same} {sorted(s2.snapshot()[1])}, "
              f"not {gen} {sorted(owned)}")
        check(s2.member_id != s1.member_id and s2.member_id.startswith("static-1-"),
              f"member ids {s1.member_id} -> {s2.member_id}")

        # close() of a static member sends no LeaveGroup: the others take over only when the
        # coordinator expires its session.
        stopped = time.time()
        s2.stop()
        gen = wait_assignments([a, c], 6, gen, "static member closed", incremental=True)
        waited = time.time() - stopped
        check(f"Member {s2.member_id} in group cg has failed, removing it from the group."
              in b.log(), "no session expiry of the static member in the broker's log")
        check(f"Member {s2.member_id} has left group" not in b.log(),
              "the static member sent a LeaveGroup")
        check(waited > 4, f"the static member's partitions moved {waited:.1f}s after it closed")
        print(f"the static member's session expired {waited:.1f}s after it closed")
        acked = producer.stop()
        drain_and_check(members, acked)
        wait_group_caught_up(b.bootstrap, "cg", acked, 6, members_gone=False)
        a.stop()
        c.stop()
    finally:
        producer.stop_event.set()
        for m in members.values():
            m.ensure_gone()
    wait_group_caught_up(b.bootstrap, "cg", acked, 6, members_gone=True, timeout=0)
    ctx.expect_records = len(acked)


def confluent_produce(bootstrap, topic, values, partitions):
    """values[i] to partition i % partitions, acks=all; returns {(partition, offset): value}."""
    from confluent_kafka import Producer
    acked, errors = {}, []

    def on_delivery(err, msg):
        if err:
            errors.append(err)
        else:
            acked[(msg.partition(), msg.offset())] = msg.value().decode()

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for i, v in enumerate(values):
        p.produce(topic, value=v.encode(), partition=i % partitions, on_delivery=on_delivery)
    check(p.flush(30) == 0 and not errors and len(acked) == len(values),
          f"{len(acked)} of {len(values)} acknowledged: {errors[:3]}")
    return acked


@case
def offsets_survive_restart(ctx):
    """Committed offsets are records of __consumer_offsets: a clean restart and a SIGKILL both
    load them back, and a consumer resumes exactly where the group left off."""
    b = ctx.broker
    create_topic(b.bootstrap, "resume", 3)
    values = [f"resume-{i}" for i in range(60)]
    confluent_produce(b.bootstrap, "resume", values, 3)
    # One record per poll, so the offsets committed on close are those of the 25 printed.
    rows = console_consume(b.bootstrap, "resume", "g2", "--from-beginning", "--max-messages", "25",
                           "--command-property", "max.poll.records=1")
    check(len(rows) == 25 and len({v for *_, v in rows}) == 25, f"first run read {rows[:3]}")
    consumed = {v for *_, v in rows}
    committed = {p: 0 for p in range(3)}
    for p, o, _, _ in rows:
        committed[p] = max(committed[p], o + 1)
    offsets, out = describe_offsets(b.bootstrap, "g2")
    check(offsets == {p: (committed[p], 20, 20 - committed[p], "-") for p in range(3)},
          f"describe before the restarts (expected {committed}):\n{out}")

    b.stop()
    b.start()
    after, out = describe_offsets(b.bootstrap, "g2")
    check(after == offsets, f"after a clean restart:\n{out}")

    # A KafkaConsumer member commits 10 more (exactly: it commits what it printed), then the
    # broker is SIGKILLed: the last commits are in the log, not in a clean shutdown's files.
    m = JavaMember(ctx, "resumer", "g2", "resume", "--max-records", "10")
    try:
        rc = m.proc.wait(timeout=60)
    finally:
        m.ensure_gone()
    m.reader.join(10)
    check(rc == 0 and m.output()[-1:] == ["closed max-records"],
          f"GroupMember exited {rc}: {m.output()[-3:]}\n{m.stderr()}")
    check(len(m.records) == 10, f"the member read {len(m.records)} records")
    for p, o, v in m.records:
        check(o >= committed[p] and v not in consumed, f"the member reread {v} at {p}/{o}")
        consumed.add(v)
        committed[p] = max(committed[p], o + 1)
    b.kill()
    b.start()
    offsets, out = describe_offsets(b.bootstrap, "g2")
    check(offsets == {p: (committed[p], 20, 20 - committed[p], "-") for p in range(3)},
          f"after a SIGKILL and a restart (expected {committed}):\n{out}")
    check(re.search(r"Finished loading of metadata from __consumer_offsets-\d+ in \d+ ms: "
                    r"\d+ records, 1 groups", b.log()), "no load of g2 in the broker's log")

    # The group resumes at its committed offsets: exactly the 25 records nobody read yet.
    rows = console_consume(b.bootstrap, "resume", "g2", "--max-messages", "25")
    check(sorted(v for *_, v in rows) == sorted(set(values) - consumed),
          f"resumed with {len(rows)} records, first {rows[:3]}")
    check(all(o >= committed[p] for p, o, _, _ in rows), f"resumed before the commit: {rows[:3]}")
    offsets, out = describe_offsets(b.bootstrap, "g2")
    check(offsets == {p: (20, 20, 0, "-") for p in range(3)}, f"at the end:\n{out}")
    ctx.expect_records = len(values)


def group_resume_check(ctx, topic, group, read_some, read_rest, what):
    """The shared shape of the Python clients' group tests: 100 records over 4 partitions; a
    consumer of `group` reads 40 and commits them; after it closes, a second one in the same
    group reads exactly the other 60. read_some(n) / read_rest(n) return [(partition, offset,
    value)]."""
    values = [f"{what}-{i}" for i in range(100)]
    acked = confluent_produce(ctx.broker.bootstrap, topic, values, 4)
    first = read_some(40)
    check(len(first) == 40, f"{what}: the first consumer read {len(first)} records")
    rest = read_rest(60)
    for p, o, v in first + rest:
        check(acked.get((p, o)) == v,
              f"{what}: read {v!r} at {p}/{o}, produced {acked.get((p, o))!r}")
    seen = [v for _, _, v in first + rest]
    check(sorted(seen) == sorted(values),
          f"{what}: the second consumer read {len(rest)} records, "
          f"{len(seen) - len(set(seen))} of them again; first {rest[:3]}")
    offsets, out = describe_offsets(ctx.broker.bootstrap, group)
    check(offsets == {p: (25, 25, 0, "-") for p in range(4)}, f"{what}: describe:\n{out}")
    ctx.expect_records = len(values)


@case
def confluent_kafka_group_consumer(ctx):
    """librdkafka's consumer group: subscribe, commit, close; the next member resumes."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    b = ctx.broker
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("ckg", num_partitions=4)])["ckg"].result(30)

    def consumer():
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "ck-group",
                      "auto.offset.reset": "earliest", "enable.auto.commit": False,
                      "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000})
        c.subscribe(["ckg"])
        return c

    def read(c, n, linger):
        """n records (a poll returns one), then `linger` seconds more to catch extras."""
        got = []
        deadline = time.time() + 40
        extra_until = None
        while time.time() < deadline and (extra_until is None or time.time() < extra_until):
            m = c.poll(0.5)
            if m is None:
                continue
            check(not m.error(), f"consumer error {m.error()}")
            got.append((m.partition(), m.offset(), m.value().decode()))
            if len(got) == n and extra_until is None:
                extra_until = time.time() + linger
                if linger == 0:
                    break
        return got

    def read_some(n):
        c = consumer()
        got = read(c, n, 0)
        done = c.commit(asynchronous=False)  # the stored offsets: one past each record read
        want = {}
        for p, o, _ in got:
            want[p] = max(want.get(p, 0), o + 1)
        # (partitions it has read nothing of are listed with librdkafka's OFFSET_INVALID)
        check({tp.partition: tp.offset for tp in done if tp.offset >= 0} == want,
              f"commit: {done} vs {want}")
        check(all(tp.error is None for tp in done), f"commit errors: {done}")
        fetched = c.committed([TopicPartition("ckg", p) for p in range(4)], timeout=10)
        check({tp.partition: tp.offset for tp in fetched if tp.offset >= 0} == want,
              f"committed(): {fetched} vs {want}")
        c.close()  # LeaveGroup
        return got

    def read_rest(n):
        c = consumer()
        got = read(c, n, 2)
        c.commit(asynchronous=False)
        desc = admin.describe_consumer_groups(["ck-group"])["ck-group"].result(30)
        check(str(desc.state).endswith("STABLE") and len(desc.members) == 1 and
              sorted(tp.partition for tp in desc.members[0].assignment.topic_partitions) ==
              [0, 1, 2, 3], f"describe_consumer_groups with a member: {desc}")
        c.close()
        return got

    group_resume_check(ctx, "ckg", "ck-group", read_some, read_rest, "confluent")
    # librdkafka's admin sees the group and its offsets too.
    listed = admin.list_consumer_groups().result(30)
    check([g.group_id for g in listed.valid] == ["ck-group"],
          f"list_consumer_groups: {listed.valid}")
    desc = admin.describe_consumer_groups(["ck-group"])["ck-group"].result(30)
    check(str(desc.state).endswith("EMPTY") and desc.members == [], f"describe: {desc}")


@case
def kafka_python_group_consumer(ctx):
    """kafka-python's consumer group: subscribe, commit, close; the next member resumes."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    b = ctx.broker
    admin = KafkaAdminClient(bootstrap_servers=b.bootstrap)
    admin.create_topics([NewTopic("kpg", num_partitions=4, replication_factor=1)])

    def consumer():
        c = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id="kp-group",
                          auto_offset_reset="earliest", enable_auto_commit=False,
                          session_timeout_ms=6000, heartbeat_interval_ms=1000,
                          max_poll_records=1)
        c.subscribe(["kpg"])
        return c

    def read(c, n, linger):
        got = []
        deadline = time.time() + 40
        extra_until = None
        while time.time() < deadline and (extra_until is None or time.time() < extra_until):
            for recs in c.poll(timeout_ms=500).values():
                for r in recs:
                    got.append((r.partition, r.offset, r.value.decode()))
            if len(got) >= n and extra_until is None:
                extra_until = time.time() + linger
                if linger == 0:
                    break
        return got

    def read_some(n):
        c = consumer()
        got = read(c, n, 0)
        c.commit()  # the positions: one past each record returned, 0 where none was
        want = {p: 0 for p in range(4)}
        for p, o, _ in got:
            want[p] = max(want[p], o + 1)
        fetched = {p: c.committed(TopicPartition("kpg", p)) for p in range(4)}
        check(all(fetched[p] == want[p] or (fetched[p] is None and want[p] == 0)
                  for p in range(4)), f"committed(): {fetched} vs {want}")
        c.close()  # LeaveGroup
        return got

    def read_rest(n):
        c = consumer()
        got = read(c, n, 2)
        c.commit()
        # The member as DescribeGroups shows it: kafka-python decodes its subscription and
        # assignment (ConsumerProtocol) from the bytes the coordinator kept.
        desc = admin.describe_groups(["kp-group"])["kp-group"]
        members = desc["members"]
        check(desc["group_state"] == "Stable" and desc["protocol_data"] == "range" and
              len(members) == 1, f"describe_groups: {desc}")
        check(members[0]["member_metadata"]["topics"] == ["kpg"] and
              [(t["topic"], sorted(t["partitions"]))
               for t in members[0]["member_assignment"]["assigned_partitions"]] ==
              [("kpg", [0, 1, 2, 3])], f"describe_groups member: {members[0]}")
        c.close()
        return got

    group_resume_check(ctx, "kpg", "kp-group", read_some, read_rest, "kafka-python")
    groups = admin.list_groups()
    check(groups == [{"group_id": "kp-group", "protocol_type": "consumer", "group_state": "Empty",
                      "group_type": "classic"}], f"list_groups: {groups}")
    offsets = admin.list_group_offsets({"kp-group": None})["kp-group"]
    check({tp: om.offset for tp, om in offsets.items()} ==
          {TopicPartition("kpg", p): 25 for p in range(4)}, f"list_group_offsets: {offsets}")
    deleted = admin.delete_groups(["kp-group"])
    check(deleted == {"kp-group": "OK"}, f"delete_groups: {deleted}")
    groups = admin.list_groups()
    check(groups == [], f"list_groups after delete_groups: {groups}")
    admin.close()


# ----------------------------------------------------------------------------------------------
# Transactions: KafkaProducer with a transactional.id (java/TxnProducer.java), read_committed
# and read_uncommitted readers (java/TxnReader.java, librdkafka), fencing, offsets committed in
# transactions (java/TxnCopyLoop.java, librdkafka), Kafka's TransactionalMessageCopier across
# broker crashes, and Kafka Streams with exactly_once_v2 (java/streams/WordCountEos.java).
# Without a finalized transaction.version feature in ApiVersions the 4.4.0 clients use the
# transaction protocol v1: InitProducerId, AddPartitionsToTxn (v3 at most), AddOffsetsToTxn,
# TxnOffsetCommit (v4 at most), EndTxn (v4 at most), Produce (v11 at most in a transaction).


# The coordinator's scan for transactions past their transaction.timeout.ms (Kafka's default:
# every 10 s), so that a timed-out transaction is aborted within a second of its timeout.
TXN_ABORT_SCAN = "transaction.abort.timed.out.transaction.cleanup.interval.ms=1000"


def restart_with(broker, *overrides):
    """A clean restart with more settings (the case's broker started with the defaults)."""
    broker.stop()
    broker.overrides += list(overrides)
    broker.start()


class JavaProgram:
    """One of java/'s programs (or a Kafka tool) in the background: a reader thread collects
    its stdout lines; stdin stays open for the program to wait on."""

    def __init__(self, ctx, name, command):
        self.name = name
        self.out = open(os.path.join(ctx.ws.dir, f"{name}.out"), "a")
        self.err_path = os.path.join(ctx.ws.dir, f"{name}.err")
        self.err = open(self.err_path, "a")
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True)
        self.cond = threading.Condition()
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.out.write(line)
            self.out.flush()
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def output(self):
        with self.cond:
            return list(self.lines)

    def wait_line(self, pred, timeout, what):
        """The first line for which pred(line) holds (waiting up to `timeout` seconds)."""
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if pred(line):
                        return line
                left = deadline - time.time()
                if left <= 0 or (self.proc.poll() is not None and not self.reader.is_alive()):
                    raise Failure(f"{self.name}: no {what} within {timeout}s (exit "
                                  f"{self.proc.poll()}): {self.lines[-5:]}\n{self.stderr()}")
                self.cond.wait(min(left, 0.5))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout):
        """Closes stdin and waits for the program's exit; its lines."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
            raise Failure(f"{self.name} did not exit within {timeout}s: {self.output()[-5:]}")
        self.reader.join(10)
        self.err.close()
        return rc, self.output()

    def stderr(self):
        try:
            with open(self.err_path) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def ensure_gone(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def parse_txn_producer(lines):
    """TxnProducer's lines: ({txn: [(partition, offset, value)]}, {txn: outcome line})."""
    records, outcomes = {}, {}
    for line in lines:
        f = line.split(" ", 4)
        if f[0] == "record":
            records.setdefault(int(f[1]), []).append((int(f[2]), int(f[3]), f[4]))
        elif f[0] in ("committed", "aborted", "open", "commit-failed", "failed"):
            outcomes[int(f[1])] = line
    return records, outcomes


def txn_producer(ctx, topic, txn_id, pattern, *extra, timeout=90):
    """Runs TxnProducer to its end; checks each transaction had the outcome of its letter of
    `pattern` (c: committed, a: aborted) with its records acknowledged. Returns (committed
    [(partition, offset, value)], aborted [...])."""
    p = run(java_helper("TxnProducer", ctx.broker.bootstrap, topic, txn_id, pattern, *extra),
            timeout=timeout)
    lines = p.stdout.splitlines()
    records, outcomes = parse_txn_producer(lines)
    want = {"c": "committed", "a": "aborted"}
    for t, c in enumerate(pattern):
        check(outcomes.get(t, "").split(" ")[0] == want[c],
              f"{txn_id}: transaction {t} ({want[c]}?): {outcomes.get(t)}\n{lines[-5:]}\n"
              f"{p.stderr[-2000:]}")
    check(lines[-1:] == ["closed"], f"{txn_id}: {lines[-3:]}")
    committed = [r for t, c in enumerate(pattern) if c == "c" for r in records[t]]
    aborted = [r for t, c in enumerate(pattern) if c == "a" for r in records[t]]
    print(f"{txn_id}: {pattern.count('c')} transactions committed ({len(committed)} records), "
          f"{pattern.count('a')} aborted ({len(aborted)} records)")
    return committed, aborted


def java_read(ctx, topic, isolation, timeout=60):
    """TxnReader from the beginning to the end offsets (read_committed: the last stable offsets):
    ([(partition, offset, value)], {partition: end offset})."""
    p = run(java_helper("TxnReader", ctx.broker.bootstrap, topic, isolation), timeout=timeout)
    rows, ends = [], None
    lines = p.stdout.splitlines()
    for line in lines:
        f = line.split(" ", 3)
        if f[0] == "record":
            rows.append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "end":
            ends = {int(k): int(v) for k, v in (kv.split("=") for kv in f[1].split(","))}
    check(lines[-1:] == ["done"], f"TxnReader {topic} {isolation}: {lines[-3:]}\n"
                                  f"{p.stderr[-2000:]}")
    return rows, ends


def check_exactly(rows, expected, what):
    """The rows read are exactly the expected (partition, offset, value)s, each once."""
    got = sorted(rows)
    want = sorted(expected)
    if got != want:
        extra = sorted(set(got) - set(want))
        missing = sorted(set(want) - set(got))
        raise Failure(f"{what}: read {len(got)} records, expected {len(want)}: extra {extra[:5]}, "
                      f"missing {missing[:5]}, {len(got) - len(set(got))} twice")


def log_end(rows_by_txn_end):
    """{partition: the offset after the marker that follows each partition's last record}."""
    ends = {}
    for p, o, _ in rows_by_txn_end:
        ends[p] = max(ends.get(p, 0), o + 2)
    return ends


def confluent_read(bootstrap, topic, partitions, isolation, timeout=40, value=None):
    """librdkafka from the beginning of each partition to its end (read_committed: the last
    stable offset; librdkafka's partition EOF): [(partition, offset, key, value)]."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition, OFFSET_BEGINNING
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-reader",
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "isolation.level": isolation})
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    rows, at_end = [], set()
    deadline = time.time() + timeout
    try:
        while time.time() < deadline and len(at_end) < partitions:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                check(m.error().code() == KafkaError._PARTITION_EOF, f"consumer error {m.error()}")
                at_end.add(m.partition())
                continue
            at_end.discard(m.partition())
            key = m.key().decode() if m.key() is not None else None
            rows.append((m.partition(), m.offset(), key,
                         value(m.value()) if value else m.value().decode()))
    finally:
        c.close()
    check(len(at_end) == partitions, f"{topic} {isolation}: the end of only partitions "
                                     f"{sorted(at_end)} within {timeout}s")
    return rows


@case
def transactions_java(ctx):
    """KafkaProducer transactions committed and aborted: read_committed readers get exactly the
    committed records, read_uncommitted ones all of them; an open transaction holds the last
    stable offset (read_committed readers stop before it, later records too) until the
    coordinator aborts it at its transaction.timeout.ms and fences its producer."""
    b = ctx.broker
    restart_with(b, TXN_ABORT_SCAN)
    create_topic(b.bootstrap, "txn", 3)
    pattern = "ccaccaccac"  # every third transaction aborted
    committed, aborted = txn_producer(ctx, "txn", "txn-a", pattern)
    everything = committed + aborted
    rows, ends = java_read(ctx, "txn", "read_committed")
    check_exactly(rows, committed, "read_committed")
    check(ends == log_end(everything), f"read_committed end offsets {ends}, expected the log "
                                       f"ends {log_end(everything)} (no open transaction)")
    rows, ends = java_read(ctx, "txn", "read_uncommitted")
    check_exactly(rows, everything, "read_uncommitted")

    # An open transaction: its records are in the log, it is neither committed nor aborted.
    timeout_s = 20
    opener = JavaProgram(ctx, "txn-open", java_helper(
        "TxnProducer", b.bootstrap, "txn", "txn-open", "o", "--prefix", "open",
        "--prop", f"transaction.timeout.ms={timeout_s * 1000}"))
    try:
        opener.wait_line(lambda l: l == "open 0", 60, "open transaction")
        opened = time.time()
        open_records, _ = parse_txn_producer(opener.output())
        open_records = open_records[0]
        first_open = {}
        for p, o, _ in open_records:
            first_open[p] = min(first_open.get(p, o), o)
        check(sorted(first_open) == [0, 1, 2], f"open transaction's records: {open_records}")

        # Records committed after it (librdkafka's transactional producer: fast to start).
        from confluent_kafka import Producer
        later = []
        lp = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "txn-later",
                       "linger.ms": 5})
        lp.init_transactions(30)
        lp.begin_transaction()
        for j in range(6):
            lp.produce("txn", value=f"later-{j}".encode(), partition=j % 3,
                       on_delivery=lambda err, m: later.append(
                           (m.partition(), m.offset(), m.value().decode())) if not err else None)
        check(lp.flush(30) == 0, "the later records were not sent")
        lp.commit_transaction(30)
        check(len(later) == 6, f"later records acknowledged: {later}")

        # Held at the last stable offset: the open transaction's first offset of each partition.
        rows, ends = java_read(ctx, "txn", "read_committed")
        ck_rows = confluent_read(b.bootstrap, "txn", 3, "read_committed")
        blocked_read = time.time() - opened
        check(blocked_read < timeout_s - 1,
              f"the read_committed reads took until {blocked_read:.1f}s after the transaction "
              f"opened: too slow to judge the last stable offset before its {timeout_s}s timeout")
        check_exactly(rows, committed, "read_committed beside an open transaction")
        check(ends == first_open, f"read_committed end offsets {ends} beside an open transaction,"
                                  f" expected its first offsets {first_open}")
        check_exactly([(p, o, v) for p, o, _, v in ck_rows], committed,
                      "librdkafka read_committed beside an open transaction")
        print(f"read_committed readers stopped at the open transaction's first offsets "
              f"{first_open} ({blocked_read:.1f}s after it opened)")

        # The coordinator aborts it at its timeout: the later records become readable.
        deadline = opened + timeout_s + 30
        while True:
            rows = confluent_read(b.bootstrap, "txn", 3, "read_committed")
            values = {v for *_, v in rows}
            if all(v in values for *_, v in later):
                break
            check(time.time() < deadline, f"the open transaction was not aborted within "
                                          f"{timeout_s + 30}s: read_committed has "
                                          f"{len(rows)} records")
            time.sleep(0.5)
        waited = time.time() - opened
        check(waited > timeout_s - 5, f"the open transaction was aborted {waited:.1f}s after it "
                                      f"opened, before its {timeout_s}s timeout")
        print(f"the open transaction was aborted {waited:.1f}s after it opened "
              f"(transaction.timeout.ms={timeout_s * 1000})")

        # Its commit fails: Kafka bumps the producer's epoch when it aborts a timed-out
        # transaction, and answers the old epoch's EndTxn with PRODUCER_FENCED in the
        # transaction protocol v1 (ProducerFencedException); in v2 (a finalized
        # transaction.version 2) Kafka 4.4.0 answers INVALID_TXN_STATE.
        opener.send("commit")
        line = opener.wait_line(lambda l: l.split(" ")[:2] in (["commit-failed", "0"],
                                                                ["committed", "0"],
                                                                ["failed", "0"]),
                                60, "outcome of the commit")
        check(line.startswith("commit-failed 0 ") and
              re.search(r"(ProducerFenced|InvalidTxnState)Exception", line),
              f"the timed-out transaction's commit: {line}")
        print(f"the timed-out transaction's producer: {line[:200]}")
        rc, lines = opener.finish(30)
        check(lines[-1:] == ["closed"], f"txn-open: {lines[-3:]}")
    finally:
        opener.ensure_gone()
    rows, ends = java_read(ctx, "txn", "read_committed")
    check_exactly(rows, committed + later, "read_committed after the abort")
    rows, high = java_read(ctx, "txn", "read_uncommitted")
    check_exactly(rows, everything + open_records + later, "read_uncommitted after the abort")
    # No transaction open: the last stable offsets are the high watermarks (past the later
    # transaction's commit marker and the open one's abort marker, in either order).
    check(ends == high and all(high[p] >= e + 1 for p, e in
                               log_end(everything + open_records + later).items()),
          f"read_committed end offsets {ends} after the abort, high watermarks {high}")
    ctx.expect_records = len(everything + open_records + later)


@case
def transactions_zombie_fencing_java(ctx):
    """Two KafkaProducers with one transactional.id: the second's initTransactions aborts the
    first's open transaction and fences it; the first's commit fails with
    ProducerFencedException, and nothing of its fenced transaction is read_committed."""
    b = ctx.broker
    create_topic(b.bootstrap, "fence", 3)
    zombie = JavaProgram(ctx, "zombie", java_helper(
        "TxnProducer", b.bootstrap, "fence", "fenced-id", "co", "--prefix", "zombie"))
    try:
        zombie.wait_line(lambda l: l == "open 1", 60, "open transaction")
        z_records, z_outcomes = parse_txn_producer(zombie.output())
        check(z_outcomes[0] == "committed 0", f"the first producer's first transaction: "
                                              f"{z_outcomes}")
        # The second producer: its initTransactions fences the first (whose transaction is
        # still open), then it commits two transactions of its own.
        committed, _ = txn_producer(ctx, "fence", "fenced-id", "cc", "--prefix", "successor")
        rows, ends = java_read(ctx, "fence", "read_committed")
        check_exactly(rows, z_records[0] + committed, "read_committed after the fencing")
        zombie.send("commit")
        line = zombie.wait_line(lambda l: l.split(" ")[:2] in (["commit-failed", "1"],
                                                                ["committed", "1"],
                                                                ["failed", "1"]),
                                60, "outcome of the fenced producer's commit")
        check(line.startswith("commit-failed 1 ") and "ProducerFencedException" in line,
              f"the fenced producer's commit: {line}")
        print(f"the fenced producer: {line[:300]}")
        rc, lines = zombie.finish(30)
        check(lines[-1:] == ["closed"], f"zombie: {lines[-3:]}")
    finally:
        zombie.ensure_gone()
    everything = z_records[0] + z_records[1] + committed
    rows, ends = java_read(ctx, "fence", "read_committed")
    check_exactly(rows, z_records[0] + committed, "read_committed")
    check(ends == log_end(everything), f"end offsets {ends}: an open transaction is left")
    rows, _ = java_read(ctx, "fence", "read_uncommitted")
    check_exactly(rows, everything, "read_uncommitted")
    ctx.expect_records = len(everything)


def parse_offsets(s):
    return {} if s == "-" else {int(k): int(v) for k, v in (kv.split("=") for kv in s.split(","))}


@case
def transactions_sendoffsets_java(ctx):
    """A consume-transform-produce loop (KafkaConsumer read_committed in a group, a
    transactional KafkaProducer, sendOffsetsToTransaction with the group's metadata), every
    third transaction aborted: the group's offsets never show an aborted transaction's, end at
    what was copied, and the output has each input record exactly once read_committed."""
    b = ctx.broker
    create_topic(b.bootstrap, "copy-in", 3)
    create_topic(b.bootstrap, "copy-out", 3)
    n = 450
    acked = confluent_produce(b.bootstrap, "copy-in", [f"in-{i}" for i in range(n)], 3)
    p = run(java_helper("TxnCopyLoop", b.bootstrap, "copy-in", "copy-out", "copy-group",
                        "copy-txn", "--records", str(n), "--abort-every", "3"), timeout=150)
    lines = p.stdout.splitlines()
    check(lines[-2:] == [f"done {n}", "closed"], f"TxnCopyLoop: {lines[-3:]}\n{p.stderr[-2000:]}")
    by_txn = {}
    committed_inputs, aborted_inputs = [], []
    group_offsets = {}   # what the committed transactions committed so far
    aborts = 0
    for line in lines:
        f = line.split(" ", 4)
        if f[0] == "record":
            by_txn.setdefault(int(f[1]), []).append((int(f[2]), int(f[3]), f[4]))
        elif f[0] == "committed":
            committed_inputs += by_txn.get(int(f[1]), [])
            group_offsets.update(parse_offsets(f[2]))
            check(all(acked.get((pp, o - 1)) is not None for pp, o in parse_offsets(f[2]).items()),
                  f"transaction {f[1]} committed offsets past the input: {line}")
        elif f[0] == "aborted":
            aborted_inputs += by_txn.get(int(f[1]), [])
            aborts += 1
        elif f[0] == "group-offsets":
            got = parse_offsets(f[2])
            check(got == group_offsets, f"after aborting transaction {f[1]} the group's offsets "
                                        f"are {got}, not those committed before {group_offsets}")
    check(aborts >= 1, "no transaction was aborted")
    check(sorted((pp, o, v) for pp, o, v in committed_inputs) ==
          sorted((pp, o, v) for (pp, o), v in acked.items()),
          f"the committed transactions copied {len(committed_inputs)} input records, not the "
          f"{n} each once")
    ends = {pp: 0 for pp in range(3)}
    for pp, o in acked:
        ends[pp] = max(ends[pp], o + 1)
    offsets, out = describe_offsets(b.bootstrap, "copy-group")
    check(offsets == {pp: (e, e, 0, "-") for pp, e in ends.items()}, f"describe:\n{out}")
    rows, _ = java_read(ctx, "copy-out", "read_committed")
    check(sorted((pp, v) for pp, _, v in rows) ==
          sorted((pp, "copy:" + v) for (pp, _), v in acked.items()),
          f"copy-out read_committed: {len(rows)} records, {len(rows) - len(set(rows))} twice, "
          f"expected the {n} copies each once in the input's partition")
    rows_all, _ = java_read(ctx, "copy-out", "read_uncommitted")
    check(len(rows_all) == n + len(aborted_inputs),
          f"copy-out read_uncommitted: {len(rows_all)} records, expected {n} committed and "
          f"{len(aborted_inputs)} aborted")
    print(f"{n} records copied in committed transactions, {len(aborted_inputs)} in {aborts} "
          f"aborted ones")
    ctx.expect_records = n + len(rows_all)


COPIER = "org.apache.kafka.tools.TransactionalMessageCopier"


@case
def transactional_message_copier_crash(ctx):
    """Kafka's TransactionalMessageCopier (one per input partition, the system test's setup)
    copies a topic exactly once while the broker is SIGKILLed and restarted twice; a copier
    that exits on an error is started again with its transactional id, and resumes at its
    group's committed offset. The output, read_committed, has every input record exactly
    once, and the group's offsets are at the input's end."""
    import json
    b = ctx.broker
    partitions, per_partition = 2, 6000
    create_topic(b.bootstrap, "copier-in", partitions)
    create_topic(b.bootstrap, "copier-out", partitions)
    values = [f"v{i}" for i in range(partitions * per_partition)]
    acked = confluent_produce(b.bootstrap, "copier-in", values, partitions)
    total = len(values)
    copiers, remaining, runs = {}, {}, {p: 0 for p in range(partitions)}
    done = set()

    def start(p):
        runs[p] += 1
        copiers[p] = JavaProgram(ctx, f"copier-{p}", [
            ORACLE, "kafka-class", COPIER, "--broker-list", b.bootstrap,
            "--input-topic", "copier-in", "--input-partition", str(p),
            "--output-topic", "copier-out", "--transactional-id", f"copier-{p}",
            "--consumer-group", "copier-group", "--transaction-size", "25",
            "--transaction-timeout", "20000"])

    def progress():
        """Records copied in committed transactions; restarts a copier that exited early."""
        for p, c in copiers.items():
            for line in c.output()[-20:]:
                if line.startswith("{"):
                    try:
                        remaining[p] = min(json.loads(line)["remaining"], per_partition)
                    except (ValueError, KeyError):
                        pass
            if p in done or c.proc.poll() is None:
                continue
            c.reader.join(10)
            if c.proc.returncode == 0:
                done.add(p)
                remaining[p] = 0
            else:
                check(runs[p] < 6, f"copier-{p} failed {runs[p]} times:\n{c.stderr()}")
                print(f"copier-{p} exited {c.proc.returncode}; starting it again: "
                      f"{c.stderr()[-300:]!r}")
                start(p)
        return total - sum(remaining.get(p, per_partition) for p in range(partitions))

    def wait_progress(fraction, timeout):
        deadline = time.time() + timeout
        while progress() < fraction * total:
            check(time.time() < deadline, f"the copiers copied {progress()} of {total} records "
                                          f"in {timeout}s")
            time.sleep(0.1)

    try:
        for p in range(partitions):
            start(p)
        kills = 0
        for fraction in (0.15, 0.5):
            wait_progress(fraction, 90)
            if len(done) == partitions:
                break
            b.kill()
            kills += 1
            print(f"SIGKILLed the broker with {progress()} of {total} records copied")
            time.sleep(0.5)
            b.start(timeout=60)
        check(kills == 2, f"the copiers finished after {kills} kill(s) of the broker: too fast "
                          f"to test the crashes (more records, smaller transactions)")
        deadline = time.time() + 120
        while len(done) < partitions:
            progress()
            check(time.time() < deadline, f"the copiers did not finish: {remaining}, runs {runs}")
            time.sleep(0.2)
    finally:
        for c in copiers.values():
            c.ensure_gone()
    print(f"copier runs per partition: {runs}")
    rows, _ = java_read(ctx, "copier-out", "read_committed", timeout=90)
    got = sorted((p, v) for p, _, v in rows)
    want = sorted((p, v) for (p, _), v in acked.items())
    if got != want:
        seen = {}
        for r in got:
            seen[r] = seen.get(r, 0) + 1
        missing = sorted(set(want) - set(got))
        twice = sorted(r for r, k in seen.items() if k > 1)
        raise Failure(f"copier-out read_committed: {len(got)} records, expected {len(want)}; "
                      f"{len(missing)} missing, e.g. {missing[:5]}; {len(twice)} more than "
                      f"once, e.g. {twice[:5]}")
    offsets, out = describe_offsets(b.bootstrap, "copier-group")
    check({p: o[:3] for p, o in offsets.items()} ==
          {p: (per_partition, per_partition, 0) for p in range(partitions)}, f"describe:\n{out}")
    rows_all, _ = java_read(ctx, "copier-out", "read_uncommitted", timeout=90)
    print(f"copier-out: {len(rows)} records read_committed, {len(rows_all)} read_uncommitted "
          f"({len(rows_all) - len(rows)} of aborted transactions)")
    ctx.expect_records = total + len(rows_all)


@case
def transactions_confluent_kafka(ctx):
    """librdkafka's transactional producer: committed and aborted transactions, a second
    producer of the same transactional.id fencing the first, and a consume-transform-produce
    transaction with send_offsets_to_transaction; librdkafka's read_committed consumer gets
    exactly the committed records, its read_uncommitted one all of them."""
    from confluent_kafka import (Consumer, KafkaException, Producer, TopicPartition,
                                 OFFSET_BEGINNING)
    from confluent_kafka.admin import AdminClient, NewTopic
    b = ctx.broker
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    for t in ("ck-txn", "ck-out"):
        admin.create_topics([NewTopic(t, num_partitions=3)])[t].result(30)
    acked, errors = [], []

    def on_delivery(err, msg):
        if err:
            errors.append(err)
        else:
            acked.append((msg.partition(), msg.offset(), msg.value().decode()))

    def producer(txn_id):
        return Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id,
                         "linger.ms": 5, "transaction.timeout.ms": 30000})

    def transaction(p, name, commit):
        p.begin_transaction()
        start = len(acked)
        for j in range(6):
            p.produce("ck-txn", value=f"{name}-r{j}".encode(), partition=j % 3,
                      on_delivery=on_delivery)
        check(p.flush(30) == 0 and not errors, f"{name}: {errors[:3]}")
        if commit:
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
        return acked[start:]

    committed, aborted = [], []
    p1 = producer("ck-txn-id")
    p1.init_transactions(30)
    pattern = "ccaccacac"
    for t, c in enumerate(pattern):
        (committed if c == "c" else aborted).extend(transaction(p1, f"ck-t{t}", c == "c"))
    # A second producer with the same transactional.id fences the first, whose open
    # transaction is aborted.
    p1.begin_transaction()
    start = len(acked)
    for j in range(3):
        p1.produce("ck-txn", value=f"ck-zombie-r{j}".encode(), partition=j, on_delivery=on_delivery)
    check(p1.flush(30) == 0 and not errors, f"zombie: {errors[:3]}")
    zombie = acked[start:]
    p2 = producer("ck-txn-id")
    p2.init_transactions(30)
    try:
        p1.commit_transaction(30)
        raise Failure("the fenced producer's commit succeeded")
    except KafkaException as e:
        err = e.args[0]
        check(err.fatal() or not err.retriable(), f"the fenced producer's commit: {err}")
        print(f"the fenced librdkafka producer's commit: {err}")
    committed += transaction(p2, "ck-successor", True)
    rows = confluent_read(b.bootstrap, "ck-txn", 3, "read_committed")
    check_exactly([(p, o, v) for p, o, _, v in rows], committed, "read_committed")
    rows = confluent_read(b.bootstrap, "ck-txn", 3, "read_uncommitted")
    check_exactly([(p, o, v) for p, o, _, v in rows], committed + aborted + zombie,
                  "read_uncommitted")

    # Consume-transform-produce: the committed records of ck-txn to ck-out in one transaction
    # with the consumer's offsets (assigned partitions, no group membership).
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "ck-copy",
                  "enable.auto.commit": False, "isolation.level": "read_committed",
                  "enable.partition.eof": True})
    c.assign([TopicPartition("ck-txn", p, OFFSET_BEGINNING) for p in range(3)])
    copied, at_end = [], set()
    p2.begin_transaction()
    deadline = time.time() + 40
    while len(at_end) < 3 and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            at_end.add(m.partition())
            continue
        at_end.discard(m.partition())
        copied.append(m.value().decode())
        p2.produce("ck-out", value=b"copy:" + m.value(), partition=m.partition())
    check(len(at_end) == 3, "the copy did not reach the end of ck-txn")
    positions = c.position([TopicPartition("ck-txn", p) for p in range(3)])
    p2.send_offsets_to_transaction(positions, c.consumer_group_metadata(), 30)
    p2.commit_transaction(30)
    got = c.committed([TopicPartition("ck-txn", p) for p in range(3)], timeout=30)
    check({tp.partition: tp.offset for tp in got} == {tp.partition: tp.offset for tp in positions},
          f"the group's offsets {got}, committed in the transaction {positions}")
    c.close()
    check(sorted(copied) == sorted(v for *_, v in committed), f"copied {len(copied)} records")
    rows = confluent_read(b.bootstrap, "ck-out", 3, "read_committed")
    check(sorted((p, v) for p, _, _, v in rows) == sorted((p, "copy:" + v) for p, _, v in committed),
          f"ck-out read_committed: {len(rows)} records")
    # (librdkafka's position after the last record of a partition is one past it, or past the
    # commit marker that follows it.)
    ends = log_end([(p, o, v) for p, o, v in committed + aborted + zombie])
    check(all(ends[tp.partition] - 1 <= tp.offset <= ends[tp.partition] for tp in positions),
          f"positions {positions} at the end of ck-txn {ends}")
    offsets, out = describe_offsets(b.bootstrap, "ck-copy")
    check({p: o[:2] for p, o in offsets.items()} ==
          {tp.partition: (tp.offset, ends[tp.partition]) for tp in positions},
          f"describe:\n{out}")
    ctx.expect_records = len(committed + aborted + zombie) + len(rows)


@case
def streams_exactly_once_java(ctx):
    """A Kafka Streams word count (processing.guarantee=exactly_once_v2: transactions with the
    consumer's offsets, a repartition topic, a changelog) across a clean broker restart: read
    read_committed, each word's counts in the output are 1, 2, ... its total, each once."""
    b = ctx.broker
    command = java_streams_helper(  # fails at once, naming the pom, without kafka-streams
        "WordCountEos", b.bootstrap, "wordcount", "wc-in", "wc-out",
        os.path.join(ctx.ws.dir, "streams-state"))
    create_topic(b.bootstrap, "wc-in", 3)
    create_topic(b.bootstrap, "wc-out", 3)
    rng = random.Random(11)
    vocabulary = [f"word{i:02d}" for i in range(40)]
    lines = [" ".join(rng.choice(vocabulary) for _ in range(rng.randrange(1, 8)))
             for _ in range(600)]
    half = len(lines) // 2

    def totals(ls):
        counts = {}
        for line in ls:
            for w in line.split():
                counts[w] = counts.get(w, 0) + 1
        return counts

    def latest():
        rows = confluent_read(b.bootstrap, "wc-out", 3, "read_committed",
                              value=lambda v: struct.unpack(">q", v)[0])
        last = {}
        for _, _, k, v in rows:
            last[k] = v
        return last, rows

    def wait_counts(want, timeout, what):
        deadline = time.time() + timeout
        while True:
            got, rows = latest()
            if got == want:
                return rows
            check(time.time() < deadline and app.proc.poll() is None,
                  f"{what}: the latest counts are not the expected ones within {timeout}s "
                  f"({len(rows)} records; e.g. "
                  f"{[(w, got.get(w), want[w]) for w in sorted(want) if got.get(w) != want[w]][:5]})"
                  f"\n{app.output()[-5:]}")
            time.sleep(1)

    confluent_produce(b.bootstrap, "wc-in", lines[:half], 3)
    app = JavaProgram(ctx, "wordcount", command)
    try:
        app.wait_line(lambda l: l.endswith(" RUNNING"), 90, "RUNNING state")
        wait_counts(totals(lines[:half]), 90, "the first half")
        b.stop()
        b.start()
        confluent_produce(b.bootstrap, "wc-in", lines[half:], 3)
        wait_counts(totals(lines), 90, "after the broker's restart")
        rc, out = app.finish(60)
        # Kafka Streams calls the state listener after it wakes close()'s wait, so the last
        # "state PENDING_SHUTDOWN NOT_RUNNING" line may come after "closed true".
        check([l for l in out if l.startswith("closed ")] == ["closed true"],
              f"WordCountEos: {out[-3:]}")
    finally:
        app.ensure_gone()
    errors = [l for l in out if l.startswith("error")]
    if errors:
        print(f"stream thread errors (replaced): {errors[:3]}")
    _, rows = latest()
    want = totals(lines)
    seqs = {}
    for _, _, k, v in rows:
        seqs.setdefault(k, []).append(v)
    bad = {w: s for w, s in seqs.items() if s != list(range(1, want.get(w, 0) + 1))}
    check(sorted(seqs) == sorted(want) and not bad,
          f"per-word counts read_committed are not 1..total each once: {len(bad)} words, e.g. "
          f"{sorted(bad.items())[:2]}")
    uncommitted = confluent_read(b.bootstrap, "wc-out", 3, "read_uncommitted",
                                 value=lambda v: struct.unpack(">q", v)[0])
    print(f"{sum(want.values())} words counted into {len(rows)} committed count records "
          f"({len(uncommitted) - len(rows)} more read_uncommitted, of aborted transactions)")


# ----------------------------------------------------------------------------------------------
# Tiered storage (KIP-405): rolled segments copied to an S3 store (versitygw, tests/clients/s3.py),
# the local copies trimmed by local.retention.*, reads below the local log start served from the
# store. The broker's remote log manager runs a pass every 500 ms.


GET_OFFSETS = "org.apache.kafka.tools.GetOffsetShell"
TIERED_BROKER = ["remote.log.storage.system.enable=true",
                 "remote.log.manager.task.interval.ms=500",
                 "log.retention.check.interval.ms=500", "log.initial.task.delay.ms=0",
                 "rlmm.config.remote.log.metadata.topic.num.partitions=1"]
# Small segments: internal.segment.bytes has no minimum (segment.bytes: 1 MiB at least).
TIERED_TOPIC = ["remote.storage.enable=true", "internal.segment.bytes=65536",
                "local.retention.ms=1000"]


def tiered_case(fn):
    """A case whose broker tiers to a store of its own, started before the broker."""
    def setup(ctx):
        ctx.store = S3Store(os.path.join(ctx.ws.dir, "s3")).start()
        ctx.broker.overrides += TIERED_BROKER + ctx.store.broker_overrides()
    fn.setup = setup
    return case(fn)


def wait_for(pred, timeout, what, interval=0.25):
    """pred()'s first true value, polling up to `timeout` seconds."""
    deadline = time.time() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.time() > deadline:
            raise Failure(f"{what}: not within {timeout}s")
        time.sleep(interval)


def create_tiered_topic(bootstrap, topic, *configs):
    args = []
    for c in TIERED_TOPIC + list(configs):
        args += ["--config", c]
    out = kafka_tool(TOPICS, "--bootstrap-server", bootstrap, "--create", "--topic", topic,
                     "--partitions", "1", *args).stdout
    check(f"Created topic {topic}." in out, out)


def local_segments(ctx, topic, broker=None):
    """The base offsets of the partition's local .log files (those being deleted left out)."""
    d = os.path.join((broker or ctx.broker).data_dir, f"{topic}-0")
    return sorted(int(f[:-4]) for f in os.listdir(d) if f.endswith(".log"))


def store_topic(where):
    """The topic of a store directory tiered/<topic>-<22-character topic id>/<partition>."""
    return where.split("/")[1][:-23]


def remote_segments(store, topic):
    """{start offset: {segment id: {suffix}}} of the topic's partition 0 in the store."""
    return {base: ids for (where, base), ids in store.segments().items()
            if store_topic(where) == topic and where.endswith("/0")}


def tiered_values(prefix, start, n, size=100):
    """n distinct values of `size` bytes: "<prefix>-<index>-" padded with the letter x."""
    return [(f"{prefix}-{i:06d}-").ljust(size, "x") for i in range(start, start + n)]


def kcat_produce(bootstrap, topic, values):
    """Values through kcat (acks=all by default), batches of 50 records (about 5 KB)."""
    kcat("-b", bootstrap, "-P", "-t", topic, "-p", "0", "-X", "batch.num.messages=50",
         input="".join(v + "\n" for v in values))


def kcat_read_all(bootstrap, topic, timeout=60):
    """[(offset, value)] from offset 0 (-o beginning) to the end."""
    p = kcat("-b", bootstrap, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e",
             "-f", "%o %s\n", timeout=timeout)
    check("ERROR" not in p.stderr, f"kcat: {p.stderr[-2000:]}")
    return [(int(o), v) for o, v in (l.split(" ", 1) for l in p.stdout.splitlines() if l)]


def get_offset(bootstrap, topic, time_spec):
    out = kafka_tool(GET_OFFSETS, "--bootstrap-server", bootstrap, "--topic", topic,
                     "--time", str(time_spec)).stdout.split()
    check(len(out) == 1 and out[0].startswith(f"{topic}:0:"), f"--time {time_spec}: {out}")
    return int(out[0].rsplit(":", 1)[1])


def wait_tiered(ctx, topic, timeout=40, broker=None):
    """Waits until every rolled segment is in the store (all its objects, one copy each) and
    only the active segment is left locally; {start offset: segment id} of the store."""
    def done():
        local = local_segments(ctx, topic, broker)
        remote = remote_segments(ctx.store, topic)
        if len(local) != 1 or not remote:
            return None
        complete = all(len(ids) == 1 and {"log", "index", "timeindex"} <= next(iter(ids.values()))
                       for ids in remote.values())
        return complete and {b: next(iter(ids)) for b, ids in remote.items()}
    return wait_for(done, timeout, f"{topic}: rolled segments tiered and trimmed locally "
                                   f"(local {local_segments(ctx, topic, broker)}, "
                                   f"remote {sorted(remote_segments(ctx.store, topic))})")


def check_read_back(what, rows, values, first=0):
    check([o for o, _ in rows] == list(range(first, first + len(rows))),
          f"{what}: offsets not contiguous from {first}: {[o for o, _ in rows][:5]}")
    got = [v for _, v in rows]
    if got != values:
        bad = next((i for i, (a, b) in enumerate(zip(got, values)) if a != b),
                   min(len(got), len(values)))
        raise Failure(f"{what}: read {len(got)} records, expected {len(values)}; first difference "
                      f"at {first + bad}: {got[bad:bad + 1]} vs {values[bad:bad + 1]}")


@tiered_case
def tiered_storage_kcat_java(ctx):
    """Records copied to the store and trimmed locally are read from offset 0 by kcat and by
    Kafka's console consumer; kafka-get-offsets' -4 / -5 / earliest answer the local log start,
    the highest tiered offset and 0."""
    b = ctx.broker
    create_tiered_topic(b.bootstrap, "tiered")
    values = tiered_values("t", 0, 3000)
    kcat_produce(b.bootstrap, "tiered", values)
    started = time.time()
    remote = wait_tiered(ctx, "tiered")
    local_start = local_segments(ctx, "tiered")[0]
    print(f"{len(remote)} segments tiered in {time.time() - started:.1f}s; local log starts at "
          f"{local_start}")
    check(len(remote) >= 3 and min(remote) == 0, f"remote segments {sorted(remote)}")
    # GetOffsetShell's names for the sentinels: earliest = -2, earliest-local = -4,
    # latest-tiered = -5 (one JVM each, so the numbers are asked once, the names once).
    check(get_offset(b.bootstrap, "tiered", "earliest") == 0, "earliest is not 0")
    # The remote log manager may tier and trim one more segment between reading the directory
    # and asking (seen once in CI): the answers must match the directory at a moment when it
    # holds still (bounded).
    deadline = time.time() + 30
    while True:
        earliest_local = get_offset(b.bootstrap, "tiered", -4)
        latest_tiered = get_offset(b.bootstrap, "tiered", "latest-tiered")
        before, local_start = local_start, local_segments(ctx, "tiered")[0]
        if (earliest_local, latest_tiered) == (local_start, local_start - 1) or \
                time.time() > deadline:
            break
        check(local_start > before, f"-4 answered {earliest_local}, -5 {latest_tiered}, while the "
                                    f"local log start stayed at {local_start}")
    check(earliest_local == local_start,
          f"-4 (earliest-local) is not the local log start {local_start}")
    check(latest_tiered == local_start - 1, f"-5 (latest-tiered) is not {local_start - 1}")
    # More records in the active segment: the reads cross from the store to the local log
    # (unless local retention has rolled and tiered these too by then: then all are remote).
    tail = tiered_values("t", len(values), 200)
    kcat_produce(b.bootstrap, "tiered", tail)
    values += tail
    rows = kcat_read_all(b.bootstrap, "tiered")
    check_read_back("kcat -o beginning", rows, values)
    p = kafka_tool(CONSOLE_CONSUMER, "--bootstrap-server", b.bootstrap, "--topic", "tiered",
                   "--from-beginning", "--max-messages", str(len(values)), "--timeout-ms", "30000",
                   "--formatter-property", "print.offset=true", timeout=90)
    rows = [(int(m[1]), m[2]) for m in re.finditer(r"^Offset:(\d+)\t(.*)$", p.stdout, re.M)]
    check_read_back("console consumer --from-beginning", rows, values)
    check(b.log().count(" to remote storage with segment-id: ") >= len(remote),
          "no Copied lines in the broker's log")



def admin_create_tiered(bootstrap, topic, *configs):
    """The topic through confluent-kafka's AdminClient (no JVM to start)."""
    from confluent_kafka.admin import AdminClient, NewTopic
    cfg = dict(c.split("=", 1) for c in TIERED_TOPIC + list(configs))
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3})
    fs = admin.create_topics([NewTopic(topic, 1, 1, config=cfg)], request_timeout=30)
    fs[topic].result(timeout=30)


@tiered_case
def tiered_storage_retention(ctx):
    """retention.bytes over the whole log (remote + local): the oldest remote segments are
    deleted from the store, the log start offset (ListOffsets -2) rises to the first surviving
    segment, and the console consumer from the beginning gets exactly the records after it."""
    b = ctx.broker
    retention = 150000  # about 2 of the ~64 KB segments of 3000 records of 100 bytes
    create_tiered_topic(b.bootstrap, "expiring", f"retention.bytes={retention}")
    values = tiered_values("e", 0, 3000)
    kcat_produce(b.bootstrap, "expiring", values)

    def expired():
        remote = remote_segments(ctx.store, "expiring")
        if not remote or min(remote) == 0:
            return None
        sizes = {k: v for k, v in ctx.store.objects().items() if k.endswith(".log")}
        total = sum(sizes.values())
        oldest = min(remote)
        # (None while a segment is being copied or deleted: its .log may not be there yet, or
        # any more.)
        oldest_size = next((v for k, v in sizes.items()
                            if os.path.basename(k).startswith(f"{oldest:020d}-")), None)
        if oldest_size is None:
            return None
        # Kafka's rule: the oldest goes while the breach is at least its size.
        return total - retention < oldest_size and len(local_segments(ctx, "expiring")) == 1 \
            and (oldest, total)
    # Settled: the same segments two passes later (the log start offset is raised before the
    # deletes, so a snapshot in the middle of a pass's deletes would not match -2).
    snapshots = []

    def settled():
        snapshots.append(expired())
        return snapshots[-1] and len(snapshots) >= 5 and snapshots[-5] == snapshots[-1] \
            and snapshots[-1]
    oldest, total = wait_for(settled, 40, "remote segments expired by retention.bytes")
    check("due to retention" in b.log(), "no retention deletion in the broker's log")
    remote = remote_segments(ctx.store, "expiring")
    check(all(len(ids) == 1 for ids in remote.values()), f"orphan copies: {remote}")
    earliest = get_offset(b.bootstrap, "expiring", "earliest")
    check(earliest == oldest, f"earliest {earliest}, the first remote segment starts at {oldest}")
    print(f"{len(remote)} remote segments ({total} bytes of .log) survive retention.bytes="
          f"{retention}; earliest offset {earliest}")
    p = kafka_tool(CONSOLE_CONSUMER, "--bootstrap-server", b.bootstrap, "--topic", "expiring",
                   "--from-beginning", "--max-messages", str(len(values) - earliest),
                   "--timeout-ms", "30000", "--formatter-property", "print.offset=true",
                   timeout=90)
    rows = [(int(m[1]), m[2]) for m in re.finditer(r"^Offset:(\d+)\t(.*)$", p.stdout, re.M)]
    check_read_back("console consumer --from-beginning", rows, values[earliest:], earliest)
    check_read_back("kcat -o beginning", kcat_read_all(b.bootstrap, "expiring"),
                    values[earliest:], earliest)


def check_store_segments(ctx, topic, bases):
    """The store holds exactly one complete copy (log, index, timeindex, snapshot,
    leader-epoch-checkpoint) of each segment starting at `bases`, and nothing else of the
    topic: no orphan objects of a failed or interrupted copy."""
    remote = remote_segments(ctx.store, topic)
    check(sorted(remote) == sorted(bases), f"{topic}: store segments {sorted(remote)}, "
                                           f"expected {sorted(bases)}")
    want = {"log", "index", "timeindex", "snapshot", "leader-epoch-checkpoint"}
    for base, ids in remote.items():
        check(len(ids) == 1 and next(iter(ids.values())) == want,
              f"{topic}: segment {base} in the store: {ids}")


@tiered_case
def tiered_storage_faults(ctx):
    """(a) the store down while segments wait to be copied: they stay local, and are copied
    once it is back; (b) SIGKILL of the broker while copies run: after the restart every
    segment is copied once, the interrupted copy's objects deleted; (d) SIGKILL while retention
    deletes remote segments: the interrupted delete is finished after the restart; (c) a wrong
    secret key: the
    copy fails with the store's SignatureDoesNotMatch in the broker's log and the local
    segments stay. Every time, all records are read back from offset 0."""
    b = ctx.broker
    # (a) ------------------------------------------------------------------------------------
    admin_create_tiered(b.bootstrap, "fa")
    ctx.store.stop()
    values = tiered_values("a", 0, 3000)
    kcat_produce(b.bootstrap, "fa", values)
    rolled = local_segments(ctx, "fa")
    line = wait_for(lambda: next((l for l in b.log().splitlines() if "WARN fa-0: " in l
                                  and "copying" in l and "PutObject" in l), None), 20,
                    "a copy failure logged while the store is down")
    print(f"(a) {line[:300]}")
    time.sleep(1.5)  # three more passes
    check(local_segments(ctx, "fa")[:len(rolled)] == rolled,
          f"fa: local segments {local_segments(ctx, 'fa')} while the store is down, "
          f"were {rolled}")
    check(len(rolled) >= 4, f"fa: {rolled}")
    ctx.store.start()
    remote = wait_tiered(ctx, "fa")
    check_store_segments(ctx, "fa", rolled[:len(remote)])
    check_read_back("(a) kcat after the store's restart", kcat_read_all(b.bootstrap, "fa"),
                    values)
    # (b) ------------------------------------------------------------------------------------
    admin_create_tiered(b.bootstrap, "fb")
    ctx.store.stop()
    values = tiered_values("b", 0, 6000)
    kcat_produce(b.bootstrap, "fb", values)
    rolled = local_segments(ctx, "fb")
    time.sleep(1)
    ctx.store.start()
    # The kill lands within a few ms of the first object: so far it always interrupted the
    # first segment's copy (whose objects the restarted broker deletes), but it may come just
    # after a copy finished - then there is no orphan, and the checks below hold all the same.
    wait_for(lambda: remote_segments(ctx.store, "fb"), 20, "fb: the first object", interval=0.005)
    b.kill()
    at_kill = remote_segments(ctx.store, "fb")
    print(f"(b) SIGKILL with {len(at_kill)} of {len(rolled)} segments (partly) in the store")
    b.start()
    wait_tiered(ctx, "fb", timeout=40)
    # The interrupted copy (COPY_SEGMENT_STARTED in __remote_log_metadata) is deleted by the
    # cleanup of the pass after its objects were written: wait until each segment has one copy.
    wait_for(lambda: all(len(ids) == 1 for ids in remote_segments(ctx.store, "fb").values()),
             20, "fb: one copy of each segment in the store")
    remote = remote_segments(ctx.store, "fb")
    check_store_segments(ctx, "fb", rolled[:len(remote)])
    check(sorted(remote)[:len(rolled)] == rolled[:len(remote)], f"fb: {sorted(remote)}")
    check_read_back("(b) kcat after the broker's SIGKILL", kcat_read_all(b.bootstrap, "fb"), values)
    orphans = re.findall(r"Deleting the unfinished (remote segment \S+ of fb-0 \(offsets \d+\.\.\d+\))",
                         b.log())
    print(f"(b) interrupted copies deleted after the restart: {orphans or 'none'}")
    topics = {store_topic(where) for where, _ in ctx.store.segments()}
    check(topics == {"fa", "fb"}, f"the store holds objects of {topics}")
    # (d) ------------------------------------------------------------------------------------
    # SIGKILL during a remote delete: retention has written DELETE_SEGMENT_STARTED for the
    # oldest segments (and raised the log start) but their objects are not gone - the store is
    # down - when the broker dies. The restarted broker finishes those deletes (they are
    # orphans of the previous run in __remote_log_metadata) and keeps the rest whole.
    admin_create_tiered(b.bootstrap, "fd")
    values = tiered_values("d", 0, 3000)
    kcat_produce(b.bootstrap, "fd", values)
    wait_tiered(ctx, "fd")
    stored = sorted(remote_segments(ctx.store, "fd"))
    ctx.store.stop()
    kafka_tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", b.bootstrap,
               "--alter", "--entity-type", "topics", "--entity-name", "fd", "--add-config",
               "retention.bytes=150000")
    line = wait_for(lambda: next((l for l in b.log().splitlines() if "WARN fd-0: " in l
                                  and "deleting remote segment" in l), None), 20,
                    "fd: a remote delete that failed with the store down")
    print(f"(d) {line[:240]}")
    b.kill()
    ctx.store.start()
    b.start()
    want = {"log", "index", "timeindex", "snapshot", "leader-epoch-checkpoint"}

    snapshots = []

    def settled():  # whole segments only, the same for 2 s (four passes): no pass mid-way
        remote = remote_segments(ctx.store, "fd")
        whole = remote and all(len(ids) == 1 and next(iter(ids.values())) == want
                               for ids in remote.values())
        snapshots.append(whole and min(remote) > 0 and min(remote))
        return len(snapshots) >= 8 and snapshots[-1] and len(set(snapshots[-8:])) == 1 \
            and snapshots[-1]
    first = wait_for(settled, 40, "fd: the interrupted deletes finished, whole segments left")
    finished = re.findall(r"Deleting the unfinished remote segment \S+ of fd-0 "
                          r"\(offsets (\d+)\.\.\d+\) \(DELETE_SEGMENT_STARTED\)", b.log())
    check(finished and int(finished[0]) == stored[0],
          f"fd: no interrupted delete of the first segment finished after the restart: {finished}")
    earliest = get_offset(b.bootstrap, "fd", "earliest")
    check(earliest == first, f"fd: earliest offset {earliest}, the store starts at {first}")
    check_read_back("(d) kcat after a SIGKILL during remote deletes",
                    kcat_read_all(b.bootstrap, "fd"), values[earliest:], earliest)
    print(f"(d) interrupted deletes finished after the restart (segments {finished}); the store "
          f"starts at {first}, the log at {earliest}")
    # (c) ------------------------------------------------------------------------------------
    restart_with(b, "rsm.config.storage.aws.secret.access.key=not-the-secret")
    admin_create_tiered(b.bootstrap, "fc")
    values = tiered_values("c", 0, 3000)
    kcat_produce(b.bootstrap, "fc", values)
    rolled = local_segments(ctx, "fc")
    line = wait_for(lambda: next((l for l in b.log().splitlines() if "WARN fc-0: " in l
                                  and "copying" in l and "SignatureDoesNotMatch" in l), None), 20,
                    "the store's SignatureDoesNotMatch for a copy in the broker's log")
    print(f"(c) {line[:400]}")
    check(re.search(rf"S3 PutObject {ctx.store.bucket}/tiered/fc-\S+\.log: HTTP 403 "
                    rf"SignatureDoesNotMatch", line), f"the error names no bucket/key/403: {line}")
    time.sleep(1.5)
    check(local_segments(ctx, "fc")[:len(rolled)] == rolled and len(rolled) >= 4,
          f"fc: local segments {local_segments(ctx, 'fc')}, were {rolled}")
    check(not remote_segments(ctx.store, "fc"), "fc: objects in the store with a wrong key")
    check_read_back("(c) kcat with a wrong secret key", kcat_read_all(b.bootstrap, "fc"), values)



import acl_matrix  # noqa: E402
import quota_cases  # noqa: E402
import log_level_cases  # noqa: E402
import group_config_cases  # noqa: E402
import metrics_cases  # noqa: E402
import console_cases  # noqa: E402
import quota_throttle_cases  # noqa: E402
import security_cases  # noqa: E402
import telemetry_cases  # noqa: E402
import share_admin_cases  # noqa: E402
import share_cases  # noqa: E402
import share_delivery_cases  # noqa: E402
import share_console_cases  # noqa: E402
import share_restart_cases  # noqa: E402
import streams_cases  # noqa: E402
import features_cases  # noqa: E402
import share_dlq_cases  # noqa: E402
for _fn in (security_cases.CASES + acl_matrix.CASES + quota_cases.CASES +
            quota_throttle_cases.CASES + metrics_cases.CASES + telemetry_cases.CASES +
            console_cases.CASES + log_level_cases.CASES + group_config_cases.CASES +
            share_admin_cases.CASES + share_cases.CASES + share_delivery_cases.CASES +
            share_console_cases.CASES + share_restart_cases.CASES + streams_cases.CASES +
            features_cases.CASES + share_dlq_cases.CASES):
    case(_fn)


class Context:
    def __init__(self, seglog, name):
        self.ws = Workspace(name)
        self.broker = Broker(seglog, self.ws.data)
        self.node_id = 1
        self.expect_records = None
        self.store = None  # a tiered case's S3 store


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seglog")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    ctx = Context(os.path.abspath(args.seglog), args.case)
    started = time.time()
    try:
        if hasattr(CASES[args.case], "setup"):
            CASES[args.case].setup(ctx)
        ctx.broker.start()
        CASES[args.case](ctx)
        ctx.broker.stop()
        # The SIGTERM shutdown was clean: the next start loads the logs without recovery.
        before = len(ctx.broker.log())
        ctx.broker.start()
        ctx.broker.stop()
        restart = ctx.broker.log()[before:]
        check("since clean shutdown file was found" in restart and "unclean" not in restart
              and "no clean shutdown file" not in restart,
              f"restart after SIGTERM was not clean:\n{restart[-2000:]}")
        n = judge_directories(ctx.broker.seglog, ctx.ws.data, ctx.expect_records)
        for extra in ctx.broker.extra_dirs:  # the other log directories, when a case has them
            n += judge_directories(ctx.broker.seglog, extra, None)
        print(f"{args.case}: passed in {time.time() - started:.1f}s ({n} records judged by "
              f"DumpLogSegments)")
        if ctx.store is not None:
            ctx.store.stop()
        ctx.ws.cleanup()
        return 0
    except Exception as e:  # a Failure, or a client library's own error: never leave a broker
        print(f"{args.case}: FAILED: {type(e).__name__}: {e}")
        print(f"broker log ({ctx.broker.log_path}):\n{ctx.broker.log()[-4000:]}")
        return 1
    finally:
        if ctx.broker.proc is not None:
            ctx.broker.proc.kill()
            ctx.broker.proc.wait(timeout=30)
        if ctx.store is not None:
            ctx.store.kill()


if __name__ == "__main__":
    sys.exit(main())
