"""Streams groups (KIP-1071): Kafka Streams 4.4.0 with group.protocol=streams against `seglog
serve`: the group coordinator assigns the tasks through StreamsGroupHeartbeat and creates the
internal topics (repartition, changelog) the topology needs.

The application is java/streams/WordCountEos.java (exactly_once_v2, a repartition topic by word,
a changelog), run with --prop group.protocol=streams: two instances join one after the other,
then every word's latest count in the output topic must equal its count in the input.
"""
import os
import random
import struct
import sys
import time

from harness import check, java_streams_helper


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


CASES = [streams_group_word_count]
