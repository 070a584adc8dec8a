"""Shared pieces of the real-client tests: start `seglog serve` on a free loopback port, run
Kafka's Java tools from the cached 4.4.0 jars (and the test's own Java programs in java/,
compiled against them), and judge the partition directories afterwards with `seglog check`
and Kafka's own DumpLogSegments --deep-iteration (and --offsets-decoder for the group
coordinator's __consumer_offsets).

Every server binds 127.0.0.1 only; every wait is bounded.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, "interop", "kafka", "oracle.sh")
JAVA_HELPERS = os.path.join(ROOT, "tests", "clients", "java")
LOG4J_CONF = os.path.join(ROOT, "interop", "kafka", "log4j2.properties")
OFFSETS_TOPIC = "__consumer_offsets"  # the group coordinator's compacted topic
TRANSACTION_STATE_TOPIC = "__transaction_state"  # the transaction coordinator's
# The coordinators' topics, each with the DumpLogSegments option that decodes its records.
COORDINATOR_TOPICS = {OFFSETS_TOPIC: "--offsets-decoder",
                      TRANSACTION_STATE_TOPIC: "--transaction-log-decoder",
                      "__share_group_state": "--share-group-state-decoder"}


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One `seglog serve` process over a data directory of its own."""

    def __init__(self, seglog, data_dir, port=None, overrides=()):
        self.seglog = seglog
        self.data_dir = data_dir
        self.port = port or free_port()
        self.overrides = list(overrides)
        self.proc = None
        self.log_path = os.path.join(os.path.dirname(data_dir), f"serve-{self.port}.log")
        self.starts = 0
        # More log directories after data_dir (log.dirs), when a case needs them.
        self.extra_dirs = []

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=30):
        if self.extra_dirs:
            config = os.path.join(os.path.dirname(self.data_dir), "server.properties")
            with open(config, "w") as f:
                f.write("log.dirs=" + ",".join([self.data_dir, *self.extra_dirs]) + "\n")
            where = ["--server-config", config]
        else:
            where = ["--log-dir", self.data_dir]
        args = [self.seglog, "serve", *where,
                "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "--override", "log.initial.task.delay.ms=1000"]
        for o in self.overrides:
            args += ["--override", o]
        self.starts += 1
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"seglog serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise Failure("seglog serve did not listen within %ds:\n%s" % (timeout, self.log()))

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self, timeout=60):
        """SIGTERM, and a clean shutdown within `timeout`."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure("seglog serve did not stop within %ds of SIGTERM" % timeout)
        self.proc = None
        check(rc == 0, f"seglog serve exited {rc} after SIGTERM:\n{self.log()[-3000:]}")
        check("shut down completed" in self.log(), "no clean shutdown line")

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.proc = None


def run(args, timeout=120, input=None, env=None, ok=True):
    p = subprocess.run(args, input=input, capture_output=True, text=True, timeout=timeout,
                       env=env)
    if ok and p.returncode != 0:
        raise Failure(f"{' '.join(args[:6])} ... exited {p.returncode}:\n{p.stdout[-3000:]}\n"
                      f"{p.stderr[-3000:]}")
    return p


def kafka_tool(cls, *args, timeout=120, input=None, ok=True):
    """One of Kafka 4.4.0's own tools (org.apache.kafka.tools.*) from the cached jars."""
    return run([ORACLE, "kafka-class", cls, *args], timeout=timeout, input=input, ok=ok)


_java_classpath = []


def java_helper(main, *args):
    """The command line of one of tests/clients/java's programs, compiled against the Kafka
    4.4.0 jars on first use (oracle.sh classpath-with caches the classes by content)."""
    if not _java_classpath:
        p = run([ORACLE, "classpath-with", "clients", JAVA_HELPERS], timeout=300)
        _java_classpath.append(p.stdout.strip().splitlines()[-1])
    return ["java", f"-Dlog4j2.configurationFile={LOG4J_CONF}", "-cp", _java_classpath[0], main,
            *args]


