#!/usr/bin/env bash
# Kafka 4.4.0's DumpLogSegments --remote-log-metadata-decoder reads a __remote_log_metadata
# segment that seglog's Log wrote with seglog's values (one record per fixed case, null keys):
# every record's payload must be what Kafka's RemoteLogMetadataSerde makes of it, and that must
# be the case's own toString (RemoteLogMetadataGolden expect), in offset order.
# Usage: check_remote_log_metadata.sh WRITER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir="$tmp/__remote_log_metadata-0"
read -r -a names < <("$writer" "$dir")
[ "${#names[@]}" -gt 0 ] || { echo "the writer wrote no cases"; exit 1; }
"$here/kafka/oracle.sh" run RemoteLogMetadataGolden expect "${names[@]}" >"$tmp/expected.txt"
"$here/kafka/oracle.sh" kafka-class org.apache.kafka.tools.DumpLogSegments \
  --remote-log-metadata-decoder --files "$dir/00000000000000000000.log" >"$tmp/dump.txt"
# Each record line is "| offset: N ... keySize: -1 ... payload: <the value's toString>".
sed -n 's/^| offset: [0-9]* .* payload: //p' "$tmp/dump.txt" >"$tmp/actual.txt"
if ! diff -u "$tmp/expected.txt" "$tmp/actual.txt"; then
  echo "DumpLogSegments' payloads differ from Kafka's own values"; cat "$tmp/dump.txt"; exit 1
fi
keyed=$(grep '^| offset: ' "$tmp/dump.txt" | grep -vc ' keySize: -1 ' || true)
if [ "$keyed" != 0 ]; then
  echo "$keyed records have a key (Kafka's ProducerManager writes null keys)"; cat "$tmp/dump.txt"; exit 1
fi
echo "Kafka DumpLogSegments --remote-log-metadata-decoder: ${#names[@]} records seglog wrote decode to Kafka's own values"
