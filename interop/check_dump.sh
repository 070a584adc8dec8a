#!/usr/bin/env bash
# Runs Kafka 4.4.0's DumpLogSegments --deep-iteration over a .log file seglog wrote and fails
# unless Kafka reports every batch valid, no invalid trailing bytes, the expected batch count,
# and consecutive offsets. Usage: check_dump.sh FILE.log EXPECTED_BATCHES EXPECTED_RECORDS
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$1 want_batches=$2 want_records=$3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments \
  --files "$log" --deep-iteration --print-data-log >"$out" 2>"$err"
batches=$(grep -c '^baseOffset:' "$out" || true)
valid=$(grep -c 'isvalid: true' "$out" || true)
records=$(grep -c '^| offset:' "$out" || true)
fail=0
[ "$batches" = "$want_batches" ] || { echo "batches: expected $want_batches, Kafka found $batches"; fail=1; }
[ "$valid" = "$want_batches" ] || { echo "valid batches: expected $want_batches, Kafka says $valid"; fail=1; }
[ "$records" = "$want_records" ] || { echo "records: expected $want_records, Kafka found $records"; fail=1; }
if grep -q 'invalid bytes' "$out"; then echo "Kafka: $(grep 'invalid bytes' "$out")"; fail=1; fi
if grep -q 'Non-consecutive' "$err"; then echo "Kafka: $(cat "$err")"; fail=1; fi
if [ $fail -ne 0 ]; then head -20 "$out"; exit 1; fi
echo "Kafka DumpLogSegments: $batches batches, $records records, all valid"
