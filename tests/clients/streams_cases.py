"""Streams groups (KIP-1071): Kafka Streams 4.4.0 with group.protocol=streams against `seglog
serve`: the group coordinator assigns the tasks through StreamsGroupHeartbeat and creates the
internal topics (repartition, changelog) the topology needs.

The application is java/streams/WordCountEos.java (exactly_once_v2, a repartition topic by word,
a changelog), run with --prop group.protocol=streams: two instances join one after the other,
then every word's latest count in the output topic must equal its count in the input. In
streams_group_broker_restart, members join and leave while input is produced, the broker
restarts (SIGTERM, then SIGKILL) under the running instances, and kafka-streams-groups.sh
(StreamsGroupCommand) --describe shows the group loaded back with its members and tasks.
"""
import os
import random
import re
import struct
import sys
import time

from harness import check, java_streams_helper, kafka_tool

STREAMS_GROUPS = "org.apache.kafka.tools.streams.StreamsGroupCommand"


def _main():
    # The helpers live in client_tests.py, which runs as __main__ and imports this module.
    return sys.modules["__main__"]


def streams_group_word_count(ctx):
    """Kafka Streams with group.protocol=streams: two instances of a word count join one after
    the other; the output's latest counts equal the input's, exactly."""
    m = _main()
    b = ctx.broker
    app_id = "wordcount-streams"

    def command(n):
        return java_streams_helper(
            "WordCountEos", b.bootstrap, app_id, "sw-in", "sw-out",
            os.path.join(ctx.ws.dir, f"streams-state-{n}"),
            "--prop", "group.protocol=streams")

    m.create_topic(b.bootstrap, "sw-in", 4)
    m.create_topic(b.bootstrap, "sw-out", 4)
    rng = random.Random(7)
    vocabulary = [f"word{i:02d}" for i in range(30)]
    lines = [" ".join(rng.choice(vocabulary) for _ in range(rng.randrange(1, 6)))
             for _ in range(400)]
    half = len(lines) // 2

    def totals(ls):
        counts = {}
        for line in ls:
            for w in line.split():
                counts[w] = counts.get(w, 0) + 1
        return counts

    def latest():
        rows = m.confluent_read(b.bootstrap, "sw-out", 4, "read_committed",
                                value=lambda v: struct.unpack(">q", v)[0])
        last = {}
        for _, _, k, v in rows:
            last[k] = v
        return last, rows

    apps = []

    def wait_counts(want, timeout, what):
        deadline = time.time() + timeout
        while True:
            got, rows = latest()
            if got == want:
                return rows
            alive = all(a.proc.poll() is None for a in apps)
            check(time.time() < deadline and alive,
                  f"{what}: the latest counts are not the expected ones within {timeout}s "
                  f"({len(rows)} records; e.g. "
                  f"{[(w, got.get(w), want[w]) for w in sorted(want) if got.get(w) != want[w]][:5]})"
                  + "".join(f"\n{a.output()[-5:]}" for a in apps))
            time.sleep(1)

    m.confluent_produce(b.bootstrap, "sw-in", lines[:half], 4)
    try:
        first = m.JavaProgram(ctx, "wordcount-1", command(1))
        apps.append(first)
        first.wait_line(lambda l: l.endswith(" RUNNING"), 120, "instance 1 RUNNING")
        wait_counts(totals(lines[:half]), 120, "instance 1 alone")
        second = m.JavaProgram(ctx, "wordcount-2", command(2))
        apps.append(second)
        second.wait_line(lambda l: l.endswith(" RUNNING"), 120, "instance 2 RUNNING")
        m.confluent_produce(b.bootstrap, "sw-in", lines[half:], 4)
        wait_counts(totals(lines), 120, "both instances")
        for a in apps:
            rc, out = a.finish(60)
            check([l for l in out if l.startswith("closed ")] == ["closed true"],
                  f"WordCountEos: {out[-3:]}")
            errors = [l for l in out if l.startswith("error")]
            if errors:
                print(f"stream thread errors (replaced): {errors[:3]}")
    finally:
        for a in apps:
            a.ensure_gone()
    got, rows = latest()
    check(got == totals(lines), f"final counts differ: {len(rows)} records")
    # The group was a streams group (not a classic one): the coordinator said so.
    log = b.log()
    check(log.count("joins the streams group") >= 2,
          f"no streams group members in the broker log:\n{log[-2000:]}")
    ctx.expect_records = None


