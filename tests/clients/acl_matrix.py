"""The ACL matrix (issue 28): the same users, ACLs and client calls against `seglog serve` and a
Kafka 4.4.0 broker, both SASL_PLAINTEXT (PLAIN) with the StandardAuthorizer; every call's outcome
(the error's name, or what came back) must be the same on both.

The calls are confluent-kafka's (librdkafka, current): produce, consume, Metadata (listing and
naming topics, auto-creation), topic create/delete/partitions/configs, consumer groups and
their offsets, delete records, list offsets, transactions, the cluster's authorized operations,
ACLs, SCRAM users. Each call runs as alice (rights on some resources), bob (denied by a DENY
ACL, and allowed nothing else) and carol (no ACL at all).
"""
import os
import sys
import time

from harness import ORACLE, Failure, check, free_port  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                                "compare", "broker"))
import broker_compare  # noqa: E402

USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret",
         "carol": "carol-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="admin" password="admin-secret" ' +
        " ".join(f'user_{u}="{p}"' for u, p in USERS.items()) + ";")
SECURITY = {
    "sasl.enabled.mechanisms": "PLAIN",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:admin;User:ANONYMOUS",
}


class KafkaSasl(broker_compare.KafkaBroker):
    def _write_config(self):
        super()._write_config()
        path = os.path.join(self.workdir, "server.properties")
        text = open(path).read()
        for a, b in ((f"listeners=PLAINTEXT://127.0.0.1:{self.port},",
                      f"listeners=SASL_PLAINTEXT://127.0.0.1:{self.port},"),
                     (f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                      f"advertised.listeners=SASL_PLAINTEXT://127.0.0.1:{self.port}"),
                     ("inter.broker.listener.name=PLAINTEXT",
                      "inter.broker.listener.name=SASL_PLAINTEXT\n"
                      "sasl.mechanism.inter.broker.protocol=PLAIN"),
                     ("CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                      "CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT")):
            text = text.replace(a, b)
        text += "".join(f"{k}={v}\n" for k, v in SECURITY.items())
        text += "group.initial.rebalance.delay.ms=0\nauto.create.topics.enable=true\n"
        with open(path, "w") as f:
            f.write(text)


def conf(bootstrap, user):
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN", "sasl.username": user, "sasl.password": USERS[user],
            "socket.timeout.ms": 10000, "api.version.request.timeout.ms": 10000}


def err_name(e):
    """A KafkaException's or KafkaError's name, as the outcome to compare."""
    from confluent_kafka import KafkaError, KafkaException
    if isinstance(e, KafkaException):
        e = e.args[0]
    if isinstance(e, KafkaError):
        return e.name()
    return type(e).__name__


def outcome(fn):
    try:
        r = fn()
        return "ok" if r is None else r
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return "error:" + err_name(e)


def setup_acls(bootstrap):
    from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient,
                                       NewTopic, ResourcePatternType, ResourceType)
    a = AdminClient(conf(bootstrap, "admin"))
    for f in a.create_topics([NewTopic("t-alice", 1, 1), NewTopic("t-shared", 1, 1),
                              NewTopic("t-secret", 1, 1), NewTopic("t-open", 1, 1)]).values():
        f.result(30)
    A, D = AclPermissionType.ALLOW, AclPermissionType.DENY
    LIT, PRE = ResourcePatternType.LITERAL, ResourcePatternType.PREFIXED
    T, G, C, X = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.BROKER, \
        ResourceType.TRANSACTIONAL_ID
    acls = [
        AclBinding(T, "t-alice", PRE, "User:alice", "*", AclOperation.ALL, A),
        AclBinding(T, "t-shared", LIT, "User:*", "*", AclOperation.READ, A),
        AclBinding(T, "t-shared", LIT, "User:*", "*", AclOperation.DESCRIBE, A),
        AclBinding(T, "t-shared", LIT, "User:bob", "*", AclOperation.READ, D),
        AclBinding(T, "t-open", LIT, "User:*", "*", AclOperation.READ, A),
        AclBinding(G, "g-shared", LIT, "User:*", "*", AclOperation.READ, A),
        AclBinding(T, "new-", PRE, "User:alice", "*", AclOperation.CREATE, A),
        AclBinding(G, "g-alice", LIT, "User:alice", "*", AclOperation.READ, A),
        AclBinding(G, "g-", PRE, "User:alice", "*", AclOperation.DESCRIBE, A),
        AclBinding(C, "kafka-cluster", LIT, "User:alice", "*", AclOperation.DESCRIBE, A),
        AclBinding(X, "tx-alice", LIT, "User:alice", "*", AclOperation.WRITE, A),
        AclBinding(X, "tx-alice", LIT, "User:alice", "*", AclOperation.DESCRIBE, A),
    ]
    for f in a.create_acls(acls).values():
        f.result(30)
    # A group with a committed offset, as admin, for the group calls.
    from confluent_kafka import Consumer, Producer, TopicPartition
    p = Producer(conf(bootstrap, "admin"))
    for t in ("t-alice", "t-shared", "t-secret", "t-open"):
        for i in range(3):
            p.produce(t, f"{t} {i}".encode())
    p.flush(30)
    for g in ("g-alice", "g-other"):
        c = Consumer({**conf(bootstrap, "admin"), "group.id": g, "enable.auto.commit": False})
        for attempt in range(30):  # Kafka's coordinator loads __consumer_offsets first
            try:
                c.commit(offsets=[TopicPartition("t-alice", 0, 1),
                                  TopicPartition("t-shared", 0, 1),
                                  TopicPartition("t-open", 0, 1)], asynchronous=False)
                break
            except Exception:  # noqa: BLE001 - NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS
                if attempt == 29:
                    raise
                time.sleep(1)
        c.close()
    time.sleep(1)  # ACLs reach Kafka's authorizer through its metadata log


