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

Client quotas (issue 29) ride along, all made and described with Kafka's kafka-configs
(ConfigCommand): in S1 seglog is given quotas of every kind (users, clients, user + client pairs,
each with named and default entities, and ips with connection_creation_rate), one client entity
is deleted and one key removed; what kafka-configs --describe prints through seglog must be what
it prints through Kafka in K, line for line and value for value, and the deleted entity must be
gone. In K, Kafka changes, adds and deletes quotas; S2 must describe what Kafka described last.
The order of the lines and of the values in a line is not compared: kafka-configs prints Java
HashMap iteration order, which for keys sharing a bucket is the order of the broker's response,
and Kafka's own response order depends on how its metadata image was built. Kafka 4.4.0 itself
prints one entity's "producer_byte_rate=1000.0, request_percentage=20.0" while running after two
alterations and "request_percentage=20.0, producer_byte_rate=1000.0" after a restart.

A group's own configs (the GROUP config resource) ride along the same way: set and one deleted
with kafka-configs --entity-type groups in S1, described alike by Kafka in K, which adds and
deletes one, and described alike by seglog in S2.

Every check reads what the clients got back (records, Kafka's exception names), not exit codes
alone. Free 127.0.0.1 ports; the work directory is kept when the check fails (or with --keep).
"""

import argparse
import difflib
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


# Client quotas set through seglog in S1, each an entity (kafka-configs arguments) and the
# --add-config text. The default entities (every user, every client) get rates far above what
# this check's clients send: they apply to admin, alice and carol too.
BIG = 1 << 30
QUOTAS_S1 = [
    (["--entity-type", "users", "--entity-default"],
     f"producer_byte_rate={BIG},consumer_byte_rate={BIG},request_percentage=10000,"
     "controller_mutation_rate=10000"),
    (["--entity-type", "users", "--entity-name", "quota-u1"],
     "producer_byte_rate=1048576,consumer_byte_rate=2097152,request_percentage=50.5,"
     "controller_mutation_rate=10.5"),
    (["--entity-type", "users", "--entity-name", "quota-u2"], "consumer_byte_rate=3000"),
    (["--entity-type", "users", "--entity-name", "quota-u1", "--entity-type", "clients",
      "--entity-name", "app-1"], "producer_byte_rate=4096,request_percentage=12.25"),
    (["--entity-type", "users", "--entity-name", "quota-u1", "--entity-type", "clients",
      "--entity-default"], "consumer_byte_rate=8192"),
    (["--entity-type", "users", "--entity-default", "--entity-type", "clients",
      "--entity-name", "app-2"], "controller_mutation_rate=2.5"),
    (["--entity-type", "users", "--entity-default", "--entity-type", "clients",
      "--entity-default"], f"producer_byte_rate={BIG},consumer_byte_rate={BIG}"),
    (["--entity-type", "clients", "--entity-name", "app-1"],
     "producer_byte_rate=5000,controller_mutation_rate=5"),
    (["--entity-type", "clients", "--entity-name", "app-doomed"],
     "producer_byte_rate=1000,consumer_byte_rate=2000"),
    (["--entity-type", "clients", "--entity-default"], "request_percentage=10000"),
    (["--entity-type", "ips", "--entity-default"], "connection_creation_rate=1000"),
    (["--entity-type", "ips", "--entity-name", "10.20.30.40"], "connection_creation_rate=7"),
    (["--entity-type", "ips", "--entity-name", "10.20.30.41"], "connection_creation_rate=9"),
]
# What seglog then deletes in S1: a whole client entity (both its keys) and one key of quota-u1.
QUOTA_DELETES_S1 = [
    (["--entity-type", "clients", "--entity-name", "app-doomed"],
     "producer_byte_rate,consumer_byte_rate"),
    (["--entity-type", "users", "--entity-name", "quota-u1"], "request_percentage"),
]
# What Kafka changes in K: a new user + client pair for carol, a changed rate, a deleted ip.
QUOTAS_K = [
    (["--entity-type", "users", "--entity-name", "carol", "--entity-type", "clients",
      "--entity-name", "carol-app"], "producer_byte_rate=65536,consumer_byte_rate=131072"),
    (["--entity-type", "users", "--entity-name", "quota-u2"], "consumer_byte_rate=3500"),
]
QUOTA_DELETES_K = [
    (["--entity-type", "ips", "--entity-name", "10.20.30.41"], "connection_creation_rate"),
]
# The kafka-configs --describe calls whose output is compared: every entity of each kind.
QUOTA_DESCRIBES = [
    ["--entity-type", "users"],
    ["--entity-type", "clients"],
    ["--entity-type", "users", "--entity-type", "clients"],
    ["--entity-type", "ips"],
]


def quota_alter(c, entity, op, configs):
    p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", c.bootstrap,
             "--command-config", c.admin(), "--alter", op, configs, *entity)
    check(p.returncode == 0 and "Completed updating" in p.stdout,
          f"kafka-configs --alter {op} {configs} {entity}: {p.stdout[-1500:]}{p.stderr[-1500:]}")


def quota_describe(c):
    """Every QUOTA_DESCRIBES call's output, as kafka-configs printed it."""
    out = []
    for entity in QUOTA_DESCRIBES:
        p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", c.bootstrap,
                 "--command-config", c.admin(), "--describe", *entity)
        check(p.returncode == 0, f"kafka-configs --describe {entity}: {p.stdout[-1500:]}"
                                 f"{p.stderr[-1500:]}")
        out.append(f"$ kafka-configs --describe {' '.join(entity)}\n{p.stdout}")
    return "".join(out)


