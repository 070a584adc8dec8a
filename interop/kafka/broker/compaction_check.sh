#!/usr/bin/env bash
# Log cleaner interop: the same keyed workload, compacted by a real Kafka 4.4.0 broker and by
# `seglog clean`, must keep the same records; and seglog must read the directory Kafka cleaned.
#
#   interop/kafka/broker/compaction_check.sh SEGLOG_BIN
#
#   a. broker.sh start; create topic `cmp` (3 partitions, cleanup.policy=delete for now,
#      segment.bytes=1048576, retention off) and produce with Kafka's idempotent producer 6 runs
#      (none gzip snappy lz4 zstd none) x 20000 records over 12000 keys "key-%05d" (fixed seed,
#      ~5% tombstones, a few empty values and headers, varied batch sizes). Runs 0-2 are dated
#      November 2023: their producers have expired (producer.id.expiration.ms, 1 day) when the
#      log is loaded again, so the cleaner keeps no batch for their sake; runs 3-5 are dated two
#      hours ago: their producers are active and the cleaner keeps each one's last batch, empty if
#      need be. Then one "tail" record per partition with a 1,000,000-byte value, which rolls a
#      new active segment (segment.bytes): the whole workload sits in closed segments (6 per
#      partition, one of them rolled by the jump in time). broker.sh stop (clean shutdown).
#   b. cp -a the data dir to K (Kafka cleans it) and S (seglog cleans it).
#   c. Kafka: broker.sh resume K; alter cmp to cleanup.policy=compact,
#      min.cleanable.dirty.ratio=0.01 (Admin API); wait until cleaner-offset-checkpoint holds the
#      active segment's base offset for every partition; broker.sh stop.
#   d. seglog: SEGLOG_BIN configs (the same topic overrides Kafka's metadata holds) and
#      SEGLOG_BIN clean --topic cmp on S.
#   e. compare, every cmp partition read with Kafka's FileRecords (CRC checked):
#        records    (partition, offset, timestamp, key, value|null, headers) of K and S equal
#                   [a difference fails];
#        batches    header fields of every batch (offsets, count, codec, producer id/epoch,
#                   sequences, flags, leader epoch, max timestamp, delete horizon set or not, the
#                   segment it is in) equal [a difference fails]; sizes, CRCs and horizon values
#                   may differ (recompression by another library; cleaning time): the batches
#                   both kept are counted byte-identical or not per codec and per what the cleaner
#                   did to them (copied, rebuilt, rebuilt with a delete horizon, emptied);
#        segments   names of the cleaned .log files equal [fails]; byte-identical ones are counted;
#        cleaner-offset-checkpoint entries of cmp equal [fails];
#        Kafka's DumpLogSegments finds every batch of S valid [fails otherwise].
#      Kafka's result is also checked against the definition of compaction (last record of every
#      key below the active segment, every record from it on), computed from the uncleaned copy.
#   f. seglog reads K as Kafka left it (with the *.deleted files of the replaced segments, which
#      Kafka deletes only file.delete.delay.ms = 60 s later, or at its next start):
#      SEGLOG_BIN check --log-dir K --topic cmp exits 0 [fails otherwise; then a copy of K without
#      the *.deleted files is checked too, to tell the causes apart] and SEGLOG_BIN consume
#      --format json of K prints exactly K's records [fails otherwise].
#
# Exit 0 when everything matches, 1 on a difference or failure. KEEP_WORK=1 keeps the temp
# workdir (always kept on failure). COMPACTION_CHECK_KAFKA_ONLY=1 stops after Kafka's cleaning (to
# develop the Kafka half without seglog). Ports: KAFKA_BROKER_PORT / KAFKA_CONTROLLER_PORT as
# broker.sh.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
BROKER="$SCRIPT_DIR/broker.sh"
ORACLE="$SCRIPT_DIR/../oracle.sh"
PORT="${KAFKA_BROKER_PORT:-19092}"
TOPIC=cmp
PARTS=3
KEYS=12000
PER_RUN=20000
SEED=20240611
# Topic overrides Kafka's metadata holds for cmp after step c; seglog gets the same ones (it only
# sees partition directories, so it would otherwise use defaults, e.g. segment.bytes of 1 GiB).
CREATE_CONFIGS="segment.bytes=1048576,retention.ms=-1,retention.bytes=-1,message.timestamp.type=CreateTime,compression.type=producer"
COMPACT_CONFIGS="cleanup.policy=compact,min.cleanable.dirty.ratio=0.01"

