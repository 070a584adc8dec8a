#!/usr/bin/env python3
"""A share group (KIP-932) and a streams group (KIP-1071) change hands with their directory:
`seglog serve`, then Apache Kafka 4.4.0 (combined mode), then seglog again, on ONE log
directory with ONE server.properties (kraft_takeover_check.py's, which already names
share.coordinator.state.topic.replication.factor/min.isr 1; a new directory gets share.version
2 and streams.version 1 from seglog's bootstrap snapshot, which is all Kafka 4.4.0 needs to
serve both group types). ctest interop.share_streams_takeover, label `interop` (issue 31 item 3).

    group_takeover_check.py [--seglog build/release/cli/seglog] [--keep] [--timeout 600]

Phases S1 -> K1 -> S2, each ended by SIGTERM and a clean shutdown.

Share group `sg` on `shared` (2 partitions). Record i (one per index, produced by the test in
order, to partition i % 2) has the value "<kind>-<i>": rej if i % 11 == 5, rel if i % 7 == 3,
acc otherwise. S1 sets the group configs share.auto.offset.reset=earliest and
share.delivery.count.limit=10 (kafka-configs --entity-type groups) before the first member.
Each phase produces the indexes [FRESH, END) of its row of PHASES, then one KafkaShareConsumer
(move/src/GroupTakeoverClient.java, explicit acknowledgement) acknowledges what it is given:
RELEASE for i >= UPTO, REJECT for rej, RELEASE for rel produced in this phase (i >= FRESH),
ACCEPT otherwise, and stops once it has been given every record the test's model says is not
finished (accepted or rejected by an earlier phase, or any program). The checks:
  * the records given are exactly the unfinished ones (no accepted or rejected record comes
    back, none unfinished is missing), and a record released in an earlier phase comes back
    with a delivery count above the one it had then (the counts were kept);
  * kafka-share-groups --describe --offsets (Kafka's ShareGroupCommand) prints, for each
    partition, the lag the model predicts (the unfinished records) and a start offset at or
    below the model's (the offset of the lowest unfinished record, else the end) with every
    record in between finished (Kafka 4.4.0 persists the start offset it had before the
    acknowledgements of the same write, so the persisted one may trail), and the program that
    takes over prints the same table as the one before it printed last;
  * kafka-share-groups --describe --state --verbose (state, group epoch, assignment epoch) and
    kafka-configs --describe of the group (with synonyms) print the same on each program.
The last phase ends with one more member that accepts everything: then nothing is left and both
partitions' start offsets are their ends.

Streams group `wc` (move's WordCount: tests/clients/java/streams/WordCountEos.java,
exactly_once_v2, a repartition topic and a changelog, group.protocol=streams). Each phase
starts an instance, produces its share of random lines to `wc-in`, waits until every word's
latest count in `wc-out` (read_committed) equals its count in all lines produced so far, and
closes the instance: counts that survive the switch exactly mean the group's committed offsets
and its changelog did (a lost offset recounts from the start, a lost store restarts at 1).
kafka-streams-groups --describe --state (StreamsGroupCommand) shows the group Stable with the
instance while it runs. After a switch, the admin client's DescribeStreamsGroups (epochs,
subtopologies) and ListStreamsGroupOffsets, and kafka-streams-groups --describe --state
--verbose, give what the program before gave last, but for the internal topics' partition
counts in the topology: Kafka describes the topology as configured at the last heartbeat (2)
and, before any heartbeat since its load, as the client sent it (0), and so must seglog.

After each stop, Kafka's DumpLogSegments decodes every record of __consumer_offsets
(--offsets-decoder) and __share_group_state (--share-group-state-decoder), the share group's
record types 10-15 and the streams group's 17, 19-23 among them.

After each start, and over its whole run at the stop: no ERROR in the program's log (Kafka:
but its own controller-registration race, kraft_takeover_check.kafka_race), and no Kafka WARN
naming the share state topic, __consumer_offsets or the groups. Prints
`group_takeover_check: passed`. The work directory is kept when the check fails (or --keep).
"""

import argparse
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kraft_takeover_check import (KafkaNode, SeglogNode, kafka_race,  # noqa: E402
                                  server_properties)
