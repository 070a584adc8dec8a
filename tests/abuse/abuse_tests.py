#!/usr/bin/env python3
"""Hostile and careless clients against `seglog serve` (ctest label `abuse`, issue 29).

    abuse_tests.py --seglog build/release/cli/seglog --case NAME [--size ci|full]
    abuse_tests.py --list

Each case starts its own broker on a free 127.0.0.1 port over a fresh directory, runs an honest
client beside the attack (a confluent-kafka producer with acks=all and a consumer, a few
thousand small records: first unloaded, then while the attack runs), and asserts:

  * the broker's resident memory (VmRSS sampled every 100 ms, and VmHWM) stays under
    --rss-bound-mib, and where a case says so, its anonymous memory grows by no more than a
    bound derived from the attack's own size;
  * every honest record arrives: the consumer reads back the value acknowledged at each offset;
  * the honest producer's p99 latency under attack (librdkafka's own per-message latency) is
    within --p99-factor of the unloaded run measured in the same case (with a floor of
    --p99-floor-ms for the unloaded p99, so that a 2 ms baseline does not make 10 ms a failure);
  * the broker is still up afterwards, stops cleanly on SIGTERM, and after a restart every
    acknowledged record (the honest ones and the attack's own acknowledged ones) reads back.

Every connection goes to 127.0.0.1 (the per-IP cases connect from 127.0.0.2 and 127.0.0.3,
which are loopback addresses too); every loop is bounded in count and time.
"""

import argparse
import os
import select
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients"))
from harness import Broker, Failure, Workspace, check, free_port  # noqa: E402
import kafka_wire as kw  # noqa: E402

MIB = 1 << 20

# Sizes: CI keeps each case well under a minute on two cores; full is the scale.
SIZES = {
    "ci": dict(honest_unloaded=1000, honest_loaded=3000, honest_rate=300,
               conn_honest_unloaded=400, conn_honest_loaded=900,
               fetch_topics=600_000, fetch_conns=2, fetch_hold_s=8,
               bomb_records=1_000_000, bomb_deadline_s=15,
               slowloris_conns=100, slowloris_big=20, slowloris_s=10,
               idle_conns=300,
               never_reads_conns=2, never_reads_fetches=20, never_reads_mib=8,
               flood_conns=4, flood_topics=100,
               queued_conns=24, queued_requests=2, queued_request_mib=2,
               remote_partitions=6, remote_mib_per_partition=3, remote_conns=6,
               remote_attack_s=8, remote_fetch_max_kib=1024,
               http_slow_conns=40, http_garbage_conns=200, http_scrapers=2, http_s=10),
    "full": dict(honest_unloaded=2000, honest_loaded=10000, honest_rate=300,
                 conn_honest_unloaded=1000, conn_honest_loaded=3000,
                 fetch_topics=3_000_000, fetch_conns=4, fetch_hold_s=30,
                 bomb_records=5_000_000, bomb_deadline_s=30,
                 slowloris_conns=1000, slowloris_big=100, slowloris_s=60,
                 idle_conns=1000,
                 never_reads_conns=10, never_reads_fetches=200, never_reads_mib=64,
                 flood_conns=16, flood_topics=500,
                 queued_conns=128, queued_requests=4, queued_request_mib=4,
                 remote_partitions=16, remote_mib_per_partition=8, remote_conns=32,
                 remote_attack_s=30, remote_fetch_max_kib=1024,
                 http_slow_conns=400, http_garbage_conns=2000, http_scrapers=4, http_s=60),
}

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ---------------------------------------------------------------------------------------------
# the broker's memory

def proc_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                    out[k] = int(v.split()[0]) * 1024
    except OSError:
        pass
    return out


class RssSampler(threading.Thread):
    """Reads /proc/<pid>/status every 100 ms: the peak VmRSS and RssAnon seen, and VmHWM."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.stop_event = threading.Event()
        self.peak_rss = 0
        self.peak_anon = 0
        self.window_anon = 0  # peak RssAnon since reset_window()
        self.hwm = 0
        self.samples = 0
        self.lock = threading.Lock()

    def run(self):
        while not self.stop_event.is_set():
            s = proc_status(self.pid)
            if s:
                with self.lock:
                    self.samples += 1
                    self.peak_rss = max(self.peak_rss, s.get("VmRSS", 0))
                    self.peak_anon = max(self.peak_anon, s.get("RssAnon", 0))
                    self.window_anon = max(self.window_anon, s.get("RssAnon", 0))
                    self.hwm = max(self.hwm, s.get("VmHWM", 0))
            self.stop_event.wait(0.1)

    def current(self):
        return proc_status(self.pid)

    def reset_window(self):
        with self.lock:
            self.window_anon = self.current().get("RssAnon", 0)

    def stop(self):
        self.stop_event.set()
        self.join(5)


# ---------------------------------------------------------------------------------------------
# the honest client

def p99(values):
    if not values:
        return None
    s = sorted(values)
    return s[max(0, int(len(s) * 0.99 + 0.999999) - 1)]


class Honest:
    """A confluent-kafka producer (acks=all) writing unique values to one partition of `topic`,
    and a consumer reading that partition from the beginning for as long as the case runs."""

    def __init__(self, bootstrap, topic):
        from confluent_kafka import Producer
        self.bootstrap = bootstrap
        self.topic = topic
        self.acked = {}  # offset -> value
        self.errors = []
        self.latency = {}  # phase -> [seconds]
        self.consumed = {}
        self.consumer_errors = []
        self.produced = 0
        self.lock = threading.Lock()
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                  "linger.ms": 0, "message.timeout.ms": 120000,
                                  "client.id": "honest-producer"})
        self.stop_consumer = threading.Event()
        self.consumer_thread = threading.Thread(target=self._consume, daemon=True)
        self.consumer_thread.start()

    def _consume(self):
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "honest-reader",
                      "enable.auto.commit": False, "fetch.wait.max.ms": 100,
                      "client.id": "honest-consumer"})
        c.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
        try:
            while not self.stop_consumer.is_set():
                m = c.poll(0.2)
                if m is None:
                    continue
                if m.error():
                    self.consumer_errors.append(str(m.error()))
                    continue
                with self.lock:
                    self.consumed[m.offset()] = m.value().decode()
        finally:
            c.close()

    def produce_phase(self, phase, n, rate):
        lat = self.latency.setdefault(phase, [])

        def on_delivery(err, msg, value=None):
            if err is not None:
                self.errors.append((msg.value(), str(err)))
                return
            with self.lock:
                self.acked[msg.offset()] = msg.value().decode()
            if msg.latency() is not None:
                lat.append(msg.latency())

        interval = 1.0 / rate
        next_t = time.time()
        deadline = time.time() + n / rate * 4 + 60
        for i in range(n):
            value = f"{self.topic}/{phase}/{i:06d}"
            self.producer.produce(self.topic, value=value.encode(), partition=0,
                                  on_delivery=on_delivery)
            self.produced += 1
            next_t += interval
            while time.time() < next_t and time.time() < deadline:
                self.producer.poll(min(max(next_t - time.time(), 0), 0.01))
        left = self.producer.flush(max(deadline - time.time(), 30))
        check(left == 0, f"honest producer: {left} records not delivered")

    def wait_consumed(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                if all(o in self.consumed for o in self.acked):
                    return
            time.sleep(0.2)

    def finish(self):
        self.wait_consumed()
        self.stop_consumer.set()
        self.consumer_thread.join(30)

    def verify(self):
        check(not self.errors, f"honest producer: {len(self.errors)} records failed, e.g. "
                               f"{self.errors[:3]}")
        check(len(self.acked) == self.produced,
              f"honest producer: {len(self.acked)} acknowledged of {self.produced}")
        missing = [o for o in self.acked if o not in self.consumed]
        wrong = [(o, self.acked[o], self.consumed[o]) for o in self.acked
                 if o in self.consumed and self.consumed[o] != self.acked[o]]
        check(not missing, f"honest consumer: {len(missing)} acknowledged records never "
                           f"arrived, e.g. offsets {sorted(missing)[:5]}")
        check(not wrong, f"honest consumer: wrong values {wrong[:3]}")
        check(len(set(self.acked.values())) == len(self.acked), "honest values acked twice")


def read_partition(bootstrap, topic, partition, timeout=60, until=None):
    """Every record of one partition from the beginning to its end: {offset: value bytes}."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "abuse-readback",
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "fetch.max.bytes": 64 * MIB, "max.partition.fetch.bytes": 16 * MIB,
                  "receive.message.max.bytes": 80 * MIB})
    tp = TopicPartition(topic, partition)
    lo, hi = c.get_watermark_offsets(tp, timeout=30)
    c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
    got = {}
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            msgs = c.consume(10000, 1.0)
            for m in msgs:
                if m.error():
                    if m.error().code() == -191 and (until is None or len(got) >= until or
                                                     m.offset() >= hi):
                        return got, (lo, hi)
                    continue
                got[m.offset()] = m.value()
            if got and max(got) >= hi - 1:
                return got, (lo, hi)
    finally:
        c.close()
    raise Failure(f"read back {topic}-{partition}: {len(got)} records in {timeout}s, "
                  f"watermarks {lo}..{hi}")


