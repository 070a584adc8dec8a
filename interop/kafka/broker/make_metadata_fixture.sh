#!/usr/bin/env bash
# Regenerate tests/data/cluster_metadata/ from a real Apache Kafka 4.4.0 broker: KRaft metadata
# files Kafka wrote, and what Kafka's DumpLogSegments prints of them.
#
#   interop/kafka/broker/make_metadata_fixture.sh [outdir]  (default: <repo>/tests/data/cluster_metadata)
#
# Starts a single-node KRaft broker (broker.sh) with the StandardAuthorizer and a snapshot every
# few seconds, makes metadata records of many types with Kafka's own tools (topics with configs,
# more partitions, a deleted topic, a dynamic broker config, client quotas with fractional
# values, SCRAM credentials added and deleted for users whose names need JSON escaping, ACLs
# added and removed, idempotent and transactional producers), waits for a snapshot, stops the
# broker with SIGTERM (its controlled shutdown adds partition and registration changes), and
# copies from __cluster_metadata-0 into <outdir>/kafka/
#   00000000000000000000.log                     the metadata log (one segment)
#   00000000000000000000-0000000000.checkpoint   the bootstrap snapshot StorageTool wrote
#   <end offset>-<epoch>.checkpoint              the newest snapshot the controller wrote
# and writes, running DumpLogSegments in <outdir> on those files (as kafka/<name>):
#   kafka.decoder.txt   --cluster-metadata-decoder (stdout)
#   kafka.deep.txt      --deep-iteration (stdout: the control records' JSON without a decoder)
# Ports: KAFKA_BROKER_PORT / KAFKA_CONTROLLER_PORT (default 19092/19093). KEEP_WORK=1 keeps the
# temp workdir. The broker is killed on any failure.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd -- "$SCRIPT_DIR/../../.." && pwd -P)"
BROKER="$SCRIPT_DIR/broker.sh"
ORACLE="$SCRIPT_DIR/../oracle.sh"
OUT="${1:-$REPO/tests/data/cluster_metadata}"
PORT="${KAFKA_BROKER_PORT:-19092}"
BOOT="127.0.0.1:$PORT"

log() { echo "make_metadata_fixture.sh: $*" >&2; }
die() { echo "make_metadata_fixture.sh: $*" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-metadata-fixture.XXXXXX")"
cleanup() {
    local rc=$?
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

cat >"$WORK/extra.properties" <<EOF
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS
metadata.log.max.snapshot.interval.ms=3000
EOF
export KAFKA_EXTRA_PROPERTIES="$WORK/extra.properties"
"$BROKER" start "$WORK/broker"

tool() {
    log "$*"
    "$ORACLE" kafka-class "$@" >>"$WORK/tools.out" 2>&1 || { tail -20 "$WORK/tools.out" >&2; die "$1 failed"; }
}
topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" "$@"; }
configs() { tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BOOT" --alter "$@"; }
acls() { tool org.apache.kafka.tools.AclCommand --bootstrap-server "$BOOT" "$@"; }

topics --create --topic orders --partitions 3 --replication-factor 1 \
    --config cleanup.policy=compact --config retention.ms=86400000
topics --create --topic audit --partitions 1 --replication-factor 1
topics --create --topic scratch --partitions 2 --replication-factor 1
topics --alter --topic audit --partitions 2
topics --delete --topic scratch
configs --entity-type topics --entity-name orders --add-config segment.bytes=1048576
configs --entity-type brokers --entity-name 1 --add-config log.cleaner.threads=2
configs --entity-type clients --entity-name app-1 \
    --add-config 'producer_byte_rate=1048576,consumer_byte_rate=2097152,request_percentage=12.5'
configs --entity-type users --entity-name 'al"i\ce-é' \
    --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]'
configs --entity-type users --entity-name 'al"i\ce-é' --add-config 'SCRAM-SHA-512=[password=alice-secret]'
configs --entity-type users --entity-name 'al"i\ce-é' --add-config 'request_percentage=0.001'
configs --entity-type users --entity-name bob --add-config 'SCRAM-SHA-256=[password=bob-secret]'
configs --entity-type users --entity-name bob --delete-config 'SCRAM-SHA-256'
acls --add --allow-principal User:alice --operation Read --operation Describe --topic orders
acls --add --deny-principal User:mallory --operation All --group '*'
acls --remove --force --allow-principal User:alice --operation Describe --topic orders
tool org.apache.kafka.tools.ProducerPerformance --topic orders --num-records 20 --record-size 16 \
    --throughput -1 --producer-props "bootstrap.servers=$BOOT" acks=all
tool org.apache.kafka.tools.ProducerPerformance --topic audit --num-records 10 --record-size 16 \
    --throughput -1 --transactional-id fixture-tx --transaction-duration-ms 100 \
    --producer-props "bootstrap.servers=$BOOT"

META="$WORK/broker/data/__cluster_metadata-0"
log "waiting for a snapshot"
deadline=$((SECONDS + 60))
until ls "$META" | grep -v '^00000000000000000000-0000000000' | grep -q '\.checkpoint$'; do
    (( SECONDS < deadline )) || die "no snapshot after 60 s"
    sleep 1
done
"$BROKER" stop "$WORK/broker"

mkdir -p "$OUT"
rm -rf "${OUT:?}/kafka"
mkdir -p "$OUT/kafka"
logs=("$META"/*.log)
[[ ${#logs[@]} == 1 ]] || die "expected one metadata segment, found ${#logs[@]}"
cp "${logs[0]}" "$META/00000000000000000000-0000000000.checkpoint" "$OUT/kafka/"
newest="$(ls "$META" | grep '\.checkpoint$' | LC_ALL=C sort | tail -1)"
cp "$META/$newest" "$OUT/kafka/"

files="kafka/00000000000000000000.log,kafka/00000000000000000000-0000000000.checkpoint,kafka/$newest"
dump() { (cd "$OUT" && "$ORACLE" kafka-class org.apache.kafka.tools.DumpLogSegments --files "$files" "$@"); }
dump --cluster-metadata-decoder >"$OUT/kafka.decoder.txt"
dump --deep-iteration >"$OUT/kafka.deep.txt"
log "wrote $OUT: $(ls "$OUT/kafka" | paste -sd' ')"
