#!/usr/bin/env bash
# Installs the Python Kafka clients the `clients` tests drive: confluent-kafka (librdkafka
# inside) and kafka-python with its codec libraries, pinned, in a virtualenv in the cache
# (${SEGLOG_CACHE:-~/.cache/seglog}/venv), reused while the pins are unchanged. kcat comes from
# Debian (scripts/install-deps.sh) and Kafka's Java tools from the Maven cache (oracle.sh).
# Also the franz-go client (tests/clients/go/franzgo) into the cache's bin/franzgo, and Versity S3 Gateway, the S3 server the tiered storage tests start (src/remote/testing/
# versitygw.h), built once with Go into the cache's go/bin (~70 s) when it is missing, and
# moto's server mode (PyPI), the second S3-compatible server those tests start
# (src/remote/testing/moto_server.h: <venv>/bin/moto_server): moto[s3] with the two Flask
# packages its server needs, pinned - the moto[server] extra would add ~180 MB and a minute of
# other AWS services' dependencies that an S3 server never loads. Selenium and Pillow drive
# Debian's chromium (install-deps.sh) in the web console's browser test and compare its
# screenshots (tests/clients/console_cases.py).
# A change of the pins reinstalls into the existing venv: pip keeps what is already at its pinned
# version, so only the changed packages are fetched (a fresh venv takes ~40 s, half of it moto
# and boto; an unchanged one a few seconds).
set -euo pipefail
CACHE="${SEGLOG_CACHE:-$HOME/.cache/seglog}"
VERSITYGW_VERSION=v1.8.0
# The tests look for ~/.cache/seglog/go/bin/versitygw (or $SEGLOG_VERSITYGW, or PATH).
VERSITYGW_BIN="$HOME/.cache/seglog/go/bin"
if [[ ! -x "$VERSITYGW_BIN/versitygw" ]] && ! command -v versitygw >/dev/null; then
  if ! command -v go >/dev/null; then
    echo "install-clients: versitygw needs Go to build (go install); install Go, or put a" \
      "versitygw binary in $VERSITYGW_BIN" >&2
    exit 1
  fi
  echo "install-clients: versitygw $VERSITYGW_VERSION into $VERSITYGW_BIN" >&2
  mkdir -p "$VERSITYGW_BIN"
  GOBIN="$VERSITYGW_BIN" go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
fi
# franz-go, the third client library (tests/clients/go/franzgo, versions pinned in its go.mod
# and go.sum): built into the cache, again only when its sources changed.
FRANZGO_SRC="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../tests/clients/go/franzgo" && pwd -P)"
FRANZGO_HASH="$(cat "$FRANZGO_SRC"/go.mod "$FRANZGO_SRC"/go.sum "$FRANZGO_SRC"/*.go | sha256sum | cut -c1-16)"
FRANZGO_BIN="$CACHE/bin/franzgo-$FRANZGO_HASH"
if [[ ! -x "$FRANZGO_BIN" ]]; then
  echo "install-clients: franz-go client into $FRANZGO_BIN" >&2
  mkdir -p "$CACHE/bin"
  (cd "$FRANZGO_SRC" && go build -mod=readonly -o "$FRANZGO_BIN.tmp" . && mv "$FRANZGO_BIN.tmp" "$FRANZGO_BIN")
fi
ln -sfn "$FRANZGO_BIN" "$CACHE/bin/franzgo"
VENV="$CACHE/venv"
PINS="confluent-kafka==2.16.1 kafka-python==3.0.12 python-snappy==0.7.3 cramjam==2.14.0 lz4==4.4.5 zstandard==0.25.0 moto[s3]==5.2.5 flask==3.1.3 flask-cors==6.0.5 selenium==4.51.0 pillow==13.0.0"
STAMP="$VENV/.pins"
if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$PINS" ]]; then
  exit 0
fi
echo "install-clients: $PINS into $VENV" >&2
mkdir -p "$CACHE"
python3 -m venv "$VENV"
# Split on spaces without globbing ("moto[s3]" is a glob pattern to an unquoted expansion).
read -ra PIN_LIST <<<"$PINS"
"$VENV/bin/pip" install -q --disable-pip-version-check "${PIN_LIST[@]}"
"$VENV/bin/python" -c "import confluent_kafka, kafka, snappy, lz4, zstandard, moto.server, selenium, PIL"
test -x "$VENV/bin/moto_server"
echo "$PINS" > "$STAMP"
