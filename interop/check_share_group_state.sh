#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments --share-group-state-decoder reads the __share_group_state that
# seglog's ShareCoordinator wrote: every record decodes (no decode error, the count the writer
# reports), and replaying what Kafka decoded with the share coordinator's rules (a snapshot
# replaces a key's state, an update merges its batches, a tombstone deletes it) gives the state
# seglog's coordinator holds for every share-partition. seglog dump-log with the same decoder
# prints the same bytes as Kafka's tool.
# Usage: check_share_group_state.sh WRITER SEGLOG
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1
seglog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$writer" "$tmp/data" >"$tmp/written.txt"
: >"$tmp/dump.txt"
while read -r kind dir count; do
  [ "$kind" = dir ] || continue
  "$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments \
    --deep-iteration --print-data-log --share-group-state-decoder \
    --files "$dir/00000000000000000000.log" >"$tmp/one.txt"
  "$seglog" dump-log --deep-iteration --print-data-log --share-group-state-decoder \
    --files "$dir/00000000000000000000.log" >"$tmp/ours.txt"
  if ! diff "$tmp/one.txt" "$tmp/ours.txt"; then
    echo "$dir: seglog dump-log --share-group-state-decoder differs from Kafka's (< Kafka, > seglog)"
    exit 1
  fi
  got=$(grep -c '^| offset: ' "$tmp/one.txt" || true)
  if [ "$got" != "$count" ]; then
    echo "$dir: DumpLogSegments shows $got records, seglog wrote $count"; cat "$tmp/one.txt"; exit 1
  fi
  cat "$tmp/one.txt" >>"$tmp/dump.txt"
done <"$tmp/written.txt"
python3 - "$tmp/dump.txt" "$tmp/written.txt" <<'PY'
import json, re, sys
dump, written = sys.argv[1], sys.argv[2]
state = {}
def merge(old, new, start):
    # PersisterStateBatchCombiner's result per offset: the highest (count, state) wins.
    per = {}
    for b in old + new:
        for o in range(max(b["firstOffset"], start if start != -1 else b["firstOffset"]), b["lastOffset"] + 1):
            rank = (b["deliveryCount"], b["deliveryState"])
            per[o] = max(per.get(o, rank), rank)
    return per
for line in open(dump, encoding="utf-8"):
    if not line.startswith("| offset: "):
        continue
    m = re.search(r" key: (\{.*\}) payload: (.*)$", line.rstrip("\n"))
    if not m:
        sys.exit(f"no key/payload: {line}")
    key = json.loads(m[1])
    k = (key["data"]["groupId"], key["data"]["partition"])
    payload = m[2]
    if payload == "<DELETE>":
        if key["type"] != "0":
            sys.exit(f"a tombstone of record type {key['type']}")
        state.pop(k, None)
        continue
    v = json.loads(payload)["data"]
    if key["type"] == "0":
        state[k] = {"epoch": v["snapshotEpoch"], "start": v["startOffset"],
                    "per": merge([], v["stateBatches"], v["startOffset"])}
    elif key["type"] == "1":
        s = state[k]
        if v["snapshotEpoch"] != s["epoch"]:
            sys.exit(f"an update of {k} with snapshot epoch {v['snapshotEpoch']}, last snapshot {s['epoch']}")
        start = s["start"] if v["startOffset"] == -1 else v["startOffset"]
        old = [{"firstOffset": o, "lastOffset": o, "deliveryCount": r[0], "deliveryState": r[1]}
               for o, r in s["per"].items()]
        s["per"], s["start"] = merge(old, v["stateBatches"], start), start
    else:
        sys.exit(f"record type {key['type']}")
checked = 0
for line in open(written, encoding="utf-8"):
    parts = line.split()
    if parts[0] != "state":
        continue
    group, p = parts[1], int(parts[2])
    if parts[3] == "deleted":
        if (group, p) in state:
            sys.exit(f"{group}:{p} is deleted in seglog, not in what Kafka decoded")
        checked += 1
        continue
    epoch, start = int(parts[3]), int(parts[4])
    per = {}
    for b in filter(None, (parts[5] if len(parts) > 5 else "").split(",")):
        rng, rank = b.split(":")
        first, last = map(int, rng.split("-"))
        st, cnt = map(int, rank.split("x"))
        for o in range(first, last + 1):
            per[o] = (cnt, st)
    s = state.get((group, p))
    if s is None or s["epoch"] != epoch or s["start"] != start or s["per"] != per:
        sys.exit(f"{group}:{p}: seglog holds epoch {epoch} start {start} {per}; Kafka decoded {s}")
    checked += 1
if checked != 6:
    sys.exit(f"checked {checked} share-partitions, want 6")
print(f"{checked} share-partitions agree")
PY
echo "Kafka DumpLogSegments --share-group-state-decoder: decode every record seglog's share coordinator wrote, as seglog dump-log does"
