#!/usr/bin/env python3
"""Consume throughput from remote storage against local disk, through `seglog serve`.

One broker with tiered storage on (versitygw, posix backend, on this machine), two topics of
the same records written by Kafka's ProducerPerformance: `local` (not tiered) and `tiered`
(remote.storage.enable=true, local.retention.ms=1000), the latter waited for until every
record is remote and the local log holds none. Then Kafka 4.4.0's ConsumerPerformance reads
each from offset 0, `--rounds` times alternating; the first read of `tiered` also fills the
remote index cache (cold), later ones find it warm. Prints a Markdown table (MB/s, median).

Then, after a restart that empties the index cache, the latency of one fetch: a confluent-kafka consumer assigned at an offset
in the middle of each remote segment in turn, timed from the assign to the record. The first
visit of a segment finds its indexes outside the remote index cache (cold: the indexes are
fetched from the store, then the range), the second finds them cached (warm: the ranged GET
only); the same offsets of the local topic are the baseline. Prints a second table (ms, median
over the segments).

    ~/.cache/seglog/venv/bin/python bench/compare/tiered_fetch.py \
        --seglog build/release/cli/seglog --mib 256 --rounds 3

Kafka itself cannot be run side by side here: Kafka 4.4.0 ships no S3 RemoteStorageManager,
and Aiven's plugin is not on Maven Central.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "clients"))
from harness import Broker, kafka_tool  # noqa: E402
from s3 import S3Store  # noqa: E402


def produce(bootstrap, topic, records, size):
    out = kafka_tool("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                     "--num-records", str(records), "--record-size", str(size),
                     "--throughput", "-1", "--producer-props", f"bootstrap.servers={bootstrap}",
                     "acks=1", "batch.size=262144", "linger.ms=5", timeout=600).stdout
    assert f"{records} records sent" in out, out[-2000:]


def consume(bootstrap, topic, records, group):
    out = kafka_tool("org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                     bootstrap, "--topic", topic, "--num-records", str(records), "--group",
                     group, "--timeout", "60000",
                     timeout=600).stdout
    lines = out.strip().splitlines()
    stats = dict(zip(lines[0].split(", "), lines[1].split(", ")))
    assert stats["data.consumed.in.nMsg"] == str(records), stats
    return float(stats["MB.sec"])


def first_record_ms(consumer, topic, offset):
    """Milliseconds from assigning `topic`-0 at `offset` to receiving that record."""
    from confluent_kafka import TopicPartition
    start = time.perf_counter()
    consumer.assign([TopicPartition(topic, 0, offset)])
    deadline = start + 30
    while time.perf_counter() < deadline:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            raise SystemExit(f"fetch of {topic} at {offset}: {msg.error()}")
        if msg.offset() != offset:
            raise SystemExit(f"fetch of {topic} at {offset} returned offset {msg.offset()}")
        elapsed = (time.perf_counter() - start) * 1000
        consumer.unassign()
        return elapsed
    raise SystemExit(f"no record of {topic} at {offset} within 30 s")


def fetch_latencies(bootstrap, offsets, last_offset):
    """(local, cold, warm) lists of first-record latencies in ms, one per offset."""
    from confluent_kafka import Consumer
    # fetch.wait.max.ms: a fetch at the log end (after the warm-up's last record) waits that
    # long for data, and the next assign's fetch waits behind it on the same connection.
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "latency",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10})
    try:
        # Connections and metadata, not timed: each topic once, the tiered one at its last
        # offset (in the last remote segment, which the timed offsets leave out).
        first_record_ms(consumer, "local", 0)
        first_record_ms(consumer, "tiered", last_offset)
        local = [first_record_ms(consumer, "local", o) for o in offsets]
        cold = [first_record_ms(consumer, "tiered", o) for o in offsets]
        warm = [first_record_ms(consumer, "tiered", o) for o in offsets]
        if os.environ.get("TIERED_FETCH_RAW"):
            print(f"raw ms: local {local}\ncold {cold}\nwarm {warm}", file=sys.stderr)
        return local, cold, warm
    finally:
        consumer.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seglog", required=True)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--record-size", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    records = args.mib * 1024 * 1024 // args.record_size
    with tempfile.TemporaryDirectory(prefix="seglog-tiered-bench.") as work:
        store = S3Store(os.path.join(work, "s3")).start()
        broker = Broker(args.seglog, os.path.join(work, "data"), overrides=[
            "remote.log.storage.system.enable=true", "remote.log.manager.task.interval.ms=1000",
            "log.retention.check.interval.ms=1000", "log.initial.task.delay.ms=0",
            "rlmm.config.remote.log.metadata.topic.num.partitions=1",
            # ConsumerPerformance's clock runs from before it joins its group.
            "group.initial.rebalance.delay.ms=0",
        ] + store.broker_overrides())
        try:
            broker.start()
            segment = ["--config", "segment.bytes=33554432"]
            kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
                       broker.bootstrap, "--create", "--topic", "local", "--partitions", "1",
                       *segment)
            kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
                       broker.bootstrap, "--create", "--topic", "tiered", "--partitions", "1",
                       *segment, "--config", "remote.storage.enable=true", "--config",
                       "local.retention.ms=1000")
            produce(broker.bootstrap, "local", records, args.record_size)
            produce(broker.bootstrap, "tiered", records, args.record_size)
            tiered_dir = os.path.join(broker.data_dir, "tiered-0")
            deadline = time.time() + 600
            while time.time() < deadline:  # every record remote, the local log empty
                logs = [f for f in os.listdir(tiered_dir) if f.endswith(".log")]
                if len(logs) == 1 and os.path.getsize(os.path.join(tiered_dir, logs[0])) == 0:
                    break
                time.sleep(1)
            else:
                raise SystemExit("the tiered topic was not fully tiered within 600 s")
            # One offset in the middle of each full 32 MiB segment: a segment holds fewer
            # than 32 MiB / record size records (batch headers), so these are all in
            # different segments.
            per_segment = 32 * 1024 * 1024 // args.record_size
            offsets = [i * per_segment + per_segment // 2
                       for i in range(records // per_segment - 1)]
            local, cold, warm = [], None, []
            for r in range(args.rounds):
                local.append(consume(broker.bootstrap, "local", records, f"l{r}"))
                mbs = consume(broker.bootstrap, "tiered", records, f"t{r}")
                if cold is None:
                    cold = mbs
                else:
                    warm.append(mbs)
            # A restart with the index cache's directory gone empties the cache again.
            broker.stop()
            shutil.rmtree(os.path.join(broker.data_dir, "remote-log-index-cache"))
            broker.start()
            lat_local, lat_cold, lat_warm = fetch_latencies(broker.bootstrap, offsets, records - 1)
            print(f"{args.mib} MiB of {args.record_size}-byte records, one partition, "
                  f"32 MiB segments, ConsumerPerformance (Kafka 4.4.0) from offset 0")
            print("| read | MB/s |")
            print("|---|---|")
            print(f"| local disk (median of {len(local)}) | {statistics.median(local):.1f} |")
            print(f"| remote, cold index cache (first read) | {cold:.1f} |")
            if warm:
                print(f"| remote, warm index cache (median of {len(warm)}) | "
                      f"{statistics.median(warm):.1f} |")
            print()
            print(f"One fetch, assign to record (confluent-kafka), median (max) over "
                  f"{len(offsets)} segments:")
            print("| fetch | ms |")
            print("|---|---|")
            for name, v in (("local disk", lat_local),
                            ("remote, cold index cache (segment's first fetch)", lat_cold),
                            ("remote, warm index cache (its second)", lat_warm)):
                print(f"| {name} | {statistics.median(v):.1f} ({max(v):.1f}) |")
        finally:
            if broker.proc is not None:
                broker.stop()
            store.kill()


if __name__ == "__main__":
    main()
