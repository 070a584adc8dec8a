#!/usr/bin/env bash
# Kafka 4.4.0 oracle for seglog interop tests.
#
#   oracle.sh fetch                         download Kafka 4.4.0 jars (and deps) into the cache
#   oracle.sh schema-jars                   fetch, then print the jars whose JSON schemas
#                                           src/protocol/codegen/generate.py reads, one a line
#   oracle.sh classpath                     print the classpath (jars + compiled oracle classes)
#   oracle.sh compile                       compile interop/kafka/src/*.java (cached by content hash)
#   oracle.sh run <MainClass> [args...]     run one of the oracle programs (GoldenBatches, VerifyBatches)
#   oracle.sh kafka-class <fqcn> [args...]  run any class on the Kafka classpath, e.g.
#                                           org.apache.kafka.tools.DumpLogSegments
#   oracle.sh classpath-with <name> <dir>   compile <dir>/*.java against that classpath into
#                                           the cache (<name>-classes-<sha256>, reused while the
#                                           sources and jars are unchanged) and print
#                                           "<those classes>:<classpath>" (the broker harness,
#                                           bench/compare's Kafka harness)
#   oracle.sh mirror-classpath              MirrorMaker 2: fetch move/pom.xml's jars into the
#                                           cache (mirror-lib), compile move/src/*.java like
#                                           classpath-with, and print "<mirror-lib>/*:<that>"
#
# Cache: ${SEGLOG_CACHE:-$HOME/.cache/seglog}/kafka-4.4.0/{lib,mirror-lib,classes-<sha256>}
set -euo pipefail

KAFKA_VERSION=4.4.0
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
POM="$SCRIPT_DIR/pom.xml"
SRC_DIR="$SCRIPT_DIR/src"
LOG4J_CONF="$SCRIPT_DIR/log4j2.properties"
CACHE="${SEGLOG_CACHE:-$HOME/.cache/seglog}/kafka-$KAFKA_VERSION"
LIB="$CACHE/lib"
STAMP="$LIB/.pom.sha256"

die() { echo "oracle.sh: $*" >&2; exit 2; }
log() { echo "oracle.sh: $*" >&2; }

pom_sha() { sha256sum "$POM" | cut -d' ' -f1; }

# MirrorMaker 2's jars, from a pom of their own into a directory of their own, so that pom.xml,
# its cache key ($STAMP) and the oracle's classpath are the same with or without them.
MIRROR_DIR="$SCRIPT_DIR/move"
MIRROR_POM="$MIRROR_DIR/pom.xml"
MIRROR_LIB="$CACHE/mirror-lib"
MIRROR_STAMP="$MIRROR_LIB/.pom.sha256"
MIRROR_JARS=(connect-mirror connect-mirror-client)

# The jars of Kafka's JSON schemas (src/protocol/codegen/generate.py): the protocol messages,
# the group and transaction coordinators' records, and the remote log metadata records
# (kafka-storage's message/*.json), and KRaft's metadata records (kafka-metadata's
# common/metadata/*.json). The coordinators' and kafka-metadata jars come with kafka_2.13 (the broker
# depends on them), so pom.xml need not name them (it names kafka-storage); fetch checks they came.
SCHEMA_JARS=(kafka-clients kafka-group-coordinator kafka-transaction-coordinator kafka-share-coordinator kafka-storage kafka-metadata)

# has_schema_jars <dir>: every schema jar is in <dir>.
has_schema_jars() {
    local j
    for j in "${SCHEMA_JARS[@]}"; do
        [[ -f "$1/$j-$KAFKA_VERSION.jar" ]] || return 1
    done
}

