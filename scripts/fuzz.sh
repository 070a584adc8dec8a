#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, ASan+UBSan) and runs each for a bounded time, seeded
# with the golden batches. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# A longer run: scripts/fuzz.sh 3600. A crash leaves crash-* files in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target record_batch_fuzzer segment_recovery_fuzzer request_fuzzer \
  offsets_record_fuzzer protocol_samples_dump
mkdir -p build/fuzz/artifacts
# Both targets start from the golden batches (whole .log files of every codec and magic).
for target in record_batch segment_recovery; do
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n tests/data/golden/batches/*.bin tests/data/fuzz_regressions/*.bin "$corpus"/ 2>/dev/null || true
  # Inputs that once crashed a target must run clean first (libFuzzer runs files given as
  # arguments once).
  build/fuzz/fuzz/${target}_fuzzer tests/data/fuzz_regressions/*.bin 2>&1 | tail -n 2
  build/fuzz/fuzz/${target}_fuzzer "$corpus" -max_total_time="$seconds" -max_len=300000 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ 2>&1 | tail -n 15
  echo "fuzz: ${target}_fuzzer ran ${seconds}s with no crash"
done

# Requests of every API and version: seeded with the sample of every request message (as
# "<api key><version><body>", the fuzzer's input layout).
corpus=build/fuzz/corpus/request
mkdir -p "$corpus"
build/fuzz/interop/protocol_samples_dump --corpus "$corpus"
build/fuzz/fuzz/request_fuzzer "$corpus" -max_total_time="$seconds" -max_len=65536 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ 2>&1 | tail -n 15
echo "fuzz: request_fuzzer ran ${seconds}s with no crash"

# __consumer_offsets records as read at load (every group coordinator record type). No seed
# corpus: the fuzzer puts its input behind a well-formed key of every type, and the values are
# small structs it finds from scratch.
corpus=build/fuzz/corpus/offsets_record
mkdir -p "$corpus"
build/fuzz/fuzz/offsets_record_fuzzer "$corpus" -max_total_time="$seconds" -max_len=4096 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ 2>&1 | tail -n 15
echo "fuzz: offsets_record_fuzzer ran ${seconds}s with no crash"
