"""Share group offsets through Kafka 4.4.0's kafka-share-groups.sh (ShareGroupCommand; KIP-932's
DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets): --reset-offsets
--to-offset and --to-earliest --execute on a new group create it with its start offsets,
--describe --offsets prints them with the lag against the records produced, --list lists the
group, --delete-offsets forgets the topic's offsets and --delete deletes the group.

The tool describes the group (ShareGroupDescribe) before each of these, and the admin client
needs share.version >= 1 on the broker: the case needs both served."""
import re

from harness import Failure, check, kafka_tool

SG = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
T = "org.apache.kafka.tools.TopicCommand"


def share_groups(b, *args, ok=True):
    return kafka_tool(SG, "--bootstrap-server", b.bootstrap, *args, ok=ok)


def offsets(b, group):
    """{(topic, partition): (start offset, lag)} from --describe --offsets."""
    p = share_groups(b, "--describe", "--offsets", "--group", group)
    rows = re.findall(rf"^{re.escape(group)}\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$", p.stdout, re.M)
    return {(t, int(part)): (start, lag) for t, part, start, lag in rows}, p.stdout + p.stderr


def share_offsets_kafka_share_groups(ctx):
    b = ctx.broker
    kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "shared",
               "--partitions", "1")
    kafka_tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", b.bootstrap,
               "--topic", "shared", input="".join(f"record {i}\n" for i in range(10)))

    # A new group: Kafka's tool resets (AlterShareGroupOffsets creates the group) after its
    # describe found no group, and then reports that describe's GroupIdNotFoundException.
    p = share_groups(b, "--group", "sg", "--reset-offsets", "--to-offset", "4", "--execute",
                     "--topic", "shared", ok=False)
    got, out = offsets(b, "sg")
    check(got == {("shared", 0): ("4", "6")}, f"after --to-offset 4:\n{p.stdout}{p.stderr}\n{out}")

    # An existing empty group: the reset table, then the new start offset.
    p = share_groups(b, "--group", "sg", "--reset-offsets", "--to-earliest", "--execute",
                     "--topic", "shared")
    check(re.search(r"^sg\s+shared\s+0\s+0\s*$", p.stdout, re.M), f"reset table:\n{p.stdout}")
    got, out = offsets(b, "sg")
    check(got == {("shared", 0): ("0", "10")}, f"after --to-earliest:\n{out}")

    # More records: more lag.
    kafka_tool("org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server", b.bootstrap,
               "--topic", "shared", input="".join(f"more {i}\n" for i in range(5)))
    got, out = offsets(b, "sg")
    check(got == {("shared", 0): ("0", "15")}, f"after 5 more records:\n{out}")

    p = share_groups(b, "--list")
    check("sg" in p.stdout.split(), f"--list:\n{p.stdout}")

    p = share_groups(b, "--delete-offsets", "--group", "sg", "--topic", "shared")
    check(re.search(r"^shared\s+Successful\s*$", p.stdout, re.M), f"--delete-offsets:\n{p.stdout}")
    p = share_groups(b, "--describe", "--offsets", "--group", "sg")
    check("Share group 'sg' has no offset information." in p.stdout,
          f"--describe --offsets after --delete-offsets:\n{p.stdout}{p.stderr}")
    p = share_groups(b, "--delete-offsets", "--group", "sg", "--topic", "shared")
    check(re.search(r"^shared\s+Error: ", p.stdout, re.M),
          f"second --delete-offsets:\n{p.stdout}{p.stderr}")

    p = share_groups(b, "--delete", "--group", "sg")
    check("Deletion of requested share groups ('sg') was successful." in p.stdout,
          f"--delete:\n{p.stdout}{p.stderr}")
    p = share_groups(b, "--list")
    if "sg" in p.stdout.split():
        raise Failure(f"sg still listed after --delete:\n{p.stdout}")
    ctx.expect_records = None


CASES = [share_offsets_kafka_share_groups]
