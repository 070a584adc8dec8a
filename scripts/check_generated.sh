#!/usr/bin/env bash
# Regenerates src/protocol/generated from the pinned kafka-clients jar (fetched by
# interop/kafka/oracle.sh) into a temporary directory and fails when it differs from the
# committed files: the generated code must be exactly what the generator makes of Kafka's
# schemas.
set -euo pipefail
ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"
"$ROOT/interop/kafka/oracle.sh" fetch
JAR="${SEGLOG_CACHE:-$HOME/.cache/seglog}/kafka-4.4.0/lib/kafka-clients-4.4.0.jar"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 "$ROOT/src/protocol/codegen/generate.py" --jar "$JAR" --out "$TMP/generated"
if ! diff -r "$ROOT/src/protocol/generated" "$TMP/generated" >"$TMP/diff"; then
  head -50 "$TMP/diff" >&2
  echo "check_generated: src/protocol/generated differs from what generate.py makes of $JAR;" \
       "run: python3 src/protocol/codegen/generate.py --jar $JAR --out src/protocol/generated" >&2
  exit 1
fi
echo "check_generated: src/protocol/generated matches Kafka 4.4.0's schemas" >&2
