"""Client quotas (issue 29): Kafka 4.4.0's kafka-configs.sh (ConfigCommand) sets, describes and
deletes user, client-id and (user, client-id) quotas, defaults included, on `seglog serve`; the
quotas survive a restart; and the same commands against a Kafka 4.4.0 broker give the same
output, refusals included.

Neither confluent-kafka nor kafka-python (the versions installed) has a client quotas API, so
ConfigCommand (Kafka's Admin client) is the only client library here; java/QuotaRequests.java
sends what ConfigCommand refuses to (bad entities, keys, values, filters) to both brokers.
"""
import os
import re
import socket
import struct
import time

from harness import check, java_helper, kafka_tool, run

import acl_matrix  # noqa: E402 (the Kafka broker harness and the oracle's classpath)

CONFIG_COMMAND = "org.apache.kafka.tools.ConfigCommand"

ALTERS = [
    ["--entity-type", "clients", "--entity-name", "app", "--add-config",
     "producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=12.5"],
    ["--entity-type", "users", "--entity-name", "alice", "--add-config",
     "producer_byte_rate=4096,controller_mutation_rate=2.5"],
    ["--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
     "--entity-name", "app", "--add-config", "consumer_byte_rate=512"],
    ["--entity-type", "clients", "--entity-default", "--add-config", "producer_byte_rate=100"],
    ["--entity-type", "users", "--entity-default", "--add-config", "consumer_byte_rate=200"],
    ["--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-default",
     "--add-config", "request_percentage=50"],
    ["--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
     "--entity-default", "--add-config", "producer_byte_rate=300"],
    ["--entity-type", "users", "--entity-name", "User:CN=x y", "--add-config",
     "request_percentage=7.25"],
    ["--entity-type", "clients", "--entity-name", "app", "--delete-config", "request_percentage"],
    # Refusals: a fraction for a long, a key of another entity type, zero, an unknown key.
    ["--entity-type", "clients", "--entity-name", "app", "--add-config", "producer_byte_rate=1.5"],
    ["--entity-type", "users", "--entity-name", "bob", "--add-config",
     "connection_creation_rate=5"],
    ["--entity-type", "clients", "--entity-name", "app", "--add-config", "consumer_byte_rate=0"],
    ["--entity-type", "clients", "--entity-name", "app", "--add-config", "banana=1"],
    # The removal of a key the entity does not have.
    ["--entity-type", "users", "--entity-name", "alice", "--delete-config", "request_percentage"],
]

DESCRIBES = [
    ["--entity-type", "clients", "--entity-name", "app"],
    ["--entity-type", "clients"],
    ["--entity-type", "users"],
    ["--entity-type", "users", "--entity-type", "clients"],
    ["--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients"],
    ["--entity-type", "clients", "--entity-default"],
    ["--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-default"],
    ["--entity-type", "users", "--entity-name", "alice"],
    ["--entity-type", "users", "--entity-name", "nobody"],
]


def config_command(bootstrap, mode, args):
    """ConfigCommand's outcome, comparable between brokers: the exit code and its output lines
    sorted (the Admin client lists entities and keys in its HashMaps' order), without the
    bootstrap address, stack frames or log lines."""
    p = kafka_tool(CONFIG_COMMAND, "--bootstrap-server", bootstrap, mode, *args, ok=False)
    lines = []
    for line in (p.stdout + p.stderr).replace(bootstrap, "<bootstrap>").splitlines():
        line = line.rstrip()
        if not line or line.startswith("\tat ") or re.match(r"^\s+\.\.\. \d+ more", line) or \
                re.match(r"^\[?\d{4}-\d\d-\d\d", line) or "SLF4J" in line:
            continue
        lines.append(line)
    return (p.returncode, sorted(lines))


def run_all(bootstrap):
    alters = [config_command(bootstrap, "--alter", a) for a in ALTERS]
    return alters, describe_all(bootstrap)


def describe_all(bootstrap):
    return [config_command(bootstrap, "--describe", d) for d in DESCRIBES]


def raw_requests(bootstrap):
    return run(java_helper("QuotaRequests", bootstrap), timeout=300).stdout.splitlines()