def java_streams_helper(main, *args):
    """As java_helper, for tests/clients/java/streams's programs, which need kafka-streams 4.4.0
    (and its rocksdbjni) among the cached jars: interop/kafka/pom.xml must list
    org.apache.kafka:kafka-streams. They are compiled apart from java/'s other programs, so
    that those compile without it."""
    java_helper("GroupMember")  # the classpath, which names the cached lib directory
    lib = next((e[:-2] for e in _java_classpath[0].split(":") if e.endswith("/*")), None)
    jar = os.path.join(lib or "?", "kafka-streams-4.4.0.jar")
    check(lib and os.path.isfile(jar),
          f"{jar} is missing: interop/kafka/pom.xml must list org.apache.kafka:kafka-streams "
          f"(version ${{kafka.version}}) for the Kafka Streams cases")
    if len(_java_classpath) < 2:
        p = run([ORACLE, "classpath-with", "clients-streams", os.path.join(JAVA_HELPERS, "streams")],
                timeout=300)
        _java_classpath.append(p.stdout.strip().splitlines()[-1])
    return ["java", f"-Dlog4j2.configurationFile={LOG4J_CONF}", "-cp", _java_classpath[1], main,
            *args]


def non_consecutive(stderr):
    """DumpLogSegments' "Non-consecutive offsets in <file>" pairs that are gaps. Its Java
    version (Kafka 4.x) starts each file's previous offset at -1, so the first record of a
    segment with a base offset above 0 is always reported as "-1 is followed by <offset>":
    that pair is no gap when the offset is at least the file's base offset."""
    gaps = []
    base = 0
    for line in stderr.splitlines():
        m = re.match(r"Non-consecutive offsets in (.*)$", line)
        if m:
            name = os.path.basename(m[1])
            base = int(name.split(".")[0]) if name.split(".")[0].isdigit() else 0
            continue
        m = re.match(r"\s+(-?\d+) is followed by (-?\d+)$", line)
        if m and not (int(m[1]) == -1 and int(m[2]) >= base):
            gaps.append((int(m[1]), int(m[2])))
    return gaps