def watermarks(bootstrap, topic, partition=0):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "abuse-watermarks"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
    finally:
        c.close()


# ---------------------------------------------------------------------------------------------
# a case's context: brokers, sampler, honest client, numbers

class Ctx:
    def __init__(self, args, name):
        self.args = args
        self.name = name
        self.size = SIZES[args.size]
        self.seglog = os.path.abspath(args.seglog)
        self.ws = Workspace(f"abuse-{name}")
        self.broker = None
        self.sampler = None
        self.numbers = {}
        self.after_restart = []  # checks of the attack's acknowledged records
        self.phase = 0

    def note(self, **kv):
        self.numbers.update(kv)
        print("  " + ", ".join(f"{k}={v}" for k, v in kv.items()), flush=True)

    def start_broker(self, overrides=()):
        self.phase += 1
        data = os.path.join(self.ws.dir, f"data{self.phase}")
        self.broker = Broker(self.seglog, data, overrides=list(overrides))
        self.broker.start()
        self._sample()
        return self.broker

    def _sample(self):
        self.sampler = RssSampler(self.broker.proc.pid)
        self.sampler.start()

    def alive(self, what="the attack"):
        b = self.broker
        if b.proc is None or b.proc.poll() is not None:
            rc = None if b.proc is None else b.proc.returncode
            raise Failure(f"the broker died during {what} (exit {rc}):\n{b.log()[-3000:]}")

    def check_memory(self, label=""):
        s = self.sampler
        peak = max(s.peak_rss, s.hwm)
        self.note(**{f"{label}peak_rss_mib": round(s.peak_rss / MIB, 1),
                     f"{label}vm_hwm_mib": round(s.hwm / MIB, 1)})
        check(peak <= self.args.rss_bound_mib * MIB,
              f"broker RSS peaked at {peak / MIB:.1f} MiB, bound {self.args.rss_bound_mib} MiB")

    def restart(self):
        """SIGTERM (a clean shutdown within 60 s), then start again over the same directory."""
        self.sampler.stop()
        self.broker.stop()
        self.broker.start()
        self._sample()

    def cleanup(self):
        if self.sampler:
            self.sampler.stop()
        if self.broker and self.broker.proc is not None:
            self.broker.proc.kill()
            self.broker.proc.wait(30)


def create_topic(port, name, partitions=1, configs=None):
    c = kw.Conn(port)
    try:
        res = kw.create_topics(c, [(name, partitions, 1, configs or {})])
    finally:
        c.close()
    check(res.get(name, (None,))[0] == kw.NONE, f"CreateTopics {name}: {res}")


def run_with_honest(ctx, overrides, attack, prepare=None, growth_bound=None,
                    unloaded=None, loaded=None, attack_timeout=120, before=None):
    """One broker phase: the honest client unloaded, then again while `attack(ctx, state)`
    runs in another thread; memory, values, p99, then a restart and every record read back.
    `growth_bound(state)`: the most the broker's RssAnon may grow during the attack;
    `before(ctx)`: runs on the fresh broker before the honest client connects (whose consumer's
    group.id makes librdkafka find a coordinator, creating __consumer_offsets)."""
    args, size = ctx.args, ctx.size
    unloaded = unloaded or size["honest_unloaded"]
    loaded = loaded or size["honest_loaded"]
    rate = size["honest_rate"]
    b = ctx.start_broker(overrides)
    if before:
        before(ctx)
    create_topic(b.port, "honest")
    honest = Honest(b.bootstrap, "honest")
    honest.produce_phase("unloaded", unloaded, rate)
    state = prepare(ctx) if prepare else {}
    base = ctx.sampler.current()
    ctx.sampler.reset_window()
    failure = []

    def run_attack():
        try:
            attack(ctx, state)
        except BaseException as e:  # reported by the main thread
            failure.append(e)

    t = threading.Thread(target=run_attack, daemon=True)
    started = time.time()
    t.start()
    honest.produce_phase("loaded", loaded, rate)
    t.join(max(attack_timeout - (time.time() - started), 1))
    check(not t.is_alive(), f"the attack did not finish within {attack_timeout}s")
    ctx.alive()
    if failure:
        raise failure[0]
    honest.finish()
    honest.producer.flush(10)
    ctx.alive("the honest client's last reads")
    growth = ctx.sampler.window_anon - base.get("RssAnon", 0)
    ctx.note(baseline_rss_mib=round(base.get("VmRSS", 0) / MIB, 1),
             anon_growth_mib=round(growth / MIB, 1))
    ctx.check_memory()
    if growth_bound is not None:
        bound = growth_bound(state)
        check(growth <= bound, f"broker anonymous memory grew {growth / MIB:.1f} MiB during the "
                               f"attack, bound {bound / MIB:.1f} MiB")
    honest.verify()
    u, l = p99(honest.latency.get("unloaded", [])), p99(honest.latency.get("loaded", []))
    ctx.note(honest_records=len(honest.acked), p99_unloaded_ms=round(u * 1000, 1),
             p99_loaded_ms=round(l * 1000, 1))
    limit = args.p99_factor * max(u, args.p99_floor_ms / 1000)
    check(l <= limit, f"honest p99 {l * 1000:.1f} ms under attack, limit {limit * 1000:.1f} ms "
                      f"({args.p99_factor}x the unloaded {u * 1000:.1f} ms)")
    # Up, and every acknowledged record intact after a clean restart.
    ctx.restart()
    got, _ = read_partition(b.bootstrap, "honest", 0, until=len(honest.acked))
    bad = [o for o, v in honest.acked.items() if got.get(o) != v.encode()]
    check(not bad, f"after the restart {len(bad)} acknowledged honest records differ or are "
                   f"missing, e.g. offset {sorted(bad)[:3]}")
    for fn in ctx.after_restart:
        fn()
    ctx.after_restart = []
    ctx.sampler.stop()
    ctx.broker.stop()
    return state


# ---------------------------------------------------------------------------------------------
# 1. Fetch v12 naming hundreds of thousands of topics

