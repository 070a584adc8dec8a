#!/usr/bin/env bash
# Regenerate tests/data/kafka_written/ from a real Apache Kafka 4.4.0 broker.
#
#   interop/kafka/broker/make_fixture.sh [outdir]     (default: <repo>/tests/data/kafka_written)
#
# Starts a single-node KRaft broker (broker.sh) in a temp workdir, creates the kw-<codec> topics
# and produces the deterministic workload (Produce), stops the broker with SIGTERM (clean
# shutdown), copies each partition directory to <outdir>/kw-<codec>-0/, and writes per topic
#   kw-<codec>-0.files.txt    name and size of every file in the partition directory
#   kw-<codec>-0.dump.txt     DumpLogSegments --deep-iteration over .log/.index/.timeindex/.snapshot
#   kw-<codec>-0.records.json every batch and record as Kafka's FileRecords reads them
#   kw-<codec>-0.lookups.json Kafka's index, translateOffset and fetchOffsetByTimestamp answers
# Set KEEP_WORK=1 to keep the temp workdir. The broker is killed on any failure.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd -- "$SCRIPT_DIR/../../.." && pwd -P)"
BROKER="$SCRIPT_DIR/broker.sh"
ORACLE="$SCRIPT_DIR/../oracle.sh"
OUT="${1:-$REPO/tests/data/kafka_written}"
CODECS=(none gzip snappy lz4 zstd)
PORT="${KAFKA_BROKER_PORT:-19092}"

log() { echo "make_fixture.sh: $*" >&2; }
die() { echo "make_fixture.sh: $*" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-kafka-fixture.XXXXXX")"
cleanup() {
    local rc=$?
    # Never leave a broker behind: kill it if it is still running (no-op after a clean stop).
    "$BROKER" kill "$WORK/broker" >/dev/null 2>&1 || true
    if [[ "${KEEP_WORK:-0}" == 1 || $rc -ne 0 ]]; then
        log "workdir kept: $WORK"
    else
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CP="$("$BROKER" classpath)"
JAVA=(java -Dlog4j2.configurationFile="$SCRIPT_DIR/../log4j2.properties" -cp "$CP")

"$BROKER" start "$WORK/broker"
log "producing"
"${JAVA[@]}" Produce "127.0.0.1:$PORT" "$WORK/sent"
"$BROKER" stop "$WORK/broker"
[[ -f "$WORK/broker/data/.kafka_cleanshutdown" ]] || die "no .kafka_cleanshutdown marker: not a clean shutdown"

mkdir -p "$OUT"
for c in "${CODECS[@]}"; do
    p="kw-$c-0"
    [[ -d "$WORK/broker/data/$p" ]] || die "missing partition directory $p"
    rm -rf "${OUT:?}/$p" "$OUT/$p".*
    cp -a "$WORK/broker/data/$p" "$OUT/$p"
    (cd "$OUT/$p" && for f in $(ls -A | LC_ALL=C sort); do printf '%s %d\n' "$f" "$(stat -c %s "$f")"; done) >"$OUT/$p.files.txt"
done

for c in "${CODECS[@]}"; do
    p="kw-$c-0"
    # Run inside $OUT so the paths printed in the dump are relative (kw-<codec>-0/<file>).
    files="$(cd "$OUT" && ls "$p"/*.log "$p"/*.index "$p"/*.timeindex "$p"/*.snapshot 2>/dev/null | LC_ALL=C sort | paste -sd, -)"
    # Its stderr (e.g. the "Non-consecutive offsets" report) goes to <p>.dump.stderr.txt if any.
    (cd "$OUT" && "$ORACLE" kafka-class org.apache.kafka.tools.DumpLogSegments --files "$files" --deep-iteration) \
        >"$OUT/$p.dump.txt" 2>"$OUT/$p.dump.stderr.txt"
    sed -i "s#$OUT/##g" "$OUT/$p.dump.stderr.txt"
    [[ -s "$OUT/$p.dump.stderr.txt" ]] || rm -f "$OUT/$p.dump.stderr.txt"
    "${JAVA[@]}" Lookups "$OUT/$p" "$OUT/$p.lookups.json" "$OUT/$p.records.json" \
        --sent "$WORK/sent/kw-$c.sent.jsonl"
done

log "sizes (bytes):"
(cd "$OUT" && for c in "${CODECS[@]}"; do
    p="kw-$c-0"
    printf '  %-12s dir %8d  dump %7d  records %7d  lookups %6d\n' "$p" \
        "$(cat "$p"/* | wc -c)" "$(wc -c <"$p.dump.txt")" "$(wc -c <"$p.records.json")" "$(wc -c <"$p.lookups.json")"
done) >&2
log "total: $(du -sb "$OUT" | cut -f1) bytes in $OUT"
