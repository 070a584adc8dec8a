"""Kafka 4.4.0's kafka-features.sh (FeatureCommand) against seglog: describe shows share.version
and streams.version as the metadata log finalizes them; a downgrade of share.version to 0 makes
the share group APIs answer UNSUPPORTED_VERSION (kafka-share-groups.sh and the console share
consumer print Kafka's error) and an upgrade back to 2 serves them again, each step printing
line for line what a real single-node Kafka 4.4.0 broker prints; the level is a metadata log
record, so it survives a restart, and a share consumer works after it."""
import os
import re

from harness import ORACLE, check, free_port, kafka_tool, run
from share_console_cases import console_share_consumer

T = "org.apache.kafka.tools."
FC = T + "FeatureCommand"
SG = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
KAFKA_BROKER_SH = os.path.join(os.path.dirname(ORACLE), "broker", "broker.sh")
LIVE = ("share.version", "streams.version")


def _lines(p, bootstrap):
    """exit status, stdout, and stderr without its stack frames and timestamped log lines
    (they name Kafka's classes and lines, and times); the address and feature epochs (the
    metadata offsets of the last change, each broker's own) replaced."""
    err = [l for l in p.stderr.strip().splitlines()
           if l.strip() and not l.startswith(("\t", " ", "[")) and "WARNING" not in l]
    lines = [f"exit={p.returncode}"] + p.stdout.strip().splitlines() + err
    return [re.sub(r"Epoch: \d+", "Epoch: N", l.replace(bootstrap, "BOOTSTRAP")) for l in lines]


def features(bootstrap, *args):
    return _lines(kafka_tool(FC, "--bootstrap-server", bootstrap, *args, ok=False), bootstrap)


def describe_live(bootstrap):
    """describe's lines for share.version and streams.version (the other features' levels are
    each node's own: kraft.version differs with how the quorum was formatted)."""
    lines = features(bootstrap, "describe")
    return [lines[0]] + [l for l in lines[1:] if l.split()[:2] in (["Feature:", f] for f in LIVE)]


def share_groups(bootstrap, *args):
    return _lines(kafka_tool(SG, "--bootstrap-server", bootstrap, *args, ok=False), bootstrap)


def share_consumer(bootstrap):
    """The console share consumer on topic t for at most 8 s."""
    return _lines(kafka_tool(T + "consumer.ConsoleShareConsumer", "--bootstrap-server",
                             bootstrap, "--topic", "t", "--group", "g", "--timeout-ms", "8000",
                             ok=False), bootstrap)


def session(bootstrap):
    """What the tools print (and their exit statuses) for each step, in order."""
    return [
        ("create topic", _lines(kafka_tool(T + "TopicCommand", "--bootstrap-server", bootstrap,
                                           "--create", "--topic", "t", ok=False), bootstrap)),
        ("describe", describe_live(bootstrap)),
        ("downgrade dry run", features(bootstrap, "downgrade", "--feature", "share.version=0",
                                       "--dry-run")),
        ("describe after dry run", describe_live(bootstrap)),
        ("upgrade refused", features(bootstrap, "upgrade", "--feature", "share.version=0")),
        ("downgrade refused", features(bootstrap, "downgrade", "--feature", "share.version=3")),
        ("downgrade share.version", features(bootstrap, "downgrade", "--feature",
                                             "share.version=0")),
        ("describe after downgrade", describe_live(bootstrap)),
        ("share groups list", share_groups(bootstrap, "--list")),
        ("share groups describe", share_groups(bootstrap, "--describe", "--group", "g")),
        # ShareGroupHeartbeat answered UNSUPPORTED_VERSION: the consumer's member fails.
        ("share consumer refused", share_consumer(bootstrap)),
        ("downgrade streams.version", features(bootstrap, "downgrade", "--feature",
                                               "streams.version=0")),
        ("upgrade both", features(bootstrap, "upgrade", "--feature", "share.version=2",
                                  "--feature", "streams.version=1")),
        ("describe after upgrade", describe_live(bootstrap)),
        ("share groups list after upgrade", share_groups(bootstrap, "--list")),
    ]


def level(lines, feature):
    for l in lines:
        m = re.search(rf"^Feature: {re.escape(feature)}\s.*FinalizedVersionLevel: (\S+)", l)
        if m:
            return m.group(1)
    return None


