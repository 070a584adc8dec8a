#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments decodes the share group records seglog's group coordinator
# writes to __consumer_offsets (types 10-15, with --offsets-decoder) and the share state its
# share coordinator writes for them to __share_group_state (--share-group-state-decoder): every
# record decodes, every share group record type appears, the deleted group "sa" ends in
# tombstones of every type it had, and every share-partition of "orders" was initialized for
# both groups. seglog dump-log with the same decoders prints the same bytes as Kafka's tool.
# Usage: check_share_group_records.sh WRITER SEGLOG
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1
seglog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t dirs < <("$writer" "$tmp/data")
[ "${#dirs[@]}" = 2 ] || { echo "the writer printed ${#dirs[@]} directories"; exit 1; }
dump_both() {  # DECODER FILE OUT: Kafka's dump to OUT, and seglog's, which must be the same
  "$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments --deep-iteration \
    --print-data-log "$1" --files "$2" >"$3"
  "$seglog" dump-log --deep-iteration --print-data-log "$1" --files "$2" >"$tmp/ours.txt"
  if ! diff "$3" "$tmp/ours.txt"; then
    echo "seglog dump-log $1 differs from Kafka's on $2 (< Kafka, > seglog)"
    exit 1
  fi
}
dump_both --offsets-decoder "${dirs[0]}/00000000000000000000.log" "$tmp/offsets.txt"
dump_both --share-group-state-decoder "${dirs[1]}/00000000000000000000.log" "$tmp/state.txt"
python3 - "$tmp/offsets.txt" "$tmp/state.txt" <<'PY'
import json, re, sys
def records(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("| offset: "):
            continue
        m = re.search(r" key: (\{.*\}) payload: (.*)$", line.rstrip("\n"))
        if not m:
            sys.exit(f"{path}: a record without a decoded key: {line}")
        key = json.loads(m[1])
        payload = None if m[2] == "<DELETE>" else json.loads(m[2])
        out.append((key, payload))
    return out
offsets = records(sys.argv[1])
state = records(sys.argv[2])
share_types = {10, 11, 12, 13, 14, 15}
seen = {}
for key, payload in offsets:
    t = int(key["type"])
    if t in share_types:
        seen.setdefault((key["data"]["groupId"], t), []).append(payload)
for t in share_types:
    if not any(k[1] == t for k in seen):
        sys.exit(f"no record of type {t} in __consumer_offsets")
# Both members of sa were given partitions of orders at some point (type 13 targets).
given = {k["data"]["memberId"] for k, p in offsets if int(k["type"]) == 13 and p is not None
         and any(tp["partitions"] for tp in p["data"]["topicPartitions"])}
if not {"member-a", "member-b", "member-c"} <= given:
    sys.exit(f"members given partitions: {sorted(given)}")
# The deleted group ends in tombstones, for every type it wrote; the other keeps its group
# records (its member was fenced).
for (group, t), payloads in seen.items():
    if group == "sa" and payloads[-1] is not None:
        sys.exit(f"group sa's last record of type {t} is not a tombstone: {payloads[-1]}")
    if group == "sb" and t in (11, 12, 15) and payloads[-1] is None:
        sys.exit(f"group sb's record of type {t} ends in a tombstone")
# sb's type 15 says all three partitions of "orders" are initialized.
meta = seen[("sb", 15)][-1]["data"]
inited = {p for t in meta["initializedTopics"] for p in t["partitions"]}
if inited != {0, 1, 2} or meta["initializingTopics"]:
    sys.exit(f"sb's share-partition metadata: {meta}")
# Both groups' share-partitions got a snapshot; sa's were deleted.
snapshots = {(k["data"]["groupId"], k["data"]["partition"]) for k, p in state if p is not None}
deleted = {(k["data"]["groupId"], k["data"]["partition"]) for k, p in state if p is None}
for g in ("sa", "sb"):
    for p in range(3):
        if (g, p) not in snapshots:
            sys.exit(f"no share state snapshot for {g}:{p}")
if deleted != {("sa", 0), ("sa", 1), ("sa", 2)}:
    sys.exit(f"share state deleted for {sorted(deleted)}, want sa's three partitions")
print(f"{len(offsets)} __consumer_offsets records and {len(state)} __share_group_state records decoded")
PY
echo "Kafka DumpLogSegments decodes the share group records seglog wrote, as seglog dump-log does"