log() { echo "compaction_check: [$((SECONDS))s] $*"; }
die() { echo "compaction_check: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: compaction_check.sh SEGLOG_BIN" >&2; exit 2; }
SEGLOG="$1"
if [[ "${COMPACTION_CHECK_KAFKA_ONLY:-0}" != 1 ]]; then
    [[ -x "$SEGLOG" ]] || die "seglog binary '$SEGLOG' not found or not executable"
    SEGLOG="$(cd -- "$(dirname -- "$SEGLOG")" && pwd -P)/$(basename -- "$SEGLOG")"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-compaction.XXXXXX")"
cleanup() {
    local rc=$?
    # Never leave a broker behind (a no-op when none is running).
    "$BROKER" kill "$WORK/kafka" >/dev/null 2>&1 || true
    "$BROKER" kill "$WORK/K" >/dev/null 2>&1 || true
    if [[ "${KEEP_WORK:-0}" == 1 || $rc -ne 0 ]]; then
        echo "compaction_check: workdir kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CP="$("$BROKER" classpath)"
TOOL=(java -Dlog4j2.configurationFile="$SCRIPT_DIR/../log4j2.properties" -cp "$CP" CompactTool)

# ------------------------------------------------------------------ helpers
# "partition offset" lines of the cmp topic in a checkpoint file (version, count, entries).
ckpt() { [[ -f "$1" ]] && awk -v t="$TOPIC" 'NR > 2 && $1 == t { print $2, $3 }' "$1" | sort -n; true; }
# .log names (20-digit base offsets) of partition p of log dir d.
logs_of() { (cd -- "$1/$TOPIC-$2" && ls -A | grep -E '^[0-9]{20}\.log$' | LC_ALL=C sort) || true; }
# "base:size" of every .log of partition p of log dir d.
sizes() { local f; for f in $(logs_of "$1" "$2"); do printf '%s:%s ' "${f%.log}" "$(stat -c %s "$1/$TOPIC-$2/$f")" | sed 's/^0*\([0-9]\)/\1/'; done; }
# A batch line without what may legitimately differ: size, CRC, position, the horizon's value.
norm_batches() { sed -E 's/ size=[0-9]+ crc=[0-9]+//; s/ pos=[0-9]+$//; s/deleteHorizon=[0-9]+/deleteHorizon=set/' "$1"; }
# context <file> <line>: lines line-3 .. line+3, the given one marked.
context() { awk -v n="$2" 'NR >= n - 3 && NR <= n + 3 { printf "    %s %s\n", (NR == n ? ">" : " "), $0 }' "$1" | cut -c1-260; }
# first_diff <a> <b>: number of the first line where the files differ (empty when equal).
first_diff() { awk 'NR == FNR { a[FNR] = $0; na = FNR; next } { if (!(FNR in a) || a[FNR] != $0) { print FNR; found = 1; exit } nb = FNR } END { if (!found && na > nb) print nb + 1 }' "$1" "$2"; }
# show_diff <what> <kafka file> <seglog file> [<kafka label> <seglog label>]: the first difference
# with both sides' lines around it, then up to 30 lines of diff.
show_diff() {
    local what="$1" a="$2" b="$3" la="${4:-kafka}" lb="${5:-seglog}" n
    n="$(first_diff "$a" "$b")"
    echo "DIFF $what: $(wc -l <"$a") lines ($la) vs $(wc -l <"$b") ($lb); first difference at line $n:"
    echo "  $la:"; context "$a" "$n"
    echo "  $lb:"; context "$b" "$n"
    echo "  diff (< $la, > $lb), first 30 lines:"
    diff "$a" "$b" | head -n 30 | cut -c1-256 | sed 's/^/    /' || true
}

# categorise <kafka file> <seglog file>: lines keyed by their first two fields (partition and
# offset, or partition and batch offset range): counts and first examples of the keys only one side
# has and of the keys both have with different contents.
categorise() {
    awk 'FNR == NR { k[$1 " " $2] = $0; next }
         { key = $1 " " $2; if (!(key in k)) { if (no++ < 5) onlyS = onlyS "\n      " $0 }
           else { if (k[key] != $0) { if (nd++ < 5) diffs = diffs "\n      kafka:  " k[key] "\n      seglog: " $0 }; seen[key] = 1 } }
         END { for (key in k) if (!(key in seen)) { nk++; if (nk <= 5) onlyK = onlyK "\n      " k[key] }
               printf "  only in kafka: %d%s\n  only in seglog: %d%s\n  in both, different: %d%s\n",
                      nk, onlyK, no, onlyS, nd, diffs }' "$1" "$2" | cut -c1-260
}
# why <p> <key>: every record of that key in the uncleaned partition (the last 6).
why() { awk -v p="$1" -v k="$2" '$1 == p && $4 == k' "$WORK/orig.records" | tail -n 6 | cut -c1-200 | sed 's/^/      /'; }

# ------------------------------------------------------------------ a. produce, clean shutdown
log "starting Kafka 4.4.0 in $WORK/kafka"
"$BROKER" start "$WORK/kafka" 2>"$WORK/broker-start.err" || { cat "$WORK/broker-start.err" >&2; die "broker start failed"; }
log "producing to $TOPIC ($PARTS partitions, 6 codec runs x $PER_RUN records over $KEYS keys)"
"${TOOL[@]}" produce "127.0.0.1:$PORT" "$TOPIC" "$PARTS" "$KEYS" "$PER_RUN" "$SEED" >"$WORK/produce.out" 2>&1 \
    || { cat "$WORK/produce.out" >&2; die "produce failed"; }
tail -n 1 "$WORK/produce.out" | sed 's/^/compaction_check: /'
"$BROKER" stop "$WORK/kafka" 2>>"$WORK/broker-start.err" || { cat "$WORK/broker-start.err" >&2; die "broker stop failed"; }
ORIG="$WORK/kafka/data"
[[ -f "$ORIG/.kafka_cleanshutdown" ]] || die "no .kafka_cleanshutdown after a clean stop"
"${TOOL[@]}" list "$ORIG" "$TOPIC" "$WORK/orig" >"$WORK/list-orig.out" 2>&1 || { cat "$WORK/list-orig.out" >&2; die "listing the produced dir failed"; }
declare -A ACTIVE
for ((p = 0; p < PARTS; p++)); do
    log "produced $TOPIC-$p: $(sizes "$ORIG" "$p")"
    ACTIVE[$p]="$(awk -v p="$p" '$1 == p { b = $2 } END { print b }' "$WORK/orig.segments")"
    nseg="$(awk -v p="$p" '$1 == p' "$WORK/orig.segments" | wc -l)"
    # Premise: the tail record alone is in the active segment, the workload in >= 3 closed ones.
    last="$(awk -v p="$p" '$1 == p { o = $2 } END { print o }' "$WORK/orig.records")"
    [[ "$last" == "${ACTIVE[$p]}" && "$(awk -v p="$p" -v b="${ACTIVE[$p]}" '$1 == p && $2 >= b' "$WORK/orig.records" | wc -l)" == 1 ]] \
        || die "$TOPIC-$p: the active segment (base ${ACTIVE[$p]}) does not hold just the tail record (last offset $last)"
    (( nseg >= 4 )) || die "$TOPIC-$p: only $nseg segments"
done
"${TOOL[@]}" expect "$WORK/orig" "$WORK/expect.records" >"$WORK/expect.out" 2>&1 || { cat "$WORK/expect.out" >&2; die "expect failed"; }
log "$(cat "$WORK/list-orig.out"); $(cat "$WORK/expect.out")"

# ------------------------------------------------------------------ b. two copies
mkdir -p "$WORK/K" "$WORK/S"
cp -a "$ORIG" "$WORK/K/data"
cp -a "$ORIG" "$WORK/S/data"
K="$WORK/K/data" S="$WORK/S/data"
want_ckpt="$(for ((p = 0; p < PARTS; p++)); do echo "$p ${ACTIVE[$p]}"; done)"

# ------------------------------------------------------------------ c. Kafka cleans K
log "Kafka cleans K (broker.sh resume, alter $TOPIC to $COMPACT_CONFIGS)"
"$BROKER" resume "$WORK/K" 2>"$WORK/broker-K.err" || { cat "$WORK/broker-K.err" >&2; die "broker resume on K failed"; }
"${TOOL[@]}" alter "127.0.0.1:$PORT" "$TOPIC" "$COMPACT_CONFIGS" >"$WORK/alter.out" 2>&1 \
    || { cat "$WORK/alter.out" >&2; die "alter configs failed"; }
sed 's/^/compaction_check: kafka: /' "$WORK/alter.out"
deadline=$((SECONDS + 300))
until [[ "$(ckpt "$K/cleaner-offset-checkpoint")" == "$want_ckpt" ]]; do
    if (( SECONDS >= deadline )); then
        grep -E 'LogCleaner|Cleaner [0-9]' "$WORK/K/logs/server.log" | tail -n 20 >&2 || true
        die "Kafka's cleaner-offset-checkpoint did not reach the active segments ($(tr '\n' ' ' <<<"$want_ckpt")) within 300 s: $(ckpt "$K/cleaner-offset-checkpoint" | tr '\n' ' ')"
    fi
    "$BROKER" status "$WORK/K" || die "the broker on K exited"
    sleep 1
done
# Let a possible second round show itself in the log (there should be none: nothing is dirty).
sleep 3
"$BROKER" stop "$WORK/K" 2>>"$WORK/broker-K.err" || { cat "$WORK/broker-K.err" >&2; die "broker stop on K failed"; }
grep -hE "Beginning cleaning of log $TOPIC-|cleaned log $TOPIC-|Cleaning log $TOPIC-" "$WORK/K/logs/server.log" \
    | sed -E 's/^\[[^]]*\] //; s/ \([a-z.A-Z]+\)$//; s/^/compaction_check: kafka: /' || true
for ((p = 0; p < PARTS; p++)); do
    rounds="$(grep -cE "Beginning cleaning of log $TOPIC-$p( |\$)" "$WORK/K/logs/server.log" || true)"
    log "kafka   $TOPIC-$p: $(sizes "$K" "$p")(cleaner rounds: $rounds)"
done
if ls "$K/$TOPIC-"*/*.deleted >/dev/null 2>&1; then
    log "Kafka left $(ls "$K/$TOPIC-"*/*.deleted | wc -l) *.deleted files in K (file.delete.delay.ms); kept as they are"