# KIP-714 client metrics subscriptions (issue 30) ride along too, with kafka-client-metrics
# (ClientMetricsCommand): stored as CLIENT_METRICS config records, Kafka must describe what
# seglog stored, and seglog what Kafka changed.
CLIENT_METRICS = "org.apache.kafka.tools.ClientMetricsCommand"


def client_metrics(c, *args):
    p = tool(CLIENT_METRICS, "--bootstrap-server", c.bootstrap, "--command-config", c.admin(),
             *args)
    check(p.returncode == 0, f"kafka-client-metrics {args}: {p.stdout[-1500:]}{p.stderr[-1500:]}")
    return p.stdout


def subscriptions(c):
    """The subscriptions as kafka-client-metrics --describe prints them, lines sorted."""
    return sorted(line.strip() for line in client_metrics(c, "--describe").splitlines()
                  if line.strip())


# A group's own configs (the GROUP config resource, 32) ride along as well, made and described
# with kafka-configs --entity-type groups: ConfigRecords of type 32 that Kafka must describe as
# seglog stored them, and seglog as Kafka changed them.
GROUP = "g-share"


def group_configs(c, *args):
    p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", c.bootstrap,
             "--command-config", c.admin(), "--entity-type", "groups", "--entity-name", GROUP,
             *args)
    check(p.returncode == 0, f"kafka-configs groups {args}: {p.stdout[-1500:]}{p.stderr[-1500:]}")
    return p.stdout


def group_config_lines(c):
    """The group's own configs as kafka-configs --describe prints them, lines sorted."""
    return sorted(line.strip() for line in group_configs(c, "--describe").splitlines()
                  if line.strip())


def describe_lines(text):
    """kafka-configs --describe output as one list per call (its "$ kafka-configs" header, then
    its lines sorted), each line's "key=value, ..." list sorted too. The order kafka-configs prints is Java HashMap iteration order: of the admin
    client's maps, which keep the response's order for keys of one bucket, and the response's
    order is that of the broker's own HashMaps, which depends on how its metadata image was built
    (live changes or one replay at start). Kafka itself prints the same quotas in another order
    after a restart (see the module docstring), so the order is not compared; every line and
    every value is."""
    out = []
    for line in text.splitlines():
        head, sep, values = line.partition(" are ")
        if sep and line.startswith(("Quota configs for", "SCRAM credential configs for")):
            line = head + sep + ", ".join(sorted(values.split(", ")))
        out.append(line)
    # the "$ kafka-configs ..." headers keep each call's lines apart
    blocks, cur = [], []
    for line in out:
        if line.startswith("$ ") and cur:
            blocks.append(cur)
            cur = []
        cur.append(line)
    blocks.append(cur)
    return [b[:1] + sorted(b[1:]) for b in blocks]


