#!/usr/bin/env bash
# Starts a real Kafka 4.4.0 broker, feeds it with Kafka's own producer, stops it cleanly and
# copies its partition directories (interop/kafka/broker/make_fixture.sh), then runs seglog's
# reader test against that fresh copy: every record, offset lookup and timestamp lookup must
# equal Kafka's. Usage: run_broker_check.sh PATH/TO/kafka_written_test
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
test_bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$here/kafka/broker/make_fixture.sh" "$out" >"$out.log" 2>&1 || { cat "$out.log"; rm -f "$out.log"; exit 1; }
rm -f "$out.log"
SEGLOG_KAFKA_WRITTEN_DIR="$out" "$test_bin"
