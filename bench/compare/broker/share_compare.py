#!/usr/bin/env python3
"""bench/compare/broker/share_compare.py: share groups (KIP-932, issue 31), `seglog serve`
against Apache Kafka 4.4.0.

Both brokers run at once on fresh data directories (broker_compare.py's SeglogBroker and
KafkaBroker: Kafka single-node KRaft with its defaults; its format finalizes share.version 2,
as seglog's bootstrap does). On each, a 1-partition and an 8-partition topic are preloaded
with --records records of --record-size bytes (Kafka's ProducerPerformance, acks=all). Then,
per round, per topic and per member count (1, 4, 16), the brokers alternate, seglog then Kafka,
each running src/ShareBench.java: M KafkaShareConsumers of a new share group in one JVM
(share.auto.offset.reset=earliest as a group config, implicit acknowledgement, commitSync
after every poll, timed) until the group has seen every record of the topic. One unmeasured
warm-up run per broker first.

Per run: records/s (from the first record to the last), the ShareAcknowledge round trip
(commitSync) p50/p99 in microseconds, the broker's CPU-seconds (utime+stime of /proc/<pid>/stat
over the whole client run, joining included) and CPU microseconds per record, the broker's
largest RSS (sampled every 50 ms). Medians over the rounds.

  bench/compare/broker/share_compare.py [--records 300000] [--rounds 2] [--members 1,4,16]
      [--partitions 1,8] [--ack sync|piggyback] [--baseline OTHER_SEGLOG]

--baseline runs another seglog binary in Kafka's place (before/after numbers from one run).
Writes bench/results/share_compare.json and .md. Not a test: it measures and reports.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import broker_compare as bc  # noqa: E402  (same directory)

SHARE_LINE = re.compile(
    r"^share\.bench members=(\d+) records=(\d+) unique=(\d+) delivered=(\d+) "
    r"first\.record\.ms=([\d.]+) consume\.ms=([\d.]+) records\.per\.sec=([\d.]+) commits=(\d+) "
    r"ack\.p50\.us=(-?\d+) ack\.p99\.us=(-?\d+) ack\.max\.us=(-?\d+)", re.M)


class ShareRunner(bc.Bench):
    def preload(self, broker, other, topic, records, size, outfile):
        cmd = self.java + ["org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                           "--num-records", str(records), "--record-size", str(size),
                           "--throughput", "-1", "--bootstrap-server", broker.bootstrap,
                           "--command-property", "acks=-1"]
        text, res = bc.measured_run(cmd, broker, other, 120 + records / 2000, outfile)
        prod = bc.parse_producer(text)
        if prod["records"] != records:
            raise bc.BenchError(f"{broker.name}: {prod['records']} of {records} records preloaded")
        res.update(prod)
        return res

    def share(self, broker, other, topic, group, members, records, ack, outfile):
        limit = int(60 + records / 1000)
        cmd = self.java + ["ShareBench", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                           "--group", group, "--members", str(members), "--records", str(records),
                           "--ack", ack, "--timeout-s", str(limit)]
        text, res = bc.measured_run(cmd, broker, other, limit + 60, outfile)
        m = SHARE_LINE.search(text)
        if m is None:
            raise bc.BenchError(f"no ShareBench result in:\n{text[-2000:]}")
        res.update({"members": int(m[1]), "records": int(m[2]), "unique": int(m[3]),
                    "delivered": int(m[4]), "first_record_ms": float(m[5]),
                    "consume_ms": float(m[6]), "records_per_s": float(m[7]), "commits": int(m[8]),
                    "ack_p50_us": int(m[9]), "ack_p99_us": int(m[10]), "ack_max_us": int(m[11])})
        if res["unique"] < records:
            raise bc.BenchError(f"{broker.name}: ShareBench saw {res['unique']} of {records}")
        res["cpu_us_per_record"] = round(res["broker_cpu_s"] * 1e6 / records, 2)
        return res


def med(runs, broker, p, m, field):
    vals = [r[field] for r in runs if r["broker"] == broker and r["partitions"] == p
            and r["members"] == m]
    return statistics.median(vals) if vals else None


def markdown(res):
    runs = res["runs"]
    names = res["brokers"]
    a, b = names
    s = res["settings"]
    out = [f"# Share groups: {a} vs {b} ({res['date']}, {res['git_head']})", "",
           f"`{res['command']}`; {s['records']:,} records of {s['record_size']} bytes per topic, "
           f"acknowledgement {s['ack']}, {s['rounds']} alternating rounds, medians. "
           f"Machine: {res['machine']}. Load average before {res['loadavg_start']}, "
           f"after {res.get('loadavg_end')}.", "",
           f"| partitions | members | {a} rec/s | {b} rec/s | ratio | {a} ack p50/p99 µs | "
           f"{b} ack p50/p99 µs | {a} CPU µs/rec | {b} CPU µs/rec | CPU ratio | "
           f"{a} RSS MiB | {b} RSS MiB | first record ms ({a}, {b}) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in s["partitions"]:
        for m in s["members"]:
            ra, rb = med(runs, a, p, m, "records_per_s"), med(runs, b, p, m, "records_per_s")
            if ra is None or rb is None:
                continue
            ca, cb = med(runs, a, p, m, "cpu_us_per_record"), med(runs, b, p, m, "cpu_us_per_record")
            out.append(
                f"| {p} | {m} | {ra:,.0f} | {rb:,.0f} | {ra / rb:.2f} | "
                f"{med(runs, a, p, m, 'ack_p50_us'):,.0f} / {med(runs, a, p, m, 'ack_p99_us'):,.0f} | "
                f"{med(runs, b, p, m, 'ack_p50_us'):,.0f} / {med(runs, b, p, m, 'ack_p99_us'):,.0f} | "
                f"{ca:.2f} | {cb:.2f} | {ca / cb:.2f} | "
                f"{med(runs, a, p, m, 'broker_rss_max_mib'):.1f} | "
                f"{med(runs, b, p, m, 'broker_rss_max_mib'):.1f} | "
                f"{med(runs, a, p, m, 'first_record_ms'):,.0f}, {med(runs, b, p, m, 'first_record_ms'):,.0f} |")
    out += ["", "Every run (records/s, CPU µs/record, redelivered records):", ""]
    for r in runs:
        out.append(f"- r{r['round']} {r['broker']} p{r['partitions']} m{r['members']}: "
                   f"{r['records_per_s']:,.0f}/s, {r['cpu_us_per_record']:.2f} µs/rec, "
                   f"ack p50/p99 {r['ack_p50_us']}/{r['ack_p99_us']} µs, "
                   f"{r['delivered'] - r['unique']} redelivered")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=300000, help="records per topic (300000)")
    ap.add_argument("--record-size", type=int, default=150, help="bytes per record (150)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (2)")
    ap.add_argument("--members", default="1,4,16", help="member counts (1,4,16)")
    ap.add_argument("--partitions", default="1,8", help="topic layouts (1,8)")
    ap.add_argument("--ack", default="sync", choices=["sync", "piggyback"])
    ap.add_argument("--seglog", default=os.environ.get("SEGLOG", os.path.join(bc.ROOT, "build/release/cli/seglog")))
    ap.add_argument("--baseline", help="another seglog binary, run in Kafka's place")
    ap.add_argument("--work-dir", default="/tmp/seglog-share-compare")
    ap.add_argument("--out", default=os.path.join(bc.ROOT, "bench/results/share_compare.json"))
    args = ap.parse_args()
    members = [int(x) for x in args.members.split(",")]
    partitions = [int(x) for x in args.partitions.split(",")]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cp = subprocess.run([bc.ORACLE, "classpath-with", "brokerbench", os.path.join(HERE, "src")],
                        check=True, capture_output=True, text=True).stdout.strip()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    runner = ShareRunner(args, cp)
    if args.baseline:
        other = bc.SeglogBroker(args.baseline, os.path.join(args.work_dir, "baseline"), name="baseline")
    else:
        other = bc.KafkaBroker(cp, os.path.join(args.work_dir, "kafka"))
    brokers = [bc.SeglogBroker(args.seglog, os.path.join(args.work_dir, "seglog")), other]
    res = {"what": "share groups: seglog serve vs " + brokers[1].name,
           "command": " ".join(["bench/compare/broker/share_compare.py", *sys.argv[1:]]),
           "date": datetime.datetime.now().isoformat(timespec="seconds"),
           "git_head": subprocess.run(["git", "-C", bc.ROOT, "rev-parse", "--short", "HEAD"],
                                      capture_output=True, text=True).stdout.strip(),
           "machine": bc.machine(), "loadavg_start": bc.loadavg(),
           "brokers": [b.name for b in brokers],
           "settings": {"records": args.records, "record_size": args.record_size,
                        "rounds": args.rounds, "members": members, "partitions": partitions,
                        "ack": args.ack},
           "preload": [], "runs": []}
    n = args.records
    try:
        for b in brokers:
            b.start()
            bc.log(f"{b.name} up on {b.bootstrap}")
        for i, b in enumerate(brokers):
            for p in partitions:
                runner.create_topics(b, p, [f"share-p{p}"])
                pre = runner.preload(b, brokers[1 - i], f"share-p{p}", n, args.record_size,
                                     os.path.join(args.work_dir, f"preload-{b.name}-p{p}.out"))
                res["preload"].append({"broker": b.name, "partitions": p, **pre})
                bc.log(f"{b.name}: preloaded share-p{p} at {pre['records_per_s']:.0f}/s")
        for i, b in enumerate(brokers):  # one unmeasured warm-up each
            runner.share(b, brokers[1 - i], f"share-p{partitions[0]}", "warmup", 1, n // 5, args.ack,
                         os.path.join(args.work_dir, f"warmup-{b.name}.out"))
        for r in range(args.rounds):
            for p in partitions:
                for m in members:
                    for i, b in enumerate(brokers):
                        run = runner.share(b, brokers[1 - i], f"share-p{p}", f"g-p{p}-m{m}-r{r}", m, n,
                                           args.ack, os.path.join(args.work_dir, f"r{r}-{b.name}-p{p}-m{m}.out"))
                        run.update({"round": r, "broker": b.name, "partitions": p})
                        res["runs"].append(run)
                        bc.log(f"r{r} {b.name} p{p} m{m}: {run['records_per_s']:.0f}/s "
                               f"{run['cpu_us_per_record']:.2f} µs/rec ack p50/p99 "
                               f"{run['ack_p50_us']}/{run['ack_p99_us']} µs "
                               f"first {run['first_record_ms']:.0f} ms rss {run['broker_rss_max_mib']} MiB "
                               f"redelivered {run['delivered'] - run['unique']}")
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