fi
"${TOOL[@]}" list "$K" "$TOPIC" "$WORK/kafka" >"$WORK/list-kafka.out" 2>&1 || { cat "$WORK/list-kafka.out" >&2; die "listing K failed"; }
log "K: $(cat "$WORK/list-kafka.out"); $(grep -c ' count=0 ' "$WORK/kafka.batches" || true) empty batches kept," \
    "$(grep -c 'deleteHorizon=[0-9]' "$WORK/kafka.batches" || true) batches with a delete horizon"
if ! cmp -s "$WORK/expect.records" "$WORK/kafka.records"; then
    # Not seglog's fault; the definition used by `CompactTool expect` misses a Kafka rule.
    log "NOTE: Kafka's survivors differ from the plain definition of compaction:"
    show_diff "definition vs Kafka" "$WORK/expect.records" "$WORK/kafka.records" definition kafka | sed 's/^/  /'
fi
if [[ "${COMPACTION_CHECK_KAFKA_ONLY:-0}" == 1 ]]; then
    log "COMPACTION_CHECK_KAFKA_ONLY=1: stopping after Kafka's cleaning; workdir $WORK"
    KEEP_WORK=1
    exit 0
fi

# ------------------------------------------------------------------ d. seglog cleans S
log "seglog cleans S ($SEGLOG configs + clean --topic $TOPIC)"
"$SEGLOG" configs --log-dir "$S" --topic "$TOPIC" --alter --add-config "$CREATE_CONFIGS,$COMPACT_CONFIGS" \
    >"$WORK/seglog-configs.out" 2>&1 || { cat "$WORK/seglog-configs.out" >&2; die "seglog configs failed"; }
