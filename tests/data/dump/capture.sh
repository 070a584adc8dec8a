#!/usr/bin/env bash
# Re-captures expected/<case>.{stdout,stderr}.txt for every line of cases.txt by running Kafka
# 4.4.0's own DumpLogSegments through interop/kafka/oracle.sh, then replaces this directory's
# absolute path by @DIR@ (tools/dump_log_test.cc puts its own path back). See README.md.
set -uo pipefail
DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
ORACLE="$DIR/../../../interop/kafka/oracle.sh"
mkdir -p "$DIR/expected"
while read -r name args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  # shellcheck disable=SC2086  # the arguments are split on spaces on purpose
  "$ORACLE" kafka-class org.apache.kafka.tools.DumpLogSegments ${args//@DIR@/$DIR} \
    >"$DIR/expected/$name.stdout.txt" 2>"$DIR/expected/$name.stderr.txt"
  echo "$name: exit $?"
  sed -i "s#$DIR#@DIR@#g" "$DIR/expected/$name.stdout.txt" "$DIR/expected/$name.stderr.txt"
done <"$DIR/cases.txt"