@case
def fetch_many_topics(ctx):
    """N connections each send one Fetch v12 naming `fetch_topics` topics (no partitions each,
    4 bytes a topic on the wire) with max_wait_ms 60000. The broker's anonymous memory may grow
    by at most --decode-factor times the bytes on the wire plus 48 MiB: a request costs a small
    multiple of its frame, never ~34x as today's decoding does."""
    size = ctx.size

    def prepare(ctx):
        body = kw.fetch_v12_many_topics(size["fetch_topics"])
        frame = kw.request_frame(kw.FETCH, 12, 1, body, True)
        return {"frame": frame, "wire": len(frame) * size["fetch_conns"]}

    def attack(ctx, st):
        conns = [kw.Conn(ctx.broker.port, timeout=60) for _ in range(size["fetch_conns"])]
        answered = []

        def drain(c):
            try:
                c.recv_frame(size["fetch_hold_s"] + 5)
                answered.append(c)
                while True:  # anything else the broker sends
                    c.recv_frame(size["fetch_hold_s"] + 5)
            except (kw.Closed, OSError):
                pass

        drains = []
        for c in conns:
            c.send(st["frame"])
            d = threading.Thread(target=drain, args=(c,), daemon=True)
            d.start()
            drains.append(d)
        time.sleep(size["fetch_hold_s"])
        ctx.alive()
        for c in conns:
            c.close()
        ctx.note(fetch_frame_mib=round(len(st["frame"]) / MIB, 2), fetch_conns=len(conns),
                 fetch_topics=size["fetch_topics"], answered_before_close=len(answered))

    run_with_honest(ctx, [], attack, prepare,
                    growth_bound=lambda st: ctx.args.decode_factor * st["wire"] + 48 * MIB)


# ---------------------------------------------------------------------------------------------
# 2. appends to __consumer_offsets from a client

def kcat_bytes(args, input=None, timeout=60):
    p = subprocess.run(["kcat", *args], input=input, capture_output=True, timeout=timeout)
    return p


@case
def internal_topic_append(ctx):
    """kcat -P -t __consumer_offsets -p 0 and a raw Produce v9 on a fresh broker: Kafka answers
    INVALID_TOPIC_EXCEPTION (17) "Cannot append to internal topic" when the topic exists (and
    UNKNOWN_TOPIC_OR_PARTITION (3) while it does not: its Produce checks the metadata cache
    first), never appends, and creates __consumer_offsets only with offsets.topic.num.partitions
    partitions (Metadata auto-creation or the group coordinator), never as a 1-partition topic."""
    parts = 4
    marker = f"forged-{os.getpid()}-{int(time.time())}"

    batch = kw.record_batch(kw.record(0, marker.encode(), key=b"forged-key"), 1)

    def before(ctx):
        b = ctx.broker
        p = kcat_bytes(["-b", b.bootstrap, "-P", "-t", "__consumer_offsets", "-p", "0", "-K:",
                        "-X", "message.timeout.ms=5000"],
                       input=f"k:{marker}\n".encode(), timeout=60)
        ctx.note(kcat_rc=p.returncode, kcat_stderr=p.stderr.decode(errors="replace")[-200:]
                 .replace("\n", " | "))
        c = kw.Conn(b.port)
        md = kw.metadata(c, ["__consumer_offsets"])
        t = md.get("__consumer_offsets")
        exists = t is not None and t[0] == kw.NONE
        if exists:
            check(len(t[2]) == parts and t[1],
                  f"__consumer_offsets exists after a client's produce with {len(t[2])} "
                  f"partition(s), internal={t[1]}; Kafka creates it only with "
                  f"offsets.topic.num.partitions={parts}")
        r = kw.produce(c, "__consumer_offsets", 0, batch)
        c.close()
        err = r[0][2]
        ctx.note(raw_produce_before_group=err, raw_produce_message=r[0][5])
        check(err == (kw.INVALID_TOPIC_EXCEPTION if exists else kw.UNKNOWN_TOPIC_OR_PARTITION)
              or err == kw.INVALID_TOPIC_EXCEPTION,
              f"raw Produce to __consumer_offsets-0 answered {err}, expected 17 "
              f"(INVALID_TOPIC_EXCEPTION){'' if exists else ' or 3'}")

    def attack(ctx, st):
        b = ctx.broker
        c = kw.Conn(b.port)
        # A group commits: the coordinator creates the topic, with its partition count.
        from confluent_kafka import Consumer, TopicPartition
        g = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "abuse-group",
                      "enable.auto.commit": False})
        g.commit(offsets=[TopicPartition("honest", 0, 5)], asynchronous=False)
        g.close()
        md = kw.metadata(c, ["__consumer_offsets"])
        t = md.get("__consumer_offsets")
        check(t is not None and t[0] == kw.NONE and len(t[2]) == parts and t[1],
              f"__consumer_offsets after a group commit: {t}, expected {parts} partitions")
        r = kw.produce(c, "__consumer_offsets", 0, batch)
        ctx.note(raw_produce_after_group=r[0][2], message=r[0][5])
        check(r[0][2] == kw.INVALID_TOPIC_EXCEPTION,
              f"raw Produce to an existing __consumer_offsets-0 answered {r[0][2]}, expected 17")
        c.close()
        check_no_marker(ctx, marker, parts)

    def check_no_marker(ctx, marker, parts):
        for part in range(parts):
            got, _ = read_partition(ctx.broker.bootstrap, "__consumer_offsets", part, timeout=30)
            hits = [o for o, v in got.items() if v and marker.encode() in v]
            check(not hits, f"the forged record is in __consumer_offsets-{part} at {hits}")

    def after():
        from confluent_kafka import Consumer, TopicPartition
        g = Consumer({"bootstrap.servers": ctx.broker.bootstrap, "group.id": "abuse-group"})
        c = g.committed([TopicPartition("honest", 0)], timeout=30)
        g.close()
        check(c[0].offset == 5, f"abuse-group's committed offset after restart: {c[0].offset}")
        check_no_marker(ctx, marker, parts)

    ctx.after_restart.append(after)
    run_with_honest(ctx, [f"offsets.topic.num.partitions={parts}"], attack, before=before)


# ---------------------------------------------------------------------------------------------
# 3. delete.topic.enable=false

@case
def delete_topic_disabled(ctx):
    """With delete.topic.enable=false, DeleteTopics v4 is answered TOPIC_DELETION_DISABLED (73)
    for every topic, __consumer_offsets included, and v1 INVALID_REQUEST (42) (Kafka's
    ControllerApis); the topics and their records stay, through a restart."""
    values = [f"keep-{i}".encode() for i in range(50)]

    def attack(ctx, st):
        b = ctx.broker
        create_topic(b.port, "keep-me")
        c = kw.Conn(b.port)
        r = kw.produce(c, "keep-me", 0, kw.value_batch(values))
        check(r[0][2] == kw.NONE, f"produce to keep-me: {r}")
        from confluent_kafka import Consumer, TopicPartition
        g = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "abuse-group",
                      "enable.auto.commit": False})
        g.commit(offsets=[TopicPartition("honest", 0, 3)], asynchronous=False)
        g.close()
        res4 = kw.delete_topics(c, ["keep-me", "__consumer_offsets"], version=4)
        res1 = kw.delete_topics(c, ["keep-me"], version=1)
        ctx.note(delete_v4=res4, delete_v1=res1)
        time.sleep(1)
        md = kw.metadata(c, ["keep-me", "__consumer_offsets"])
        c.close()
        check(res4 == {"keep-me": kw.TOPIC_DELETION_DISABLED,
                       "__consumer_offsets": kw.TOPIC_DELETION_DISABLED},
              f"DeleteTopics v4 with delete.topic.enable=false answered {res4}, expected 73 each")
        check(res1 == {"keep-me": kw.INVALID_REQUEST},
              f"DeleteTopics v1 with delete.topic.enable=false answered {res1}, expected 42")
        for t in ("keep-me", "__consumer_offsets"):
            check(md.get(t, (1,))[0] == kw.NONE, f"{t} is gone: {md.get(t)}")

    def after():
        got, _ = read_partition(ctx.broker.bootstrap, "keep-me", 0, until=len(values))
        check([got.get(i) for i in range(len(values))] == values,
              f"keep-me after restart: {len(got)} records")

    ctx.after_restart.append(after)
    run_with_honest(ctx, ["delete.topic.enable=false"], attack)


