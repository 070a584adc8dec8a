"""Share groups (KIP-932) delivery guarantees with Kafka 4.4.0's KafkaShareConsumer
(tests/clients/java/ShareMember.java) and the group configs that govern them, set with
kafka-configs.sh on the GROUP resource before the members join: share.record.lock.duration.ms
(a member that dies or stalls holding records loses them to another member when its lock runs
out) and share.delivery.count.limit (a record released every time is archived after that many
deliveries). Judged on the records each member printed and on kafka-share-groups.sh."""
import re
import time

from harness import check, kafka_tool
from share_admin_cases import offsets, share_groups
from share_cases import ShareMember, wait_for

T = "org.apache.kafka.tools."


def set_group_configs(b, group, configs):
    """kafka-configs.sh --alter on the group, then --describe must list every setting."""
    kafka_tool(T + "ConfigCommand", "--bootstrap-server", b.bootstrap, "--entity-type", "groups",
               "--entity-name", group, "--alter", "--add-config",
               ",".join(f"{k}={v}" for k, v in configs.items()))
    p = kafka_tool(T + "ConfigCommand", "--bootstrap-server", b.bootstrap, "--entity-type",
                   "groups", "--entity-name", group, "--describe")
    for k, v in configs.items():
        check(f"{k}={v} sensitive=false" in p.stdout, f"group {group} configs:\n{p.stdout}")


def produce(b, topic, values):
    kafka_tool(T + "ConsoleProducer", "--bootstrap-server", b.bootstrap, "--topic", topic,
               input="".join(v + "\n" for v in values))


def all_acks(members):
    out = []
    for m in members:
        with m.lock:
            out += [(m.name, *a, t) for a, t in zip(m.acks, m.ack_times)]
    return out


def share_members_kill_redelivery(ctx):
    """Four members on one partition with share.record.lock.duration.ms=20000 (the broker's
    group.share.min.record.lock.duration.ms is 15000). h1 and h2 each acquire a batch and hold
    it unacknowledged, and are frozen (SIGSTOP) so that no fetch of theirs is left to take more.
    The accepting members m1 and m2 join; the first holder stays frozen, in the group, past its
    lock; the second is SIGKILLed while its lock has seconds left, still holding. Exactly the
    offsets each held are delivered again, with delivery count 2, to m1 or m2: the killed
    member's before its lock would have run out (its closed connection released them, as Kafka
    does), the frozen member's not before its lock ran out (the lock timeout freed them, the
    member never left). Every record is accepted exactly once: none accepted is ever delivered
    again."""
    b = ctx.broker
    topic, group, lock_ms = "shared", "kg", 20000
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", topic,
               "--partitions", "1")
    set_group_configs(b, group, {"share.record.lock.duration.ms": lock_ms,
                                 "share.auto.offset.reset": "earliest"})
    h1 = ShareMember(ctx, "h1", group, topic, seconds=110, mode="hang")
    h2 = ShareMember(ctx, "h2", group, topic, seconds=110, mode="hang")
    accepting = []
    values = [f"a-{i}" for i in range(10)] + [f"b-{i}" for i in range(10)] + \
        [f"c-{i}" for i in range(20)]
    try:
        wait_for("h1 and h2 polling", lambda: h1.has("polling") and h2.has("polling"), 60)
        # A KafkaShareConsumer keeps a ShareFetch outstanding after its poll returned: a frozen
        # member's last one ends empty (its 500 ms wait) before the next records are produced.
        produce(b, topic, values[:10])
        wait_for("a member holding the first records", lambda: h1.has("holding") or
                 h2.has("holding"), 30)
        frozen, killed = (h1, h2) if h1.has("holding") else (h2, h1)
        frozen.pause()
        time.sleep(2)
        produce(b, topic, values[10:20])
        wait_for("the other member holding the next records", lambda: killed.has("holding"), 30)
        killed.pause()
        time.sleep(2)
        held_frozen = {o for (o, _, _) in frozen.got}
        held_killed = {o for (o, _, _) in killed.got}
        check(held_frozen == set(range(10)) and held_killed == set(range(10, 20)) and
              all(c == 1 for (_, _, c) in h1.got + h2.got),
              f"held: h1 {h1.got}, h2 {h2.got}")
        # Nothing is available: the accepting members join and wait.
        accepting = [ShareMember(ctx, "m1", group, topic, seconds=110),
                     ShareMember(ctx, "m2", group, topic, seconds=110)]
        wait_for("m1 and m2 polling", lambda: all(m.has("polling") for m in accepting), 60)
        killed_at = time.time()
        killed.kill()
        lock_left = killed.line_time("holding") + lock_ms / 1000 - killed_at
        check(lock_left > 3, f"the member was killed {lock_left:.1f}s before its lock ran out")
        produce(b, topic, values[20:])
        # The members are in the group (the frozen one until its session would time out, the
        # killed one until its leave is noticed), the live ones assigned the partition once their
        # next heartbeat brought it.
        want = sorted([frozen.name, "m1", "m2"])
        deadline = time.time() + 30
        while True:
            p = share_groups(b, "--describe", "--members", "--group", group)
            rows = re.findall(rf"^{group}\s+\S+\s+\S+\s+(h1|h2|m1|m2)\s+1\s", p.stdout, re.M)
            if set(want) <= set(rows) or time.time() > deadline:
                break
            time.sleep(1)
        check(set(want) <= set(rows), f"--members:\n{p.stdout}")

        def accepted():
            return {o for (_, o, _, t, _, _) in all_acks(accepting) if t == "ACCEPT"}

        wait_for("every record accepted", lambda: len(accepted()) >= len(values),
                 lock_ms / 1000 + 40)
        time.sleep(3)  # a record delivered again after its acceptance would show now
        frozen_holding = frozen.line_time("holding")
    finally:
        for m in accepting:
            m.stop()
        for m in (h1, h2):
            if m.proc.poll() is None:
                m.kill()
    acks = all_acks(accepting)
    by_offset = {}
    for name, o, v, t, c, at in acks:
        by_offset.setdefault(o, []).append((name, v, t, c, at))
    check(sorted(by_offset) == list(range(len(values))), f"offsets delivered: {sorted(by_offset)}")
    for o, ds in by_offset.items():
        check(len(ds) == 1 and ds[0][2] == "ACCEPT" and ds[0][1] == values[o],
              f"offset {o} ({values[o]}): {ds}")
        want_count = 2 if o in held_frozen | held_killed else 1
        check(ds[0][3] == want_count,
              f"offset {o}: delivery count {ds[0][3]}, want {want_count}: {ds}")
    waited = min(by_offset[o][0][4] for o in held_frozen) - frozen_holding
    # It acquired a moment before it printed "holding": allow a little under the lock.
    check(waited >= lock_ms / 1000 - 2,
          f"the frozen member's records were delivered again {waited:.1f}s after it held them, "
          f"under the {lock_ms} ms lock")
    # A closed connection ends its share session and releases what the member held (as
    # Kafka's connection disconnect listener does): before the lock would have run out.
    after_kill = min(by_offset[o][0][4] for o in held_killed) - killed_at
    check(after_kill < lock_left,
          f"the killed member's records came back {after_kill:.1f}s after the kill, its lock "
          f"had {lock_left:.1f}s left")
    per = {m.name: len(m.acks) for m in accepting}
    print(f"share_members_kill_redelivery: {killed.name} held 10-19 (killed; delivered again "
          f"{after_kill:.1f}s after the kill), {frozen.name} held 0-9 (frozen; delivered again "
          f"{waited:.1f}s after it held them); accepted per member {per}; members {rows}")
    ctx.expect_records = len(values)


