#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time, seeded with the golden batches.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# A longer run: scripts/fuzz.sh 3600. A crash leaves crash-* files in build/fuzz/artifacts/.
# The targets are built in the asan-ubsan tree (clang 14, ASan+UBSan, SEGLOG_FUZZ), the one
# test.sh builds and runs the unit tests in; corpora, artifacts and reports go to build/fuzz/.
# Targets run FUZZ_JOBS at a time (default 2, one per core here); each prints its report when
# it ends, and any target's crash fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=${FUZZ_JOBS:-2}
bin=build/asan-ubsan
bash scripts/install-deps.sh
cmake --preset asan-ubsan >/dev/null
mkdir -p build/fuzz/artifacts build/fuzz/reports
# The build's output goes to build/fuzz/reports/build.txt, printed only if the build fails.
cmake --build --preset asan-ubsan --target record_batch_fuzzer segment_recovery_fuzzer \
  request_fuzzer offsets_record_fuzzer transaction_log_fuzzer remote_log_metadata_fuzzer \
  protocol_samples_dump remote_log_metadata_dump s3_response_fuzzer remote_indexes_fuzzer \
  metadata_log_fuzzer sasl_fuzzer sasl_exchange_fuzzer otlp_metrics_fuzzer share_state_fuzzer >build/fuzz/reports/build.txt 2>&1 ||
  { tail -n 150 build/fuzz/reports/build.txt; echo "fuzz: the build failed" >&2; exit 1; }

# run_target <name> <max_len> [corpus directories...]: fuzzes $bin/fuzz/<name>_fuzzer
# for $seconds; its report goes to build/fuzz/reports/<name>.txt.
run_target() {
  local target=$1 max_len=$2
  shift 2
  "$bin"/fuzz/${target}_fuzzer "$@" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ \
    >"build/fuzz/reports/$target.txt" 2>&1
}

# Both batch targets start from the golden batches (whole .log files of every codec and magic).
for target in record_batch segment_recovery; do
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n tests/data/golden/batches/*.bin tests/data/fuzz_regressions/*.bin "$corpus"/ 2>/dev/null || true
  # Inputs that once crashed a target must run clean first (libFuzzer runs files given as
  # arguments once).
  "$bin"/fuzz/${target}_fuzzer tests/data/fuzz_regressions/*.bin 2>&1 | tail -n 2
done
# Requests of every API and version: seeded with the sample of every request message (as
# "<api key><version><body>", the fuzzer's input layout).
mkdir -p build/fuzz/corpus/request build/fuzz/corpus/offsets_record \
  build/fuzz/corpus/transaction_log
"$bin"/interop/protocol_samples_dump --corpus build/fuzz/corpus/request
# __remote_log_metadata values: seeded with the values of every record type
# (protocol/remote_log_metadata_cases.h), which Kafka's serde writes identically.
mkdir -p build/fuzz/corpus/remote_log_metadata
"$bin"/interop/remote_log_metadata_dump --corpus build/fuzz/corpus/remote_log_metadata
# __consumer_offsets records as read at load (every group coordinator record type) have no
# seed corpus: the fuzzer puts its input behind a well-formed key of every type, and the values
# are small structs it finds from scratch. __transaction_state records likewise
# (transaction_log_fuzzer), and __share_group_state's (share_state_fuzzer).
targets=("record_batch 300000" "segment_recovery 300000" "request 65536" "offsets_record 4096"
  "transaction_log 4096" "remote_log_metadata 4096" "s3_response 65536" "remote_indexes 65536"
  "metadata_log 65536" "sasl 4096" "sasl_exchange 16384" "otlp_metrics 65536" "share_state 4096")

# S3's XML answers and the SegmentObjects custom metadata (s3_response_fuzzer): seeded with
# real answers of versitygw and one record.
mkdir -p build/fuzz/corpus/s3_response
cp -n tests/data/fuzz_seeds/s3_response/* build/fuzz/corpus/s3_response/ 2>/dev/null || true

# A remote segment's three index files (remote_indexes_fuzzer): seeded with a header and three
# files that open (entries in every index, an aborted transaction) and with empty files.
mkdir -p build/fuzz/corpus/remote_indexes
cp -n tests/data/fuzz_seeds/remote_indexes/* build/fuzz/corpus/remote_indexes/ 2>/dev/null || true

# KRaft's metadata log (metadata_log_fuzzer, also dump-log's decoder): seeded with a bootstrap
# snapshot, a later snapshot, a quorum-state and a metadata log segment that seglog and Kafka
# 4.4.0 wrote in turn, and the metadata log and snapshots of a Kafka broker (dump-log's fixture).
mkdir -p build/fuzz/corpus/metadata_log
cp -n tests/data/fuzz_seeds/metadata_log/* build/fuzz/corpus/metadata_log/ 2>/dev/null || true
for f in tests/data/cluster_metadata/kafka/*; do
  cp -n "$f" "build/fuzz/corpus/metadata_log/cluster_metadata_$(basename "$f")" 2>/dev/null || true
done

# SASL messages before authentication (sasl_fuzzer): seeded with RFC 7677's exchange and a
# SCRAM-SHA-512 one.
mkdir -p build/fuzz/corpus/sasl
cp -n tests/data/fuzz_seeds/sasl/* build/fuzz/corpus/sasl/ 2>/dev/null || true
# A SASL listener's authenticator (sasl_exchange_fuzzer): seeded with whole exchanges - PLAIN
# with Kafka headers and raw, SCRAM's first message, an unsecured OAUTHBEARER token.
mkdir -p build/fuzz/corpus/sasl_exchange
cp -n tests/data/fuzz_seeds/sasl_exchange/* build/fuzz/corpus/sasl_exchange/ 2>/dev/null || true

# KIP-714 telemetry payloads (otlp_metrics_fuzzer): seeded with OTLP MetricsData as a Java
# 4.4.0 producer pushes it (first byte 0: uncompressed) and a small hand-made one.
mkdir -p build/fuzz/corpus/otlp_metrics build/fuzz/corpus/share_state
cp -n tests/data/fuzz_seeds/otlp_metrics/* build/fuzz/corpus/otlp_metrics/ 2>/dev/null || true

failed=0
pids=()
names=()
finish_one() {  # waits for the oldest running target and prints its report
  local pid=${pids[0]} name=${names[0]}
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
  if wait "$pid"; then
    tail -n 4 "build/fuzz/reports/$name.txt"
    echo "fuzz: ${name}_fuzzer ran ${seconds}s with no crash"
  else
    tail -n 60 "build/fuzz/reports/$name.txt"
    echo "fuzz: ${name}_fuzzer FAILED (report: build/fuzz/reports/$name.txt)"
    failed=1
  fi
}
for t in "${targets[@]}"; do
  read -r name max_len <<<"$t"
  if [ "${#pids[@]}" -ge "$jobs" ]; then finish_one; fi
  run_target "$name" "$max_len" "build/fuzz/corpus/$name" &
  pids+=($!)
  names+=("$name")
done
while [ "${#pids[@]}" -gt 0 ]; do finish_one; done
exit "$failed"