def features_kafka_features(ctx):
    wd = os.path.join(ctx.ws.dir, "kafka")
    env = dict(os.environ, KAFKA_BROKER_PORT=str(free_port()),
               KAFKA_CONTROLLER_PORT=str(free_port()))
    run(["bash", KAFKA_BROKER_SH, "start", wd], env=env, timeout=300)
    try:
        kafka = session(f"127.0.0.1:{env['KAFKA_BROKER_PORT']}")
    finally:
        run(["bash", KAFKA_BROKER_SH, "stop", wd], env=env, timeout=120, ok=False)
    b = ctx.broker
    seglog = session(b.bootstrap)
    for (step, want), (_, got) in zip(kafka, seglog):
        print(f"--- {step}\n" + "\n".join(got))
        check(got == want, f"{step}: seglog printed\n" + "\n".join(got) +
              "\nwhere Kafka 4.4.0 printed\n" + "\n".join(want))
    # What the steps must show, not only that both agree.
    by = dict(seglog)
    check(level(by["describe"], "share.version") == "2"
          and level(by["describe"], "streams.version") == "1", by["describe"])
    check(level(by["describe after dry run"], "share.version") == "2",
          by["describe after dry run"])
    check(level(by["describe after downgrade"], "share.version") == "0",
          by["describe after downgrade"])
    check(any("UnsupportedVersionException" in l for l in by["share groups describe"]),
          by["share groups describe"])
    check(any("UnsupportedVersionException: The cluster does not support the share group "
              "protocol." in l for l in by["share consumer refused"]),
          by["share consumer refused"])
    check(level(by["describe after upgrade"], "share.version") == "2"
          and level(by["describe after upgrade"], "streams.version") == "1",
          by["describe after upgrade"])
    # The level is in the metadata log: a downgrade is still there after a restart.
    check(features(b.bootstrap, "downgrade", "--feature", "share.version=1")[1:]
          == ["share.version was downgraded to 1."], "downgrade to 1")
    b.stop()
    b.start()
    after = describe_live(b.bootstrap)
    print("--- describe after a restart\n" + "\n".join(after))
    check(level(after, "share.version") == "1", after)
    # Back to 2 and a share consumer works.
    up = features(b.bootstrap, "upgrade", "--feature", "share.version=2")
    check(up[1:] == ["share.version was upgraded to 2."], up)
    console_share_consumer(ctx)


def features_old_directory_upgrade(ctx):
    """A directory whose metadata log finalizes neither share.version nor streams.version (as
    one made before them: formatted with both at 0) serves no share groups until
    kafka-features.sh upgrade enables them, as a Kafka broker on it would."""
    b = ctx.broker
    before = describe_live(b.bootstrap)
    print("--- describe\n" + "\n".join(before))
    check(level(before, "share.version") == "0" and level(before, "streams.version") == "0",
          before)
    kafka_tool(T + "TopicCommand", "--bootstrap-server", b.bootstrap, "--create", "--topic", "t")
    refused = share_consumer(b.bootstrap)
    check(any("UnsupportedVersionException: The cluster does not support the share group "
              "protocol." in l for l in refused), refused)
    up = features(b.bootstrap, "upgrade", "--feature", "share.version=2", "--feature",
                  "streams.version=1")
    check(up[1:] == ["share.version was upgraded to 2.", "streams.version was upgraded to 1."],
          up)
    console_share_consumer(ctx)


def _format_old_directory(ctx):
    """`seglog format` with share.version and streams.version at 0: no FeatureLevelRecord
    for either, as in a directory made before seglog finalized them."""
    props = os.path.join(ctx.ws.dir, "format.properties")
    with open(props, "w") as f:
        f.write(f"log.dirs={ctx.broker.data_dir}\nnode.id=1\nprocess.roles=broker,controller\n")
    run([ctx.broker.seglog, "format", "-c", props, "-t", "MkU3OEVBNTcwNTJENDM2Qg",
         "-f", "share.version=0", "-f", "streams.version=0"], timeout=60)


features_old_directory_upgrade.setup = _format_old_directory

CASES = [features_kafka_features, features_old_directory_upgrade]
