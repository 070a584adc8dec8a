#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments and `seglog dump-log` print the same text, line for line, for
# KRaft metadata files: those seglog_write_metadata_log writes (a node's metadata log and
# snapshots through seglog's MetadataLog; every record type and version, every KRaft control
# record, JSON escapes and number texts, and values Kafka refuses, with a snapshot), and those a
# real Kafka broker wrote (tests/data/cluster_metadata/kafka/). Both with
# --cluster-metadata-decoder (records as JSON, "Error at ..." lines) and with --deep-iteration
# alone (the control records' JSON); stdout, stderr and the exit status must match.
# Usage: check_metadata_dump.sh PATH/TO/seglog_write_metadata_log PATH/TO/seglog FIXTURE_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1 seglog=$2 fixture=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$writer" "$work/w" >"$work/files.txt"
mapfile -t files <"$work/files.txt"
files+=("$fixture"/kafka/*.log "$fixture"/kafka/*.checkpoint)
list=$(printf '%s\n' "${files[@]}" | paste -sd,)

fail=0
for mode in --cluster-metadata-decoder --deep-iteration; do
  set +e
  "$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments --files "$list" $mode \
    >"$work/k.out" 2>"$work/k.err"
  k_rc=$?
  "$seglog" dump-log --files "$list" $mode >"$work/s.out" 2>"$work/s.err"
  s_rc=$?
  set -e
  if [ "$k_rc" != 0 ] || [ "$s_rc" != 0 ]; then
    echo "$mode: exit status Kafka $k_rc, seglog $s_rc"; head -5 "$work/k.err" "$work/s.err"; fail=1
  fi
  if ! cmp -s "$work/k.out" "$work/s.out"; then
    echo "$mode: seglog dump-log differs from Kafka's DumpLogSegments (< Kafka, > seglog):"
    diff "$work/k.out" "$work/s.out" | head -20 | cut -c1-400
    fail=1
  fi
  if ! cmp -s "$work/k.err" "$work/s.err"; then
    echo "$mode: stderr differs"; diff "$work/k.err" "$work/s.err" | head -10; fail=1
  fi
  lines=$(wc -l <"$work/k.out")
  echo "$mode: ${#files[@]} files, $lines lines compared"
  # What the files must hold, so that two empty dumps cannot pass.
  need=(" LeaderChange: " " SnapshotHeader " " SnapshotFooter " " KRaftVersion " " KRaftVoters "
        "controlType: UNKNOWN(7)" "Snapshot end offset: ")
  if [ "$mode" = --cluster-metadata-decoder ]; then
    need+=('"type":"CLIENT_QUOTA_RECORD"' '"type":"USER_SCRAM_CREDENTIAL_RECORD"'
           '"type":"PARTITION_CHANGE_RECORD"' 'skipping. Failed to deserialize record'
           'skipping. Found 2 byte(s) of garbage after 2' 'Unknown metadata id 99'
           'frame version 0' 'was too large.' 'Error while reading frame version')
  fi
  for n in "${need[@]}"; do
    grep -qF -- "$n" "$work/k.out" || { echo "$mode: Kafka's dump has no '$n'"; fail=1; }
  done
done
[ $fail -eq 0 ] && echo "check_metadata_dump: seglog dump-log prints what Kafka's DumpLogSegments prints"
exit $fail
