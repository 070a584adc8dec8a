"""Security with real clients (issue 28): SASL (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER), TLS and
mutual TLS listeners, each checked by the records that come back.

Registered into client_tests.py's cases; every case starts its own `seglog serve` on free
127.0.0.1 ports. Certificates are made by the test with the openssl command line tool.
"""
import base64
import json
import os
import subprocess
import time

from harness import ORACLE, Failure, check, free_port, kafka_tool, run  # noqa: F401

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="admin" password="admin-secret" user_admin="admin-secret" '
              'user_alice="alice-secret";')


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def openssl(*args):
    return run(["openssl", *args], timeout=60)


class Certs:
    """A CA, a server certificate for 127.0.0.1/localhost and client certificates, as files."""

    def __init__(self, d):
        self.d = d
        os.makedirs(d, exist_ok=True)
        self.ca_key, self.ca = self.path("ca.key"), self.path("ca.crt")
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", self.ca_key, "-out", self.ca, "-subj", "/CN=seglog-test-ca",
                "-days", "2")
        self.server_key, self.server_crt = self.issue("server", "/CN=localhost",
                                                      "subjectAltName=IP:127.0.0.1,DNS:localhost")
        # Kafka's PEM key store: the private key and the certificate chain in one file.
        self.server_pem = write(self.path("server.pem"), open(self.server_key).read() +
                                open(self.server_crt).read() + open(self.ca).read())

    def path(self, name):
        return os.path.join(self.d, name)

    def issue(self, name, subject, ext=None):
        key, csr, crt = self.path(f"{name}.key"), self.path(f"{name}.csr"), self.path(f"{name}.crt")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", key, "-out", csr, "-subj", subject)
        extra = []
        if ext:
            extra = ["-extfile", write(self.path(f"{name}.ext"), ext + "\n")]
        openssl("x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", self.ca_key,
                "-CAcreateserial", "-out", crt, "-days", "2", *extra)
        return key, crt


def java_props(path, **kv):
    return write(path, "".join(f"{k}={v}\n" for k, v in kv.items()))


def scram_jaas(user, password):
    return (f'org.apache.kafka.common.security.scram.ScramLoginModule required '
            f'username="{user}" password="{password}";')


def plain_jaas(user, password):
    return (f'org.apache.kafka.common.security.plain.PlainLoginModule required '
            f'username="{user}" password="{password}";')


def add_scram_user(bootstrap, admin_config, user, mechanism, password, iterations=None):
    spec = f"iterations={iterations},password={password}" if iterations else f"password={password}"
    out = kafka_tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", bootstrap,
                     "--command-config", admin_config, "--alter", "--add-config",
                     f"{mechanism}=[{spec}]", "--entity-type", "users", "--entity-name", user).stdout
    check(f"Completed updating config for user {user}." in out, out)


def console_round_trip(bootstrap, config, topic, lines):
    kafka_tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", bootstrap,
               "--command-config", config, "--topic", topic,
               input="\n".join(lines) + "\n")
    p = kafka_tool("org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server",
                   bootstrap, "--command-config", config, "--topic", topic, "--partition", "0",
                   "--offset", "earliest", "--max-messages", str(len(lines)), "--timeout-ms",
                   "60000")
    got = p.stdout.splitlines()
    check(got == lines, f"console consumer over {config} read {got[:5]}... ({len(got)})")