# fetch: (re)populate $LIB when a schema jar is missing or the stamp does not match pom.xml.
fetch() {
    local want
    want="$(pom_sha)"
    if has_schema_jars "$LIB" && [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
        return 0
    fi
    command -v mvn >/dev/null || die "mvn not found (needed once to fetch the Kafka jars)"
    mkdir -p "$CACHE"
    local tmp="$CACHE/lib.tmp.$$"
    rm -rf "$tmp"
    log "fetching Kafka $KAFKA_VERSION jars into $LIB"
    # mvn -q still prints stray ANSI resets; keep its output in a log, shown only on failure.
    if ! mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
            -DincludeScope=runtime -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
        cat "$tmp.log" >&2
        rm -rf "$tmp" "$tmp.log"
        die "mvn dependency:copy-dependencies failed"
    fi
    rm -f "$tmp.log"
    has_schema_jars "$tmp" || { rm -rf "$tmp"; die "a jar of ${SCHEMA_JARS[*]} is missing after fetch"; }
    echo "$want" > "$tmp/.pom.sha256"
    rm -rf "$LIB.old.$$"
    [[ -d "$LIB" ]] && mv "$LIB" "$LIB.old.$$"
    mv "$tmp" "$LIB"
    rm -rf "$LIB.old.$$"
}

# has_mirror_jars <dir>: a jar of each of MIRROR_JARS (any version) is in <dir>.
has_mirror_jars() {
    local j f
    for j in "${MIRROR_JARS[@]}"; do
        f=("$1/$j"-[0-9]*.jar)
        [[ -f "${f[0]}" ]] || return 1
    done
}

# fetch_mirror: as fetch, for move/pom.xml into $MIRROR_LIB (its jars only: the pom excludes
# their dependencies, which are pom.xml's).
fetch_mirror() {
    local want
    fetch
    want="$(sha256sum "$MIRROR_POM" | cut -d' ' -f1)"
    if has_mirror_jars "$MIRROR_LIB" && [[ -f "$MIRROR_STAMP" && "$(cat "$MIRROR_STAMP")" == "$want" ]]; then
        return 0
    fi
    local tmp="$CACHE/mirror-lib.tmp.$$"
    rm -rf "$tmp"
    log "fetching MirrorMaker 2's jars into $MIRROR_LIB"
    if ! mvn -q -B -Dstyle.color=never -f "$MIRROR_POM" dependency:copy-dependencies \
            -DincludeScope=runtime -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
        cat "$tmp.log" >&2
        rm -rf "$tmp" "$tmp.log"
        die "mvn dependency:copy-dependencies of $MIRROR_POM failed"
    fi
    rm -f "$tmp.log"
    has_mirror_jars "$tmp" || { rm -rf "$tmp"; die "a jar of ${MIRROR_JARS[*]} is missing after fetch"; }
    echo "$want" > "$tmp/.pom.sha256"
    rm -rf "$MIRROR_LIB.old.$$"
    [[ -d "$MIRROR_LIB" ]] && mv "$MIRROR_LIB" "$MIRROR_LIB.old.$$"
    mv "$tmp" "$MIRROR_LIB"
    rm -rf "$MIRROR_LIB.old.$$"
}

# Content hash of the sources (names + bytes) and of the pom, so either change recompiles.
classes_dir() {
    local h
    h="$( { (cd "$SRC_DIR" && sha256sum -- *.java); pom_sha; } | sha256sum | cut -d' ' -f1)"
    echo "$CACHE/classes-$h"
}

compile() {
    fetch
    local out
    out="$(classes_dir)"
    [[ -f "$out/.complete" ]] && return 0
    local tmp="$out.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    log "compiling $SRC_DIR/*.java -> $out"
    if ! javac -encoding UTF-8 --release 17 -cp "$LIB/*" -d "$tmp" "$SRC_DIR"/*.java >&2; then
        rm -rf "$tmp"
        die "javac failed"
    fi
    touch "$tmp/.complete"
    # Another concurrent compile may have won the race; either result is identical.
    if ! mv -T "$tmp" "$out" 2>/dev/null; then rm -rf "$tmp"; fi
}

# classpath_with <name> <dir>: see the header.
classpath_with() {
    local name="$1" dir="$2" base h out tmp
    [[ -d "$dir" ]] || die "classpath-with: no directory $dir"
    compile
    base="$LIB/*:$(classes_dir)"
    h="$( { (cd "$dir" && sha256sum -- *.java); echo "$base"; } | sha256sum | cut -d' ' -f1)"
    out="$CACHE/$name-classes-$h"
    if [[ ! -f "$out/.complete" ]]; then
        tmp="$out.tmp.$$"
        rm -rf "$tmp"
        mkdir -p "$tmp"
        log "compiling $dir/*.java -> $out"
        if ! javac -encoding UTF-8 --release 17 -cp "$base" -d "$tmp" "$dir"/*.java >&2; then
            rm -rf "$tmp"
            die "javac failed"
        fi
        touch "$tmp/.complete"
        # A concurrent compile may have won the race; both results are identical.
        if ! mv -T "$tmp" "$out" 2>/dev/null; then rm -rf "$tmp"; fi
    fi
    echo "$out:$base"
}

java_run() {
    exec java -Dlog4j2.configurationFile="$LOG4J_CONF" "$@"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
    fetch)
        fetch ;;
    schema-jars)
        fetch
        for j in "${SCHEMA_JARS[@]}"; do echo "$LIB/$j-$KAFKA_VERSION.jar"; done ;;
    classpath)
        compile
        echo "$LIB/*:$(classes_dir)" ;;
    compile)
        compile ;;
    run)
        [[ $# -ge 1 ]] || die "usage: oracle.sh run <MainClass> [args...]"
        compile
        main="$1"; shift
        java_run -cp "$(classes_dir):$LIB/*" "$main" "$@" ;;
    classpath-with)
        [[ $# -eq 2 ]] || die "usage: oracle.sh classpath-with <name> <dir>"
        classpath_with "$1" "$2" ;;
    mirror-classpath)
        fetch_mirror
        echo "$MIRROR_LIB/*:$(classpath_with mirror "$MIRROR_DIR/src")" ;;
    kafka-class)
        [[ $# -ge 1 ]] || die "usage: oracle.sh kafka-class <fully.qualified.Class> [args...]"
        fetch
        main="$1"; shift
        java_run -cp "$LIB/*" "$main" "$@" ;;
    ""|-h|--help|help)
        awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}" ;;
    *)
        die "unknown subcommand '$cmd' (try: fetch, schema-jars, classpath, compile, run, kafka-class, classpath-with, mirror-classpath)" ;;
esac