def _line_producer(bootstrap, topic, partitions, vocabulary, seed, interval=0.05):
    """The harness's background producer (client_tests.py) producing lines of words, a seeded
    random sequence."""
    class LineProducer(_main().BackgroundProducer):
        def value(self, i):
            return " ".join(rng.choice(vocabulary) for _ in range(rng.randrange(1, 6)))

    rng = random.Random(seed)
    return LineProducer(bootstrap, topic, partitions, interval=interval)


def _tasks(text):
    """"ACTIVE: 0:[0,1]; 1:[2]; TARGET-ACTIVE: ..." (StreamsGroupCommand's ASSIGNMENTS column)
    as {"ACTIVE": {("0", 0), ("0", 1), ("1", 2)}, "TARGET-ACTIVE": ...}."""
    out = {}
    heads = list(re.finditer(r"(TARGET-ACTIVE|TARGET-STANDBY|TARGET-WARMUP|ACTIVE|STANDBY|"
                             r"WARMUP): ", text))
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        out[h[1]] = {(sub, int(p)) for sub, ps in re.findall(r"(\S+?):\[([\d,]*)\]",
                                                             text[h.end():end])
                     for p in ps.split(",") if p}
    return out


def describe_streams_group(bootstrap, group):
    """kafka-streams-groups.sh --describe --state --verbose and --members --verbose, parsed:
    {"state", "epoch", "target_epoch", "count", "members": {member id: {"epoch", "protocol",
    "process", "client", "tasks"}}, "text"}; None when the tool fails (the broker down or
    loading)."""
    state = kafka_tool(STREAMS_GROUPS, "--bootstrap-server", bootstrap, "--describe", "--group",
                       group, "--state", "--verbose", "--timeout", "5000", ok=False, timeout=60)
    members = kafka_tool(STREAMS_GROUPS, "--bootstrap-server", bootstrap, "--describe",
                         "--group", group, "--members", "--verbose", "--timeout", "5000",
                         ok=False, timeout=60)
    text = state.stdout + members.stdout
    if state.returncode != 0 or members.returncode != 0:
        return None
    rows = [l.split() for l in state.stdout.splitlines() if l.startswith(group + " ")]
    if len(rows) != 1 or len(rows[0]) < 7:
        return None
    # GROUP, COORDINATOR (ID) (two words), ASSIGNOR, STATE, GROUP-EPOCH,
    # TARGET-ASSIGNMENT-EPOCH, #MEMBERS: counted from the end, as ASSIGNOR may be empty.
    r = rows[0]
    out = {"state": r[-4], "epoch": int(r[-3]), "target_epoch": int(r[-2]), "count": int(r[-1]),
           "members": {}, "text": text}
    for line in members.stdout.splitlines():
        if not line.startswith(group + " "):
            continue
        # GROUP, TARGET-ASSIGNMENT-EPOCH, TOPOLOGY-EPOCH, MEMBER, MEMBER-PROTOCOL, MEMBER-EPOCH,
        # PROCESS, CLIENT-ID, ASSIGNMENTS (the rest of the line).
        f = line.split(None, 8)
        if len(f) < 8:
            return None
        out["members"][f[3]] = {"epoch": int(f[5]), "protocol": f[4], "process": f[6],
                                "client": f[7], "tasks": _tasks(f[8] if len(f) > 8 else "")}
    return out


