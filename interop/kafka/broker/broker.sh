#!/usr/bin/env bash
# Single-node Apache Kafka 4.4.0 broker (KRaft, combined broker+controller) on loopback.
#
#   broker.sh start <workdir>   write <workdir>/server.properties and log4j2.properties, format
#                               <workdir>/data, start kafka.Kafka in the background (-Xmx512m),
#                               wait until it answers ApiVersions, write <workdir>/broker.pid
#   broker.sh resume <workdir>  as start, but on an already formatted <workdir>/data (e.g. a copy
#                               of a killed broker's data dir): keeps its meta.properties, cluster
#                               id and metadata log, rewrites only the config files
#   broker.sh stop <workdir>    SIGTERM (clean shutdown), wait for the process to exit
#   broker.sh kill <workdir>    SIGKILL (unclean shutdown), wait for the process to exit
#   broker.sh status <workdir>  exit 0 when the broker of <workdir> is running
#   broker.sh classpath         compile interop/kafka/broker/src/*.java (cached) and print a
#                               classpath with them and the Kafka jars
#
# Environment: KAFKA_BROKER_PORT (19092), KAFKA_CONTROLLER_PORT (19093),
#              KAFKA_START_TIMEOUT (120 s), KAFKA_STOP_TIMEOUT (90 s),
#              KAFKA_EXTRA_CLASSPATH (appended to the broker's classpath: plugins),
#              KAFKA_EXTRA_PROPERTIES (a file of settings appended to server.properties,
#              overriding the ones above; none by default).
# Jars come from interop/kafka/oracle.sh (cache ${SEGLOG_CACHE:-$HOME/.cache/seglog}/kafka-4.4.0).
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
ORACLE="$SCRIPT_DIR/../oracle.sh"
SRC_DIR="$SCRIPT_DIR/src"
BROKER_PORT="${KAFKA_BROKER_PORT:-19092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-120}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-90}"

die() { echo "broker.sh: $*" >&2; exit 2; }
log() { echo "broker.sh: $*" >&2; }

# broker/src/*.java compiled (cached by content) against the Kafka jars + oracle classes;
# prints "<classes>:<kafka classpath>".
broker_classes() { "$ORACLE" classpath-with broker "$SRC_DIR"; }
# The Kafka jars (+ oracle classes); fetched and compiled on demand.
kafka_cp() {
    local cp
    cp="$("$ORACLE" classpath)" || return 1
    echo "${cp}${KAFKA_EXTRA_CLASSPATH:+:$KAFKA_EXTRA_CLASSPATH}"
}

abs_dir() { mkdir -p -- "$1" && (cd -- "$1" && pwd -P); }

# The pid in <workdir>/broker.pid if that process is alive and really is this workdir's broker.
broker_pid() {
    local wd="$1" pid
    [[ -f "$wd/broker.pid" ]] || return 1
    pid="$(cat "$wd/broker.pid")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ -r "/proc/$pid/cmdline" ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "kafka.Kafka $wd/server.properties" || return 1
    echo "$pid"
}

# wait_exit <pid> <seconds>: 0 when the process is gone before the deadline.
wait_exit() {
    local pid="$1" deadline=$((SECONDS + $2))
    while kill -0 "$pid" 2>/dev/null; do
        # A zombie child of ours counts as gone.
        [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" == Z ]] && return 0
        (( SECONDS < deadline )) || return 1
        sleep 0.2
    done
    return 0
}

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

write_config() {
    local wd="$1"
    cat >"$wd/server.properties" <<EOF
# Written by interop/kafka/broker/broker.sh. Single-node KRaft, loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$BROKER_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$BROKER_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$wd/data
num.partitions=1
default.replication.factor=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.segment.bytes=1048576
# Fixture record timestamps are fixed in the past (2023): time retention would delete them.
log.retention.ms=-1
log.retention.bytes=-1
log.retention.check.interval.ms=2000
log.initial.task.delay.ms=2000
log.cleaner.backoff.ms=1000
log.flush.offset.checkpoint.interval.ms=1000
EOF
    if [[ -n "${KAFKA_EXTRA_PROPERTIES:-}" ]]; then
        cat -- "$KAFKA_EXTRA_PROPERTIES" >>"$wd/server.properties"
    fi
    cat >"$wd/log4j2.properties" <<EOF
status = error
name = seglog-kafka-broker
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $wd/logs/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{ISO8601}] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
EOF
}

# Probe with BrokerApiVersionsCommand (each probe is a JVM start, bounded by `timeout`).
probe() {
    local cp="$1" wd="$2"
    timeout 30 java -Dlog4j2.configurationFile="$wd/log4j2-tools.properties" -cp "$cp" \
        org.apache.kafka.tools.BrokerApiVersionsCommand \
        --bootstrap-server "127.0.0.1:$BROKER_PORT" >"$wd/logs/probe.out" 2>&1
}

