#!/usr/bin/env python3
"""bench/compare: seglog against Apache Kafka 4.4.0's storage classes, on the same machine.

For each workload, runs seglog's harness (build/release/bench/seglog_compare_bench) and Kafka's
(bench/compare/kafka/kafka_bench.sh, Kafka's own UnifiedLog/LogSegment/Cleaner from the Maven
jars) in alternating rounds on identical inputs, takes the median of each, and reports the
ratio (higher = seglog better) beside the machine's limits (memcpy, CRC32C, disk). Writes
bench/results/compare.json and prints a Markdown table.

  python3 bench/compare/compare.py [--rounds 3] [--scale 1.0] [--only WORKLOAD,...]

--scale shrinks the data sizes (1.0 = the issue's sizes: 1 GiB logs, 2 GiB recovery).
Environment: SEGLOG_COMPARE_BENCH (seglog's harness; default build/release/bench/...),
SEGLOG_COMPARE_DIR (scratch directory, default /tmp/seglog-compare).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEGLOG = os.environ.get("SEGLOG_COMPARE_BENCH",
                        os.path.join(ROOT, "build/release/bench/seglog_compare_bench"))
KAFKA = os.path.join(ROOT, "bench/compare/kafka/kafka_bench.sh")

GiB = 1 << 30


def workloads(scale):
    b = lambda n: str(max(1 << 20, int(n * scale)))
    return {
        "append-1KiB-16": ["append", "--record-size", "1024", "--batch-records", "16",
                           "--total-bytes", b(GiB), "--codec", "none"],
        "append-100B-1000": ["append", "--record-size", "100", "--batch-records", "1000",
                             "--total-bytes", b(GiB), "--codec", "none"],
        "append-zstd-100B-1000": ["append", "--record-size", "100", "--batch-records", "1000",
                                  "--total-bytes", b(GiB // 4), "--codec", "zstd"],
        "append-sweep": ["append-sweep", "--total-bytes", b(GiB // 4)],
        "lookup": ["lookup", "--log-bytes", b(GiB)],
        "read-all": ["read-all", "--log-bytes", b(GiB)],
        # On shared directories written once by seglog (its files are Kafka's files); each
        # system copies them fresh for every timed run. "{src}" is filled per system: seglog
        # takes --src, Kafka's harness --dir.
        "recover": ["recover", "{src}", "recover"],
        "clean": ["clean", "{src}", "clean"],
        # 10,000 partitions of one segment each: Kafka holds a descriptor per segment and this
        # kind of VM caps a process at 20,000 (ulimit -Hn), so 10 segments each fit only for
        # 1,500 partitions - the second open workload.
        "open-many": ["open-many", "{src}", "open", "--name", "open-10k"],
        "open-many-segments": ["open-many", "{src}", "open-segments", "--name", "open-1500x10"],
    }


def make_inputs(scale, scratch):
    """Writes the shared input directories with seglog; returns name -> path."""
    dirs = {"recover": os.path.join(scratch, "recover-src"),
            "clean": os.path.join(scratch, "clean-src"),
            "open": os.path.join(scratch, "open-src"),
            "open-segments": os.path.join(scratch, "open-segments-src")}
    subprocess.run([SEGLOG, "make-recover-dir", "--src", dirs["recover"],
                    "--bytes", str(max(1 << 26, int(2 * GiB * scale)))], check=True)
    subprocess.run([SEGLOG, "make-clean-dir", "--src", dirs["clean"],
                    "--bytes", str(max(1 << 26, int(GiB * scale))),
                    "--keys", str(max(1000, int(1000000 * scale)))], check=True)
    subprocess.run([SEGLOG, "make-open-dir", "--src", dirs["open"],
                    "--partitions", str(max(10, int(10000 * scale))), "--segments", "1"],
                   check=True)
    subprocess.run([SEGLOG, "make-open-dir", "--src", dirs["open-segments"],
                    "--partitions", str(max(10, int(1500 * scale))), "--segments", "10"],
                   check=True)
    return dirs


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/compare.json"))
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    have_kafka = os.path.exists(KAFKA)
    if not have_kafka:
        print(f"note: {KAFKA} is missing: seglog only", file=sys.stderr)
    runs = {}  # (system, workload, metric) -> list, and metadata
    meta = {}
    scratch = os.environ.get("SEGLOG_COMPARE_DIR", "/tmp/seglog-compare")
    os.makedirs(scratch, exist_ok=True)
    # The machine's limits first, on a quiet system (measured last, after gigabytes of I/O,
    # buffered writes came out at a sixth of their speed: writeback of the runs before).
    os.sync()
    limits = run([SEGLOG, "limits", "--bytes", str(max(1 << 26, int(GiB * args.scale))),
                  "--iterations", "3", "--warmup", "1"])
    chosen = [n for n in workloads(args.scale) if not only or n in only]
    inputs = (make_inputs(args.scale, scratch)
              if {"recover", "clean", "open-many", "open-many-segments"} & set(chosen) else {})
    for name, template in workloads(args.scale).items():
        if name not in chosen:
            continue
        for r in range(args.rounds):
            systems = [("seglog", [SEGLOG])] + ([("kafka", [KAFKA])] if have_kafka else [])
            if r % 2 == 1:
                systems.reverse()  # alternate which goes first
            for system, prefix in systems:
                os.sync()  # no writeback of one run's files during the next
                cmd = list(template)
                if "{src}" in cmd:
                    at = cmd.index("{src}")
                    cmd[at:at + 2] = ["--src" if system == "seglog" else "--dir", inputs[cmd[at + 1]]]
                # Two warm-up runs per round: the JVM's C2 compiler shares this 2-core machine
                # with the timed thread until the hot paths are compiled.
                warmup = "0" if name.startswith("open-many") else "2"
                print(f"round {r + 1}/{args.rounds}: {system} {name}", file=sys.stderr)
                for res in run(prefix + cmd + ["--iterations", "1", "--warmup", warmup]):
                    if res["workload"].startswith("append-sweep") and "CPU" in res["metric"]:
                        continue  # the sweep is for the chart; CPU splits of the main appends
                    key = (res["workload"], res["metric"])
                    runs.setdefault((system,) + key, []).extend(res["runs"])
                    meta[key] = res["higher_is_better"]
    results = []
    for (workload, metric), higher in sorted(meta.items()):
        s = runs.get(("seglog", workload, metric), [])
        k = runs.get(("kafka", workload, metric), [])
        sm = statistics.median(s) if s else None
        km = statistics.median(k) if k else None
        ratio = None
        if sm and km:
            ratio = sm / km if higher else km / sm
        results.append({"workload": workload, "metric": metric, "higher_is_better": higher,
                        "seglog": {"median": sm, "runs": s}, "kafka": {"median": km, "runs": k},
                        "ratio": ratio})
    doc = {"machine": os.uname().nodename, "cpus": os.cpu_count(), "scale": args.scale,
           "rounds": args.rounds, "results": results,
           "limits": [{"name": l["workload"], "metric": l["metric"], "median": l["median"]}
                      for l in limits]}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print("| workload | metric | seglog | Kafka 4.4.0 | ratio (higher = seglog better) |")
    print("|---|---|---|---|---|")
    for r in results:
        fmt = lambda v: "-" if v is None else (f"{v:.3f}" if abs(v) < 100 else f"{v:,.1f}")
        print(f"| {r['workload']} | {r['metric']} | {fmt(r['seglog']['median'])} | "
              f"{fmt(r['kafka']['median'])} | {fmt(r['ratio'])} |")
    print("\n| limit | MB/s |\n|---|---|")
    for l in doc["limits"]:
        print(f"| {l['name']} | {l['median']:,.0f} |")
    chart = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chart.sh")
    if any(r["workload"].startswith("append-sweep") for r in results):
        png = os.path.join(os.path.dirname(args.out), "append_sweep.png")
        subprocess.run([chart, args.out, png], check=False, stdout=sys.stderr)


if __name__ == "__main__":
    main()