def wait_settled(bootstrap, group, n, all_tasks, timeout, what):
    """The group as describe shows it once Stable with `n` members, every member at the group
    epoch with its target assignment, the active tasks `all_tasks` each owned once."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        d = describe_streams_group(bootstrap, group)
        last = d
        if d and d["state"] == "Stable" and d["count"] == n and len(d["members"]) == n:
            owned = [t for m in d["members"].values() for t in m["tasks"].get("ACTIVE", ())]
            if (d["epoch"] == d["target_epoch"]
                    and all(m["epoch"] == d["epoch"] and m["protocol"] == "streams"
                            and m["tasks"].get("ACTIVE") == m["tasks"].get("TARGET-ACTIVE")
                            for m in d["members"].values())
                    and sorted(owned) == sorted(all_tasks)):
                return d
        time.sleep(1)
    check(False, f"{what}: the streams group did not settle with {n} members within "
                       f"{timeout}s:\n{last['text'] if last else '(no description)'}")


def streams_group_broker_restart(ctx):
    """Kafka Streams with group.protocol=streams (WordCountEos, exactly_once_v2) while lines are
    produced all along: three instances join one after the other and the second leaves cleanly;
    then the broker restarts cleanly (SIGTERM) and, later, after a SIGKILL. The instances are not
    restarted: each keeps running through both restarts (a stream thread that dies is replaced
    by the uncaught exception handler, and reported). kafka-streams-groups.sh --describe lists
    the group, its two members and their tasks before and after each restart: the group is
    loaded back from its __consumer_offsets records (types 17-23), so the same members keep
    their tasks and the group epoch does not go back. At the end every word's latest count in
    the output equals its count in the input, exactly."""
    m = _main()
    b = ctx.broker
    app_id = "wordcount-restart"
    partitions = 4
    # The topology's tasks: subtopology 0 reads sr-in, subtopology 1 the repartition topic (as
    # many partitions as the input).
    all_tasks = [(s, p) for s in ("0", "1") for p in range(partitions)]

    def command(n):
        return java_streams_helper(
            "WordCountEos", b.bootstrap, app_id, "sr-in", "sr-out",
            os.path.join(ctx.ws.dir, f"streams-state-{n}"),
            "--prop", "group.protocol=streams")

    m.create_topic(b.bootstrap, "sr-in", partitions)
    m.create_topic(b.bootstrap, "sr-out", partitions)
    vocabulary = [f"word{i:02d}" for i in range(30)]

    def totals(ls):
        counts = {}
        for line in ls:
            for w in line.split():
                counts[w] = counts.get(w, 0) + 1
        return counts

    def latest():
        rows = m.confluent_read(b.bootstrap, "sr-out", partitions, "read_committed",
                                value=lambda v: struct.unpack(">q", v)[0])
        last = {}
        for _, _, k, v in rows:
            last[k] = v
        return last, rows

    apps = {}

    def start(n):
        a = m.JavaProgram(ctx, f"wordcount-{n}", command(n))
        apps[n] = a
        a.wait_line(lambda l: l.endswith(" RUNNING"), 120, f"instance {n} RUNNING")
        return a

    def check_alive(what):
        dead = [n for n, a in apps.items() if n != 2 and a.proc.poll() is not None]
        check(not dead, f"{what}: instance(s) {dead} exited:"
                        + "".join(f"\n{apps[n].output()[-5:]}" for n in dead))

    producer = _line_producer(b.bootstrap, "sr-in", partitions, vocabulary, seed=23)
    try:
        start(1)
        wait_settled(b.bootstrap, app_id, 1, all_tasks, 120, "instance 1 alone")
        start(2)
        wait_settled(b.bootstrap, app_id, 2, all_tasks, 120, "instances 1 and 2")
        start(3)
        three = wait_settled(b.bootstrap, app_id, 3, all_tasks, 120, "instances 1, 2 and 3")
        # Instance 2 leaves cleanly (KafkaStreams.close: a leave heartbeat, epoch -2 or -1).
        rc, out = apps[2].finish(60)
        check([l for l in out if l.startswith("closed ")] == ["closed true"],
              f"instance 2 did not close cleanly: {out[-3:]}")
        before = wait_settled(b.bootstrap, app_id, 2, all_tasks, 120, "after instance 2 left")
        left = set(three["members"]) - set(before["members"])
        check(len(left) == 1 and set(before["members"]) < set(three["members"]),
              f"the member that left is not the one gone: {sorted(three['members'])} then "
              f"{sorted(before['members'])}")
        check(before["epoch"] > three["epoch"],
              f"the leave did not bump the group epoch: {three['epoch']} then {before['epoch']}")
        print(f"before the restarts: group epoch {before['epoch']}, members "
              + ", ".join(f"{mid} {sorted(v['tasks']['ACTIVE'])}"
                          for mid, v in sorted(before["members"].items())))
        check_alive("before the restarts")
        time.sleep(3)

        def across(restart, what):
            log_at = len(b.log())
            sent = producer.sent
            restart()
            d = wait_settled(b.bootstrap, app_id, 2, all_tasks, 180, what)
            check(set(d["members"]) == set(before["members"]),
                  f"{what}: other members {sorted(d['members'])}, "
                  f"not {sorted(before['members'])}:\n{d['text']}")
            check(d["epoch"] >= before["epoch"],
                  f"{what}: the group epoch went back from {before['epoch']} to {d['epoch']} "
                  f"(the group was not loaded back):\n{d['text']}")
            # A member the coordinator no longer knew would be fenced and join again (epoch 0).
            rejoined = re.findall(r"Member (\S+) joins the streams group", b.log()[log_at:])
            check(not rejoined, f"{what}: members {rejoined} joined the group again")
            print(f"{what}: group epoch {d['epoch']}, {producer.sent - sent} lines produced "
                  f"meanwhile")
            if d["epoch"] == before["epoch"]:
                check(all(d["members"][k]["tasks"] == v["tasks"]
                          for k, v in before["members"].items()),
                      f"{what}: same group epoch, other tasks:\n{d['text']}")
            check_alive(what)
            return d

        def clean():
            b.stop()
            time.sleep(2)  # the producer and the instances retry meanwhile
            b.start()

        def crash():
            b.kill()  # SIGKILL: no clean shutdown
            time.sleep(2)
            b.start()

        across(clean, "after the clean restart")
        time.sleep(5)
        across(crash, "after the SIGKILL restart")
        time.sleep(5)
        acked = producer.stop()
        want = totals(acked.values())
        # The input holds exactly the acknowledged lines (idempotence: none twice).
        rows_in = m.confluent_read(b.bootstrap, "sr-in", partitions, "read_uncommitted",
                                   value=lambda v: v.decode())
        check(sorted((p, o, v) for p, o, _, v in rows_in)
              == sorted((p, o, v) for (p, o), v in acked.items()),
              f"the input holds {len(rows_in)} records, {len(acked)} acknowledged")
        deadline = time.time() + 180
        while True:
            got, rows = latest()
            if got == want:
                break
            check_alive("counting")
            check(time.time() < deadline,
                  f"the latest counts are not the input's within 180s ({len(rows)} records; e.g. "
                  f"{[(w, got.get(w), want[w]) for w in sorted(want) if got.get(w) != want[w]][:5]})")
            time.sleep(2)
        for n in (1, 3):
            rc, out = apps[n].finish(60)
            check([l for l in out if l.startswith("closed ")] == ["closed true"],
                  f"instance {n}: {out[-3:]}")
            errors = [l for l in out if l.startswith("error")]
            if errors:
                print(f"instance {n}: stream thread errors (replaced): {errors[:3]}")
    finally:
        producer.stop_event.set()
        for a in apps.values():
            a.ensure_gone()
    got, rows = latest()
    check(got == want, f"final counts differ: {len(rows)} records")
    # exactly_once_v2: read_committed, each word's counts are 1, 2, ... its total, each once,
    # through the member changes and both restarts.
    seqs = {}
    for _, _, k, v in rows:
        seqs.setdefault(k, []).append(v)
    bad = {w: s for w, s in seqs.items() if s != list(range(1, want.get(w, 0) + 1))}
    check(sorted(seqs) == sorted(want) and not bad,
          f"per-word counts read_committed are not 1..total each once: {len(bad)} words, e.g. "
          f"{sorted(bad.items())[:1]}")
    print(f"{len(acked)} lines, {sum(want.values())} words counted exactly into {len(rows)} "
          f"committed count records")
    ctx.expect_records = None


CASES = [streams_group_word_count, streams_group_broker_restart]
