#!/usr/bin/env bash
# Kafka 4.4.0 judges partition directories written by seglog (interop checks (a) and (c)):
#   1. seglog produces seed 000's Example 1, the seg2 example (segment.index.bytes=400) and
#      compressed topics, with fixed timestamps;
#   2. Kafka's DumpLogSegments reads every segment with --deep-iteration, --index-sanity-check
#      and --verify-index-only and must report no invalid batch, no invalid bytes, no index
#      mismatch and no sanity failure;
#   3. `seglog dump-log` with the same arguments prints exactly what Kafka prints.
# Usage: check_segments.sh PATH/TO/seglog
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seglog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kafka_dump() { "$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments "$@"; }
# The end-of-run reports on stderr come in Java HashMap order, which seglog does not always
# reproduce (docs/format/dump_log.md); compare them as a set of per-file blocks.
blocks() { awk '/^[^ ]/{if (b) print b; b=$0; next} {b=b "\n" $0} END{if (b) print b}' "$1" | sort; }

"$seglog" produce --log-dir "$work" --topic ex1 --num-records 12000 --batch-records 10 \
  --value-size 250 --config segment.bytes=1048576 --timestamp-start 1794024676000 --timestamp-step 1 >/dev/null
"$seglog" produce --log-dir "$work" --topic seg2 --num-records 2000 --batch-records 10 \
  --value-size 250 --config segment.bytes=1048576 --config segment.index.bytes=400 \
  --timestamp-start 1794024676000 --timestamp-step 1 >/dev/null
for codec in gzip snappy lz4 zstd; do
  "$seglog" produce --log-dir "$work" --topic "z-$codec" --num-records 30000 --batch-records 100 \
    --value-size 300 --config segment.bytes=1048576 --compression "$codec" \
    --timestamp-start 1794024676000 --timestamp-step 3 >/dev/null
done

fail=0
checked=0
for part in "$work"/*-0; do
  files=$(ls "$part"/*.log "$part"/*.index "$part"/*.timeindex | paste -sd, -)
  for mode in "--deep-iteration --print-data-log" "--index-sanity-check" "--verify-index-only"; do
    # shellcheck disable=SC2086
    kafka_dump --files "$files" $mode >"$work/k.out" 2>"$work/k.err" || { echo "Kafka failed on $part ($mode)"; cat "$work/k.err"; fail=1; continue; }
    # shellcheck disable=SC2086
    "$seglog" dump-log --files "$files" $mode >"$work/s.out" 2>"$work/s.err" || { echo "seglog dump-log failed on $part ($mode)"; cat "$work/s.err"; fail=1; }
    if grep -q 'isvalid: false' "$work/k.out"; then echo "Kafka: invalid batch in $part"; fail=1; fi
    if grep -q 'invalid bytes' "$work/k.out"; then echo "Kafka: invalid bytes in $part"; fail=1; fi
    if grep -qE 'Mismatches|mismatch|not found in|out of order' "$work/k.err"; then
      echo "Kafka: index problems in $part ($mode):"; head -5 "$work/k.err"; fail=1
    fi
    if [ "$mode" = "--index-sanity-check" ]; then
      n_idx=$(ls "$part"/*.index "$part"/*.timeindex | wc -l)
      # An .index without entries (the metadata log's small segment) prints "is empty." instead.
      n_ok=$(grep -cE 'passed sanity check|\.index is empty\.$' "$work/k.out" || true)
      [ "$n_ok" = "$n_idx" ] || { echo "Kafka: $n_ok of $n_idx indexes passed the sanity check in $part"; fail=1; }
    fi
    if ! cmp -s "$work/k.out" "$work/s.out" || [ "$(blocks "$work/k.err")" != "$(blocks "$work/s.err")" ]; then
      echo "seglog dump-log differs from Kafka's on $part ($mode):"
      diff "$work/k.out" "$work/s.out" | head -5 || true
      diff "$work/k.err" "$work/s.err" | head -5 || true
      fail=1
    fi
    checked=$((checked + 1))
  done
done
[ "$checked" -ge 18 ] || { echo "only $checked checks ran"; fail=1; }
[ $fail -eq 0 ] && echo "Kafka DumpLogSegments: $checked checks over seglog's segments, no error or mismatch; seglog dump-log identical"
exit $fail
