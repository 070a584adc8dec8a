#!/usr/bin/env bash
# seed 000, Example 2, for real: `seglog serve-storage` with the retention check every 2 s
# deletes a retention.ms=20000 topic's segments on the wall clock. The 12,000 records of
# Example 1 get timestamps that reproduce the example's order of events (segments 0 and 3830
# expire at separate checks, 7660 and 11490 at the same one). Checks the server's lines in
# Kafka's words, in order, the files at the end, and the earliest offset 12000.
# Usage: example2_live.sh SEGLOG_BIN   (about 40 s)
set -euo pipefail
seglog=$1
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
data=$work/data
mkdir -p "$data"
cat >"$work/server.properties" <<PROPS
log.dirs=$data
log.retention.check.interval.ms=2000
log.initial.task.delay.ms=2000
PROPS
"$seglog" topics --server-config "$work/server.properties" --create --topic ret --partitions 1 \
  --config retention.ms=20000 --config segment.bytes=1048576 --config file.delete.delay.ms=10000
now=$(date +%s%3N)
start=$((now - 11490))
"$seglog" produce --log-dir "$data" --topic ret --num-records 11490 --batch-records 10 \
  --value-size 250 --timestamp-start "$start" --timestamp-step 1 >/dev/null
"$seglog" produce --log-dir "$data" --topic ret --num-records 510 --batch-records 10 \
  --value-size 250 --timestamp-start "$now" --timestamp-step 0 >/dev/null
"$seglog" get-offsets --log-dir "$data" --topic ret --time earliest
"$seglog" serve-storage --server-config "$work/server.properties" >"$work/server.log" 2>&1 &
server=$!
listing() { (cd "$data/ret-0" && ls -- *.log* 2>/dev/null | tr '\n' ' '); }
last=""
for i in $(seq 1 80); do
  cur=$(listing)
  if [[ "$cur" != "$last" ]]; then
    echo "t=$(( ($(date +%s%3N) - now) / 1000 ))s: $cur"
    last=$cur
  fi
  [[ "$cur" == "00000000000000012000.log " ]] && break
  sleep 0.5
done
kill -TERM "$server"
wait "$server" || { echo "serve-storage failed"; cat "$work/server.log"; exit 1; }
"$seglog" get-offsets --log-dir "$data" --topic ret --time earliest | tee "$work/earliest"
# The partition's lines, without the time stamp and prefix, with run-dependent numbers blanked.
grep -o 'partition=ret-0, dir=[^]]*\] .*' "$work/server.log" | sed -e 's/^[^]]*\] //' \
  -e 's/ in [0-9]* ms\./ in N ms./' -e 's/lastModifiedTime=[0-9]*/lastModifiedTime=M/g' \
  -e 's/largestRecordTimestamp=[0-9]*/largestRecordTimestamp=T/g' >"$work/lines"
seg() { echo "LogSegment(baseOffset=$1, size=$2, lastModifiedTime=M, largestRecordTimestamp=T)"; }
why="due to log retention time 20000ms breach based on the largest record timestamp in the segment"
cat >"$work/expected" <<LINES
Incremented log start offset to 3830 due to segment deletion
Deleting segment $(seg 0 1045973) $why
Incremented log start offset to 7660 due to segment deletion
Deleting segment $(seg 3830 1045973) $why
Rolled new log segment at offset 12000 in N ms.
Incremented log start offset to 12000 due to segment deletion
Deleting segment $(seg 7660 1045973) $why
Deleting segment $(seg 11490 139281) $why
Deleting segment files $(seg 0 1045973)
Deleted log 00000000000000000000.log.deleted.
Deleting segment files $(seg 3830 1045973)
Deleted log 00000000000000003830.log.deleted.
Deleting segment files $(seg 7660 1045973), $(seg 11490 139281)
Deleted log 00000000000000007660.log.deleted.
Deleted log 00000000000000011490.log.deleted.
LINES
if ! diff -u "$work/expected" "$work/lines"; then
  echo "FAIL: server lines differ from seed 000 Example 2"; cat "$work/server.log"; exit 1
fi
[[ "$(listing)" == "00000000000000012000.log " ]] || { echo "FAIL: files left: $(listing)"; exit 1; }
grep -q '^ret:0:12000$' "$work/earliest" || { echo "FAIL: earliest offset"; exit 1; }
echo "example 2 (live): same deletions, roll to 12000 and earliest offset 12000 as the seed"