# cmd_start <workdir> [resume]: without "resume" <workdir>/data must not exist and is formatted;
# with it, <workdir>/data must already be formatted (meta.properties) and is used as it is.
cmd_start() {
    local wd cp pid cid resume="${2:-}"
    wd="$(abs_dir "$1")"
    if pid="$(broker_pid "$wd")"; then die "broker already running in $wd (pid $pid)"; fi
    for p in "$BROKER_PORT" "$CONTROLLER_PORT"; do
        port_busy "$p" && die "port $p already in use (set KAFKA_BROKER_PORT / KAFKA_CONTROLLER_PORT)"
    done
    if [[ -n "$resume" ]]; then
        [[ -f "$wd/data/meta.properties" ]] || die "$wd/data/meta.properties missing; resume needs a formatted data dir"
    else
        [[ -e "$wd/data" ]] && die "$wd/data already exists; use a fresh workdir"
    fi
    cp="$(kafka_cp)"
    mkdir -p "$wd/logs"
    write_config "$wd"
    sed -e 's/^rootLogger.level = .*/rootLogger.level = warn/' \
        -e "s#^appender.file.fileName = .*#appender.file.fileName = $wd/logs/tools.log#" \
        "$wd/log4j2.properties" >"$wd/log4j2-tools.properties"
    local jtool=(java -Dlog4j2.configurationFile="$wd/log4j2-tools.properties" -cp "$cp")
    if [[ -n "$resume" ]]; then
        sed -n 's/^cluster\.id=//p' "$wd/data/meta.properties" >"$wd/cluster.id"
    else
        cid="$("${jtool[@]}" kafka.tools.StorageTool random-uuid)"
        echo "$cid" >"$wd/cluster.id"
        "${jtool[@]}" kafka.tools.StorageTool format -t "$cid" -c "$wd/server.properties" \
            >"$wd/logs/format.out" 2>&1 || { cat "$wd/logs/format.out" >&2; die "storage format failed"; }
    fi

    # From here on, any failure must not leave a broker behind.
    STARTING_PID=""
    STARTING_WD="$wd"
    trap 'if [[ -n "$STARTING_PID" ]]; then kill -KILL "$STARTING_PID" 2>/dev/null || true; rm -f "$STARTING_WD/broker.pid"; fi' EXIT
    nohup java -Xmx512m \
        -Dlog4j2.configurationFile="$wd/log4j2.properties" -Dkafka.logs.dir="$wd/logs" \
        -cp "$cp" kafka.Kafka "$wd/server.properties" \
        >"$wd/logs/broker.out" 2>&1 </dev/null &
    pid=$!
    STARTING_PID=$pid
    echo "$pid" >"$wd/broker.pid"
    log "started kafka.Kafka pid $pid (workdir $wd), waiting up to ${START_TIMEOUT}s"
    local deadline=$((SECONDS + START_TIMEOUT))
    until probe "$cp" "$wd"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$wd/logs/broker.out" "$wd/logs/server.log" >&2 || true
            die "broker exited during startup"
        fi
        if (( SECONDS >= deadline )); then
            tail -n 30 "$wd/logs/server.log" >&2 || true
            die "broker not ready after ${START_TIMEOUT}s"
        fi
        sleep 1
    done
    STARTING_PID=""
    trap - EXIT
    log "broker ready on 127.0.0.1:$BROKER_PORT (pid $pid)"
}

cmd_stop() {
    local wd pid
    wd="$(abs_dir "$1")"
    pid="$(broker_pid "$wd")" || { log "no broker running in $wd"; rm -f "$wd/broker.pid"; return 0; }
    log "SIGTERM pid $pid, waiting up to ${STOP_TIMEOUT}s for a clean shutdown"
    kill -TERM "$pid"
    if ! wait_exit "$pid" "$STOP_TIMEOUT"; then
        kill -KILL "$pid" 2>/dev/null || true
        wait_exit "$pid" 30 || true
        rm -f "$wd/broker.pid"
        die "broker did not stop within ${STOP_TIMEOUT}s; sent SIGKILL"
    fi
    rm -f "$wd/broker.pid"
    log "broker stopped"
}

cmd_kill() {
    local wd pid
    wd="$(abs_dir "$1")"
    pid="$(broker_pid "$wd")" || { log "no broker running in $wd"; rm -f "$wd/broker.pid"; return 0; }
    kill -KILL "$pid"
    wait_exit "$pid" 30 || die "pid $pid still alive after SIGKILL"
    rm -f "$wd/broker.pid"
    log "broker killed"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
    start|resume|stop|kill|status)
        [[ $# -eq 1 ]] || die "usage: broker.sh $cmd <workdir>"
        case "$cmd" in
            start) cmd_start "$1" ;;
            resume) cmd_start "$1" resume ;;
            stop) cmd_stop "$1" ;;
            kill) cmd_kill "$1" ;;
            status) broker_pid "$(abs_dir "$1")" >/dev/null ;;
        esac ;;
    classpath)
        broker_classes ;;
    ""|-h|--help|help)
        awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}" ;;
    *)
        die "unknown subcommand '$cmd' (try: start, resume, stop, kill, status, classpath)" ;;
esac
