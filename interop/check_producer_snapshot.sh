#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments reads the producer snapshots seglog wrote: the entries it prints
# for the snapshot of a clean close must be exactly those the writer's inputs imply, and the
# snapshot taken at the roll must parse too. Usage: check_producer_snapshot.sh WRITER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$writer" "$tmp/p-0" >"$tmp/expected.txt"
snapshots=$(cd "$tmp/p-0" && ls *.snapshot)
[ "$(echo "$snapshots" | wc -l)" = 2 ] || { echo "expected two snapshots, found: $snapshots"; exit 1; }
last=$(echo "$snapshots" | tail -1)
"$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments \
  --files "$tmp/p-0/$last" >"$tmp/dump.txt" 2>"$tmp/err.txt"
grep '^producerId:' "$tmp/dump.txt" >"$tmp/actual.txt" || true
if ! diff -u "$tmp/expected.txt" "$tmp/actual.txt"; then
  echo "Kafka's DumpLogSegments of $last differs from seglog's inputs"; cat "$tmp/dump.txt" "$tmp/err.txt"; exit 1
fi
first=$(echo "$snapshots" | head -1)
"$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments \
  --files "$tmp/p-0/$first" >"$tmp/dump_roll.txt" 2>"$tmp/err_roll.txt"
if ! grep -q '^producerId: 1000 .* lastSequence: 7 lastOffset: 10 ' "$tmp/dump_roll.txt" ||
   grep -qi 'exception\|corrupt' "$tmp/dump_roll.txt" "$tmp/err_roll.txt"; then
  echo "Kafka could not read the roll's snapshot $first"; cat "$tmp/dump_roll.txt" "$tmp/err_roll.txt"; exit 1
fi
echo "Kafka DumpLogSegments: $last has the $(wc -l <"$tmp/actual.txt") producer entries seglog wrote; $first parses"
