#!/usr/bin/env python3
"""bench/compare/broker/txn_compare.py: transactions, `seglog serve` against Apache Kafka 4.4.0.

Both brokers run at once on fresh data directories (broker_compare.py's SeglogBroker and
KafkaBroker: Kafka single-node KRaft with its defaults); the measured runs alternate, seglog then
Kafka, one pair per round, each on fresh 1-partition topics. Per round and broker:

  1. ProducerPerformance --transactional-id (Kafka's tool: a transaction is committed every
     --transaction-duration-ms): --throughput 20000 records/s of 1 KiB with durations of 5 ms
     and 50 ms, so about 100 and 1000 records per transaction.
  2. TxnLoad (src/TxnLoad.java): exactly 100 and exactly 1000 records per transaction, as fast
     as the producer goes, each commit waited for: records/s and the commit's latency.
  3. The cost of read_committed: TxnLoad writes transactions of 100 records with every 100th
     aborted (1% aborted transactions), then ConsumerPerformance reads the topic
     read_uncommitted and read_committed (isolation.level, the fetches' aborted-transaction
     lists and the last stable offset): MB/s and the broker's CPU-seconds.

Every run records the broker's CPU-seconds (/proc/<pid>/stat before and after) and the other
broker's, to see interference. Medians over the rounds.

  bench/compare/broker/txn_compare.py [--records 200000] [--rounds 2]

Writes bench/results/txn_compare.json and .md. Not a test: it measures and reports.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import broker_compare as bc  # noqa: E402  (same directory)

TXN_LOAD = re.compile(r"^txn\.load transactions=(\d+) aborted=(\d+) records=(\d+) "
                      r"seconds=([\d.]+) records\.per\.sec=([\d.]+) end\.p50\.ms=([\d.]+) "
                      r"end\.p99\.ms=([\d.]+)", re.M)


class TxnBench(bc.Bench):
    def perf(self, broker, other, topic, records, duration_ms, outfile):
        cmd = self.java + ["org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                           "--num-records", str(records), "--record-size", "1024",
                           "--throughput", "20000", "--bootstrap-server", broker.bootstrap,
                           "--transactional-id", f"perf-{topic}",
                           "--transaction-duration-ms", str(duration_ms)]
        text, res = bc.measured_run(cmd, broker, other, self.timeout(records), outfile)
        prod = bc.parse_producer(text)
        if prod["records"] != records:
            raise bc.BenchError(f"{broker.name}: {prod['records']} of {records} records sent")
        res.update(prod)
        return res

    def load(self, broker, other, topic, transactions, per_txn, abort_every, outfile):
        cmd = self.java + ["TxnLoad", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                           "--transactions", str(transactions),
                           "--records-per-transaction", str(per_txn),
                           "--abort-every", str(abort_every), "--transactional-id", f"load-{topic}"]
        text, res = bc.measured_run(cmd, broker, other, self.timeout(transactions * per_txn),
                                    outfile)
        m = TXN_LOAD.search(text)
        if m is None:
            raise bc.BenchError(f"no TxnLoad result in:\n{text[-2000:]}")
        res.update({"transactions": int(m[1]), "aborted": int(m[2]), "records": int(m[3]),
                    "seconds": float(m[4]), "records_per_s": float(m[5]),
                    "end_p50_ms": float(m[6]), "end_p99_ms": float(m[7])})
        return res

    def read(self, broker, other, topic, records, isolation, outfile):
        cmd = self.java + ["org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                           broker.bootstrap, "--topic", topic, "--num-records", str(records),
                           "--timeout", "30000", "--command-property",
                           f"isolation.level={isolation}"]
        text, res = bc.measured_run(cmd, broker, other, self.timeout(records), outfile)
        cons = bc.parse_consumer(text)
        if cons["records"] < records:
            raise bc.BenchError(f"{broker.name}: {isolation} read {cons['records']} of {records}")
        res.update(cons)
        return res

    def timeout(self, records):
        return 120 + records / 2000


def med(runs, broker, key, field):
    vals = [r[key][field] for r in runs if r["broker"] == broker and key in r]
    return statistics.median(vals) if vals else None


def markdown(res):
    rows = [("ProducerPerformance, ~100 records/txn (20000/s, 5 ms)", "perf100", "records_per_s", "p99_ms"),
            ("ProducerPerformance, ~1000 records/txn (20000/s, 50 ms)", "perf1000", "records_per_s", "p99_ms"),
            ("TxnLoad, 100 records/txn, full speed", "load100", "records_per_s", "end_p99_ms"),
            ("TxnLoad, 1000 records/txn, full speed", "load1000", "records_per_s", "end_p99_ms")]
    runs = res["runs"]
    out = [f"# Transactions: seglog serve vs Apache Kafka 4.4.0 ({res['date']}, {res['git_head']})",
           "", f"`{res['command']}`; {res['settings']['records']:,} records of 1 KiB per run, "
           f"{res['settings']['rounds']} alternating rounds, medians. Machine: {res['machine']}.", "",
           "| run | seglog rec/s | Kafka rec/s | ratio | seglog p99 (ms) | Kafka p99 (ms) | "
           "seglog CPU-s | Kafka CPU-s |", "|---|---|---|---|---|---|---|---|"]
    for label, key, rate, p99 in rows:
        s, k = med(runs, "seglog", key, rate), med(runs, "kafka", key, rate)
        out.append(f"| {label} | {s:,.0f} | {k:,.0f} | {s / k:.2f} | "
                   f"{med(runs, 'seglog', key, p99):.1f} | {med(runs, 'kafka', key, p99):.1f} | "
                   f"{med(runs, 'seglog', key, 'broker_cpu_s'):.2f} | "
                   f"{med(runs, 'kafka', key, 'broker_cpu_s'):.2f} |")
    out += ["", "Reading a log with 1% aborted transactions (100 records each), ConsumerPerformance:",
            "", "| isolation.level | seglog MB/s | Kafka MB/s | seglog CPU-s | Kafka CPU-s |",
            "|---|---|---|---|---|"]
    for iso in ("read_uncommitted", "read_committed"):
        key = f"read_{iso}"
        out.append(f"| {iso} | {med(runs, 'seglog', key, 'fetch_mb_per_s'):.1f} | "
                   f"{med(runs, 'kafka', key, 'fetch_mb_per_s'):.1f} | "
                   f"{med(runs, 'seglog', key, 'broker_cpu_s'):.2f} | "
                   f"{med(runs, 'kafka', key, 'broker_cpu_s'):.2f} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=200000, help="records per run (200000)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (2)")
    ap.add_argument("--seglog", default=os.environ.get("SEGLOG", os.path.join(bc.ROOT, "build/release/cli/seglog")))
    ap.add_argument("--work-dir", default="/tmp/seglog-txn-compare")
    ap.add_argument("--out", default=os.path.join(bc.ROOT, "bench/results/txn_compare.json"))
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cp = subprocess.run([bc.ORACLE, "classpath-with", "brokerbench", os.path.join(HERE, "src")],
                        check=True, capture_output=True, text=True).stdout.strip()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    bench = TxnBench(args, cp)
    brokers = [bc.SeglogBroker(args.seglog, os.path.join(args.work_dir, "seglog")),
               bc.KafkaBroker(cp, os.path.join(args.work_dir, "kafka"))]
    res = {"what": "transactions: seglog serve vs Apache Kafka 4.4.0",
           "command": " ".join(["bench/compare/broker/txn_compare.py", *sys.argv[1:]]),
           "date": datetime.datetime.now().isoformat(timespec="seconds"),
           "git_head": subprocess.run(["git", "-C", bc.ROOT, "rev-parse", "--short", "HEAD"],
                                      capture_output=True, text=True).stdout.strip(),
           "machine": bc.machine(), "loadavg_start": bc.loadavg(),
           "settings": {"records": args.records, "rounds": args.rounds}, "runs": []}
    n = args.records
    try:
        for b in brokers:
            b.start()
            bc.log(f"{b.name} up on {b.bootstrap}")
        kinds = ["perf100", "perf1000", "load100", "load1000", "abort"]
        topics = [f"{k}-r{r}" for r in range(args.rounds) for k in kinds] + ["warmup"]
        for b in brokers:
            bench.create_topics(b, 1, topics)
        for i, b in enumerate(brokers):  # one unmeasured warm-up each
            bench.load(b, brokers[1 - i], "warmup", 200, 100, 0,
                       os.path.join(args.work_dir, f"warmup-{b.name}.out"))
        for r in range(args.rounds):
            for i, b in enumerate(brokers):
                other = brokers[1 - i]
                base = os.path.join(args.work_dir, f"r{r}-{b.name}")
                run = {"round": r, "broker": b.name}
                run["perf100"] = bench.perf(b, other, f"perf100-r{r}", n, 5, base + ".perf100.out")
                run["perf1000"] = bench.perf(b, other, f"perf1000-r{r}", n, 50, base + ".perf1000.out")
                run["load100"] = bench.load(b, other, f"load100-r{r}", n // 100, 100, 0,
                                            base + ".load100.out")
                run["load1000"] = bench.load(b, other, f"load1000-r{r}", n // 1000, 1000, 0,
                                             base + ".load1000.out")
                run["abort"] = bench.load(b, other, f"abort-r{r}", n // 100, 100, 100,
                                          base + ".abort.out")
                committed = (n // 100 - run["abort"]["aborted"]) * 100
                run["read_read_uncommitted"] = bench.read(b, other, f"abort-r{r}", n,
                                                          "read_uncommitted", base + ".ru.out")
                run["read_read_committed"] = bench.read(b, other, f"abort-r{r}", committed,
                                                        "read_committed", base + ".rc.out")
                res["runs"].append(run)
                bc.log(f"round {r} {b.name}: perf100 {run['perf100']['records_per_s']:.0f}/s "
                       f"load100 {run['load100']['records_per_s']:.0f}/s "
                       f"load1000 {run['load1000']['records_per_s']:.0f}/s "
                       f"rc {run['read_read_committed']['fetch_mb_per_s']:.1f} MB/s")
    finally:
        for b in brokers:
            try:
                b.stop()
            except bc.BenchError as e:
                bc.log(str(e))
    res["loadavg_end"] = bc.loadavg()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    md = markdown(res)
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
