#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments reads the transaction files seglog wrote: the .txnindex
# entries it prints are exactly those the writer's inputs imply, the .log shows the markers,
# and the close's .snapshot keeps the open transaction. seglog's own dump-log prints the same
# as Kafka for each of those files. Usage: check_transactions.sh WRITER SEGLOG
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1
seglog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$writer" "$tmp/p-0" >"$tmp/expected.txt" 2>"$tmp/open.txt"
dump() {  # kafka|seglog FILE...
  local who=$1
  shift
  local files
  files=$(IFS=,; echo "$*")
  if [ "$who" = kafka ]; then
    "$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments --deep-iteration \
      --files "$files"
  else
    "$seglog" dump-log --deep-iteration --files "$files"
  fi
}
cd "$tmp/p-0"
txn=$(ls *.txnindex)
[ "$(echo "$txn" | wc -l)" = 2 ] || { echo "expected two .txnindex files, found: $txn"; exit 1; }
for f in $txn; do
  dump kafka "$tmp/p-0/$f" >"$tmp/kafka_$f.txt"
  grep '^version:' "$tmp/kafka_$f.txt" | sed "s/^/$f: /"
done >"$tmp/actual.txt"
if ! diff -u "$tmp/expected.txt" "$tmp/actual.txt"; then
  echo "Kafka's DumpLogSegments of the .txnindex files differs from seglog's inputs"; exit 1
fi
read -r _ open_pid open_first <"$tmp/open.txt"
last=$(ls *.snapshot | tail -1)
dump kafka "$tmp/p-0/$last" >"$tmp/kafka_snapshot.txt"
grep -q "^producerId: $open_pid .* currentTxnFirstOffset: OptionalLong\[$open_first\] " \
  "$tmp/kafka_snapshot.txt" || { echo "the open transaction is not in $last:"; cat "$tmp/kafka_snapshot.txt"; exit 1; }
logs=$(ls *.log)
all=()
for f in $logs $txn $last; do all+=("$tmp/p-0/$f"); done
dump kafka "${all[@]}" >"$tmp/kafka_all.txt"
grep -c 'endTxnMarker: ABORT coordinatorEpoch: 3' "$tmp/kafka_all.txt" | grep -qx 3 ||
  { echo "Kafka does not show the 3 ABORT markers"; cat "$tmp/kafka_all.txt"; exit 1; }
dump seglog "${all[@]}" >"$tmp/seglog_all.txt"
if ! diff -u "$tmp/kafka_all.txt" "$tmp/seglog_all.txt"; then
  echo "seglog dump-log differs from Kafka's DumpLogSegments"; exit 1
fi
echo "Kafka DumpLogSegments: $(wc -l <"$tmp/actual.txt") aborted transactions in $(echo $txn | wc -w) .txnindex files as written, the open transaction in $last, 3 ABORT markers; seglog dump-log prints the same"