def judge_directories(seglog, data_dir, expect_records=None):
    """After a client test: seglog check passes, and Kafka's DumpLogSegments --deep-iteration
    finds every batch of every partition valid with consecutive offsets. The records of the
    coordinators' topics (__consumer_offsets, __transaction_state) are not counted against
    `expect_records`: their non-empty logs are dumped again with --offsets-decoder and
    --transaction-log-decoder, which must decode every record. Nor are the control records
    (the transaction markers) of the other topics: `expect_records` counts data records, those
    of aborted transactions included."""
    p = run([seglog, "check", "--log-dir", data_dir], ok=False)
    check(p.returncode == 0 and " 0 problem(s)" in p.stdout,
          f"seglog check failed:\n{p.stdout}\n{p.stderr}")
    logs = []
    coordinator_logs = {t: [] for t in COORDINATOR_TOPICS}
    for part in sorted(os.listdir(data_dir)):
        d = os.path.join(data_dir, part)
        # Not partitions: deleted logs awaiting removal (a move's abandoned copy may end in a
        # torn batch), copies of a move in progress, stray logs.
        if part.endswith(("-delete", "-future", "-stray")):
            continue
        if os.path.isdir(d):
            files = [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".log")]
            logs += files
            if part.rsplit("-", 1)[0] in coordinator_logs:
                coordinator_logs[part.rsplit("-", 1)[0]] += [f for f in files
                                                             if os.path.getsize(f) > 0]
    total = 0
    markers = 0
    if logs:
        p = kafka_tool("org.apache.kafka.tools.DumpLogSegments", "--files", ",".join(logs),
                       "--deep-iteration")
        batches = len(re.findall(r"^baseOffset:", p.stdout, re.M))
        valid = len(re.findall(r"isvalid: true", p.stdout))
        check(batches == valid, f"DumpLogSegments: {batches} batches, {valid} valid")
        check("invalid bytes" not in p.stdout, "DumpLogSegments found invalid bytes")
        check(not non_consecutive(p.stderr), f"DumpLogSegments: {p.stderr[-2000:]}")
        # One "Dumping <file>" section per log: count the records outside the coordinators'
        # topics and KRaft's metadata log (__cluster_metadata-0: seglog's topics, configs and
        # registrations, not user records), the transaction markers apart.
        for section in re.split(r"^Dumping ", p.stdout, flags=re.M)[1:]:
            part = os.path.basename(os.path.dirname(section.split("\n", 1)[0]))
            topic = part.rsplit("-", 1)[0]
            if topic not in COORDINATOR_TOPICS and topic != "__cluster_metadata":
                rows = re.findall(r"^\| offset:.*$", section, re.M)
                control = sum(1 for r in rows if " endTxnMarker: " in r)
                markers += control
                total += len(rows) - control
    for topic, decoder in COORDINATOR_TOPICS.items():
        if not coordinator_logs[topic]:
            continue
        p = kafka_tool("org.apache.kafka.tools.DumpLogSegments", "--files",
                       ",".join(coordinator_logs[topic]), decoder)
        rows = re.findall(r"^\| offset:.*$", p.stdout, re.M)
        # Transaction markers (COMMIT/ABORT of transactional offset commits) are control
        # records, printed as such rather than decoded.
        bad = [r for r in rows if " endTxnMarker: " not in r
               and not re.search(r' key: \{"type":"\d+","data":\{.* payload: \S', r)]
        check(not bad, f"DumpLogSegments {decoder} did not decode {len(bad)} of "
                       f"{len(rows)} records, e.g. {bad[:2]}")
        extra = ""
        if topic == TRANSACTION_STATE_TOPIC:
            # Which transaction protocol the clients spoke: version 1 values carry the client's
            # transaction version (2: KIP-890 part 2) when it is not 0.
            tv2 = sum(1 for r in rows if '"clientTransactionVersion":2' in r)
            extra = f" ({tv2} written for transaction.version 2 clients)"
        print(f"DumpLogSegments {decoder} decoded all {len(rows)} records of {topic}{extra}")
    if markers:
        print(f"DumpLogSegments found {markers} transaction markers")
    if expect_records is not None:
        check(total == expect_records, f"DumpLogSegments counted {total} records, "
                                       f"expected {expect_records}")
    return total


class Workspace:
    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix=f"seglog-{name}-")
        self.data = os.path.join(self.dir, "data")

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class CaptureProxy:
    """A TCP proxy on 127.0.0.1 in front of a broker that keeps every request frame a client
    sends through it (the 4-byte size prefix removed), for the captured-request round-trip tests.
    Start the broker with advertised.listeners naming the proxy's port, so clients come back
    through it after bootstrap. Each connection is served by two threads that end when either
    side closes; stop() closes the listener and every connection."""

    def __init__(self, target_port):
        import threading
        self.target_port = target_port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.frames = []
        self.lock = threading.Lock()
        self.sockets = []
        self.stopped = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        import threading
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src, dst, requests):
        buf = b""
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                if requests:
                    buf += data
                    while len(buf) >= 4:
                        size = int.from_bytes(buf[:4], "big")
                        if len(buf) < 4 + size:
                            break
                        with self.lock:
                            self.frames.append(buf[4:4 + size])
                        buf = buf[4 + size:]
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def take(self):
        with self.lock:
            frames, self.frames = self.frames, []
        return frames

    def stop(self):
        self.stopped = True
        self.listener.close()
        with self.lock:
            for s in self.sockets:
                try:
                    s.close()
                except OSError:
                    pass


def write_frames(path, frames, per_version=4):
    """Writes request frames as "<api key> <version> <hex of header and body>" lines, at most
    `per_version` of each API version, in API key and version order."""
    kept = {}
    for f in frames:
        if len(f) < 4:
            continue
        key = (int.from_bytes(f[0:2], "big", signed=True), int.from_bytes(f[2:4], "big", signed=True))
        kept.setdefault(key, [])
        if len(kept[key]) < per_version:
            kept[key].append(f)
    with open(path, "w") as out:
        for (api, version), fs in sorted(kept.items()):
            for f in fs:
                out.write(f"{api} {version} {f.hex()}\n")
    return sum(len(v) for v in kept.values())
