"""Share groups' dead-letter queue (KIP-1191) with Kafka 4.4.0's clients: a KafkaShareConsumer
(tests/clients/java/ShareMember.java) REJECTs the "reject-*" records and RELEASEs the "poison-*"
ones on every delivery (share.delivery.count.limit=2 archives them on the second), then Kafka's
console consumer reads the group's DLQ topic (errors.deadletterqueue.topic.name, copy.record
on) and every DLQ record is checked: one per archived offset, the source key and value copied,
and exactly Kafka 4.4.0's headers (__dlq.errors.topic/partition/offset/group/delivery.count/
message). The same steps against a Kafka 4.4.0 broker give the same DLQ records."""
import os
import types

import time

from harness import check, kafka_tool
from share_admin_cases import offsets
from share_cases import ShareMember, wait_for
from share_delivery_cases import set_group_configs

T = "org.apache.kafka.tools."
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"

TOPIC, DLQ, GROUP, LIMIT = "dlqsrc", "dlq.sg", "sg", 2
AUTO_DLQ = "dlq.auto"
VALUES = [("reject-" if i % 4 == 1 else "poison-" if i % 4 == 2 else "ok-") + str(i)
          for i in range(12)]


def expected(copy=True):
    """The DLQ records Kafka 4.4.0 writes for VALUES, by source offset: key, value, headers
    (key and value "null", as the console consumer prints them, when not copied)."""
    out = {}
    for o, v in enumerate(VALUES):
        if v.startswith("ok-"):
            continue
        reject = v.startswith("reject-")
        out[o] = (f"k{o}" if copy else "null", v if copy else "null", [
            ("__dlq.errors.topic", TOPIC), ("__dlq.errors.partition", "0"),
            ("__dlq.errors.offset", str(o)), ("__dlq.errors.group", GROUP),
            ("__dlq.errors.delivery.count", "1" if reject else str(LIMIT)),
            ("__dlq.errors.message", "Offset rejected by client." if reject
             else "Offset delivery count exceeded the threshold.")])
    return out


def read_dlq(bootstrap, count, dlq=DLQ):
    """The DLQ topic's records through the console consumer: (headers, key, value) each."""
    p = kafka_tool(CONSOLE_CONSUMER, "--bootstrap-server", bootstrap, "--topic", dlq,
                   "--from-beginning", "--max-messages", str(count), "--timeout-ms", "20000",
                   "--property", "print.headers=true", "--property", "print.key=true",
                   "--property", "print.timestamp=true", ok=False, timeout=120)
    rows = []
    for line in p.stdout.splitlines():
        f = line.split("\t")
        if len(f) != 4 or not f[0].startswith("CreateTime:"):
            continue
        headers = [tuple(h.split(":", 1)) for h in f[1].split(",")] if f[1] != "NO_HEADERS" else []
        rows.append((int(f[0].split(":", 1)[1]), headers, f[2], f[3]))
    return rows, p.stdout + p.stderr