# ---------------------------------------------------------------------------------------------
# 4. Kafka's connection quotas

def probe(conns, wait):
    """Sends ApiVersions v0 on each connection; within `wait` seconds each one is answered,
    closed by the broker, or still pending. Returns (answered, closed, pending) lists."""
    frame = kw.api_versions_v0()
    answered, closed, pending = [], [], []
    live = []
    for c in conns:
        try:
            c.send(frame)
            live.append(c)
        except OSError:
            closed.append(c)
    deadline = time.time() + wait
    by_fd = {c.sock.fileno(): c for c in live}
    while by_fd and time.time() < deadline:
        ready, _, _ = select.select(list(by_fd), [], [], max(0.0, deadline - time.time()))
        for fd in ready:
            c = by_fd.pop(fd)
            try:
                c.recv_frame(5)
                answered.append(c)
            except (kw.Closed, OSError):
                closed.append(c)
    pending = list(by_fd.values())
    return answered, closed, pending


def open_conns(port, n, source):
    out = []
    for _ in range(n):
        out.append(kw.Conn(port, source=source, timeout=10))
    return out


def wait_answered(conns, wait):
    """Pending connections (their ApiVersions already sent): which are answered in `wait` s."""
    answered, closed = [], []
    deadline = time.time() + wait
    by_fd = {c.sock.fileno(): c for c in conns}
    while by_fd and time.time() < deadline:
        ready, _, _ = select.select(list(by_fd), [], [], max(0.0, deadline - time.time()))
        for fd in ready:
            c = by_fd.pop(fd)
            try:
                c.recv_frame(5)
                answered.append(c)
            except (kw.Closed, OSError):
                closed.append(c)
    return answered, closed, list(by_fd.values())


@case
def max_connections_per_ip(ctx):
    """Kafka's ConnectionQuotas (kafka.network.SocketServer), four brokers:
    (a) max.connections.per.ip=40 and max.connections.per.ip.overrides=127.0.0.3:5: of 45
        connections from 127.0.0.2, 40 are served and 5 closed by the broker right after
        accept; of 10 from 127.0.0.3, 5 and 5.
    (b) max.connections=20 and (c) listener.name.plaintext.max.connections=20: the acceptor
        waits for a slot (waitForConnectionSlot): of 25 more connections none is closed, the
        excess is not served until others close, then is.
    (d) max.connection.creation.rate=2: connections beyond the rate are delayed, not closed
        (Kafka's Rate over 11 one-second samples lets about 20 through at once): 30 connections
        are all served, the last at least 3 s after the first."""
    size = ctx.size
    u, l = size["conn_honest_unloaded"], size["conn_honest_loaded"]

    def per_ip(ctx, st):
        port = ctx.broker.port
        a = open_conns(port, 45, "127.0.0.2")
        ans, clo, pen = probe(a, 3)
        ctx.note(per_ip_default=f"{len(ans)} served, {len(clo)} closed, {len(pen)} pending")
        o = open_conns(port, 10, "127.0.0.3")
        ans3, clo3, pen3 = probe(o, 3)
        ctx.note(per_ip_override=f"{len(ans3)} served, {len(clo3)} closed, {len(pen3)} pending")
        for c in a + o:
            c.close()
        check((len(ans), len(clo), len(pen)) == (40, 5, 0),
              f"max.connections.per.ip=40, 45 connections: {len(ans)} served, {len(clo)} closed, "
              f"{len(pen)} pending; expected 40, 5, 0")
        check((len(ans3), len(clo3), len(pen3)) == (5, 5, 0),
              f"max.connections.per.ip.overrides=127.0.0.3:5, 10 connections: {len(ans3)} served, "
              f"{len(clo3)} closed, {len(pen3)} pending; expected 5, 5, 0")
        time.sleep(0.5)
        again, _, _ = probe(open_conns(port, 1, "127.0.0.2"), 3)
        check(len(again) == 1, "127.0.0.2 not served after its connections closed")

    def blocking(label, limit):
        def attack(ctx, st):
            port = ctx.broker.port
            a = open_conns(port, limit + 5, "127.0.0.2")
            ans, clo, pen = probe(a, 3)
            ctx.note(**{label: f"{len(ans)} served, {len(clo)} closed, {len(pen)} pending"})
            try:
                check(not clo, f"{label}={limit}: {len(clo)} connections closed by the broker; "
                               f"Kafka's acceptor waits for a slot instead")
                check(len(ans) <= limit and len(pen) >= 5,
                      f"{label}={limit}: {len(ans)} of {limit + 5} served at once")
                for c in ans[:len(pen)]:
                    c.close()
                later, clo2, still = wait_answered(pen, 5)
                ctx.note(**{f"{label}_after_closing": f"{len(later)} served, {len(clo2)} closed, "
                                                     f"{len(still)} pending"})
                check(len(later) == len(pen),
                      f"{label}={limit}: after closing {len(pen)} connections, "
                      f"{len(later)} of the {len(pen)} waiting ones were served")
            finally:
                for c in a:
                    c.close()
        return attack

    def rate(ctx, st):
        port = ctx.broker.port
        frame = kw.api_versions_v0()
        conns, times, closed = [], [], 0
        t0 = time.time()
        for _ in range(30):
            c = kw.Conn(port, source="127.0.0.2", timeout=30)
            c.send(frame)
            conns.append(c)
        ans, clo, pen = wait_answered(conns, 25)
        times = time.time() - t0
        # the moment of the last answer: wait_answered returns when all are in
        ctx.note(creation_rate=f"{len(ans)} served, {len(clo)} closed, {len(pen)} pending, "
                               f"all within {times:.1f}s")
        for c in conns:
            c.close()
        check(not clo and not pen, f"max.connection.creation.rate=2: {len(clo)} closed, "
                                   f"{len(pen)} never served")
        check(times >= 3, f"max.connection.creation.rate=2: 30 connections all served within "
                          f"{times:.1f}s; Kafka delays those beyond the rate")

    phases = [
        (["max.connections.per.ip=40", "max.connections.per.ip.overrides=127.0.0.3:5"], per_ip),
        (["max.connections=20"], blocking("max.connections", 20)),
        (["listener.name.plaintext.max.connections=20"],
         blocking("listener.name.plaintext.max.connections", 20)),
        (["max.connection.creation.rate=2"], rate)]
    failures = []
    for overrides, attack in phases:  # every phase runs; the case fails if any did
        try:
            run_with_honest(ctx, overrides, attack, unloaded=u, loaded=l)
            print(f"  phase {overrides}: passed", flush=True)
        except Failure as e:
            print(f"  phase {overrides}: FAILED: {e}", flush=True)
            failures.append(f"{overrides}: {e}")
            ctx.cleanup()
    check(not failures, "; ".join(failures))


# ---------------------------------------------------------------------------------------------
# 5. two million partitions