def share_delivery_count_limit(ctx):
    """share.delivery.count.limit=3 as a group config: a member RELEASEs every "poison-*"
    record on each delivery; each is delivered exactly 3 times (counts 1, 2, 3) and then archived,
    never delivered again, while the other records (produced before and after) are accepted once.
    kafka-share-groups.sh --describe --offsets then shows lag 0 and the start offset past them
    (at least up to the last)."""
    b = ctx.broker
    topic, group, limit = "poisoned", "pg", 3
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", topic,
               "--partitions", "1")
    set_group_configs(b, group, {"share.delivery.count.limit": limit,
                                 "share.auto.offset.reset": "earliest"})
    values = [f"poison-{i}" if i % 5 == 2 else f"ok-{i}" for i in range(40)]
    m = ShareMember(ctx, "p1", group, topic, seconds=100)
    try:
        wait_for("p1 polling", lambda: m.has("polling"), 60)
        produce(b, topic, values[:20])
        wait_for("the first poison record released", lambda: any(
            v.startswith("poison-") for (_, v, _, _) in m.acks), 30)
        produce(b, topic, values[20:])

        def done():
            with m.lock:
                acks = list(m.acks)
            ok = {o for (o, v, t, _) in acks if t == "ACCEPT"}
            poison = [o for (o, v, _, _) in acks if v.startswith("poison-")]
            want_ok = {i for i, v in enumerate(values) if v.startswith("ok-")}
            return ok >= want_ok and len(poison) >= limit * (len(values) - len(want_ok))

        wait_for("every record accepted or released to the limit", done, 60)
        time.sleep(3)  # a 4th delivery would show now
        got, out = {}, ""
        deadline = time.time() + 30
        while time.time() < deadline:
            got, out = offsets(b, group)
            if got.get((topic, 0), ("", ""))[1] == "0":
                break
            time.sleep(1)
    finally:
        m.stop()
    by_offset = {}
    for o, v, t, c in m.acks:
        by_offset.setdefault(o, []).append((v, t, c))
    check(sorted(by_offset) == list(range(len(values))), f"offsets delivered: {sorted(by_offset)}")
    for o, ds in by_offset.items():
        check(all(v == values[o] for (v, _, _) in ds), f"offset {o}: {ds}, produced {values[o]}")
        if values[o].startswith("poison-"):
            check([(t, c) for (_, t, c) in ds] == [("RELEASE", k) for k in range(1, limit + 1)],
                  f"{values[o]}: {ds}")
        else:
            check([(t, c) for (_, t, c) in ds] == [("ACCEPT", 1)], f"{values[o]}: {ds}")
    # Lag 0 and the start offset past every poison record but perhaps the last: Kafka 4.4.0
    # writes the start offset it had before the acknowledgements it writes, so the last state
    # write (the last archive) may carry that record's own offset; seglog's is the log end.
    start, lag = got.get((topic, 0), ("-1", "?"))
    last_poison = max(i for i, v in enumerate(values) if v.startswith("poison-"))
    check(lag == "0" and last_poison <= int(start) <= len(values),
          f"--describe --offsets after all were accepted or archived:\n{out}")
    print(f"share_delivery_count_limit: {len(m.acks)} deliveries of {len(values)} records; "
          f"offsets {got}")
    ctx.expect_records = len(values)


CASES = [share_members_kill_redelivery, share_delivery_count_limit]