def run_steps(ctx, b, tag, dlq=DLQ, copy=True, create_dlq=True):
    """Creates the topics (the DLQ topic when `create_dlq`) and the group's configs on broker
    `b`, runs one ShareMember until every record is accepted or archived, and returns the DLQ
    records by source offset."""
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", TOPIC,
               "--partitions", "1")
    if create_dlq:
        kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic",
                   dlq, "--partitions", "1", "--config",
                   "errors.deadletterqueue.group.enable=true")
    set_group_configs(b, GROUP, {"share.auto.offset.reset": "earliest",
                                 "share.delivery.count.limit": LIMIT,
                                 "errors.deadletterqueue.topic.name": dlq,
                                 "errors.deadletterqueue.copy.record.enable":
                                 "true" if copy else "false"})
    kafka_tool(T + "ConsoleProducer", "--bootstrap-server", b.bootstrap, "--topic", TOPIC,
               "--property", "parse.key=true", "--property", "key.separator=:",
               input="".join(f"k{i}:{v}\n" for i, v in enumerate(VALUES)))
    want = expected(copy)
    m = ShareMember(types.SimpleNamespace(ws=ctx.ws, broker=b), f"{tag}-d1", GROUP, TOPIC,
                    seconds=90)
    try:
        def done():
            with m.lock:
                acks = list(m.acks)
            seen = {(o, t, c) for (o, v, t, c) in acks}
            return all((o, "ACCEPT", 1) in seen for o, v in enumerate(VALUES)
                       if v.startswith("ok-")) and \
                all((o, "REJECT", 1) in seen for o, v in enumerate(VALUES)
                    if v.startswith("reject-")) and \
                all((o, "RELEASE", LIMIT) in seen for o, v in enumerate(VALUES)
                    if v.startswith("poison-"))

        wait_for(f"{tag}: every record accepted, rejected or released to the limit", done, 75)
        rows, out = [], ""
        for _ in range(6):  # the DLQ writes follow the acknowledgements
            rows, out = read_dlq(b.bootstrap, len(want), dlq)
            if len(rows) >= len(want):
                break
    finally:
        m.stop()
    got = {}
    for ts, headers, key, value in rows:
        offset = dict(headers).get("__dlq.errors.offset", "?")
        check(offset.isdigit() and int(offset) not in got,
              f"{tag}: DLQ record with offset header {offset!r}:\n{out}")
        got[int(offset)] = (key, value, headers)
    check(len(rows) == len(want), f"{tag}: {len(rows)} DLQ records, want {len(want)}:\n{out}")
    # No offset is written twice: a read for one record more finds none.
    more, _ = read_dlq(b.bootstrap, len(want) + 1, dlq)
    check(len(more) == len(want), f"{tag}: {len(more)} DLQ records on a second read")
    # Every DLQ write ended and its records became ARCHIVED: lag 0 (ARCHIVING records are not
    # complete). Bounded: 30 s.
    start, lag, out = "?", "?", ""
    deadline = time.time() + 30
    while time.time() < deadline:
        got_offsets, out = offsets(b, GROUP)
        start, lag = got_offsets.get((TOPIC, 0), ("?", "?"))
        if lag == "0":
            break
        time.sleep(1)
    check(lag == "0", f"{tag}: share group lag after the DLQ writes:\n{out}")
    m.start_offset = start
    return got, want, m


def share_dlq_reject_and_delivery_limit(ctx):
    """The DLQ records seglog writes are those Kafka 4.4.0 writes: checked against the expected
    records, then compared with a Kafka 4.4.0 broker's after the same steps."""
    got, want, m = run_steps(ctx, ctx.broker, "seglog")
    for o in sorted(want):
        check(got.get(o) == want[o], f"seglog DLQ record of offset {o}: {got.get(o)}, "
                                     f"want {want[o]}")
    # Every delivery as ShareMember printed it: ok-* accepted once, reject-* rejected once,
    # poison-* released at counts 1..LIMIT and never delivered again.
    by_offset = {}
    for o, v, t, c in m.acks:
        by_offset.setdefault(o, []).append((t, c))
    for o, v in enumerate(VALUES):
        want_acks = ([("ACCEPT", 1)] if v.startswith("ok-") else [("REJECT", 1)]
                     if v.startswith("reject-") else
                     [("RELEASE", k) for k in range(1, LIMIT + 1)])
        check(by_offset.get(o) == want_acks, f"offset {o} ({v}): {by_offset.get(o)}")
    check(m.start_offset == str(len(VALUES)),
          f"seglog's share-partition start offset {m.start_offset}, want {len(VALUES)}")
    ctx.expect_records = len(VALUES) + len(want)
    print(f"share_dlq_reject_and_delivery_limit: seglog wrote {len(got)} DLQ records as "
          f"expected; start offset {m.start_offset}, lag 0")

    # The same on Kafka 4.4.0 (share.version 2 finalized at format).
    import acl_matrix
    kafka = acl_matrix.broker_compare.KafkaBroker(acl_matrix.subprocess_classpath(),
                                                  os.path.join(ctx.ws.dir, "kafka"))
    kafka.start(format_args=("--feature", "share.version=2"))
    try:
        k_got, _, k_m = run_steps(ctx, kafka, "kafka")
    finally:
        kafka.stop()
    diffs = [f"offset {o}:\n  seglog {got.get(o)}\n  Kafka  {k_got.get(o)}"
             for o in sorted(set(got) | set(k_got)) if got.get(o) != k_got.get(o)]
    check(not diffs, "seglog and Kafka 4.4.0 wrote different DLQ records:\n" + "\n".join(diffs))
    print(f"share_dlq_reject_and_delivery_limit: Kafka 4.4.0 wrote the same {len(k_got)} DLQ "
          f"records (keys, values, headers); its start offset {k_m.start_offset}, lag 0")