@case
def huge_partition_count(ctx):
    """Kafka 4.4's controller (ReplicationControlManager): CreateTopics whose partitions add up
    to more than MAX_PARTITIONS_PER_BATCH (10,000) fails every topic of the request with
    POLICY_VIOLATION (44) "Excessively large number of partitions per request."; CreatePartitions
    to 2,000,000 overflows its records list (BoundedList of MAX_RECORDS_PER_USER_OP, 10,000):
    UNKNOWN_SERVER_ERROR (-1). Both within 5 s, and no partition directory is created."""

    def timed(label, fn):
        t = time.time()
        try:
            r = fn()
        except socket.timeout:
            raise Failure(f"{label}: no answer within 120 s")
        d = time.time() - t
        ctx.note(**{label: f"{r} in {d:.2f}s"})
        return r, d

    def attack(ctx, st):
        b = ctx.broker
        c = kw.Conn(b.port, timeout=120)
        r1, d1 = timed("create_2m", lambda: kw.create_topics(c, [("huge", 2_000_000, 1, {})],
                                                             timeout=120))
        r2, d2 = timed("create_10001", lambda: kw.create_topics(
            kw.Conn(b.port), [("over-a", 6000, 1, {}), ("over-b", 4001, 1, {})], timeout=120))
        create_topic(b.port, "grow")
        r3, d3 = timed("create_partitions_2m",
                       lambda: kw.create_partitions(kw.Conn(b.port), "grow", 2_000_000,
                                                    timeout=120))
        md = kw.metadata(c, ["grow", "huge", "over-a", "over-b"])
        c.close()
        dirs = [d for d in os.listdir(b.data_dir)
                if d.startswith(("huge-", "over-a-", "over-b-")) or
                (d.startswith("grow-") and d != "grow-0")]
        ctx.note(partition_dirs_created=len(dirs))
        check(r1.get("huge", (None,))[0] == kw.POLICY_VIOLATION,
              f"CreateTopics huge with 2,000,000 partitions: {r1}, expected 44")
        check(r1["huge"][1] == "Excessively large number of partitions per request.",
              f"CreateTopics huge: message {r1['huge'][1]!r}")
        check(all(r2.get(n, (None,))[0] == kw.POLICY_VIOLATION for n in ("over-a", "over-b")),
              f"CreateTopics of 6000 + 4001 partitions: {r2}, expected 44 for both")
        check(r3.get("grow", (None,))[0] == kw.UNKNOWN_SERVER_ERROR,
              f"CreatePartitions grow to 2,000,000: {r3}, expected Kafka's -1")
        check(max(d1, d2, d3) <= 5, f"refusals took {d1:.1f}s, {d2:.1f}s, {d3:.1f}s")
        check(not dirs, f"{len(dirs)} partition directories created, e.g. {sorted(dirs)[:3]}")
        check(len(md.get("grow", (0, 0, []))[2]) == 1, f"grow now has {md.get('grow')}")
        for n in ("huge", "over-a", "over-b"):
            check(md.get(n, (3,))[0] != kw.NONE, f"{n} exists: {md.get(n)}")

    run_with_honest(ctx, [], attack, attack_timeout=400)


# ---------------------------------------------------------------------------------------------
# 6. compression bombs