if ! "$SEGLOG" clean --log-dir "$S" --topic "$TOPIC" >"$WORK/seglog-clean.out" 2>&1; then
    cat "$WORK/seglog-clean.out" >&2
    die "seglog clean failed"
fi
head -n 60 "$WORK/seglog-clean.out" | sed "s#$WORK/##g; s/^/compaction_check: seglog: /"
for ((p = 0; p < PARTS; p++)); do log "seglog  $TOPIC-$p: $(sizes "$S" "$p")"; done
"${TOOL[@]}" list "$S" "$TOPIC" "$WORK/seglog" >"$WORK/list-seglog.out" 2>&1 || { cat "$WORK/list-seglog.out" >&2; die "Kafka's FileRecords cannot read seglog's cleaned S"; }
log "S: $(cat "$WORK/list-seglog.out")"

# ------------------------------------------------------------------ e. compare K and S
fail=0
if cmp -s "$WORK/kafka.records" "$WORK/seglog.records"; then
    log "records: identical ($(wc -l <"$WORK/kafka.records") surviving records)"
else
    fail=1
    show_diff "surviving records (partition offset ts key value [headers])" "$WORK/kafka.records" "$WORK/seglog.records"
    for ((p = 0; p < PARTS; p++)); do
        echo "  $TOPIC-$p: kafka keeps $(awk -v p="$p" '$1 == p' "$WORK/kafka.records" | wc -l) records, seglog $(awk -v p="$p" '$1 == p' "$WORK/seglog.records" | wc -l)," \
            "$(comm -3 <(awk -v p="$p" '$1 == p' "$WORK/kafka.records" | sort) <(awk -v p="$p" '$1 == p' "$WORK/seglog.records" | sort) | wc -l) lines differ"
    done
    echo "  by (partition, offset):"
    categorise "$WORK/kafka.records" "$WORK/seglog.records"
    # The history of the keys of the first differing records, from the uncleaned log.
    diff "$WORK/kafka.records" "$WORK/seglog.records" | grep -E '^[<>] ' | awk '{ print $2, $5 }' | awk '!s[$0]++' | head -n 3 \
        | while read -r p k; do echo "  every write of $k in $TOPIC-$p before cleaning (last 6):"; why "$p" "$k"; done || true
