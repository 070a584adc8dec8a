#!/usr/bin/env python3
"""Creating many topics, and starting with them: seglog against a baseline seglog build and
Kafka 4.4.0, on this machine (issue 27's performance target; docs/benchmarks.md, "Topics in the
metadata log").

    topics_compare.py --seglog build/release/cli/seglog [--baseline OLD_BIN] [--kafka]
                      [--topics 10000] [--batch 500] [--auto 1000] [--out results.json]

For each broker: a fresh directory; --topics 1-partition topics created through CreateTopics in
requests of --batch topics (confluent-kafka's AdminClient), timed per 1000 so the cost per topic
can be seen to stay flat (linear total) or grow; then --auto more topics made by Metadata
auto-creation (a Metadata request naming each, allow_auto_topic_creation); then a clean stop and
a timed start until a Metadata request lists every topic. Brokers bind 127.0.0.1 on free ports,
every wait is bounded, everything started is stopped. Uses the clients venv
(scripts/install-clients.sh) for confluent-kafka.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench", "compare", "broker"))
import broker_compare  # noqa: E402
from broker_compare import BenchError, KafkaBroker, SeglogBroker, log  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402


def create_topics(admin, names, batch, timeout=600):
    """Creates `names` in requests of `batch`; returns seconds per 1000 topics, in order."""
    per_thousand = []
    t_block = time.monotonic()
    done = 0
    deadline = time.monotonic() + timeout
    for i in range(0, len(names), batch):
        chunk = names[i:i + batch]
        futures = admin.create_topics([NewTopic(n, 1, 1) for n in chunk], request_timeout=120)
        for n, f in futures.items():
            f.result(timeout=max(1, deadline - time.monotonic()))
        done += len(chunk)
        if done % 1000 == 0:
            now = time.monotonic()
            per_thousand.append(now - t_block)
            t_block = now
        if time.monotonic() > deadline:
            raise BenchError(f"creating {len(names)} topics took more than {timeout}s")
    return per_thousand


def auto_create(bootstrap, names, timeout=600):
    """Metadata auto-creation of `names`: a Metadata request naming each one with
    allow_auto_topic_creation (librdkafka's, as a producer's first send to a topic does)."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "allow.auto.create.topics": True})
    start = time.monotonic()
    for n in names:
        p.list_topics(topic=n, timeout=30)
        if time.monotonic() - start > timeout:
            raise BenchError(f"metadata auto-creation of {len(names)} topics took over {timeout}s")
    return time.monotonic() - start


def count_topics(bootstrap, want, timeout):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            md = admin.list_topics(timeout=10)
            n = sum(1 for t in md.topics if not t.startswith("__"))
            if n >= want:
                return n
        except Exception:  # noqa: BLE001 - still starting
            pass
        time.sleep(0.2)
    raise BenchError(f"fewer than {want} topics listed after {timeout}s")


def run(broker, args):
    names = [f"t{i:05d}" for i in range(args.topics)]
    auto = [f"auto{i:05d}" for i in range(args.auto)]
    broker.start(timeout=180)
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        t0 = time.monotonic()
        per_k = create_topics(admin, names, args.batch)
        create_s = time.monotonic() - t0
        auto_s = auto_create(broker.bootstrap, auto) if auto else 0.0
        count_topics(broker.bootstrap, len(names) + len(auto), 300)
    finally:
        broker.stop(timeout=300)
    t1 = time.monotonic()
    # A restart on the same directory, timed until every topic is listed.
    if isinstance(broker, KafkaBroker):
        broker.start(timeout=600, format_storage=False)
    else:
        broker.start(timeout=600)
    try:
        count_topics(broker.bootstrap, len(names) + len(auto), 600)
        startup_s = time.monotonic() - t1
    finally:
        broker.stop(timeout=300)
    res = {"topics": len(names), "create_s": round(create_s, 2),
           "per_1000_s": [round(x, 2) for x in per_k],
           "auto_created": len(auto), "auto_s": round(auto_s, 2),
           "startup_s": round(startup_s, 2)}
    log(f"{broker.name}: {json.dumps(res)}")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", required=True)
    ap.add_argument("--baseline", help="an older seglog binary to compare with")
    ap.add_argument("--kafka", action="store_true", help="also Kafka 4.4.0")
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--auto", type=int, default=1000)
    ap.add_argument("--out")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="seglog-topics-bench-")
    results = {}
    try:
        brokers = [SeglogBroker(os.path.abspath(args.seglog), os.path.join(work, "seglog"))]
        if args.baseline:
            brokers.append(SeglogBroker(os.path.abspath(args.baseline),
                                        os.path.join(work, "baseline"), name="baseline"))
        if args.kafka:
            import subprocess
            cp = subprocess.run([os.path.join(ROOT, "interop", "kafka", "oracle.sh"), "classpath"],
                                check=True, capture_output=True, text=True).stdout.strip()
            brokers.append(KafkaBroker(cp, os.path.join(work, "kafka")))
        for b in brokers:
            results[b.name] = run(b, args)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps({"machine": broker_compare.machine(), "results": results}, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