def confluent_round_trip(conf, topic, values):
    from confluent_kafka import Consumer, Producer, TopicPartition
    errors = []
    p = Producer({**conf, "error_cb": lambda e: errors.append(str(e))})
    delivered = []
    for v in values:
        p.produce(topic, v.encode(), on_delivery=lambda e, m: delivered.append((e, m)))
    p.flush(30)
    check(len(delivered) == len(values) and all(e is None for e, _ in delivered),
          f"confluent-kafka delivery: {[str(e) for e, _ in delivered][:3]} errors {errors[:3]}")
    c = Consumer({**conf, "group.id": f"g-{topic}-{time.time()}", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.time() + 30
    while len(got) < len(values) and time.time() < deadline:
        m = c.poll(1)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
    c.close()
    check(got[-len(values):] == values or set(values) <= set(got),
          f"confluent-kafka read {got[:5]} ({len(got)})")


def confluent_auth_error(conf):
    """The SASL error confluent-kafka reports for `conf` (None if it authenticated)."""
    from confluent_kafka import Producer
    errors = []
    p = Producer({**conf, "error_cb": lambda e: errors.append(e)})
    deadline = time.time() + 20
    while not errors and time.time() < deadline:
        p.poll(0.2)
        p.list_topics(timeout=0.5) if not errors else None
    return str(errors[0]) if errors else None


def kafka_python_round_trip(kw, topic, values):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    p = KafkaProducer(bootstrap_servers=kw["bootstrap_servers"], **kw["auth"])
    for v in values:
        p.send(topic, v.encode()).get(timeout=30)
    p.close()
    c = KafkaConsumer(bootstrap_servers=kw["bootstrap_servers"], enable_auto_commit=False,
                      consumer_timeout_ms=15000, **kw["auth"])
    c.assign([TopicPartition(topic, 0)])
    c.seek_to_beginning()
    got = [m.value.decode() for m in c]
    c.close()
    check(got == values, f"kafka-python read {got[:5]} ({len(got)})")


# ----------------------------------------------------------------------------------------------
# SASL_PLAINTEXT: PLAIN and SCRAM with every client.

def security_sasl_plaintext(ctx):
    b = ctx.broker
    d = ctx.ws.dir
    admin = java_props(os.path.join(d, "admin.properties"), **{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": plain_jaas("admin", "admin-secret")})
    # SCRAM users made with Kafka's own tool, over PLAIN; one mechanism per call, as Kafka
    # refuses two for one user in one request.
    add_scram_user(b.bootstrap, admin, "carol", "SCRAM-SHA-256", "carol-secret", 8192)
    add_scram_user(b.bootstrap, admin, "dave", "SCRAM-SHA-512", "dave-secret")
    add_scram_user(b.bootstrap, admin, "dave", "SCRAM-SHA-256", "dave-secret")

    # Java console tools with SCRAM-SHA-256 and SCRAM-SHA-512.
    carol = java_props(os.path.join(d, "carol.properties"), **{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": scram_jaas("carol", "carol-secret")})
    dave = java_props(os.path.join(d, "dave.properties"), **{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": scram_jaas("dave", "dave-secret")})
    lines = [f"scram line {i}" for i in range(20)]
    console_round_trip(b.bootstrap, carol, "java-scram", lines)
    p = kafka_tool("org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server",
                   b.bootstrap, "--command-config", dave, "--topic", "java-scram",
                   "--partition", "0", "--offset", "earliest", "--max-messages", "20")
    check(p.stdout.splitlines() == lines, "SCRAM-SHA-512 consumer read other records")

    # kafka-python: PLAIN and SCRAM-SHA-256.
    for mech, user, pw in (("PLAIN", "alice", "alice-secret"),
                           ("SCRAM-SHA-256", "carol", "carol-secret")):
        kafka_python_round_trip({"bootstrap_servers": b.bootstrap, "auth": dict(
            security_protocol="SASL_PLAINTEXT", sasl_mechanism=mech, sasl_plain_username=user,
            sasl_plain_password=pw)}, f"py-{mech.lower()}", [f"{mech} {i}" for i in range(10)])

    # confluent-kafka: SCRAM-SHA-512 and PLAIN.
    for mech, user, pw in (("SCRAM-SHA-512", "dave", "dave-secret"),
                           ("PLAIN", "alice", "alice-secret")):
        confluent_round_trip({"bootstrap.servers": b.bootstrap,
                              "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mech,
                              "sasl.username": user, "sasl.password": pw},
                             f"ck-{mech.lower()}", [f"{mech} {i}" for i in range(10)])

    # kcat with PLAIN. Debian's kcat links librdkafka 2.0.2, whose SCRAM client-final message
    # repeats the client nonce; Kafka 4.4.0 refuses it as seglog does ("Invalid client nonce in
    # the final client message", checked against a Kafka 4.4.0 broker by hand), so kcat uses
    # PLAIN and SCRAM is exercised with the current librdkafka of confluent-kafka.
    kcat_auth = ["-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
                 "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"]
    run(["kcat", "-b", b.bootstrap, *kcat_auth, "-P", "-t", "kcat-scram"],
        input="k1\nk2\nk3\n", timeout=60)
    out = run(["kcat", "-b", b.bootstrap, *kcat_auth, "-C", "-t", "kcat-scram", "-o",
               "beginning", "-c", "3", "-e"], timeout=60).stdout
    check(out.split() == ["k1", "k2", "k3"], f"kcat read {out!r}")

    # Wrong secrets: Kafka's texts reach the clients.
    base = {"bootstrap.servers": b.bootstrap, "security.protocol": "SASL_PLAINTEXT"}
    e = confluent_auth_error({**base, "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "dave",
                              "sasl.password": "wrong"})
    check(e and "Authentication failed during authentication due to invalid credentials with "
          "SASL mechanism SCRAM-SHA-512" in e, f"wrong SCRAM password: {e}")
    e = confluent_auth_error({**base, "sasl.mechanism": "PLAIN", "sasl.username": "alice",
                              "sasl.password": "wrong"})
    check(e and "Authentication failed: Invalid username or password" in e,
          f"wrong PLAIN password: {e}")
    bad = java_props(os.path.join(d, "bad.properties"), **{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": scram_jaas("carol", "not-her-password")})
    p = kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", b.bootstrap,
                   "--command-config", bad, "--list", ok=False, timeout=120)
    check(p.returncode != 0 and "SaslAuthenticationException" in p.stdout + p.stderr,
          f"kafka-topics with a wrong password: {(p.stdout + p.stderr)[-800:]}")
    check("Failed authentication with /127.0.0.1" in b.log(), "no failed-authentication log line")
    # A mechanism the listener does not offer.
    e = confluent_auth_error({**base, "sasl.mechanism": "OAUTHBEARER",
                              "enable.sasl.oauthbearer.unsecure.jwt": True,
                              "sasl.oauthbearer.config": "principal=alice"})
    check(e and "OAUTHBEARER" in e and "not supported" in e.lower() or "Unsupported" in (e or ""),
          f"unsupported mechanism: {e}")
    # A PLAINTEXT client on the SASL port.
    e = confluent_auth_error({"bootstrap.servers": b.bootstrap, "socket.timeout.ms": 3000})
    # Its ApiVersions is answered (as Kafka answers it before a handshake), its Metadata is not.
    check("Unexpected Kafka request of type METADATA during SASL handshake." in b.log(),
          "no log line for a PLAINTEXT client")

    # Garbage beside a working client: bounded in count (240 connections) and time (20 s).
    import random
    import socket
    import struct
    import threading
    rng = random.Random(28)
    host, port = b.bootstrap.split(":")
    handshake = (struct.pack(">hhih", 17, 1, 1, 1) + b"g" + struct.pack(">h", 5) + b"PLAIN")
    garbage = [
        lambda: bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64))),
        lambda: struct.pack(">i", 1 << 30),                               # lying size
        lambda: struct.pack(">i", -5),                                    # negative size
        lambda: struct.pack(">i", len(handshake)) + handshake + b"\x00\x00\x00\x03abc",
        lambda: b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",    # a TLS ClientHello
        lambda: struct.pack(">i", 600000) + b"x" * 1000,                  # > max receive size
    ]
    stop = time.time() + 20

    def pound():
        for i in range(240):
            if time.time() > stop:
                return
            try:
                with socket.create_connection((host, int(port)), timeout=2) as s:
                    s.sendall(garbage[i % len(garbage)]())
                    s.settimeout(0.2)
                    try:
                        s.recv(64)
                    except OSError:
                        pass
            except OSError:
                pass
    t = threading.Thread(target=pound)
    t.start()
    confluent_round_trip({**base, "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "dave",
                          "sasl.password": "dave-secret"}, "beside-garbage",
                         [f"g {i}" for i in range(100)])
    t.join(60)

    # A deleted credential no longer authenticates; the other mechanism still does.
    kafka_tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", b.bootstrap,
               "--command-config", admin, "--alter", "--delete-config", "SCRAM-SHA-512",
               "--entity-type", "users", "--entity-name", "dave")
    e = confluent_auth_error({**base, "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "dave",
                              "sasl.password": "dave-secret"})
    check(e is not None, "a deleted SCRAM credential still authenticated")
    check(confluent_auth_error({**base, "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": "dave",
                                "sasl.password": "dave-secret"}) is None,
          "dave's SCRAM-SHA-256 credential stopped working")

    # The credentials live in the metadata log: a restart keeps them.
    b.stop()
    b.start()
    confluent_round_trip({**base, "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": "carol",
                          "sasl.password": "carol-secret"}, "after-restart", ["r1", "r2"])
    ctx.expect_records = 20 + 10 + 10 + 10 + 10 + 3 + 100 + 2


security_sasl_plaintext.setup = lambda ctx: ctx.broker.overrides.extend([
    f"listeners=SASL_PLAINTEXT://127.0.0.1:{ctx.broker.port}",
    "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
    f"listener.name.sasl_plaintext.plain.sasl.jaas.config={PLAIN_JAAS}"])


# ----------------------------------------------------------------------------------------------
# SASL_SSL with SCRAM, and SSL with client certificates, side by side.

def _tls_setup(ctx):
    ctx.certs = Certs(os.path.join(ctx.ws.dir, "certs"))
    ctx.ssl_port = free_port()
    c = ctx.certs
    ctx.broker.overrides.extend([
        f"listeners=SASL_SSL://127.0.0.1:{ctx.broker.port},MTLS://127.0.0.1:{ctx.ssl_port}",
        "listener.security.protocol.map=SASL_SSL:SASL_SSL,MTLS:SSL",
        "sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
        f"listener.name.sasl_ssl.plain.sasl.jaas.config={PLAIN_JAAS}",
        "ssl.keystore.type=PEM", f"ssl.keystore.location={c.server_pem}",
        "ssl.truststore.type=PEM", f"ssl.truststore.location={c.ca}",
        "listener.name.mtls.ssl.client.auth=required",
        "listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=(.*?),OU=clients$/$1/L,DEFAULT",
        # Not for SASL_SSL: Kafka reads it there only in its listener.name form.
        "ssl.client.auth=required"])


def security_tls_and_mtls(ctx):
    b = ctx.broker
    c = ctx.certs
    d = ctx.ws.dir
    sasl_ssl = b.bootstrap
    mtls = f"127.0.0.1:{ctx.ssl_port}"
    admin = java_props(os.path.join(d, "admin.properties"), **{
        "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": plain_jaas("admin", "admin-secret"),
        "ssl.truststore.type": "PEM", "ssl.truststore.location": c.ca})
    add_scram_user(sasl_ssl, admin, "erin", "SCRAM-SHA-512", "erin-secret")
    erin = java_props(os.path.join(d, "erin.properties"), **{
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": scram_jaas("erin", "erin-secret"),
        "ssl.truststore.type": "PEM", "ssl.truststore.location": c.ca})
    lines = [f"tls line {i}" for i in range(30)]
    console_round_trip(sasl_ssl, erin, "java-tls", lines)

    # kcat over SASL_SSL (PLAIN: see security_sasl_plaintext on Debian's librdkafka 2.0.2 and
    # SCRAM), the server's certificate verified.
    kcat_auth = ["-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=PLAIN",
                 "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret",
                 "-X", f"ssl.ca.location={c.ca}"]
    run(["kcat", "-b", sasl_ssl, *kcat_auth, "-P", "-t", "kcat-tls"], input="a\nb\n", timeout=60)
    out = run(["kcat", "-b", sasl_ssl, *kcat_auth, "-C", "-t", "java-tls", "-o", "beginning",
               "-c", "30", "-e"], timeout=60).stdout
    check(out.splitlines() == lines, f"kcat over SASL_SSL read {out[:200]!r}")

    # confluent-kafka and kafka-python over SASL_SSL.
    confluent_round_trip({"bootstrap.servers": sasl_ssl, "security.protocol": "SASL_SSL",
                          "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "erin",
                          "sasl.password": "erin-secret", "ssl.ca.location": c.ca},
                         "ck-tls", [f"ck {i}" for i in range(10)])
    kafka_python_round_trip({"bootstrap_servers": sasl_ssl, "auth": dict(
        security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_plain_username="erin",
        sasl_plain_password="erin-secret", ssl_cafile=c.ca)}, "py-tls", ["p1", "p2", "p3"])

    # Mutual TLS: the client certificate is the principal; Metadata names the mTLS listener.
    alice_key, alice_crt = c.issue("alice", "/O=example/OU=clients/CN=Alice")
    mconf = {"bootstrap.servers": mtls, "security.protocol": "SSL", "ssl.ca.location": c.ca,
             "ssl.certificate.location": alice_crt, "ssl.key.location": alice_key}
    confluent_round_trip(mconf, "ck-mtls", [f"m {i}" for i in range(10)])
    from confluent_kafka.admin import AdminClient
    md = AdminClient(mconf).list_topics(timeout=20)
    ports = {br.port for br in md.brokers.values()}
    check(ports == {ctx.ssl_port}, f"Metadata over the mTLS listener named ports {ports}")
    # kcat with a client certificate.
    kcat_tls = ["-X", "security.protocol=SSL", "-X", f"ssl.ca.location={c.ca}",
                "-X", f"ssl.certificate.location={alice_crt}", "-X", f"ssl.key.location={alice_key}"]
    run(["kcat", "-b", mtls, *kcat_tls, "-P", "-t", "kcat-mtls"], input="c1\nc2\n", timeout=60)
    out = run(["kcat", "-b", mtls, *kcat_tls, "-C", "-t", "kcat-mtls", "-o", "beginning", "-c", "2",
               "-e"], timeout=60).stdout
    check(out.split() == ["c1", "c2"], f"kcat over mTLS read {out!r}")
    # Java client with a PEM key store.
    java_key = write(os.path.join(d, "alice-keystore.pem"),
                     open(alice_key).read() + open(alice_crt).read())
    jm = java_props(os.path.join(d, "mtls.properties"), **{
        "security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": c.ca,
        "ssl.keystore.type": "PEM", "ssl.keystore.location": java_key})
    console_round_trip(mtls, jm, "java-mtls", [f"j {i}" for i in range(5)])
    # No client certificate: refused.
    e = confluent_auth_error({"bootstrap.servers": mtls, "security.protocol": "SSL",
                              "ssl.ca.location": c.ca})
    check(e is not None, "an SSL client without a certificate got in")
    # Plaintext to the TLS port: the handshake fails, the broker logs the client.
    e = confluent_auth_error({"bootstrap.servers": mtls, "socket.timeout.ms": 3000})
    check("(SSL handshake failed)" in b.log(), "no handshake-failure line")

    # A new key store on disk is used for new connections (the old one's serial is gone).
    def serial():
        p = subprocess.run(["openssl", "s_client", "-connect", mtls, "-CAfile", c.ca, "-cert",
                            alice_crt, "-key", alice_key],
                           input="", capture_output=True, text=True, timeout=30)
        cert = p.stdout[p.stdout.find("-----BEGIN CERTIFICATE-----"):
                        p.stdout.find("-----END CERTIFICATE-----") + 25]
        x = subprocess.run(["openssl", "x509", "-noout", "-serial"], input=cert,
                           capture_output=True, text=True, timeout=30)
        return x.stdout.strip()
    before = serial()
    key2, crt2 = c.issue("server2", "/CN=localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost")
    tmp = c.server_pem + ".new"
    write(tmp, open(key2).read() + open(crt2).read() + open(c.ca).read())
    os.replace(tmp, c.server_pem)
    deadline = time.time() + 15
    after = before
    while after == before and time.time() < deadline:
        time.sleep(1.2)
        after = serial()
    check(after != before and after.startswith("serial="), f"key store not reloaded: {before}")
    check("Reloaded the SSL key and trust stores" in b.log(), "no reload log line")
    confluent_round_trip(mconf, "ck-mtls-2", ["after reload"])
    ctx.expect_records = 30 + 2 + 10 + 3 + 10 + 2 + 5 + 1


security_tls_and_mtls.setup = _tls_setup


# ----------------------------------------------------------------------------------------------
# OAUTHBEARER: Kafka's unsecured validator on one listener, signed JWTs against a JWKS file on
# another.

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Jwks:
    """An RSA key, its JWKS file, and RS256 tokens signed with openssl."""

    def __init__(self, d):
        self.key = os.path.join(d, "jwt.key")
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                self.key)
        modulus = openssl("rsa", "-in", self.key, "-noout", "-modulus").stdout.strip()
        n = bytes.fromhex(modulus.split("=", 1)[1])
        self.path = write(os.path.join(d, "jwks.json"), json.dumps({"keys": [
            {"kty": "RSA", "kid": "seglog-test", "use": "sig", "alg": "RS256",
             "n": b64url(n), "e": b64url((65537).to_bytes(3, "big"))}]}))

    def token(self, sub, lifetime_s=3600, aud="seglog", iss="https://issuer.test"):
        now = int(time.time())
        head = b64url(json.dumps({"alg": "RS256", "kid": "seglog-test", "typ": "JWT"}).encode())
        body = b64url(json.dumps({"sub": sub, "iat": now, "exp": now + lifetime_s, "aud": aud,
                                  "iss": iss, "scope": "kafka"}).encode())
        signing_input = f"{head}.{body}".encode()
        sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.key], input=signing_input,
                             capture_output=True, timeout=30, check=True).stdout
        return f"{head}.{body}.{b64url(sig)}", now + lifetime_s


def _oauth_setup(ctx):
    d = os.path.join(ctx.ws.dir, "oauth")
    os.makedirs(d, exist_ok=True)
    ctx.jwks = Jwks(d)
    ctx.jwks_port = free_port()
    ctx.broker.overrides.extend([
        f"listeners=UNSECURED://127.0.0.1:{ctx.broker.port},SIGNED://127.0.0.1:{ctx.jwks_port}",
        "listener.security.protocol.map=UNSECURED:SASL_PLAINTEXT,SIGNED:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        "listener.name.unsecured.oauthbearer.sasl.jaas.config="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
        "listener.name.signed.oauthbearer.sasl.jaas.config="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
        "listener.name.signed.oauthbearer.sasl.server.callback.handler.class="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
        f"listener.name.signed.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=file://{ctx.jwks.path}",
        "listener.name.signed.oauthbearer.sasl.oauthbearer.expected.audience=seglog",
        "listener.name.signed.oauthbearer.sasl.oauthbearer.expected.issuer=https://issuer.test",
        # KIP-368: sessions end with their token, or after 20 s; clients re-authenticate.
        "connections.max.reauth.ms=20000"])


def security_oauthbearer(ctx):
    b = ctx.broker
    signed = f"127.0.0.1:{ctx.jwks_port}"
    # Unsecured: librdkafka's and the Java client's own unsecured tokens.
    confluent_round_trip({"bootstrap.servers": b.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                          "sasl.mechanism": "OAUTHBEARER",
                          "enable.sasl.oauthbearer.unsecure.jwt": True,
                          "sasl.oauthbearer.config": "principal=alice scope=kafka"},
                         "oauth-unsecured", [f"u {i}" for i in range(5)])
    jconf = java_props(os.path.join(ctx.ws.dir, "oauth.properties"), **{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule '
                            'required unsecuredLoginStringClaim_sub="bob";'})
    console_round_trip(b.bootstrap, jconf, "oauth-java", [f"j {i}" for i in range(5)])

    # Signed: a token from the JWKS's key, handed to confluent-kafka and kafka-python.
    calls = []

    def oauth_cb(_config):
        calls.append(time.time())
        return ctx.jwks.token("carol", lifetime_s=3600)

    conf = {"bootstrap.servers": signed, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER", "oauth_cb": oauth_cb}
    confluent_round_trip(conf, "oauth-signed", [f"s {i}" for i in range(5)])

    try:  # kafka-python 3 moved the class
        from kafka.net.sasl.oauth import AbstractTokenProvider
    except ImportError:
        from kafka.sasl.oauth import AbstractTokenProvider

    class Provider(AbstractTokenProvider):
        def token(self):
            return ctx.jwks.token("dave")[0]

        def extensions(self):
            return {}
    kafka_python_round_trip({"bootstrap_servers": signed, "auth": dict(
        security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
        sasl_oauth_token_provider=Provider())}, "oauth-py", ["p1", "p2"])

    # Refused: an expired token, another audience, another key, an unsigned token.
    other_dir = os.path.join(ctx.ws.dir, "oauth-other")
    os.makedirs(other_dir, exist_ok=True)
    other = Jwks(other_dir)  # a second key under the same kid
    bad_tokens = {
        "expired": ctx.jwks.token("carol", lifetime_s=-120)[0],
        "audience": ctx.jwks.token("carol", aud="someone-else")[0],
        "foreign key": other.token("carol")[0],
        "unsigned": b64url(b'{"alg":"none"}') + "." + b64url(json.dumps(
            {"sub": "carol", "exp": int(time.time()) + 60}).encode()) + ".",
    }
    for what, tok in bad_tokens.items():
        e = confluent_auth_error({**conf, "oauth_cb": lambda _c, t=tok: (t, time.time() + 60)})
        check(e and '{"status":"invalid_token"}' in e, f"{what} token: {e}")
    check("Could not validate the access token" in b.log() or "invalid_token" in b.log(),
          "no log line for a refused token")

    # KIP-368: a session whose token expires re-authenticates with a new token; the
    # connection keeps serving.
    from confluent_kafka import Producer
    short = {**conf, "oauth_cb": lambda _c: ctx.jwks.token("carol", lifetime_s=8)}
    p = Producer(short)
    delivered = []
    for i in range(12):
        p.produce("oauth-reauth", f"r {i}".encode(), on_delivery=lambda e, m: delivered.append(e))
        p.flush(10)
        time.sleep(1)
    check(len(delivered) == 12 and all(e is None for e in delivered),
          f"produce across token expiry: {delivered}")
    # The client re-authenticated in time: the broker never had to close an expired session.
    check("SASL session expired" not in b.log(), "a session expired without re-authentication")
    ctx.expect_records = 5 + 5 + 5 + 2 + 12


security_oauthbearer.setup = _oauth_setup


# ----------------------------------------------------------------------------------------------
# docs/operations.md's "Securing seglog", command by command (examples/secure/walkthrough.sh),
# in a copy of examples/secure on free ports.

def security_example(ctx):
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    d = os.path.join(ctx.ws.dir, "secure")
    shutil.copytree(os.path.join(root, "examples", "secure"), d)
    env = {**os.environ, "SEGLOG": ctx.broker.seglog, "ORACLE": ORACLE,
           "PORT": str(free_port()), "CONTROLLER_PORT": str(free_port())}
    p = run(["bash", os.path.join(d, "walkthrough.sh")], env=env, timeout=480, ok=False)
    check(p.returncode == 0 and "walkthrough: passed" in p.stdout,
          f"walkthrough.sh exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    check(p.stdout.count("paid ") == 2, f"alice's records: {p.stdout[-1000:]}")


CASES = [security_sasl_plaintext, security_tls_and_mtls, security_oauthbearer, security_example]