def matrix(bootstrap, user):
    from confluent_kafka import (Consumer, ConsumerGroupTopicPartitions, Producer, TopicPartition,
                                 IsolationLevel)
    from confluent_kafka.admin import (AdminClient, ConfigResource, NewPartitions, NewTopic,
                                       OffsetSpec, ResourceType, AclBindingFilter,
                                       ResourcePatternType, AclOperation, AclPermissionType)
    c = conf(bootstrap, user)
    a = AdminClient(c)
    out = {}

    def produce(topic):
        p = Producer({**c, "message.timeout.ms": 8000, "allow.auto.create.topics": False})
        res = []
        p.produce(topic, b"x", on_delivery=lambda e, m: res.append(e.name() if e else "ok"))
        p.flush(15)
        if not res:
            return "no-delivery"
        return "ok" if res[0] == "ok" else "error:" + res[0]

    def consume(topic, group, committed=False):
        # From offset 0 only the topic is checked (Fetch); from the committed offset the
        # group first (FindCoordinator, OffsetFetch), so each call has one refusal at most and
        # no race between two.
        from confluent_kafka import OFFSET_STORED
        k = Consumer({**c, "group.id": group, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False})
        k.assign([TopicPartition(topic, 0, OFFSET_STORED if committed else 0)])
        try:
            deadline = time.time() + 8
            while time.time() < deadline:
                m = k.poll(0.5)
                if m is None:
                    continue
                if m.error():
                    return "error:" + m.error().name()
                return "record"
            return "nothing"
        finally:
            k.close()

    def listed():
        md = a.list_topics(timeout=15)
        return sorted(t for t in md.topics if not t.startswith("__"))

    def named(topic):
        md = a.list_topics(topic=topic, timeout=15)
        t = md.topics[topic]
        return "error:" + t.error.name() if t.error else "ok"

    def described(topic):
        r = a.describe_topics(__import__("confluent_kafka").TopicCollection([topic]),
                              include_authorized_operations=True)[topic].result(15)
        return sorted(op.name for op in (r.authorized_operations or []))

    def cluster_ops():
        r = a.describe_cluster(include_authorized_operations=True).result(15)
        return sorted(op.name for op in (r.authorized_operations or []))

    def create(topic):
        return a.create_topics([NewTopic(topic, 1, 1)])[topic].result(15)

    def delete(topic):
        return a.delete_topics([topic])[topic].result(15)

    def partitions(topic):
        return a.create_partitions([NewPartitions(topic, 2)])[topic].result(15)

    def configs(topic):
        r = ConfigResource(ResourceType.TOPIC, topic)
        got = a.describe_configs([r])[r].result(15)
        return "ok" if "retention.ms" in got else "missing"

    def broker_configs():
        r = ConfigResource(ResourceType.BROKER, "1")
        got = a.describe_configs([r])[r].result(15)
        return "ok" if got else "empty"

    def groups():
        r = a.list_consumer_groups().result(15)
        return sorted(g.group_id for g in r.valid)

    def describe_group(g):
        return a.describe_consumer_groups([g])[g].result(15).state.name

    def group_offsets(g):
        r = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g)])[g].result(15)
        return sorted((tp.topic, tp.offset, tp.error.name() if tp.error else None)
                      for tp in r.topic_partitions)

    def delete_records(topic):
        r = a.delete_records([TopicPartition(topic, 0, 1)])
        return list(r.values())[0].result(15) and "ok"

    def list_offsets(topic):
        tp = TopicPartition(topic, 0)
        r = a.list_offsets({tp: OffsetSpec.latest()},
                           isolation_level=IsolationLevel.READ_UNCOMMITTED)[tp].result(15)
        return r.offset >= 0 and "ok"

    def txn(tid):
        p = Producer({**c, "transactional.id": tid, "transaction.timeout.ms": 10000})
        p.init_transactions(15)
        return "ok"

    def describe_acls():
        f = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                             AclOperation.ANY, AclPermissionType.ANY)
        return len(a.describe_acls(f).result(15)) > 0 and "ok"

    for name, fn in [
        ("produce t-alice", lambda: produce("t-alice")),
        ("produce t-shared", lambda: produce("t-shared")),
        ("produce t-secret", lambda: produce("t-secret")),
        ("consume t-alice g-shared", lambda: consume("t-alice", "g-shared")),
        ("consume t-shared g-shared", lambda: consume("t-shared", "g-shared")),
        ("consume t-secret g-shared", lambda: consume("t-secret", "g-shared")),
        ("consume committed t-open g-alice", lambda: consume("t-open", "g-alice", True)),
        ("consume committed t-open g-shared", lambda: consume("t-open", "g-shared", True)),
        ("metadata all topics", listed),
        ("metadata t-secret", lambda: named("t-secret")),
        ("metadata t-shared", lambda: named("t-shared")),
        ("describe t-alice ops", lambda: described("t-alice")),
        ("describe t-shared ops", lambda: described("t-shared")),
        ("cluster ops", cluster_ops),
        ("create new-" + user, lambda: create("new-" + user)),
        ("create other-" + user, lambda: create("other-" + user)),
        ("create partitions t-alice", lambda: partitions("t-alice")),
        ("create partitions t-shared", lambda: partitions("t-shared")),
        ("describe configs t-alice", lambda: configs("t-alice")),
        ("describe configs t-secret", lambda: configs("t-secret")),
        ("describe configs broker", broker_configs),
        ("list groups", groups),
        ("describe group g-alice", lambda: describe_group("g-alice")),
        ("describe group g-other", lambda: describe_group("g-other")),
        ("group offsets g-alice", lambda: group_offsets("g-alice")),
        ("group offsets g-other", lambda: group_offsets("g-other")),
        ("delete records t-alice", lambda: delete_records("t-alice")),
        ("delete records t-shared", lambda: delete_records("t-shared")),
        ("list offsets t-shared", lambda: list_offsets("t-shared")),
        ("list offsets t-secret", lambda: list_offsets("t-secret")),
        ("init transactions tx-alice", lambda: txn("tx-alice")),
        ("init transactions tx-other", lambda: txn("tx-other")),
        ("describe acls", describe_acls),
        # Not DescribeUserScramCredentials: confluent-kafka 2.16.1 aborts the process
        # (munmap_chunk) on its CLUSTER_AUTHORIZATION_FAILED answer, from Kafka as from seglog.
        ("delete topic t-secret", lambda: delete("t-secret")),
    ]:
        if os.environ.get("SEGLOG_MATRIX_TRACE"):
            print(f"  {user}: {name}", flush=True)
        out[name] = outcome(fn)
    return out


