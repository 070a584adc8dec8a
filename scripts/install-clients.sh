#!/usr/bin/env bash
# Installs the Python Kafka clients the `clients` tests drive: confluent-kafka (librdkafka
# inside) and kafka-python with its codec libraries, pinned, in a virtualenv in the cache
# (${SEGLOG_CACHE:-~/.cache/seglog}/venv), reused while the pins are unchanged. kcat comes from
# Debian (scripts/install-deps.sh) and Kafka's Java tools from the Maven cache (oracle.sh).
set -euo pipefail
CACHE="${SEGLOG_CACHE:-$HOME/.cache/seglog}"
VENV="$CACHE/venv"
PINS="confluent-kafka==2.16.1 kafka-python==3.0.12 python-snappy==0.7.3 cramjam==2.14.0 lz4==4.4.5 zstandard==0.25.0"
STAMP="$VENV/.pins"
if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$PINS" ]]; then
  exit 0
fi
echo "install-clients: $PINS into $VENV" >&2
mkdir -p "$CACHE"
python3 -m venv "$VENV"
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q --disable-pip-version-check $PINS
"$VENV/bin/python" -c "import confluent_kafka, kafka, snappy, lz4, zstandard"
echo "$PINS" > "$STAMP"
