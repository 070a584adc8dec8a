#!/usr/bin/env bash
# Kafka's half of bench/compare: the workloads of bench/compare/seglog_bench.cc on Apache Kafka
# 4.4.0's own storage classes (UnifiedLog, LogManager, Cleaner) from the Maven jars.
#
#   kafka_bench.sh <workload> [--flag value]...    one JSON line per result on stdout
#   kafka_bench.sh classpath                       compile (cached) and print the classpath
#
# Workloads: append, append-sweep, lookup, offset-lookup, timestamp-lookup, read-all, recover,
# clean, open-many, make-recover-dir, make-clean-dir, make-open-dir (see
# src/KafkaStorageBench.java for their flags).
#
# Environment: KAFKA_BENCH_HEAP (2g: -Xms and -Xmx), KAFKA_BENCH_JVM_OPTS (extra JVM options;
# default -XX:+AlwaysPreTouch, which touches the heap at start: without it the first runs to
# reach fresh heap pages pay their page faults and zeroing inside the timed section, which
# showed as kernel time of up to 2.6 s/GB in Kafka's appends).
# Jars come from interop/kafka/oracle.sh; the compiled harness is cached in
# ${SEGLOG_CACHE:-$HOME/.cache/seglog}/kafka-4.4.0/bench-classes-<sha256> (oracle.sh classpath-with).
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd -- "$SCRIPT_DIR/../../.." && pwd -P)"
ORACLE="$ROOT/interop/kafka/oracle.sh"
LOG4J_CONF="$ROOT/interop/kafka/log4j2.properties"
SRC_DIR="$SCRIPT_DIR/src"
HEAP="${KAFKA_BENCH_HEAP:-2g}"

die() { echo "kafka_bench.sh: $*" >&2; exit 2; }
log() { echo "kafka_bench.sh: $*" >&2; }

# src/*.java compiled (cached by content) against the Kafka jars; "<classes>:<kafka classpath>".
bench_classpath() { "$ORACLE" classpath-with bench "$SRC_DIR"; }

case "${1:-}" in
    ""|-h|--help|help)
        awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}"
        exit 0 ;;
    classpath)
        bench_classpath
        exit 0 ;;
esac

cp="$(bench_classpath)"
# shellcheck disable=SC2086 # KAFKA_BENCH_JVM_OPTS is a list of options
exec java "-Xms$HEAP" "-Xmx$HEAP" ${KAFKA_BENCH_JVM_OPTS--XX:+AlwaysPreTouch} \
    -Dlog4j2.configurationFile="$LOG4J_CONF" \
    -cp "$cp" KafkaStorageBench "$@"
