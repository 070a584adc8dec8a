#!/usr/bin/env bash
# The main job: installs what is missing, builds seglog (release), and starts the broker -
# `seglog serve` on ./data at 127.0.0.1:9092 - printing how to connect with Kafka's console
# tools and kcat, with Prometheus metrics on 127.0.0.1:9093/metrics and the read-only web
# console on http://127.0.0.1:9093/ (docs/operations.md, "Web console"). Stop it with Ctrl-C (a
# clean shutdown). Environment: SEGLOG_LOG_DIR (default ./data), SEGLOG_PORT (default 9092),
# SEGLOG_HTTP_PORT (default 9093).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target seglog
port="${SEGLOG_PORT:-9092}"
http_port="${SEGLOG_HTTP_PORT:-9093}"
dir="${SEGLOG_LOG_DIR:-./data}"
cat <<MSG
seglog serve: a single Kafka broker on 127.0.0.1:$port over $dir. In another shell:

  echo hello | kcat -b 127.0.0.1:$port -P -t demo
  kcat -b 127.0.0.1:$port -C -t demo -o beginning -e

or with Kafka 4.4.0's own tools (fetched into ~/.cache/seglog by the test command):

  printf 'one\\ntwo\\n' | interop/kafka/oracle.sh kafka-class org.apache.kafka.tools.ConsoleProducer \\
      --bootstrap-server 127.0.0.1:$port --topic demo
  interop/kafka/oracle.sh kafka-class org.apache.kafka.tools.consumer.ConsoleConsumer \\
      --bootstrap-server 127.0.0.1:$port --topic demo --partition 0 --offset earliest

Metrics, under the names Kafka's dashboards use (Prometheus text):

  curl -s http://127.0.0.1:$http_port/metrics | grep brokertopicmetrics

Web console (read-only): open http://127.0.0.1:$http_port/ in a browser. A partition's page,
e.g. http://127.0.0.1:$http_port/partition?topic=demo&partition=0, draws its segments and
indexes as they fill, roll and are deleted, and animates offset and timestamp lookups.

MSG
exec ./build/release/cli/seglog serve --log-dir "$dir" \
  --override "listeners=PLAINTEXT://127.0.0.1:$port" \
  --override "http.listener=127.0.0.1:$http_port"
