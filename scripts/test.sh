#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine or an old one:
#   1. installs missing apt packages and fetches Kafka 4.4.0's jars and MirrorMaker 2's with Maven
#      (cached in ~/.cache/seglog, reused on later runs); checks src/protocol/generated is what
#      src/protocol/codegen/generate.py makes of the jars' schemas;
#   2. builds and runs the unit tests under ASan+UBSan (g++);
#   3. builds everything with clang 14 and -Wthread-safety -Werror, and runs the unit tests;
#      then builds with ThreadSanitizer (g++) and runs the unit tests - among them threads that
#      append, read, flush, clean and delete topics at once;
#   4. runs each libFuzzer target for FUZZ_SECONDS (default 45, two at a time; 0 skips; longer
#      runs: scripts/fuzz.sh 3600);
#   5. builds the release tree (g++ -Werror), installs it into a temporary prefix and builds and
#      runs examples/embed against the installed package (scripts/check_install.sh);
#   6. runs every release test, unit and interop (Kafka's own classes reading what seglog
#      wrote), ending with ctest's summary.
# Environment: FUZZ_SECONDS, SEGLOG_CACHE (Maven jar cache), JOBS (build parallelism).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}
fuzz_seconds=${FUZZ_SECONDS:-45}
# Each stage's wall time, so the 45-minute budget can be kept an eye on (CI's log keeps them).
stage_start=$SECONDS
stage() {
  echo "   (took $((SECONDS - stage_start)) s; $((SECONDS / 60)) min so far)"
  stage_start=$SECONDS
  echo "== $1"
}

echo "== setup: packages, clients, Kafka jars, generated code"
bash scripts/install-deps.sh
bash scripts/install-clients.sh
interop/kafka/oracle.sh compile >/dev/null
# MirrorMaker 2's jars (interop/kafka/move/pom.xml), for interop.mirrormaker_seglog_to_kafka.
interop/kafka/oracle.sh mirror-classpath >/dev/null
# The committed protocol code is what the generator makes of Kafka 4.4.0's schemas.
bash scripts/check_generated.sh

stage "asan-ubsan: build and unit tests"
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan -j "$jobs"
ctest --preset asan-ubsan -L unit -j "$jobs" --timeout 900 | tail -n 4

stage "clang-tsa: clang 14 with -Wthread-safety, build and unit tests"
cmake --preset clang-tsa >/dev/null
cmake --build --preset clang-tsa -j "$jobs"
ctest --preset clang-tsa -L unit -j "$jobs" | tail -n 4

stage "tsan: ThreadSanitizer, build and unit tests"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -L unit -j "$jobs" --timeout 900 | tail -n 4

if [ "$fuzz_seconds" != "0" ]; then
  stage "fuzz: ${fuzz_seconds}s per target"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi

stage "release: build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"

stage "install: examples/embed against the installed package (CMake and pkg-config)"
bash scripts/check_install.sh build/release

stage "release: every test (unit + interop)"
ctest --preset release -j "$jobs"
stage "done"