def same_quotas(a, b, who_a, who_b):
    """The same entities and values described (in any order; see describe_lines); returns
    whether the text was also byte-identical."""
    na, nb = describe_lines(a), describe_lines(b)
    if na != nb:
        diff = "\n".join(difflib.unified_diff(sum(na, []), sum(nb, []), who_a, who_b,
                                              lineterm=""))
        raise Failure(f"kafka-configs --describe differs between {who_a} and {who_b}:\n{diff}")
    log(f"kafka-configs --describe: {who_a} and {who_b} describe the same "
        f"{'(byte-identical)' if a == b else '(in another order)'}")
    return a == b


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
        for entity, configs in QUOTAS_S1:
            quota_alter(c, entity, "--add-config", configs)
        for entity, keys in QUOTA_DELETES_S1:
            quota_alter(c, entity, "--delete-config", keys)
        quotas_seglog = quota_describe(c)
        for want in ("Quota configs for user-principal 'quota-u1' are ",
                     "controller_mutation_rate=10.5",
                     "Quota configs for user-principal 'quota-u1', client-id 'app-1' are ",
                     "Quota configs for the default user-principal, the default client-id are ",
                     "Quota configs for ip '10.20.30.40' are connection_creation_rate=7.0",
                     "Quota configs for the default ip are connection_creation_rate=1000.0"):
            check(want in quotas_seglog, f"seglog's quotas lack {want!r}:\n{quotas_seglog}")
        check("app-doomed" not in quotas_seglog and "request_percentage=50.5" not in quotas_seglog,
              f"a quota seglog deleted is still described:\n{quotas_seglog}")
        client_metrics(c, "--alter", "--name", "producers", "--metrics",
                       "org.apache.kafka.producer.", "--interval", "2000", "--match",
                       "client_id=app-.*")
        client_metrics(c, "--alter", "--name", "everything", "--metrics", "*")
        client_metrics(c, "--delete", "--name", "everything")
        subs_seglog = subscriptions(c)
        check(any("producers" in l for l in subs_seglog) and
              not any("everything" in l for l in subs_seglog),
              f"seglog's subscriptions: {subs_seglog}")
        group_configs(c, "--alter", "--add-config",
                      "share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000,"
                      "consumer.session.timeout.ms=50000")
        group_configs(c, "--alter", "--delete-config", "consumer.session.timeout.ms")
        groups_seglog = group_config_lines(c)
        check(any("share.auto.offset.reset=earliest" in l for l in groups_seglog) and
              not any("consumer.session.timeout.ms" in l for l in groups_seglog),
              f"seglog's group configs: {groups_seglog}")
        log(f"S1: {len(QUOTAS_S1)} quota entities set, one deleted, one key removed; "
            f"kafka-configs describes {quotas_seglog.count('Quota configs')} entities")
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
        quotas_kafka = quota_describe(c)
        same_quotas(quotas_seglog, quotas_kafka, "seglog (S1)", "Kafka (K)")
        check("app-doomed" not in quotas_kafka and "request_percentage=50.5" not in quotas_kafka,
              f"a quota seglog deleted is back on Kafka:\n{quotas_kafka}")
        log(f"K: Kafka describes the same quotas ({quotas_kafka.count('Quota configs')} entities)")
        subs_kafka = subscriptions(c)
        check(subs_kafka == subs_seglog,
              f"kafka-client-metrics describes differ:\nseglog: {subs_seglog}\nKafka: {subs_kafka}")
        groups_kafka = group_config_lines(c)
        check(groups_kafka == groups_seglog,
              f"group configs differ:\nseglog: {groups_seglog}\nKafka: {groups_kafka}")
        group_configs(c, "--alter", "--add-config", "share.delivery.count.limit=3")
        group_configs(c, "--alter", "--delete-config", "share.record.lock.duration.ms")
        groups_kafka = group_config_lines(c)
        log(f"K: Kafka describes seglog's group configs, then adds one and deletes one")
        client_metrics(c, "--alter", "--name", "consumers", "--metrics",
                       "org.apache.kafka.consumer.", "--interval", "5000")
        client_metrics(c, "--alter", "--name", "producers", "--interval", "3000")
        subs_kafka = subscriptions(c)
        log(f"K: Kafka describes seglog's client metrics subscription, then adds and changes one")
        c.add_user("carol", "SCRAM-SHA-512", "carol-secret")
        c.acl("--add", "--allow-principal", "User:carol", "--operation", "Read", "--topic", TOPIC)
        for entity, configs in QUOTAS_K:
            quota_alter(c, entity, "--add-config", configs)
        for entity, keys in QUOTA_DELETES_K:
            quota_alter(c, entity, "--delete-config", keys)
        quotas_kafka = quota_describe(c)
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
        quotas_again = quota_describe(c)
        same_quotas(quotas_kafka, quotas_again, "Kafka (K, after its changes)", "seglog (S2)")
        check("'carol', client-id 'carol-app'" in quotas_again and
              "10.20.30.41" not in quotas_again,
              f"Kafka's quota changes are not on seglog:\n{quotas_again}")
        log(f"S2: seglog describes Kafka's quotas ({quotas_again.count('Quota configs')} entities)")
        subs_again = subscriptions(c)
        check(subs_again == subs_kafka,
              f"subscriptions after Kafka:\nKafka: {subs_kafka}\nseglog: {subs_again}")
        log(f"S2: seglog describes Kafka's subscriptions: {subs_again}")
        groups_again = group_config_lines(c)
        check(groups_again == groups_kafka,
              f"group configs after Kafka:\nKafka: {groups_kafka}\nseglog: {groups_again}")
        log(f"S2: seglog describes Kafka's group configs: {groups_again}")
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