fi
norm_batches "$WORK/kafka.batches" >"$WORK/kafka.batches.norm"
norm_batches "$WORK/seglog.batches" >"$WORK/seglog.batches.norm"
if cmp -s "$WORK/kafka.batches.norm" "$WORK/seglog.batches.norm"; then
    log "batches: the same $(wc -l <"$WORK/kafka.batches") batch headers"
else
    fail=1
    show_diff "batch headers (size, crc, position and the horizon's value left out)" "$WORK/kafka.batches.norm" "$WORK/seglog.batches.norm"
    echo "  by (partition, batch offsets):"
    categorise "$WORK/kafka.batches.norm" "$WORK/seglog.batches.norm"
fi
# Byte identity of the batches both kept (same size and CRC), by codec and by what the cleaner did
# to them: copied as they were (Kafka's CRC is the uncleaned one), rebuilt with fewer records,
# rebuilt with a delete horizon (its value is the cleaning time, so it must differ), emptied.
log "byte-identical batches (seglog/kafka; codec: copied, rebuilt, rebuilt with horizon, emptied):"
awk 'function f(line, name,   a, i, n) { n = split(line, a, " "); for (i = 1; i <= n; i++) if (index(a[i], name "=") == 1) return substr(a[i], length(name) + 2); return "" }
     FILENAME == ARGV[1] { o[$1 " " $2] = f($0, "crc"); next }
     FILENAME == ARGV[2] { k[$1 " " $2] = $0; next }
     ($1 " " $2) in k {
         kl = k[$1 " " $2]; c = f(kl, "codec")
         cls = f(kl, "count") == 0 ? 4 : f(kl, "deleteHorizon") != "none" ? 3 : f(kl, "crc") == o[$1 " " $2] ? 1 : 2
         if (cls == 4) c = "any"
         n[c, cls]++; codecs[c] = 1
         if (f(kl, "size") == f($0, "size") && f(kl, "crc") == f($0, "crc")) same[c, cls]++ }
     END { for (c in codecs) { line = sprintf("  %-7s", c)
               for (cls = 1; cls <= 4; cls++) line = line sprintf("  %9s", (c, cls) in n ? (same[c, cls] + 0) "/" n[c, cls] : "-")
               print line } }' "$WORK/orig.batches" "$WORK/kafka.batches" "$WORK/seglog.batches" | sort | sed 's/^/compaction_check: /'