def client_quotas_kafka_configs(ctx):
    b = ctx.broker
    alters, described = run_all(b.bootstrap)
    for args, (rc, lines) in zip(ALTERS, alters):
        print(f"alter {' '.join(args)}: exit {rc}: {lines}")
    for args, (rc, lines) in zip(DESCRIBES, described):
        print(f"describe {' '.join(args)}: {lines}")
    check(all(rc == 0 for rc, _ in alters[:9]), f"an alteration failed: {alters[:9]}")
    check(all(rc != 0 for rc, _ in alters[9:13]), f"a refusal was not refused: {alters[9:13]}")
    app = "\n".join(described[0][1])
    check("producer_byte_rate=1024.0" in app and "consumer_byte_rate=2048.0" in app and
          "request_percentage" not in app, f"clients app: {app}")
    everything = "\n".join(described[3][1])
    check("'alice'" in everything and "'app'" in everything and "default" in everything,
          f"users and clients: {everything}")

    # A restart reads them back from the metadata log.
    b.stop()
    b.start()
    again = describe_all(b.bootstrap)
    check(again == described, "the quotas changed across a restart:\n" +
          "\n".join(f"{d}: {x} -> {y}" for d, x, y in zip(DESCRIBES, described, again) if x != y))

    # What ConfigCommand never sends (java/QuotaRequests.java): bad entities, keys, values,
    # duplicates, validate_only, bad filters.
    raw = raw_requests(b.bootstrap)
    print("\n".join(raw))

    # Kafka 4.4.0 answers the same commands the same way.
    kafka = acl_matrix.broker_compare.KafkaBroker(acl_matrix.subprocess_classpath(),
                                                  os.path.join(ctx.ws.dir, "kafka"))
    kafka.start()
    try:
        k_alters, k_described = run_all(kafka.bootstrap)
        k_raw = raw_requests(kafka.bootstrap)
    finally:
        kafka.stop()
    diffs = [f"alter {' '.join(a)}:\n  seglog {x}\n  Kafka  {y}"
             for a, x, y in zip(ALTERS, alters, k_alters) if x != y]
    diffs += [f"describe {' '.join(d)}:\n  seglog {x}\n  Kafka  {y}"
              for d, x, y in zip(DESCRIBES, described, k_described) if x != y]
    diffs += [f"raw:\n  seglog {x}\n  Kafka  {y}" for x, y in zip(raw, k_raw) if x != y]
    check(len(raw) == len(k_raw), f"{len(raw)} raw answers from seglog, {len(k_raw)} from Kafka")
    check(not diffs, "seglog and Kafka 4.4.0 answered differently:\n" +
          "\n".join(diffs))
    print(f"{len(ALTERS)} alterations, {len(DESCRIBES)} descriptions and {len(raw)} raw requests "
          "answered as Kafka 4.4.0 answers them")



def controller_mutation_quota(ctx):
    """controller_mutation_rate (KIP-599): strict for CreateTopics v6+, CreatePartitions v3+ and
    DeleteTopics v5+ (THROTTLING_QUOTA_EXCEEDED once the bucket is below zero), permissive
    before (accepted, throttled), other clients untouched, Kafka's Admin client sees
    ThrottlingQuotaExceededException: the same lines from seglog and from Kafka 4.4.0."""
    seglog_lines = run(java_helper("MutationQuotaRequests", ctx.broker.bootstrap),
                       timeout=120).stdout.splitlines()
    print("\n".join(seglog_lines))
    expected_prefixes = ["quota: 0", "1: ", "2: ", "3: ", "4: ", "5: ", "6: ", "7: ", "8: ",
                         "9: ", "10: ", "topics: "]
    check(all(any(line.startswith(p) for line in seglog_lines) for p in expected_prefixes),
          f"steps missing from {seglog_lines}")
    by_step = {line.split(":", 1)[0]: line for line in seglog_lines}
    check("c=89 null" in by_step["2"] and "b=0" in by_step["2"],
          f"step 2: {by_step['2']}")
    check("a=89" in by_step["7"] and "a=0" in by_step["8"] and "; throttled" in by_step["8"],
          f"steps 7-8: {by_step['7']} / {by_step['8']}")
    check("ThrottlingQuotaExceededException" in by_step["10"], f"step 10: {by_step['10']}")
    kafka = acl_matrix.broker_compare.KafkaBroker(acl_matrix.subprocess_classpath(),
                                                  os.path.join(ctx.ws.dir, "kafka-mutation"))
    kafka.start()
    try:
        kafka_lines = run(java_helper("MutationQuotaRequests", kafka.bootstrap),
                          timeout=120).stdout.splitlines()
    finally:
        kafka.stop()
    diffs = [f"  seglog {x}\n  Kafka  {y}" for x, y in zip(seglog_lines, kafka_lines) if x != y]
    check(len(seglog_lines) == len(kafka_lines) and not diffs,
          "seglog and Kafka 4.4.0 answered differently:\n" + "\n".join(diffs) +
          f"\n(seglog {len(seglog_lines)} lines, Kafka {len(kafka_lines)})")
    print(f"{len(seglog_lines)} answers as Kafka 4.4.0 gives them")


