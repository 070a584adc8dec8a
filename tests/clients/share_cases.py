"""Share groups (KIP-932) with Kafka 4.4.0's KafkaShareConsumer: two members of one share group
on one partition, acknowledging explicitly (tests/clients/java/ShareMember.java). Every record
is delivered; accepted ones are never delivered again, released ones are delivered again (with
delivery count 2) and then accepted, rejected ones are not delivered again. Judged on the
records each member printed (offset, value, acknowledgement, delivery count).

The group's share.auto.offset.reset is Kafka's default, latest (no group configs in seglog
yet): the records are produced only after the broker loaded the share partition (its log line),
so none is skipped."""
import os
import signal
import subprocess
import threading
import time

from harness import check, java_helper, kafka_tool

T = "org.apache.kafka.tools."


class ShareMember:
    def __init__(self, ctx, name, group, topic, seconds=150, mode="normal"):
        self.name = name
        self.out = open(os.path.join(ctx.ws.dir, f"share-{name}.out"), "w")
        self.err = open(os.path.join(ctx.ws.dir, f"share-{name}.err"), "w")
        self.proc = subprocess.Popen(
            java_helper("ShareMember", ctx.broker.bootstrap, group, topic, name, str(seconds),
                        mode),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.lock = threading.Lock()
        self.acks = []  # (offset, value, type, delivery count)
        self.ack_times = []  # when each of acks was read
        self.got = []  # (offset, value, delivery count): held unacknowledged
        self.lines = []
        self.line_times = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.out.write(line)
            self.out.flush()
            f = line.split()
            with self.lock:
                self.lines.append(line.rstrip("\n"))
                self.line_times.append(time.time())
                if f and f[0] == "ack":
                    self.acks.append((int(f[2]), f[3], f[4].upper(), int(f[5])))
                    self.ack_times.append(time.time())
                elif f and f[0] == "got":
                    self.got.append((int(f[2]), f[3], int(f[4])))

    def has(self, word):
        with self.lock:
            return any(line.split()[:1] == [word] for line in self.lines)

    def line_time(self, word):
        """When the first line starting with `word` was read, or None."""
        with self.lock:
            for (line, t) in zip(self.lines, self.line_times):
                if line.split()[:1] == [word]:
                    return t
        return None

    def pause(self):
        """SIGSTOP: the member neither fetches nor heartbeats, its connections stay open."""
        os.kill(self.proc.pid, signal.SIGSTOP)

    def kill(self):
        """SIGKILL: the member's connections close, its records stay as it left them."""
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.reader.join(timeout=10)

    def stop(self):
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.reader.join(timeout=10)


def wait_for(what, fn, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if fn():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def share_consumer_java(ctx):
    b = ctx.broker
    topic, group, n = "shared", "sg", 60
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", topic,
               "--partitions", "1")
    members = [ShareMember(ctx, "m1", group, topic), ShareMember(ctx, "m2", group, topic)]
    try:
        wait_for("both members polling", lambda: all(m.has("polling") for m in members), 90)
        wait_for("the share partition loaded",
                 lambda: "Share partition sg:" in b.log() and " loaded at start offset" in b.log(),
                 60)
        values = []
        for i in range(n):
            if i % 11 == 5:
                values.append(f"reject-{i}")
            elif i % 7 == 3:
                values.append(f"release-{i}")
            else:
                values.append(f"accept-{i}")
        kafka_tool(T + "ConsoleProducer", "--bootstrap-server", b.bootstrap, "--topic", topic,
                   input="".join(v + "\n" for v in values))

        def all_acks():
            out = []
            for m in members:
                with m.lock:
                    out += [(m.name, *a) for a in m.acks]
            return out

        def finished():
            done = {(o, v) for (_, o, v, t, _) in all_acks() if t in ("ACCEPT", "REJECT")}
            return len(done) >= n

        wait_for("every record accepted or rejected", finished, 120)
        time.sleep(2)  # anything delivered again after its acceptance would show now
    finally:
        for m in members:
            m.stop()
    acks = all_acks()
    by_offset = {}
    for name, offset, value, typ, count in acks:
        by_offset.setdefault(offset, []).append((name, value, typ, count))
    check(sorted(by_offset) == list(range(n)), f"offsets delivered: {sorted(by_offset)}")
    for offset, deliveries in by_offset.items():
        deliveries.sort(key=lambda d: d[3])  # by delivery count: the members' lines interleave
        value = values[offset]
        check(all(v == value for (_, v, _, _) in deliveries),
              f"offset {offset}: values {deliveries}, produced {value}")
        types = [t for (_, _, t, _) in deliveries]
        counts = [c for (_, _, _, c) in deliveries]
        if value.startswith("reject-"):
            check(types == ["REJECT"] and counts == [1], f"{value}: {deliveries}")
        elif value.startswith("release-"):
            check(types == ["RELEASE", "ACCEPT"] and counts == [1, 2], f"{value}: {deliveries}")
        else:
            check(types == ["ACCEPT"] and counts == [1], f"{value}: {deliveries}")
    per_member = {m.name: len(m.acks) for m in members}
    print(f"share_consumer_java: {len(acks)} deliveries of {n} records, per member {per_member}")
    ctx.expect_records = None


CASES = [share_consumer_java]