nsame=0 nfiles=0
for ((p = 0; p < PARTS; p++)); do
    if [[ "$(logs_of "$K" "$p")" != "$(logs_of "$S" "$p")" ]]; then
        fail=1
        echo "DIFF $TOPIC-$p: cleaned segments differ: kafka $(sizes "$K" "$p")/ seglog $(sizes "$S" "$p")"
    fi
    for f in $(logs_of "$K" "$p"); do
        nfiles=$((nfiles + 1))
        if [[ -f "$S/$TOPIC-$p/$f" ]] && cmp -s "$K/$TOPIC-$p/$f" "$S/$TOPIC-$p/$f"; then nsame=$((nsame + 1)); fi
    done
done
log "segments: $nsame of $nfiles cleaned .log files byte-identical"
if [[ "$(ckpt "$K/cleaner-offset-checkpoint")" != "$(ckpt "$S/cleaner-offset-checkpoint")" ]]; then
    fail=1
    echo "DIFF cleaner-offset-checkpoint entries for $TOPIC (partition offset; < kafka, > seglog):"
    diff <(ckpt "$K/cleaner-offset-checkpoint") <(ckpt "$S/cleaner-offset-checkpoint") | grep '^[<>]' | sed 's/^/  /' || true
fi
files="$(for ((p = 0; p < PARTS; p++)); do for f in $(logs_of "$S" "$p"); do printf '%s,' "$S/$TOPIC-$p/$f"; done; done)"
"$ORACLE" kafka-class org.apache.kafka.tools.DumpLogSegments --files "${files%,}" --deep-iteration \
    >"$WORK/dump-seglog.out" 2>"$WORK/dump-seglog.err" || true
