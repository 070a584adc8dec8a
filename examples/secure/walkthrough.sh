#!/usr/bin/env bash
# docs/operations.md's "Securing seglog", start to finish: certificates, the first user at
# format, seglog serve, a user made with kafka-configs, ACLs with kafka-acls, alice producing
# and consuming, bob refused. Run from anywhere; it works in examples/secure and removes its
# data, certs and broker at the end. SEGLOG (default build/release/cli/seglog), ORACLE
# (default interop/kafka/oracle.sh: Kafka 4.4.0's tools from the Maven cache),
# PORT and CONTROLLER_PORT (default 9093 and 9094: server.properties' ports; tests pass free
# ones, which go into a copy of it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seglog="${SEGLOG:-$root/build/release/cli/seglog}"
oracle="${ORACLE:-$root/interop/kafka/oracle.sh}"
kafka() { "$oracle" kafka-class "$@"; }
port="${PORT:-9093}"
cport="${CONTROLLER_PORT:-9094}"
cd "$here"
rm -rf data certs bob.properties bob.out bob.err serve.log run.properties
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf data certs bob.properties bob.out bob.err serve.log run.properties' EXIT
sed "s/:9093/:$port/g; s/:9094/:$cport/g" server.properties > run.properties
b="127.0.0.1:$port"

# 1. Certificates.
bash make-certs.sh >/dev/null 2>&1

# 2. The first user, admin, in the bootstrap snapshot; then the broker.
"$seglog" format -c run.properties -t "$(kafka kafka.tools.StorageTool random-uuid)" \
  --add-scram 'SCRAM-SHA-512=[name=admin,password=admin-secret]'
"$seglog" serve --server-config run.properties >serve.log 2>&1 &
pid=$!
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

# 3. alice, a topic, and her rights.
kafka org.apache.kafka.tools.ConfigCommand --bootstrap-server $b \
  --command-config admin.properties --alter --entity-type users --entity-name alice \
  --add-config 'SCRAM-SHA-512=[password=alice-secret]'
kafka org.apache.kafka.tools.TopicCommand --bootstrap-server $b \
  --command-config admin.properties --create --topic payments --partitions 1
kafka org.apache.kafka.tools.AclCommand --bootstrap-server $b \
  --command-config admin.properties --add --allow-principal User:alice \
  --operation Write --operation Read --operation Describe --topic payments
kafka org.apache.kafka.tools.AclCommand --bootstrap-server $b \
  --command-config admin.properties --add --allow-principal User:alice \
  --operation Read --group payments-readers

# 4. alice writes and reads.
printf 'paid 10\npaid 20\n' | kafka org.apache.kafka.tools.ConsoleProducer \
  --bootstrap-server $b --command-config alice.properties --topic payments
kafka org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server $b \
  --command-config alice.properties --topic payments --group payments-readers \
  --from-beginning --max-messages 2 | tee consumed.txt
[ "$(cat consumed.txt)" = "$(printf 'paid 10\npaid 20')" ] || { echo "alice read: $(cat consumed.txt)"; exit 1; }
rm -f consumed.txt

# 5. bob has a password but no ACL: refused.
kafka org.apache.kafka.tools.ConfigCommand --bootstrap-server $b \
  --command-config admin.properties --alter --entity-type users --entity-name bob \
  --add-config 'SCRAM-SHA-512=[password=bob-secret]'
sed 's/alice/bob/g' alice.properties > bob.properties
# (Kafka's console consumer prints the refusal and exits 0, so its words are what is checked.)
kafka org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server $b \
  --command-config bob.properties --topic payments --group payments-readers \
  --from-beginning --max-messages 1 --timeout-ms 20000 >bob.out 2>bob.err || true
if [ -s bob.out ] || ! grep -q "AuthorizationException" bob.err; then
  echo "bob was not refused:"; cat bob.out bob.err; exit 1
fi
grep -h "AuthorizationException" bob.err
rm -f bob.out bob.err
echo "walkthrough: passed"