from mirrormaker_check import CLIENT_HEAP, ORACLE, ROOT, TOOLS_LOG4J, Failure, check, log  # noqa: E402
from harness import free_port, java_streams_helper  # noqa: E402

SHARE_TOPIC, SHARE_GROUP, PARTITIONS = "shared", "sg", 2
STREAMS_APP, WC_IN, WC_OUT = "wc", "wc-in", "wc-out"
# (name, program, FRESH, UPTO, END): the phase produces indexes [FRESH, END), its member
# releases every i >= UPTO.
PHASES = [("S1", "seglog", 0, 30, 40), ("K1", "kafka", 40, 50, 60), ("S2", "seglog", 60, 80, 80)]
GROUP_CONFIGS = "share.auto.offset.reset=earliest,share.delivery.count.limit=10"
LINES_PER_PHASE = 120
SG = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
STREAMS_GROUPS = "org.apache.kafka.tools.streams.StreamsGroupCommand"


def kind(i):
    return "rej" if i % 11 == 5 else "rel" if i % 7 == 3 else "acc"


def tool(cls, *args, timeout=120, input=None):
    p = subprocess.run([ORACLE, "kafka-class", cls, *args], capture_output=True, text=True,
                       timeout=timeout, input=input)
    return p


class Check:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.data = os.path.join(work, "data")
        port, cport = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{port}"
        text = server_properties(self.data, port, cport)
        self.config = os.path.join(work, "server.properties")
        with open(self.config, "w") as f:
            f.write(text)
        self.cp = subprocess.run([ORACLE, "mirror-classpath"], capture_output=True, text=True,
                                 timeout=900).stdout.strip().splitlines()[-1]
        self.seglog = SeglogNode(os.path.abspath(args.seglog), self.data, port, self.config)
        self.kafka = KafkaNode(self.cp, os.path.join(work, "kafka"), self.data, port, cport, text)
        self.where = {}       # index -> (partition, offset)
        self.finished = set()  # indexes accepted or rejected
        self.counts = {}      # index -> highest delivery count seen
        self.end = {p: 0 for p in range(PARTITIONS)}
        self.lines = []
        self.rng = random.Random(31)
        self.vocabulary = [f"w{i:02d}" for i in range(25)]
        self.apps = []

    # -- clients ---------------------------------------------------------------------------
    def client(self, *args, timeout=180, input=None):
        p = subprocess.run(["java", CLIENT_HEAP, f"-Dlog4j2.configurationFile={TOOLS_LOG4J}",
                            "-cp", self.cp, "GroupTakeoverClient", *map(str, args)],
                           capture_output=True, text=True, timeout=timeout, input=input)
        check(p.returncode == 0, f"GroupTakeoverClient {args[0]} exited {p.returncode}:\n"
              f"{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
        return p.stdout.splitlines()

    def produce(self, fresh, end):
        for line in self.client("produce", self.bootstrap, SHARE_TOPIC, PARTITIONS, fresh, end):
            if line.startswith("produced "):
                _, i, p, o, _v = line.split()
                i, p, o = int(i), int(p), int(o)
                check(o == self.end[p], f"record {i} went to {p}:{o}, not {p}:{self.end[p]}")
                self.where[i] = (p, o)
                self.end[p] = o + 1
        check(all(i in self.where for i in range(fresh, end)), "not every record was produced")

    def unfinished(self):
        return sorted(i for i in self.where if i not in self.finished)

    def share_round(self, who, fresh, upto):
        want = self.unfinished()
        expected = ",".join(f"{self.where[i][0]}:{self.where[i][1]}" for i in want) or "-"
        out = self.client("share", self.bootstrap, SHARE_GROUP, SHARE_TOPIC, fresh, upto, 150,
                          expected, timeout=240)
        check(out and out[-1] == "done",
              f"{who}: the share member was not given every unfinished record within 150 s "
              f"(want {len(want)}):\n" + "\n".join(out[-15:]))
        by_offset = {(p, o): i for i, (p, o) in self.where.items()}
        given = {}
        for line in out:
            if not line.startswith("ack "):
                continue
            _, p, o, value, typ, count = line.split()
            i = by_offset.get((int(p), int(o)))
            check(i is not None and value == f"{kind(i)}-{i}",
                  f"{who}: record {p}:{o} has value {value}, not record {i}'s")
            check(i not in self.finished,
                  f"{who}: record {i} ({p}:{o}), finished before, was given again ({typ})")
            count = int(count)
            if i in self.counts:
                check(count > self.counts[i],
                      f"{who}: record {i} came back with delivery count {count}; it had been "
                      f"delivered {self.counts[i]} time(s)")
            given.setdefault(i, []).append(typ)
            self.counts[i] = max(self.counts.get(i, 0), count)
        check(sorted(given) == want,
              f"{who}: the member was given records {sorted(given)}, not the unfinished "
              f"{want}")
        for i, types in given.items():
            if "ACCEPT" in types or "REJECT" in types:
                self.finished.add(i)
        log(f"{who}: the share member was given {len(given)} records "
            f"({sum(len(t) for t in given.values())} deliveries), {len(self.unfinished())} "
            f"left unfinished")

    def model_offsets(self):
        rows = {}
        for p in range(PARTITIONS):
            left = sorted(o for i, (q, o) in self.where.items() if q == p and i not in
                          self.finished)
            rows[p] = (left[0] if left else self.end[p], len(left))
        return rows

    def share_offsets(self, who):
        p = tool(SG, "--bootstrap-server", self.bootstrap, "--describe", "--offsets", "--group",
                 SHARE_GROUP)
        rows = re.findall(rf"^{SHARE_GROUP}\s+{SHARE_TOPIC}\s+(\d+)\s+(\S+)\s+(\S+)\s*$",
                          p.stdout, re.M)
        check(all(start.isdigit() and lag.isdigit() for _, start, lag in rows),
              f"{who}: kafka-share-groups --describe --offsets has a partition without a start "
              f"offset or lag:\n{p.stdout}{p.stderr[-1500:]}")
        got = {int(part): (int(start), int(lag)) for part, start, lag in rows}
        model = self.model_offsets()
        check(sorted(got) == sorted(model), f"{who}: kafka-share-groups --describe --offsets "
              f"lists partitions {sorted(got)}:\n{p.stdout}{p.stderr[-1500:]}")
        for part, (start, lag) in got.items():
            want_start, want_lag = model[part]
            # The persisted start offset may trail the share partition's: Kafka 4.4.0 writes the
            # start offset it had before applying the acknowledgements it writes (it moves on
            # at its next write). Every record from there to the model's start is finished, so
            # the lag (end - start - delivery complete count) is exact all the same.
            finished = {o for i, (q, o) in self.where.items() if q == part and i in self.finished}
            check(start <= want_start and all(o in finished for o in range(start, want_start))
                  and lag == want_lag,
                  f"{who}: kafka-share-groups --describe --offsets gives partition {part} start "
                  f"offset {start} lag {lag}; the model's start offset is {want_start} (offsets "
                  f"below it from {start} finished) and lag {want_lag}:\n{p.stdout}")
        return sorted(rows)

    def share_state(self, who):
        """kafka-share-groups --describe --state --verbose: the group's line (coordinator,
        state, group epoch, assignment epoch, members), compared between programs."""
        p = tool(SG, "--bootstrap-server", self.bootstrap, "--describe", "--state", "--verbose",
                 "--group", SHARE_GROUP)
        rows = re.findall(rf"^{SHARE_GROUP}\s+127\.0\.0\.1:\d+\s+\(1\)\s+Empty\s+\d+\s+\d+\s+0\s*$",
                          p.stdout, re.M)
        check(len(rows) == 1, f"{who}: kafka-share-groups --describe --state --verbose:\n"
              f"{p.stdout}{p.stderr[-1500:]}")
        return rows[0].split()

    def group_configs(self, who):
        p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", self.bootstrap,
                 "--entity-type", "groups", "--entity-name", SHARE_GROUP, "--describe")
        lines = sorted(l.strip() for l in p.stdout.splitlines() if l.startswith("  "))
        configs = [tuple(l.split()[0].split("=", 1)) for l in lines]
        check(configs == [("share.auto.offset.reset", "earliest"),
                          ("share.delivery.count.limit", "10")],
              f"{who}: the group's configs: {p.stdout}{p.stderr[-1500:]}")
        configs = lines  # with their synonyms, compared between the programs
        return configs

    # -- streams ---------------------------------------------------------------------------
    def totals(self):
        counts = {}
        for line in self.lines:
            for w in line.split():
                counts[w] = counts.get(w, 0) + 1
        return counts

    def latest(self):
        out = self.client("counts", self.bootstrap, WC_OUT)
        return {l.split()[1]: int(l.split()[2]) for l in out if l.startswith("count ")}

    def streams_phase(self, who, n):
        app = StreamsApp(os.path.join(self.work, f"wc-{who}.out"), java_streams_helper(
            "WordCountEos", self.bootstrap, STREAMS_APP, WC_IN, WC_OUT,
            os.path.join(self.work, f"streams-state-{who}"), "--prop", "group.protocol=streams"))
        self.apps.append(app)
        try:
            app.wait_line(" RUNNING", 150, f"{who}: the streams instance RUNNING")
            new = [" ".join(self.rng.choice(self.vocabulary)
                            for _ in range(self.rng.randrange(1, 6)))
                   for _ in range(LINES_PER_PHASE)]
            out = self.client("lines", self.bootstrap, WC_IN, input="".join(x + "\n" for x in new))
            check(out[-1] == f"produced {len(new)}", f"{who}: lines: {out[-3:]}")
            self.lines += new
            want = self.totals()
            deadline = time.time() + 150
            while True:
                got = self.latest()
                if got == want:
                    break
                check(time.time() < deadline and app.proc.poll() is None,
                      f"{who}: the word counts are not the input's within 150 s: "
                      f"{[(w, got.get(w), want[w]) for w in sorted(want) if got.get(w) != want[w]][:6]}"
                      f"\n{app.tail()}")
                time.sleep(2)
            state = self.state()
            check(re.search(rf"^{STREAMS_APP}\s+127\.0\.0\.1:\d+ \(1\)\s+sticky\s+Stable\s+1\s*$", state, re.M),
                  f"{who}: kafka-streams-groups --describe --state does not show {STREAMS_APP} "
                  f"Stable:\n{state}")
        finally:
            app.close(60)
        errors = [l for l in app.lines() if l.startswith("error")]
        check(not errors, f"{who}: stream thread errors: {errors[:3]}")
        check("closed true" in app.lines(), f"{who}: the instance did not close: {app.tail()}")
        log(f"{who}: the streams group counted {len(self.lines)} lines exactly "
            f"({sum(self.totals().values())} words)")

    def state(self, verbose=False):
        p = tool(STREAMS_GROUPS, "--bootstrap-server", self.bootstrap, "--describe", "--state",
                 *(["--verbose"] if verbose else []), "--group", STREAMS_APP)
        return p.stdout

    def streams_offsets(self, who, at_start):
        """The group as the admin client and kafka-streams-groups --describe --state --verbose
        show it (its epochs, subtopologies and committed offsets): compared between programs."""
        out = self.client("streams-group", self.bootstrap, STREAMS_APP)
        offsets = [l for l in out if l.startswith("offset ")]
        topics = {l.split()[1] for l in offsets}
        check(WC_IN in topics and any(t.endswith("-repartition") for t in topics),
              f"{who}: the streams group's committed offsets: {offsets}")
        state = self.state(verbose=True)
        check(re.search(rf"^{STREAMS_APP}\s+127\.0\.0\.1:\d+ \(1\)\s+sticky\s+Empty\s+\d+\s+"
                        rf"\d+\s+0\s*$", state, re.M),
              f"{who}: kafka-streams-groups --describe --state --verbose:\n{state}")
        # The internal topics' partition counts: Kafka describes the topology as configured at
        # the last heartbeat (2, the source topic's), and before any heartbeat since its load
        # the topology as the client sent it (0: derived ones). Compared apart from the rest.
        described = " ".join(l for l in out if l.startswith("describe "))
        counts = sorted(set(re.findall(r"TopicInfo\(partitions=(\d+)", described)))
        want = ["0"] if at_start else [str(PARTITIONS)]
        check(counts == want, f"{who}: the internal topics' partitions in the described "
              f"topology are {counts}, not {want} ({'no' if at_start else 'a'} heartbeat since "
              f"the load):\n{described}")
        return [re.sub(r"TopicInfo\(partitions=\d+", "TopicInfo(partitions=?", l) for l in out] \
            + state.splitlines()

    def dump_internal_topics(self, who):
        """Kafka's DumpLogSegments decodes every record of __consumer_offsets
        (--offsets-decoder) and __share_group_state (--share-group-state-decoder) in D; the
        groups' records are there with the record types of their kinds."""
        types = {}
        for topic, decoder in (("__consumer_offsets", "--offsets-decoder"),
                               ("__share_group_state", "--share-group-state-decoder")):
            files = sorted(f for f in glob.glob(os.path.join(self.data, f"{topic}-*", "*.log"))
                           if os.path.getsize(f) > 0)
            check(files, f"{who}: no {topic} records in D")
            p = subprocess.run([ORACLE, "kafka-class", "org.apache.kafka.tools.DumpLogSegments",
                                decoder, "--files", ",".join(files)], capture_output=True,
                               text=True, timeout=180)
            check(p.returncode == 0 and "Exception" not in p.stdout + p.stderr,
                  f"{who}: DumpLogSegments {decoder}:\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
            n = 0
            for line in p.stdout.splitlines():
                if not line.startswith("| offset: ") or " endTxnMarker: " in line:
                    continue  # (markers: the streams app's transactional offset commits)
                m = re.search(r" key: (\{.*\}) payload: (.*)$", line)
                check(m, f"{who}: a {topic} record Kafka does not decode: {line[:400]}")
                key = json.loads(m[1])
                if m[2] != "<DELETE>":
                    json.loads(m[2])
                group = key["data"].get("groupId", key["data"].get("group"))
                types.setdefault((topic, group), set()).add(int(key["type"]))
                n += 1
            check(n > 0, f"{who}: DumpLogSegments printed no {topic} record")
        share = types.get(("__consumer_offsets", SHARE_GROUP), set())
        streams = types.get(("__consumer_offsets", STREAMS_APP), set())
        check({11, 15} <= share <= set(range(10, 16)),
              f"{who}: share group record types in __consumer_offsets: {sorted(share)}")
        check(17 in streams and streams <= {1, 17, 18, 19, 20, 21, 22, 23},
              f"{who}: streams group record types in __consumer_offsets: {sorted(streams)}")
        check(types.get(("__share_group_state", SHARE_GROUP)) == {0, 1},
              f"{who}: __share_group_state record types: {types}")
        log(f"{who}: DumpLogSegments decodes __consumer_offsets and __share_group_state "
            f"(share group types {sorted(share)}, streams group types {sorted(streams)})")

    # -- logs ------------------------------------------------------------------------------
    def check_log(self, who, text, kafka):
        names = ("__share_group_state", "__consumer_offsets", SHARE_GROUP, SHARE_TOPIC,
                 STREAMS_APP, "share", "streams", "Share", "Streams")
        bad = []
        for line in text.splitlines():
            if "] ERROR " in line:
                if not (kafka and kafka_race(line, text)):
                    bad.append(line)
            elif kafka and "] WARN " in line and any(n in line for n in names):
                bad.append(line)
        check(not bad, f"{who}: {len(bad)} bad log lines, e.g.:\n" +
              "\n".join(x[:400] for x in bad[:6]))

    # -- the run ---------------------------------------------------------------------------
    def run(self):
        share_table = streams_table = configs = share_group = None
        for n, (name, program, fresh, upto, end) in enumerate(PHASES):
            kafka = program == "kafka"
            node = self.kafka if kafka else self.seglog
            t0 = time.monotonic()
            if kafka:
                self.kafka.start(timeout=150, format_storage=False)
            else:
                self.seglog.start(timeout=60)
            log(f"{name}: {program} started on D in {time.monotonic() - t0:.1f}s")
            if n == 0:
                for topic in (SHARE_TOPIC, WC_IN, WC_OUT):
                    p = tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
                             self.bootstrap, "--create", "--topic", topic, "--partitions",
                             str(PARTITIONS))
                    check(f"Created topic {topic}." in p.stdout, p.stdout + p.stderr)
                p = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                         self.bootstrap, "--entity-type", "groups", "--entity-name",
                         SHARE_GROUP, "--alter", "--add-config", GROUP_CONFIGS)
                check(p.returncode == 0, f"kafka-configs --alter: {p.stdout}{p.stderr}")
            else:
                # What the program before printed last, printed the same by this one.
                got = self.share_offsets(f"{name} at its start")
                check(got == share_table, f"{name}: kafka-share-groups --describe --offsets "
                      f"prints {got}, the program before printed {share_table}")
                got = self.share_state(f"{name} at its start")
                check(got == share_group, f"{name}: the share group is {got}, the program "
                      f"before showed {share_group}")
                got = self.group_configs(f"{name} at its start")
                check(got == configs, f"{name}: group configs {got}, before {configs}")
                got = self.streams_offsets(f"{name} at its start", True)
                check(got == streams_table, f"{name}: kafka-streams-groups --describe --offsets "
                      f"prints {got}, the program before printed {streams_table}")
                log(f"{name}: both groups' offsets and the group configs are the ones the "
                    f"program before showed")
            self.check_log(f"{name} ({program}) after its start", node.log(), kafka)
            self.produce(fresh, end)
            self.share_round(name, fresh, upto)
            if n == len(PHASES) - 1:
                self.share_round(f"{name} (last member)", end, end)
                check(not self.unfinished(), f"left unfinished: {self.unfinished()}")
            share_table = self.share_offsets(f"{name} before its stop")
            configs = self.group_configs(f"{name} before its stop")
            share_group = self.share_state(f"{name} before its stop")
            self.streams_phase(name, n)
            streams_table = self.streams_offsets(f"{name} before its stop", False)
            log(f"{name}: share offsets {share_table}; streams offsets {len(streams_table)} rows")
            if kafka:
                self.kafka.stop_clean()
            else:
                self.seglog.stop()
            self.check_log(f"{name} ({program}), its whole run", node.log(), kafka)
            self.dump_internal_topics(f"{name} ({program}) after its stop")