@case
def compression_bombs(ctx):
    """For each codec, a Produce v9 of one batch that decompresses to `bomb_records` empty
    records: with a current timestamp it is appended (error 0, Kafka accepts it), with a
    timestamp two days ahead every record fails log.message.timestamp.after.max.ms (1 h):
    INVALID_TIMESTAMP (32). Each answer within bomb_deadline_s; memory under the bound; the
    honest client unaffected; the accepted bombs intact after a restart. The topic allows
    64 MiB batches so that every codec's batch reaches the decompressor."""
    size = ctx.size
    n = size["bomb_records"]
    codecs = ["gzip", "snappy", "lz4", "zstd"]

    def prepare(ctx):
        create_topic(ctx.broker.port, "bomb", configs={"max.message.bytes": str(64 * MIB)})
        recs = kw.tiny_records(n)
        now = int(time.time() * 1000)
        bombs = []
        for codec in codecs:
            for future in (False, True):
                ts = now + 2 * 86400 * 1000 if future else now
                bombs.append((codec, future, kw.record_batch(recs, n, codec, ts)))
        ctx.note(uncompressed_mib=round(len(recs) / MIB, 1),
                 batch_kib={f"{c}{'-future' if f else ''}": len(b) // 1024 for c, f, b in bombs})
        return {"bombs": bombs, "accepted": []}

    def attack(ctx, st):
        c = kw.Conn(ctx.broker.port, timeout=120)
        results = []
        for codec, future, batch in st["bombs"]:
            corr = c.next_corr()
            t = time.time()
            c.send(kw.request_frame(kw.PRODUCE, 9, corr, kw.produce_v9("bomb", 0, batch), True))
            frame = c.recv_frame(max(size["bomb_deadline_s"] * 4, 60))
            d = time.time() - t  # the broker's answer, not this script's parsing of it
            r = kw.Reader(frame)
            check(r.i32() == corr, "produce response out of order")
            r.tags()
            _, _, err, base, rec_errors, msg = kw.parse_produce_v9(r)[0]
            ctx.note(**{f"{codec}{'-future' if future else ''}_response_kib": len(frame) // 1024})
            results.append((codec, future, err, d, len(rec_errors)))
            ctx.note(**{f"{codec}{'-future' if future else ''}":
                        f"error {err} in {d:.2f}s, {len(rec_errors)} record errors"})
            ctx.alive(f"the {codec} bomb")
            if err == kw.NONE:
                st["accepted"].append((codec, base))
        c.close()
        for codec, future, err, d, _ in results:
            want = kw.INVALID_TIMESTAMP if future else kw.NONE
            check(err == want, f"{codec} bomb (future={future}): error {err}, expected {want}")
            check(d <= size["bomb_deadline_s"],
                  f"{codec} bomb (future={future}) answered after {d:.1f}s, "
                  f"bound {size['bomb_deadline_s']}s")

    st = {}

    def after():
        lo, hi = watermarks(ctx.broker.bootstrap, "bomb")
        check(hi == n * len(st["accepted"]),
              f"bomb topic ends at {hi} after restart, {len(st['accepted'])} bombs accepted "
              f"of {n} records each")
        from confluent_kafka import Consumer, TopicPartition
        cons = Consumer({"bootstrap.servers": ctx.broker.bootstrap, "group.id": "abuse-bomb",
                         "enable.auto.commit": False, "fetch.max.bytes": 64 * MIB,
                         "max.partition.fetch.bytes": 64 * MIB,
                         "receive.message.max.bytes": 80 * MIB})
        try:
            for codec, base in st["accepted"]:
                last = base + n - 1
                cons.assign([TopicPartition("bomb", 0, last)])
                m = None
                deadline = time.time() + 30
                while time.time() < deadline:
                    m = cons.poll(1.0)
                    if m is not None and not m.error() and m.offset() >= last:
                        break
                check(m is not None and not m.error() and m.offset() == last and
                      not m.value(), f"{codec} bomb's last record (offset {last}): {m}")
        finally:
            cons.close()

    def prep(ctx):
        st.update(prepare(ctx))
        return st

    ctx.after_restart.append(after)
    run_with_honest(ctx, [], attack, prep, attack_timeout=400)


# ---------------------------------------------------------------------------------------------
# 7. slowloris

@case
def slowloris(ctx):
    """`slowloris_conns` connections send frames one byte every half second for slowloris_s:
    most an ApiVersions request, `slowloris_big` of them a frame declaring 100 MiB - 1 bytes
    (under socket.request.max.bytes). The broker may not reserve what a frame declares before
    it arrives: anonymous memory grows by at most 64 MiB, and the honest client is unaffected."""
    size = ctx.size

    def attack(ctx, st):
        port = ctx.broker.port
        frames = []
        conns = []
        for i in range(size["slowloris_conns"]):
            try:
                conns.append(kw.Conn(port, timeout=5))
            except OSError:
                break
            if i < size["slowloris_big"]:
                frames.append(kw.i32(100 * MIB - 1) + bytes(range(256)) * 4)
            else:
                frames.append(kw.api_versions_v0())
        ctx.note(slowloris_connections=len(conns))
        pos = [0] * len(conns)
        deadline = time.time() + size["slowloris_s"]
        while time.time() < deadline:
            for i, c in enumerate(conns):
                if pos[i] < len(frames[i]):
                    try:
                        c.sock.send(frames[i][pos[i]:pos[i] + 1])
                        pos[i] += 1
                    except OSError:
                        pos[i] = len(frames[i])
            ctx.alive()
            time.sleep(0.5)
        for c in conns:
            c.close()

    run_with_honest(ctx, [], attack, growth_bound=lambda st: 64 * MIB)


# ---------------------------------------------------------------------------------------------
# 8. idle connections

@case
def idle_connections(ctx):
    """`idle_conns` connections each answered one ApiVersions, then idle while the honest client
    runs; every one is still open afterwards (connections.max.idle.ms is 10 minutes)."""
    size = ctx.size

    def attack(ctx, st):
        port = ctx.broker.port
        conns = [kw.Conn(port, timeout=10) for _ in range(size["idle_conns"])]
        ans, clo, pen = probe(conns, 20)
        check(len(ans) == len(conns), f"{len(clo)} closed, {len(pen)} pending of {len(conns)}")
        time.sleep(size["honest_loaded"] / size["honest_rate"] * 0.8)
        ans2, clo2, pen2 = probe(conns, 20)
        ctx.note(idle_connections=len(conns), served_after_idle=len(ans2))
        for c in conns:
            c.close()
        check(len(ans2) == len(conns), f"after idling: {len(clo2)} closed, {len(pen2)} pending")

    run_with_honest(ctx, [], attack, growth_bound=lambda st: 64 * MIB)


# ---------------------------------------------------------------------------------------------
# 9. a client that never reads

@case
def never_reads(ctx):
    """connections.max.idle.ms=3000. `never_reads_conns` connections with a 4 KiB receive
    buffer each send `never_reads_fetches` Fetch requests for a topic of never_reads_mib MiB and
    never read. Kafka expires a connection by its last I/O, a pending response included: each
    one is closed by the broker within the idle time (checked at 3 s + 7 s), and the honest
    client is unaffected."""
    size = ctx.size
    idle_ms = 3000

    def prepare(ctx):
        create_topic(ctx.broker.port, "fat", configs={"max.message.bytes": str(2 * MIB)})
        c = kw.Conn(ctx.broker.port)
        values = []
        for i in range(size["never_reads_mib"]):
            vs = [f"fat-{i}-{j}".encode().ljust(1024, b".") for j in range(1000)]
            r = kw.produce(c, "fat", 0, kw.value_batch(vs))
            check(r[0][2] == kw.NONE, f"produce to fat: {r}")
            values += vs
        c.close()
        return {"values": values}

    st = {}

    def attack(ctx, st):
        port = ctx.broker.port
        conns = [kw.Conn(port, timeout=10, rcvbuf=4096) for _ in range(size["never_reads_conns"])]
        req = kw.fetch_v12("fat", 0, 0, max_wait_ms=0, max_bytes=64 * MIB,
                           partition_max_bytes=64 * MIB)
        for c in conns:
            for i in range(size["never_reads_fetches"]):
                c.sock.settimeout(2)
                try:
                    c.send(kw.request_frame(kw.FETCH, 12, i + 1, req, True))
                except socket.timeout:
                    break  # the broker stopped reading: the rest would never be sent
                except OSError:
                    break
        time.sleep(idle_ms / 1000 + 7)
        ctx.alive()
        closed = 0
        read = 0
        for c in conns:  # now drain: EOF means the broker closed it
            c.sock.settimeout(2)
            deadline = time.time() + 20
            try:
                while time.time() < deadline:
                    b = c.sock.recv(1 << 20)
                    if not b:
                        closed += 1
                        break
                    read += len(b)
            except socket.timeout:
                pass
            except (ConnectionResetError, BrokenPipeError):
                closed += 1
            c.close()
        ctx.note(never_read_conns=len(conns), closed_by_broker=closed,
                 drained_mib=round(read / MIB, 1))
        check(closed == len(conns), f"{len(conns) - closed} of {len(conns)} connections that "
                                    f"never read still open {idle_ms / 1000 + 7:.0f}s later "
                                    f"(connections.max.idle.ms={idle_ms})")

    def after():
        got, _ = read_partition(ctx.broker.bootstrap, "fat", 0, until=len(st["values"]))
        check([got.get(i) for i in range(len(st["values"]))] == st["values"],
              "fat topic differs after restart")

    def prep(ctx):
        st.update(prepare(ctx))
        return st

    ctx.after_restart.append(after)
    run_with_honest(ctx, [f"connections.max.idle.ms={idle_ms}"], attack, prep)


# ---------------------------------------------------------------------------------------------
# 10. a flood of CreateTopics

@case
def create_topics_flood(ctx):
    """`flood_conns` connections each create `flood_topics` one-partition topics, one
    CreateTopics each, beside the honest client: every one answered 0 (no controller mutation
    quota by default), every topic there with one partition, also after a restart."""
    size = ctx.size
    names = [f"flood-{c}-{i}" for c in range(size["flood_conns"])
             for i in range(size["flood_topics"])]

    def attack(ctx, st):
        port = ctx.broker.port
        errors = []

        def one(cidx):
            c = kw.Conn(port, timeout=60)
            try:
                for i in range(size["flood_topics"]):
                    n = f"flood-{cidx}-{i}"
                    r = kw.create_topics(c, [(n, 1, 1, {})])
                    if r.get(n, (None,))[0] != kw.NONE:
                        errors.append((n, r))
            except Exception as e:
                errors.append(("conn", repr(e)))
            finally:
                c.close()

        t = time.time()
        ts = [threading.Thread(target=one, args=(i,), daemon=True)
              for i in range(size["flood_conns"])]
        for th in ts:
            th.start()
        for th in ts:
            th.join(300)
        ctx.note(flood_topics=len(names), flood_s=round(time.time() - t, 1),
                 flood_errors=len(errors))
        check(not any(th.is_alive() for th in ts), "the flood did not finish in 300 s")
        check(not errors, f"CreateTopics errors: {errors[:3]}")
        check_all_there()

    def check_all_there():
        c = kw.Conn(ctx.broker.port, timeout=60)
        md = kw.metadata(c, names)
        c.close()
        bad = [n for n in names if md.get(n, (3, 0, []))[0] != kw.NONE or
               md[n][2] != [0]]
        check(not bad, f"{len(bad)} flood topics missing or wrong, e.g. {bad[:3]}")

    ctx.after_restart.append(check_all_there)
    run_with_honest(ctx, [], attack, attack_timeout=400)


# ---------------------------------------------------------------------------------------------
# 11. queued.max.request.bytes

@case
def queued_max_request_bytes(ctx):
    """queued.max.request.bytes=4 MiB. `queued_conns` connections each send `queued_requests`
    Produce requests of queued_request_mib MiB at once (acks=all). Kafka's MemoryPool mutes
    connections while the pool is exhausted, never drops them: every request is answered 0,
    no connection is closed, the broker's anonymous memory grows by at most 3x the pool plus
    24 MiB, and every acknowledged record reads back after a restart."""
    size = ctx.size
    pool = 4 * MIB
    per = size["queued_request_mib"] * 1024  # 1 KiB records

    def prepare(ctx):
        create_topic(ctx.broker.port, "bulk", configs={"max.message.bytes": str(16 * MIB)})
        frames = []
        for ci in range(size["queued_conns"]):
            fs = []
            for ri in range(size["queued_requests"]):
                vs = [f"bulk-{ci}-{ri}-{k}".encode().ljust(1000, b"#") for k in range(per)]
                fs.append((vs, kw.produce_v9("bulk", 0, kw.value_batch(vs), timeout_ms=60000)))
            frames.append(fs)
        return {"frames": frames, "acked": {}}

    st = {}

    def attack(ctx, st):
        port = ctx.broker.port
        conns = [kw.Conn(port, timeout=120) for _ in range(size["queued_conns"])]
        problems = []
        gate = threading.Barrier(len(conns))

        def one(ci, c):
            try:
                gate.wait(30)
                for ri, (_, body) in enumerate(st["frames"][ci]):
                    c.send(kw.request_frame(kw.PRODUCE, 9, ri + 1, body, True))
                for ri, (vs, _) in enumerate(st["frames"][ci]):
                    r = kw.Reader(c.recv_frame(120))
                    corr = r.i32()
                    r.tags()
                    res = kw.parse_produce_v9(r)
                    err, base = res[0][2], res[0][3]
                    if err != kw.NONE:
                        problems.append((ci, corr, err))
                    else:
                        vs = st["frames"][ci][corr - 1][0]
                        st["acked"][(ci, corr)] = (base, vs)
            except Exception as e:
                problems.append((ci, repr(e)))
            finally:
                c.close()

        t = time.time()
        ts = [threading.Thread(target=one, args=(i, c), daemon=True) for i, c in enumerate(conns)]
        for th in ts:
            th.start()
        for th in ts:
            th.join(180)
        ctx.note(requests=size["queued_conns"] * size["queued_requests"],
                 request_mib=size["queued_request_mib"], answered=len(st["acked"]),
                 seconds=round(time.time() - t, 1), problems=problems[:3])
        check(not problems, f"{len(problems)} produce requests failed or connections closed, "
                            f"e.g. {problems[:3]}")

    def after():
        total = sum(len(vs) for _, vs in st["acked"].values())
        got, _ = read_partition(ctx.broker.bootstrap, "bulk", 0, until=total, timeout=120)
        bad = 0
        for base, vs in st["acked"].values():
            for k, v in enumerate(vs):
                if got.get(base + k) != v:
                    bad += 1
        check(bad == 0 and len(got) == total,
              f"bulk after restart: {bad} of {total} acknowledged records differ; read {len(got)}")

    def prep(ctx):
        st.update(prepare(ctx))
        return st

    ctx.after_restart.append(after)
    # In memory at once, by design: the pool's frames, one more frame let through a stuck pool
    # (one at a time), the log's copy of each batch being appended, and the allocator's
    # per-thread arenas keeping freed request buffers. Not the 2 GiB the full size offers.
    run_with_honest(ctx, [f"queued.max.request.bytes={pool}"], attack, prep,
                    growth_bound=lambda st: 4 * pool + 32 * MIB, attack_timeout=300)


# ---------------------------------------------------------------------------------------------
# 12. huge fetches of many partitions whose old segments are only in remote storage

def local_log_starts(data_dir, topic, partitions):
    """{partition: base offset of its first local .log} (None: no segment yet)."""
    out = {}
    for p in range(partitions):
        d = os.path.join(data_dir, f"{topic}-{p}")
        try:
            logs = sorted(int(f[:-4]) for f in os.listdir(d) if f.endswith(".log"))
        except OSError:
            logs = []
        out[p] = logs[0] if logs else None
    return out


@case
def remote_fetch_size(ctx):
    """A tiered topic of `remote_partitions` partitions, each `remote_mib_per_partition` MiB in
    1 MiB segments whose rolled ones are in remote storage only (versitygw on loopback,
    tests/clients/s3.py), and `remote_conns` connections sending, back to back for
    `remote_attack_s` s, Fetch v12 of every partition at offset 0 with max_bytes and
    partition_max_bytes of 2 GiB (the partition order rotated each time). The broker reads one
    remote partition per fetch, bounded by fetch.max.bytes (set to `remote_fetch_max_kib`), and
    waits for it at most remote.fetch.max.wait.ms (500 ms). Every response: records from at most
    one partition, at most fetch.max.bytes of them, each record the one produced at its offset;
    errors only UNKNOWN_SERVER_ERROR (a full remote reader queue). RssAnon grows by at most
    (2 x connections + 10 reader threads) x fetch.max.bytes + 48 MiB."""
    from s3 import S3Store
    size = ctx.size
    parts = size["remote_partitions"]
    fetch_max = size["remote_fetch_max_kib"] * 1024
    value_size = 1000
    per_batch = 32  # ~32 KiB batches
    batches_per_partition = size["remote_mib_per_partition"] * MIB // (value_size * per_batch)
    store = S3Store(os.path.join(ctx.ws.dir, "s3")).start()
    overrides = ["remote.log.storage.system.enable=true",
                 "remote.log.manager.task.interval.ms=500",
                 "log.retention.check.interval.ms=500",
                 "rlmm.config.remote.log.metadata.topic.num.partitions=1",
                 f"fetch.max.bytes={fetch_max}"] + store.broker_overrides()
    produced = {}  # partition -> [value bytes], offset = index

    def value(p, i):
        return (f"remote-{p}-{i:08d}-".encode()).ljust(value_size, b"r")

    def prepare(ctx):
        b = ctx.broker
        create_topic(b.port, "cold", parts, {"remote.storage.enable": "true",
                                             "internal.segment.bytes": str(MIB),
                                             "local.retention.ms": "1000",
                                             "retention.ms": "-1"})
        c = kw.Conn(b.port, timeout=60)
        t = time.time()
        for p in range(parts):
            vs = []
            for k in range(batches_per_partition):
                batch = [value(p, len(vs) + i) for i in range(per_batch)]
                r = kw.produce(c, "cold", p, kw.value_batch(batch))
                check(r[0][2] == kw.NONE and r[0][3] == len(vs),
                      f"produce to cold-{p}: {r[0]}, expected base offset {len(vs)}")
                vs += batch
            produced[p] = vs
        c.close()
        # Every rolled segment copied and trimmed locally: offset 0 is remote only.
        deadline = time.time() + 60
        while True:
            starts = local_log_starts(b.data_dir, "cold", parts)
            if all(s is not None and s > 0 for s in starts.values()):
                break
            check(time.time() < deadline, f"cold: local segments not trimmed in 60 s: {starts}")
            time.sleep(0.25)
        ctx.note(remote_partitions=parts, produced_mib=round(
            sum(len(v) for v in produced.values()) * value_size / MIB, 1),
            local_log_starts=sorted(starts.values()), tiered_in_s=round(time.time() - t, 1))
        return {"responses": 0, "with_records": 0, "empty": 0, "errors": {}, "max_records": 0,
                "max_frame": 0, "bytes": 0, "records": 0, "partitions_read": set(),
                "problems": []}

    def attack(ctx, st):
        port = ctx.broker.port
        lock = threading.Lock()
        stop_at = time.time() + size["remote_attack_s"]

        def one(ci):
            c = kw.Conn(port, timeout=60)
            n = 0
            try:
                while time.time() < stop_at and n < 100000:
                    order = [(ci + n + k) % parts for k in range(parts)]
                    body = kw.fetch_v12_partitions("cold", order, 0, max_wait_ms=500,
                                                   max_bytes=2**31 - 1,
                                                   partition_max_bytes=2**31 - 1)
                    corr = c.next_corr()
                    c.send(kw.request_frame(kw.FETCH, 12, corr, body, True))
                    frame = c.recv_frame(30)
                    r = kw.Reader(frame)
                    got_corr = r.i32()
                    r.tags()
                    err, res = kw.parse_fetch_v12(r)
                    n += 1
                    with_records = [(p, rec) for _, p, e, _, _, rec in res if rec]
                    errors = [e for _, _, e, _, _, _ in res if e != kw.NONE]
                    total = sum(len(rec) for _, rec in with_records)
                    bad = []
                    if got_corr != corr or err != kw.NONE or len(res) != parts:
                        bad.append(f"response {got_corr}/{corr} error {err}, {len(res)} parts")
                    if len(with_records) > 1:
                        bad.append(f"records from {len(with_records)} partitions "
                                   f"{[p for p, _ in with_records]}")
                    if total > fetch_max:
                        bad.append(f"{total} record bytes, fetch.max.bytes {fetch_max}")
                    if any(e != kw.UNKNOWN_SERVER_ERROR for e in errors):
                        bad.append(f"errors {errors}")
                    for p, rec in with_records:
                        bs = kw.batches(rec)
                        if not bs or bs[0][0] != 0:
                            bad.append(f"cold-{p}: batches {[b[0] for b in bs][:3]}, expected "
                                       "the first at offset 0")
                            continue
                        for base, _, batch in bs:
                            vs = kw.batch_values(batch)
                            if vs != produced[p][base:base + len(vs)]:
                                bad.append(f"cold-{p}: the batch at {base} differs")
                                break
                    with lock:
                        st["responses"] += 1
                        st["with_records"] += 1 if with_records else 0
                        st["empty"] += 0 if with_records or errors else 1
                        for e in errors:
                            st["errors"][e] = st["errors"].get(e, 0) + 1
                        st["max_records"] = max(st["max_records"], total)
                        st["max_frame"] = max(st["max_frame"], len(frame))
                        st["bytes"] += len(frame)
                        st["records"] += total
                        st["partitions_read"].update(p for p, _ in with_records)
                        st["problems"] += bad[:2]
            except Exception as e:  # reported below
                with lock:
                    st["problems"].append(f"connection {ci}: {e!r}")
            finally:
                c.close()

        ts = [threading.Thread(target=one, args=(i,), daemon=True)
              for i in range(size["remote_conns"])]
        for th in ts:
            th.start()
        for th in ts:
            th.join(size["remote_attack_s"] + 60)
        ctx.alive()
        ctx.note(fetches=st["responses"], with_records=st["with_records"], empty=st["empty"],
                 errors=st["errors"], max_record_bytes=st["max_records"],
                 max_frame_bytes=st["max_frame"], fetch_max_bytes=fetch_max,
                 response_mib=round(st["bytes"] / MIB, 1),
                 partitions_read=sorted(st["partitions_read"]))
        check(not st["problems"], f"{len(st['problems'])} bad responses, e.g. "
                                  f"{st['problems'][:3]}")
        check(st["with_records"] > 0, "no fetch got records from remote storage")

    def after():
        for p in range(parts):
            got, _ = read_partition(ctx.broker.bootstrap, "cold", p, until=len(produced[p]),
                                    timeout=120)
            bad = [o for o, v in enumerate(produced[p]) if got.get(o) != v]
            check(not bad, f"cold-{p} after restart: {len(bad)} of {len(produced[p])} records "
                           f"differ or are missing, e.g. offsets {bad[:3]}")

    ctx.after_restart.append(after)
    try:
        run_with_honest(ctx, overrides, attack, prepare,
                        growth_bound=lambda st: (2 * size["remote_conns"] + 10) * fetch_max
                        + 48 * MIB, attack_timeout=size["remote_attack_s"] + 120)
    finally:
        store.kill()


# ---------------------------------------------------------------------------------------------
# 13. the HTTP listener (/metrics and the console) attacked

def http_status(port, raw, timeout=10):
    """Sends `raw` bytes to the HTTP listener; the status code of the answer (0: none)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(raw)
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return 0
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


@case
def http_listener(ctx):
    """The HTTP listener (`http.listener`: /metrics and the web console) under slow clients
    (`http_slow_conns` sending a request line one byte every half second), garbage
    (`http_garbage_conns` connections of random bytes), oversized requests and heavy scrapers
    of /metrics and the console's JSON, for `http_s` seconds: the Kafka listener's honest client
    is unaffected, the broker's memory stays bounded, every refusal is the right status, and
    /metrics answers once the attackers leave."""
    size = ctx.size
    http_port = free_port()

    refusals = [
        (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 405),
        (b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404),
        (b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        # A body past the limit (64 KiB) is refused unread. (A GET's body is never read.)
        (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n"
         + b"x" * 1000, 413),
        (b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200)]

    def check_refusals(when, allow_busy):
        got = [(raw[:24], http_status(http_port, raw), want) for raw, want in refusals]
        wrong = [g for g in got if g[1] != g[2] and not (allow_busy and g[1] == 0)]
        check(not wrong, f"{when}: wrong statuses (request, got, expected): {wrong}")

    def attack(ctx, st):
        import random
        rng = random.Random(7)
        check_refusals("before the attack", allow_busy=False)
        slow = []
        for _ in range(size["http_slow_conns"]):
            try:
                slow.append(socket.create_connection(("127.0.0.1", http_port), timeout=5))
            except OSError:
                break
        ctx.note(http_slow_connections=len(slow))
        line = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 4000
        stop = time.time() + size["http_s"]
        scraped = [0]

        def scrape_loop():
            while time.time() < stop:
                for path in (b"/metrics", b"/api/partition?topic=honest&partition=0",
                             b"/api/topics", b"/topics"):
                    code = http_status(http_port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n"
                                       b"Connection: close\r\n\r\n", timeout=2)
                    if code == 200:
                        scraped[0] += 1

        def garbage_loop():
            n = 0
            while time.time() < stop and n < size["http_garbage_conns"]:
                try:
                    with socket.create_connection(("127.0.0.1", http_port), timeout=2) as g:
                        g.sendall(rng.randbytes(rng.randint(1, 20000)))
                    n += 1
                except OSError:
                    time.sleep(0.05)
            st["garbage"] = n
        helpers = [threading.Thread(target=scrape_loop, daemon=True)
                   for _ in range(size["http_scrapers"])]
        helpers.append(threading.Thread(target=garbage_loop, daemon=True))
        for t in helpers:
            t.start()
        pos = 0
        while time.time() < stop:
            for c in slow:
                try:
                    c.send(line[pos:pos + 1])
                except OSError:
                    pass
            pos = min(pos + 1, len(line) - 1)
            ctx.alive()
            time.sleep(0.5)
        for t in helpers:
            t.join(30)
        for c in slow:
            c.close()
        ctx.note(http_garbage_connections=st.get("garbage", 0), http_good_scrapes=scraped[0])
        # The attackers gone, the listener serves again, and refuses as before.
        deadline = time.time() + 30
        while http_status(http_port, refusals[-1][0], timeout=2) != 200:
            check(time.time() < deadline, "/metrics does not answer after the attack")
            time.sleep(0.5)
        check_refusals("after the attack", allow_busy=False)

    run_with_honest(ctx, [f"http.listener=127.0.0.1:{http_port}"], attack,
                    growth_bound=lambda st: 64 * MIB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seglog")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--size", choices=sorted(SIZES), default="ci")
    ap.add_argument("--rss-bound-mib", type=float, default=512)
    ap.add_argument("--p99-factor", type=float, default=5.0)
    ap.add_argument("--p99-floor-ms", type=float, default=20.0)
    ap.add_argument("--decode-factor", type=float, default=6.0,
                    help="fetch_many_topics: most the broker's memory may grow per wire byte")
    args = ap.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    if args.case not in CASES or not args.seglog:
        ap.error(f"--seglog and --case (one of {', '.join(CASES)}) are required")
    ctx = Ctx(args, args.case)
    started = time.time()
    print(f"{args.case}: size {args.size}, RSS bound {args.rss_bound_mib} MiB, p99 factor "
          f"{args.p99_factor} (floor {args.p99_floor_ms} ms)", flush=True)
    try:
        CASES[args.case](ctx)
        print(f"{args.case}: passed in {time.time() - started:.1f}s")
        ctx.ws.cleanup()
        return 0
    except Exception as e:  # a Failure, or a client library's own error
        print(f"{args.case}: FAILED: {type(e).__name__}: {e}")
        if ctx.broker is not None:
            print(f"broker log ({ctx.broker.log_path}):\n{ctx.broker.log()[-3000:]}")
        return 1
    finally:
        ctx.cleanup()


if __name__ == "__main__":
    sys.exit(main())
