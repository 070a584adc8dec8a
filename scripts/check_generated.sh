#!/usr/bin/env bash
# Regenerates src/protocol/generated from the pinned Kafka 4.4.0 schema jars (kafka-clients, the
# group and transaction coordinators' and kafka-storage, fetched by interop/kafka/oracle.sh) into a
# temporary directory and fails when it differs from the committed files: the generated code must be
# exactly what the generator makes of Kafka's schemas.
set -euo pipefail
ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"
mapfile -t JARS < <("$ROOT/interop/kafka/oracle.sh" schema-jars)
[[ ${#JARS[@]} -gt 0 ]] || { echo "check_generated: oracle.sh schema-jars printed no jars" >&2; exit 1; }
ARGS=()
for jar in "${JARS[@]}"; do ARGS+=(--jar "$jar"); done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 "$ROOT/src/protocol/codegen/generate.py" "${ARGS[@]}" --out "$TMP/generated"
if ! diff -r "$ROOT/src/protocol/generated" "$TMP/generated" >"$TMP/diff"; then
  head -50 "$TMP/diff" >&2
  echo "check_generated: src/protocol/generated differs from what generate.py makes of ${JARS[*]};" \
       "run: python3 src/protocol/codegen/generate.py ${ARGS[*]} --out src/protocol/generated" >&2
  exit 1
fi
echo "check_generated: src/protocol/generated matches Kafka 4.4.0's schemas (${#JARS[@]} jars)" >&2

# Kafka 4.4.0's broker configs (src/server/generated), from what Kafka's own KafkaConfig prints.
"$ROOT/interop/kafka/oracle.sh" run BrokerConfigs >"$TMP/broker_configs.json"
python3 "$ROOT/src/server/codegen/broker_configs.py" --json "$TMP/broker_configs.json" \
  --out "$TMP/server-generated"
if ! diff -r "$ROOT/src/server/generated" "$TMP/server-generated" >"$TMP/server-diff"; then
  head -50 "$TMP/server-diff" >&2
  echo "check_generated: src/server/generated differs from what broker_configs.py makes of Kafka" \
       "4.4.0's KafkaConfig; run: interop/kafka/oracle.sh run BrokerConfigs > configs.json &&" \
       "python3 src/server/codegen/broker_configs.py --json configs.json --out src/server/generated" >&2
  exit 1
fi
echo "check_generated: src/server/generated matches Kafka 4.4.0's broker configs" >&2

# Kafka 4.4.0's topic configs (src/log/generated), from what Kafka's own LogConfig prints.
"$ROOT/interop/kafka/oracle.sh" run TopicConfigs >"$TMP/topic_configs.json"
python3 "$ROOT/src/log/codegen/topic_configs.py" --json "$TMP/topic_configs.json" \
  --out "$TMP/log-generated"
if ! diff -r "$ROOT/src/log/generated" "$TMP/log-generated" >"$TMP/log-diff"; then
  head -50 "$TMP/log-diff" >&2
  echo "check_generated: src/log/generated differs from what topic_configs.py makes of Kafka" \
       "4.4.0's LogConfig; run: interop/kafka/oracle.sh run TopicConfigs > topic_configs.json &&" \
       "python3 src/log/codegen/topic_configs.py --json topic_configs.json --out src/log/generated" >&2
  exit 1
fi
echo "check_generated: src/log/generated matches Kafka 4.4.0's topic configs" >&2