# Compacted logs have offset gaps: DumpLogSegments reports them on stderr; anything else there is
# a problem.
grep -vE '^Non-consecutive offsets in |^  [0-9-]+ is followed by [0-9]+$' "$WORK/dump-seglog.err" >"$WORK/dump-seglog.err2" || true
nb="$(grep -c '^baseOffset:' "$WORK/dump-seglog.out" || true)"
nv="$(grep -c 'isvalid: true' "$WORK/dump-seglog.out" || true)"
if [[ "$nb" != "$(wc -l <"$WORK/seglog.batches")" || "$nv" != "$nb" ]] || grep -q 'invalid bytes' "$WORK/dump-seglog.out" || [[ -s "$WORK/dump-seglog.err2" ]]; then
    fail=1
    echo "DIFF Kafka's DumpLogSegments on seglog's cleaned segments: $nb batches, $nv valid (expected $(wc -l <"$WORK/seglog.batches"))"
    grep -E 'invalid bytes|isvalid: false' "$WORK/dump-seglog.out" | head -n 5 | sed 's/^/  /' || true
    head -n 5 "$WORK/dump-seglog.err2" | sed 's/^/  /'
else
    log "DumpLogSegments: all $nb batches of seglog's cleaned segments valid"
fi

# ------------------------------------------------------------------ f. seglog reads K
if "$SEGLOG" check --log-dir "$K" --topic "$TOPIC" >"$WORK/seglog-check-K.out" 2>&1; then
    log "seglog check of Kafka's cleaned K: ok"
else
    fail=1
    echo "DIFF seglog check --log-dir K --topic $TOPIC failed:"
    { head -n 8 "$WORK/seglog-check-K.out"; echo "..."; tail -n 1 "$WORK/seglog-check-K.out"; } | sed "s#$WORK/##g; s/^/  /"
    # Is it only the *.deleted files Kafka had not removed yet (its LogLoader deletes them at start)?
    if ls "$K/$TOPIC-"*/*.deleted >/dev/null 2>&1; then
        mkdir -p "$WORK/K-nodeleted"
        cp -a "$K" "$WORK/K-nodeleted/data"
        find "$WORK/K-nodeleted/data" -name '*.deleted' -delete
        if "$SEGLOG" check --log-dir "$WORK/K-nodeleted/data" --topic "$TOPIC" >"$WORK/seglog-check-K-nodeleted.out" 2>&1; then
            echo "  (a copy of K without Kafka's *.deleted files passes seglog check)"
        else
            echo "  a copy of K without Kafka's *.deleted files fails seglog check too:"
            head -n 10 "$WORK/seglog-check-K-nodeleted.out" | sed "s#$WORK/##g; s/^/    /"
        fi
    fi
fi
if "$SEGLOG" consume --log-dir "$K" --topic "$TOPIC" --format json >"$WORK/seglog-consume-K.json" 2>"$WORK/seglog-consume-K.err" \
    && "${TOOL[@]}" json "$WORK/seglog-consume-K.json" "$WORK/seglog-consume-K.records" >"$WORK/json.out" 2>&1; then
    if cmp -s "$WORK/kafka.records" "$WORK/seglog-consume-K.records"; then
        log "seglog consume of K: the same $(wc -l <"$WORK/kafka.records") records as Kafka's FileRecords"
    else
        fail=1
        show_diff "seglog consume of Kafka's cleaned K" "$WORK/kafka.records" "$WORK/seglog-consume-K.records" kafka-filerecords seglog-consume
    fi
else
    fail=1
    echo "DIFF seglog consume of K failed:"
    head -q -n 20 "$WORK/seglog-consume-K.err" "$WORK/json.out" 2>/dev/null | sed "s#$WORK/##g; s/^/  /" || true
fi

ends="$(ckpt "$K/cleaner-offset-checkpoint" | awk -v t="$TOPIC" '{ printf "%s%s-%s=%s", (NR > 1 ? " " : ""), t, $1, $2 }')"
if [[ $fail -ne 0 ]]; then
    echo "compaction: seglog and Kafka DIFFER (Kafka cleaned up to $ends); workdir $WORK"
    exit 1
fi
echo "compaction: $PARTS partitions, $(wc -l <"$WORK/orig.records") records -> $(wc -l <"$WORK/kafka.records") survivors," \
    "identical records, batch headers and cleaner checkpoints (cleaned up to $ends); $nsame/$nfiles .log files" \
    "byte-identical; seglog reads Kafka's cleaned dir [${SECONDS}s]"