def security_acl_matrix_vs_kafka(ctx):
    b = ctx.broker
    cp = subprocess_classpath()
    kafka = KafkaSasl(cp, os.path.join(ctx.ws.dir, "kafka"))
    kafka.start()
    try:
        setup_acls(b.bootstrap)
        setup_acls(kafka.bootstrap)
        diffs = []
        for user in ("alice", "bob", "carol"):
            mine = matrix(b.bootstrap, user)
            theirs = matrix(kafka.bootstrap, user)
            for k in mine:
                if mine[k] != theirs[k]:
                    diffs.append(f"{user}: {k}: seglog {mine[k]} Kafka {theirs[k]}")
            print(f"{user}: {len(mine)} calls compared")
        check(not diffs, "seglog and Kafka 4.4.0 answered differently:\n" + "\n".join(diffs))
    finally:
        kafka.stop()


def subprocess_classpath():
    import subprocess
    p = subprocess.run([ORACLE, "classpath"], capture_output=True, text=True, timeout=900)
    return p.stdout.strip().splitlines()[-1]


def _matrix_setup(ctx):
    ctx.broker.overrides.extend([
        f"listeners=SASL_PLAINTEXT://127.0.0.1:{ctx.broker.port}",
        "auto.create.topics.enable=true",
        *(f"{k}={v}" for k, v in SECURITY.items())])


security_acl_matrix_vs_kafka.setup = _matrix_setup

CASES = [security_acl_matrix_vs_kafka]