def connect_and_ask(bootstrap, source, timeout=5.0):
    """One connection from `source` (a loopback address) sending ApiVersions v0: "answered",
    "closed" (the broker closed it without an answer) or "silent"."""
    host, port = bootstrap.rsplit(":", 1)
    client = b"ipq"
    body = struct.pack(">hhih", 18, 0, 7, len(client)) + client
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((source, 0))
        s.settimeout(timeout)
        s.connect((host, int(port)))
        s.sendall(struct.pack(">i", len(body)) + body)
        try:
            head = s.recv(4)
        except socket.timeout:
            return "silent"
        except ConnectionResetError:
            return "closed"
        return "answered" if len(head) == 4 else "closed"


def ip_quota_run(bootstrap):
    """Sets connection_creation_rate=1 for 127.0.0.2 with kafka-configs.sh, then 15 connections
    from it and 3 from 127.0.0.3 in quick succession: what each got. A new rate is judged over
    at least 10 of its 11 one-second windows, so the first 10 are within it and each one after
    is closed unserved once its throttle (bounded by one window) has passed."""
    rc, lines = config_command(bootstrap, "--alter", [
        "--entity-type", "ips", "--entity-name", "127.0.0.2", "--add-config",
        "connection_creation_rate=1"])
    check(rc == 0, f"kafka-configs.sh --entity-type ips: {lines}")
    time.sleep(1.5)  # Kafka applies it when the metadata reaches its broker
    start = time.monotonic()
    outcomes = [connect_and_ask(bootstrap, "127.0.0.2") for _ in range(15)]
    outcomes += [connect_and_ask(bootstrap, "127.0.0.3") for _ in range(3)]
    check(time.monotonic() - start < 9, "the connections took too long to judge the rate")
    described = config_command(bootstrap, "--describe", ["--entity-type", "ips"])
    return outcomes, described


def ip_connection_quota(ctx):
    """An ip entity's connection_creation_rate: connections past it are closed without an
    answer, other addresses untouched: the same outcomes from seglog and Kafka 4.4.0."""
    outcomes, described = ip_quota_run(ctx.broker.bootstrap)
    print(f"seglog: {outcomes}\n{described}")
    check(outcomes[:10] == ["answered"] * 10 and outcomes[10:15] == ["closed"] * 5 and
          outcomes[15:] == ["answered"] * 3, f"seglog: {outcomes}")
    kafka = acl_matrix.broker_compare.KafkaBroker(acl_matrix.subprocess_classpath(),
                                                  os.path.join(ctx.ws.dir, "kafka-ip"))
    kafka.start()
    try:
        k_outcomes, k_described = ip_quota_run(kafka.bootstrap)
    finally:
        kafka.stop()
    print(f"Kafka:  {k_outcomes}\n{k_described}")
    check(outcomes == k_outcomes and described == k_described,
          "seglog and Kafka 4.4.0 differ")
    print("18 connections treated as Kafka 4.4.0 treats them")


CASES = [client_quotas_kafka_configs, controller_mutation_quota, ip_connection_quota]
