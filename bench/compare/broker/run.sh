#!/usr/bin/env bash
# seglog serve against a real Apache Kafka 4.4.0 broker on this machine: Kafka's own
# ProducerPerformance (1 KiB records, --throughput -1, acks=1 and acks=-1, 1 and 8 partitions)
# and Kafka's ConsumerPerformance (a consumer group), then ProduceLatencyProbe (src/: one record in
# flight, the produce round trip in microseconds), alternating between the two brokers.
#
#   bench/compare/broker/run.sh [--records 500000] [--rounds 3] [--configs acks1-p1,...]
#   bench/compare/broker/run.sh --quick        (smoke check: --records 20000 --rounds 1)
#   bench/compare/broker/run.sh --records 200000 --throughput 20000 --producer-warmup-records 40000 \
#       --out bench/results/broker_compare_fixed_rate.json     (latency at a fixed rate)
#
# About 7 minutes for the default 500,000 records x 3 rounds on a 2-core VM, 2 for --quick.
#
# Needs build/release/cli/seglog (or SEGLOG=path) and the Kafka 4.4.0 jars, which
# interop/kafka/oracle.sh fetches once. Writes bench/results/broker_compare.{json,md};
# broker_compare.py --help lists every flag. Not a test: it measures and reports.
set -euo pipefail
HERE="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
exec python3 "$HERE/broker_compare.py" "$@"
