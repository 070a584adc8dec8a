#!/usr/bin/env python3
"""A secured directory changes hands: SCRAM users and ACLs made on seglog are enforced by Kafka
4.4.0 started on the same directory, and back.

One server.properties for both programs (SASL_PLAINTEXT with PLAIN and SCRAM-SHA-256/512, the
StandardAuthorizer, User:admin a super user), one log directory D:

  S1  seglog format --add-scram makes dora (SHA-512) in the bootstrap snapshot; seglog serve:
      admin (PLAIN) creates SCRAM users alice (SHA-256) and bob (SHA-512) with
      Kafka's ConfigCommand, the topic `secure`, and ACLs with kafka-acls (alice may write and
      read `secure` and read group g-alice; bob may nothing). alice produces; bob is refused.
  K   kafka.Kafka on D: alice reads every record in group g-alice, bob and dora authenticate
      and are refused the topic, a wrong password is refused; admin creates carol (SHA-512) and lets
      her read `secure`.
  S2  seglog serve on D again: carol (made by Kafka) reads every record, alice still writes,
      bob is still refused, and the ACLs kafka-acls lists are the same as Kafka listed.

Every check reads what the clients got back (records, Kafka's exception names), not exit codes
alone. Free 127.0.0.1 ports; the work directory is kept when the check fails (or with --keep).
"""

import argparse
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kraft_takeover_check import KafkaNode, SeglogNode  # noqa: E402
from mirrormaker_check import ORACLE, ROOT, Failure, check, log  # noqa: E402
from harness import free_port  # noqa: E402

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="admin" password="admin-secret" user_admin="admin-secret";')
SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'
TOPIC = "secure"
RECORDS = [f"secret {i}" for i in range(20)]