class StreamsApp:
    """One WordCountEos JVM: stdout to a file read for its lines; stdin's EOF closes it."""

    def __init__(self, path, cmd):
        self.path = path
        self.out = open(path, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True)

    def lines(self):
        with open(self.path) as f:
            return [l.rstrip("\n") for l in f]

    def tail(self):
        return "\n".join(self.lines()[-8:])

    def wait_line(self, suffix, timeout, what):
        deadline = time.time() + timeout
        while not any(l.startswith("state ") and l.endswith(suffix) for l in self.lines()):
            check(time.time() < deadline and self.proc.poll() is None,
                  f"{what}: not within {timeout}s:\n{self.tail()}")
            time.sleep(0.5)

    def close(self, timeout):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.out.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build", "release", "cli", "seglog"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="seglog-group-takeover-")
    c = Check(args, work)
    ok = False

    def kill_all():
        for app in c.apps:
            if app.proc.poll() is None:
                app.proc.kill()
        for n in (c.seglog, c.kafka):
            try:
                if n.proc is not None:
                    n.proc.kill()
            except Exception:  # noqa: BLE001 - cleanup only
                pass

    def on_timeout():
        print(f"group_takeover_check: FAILED: still running after {args.timeout}s", flush=True)
        kill_all()
        print(f"work directory kept: {work}", flush=True)
        os._exit(1)

    timer = threading.Timer(args.timeout, on_timeout)
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGTERM, lambda *_: on_timeout())
    try:
        c.run()
        ok = True
        print("group_takeover_check: passed")
        return 0
    except Failure as e:
        print(f"group_takeover_check: FAILED: {e}")
        return 1
    except Exception as e:  # noqa: BLE001 - a broken tool output or client: still a failure
        print(f"group_takeover_check: FAILED: {type(e).__name__}: {e}")
        raise
    finally:
        timer.cancel()
        kill_all()
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")


if __name__ == "__main__":
    sys.exit(main())