class KafkaWithDlqAutoCreate:
    """A Kafka 4.4.0 broker (bench/compare's KafkaBroker) with
    errors.deadletterqueue.auto.create.topics.enable=true."""

    def __new__(cls, classpath, workdir):
        import acl_matrix

        class Broker(acl_matrix.broker_compare.KafkaBroker):
            def _write_config(self):
                super()._write_config()
                with open(os.path.join(self.workdir, "server.properties"), "a") as f:
                    f.write("errors.deadletterqueue.auto.create.topics.enable=true\n")

        return Broker(classpath, workdir)


def dlq_topic_facts(b, dlq):
    """The auto-created DLQ topic as kafka-topics.sh --describe shows it: partition count and
    the configs set at creation."""
    p = kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--describe",
                   "--topic", dlq)
    first = next((line for line in p.stdout.splitlines() if line.startswith("Topic:")), "")
    fields = dict(f.split(":", 1) for f in first.split("\t") if ":" in f)
    configs = sorted(c for c in fields.get("Configs", "").strip().split(",") if c)
    return fields.get("PartitionCount", "").strip(), configs, p.stdout


def share_dlq_auto_created_headers_only(ctx):
    """errors.deadletterqueue.auto.create.topics.enable=true and no DLQ topic: the first archive
    creates it (the broker's num.partitions, errors.deadletterqueue.group.enable=true,
    message.timestamp.type=CreateTime); copy.record off: every DLQ record has a null key and
    value and Kafka's six headers. Compared with Kafka 4.4.0 doing the same."""
    got, want, _ = run_steps(ctx, ctx.broker, "seglog", dlq=AUTO_DLQ, copy=False,
                             create_dlq=False)
    for o in sorted(want):
        check(got.get(o) == want[o], f"seglog DLQ record of offset {o}: {got.get(o)}, "
                                     f"want {want[o]}")
    parts, configs, out = dlq_topic_facts(ctx.broker, AUTO_DLQ)
    check(parts == "1" and "errors.deadletterqueue.group.enable=true" in configs and
          "message.timestamp.type=CreateTime" in configs,
          f"seglog's auto-created DLQ topic:\n{out}")
    ctx.expect_records = len(VALUES) + len(want)
    print(f"share_dlq_auto_created_headers_only: seglog created {AUTO_DLQ} ({parts} partition, "
          f"{configs}) and wrote {len(got)} header-only DLQ records")

    import acl_matrix
    kafka = KafkaWithDlqAutoCreate(acl_matrix.subprocess_classpath(),
                                   os.path.join(ctx.ws.dir, "kafka"))
    kafka.start(format_args=("--feature", "share.version=2"))
    try:
        k_got, _, _ = run_steps(ctx, kafka, "kafka", dlq=AUTO_DLQ, copy=False, create_dlq=False)
        k_parts, k_configs, k_out = dlq_topic_facts(kafka, AUTO_DLQ)
    finally:
        kafka.stop()
    diffs = [f"offset {o}:\n  seglog {got.get(o)}\n  Kafka  {k_got.get(o)}"
             for o in sorted(set(got) | set(k_got)) if got.get(o) != k_got.get(o)]
    check(not diffs, "seglog and Kafka 4.4.0 wrote different DLQ records:\n" + "\n".join(diffs))
    check((parts, configs) == (k_parts, k_configs),
          f"auto-created DLQ topics differ:\nseglog:\n{out}\nKafka:\n{k_out}")
    print(f"share_dlq_auto_created_headers_only: Kafka 4.4.0 created the same topic and wrote "
          f"the same {len(k_got)} DLQ records")


share_dlq_auto_created_headers_only.setup = lambda ctx: ctx.broker.overrides.append(
    "errors.deadletterqueue.auto.create.topics.enable=true")

CASES = [share_dlq_reject_and_delivery_limit, share_dlq_auto_created_headers_only]