def server_properties(data, port, cport):
    return f"""# Written by interop/kafka/move/security_takeover_check.py: one file for seglog serve and
# Kafka 4.4.0, one log directory.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{cport}
controller.listener.names=CONTROLLER
listeners=SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}
advertised.listeners=SASL_PLAINTEXT://127.0.0.1:{port}
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config={PLAIN_JAAS}
# Kafka wants a login module for every enabled mechanism; seglog reads only PLAIN's users.
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config={SCRAM_JAAS}
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config={SCRAM_JAAS}
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
# ANONYMOUS: Kafka's broker talks to its own controller over the PLAINTEXT CONTROLLER listener.
super.users=User:admin;User:ANONYMOUS
log.dirs={data}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def tool(cls, *args, timeout=120, input=None):
    return subprocess.run([ORACLE, "kafka-class", cls, *args], capture_output=True, text=True,
                          timeout=timeout, input=input)


class Clients:
    def __init__(self, work, bootstrap):
        self.work = work
        self.bootstrap = bootstrap

    def config(self, user, mechanism, password, tag=""):
        module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                  else "org.apache.kafka.common.security.scram.ScramLoginModule")
        return write(os.path.join(self.work, f"{user}-{mechanism}{tag}.properties"),
                     f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n"
                     f'sasl.jaas.config={module} required username="{user}" '
                     f'password="{password}";\n')

    def admin(self):
        return self.config("admin", "PLAIN", "admin-secret")

    def add_user(self, user, mechanism, password):
        p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", self.bootstrap,
                 "--command-config", self.admin(), "--alter", "--add-config",
                 f"{mechanism}=[iterations=8192,password={password}]", "--entity-type", "users",
                 "--entity-name", user)
        check(f"Completed updating config for user {user}." in p.stdout, p.stdout + p.stderr)

    def acl(self, *args):
        p = tool("org.apache.kafka.tools.AclCommand", "--bootstrap-server", self.bootstrap,
                 "--command-config", self.admin(), *args)
        check(p.returncode == 0, f"kafka-acls {args}: {p.stdout[-1500:]}{p.stderr[-1500:]}")
        return p.stdout

    def produce(self, config, lines):
        return tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", self.bootstrap,
                    "--command-config", config, "--topic", TOPIC, "--producer-property",
                    "max.block.ms=15000", "--producer-property", "delivery.timeout.ms=20000",
                    "--producer-property", "request.timeout.ms=10000",
                    input="\n".join(lines) + "\n")

    def consume(self, config, group, n):
        return tool("org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server",
                    self.bootstrap, "--command-config", config, "--topic", TOPIC, "--group", group,
                    "--from-beginning", "--max-messages", str(n), "--timeout-ms", "30000")


def expect_records(p, want, who):
    got = [x for x in p.stdout.splitlines() if x.startswith("secret") or x.startswith("more")]
    check(got == want, f"{who} read {got[:4]}... ({len(got)}), wanted {len(want)}:\n"
                       f"{p.stderr[-1500:]}")


def expect_refused(p, exception, who):
    text = p.stdout + p.stderr
    check(exception in text, f"{who}: no {exception}:\n{text[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="seglog-security-takeover-")
    data = os.path.join(work, "data")
    port, cport = free_port(), free_port()
    config_text = server_properties(data, port, cport)
    config = write(os.path.join(work, "server.properties"), config_text)
    cp = subprocess.run([ORACLE, "mirror-classpath"], capture_output=True, text=True,
                        timeout=900).stdout.strip()
    seglog = SeglogNode(os.path.abspath(args.seglog), data, port, config)
    kafka = KafkaNode(cp, os.path.join(work, "kafka"), data, port, cport, config_text)
    c = Clients(work, f"127.0.0.1:{port}")
    alice = c.config("alice", "SCRAM-SHA-256", "alice-secret")
    bob = c.config("bob", "SCRAM-SHA-512", "bob-secret")
    carol = c.config("carol", "SCRAM-SHA-512", "carol-secret")
    ok = False
    try:
        log("S1: seglog format --add-scram, then seglog serve makes users, a topic and ACLs")
        p = subprocess.run([os.path.abspath(args.seglog), "format", "-c", config, "-t",
                            base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode(), "--add-scram",
                            "SCRAM-SHA-512=[name=dora,password=dora-secret]"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"seglog format: {p.stdout}{p.stderr}")
        seglog.start()
        c.add_user("alice", "SCRAM-SHA-256", "alice-secret")
        c.add_user("bob", "SCRAM-SHA-512", "bob-secret")
        p = tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", c.bootstrap,
                 "--command-config", c.admin(), "--create", "--topic", TOPIC, "--partitions", "1")
        check(f"Created topic {TOPIC}." in p.stdout, p.stdout + p.stderr)
        c.acl("--add", "--allow-principal", "User:alice", "--operation", "Write", "--operation",
              "Read", "--topic", TOPIC)
        c.acl("--add", "--allow-principal", "User:alice", "--operation", "Read", "--group",
              "g-alice")
        c.acl("--add", "--allow-principal", "User:carol", "--operation", "Read", "--group",
              "g-carol")
        p = c.produce(alice, RECORDS)
        check(p.returncode == 0, f"alice's produce: {p.stderr[-1500:]}")
        expect_refused(c.produce(bob, ["nope"]), "TopicAuthorizationException", "bob's produce")
        acls_seglog = c.acl("--list", "--topic", TOPIC)
        seglog.stop()

        log("K: Kafka 4.4.0 on the same directory")
        kafka.start(timeout=150, format_storage=False)
        expect_records(c.consume(alice, "g-alice", len(RECORDS)), RECORDS, "alice on Kafka")
        expect_refused(c.consume(bob, "g-bob", 1), "AuthorizationException", "bob on Kafka")
        # dora, from seglog format's --add-scram, authenticates (and, with no ACL, is refused).
        dora = c.config("dora", "SCRAM-SHA-512", "dora-secret")
        expect_refused(c.consume(dora, "g-dora", 1), "AuthorizationException", "dora on Kafka")
        wrong = c.config("alice", "SCRAM-SHA-256", "not-alices", tag="-wrong")
        expect_refused(c.consume(wrong, "g-alice", 1), "SaslAuthenticationException",
                       "a wrong password on Kafka")
        acls_kafka = c.acl("--list", "--topic", TOPIC)
        check(sorted(acls_kafka.splitlines()) == sorted(acls_seglog.splitlines()),
              f"kafka-acls lists differ:\nseglog:\n{acls_seglog}\nKafka:\n{acls_kafka}")
        c.add_user("carol", "SCRAM-SHA-512", "carol-secret")
        c.acl("--add", "--allow-principal", "User:carol", "--operation", "Read", "--topic", TOPIC)
        kafka.stop_clean()

        log("S2: seglog serve again")
        seglog.start()
        expect_records(c.consume(carol, "g-carol", len(RECORDS)), RECORDS, "carol on seglog")
        p = c.produce(alice, ["more 1", "more 2"])
        check(p.returncode == 0, f"alice's second produce: {p.stderr[-1500:]}")
        expect_records(c.consume(carol, "g-carol", 2), ["more 1", "more 2"], "carol again")
        expect_refused(c.consume(bob, "g-bob", 1), "AuthorizationException", "bob on seglog")
        acls_again = c.acl("--list", "--topic", TOPIC)
        check("User:carol" in acls_again, f"carol's ACL made on Kafka is missing:\n{acls_again}")
        seglog.stop()
        ok = True
        print("security_takeover_check: passed")
        return 0
    except Failure as e:
        print(f"security_takeover_check: FAILED: {e}")
        print("seglog log:\n" + seglog.full_log()[-3000:])
        return 1
    finally:
        for n in (seglog, kafka):
            try:
                if n.proc is not None:
                    n.proc.kill()
            except Exception:  # noqa: BLE001 - cleanup only
                pass
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")


if __name__ == "__main__":
    sys.exit(main())
