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
import os
import random
import re
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Broker, Failure, Workspace, check, judge_directories, kafka_tool, run  # noqa

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


class Context:
    def __init__(self, seglog, name):
        self.ws = Workspace(name)
        self.broker = Broker(seglog, self.ws.data)
        self.node_id = 1
        self.expect_records = None


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
        ctx.broker.start()
        CASES[args.case](ctx)
        ctx.broker.stop()
        # The SIGTERM shutdown was clean: the next start loads the logs without recovery.
        before = len(ctx.broker.log())
        ctx.broker.start()
        ctx.broker.stop()
        restart = ctx.broker.log()[before:]
        check("after a clean shutdown" in restart and "unclean" not in restart,
              f"restart after SIGTERM was not clean:\n{restart[-2000:]}")
        n = judge_directories(ctx.broker.seglog, ctx.ws.data, ctx.expect_records)
        print(f"{args.case}: passed in {time.time() - started:.1f}s ({n} records judged by "
              f"DumpLogSegments)")
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


if __name__ == "__main__":
    sys.exit(main())
