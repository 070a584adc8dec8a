#!/usr/bin/env python3
"""bench/compare/tls: `seglog serve` and Apache Kafka 4.4.0 with TLS on both sides.

Both brokers run one SASL_SSL listener (SCRAM-SHA-512 and PLAIN, a PEM key store made here with
openssl) on 127.0.0.1; Kafka also has its PLAINTEXT CONTROLLER listener. Per broker, alternating
seglog, Kafka, seglog, Kafka ... for --rounds:

  produce   Kafka's ProducerPerformance over SASL_SSL/SCRAM-SHA-512: --records 1 KiB records,
            acks=1, into a fresh 1-partition topic; MB/s, and the broker's CPU-seconds per MB
            (utime+stime of /proc/<pid>/stat around the run).
  consume   Kafka's ConsumerPerformance reading that topic back: MB/s and CPU-seconds per MB.
  connect   new authenticated connections per second: --conn-threads Python threads, each in a
            loop opening a TCP connection, a TLS handshake (TLS 1.3, certificate verified), a
            SaslHandshake v1 and SCRAM-SHA-512's two SaslAuthenticate round trips, then closing,
            for --conn-seconds; the broker's CPU-milliseconds per connection. The same client
            loads both brokers, so its own cost is the same on both sides.

  bench/compare/tls/tls_compare.py [--records 200000] [--rounds 3] [--conn-seconds 10]

Writes bench/results/tls_compare.json and prints a markdown table (medians over the rounds).
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "bench", "compare", "broker"))
import broker_compare as bc  # noqa: E402

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="admin" password="admin-secret" user_admin="admin-secret";')
SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=300, **kw)


def make_certs(d):
    os.makedirs(d, exist_ok=True)
    ca_key, ca = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
    sh("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
       "-keyout", ca_key, "-out", ca, "-subj", "/CN=bench-ca", "-days", "2")
    key, csr, crt = (os.path.join(d, n) for n in ("server.key", "server.csr", "server.crt"))
    sh("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
       "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    ext = os.path.join(d, "ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    sh("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
       "-out", crt, "-days", "2", "-extfile", ext)
    pem = os.path.join(d, "server.pem")
    with open(pem, "w") as f:
        f.write(open(key).read() + open(crt).read())
    return ca, pem


def security_props(pem, ca):
    return {
        "sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
        "ssl.keystore.type": "PEM", "ssl.keystore.location": pem,
        "ssl.truststore.type": "PEM", "ssl.truststore.location": ca,
    }


class SeglogTls(bc.SeglogBroker):
    def __init__(self, binary, workdir, props):
        super().__init__(binary, workdir)
        self.props = props

    def start(self, timeout=30):
        os.makedirs(self.workdir, exist_ok=True)
        args = [self.binary, "serve", "--log-dir", self.data, "--override",
                f"listeners=SASL_SSL://127.0.0.1:{self.port}"]
        for k, v in self.props.items():
            args += ["--override", f"{k}={v}"]
        with open(os.path.join(self.workdir, "serve.log"), "w") as out:
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise bc.BenchError(f"seglog exited; see {self.workdir}/serve.log")
            if bc.listening(self.port):
                return
            time.sleep(0.1)
        raise bc.BenchError("seglog not listening")


class KafkaTls(bc.KafkaBroker):
    def __init__(self, cp, workdir, props):
        super().__init__(cp, workdir)
        self.props = props

    def _write_config(self):
        super()._write_config()
        path = os.path.join(self.workdir, "server.properties")
        text = open(path).read()
        text = text.replace(f"listeners=PLAINTEXT://127.0.0.1:{self.port},",
                            f"listeners=SASL_SSL://127.0.0.1:{self.port},")
        text = text.replace(f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                            f"advertised.listeners=SASL_SSL://127.0.0.1:{self.port}")
        text = text.replace("inter.broker.listener.name=PLAINTEXT",
                            "inter.broker.listener.name=SASL_SSL\n"
                            "sasl.mechanism.inter.broker.protocol=PLAIN")
        text = text.replace("listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL")
        text += "".join(f"{k}={v}\n" for k, v in self.props.items())
        with open(path, "w") as f:
            f.write(text)


def client_props(path, ca, user, mechanism, password):
    module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
              else "org.apache.kafka.common.security.scram.ScramLoginModule")
    with open(path, "w") as f:
        f.write(f"security.protocol=SASL_SSL\nsasl.mechanism={mechanism}\n"
                f'sasl.jaas.config={module} required username="{user}" password="{password}";\n'
                f"ssl.truststore.type=PEM\nssl.truststore.location={ca}\n")
    return path


def kafka_tool(cls, *args, timeout=600):
    return subprocess.run([bc.ORACLE, "kafka-class", cls, *args], capture_output=True, text=True,
                          timeout=timeout)


# ---- A SCRAM-SHA-512 client over TLS, for the connection rate ----

def frame(api_key, version, corr, body):
    header = struct.pack(">hhih", api_key, version, corr, 5) + b"bench"
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def read_frame(s):
    def exact(n):
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
        return buf
    n = struct.unpack(">i", exact(4))[0]
    return exact(n)


def scram_connect(port, ctx, user, password, salted_cache):
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    s = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
    try:
        mech = b"SCRAM-SHA-512"
        s.sendall(frame(17, 1, 1, struct.pack(">h", len(mech)) + mech))
        r = read_frame(s)
        if struct.unpack(">h", r[4:6])[0] != 0:
            raise RuntimeError("handshake refused")
        cnonce = secrets.token_urlsafe(18)
        first_bare = f"n={user},r={cnonce}"
        msg = ("n,," + first_bare).encode()
        s.sendall(frame(36, 1, 2, struct.pack(">i", len(msg)) + msg))
        r = read_frame(s)
        err = struct.unpack(">h", r[4:6])[0]
        mlen = struct.unpack(">h", r[6:8])[0]
        at = 8 + max(mlen, 0)
        blen = struct.unpack(">i", r[at:at + 4])[0]
        server_first = r[at + 4:at + 4 + blen].decode()
        if err != 0:
            raise RuntimeError("first step refused")
        attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
        key = (attrs["s"], attrs["i"])
        salted = salted_cache.get(key)
        if salted is None:
            salted = hashlib.pbkdf2_hmac("sha512", password.encode(), base64.b64decode(attrs["s"]),
                                         int(attrs["i"]))
            salted_cache[key] = salted
        without_proof = f"c=biws,r={attrs['r']}"
        auth_message = f"{first_bare},{server_first},{without_proof}".encode()
        client_key = hmac.new(salted, b"Client Key", hashlib.sha512).digest()
        stored = hashlib.sha512(client_key).digest()
        sig = hmac.new(stored, auth_message, hashlib.sha512).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        final = f"{without_proof},p={base64.b64encode(proof).decode()}".encode()
        s.sendall(frame(36, 1, 3, struct.pack(">i", len(final)) + final))
        r = read_frame(s)
        if struct.unpack(">h", r[4:6])[0] != 0:
            raise RuntimeError("final step refused")
    finally:
        s.close()


def connection_rate(broker, ca, seconds, threads):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    counts = [0] * threads
    errors = []
    stop = time.monotonic() + seconds

    def loop(i):
        cache = {}
        while time.monotonic() < stop:
            try:
                scram_connect(broker.port, ctx, "bench", "bench-secret", cache)
                counts[i] += 1
            except Exception as e:  # noqa: BLE001 - counted, the rate is reported with it
                errors.append(str(e))
                if len(errors) > 100:
                    return
    cpu0 = bc.proc_cpu_s(broker.pid)
    ts = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join(seconds + 60)
    wall = time.monotonic() - t0
    cpu = bc.proc_cpu_s(broker.pid) - cpu0
    n = sum(counts)
    if errors and n == 0:
        raise bc.BenchError(f"no connection succeeded: {errors[:3]}")
    return {"connections": n, "per_s": round(n / wall, 1), "errors": len(errors),
            "broker_cpu_ms_per_conn": round(cpu * 1000 / max(n, 1), 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--conn-seconds", type=float, default=10)
    ap.add_argument("--conn-threads", type=int, default=4)
    ap.add_argument("--seglog", default=os.path.join(ROOT, "build/release/cli/seglog"))
    ap.add_argument("--work-dir", default="/tmp/seglog-tls-compare")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/tls_compare.json"))
    args = ap.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    ca, pem = make_certs(os.path.join(args.work_dir, "certs"))
    props = security_props(pem, ca)
    cp = subprocess.run([bc.ORACLE, "classpath"], capture_output=True, text=True,
                        timeout=900).stdout.strip().splitlines()[-1]
    brokers = {"seglog": SeglogTls(args.seglog, os.path.join(args.work_dir, "seglog"), props),
               "kafka": KafkaTls(cp, os.path.join(args.work_dir, "kafka"), props)}
    results = {name: [] for name in brokers}
    try:
        for b in brokers.values():
            b.start()
        admin = client_props(os.path.join(args.work_dir, "admin.properties"), ca, "admin",
                             "PLAIN", "admin-secret")
        bench = client_props(os.path.join(args.work_dir, "bench.properties"), ca, "bench",
                             "SCRAM-SHA-512", "bench-secret")
        for name, b in brokers.items():
            p = kafka_tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                           b.bootstrap, "--command-config", admin, "--alter", "--add-config",
                           "SCRAM-SHA-512=[password=bench-secret]", "--entity-type", "users",
                           "--entity-name", "bench")
            if "Completed updating config" not in p.stdout:
                raise bc.BenchError(f"{name}: user not created: {p.stdout}{p.stderr}")
        others = {"seglog": brokers["kafka"], "kafka": brokers["seglog"]}
        for rnd in range(args.rounds + 1):  # round 0 warms both up and is not counted
            for name, b in brokers.items():
                topic = f"tls-{rnd}"
                kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
                           b.bootstrap, "--command-config", admin, "--create", "--topic", topic,
                           "--partitions", "1")
                records = args.records if rnd else max(args.records // 10, 1000)
                out = os.path.join(args.work_dir, f"{name}-{rnd}")
                text, res = bc.measured_run(
                    ["java", *bc.CLIENT_HEAP, f"-Dlog4j2.configurationFile={bc.TOOLS_LOG4J}",
                     "-cp", cp, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                     "--num-records", str(records), "--record-size", "1024", "--throughput", "-1",
                     "--producer.config", bench, "--producer-props", f"bootstrap.servers={b.bootstrap}",
                     "acks=1"], b, others[name], 900, out + ".produce")
                prod = bc.parse_producer(text)
                mb = records * 1024 / bc.MiB
                text, cres = bc.measured_run(
                    ["java", *bc.CLIENT_HEAP, f"-Dlog4j2.configurationFile={bc.TOOLS_LOG4J}",
                     "-cp", cp, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                     b.bootstrap, "--topic", topic, "--num-records", str(records),
                     "--command-config", bench, "--timeout", "60000"],
                    b, others[name], 900, out + ".consume")
                cons = bc.parse_consumer(text)
                conn = connection_rate(b, ca, args.conn_seconds if rnd else 2, args.conn_threads)
                if rnd == 0:
                    continue
                row = {"produce_mb_per_s": prod["mb_per_s"],
                       "produce_cpu_s_per_mb": round(res["broker_cpu_s"] / mb, 4),
                       "consume_mb_per_s": cons["mb_per_s"],
                       "consume_cpu_s_per_mb": round(cres["broker_cpu_s"] / mb, 4),
                       "connections_per_s": conn["per_s"],
                       "cpu_ms_per_connection": conn["broker_cpu_ms_per_conn"],
                       "connection_errors": conn["errors"],
                       "broker_rss_max_mib": max(res["broker_rss_max_mib"], cres["broker_rss_max_mib"])}
                results[name].append(row)
                bc.log(f"round {rnd} {name}: {row}")
    finally:
        for b in brokers.values():
            try:
                b.stop()
            except Exception as e:  # noqa: BLE001
                print(f"stop: {e}", file=sys.stderr)
    med = {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]}
           for name, rows in results.items()}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"args": vars(args), "machine": bc.machine(), "runs": results, "medians": med},
                  f, indent=2)
    keys = list(med["seglog"])
    print("| metric | seglog | Kafka 4.4.0 |\n|---|---|---|")
    for k in keys:
        print(f"| {k} | {med['seglog'][k]} | {med['kafka'][k]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
