#!/usr/bin/env python3
"""A real Kafka 4.4.0 broker takes over seglog's partition files offline (ctest
interop.log_files_seglog_to_kafka, label `interop`; docs/operations.md, route A).

    files_check.py [--seglog build/release/cli/seglog] [--keep]

1. `seglog serve`: topic `orders` (3 partitions, retention.ms, cleanup.policy, max.message.bytes)
   with N keyed records from an idempotent producer; group `mm-group` consumes K of them and
   commits. seglog is stopped with SIGTERM (a clean shutdown).
2. Kafka on a copy of seglog's log directory itself, with a fresh metadata log formatted with
   seglog's cluster.id: it starts, but knows none of the topics, and renames every partition
   directory to `<name>.<uuid>-stray` (the topic ids are not in its metadata). This is the way
   that does NOT work, checked so that docs/operations.md can say so.
3. The way that works: a fresh Kafka log directory formatted with seglog's cluster.id; Kafka
   creates the topics seglog had (same names, partition counts and configs) and its
   __consumer_offsets (as many partitions as seglog's), and is stopped. Every file of each of
   seglog's partition directories then replaces the files of Kafka's, except partition.metadata
   (Kafka's topic id stays).
4. Kafka starts on that: `orders` has the same records at the same offsets (keys, values, headers,
   timestamps), its configs, and mm-group's committed offsets, which Kafka's group coordinator
   loaded from seglog's __consumer_offsets records; a consumer in mm-group gets exactly the N-K
   records it had not consumed. Kafka's log has no ERROR but one it is known to print for seglog's
   directories: "Could not find offset index file" for each partition seglog never wrote to
   (seglog creates a segment's .index and .timeindex on first use; Kafka creates both when it
   loads a log), after which Kafka rebuilds them.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mirrormaker_check import (BASE_TS, CONFIGS, ORACLE, PARTITIONS, ROOT, TOPIC, Broker,  # noqa: E402
                               Failure, KafkaTarget, by_partition, check, helper, log,
                               wait_until)

N = 150
K = 60
KNOWN_ERROR = "Could not find offset index file corresponding to log file "


def partition_dirs(data):
    """Partition directory names of a log directory (name-<n>, no suffix)."""
    out = []
    for d in sorted(os.listdir(data)):
        name, _, num = d.rpartition("-")
        if (os.path.isdir(os.path.join(data, d)) and name and num.isdigit()
                and name != "__cluster_metadata"):
            out.append(d)
    return out


def meta_properties(data):
    props = {}
    with open(os.path.join(data, "meta.properties")) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                props[k] = v
    return props


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
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

    work = tempfile.mkdtemp(prefix="seglog-files-")
    seg_data = os.path.join(work, "seglog", "data")
    os.makedirs(os.path.dirname(seg_data))
    seglog = Broker(args.seglog, seg_data, overrides=["group.initial.rebalance.delay.ms=0"])
    kafkas = []
    ok = False
    try:
        # -- 1. seglog
        seglog.start()
        helper(cp, "create-topic", seglog.bootstrap, TOPIC, PARTITIONS,
               *[f"{k}={v}" for k, v in CONFIGS.items()])
        helper(cp, "produce", seglog.bootstrap, TOPIC, PARTITIONS, 0, N, BASE_TS)
        got = helper(cp, "consume-group", seglog.bootstrap, "mm-group", TOPIC, K, 0, 30000)
        check(len(got["taken"]) == K, f"mm-group took {len(got['taken'])} of {K}")
        committed = {int(p): o for p, o in got["committed"].items()}
        source = helper(cp, "dump", seglog.bootstrap, TOPIC)["records"]
        check(len(source) == N, f"seglog holds {len(source)} records")
        seglog.stop()
        log(f"seglog: {N} records, mm-group at {committed}; stopped cleanly")
        cluster_id = meta_properties(seg_data)["cluster.id"]
        # The topics seglog made (its metadata log has them; Kafka 4.4.0 reads that directly -
        # kraft_takeover_check.py - and this route copies files for directories of older seglogs).
        topics = {TOPIC: {"partitions": PARTITIONS, "configs": CONFIGS}}
        seg_parts = partition_dirs(seg_data)
        offsets_parts = sum(1 for d in seg_parts if d.startswith("__consumer_offsets-"))
        check(offsets_parts > 0, "seglog wrote no __consumer_offsets partition")

        # -- 2. Kafka on seglog's own directory: every partition is a stray
        stray_data = os.path.join(work, "stray", "data")
        shutil.copytree(seg_data, stray_data)
        # A fresh metadata log instead of seglog's: what a user who formats Kafka anew gets.
        shutil.rmtree(os.path.join(stray_data, "__cluster_metadata-0"))
        ks = KafkaTarget(cp, os.path.join(work, "stray"), data=stray_data,
                         metadata_dir=os.path.join(work, "stray", "metadata"))
        kafkas.append(ks)
        ks.start(cluster_id=cluster_id, format_args=["--ignore-formatted"])
        d = helper(cp, "describe", ks.bootstrap, TOPIC)
        check(d["partitions"] == -1, f"Kafka knows {TOPIC} without metadata: {d}")

        def strays():
            names = os.listdir(stray_data)
            left = [n for n in seg_parts if n in names]
            return not left, f"not renamed yet: {left[:5]}"

        wait_until("every seglog partition renamed -stray", strays, 60)
        ks.stop()
        renamed = [n for n in os.listdir(stray_data) if n.endswith("-stray")]
        check(len(renamed) == len(seg_parts), f"{len(renamed)} -stray of {len(seg_parts)}")
        log(f"Kafka on seglog's directory: all {len(seg_parts)} partition directories renamed "
            f"<name>.<uuid>-stray, {TOPIC} unknown")

        # -- 3. Kafka creates the topics, then takes seglog's files
        kdata = os.path.join(work, "kafka", "data")
        kafka = KafkaTarget(cp, os.path.join(work, "kafka"), data=kdata)
        kafkas.append(kafka)
        kafka.start(cluster_id=cluster_id)
        for name, t in sorted(topics.items()):
            if name.startswith("__"):
                continue
            helper(cp, "create-topic", kafka.bootstrap, name, t["partitions"],
                   *[f"{k}={v}" for k, v in sorted(t.get("configs", {}).items())])
        # A group lookup (FindCoordinator) makes Kafka create __consumer_offsets.
        helper(cp, "describe", kafka.bootstrap, TOPIC, "mm-group")

        def offsets_topic():
            d = helper(cp, "describe", kafka.bootstrap, "__consumer_offsets")
            return d["partitions"] == offsets_parts, d["partitions"]

        wait_until(f"__consumer_offsets with {offsets_parts} partitions on Kafka", offsets_topic, 60)
        kafka.stop()
        empty = os.path.join(kdata, "__consumer_offsets-0")
        kafka_files = sorted(os.listdir(empty))
        check("00000000000000000000.index" in kafka_files and
              "00000000000000000000.timeindex" in kafka_files, f"Kafka's new partition: {kafka_files}")
        for part in seg_parts:
            dst = os.path.join(kdata, part)
            check(os.path.isdir(dst), f"Kafka has no {part}")
            for f in os.listdir(dst):
                if f != "partition.metadata":
                    os.remove(os.path.join(dst, f))
            for f in os.listdir(os.path.join(seg_data, part)):
                if f != "partition.metadata":
                    shutil.copy2(os.path.join(seg_data, part, f), os.path.join(dst, f))
        made = sorted(n for n in topics if not n.startswith("__"))
        log(f"Kafka created {made} and __consumer_offsets; {len(seg_parts)} partition directories "
            f"now hold seglog's files (and Kafka's partition.metadata)")

        # -- 4. Kafka on seglog's files
        kafka.start(format_storage=False)
        d = helper(cp, "describe", kafka.bootstrap, TOPIC, "mm-group")
        check(d["partitions"] == PARTITIONS, f"Kafka: {d}")
        cfg = {c["name"]: (c["value"], c["source"]) for c in d["configs"]}
        for k, v in CONFIGS.items():
            check(cfg.get(k) == (v, "DYNAMIC_TOPIC_CONFIG"), f"Kafka DescribeConfigs {k}: {cfg}")
        group = {int(p): o for p, o in d["groups"]["mm-group"].items()}
        check(group == committed, f"mm-group on Kafka {group}, on seglog {committed}")
        mirrored = helper(cp, "dump", kafka.bootstrap, TOPIC)["records"]
        sp, kp = by_partition(source), by_partition(mirrored)
        for p in range(PARTITIONS):
            check(kp.get(p) == sp.get(p), f"partition {p} differs")
        log(f"Kafka: the same {N} records, configs, mm-group at {group}")
        got = helper(cp, "consume-group", kafka.bootstrap, "mm-group", TOPIC, N - K, 3000, 60000)
        check(not got["extra"], f"{len(got['extra'])} records past the N-K")
        gp = by_partition(got["taken"])
        for p in range(PARTITIONS):
            want = [r for r in sp.get(p, []) if r["offset"] >= committed.get(p, 0)]
            check(gp.get(p, []) == want, f"partition {p} resumed at "
                                         f"{[r['offset'] for r in gp.get(p, [])][:3]}...")
        log(f"Kafka consumer in mm-group got exactly the {N - K} records not consumed on seglog")
        text = kafka.log()
        kafka.stop()

        errors = [line for line in text.splitlines() if "] ERROR " in line]
        unknown = []
        known = 0
        for line in errors:
            if KNOWN_ERROR in line:
                seg = line.split(KNOWN_ERROR, 1)[1].split(",", 1)[0]
                part = os.path.basename(os.path.dirname(seg))
                if os.path.getsize(os.path.join(seg_data, part, os.path.basename(seg))) == 0:
                    known += 1
                    continue
            unknown.append(line)
        check(not unknown, "Kafka logged errors:\n" + "\n".join(unknown[:10]))
        log(f"Kafka's log: no ERROR but {known} x \"{KNOWN_ERROR.strip()}\" (a partition seglog "
            f"never wrote to has no .index/.timeindex; Kafka rebuilds them)")
        ok = True
        print("log_files_seglog_to_kafka: passed")
        return 0
    except Exception as e:  # noqa: BLE001 - Failure, or broker_compare's BenchError
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        for k in kafkas:
            try:
                k.stop()
            except Exception as e:  # noqa: BLE001
                print(f"kafka stop: {e}", file=sys.stderr)
        if seglog.proc is not None:
            seglog.kill()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
