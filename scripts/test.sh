#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine or an old one:
#   1. installs missing apt packages and fetches Kafka 4.4.0's jars and MirrorMaker 2's with Maven
#      (cached in ~/.cache/seglog, reused on later runs); checks src/protocol/generated is what
#      src/protocol/codegen/generate.py makes of the jars' schemas;
#   2. builds everything with clang 14 under ASan+UBSan, with -Wthread-safety -Werror and the
#      libFuzzer targets (the asan-ubsan preset: one tree for three checks), and runs the unit
#      tests;
#   3. runs each libFuzzer target of that tree for FUZZ_SECONDS (default 30, two at a time;
#      0 skips; longer runs: scripts/fuzz.sh 3600);
#   4. builds with ThreadSanitizer (g++) and runs the unit tests - among them threads that
#      append, read, flush, clean and delete topics at once;
#   5. builds the release tree (g++ -Werror), installs it into a temporary prefix and builds and
#      runs examples/embed against the installed package (scripts/check_install.sh);
#   6. runs every release test, unit and interop (Kafka's own classes reading what seglog
#      wrote), ending with ctest's summary.
# Environment: FUZZ_SECONDS, SEGLOG_CACHE (Maven jar cache), JOBS (build parallelism).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}
fuzz_seconds=${FUZZ_SECONDS:-30}
# Each stage's wall time, so the 45-minute budget can be kept an eye on (CI's log keeps them).
# Builds and test runs write their whole output to build/ci-logs/ and print it only when they
# fail, so the end of the log (all CI shows of a run that timed out) holds the stage times.
logs=build/ci-logs
mkdir -p "$logs"
stage_start=$SECONDS
stage() {
  echo "   (took $((SECONDS - stage_start)) s; $((SECONDS / 60)) min so far)"
  stage_start=$SECONDS
  echo "== $1 ($(date -u +%H:%M:%S))"
}
# quiet <log name> <command...>: runs the command into build/ci-logs/<name>.log; on failure
# prints the log's last 150 lines and fails.
quiet() {
  local log="$logs/$1.log"
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 150 "$log"
    echo "test.sh: '$*' failed (whole output: $log)" >&2
    return 1
  fi
}
# tests <preset> <ctest arguments...>: runs ctest; prints its summary and the slowest tests.
tests() {
  local preset=$1
  shift
  local log="$logs/ctest-$preset.log"
  local rc=0
  ctest --preset "$preset" -j "$jobs" "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    grep -v -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' "$log" | tail -n 300
  else
    tail -n 3 "$log"
  fi
  echo "   slowest:"
  grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" |
    sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec.*$/\2 \1/' |
    sort -rn | head -n 8 | sed 's/^/     /' || true
  return "$rc"
}

# The compiler cache (ccache, when installed: CMakeLists.txt) is shared by every clone on this
# machine: paths under the tree are hashed relative to it, and the working folder not at all.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-30G}

echo "== setup: packages, clients, Kafka jars, generated code ($(date -u +%H:%M:%S))"
quiet install-deps bash scripts/install-deps.sh
quiet install-clients bash scripts/install-clients.sh
quiet oracle interop/kafka/oracle.sh compile
# MirrorMaker 2's jars (interop/kafka/move/pom.xml), for interop.mirrormaker_seglog_to_kafka.
quiet mirror-classpath interop/kafka/oracle.sh mirror-classpath
# The committed protocol code is what the generator makes of Kafka 4.4.0's schemas.
bash scripts/check_generated.sh
if command -v ccache >/dev/null; then ccache --zero-stats >/dev/null; fi

# One clang tree serves three checks: ASan+UBSan for the unit tests, the thread-safety analysis
# (a compile-time check: -Wthread-safety -Werror over every file, tests too) and the fuzzers'
# coverage instrumentation. g++ builds the TSan and release trees, with -Werror too.
stage "asan-ubsan: clang 14 (ASan+UBSan, -Wthread-safety, fuzz targets), build and unit tests"
cmake --preset asan-ubsan >/dev/null
quiet build-asan-ubsan cmake --build --preset asan-ubsan -j "$jobs"
tests asan-ubsan -L unit --timeout 900

if [ "$fuzz_seconds" != "0" ]; then
  stage "fuzz: ${fuzz_seconds}s per target"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi

stage "tsan: ThreadSanitizer, build and unit tests"
cmake --preset tsan >/dev/null
quiet build-tsan cmake --build --preset tsan -j "$jobs"
tests tsan -L unit --timeout 900

stage "release: build"
cmake --preset release >/dev/null
quiet build-release cmake --build --preset release -j "$jobs"

stage "install: examples/embed against the installed package (CMake and pkg-config)"
bash scripts/check_install.sh build/release

stage "release: every test (unit + interop)"
# The abuse cases judge an honest client's p99 latency under attack against its unloaded p99 on
# this 2-core machine; a process of an earlier test still exiting can spoil one measurement. If
# abuse cases are the only failures they run once more, alone, and must pass then (the log says
# so). Any other failure fails the stage at once.
if ! tests release; then
  failed=build/release/Testing/Temporary/LastTestsFailed.log
  if [ -s "$failed" ] && ! grep -qv ':abuse\.' "$failed"; then
    echo "   only abuse cases failed ($(cut -d: -f2 "$failed" | tr '\n' ' ')): running them once more"
    tests release --rerun-failed
  else
    exit 1
  fi
fi
if command -v ccache >/dev/null; then
  echo "   ccache: $(ccache --print-stats | awk -F'\t' '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {printf "%s=%s ", $1, $2}')"
fi
stage "done"
