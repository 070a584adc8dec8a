"""Kafka 4.4.0's console share consumer (kafka-console-share-consumer.sh,
org.apache.kafka.tools.consumer.ConsoleShareConsumer) against seglog, with kafka-share-groups.sh
(ShareGroupCommand) describing its group while it runs."""
import os
import re
import subprocess
import threading
import time

from harness import ORACLE, check, kafka_tool
from share_admin_cases import offsets, share_groups
from share_cases import wait_for
from share_delivery_cases import set_group_configs

T = "org.apache.kafka.tools."


def produce_keyed(b, topic, values):
    """Each value with a key of its own, so that both partitions get records."""
    kafka_tool(T + "ConsoleProducer", "--bootstrap-server", b.bootstrap, "--topic", topic,
               "--property", "parse.key=true", "--property", "key.separator=|",
               input="".join(f"key-{v}|{v}\n" for v in values))


def console_share_consumer(ctx):
    """The console share consumer (its group's share.auto.offset.reset=earliest, set with
    kafka-configs.sh) prints exactly the values produced, before and while it runs, each once.
    While it runs kafka-share-groups.sh --list names the group (with --state: Stable),
    --describe --state shows it Stable with 1 member, --describe --members shows that member
    (the tool's client id) with the topic's partitions, and --describe --offsets shows the start
    offsets with lag 0 once its implicit acknowledgements were committed; after it exits the
    group is Empty."""
    b = ctx.broker
    topic, group = "console-share", "cg"
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", topic,
               "--partitions", "2")
    set_group_configs(b, group, {"share.auto.offset.reset": "earliest"})
    first = [f"first value {i}" for i in range(30)]
    second = [f"second value {i}" for i in range(20)]
    produce_keyed(b, topic, first)
    out_path = os.path.join(ctx.ws.dir, "console-share.out")
    err = open(os.path.join(ctx.ws.dir, "console-share.err"), "w")
    proc = subprocess.Popen(
        [ORACLE, "kafka-class", "org.apache.kafka.tools.consumer.ConsoleShareConsumer",
         "--bootstrap-server", b.bootstrap, "--topic", topic, "--group", group,
         "--command-property", "client.id=console-share-1",
         "--timeout-ms", "90000"],
        stdout=subprocess.PIPE, stderr=err, text=True)
    lines = []
    lock = threading.Lock()

    def read():
        with open(out_path, "w") as out:
            for line in proc.stdout:
                out.write(line)
                with lock:
                    lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def got():
        with lock:
            return list(lines)

    try:
        wait_for("the first values printed", lambda: len(got()) >= len(first), 60)
        produce_keyed(b, topic, second)
        wait_for("the second values printed", lambda: len(got()) >= len(first) + len(second), 30)
        p = share_groups(b, "--list")
        check(group in p.stdout.split(), f"--list:\n{p.stdout}")
        p = share_groups(b, "--list", "--state")
        check(re.search(rf"^{group}\s+Stable\s*$", p.stdout, re.M), f"--list --state:\n{p.stdout}")
        p = share_groups(b, "--describe", "--state", "--group", group)
        check(re.search(rf"^{group}\s+127\.0\.0\.1:{b.port}\s+\(\d+\)\s+Stable\s+1\s*$", p.stdout,
                        re.M), f"--describe --state:\n{p.stdout}")
        p = share_groups(b, "--describe", "--members", "--group", group)
        rows = re.findall(rf"^{group}\s+(\S+)\s+(\S+)\s+console-share-1\s+(\d+)\s+(.*?)\s*$",
                          p.stdout, re.M)
        check(len(rows) == 1 and rows[0][2] == "2" and topic in rows[0][3]
              and "0" in rows[0][3] and "1" in rows[0][3], f"--describe --members:\n{p.stdout}")
        # The implicit acknowledgements go with the consumer's next poll: bounded wait for both
        # partitions' start offsets to reach their log ends.
        deadline = time.time() + 30
        while True:
            off, out = offsets(b, group)
            done = len(off) == 2 and all(lag == "0" for (_, lag) in off.values())
            if done or time.time() > deadline:
                break
            time.sleep(1)
        # Lag 0: every record produced is delivery-complete. The start offset itself may stay
        # one state write behind (Kafka 4.4.0 writes the start offset it had before the
        # acknowledgements it writes), so it is only bounded by what was produced.
        total = sum(int(s) for (s, _) in off.values()) if done else -1
        check(done and 0 <= total <= len(first) + len(second),
              f"--describe --offsets while running:\n{out}")
        # --describe alone prints the offsets too.
        p = share_groups(b, "--describe", "--group", group)
        check(re.findall(rf"^{group}\s+{topic}\s+(\d)\s+(\d+)\s+0\s*$", p.stdout, re.M)
              and len(re.findall(rf"^{group}\s+{topic}\s", p.stdout, re.M)) == 2,
              f"--describe:\n{p.stdout}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        reader.join(timeout=10)
    printed = [l for l in got() if not l.startswith("Processed a total of")]
    produced = first + second
    check(sorted(printed) == sorted(produced),
          f"printed {len(printed)} values; missing {sorted(set(produced) - set(printed))}, "
          f"extra or repeated {[v for v in printed if printed.count(v) > 1 or v not in produced]}")
    p = share_groups(b, "--describe", "--state", "--group", group)
    check(re.search(rf"^{group}\s+.*\s+Empty\s+0\s*$", p.stdout, re.M),
          f"--describe --state after the consumer left:\n{p.stdout}")
    print(f"console_share_consumer: {len(printed)} values printed exactly once; offsets {off}")
    ctx.expect_records = len(first) + len(second)


CASES = [console_share_consumer]
