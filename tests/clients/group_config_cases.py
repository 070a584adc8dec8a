"""A group's own configs (the GROUP config resource, KIP-932's share.* and KIP-848's
consumer.* settings): Kafka 4.4.0's kafka-configs.sh (ConfigCommand) sets, describes (with and
without --all), refuses and deletes them on seglog, and prints line for line what it prints for
a real single-node Kafka 4.4.0 broker doing the same."""
import os
import re

from harness import ORACLE, check, free_port, kafka_tool, run

C = "org.apache.kafka.tools.ConfigCommand"
KAFKA_BROKER_SH = os.path.join(os.path.dirname(ORACLE), "broker", "broker.sh")


def session(bootstrap):
    """What kafka-configs prints (and its exit status) for each step, in order."""
    def configs(*args):
        p = kafka_tool(C, "--bootstrap-server", bootstrap, "--entity-type", "groups",
                       "--entity-name", "g", *args, ok=False)
        # A refusal's stack trace names Kafka's classes and lines: only the exceptions' lines
        # (their classes and messages) count; the address is each broker's own.
        err = [l for l in p.stderr.strip().splitlines()
               if re.match(r"^(Caused by: )?[\w.$]+(Exception|Error)\b", l)]
        lines = [f"exit={p.returncode}"] + p.stdout.strip().splitlines() + err
        return [l.replace(bootstrap, "BOOTSTRAP") for l in lines]

    steps = [
        ("describe before", configs("--describe")),
        ("alter", configs("--alter", "--add-config",
                          "share.auto.offset.reset=earliest,consumer.session.timeout.ms=50000")),
        ("describe", configs("--describe")),
        ("describe --all", configs("--describe", "--all")),
        ("refused range", configs("--alter", "--add-config", "share.delivery.count.limit=11")),
        ("refused value", configs("--alter", "--add-config", "share.isolation.level=dirty")),
        ("refused key", configs("--alter", "--add-config", "share.nope=1")),
        ("refused reset", configs("--alter", "--add-config", "share.auto.offset.reset=none")),
        # Out of the broker's group.consumer.min/max.session.timeout.ms (45 s to 60 s).
        ("refused session", configs("--alter", "--add-config",
                                    "consumer.heartbeat.interval.ms=15000,"
                                    "consumer.session.timeout.ms=15000")),
        ("by_duration", configs("--alter", "--add-config",
                                "share.auto.offset.reset=by_duration:PT1H")),
        ("delete", configs("--alter", "--delete-config", "share.auto.offset.reset")),
        ("describe after delete", configs("--describe")),
        ("delete last", configs("--alter", "--delete-config", "consumer.session.timeout.ms")),
        ("describe after all deleted", configs("--describe")),
    ]
    return steps


def group_configs_kafka_configs(ctx):
    wd = os.path.join(ctx.ws.dir, "kafka")
    env = dict(os.environ, KAFKA_BROKER_PORT=str(free_port()),
               KAFKA_CONTROLLER_PORT=str(free_port()))
    run(["bash", KAFKA_BROKER_SH, "start", wd], env=env, timeout=300)
    try:
        kafka = session(f"127.0.0.1:{env['KAFKA_BROKER_PORT']}")
    finally:
        run(["bash", KAFKA_BROKER_SH, "stop", wd], env=env, timeout=120, ok=False)
    seglog = session(ctx.broker.bootstrap)
    for (step, want), (_, got) in zip(kafka, seglog):
        print(f"--- {step}\n" + "\n".join(got))
        check(got == want, f"{step}: seglog printed\n" + "\n".join(got) +
              "\nwhere Kafka 4.4.0 printed\n" + "\n".join(want))
    # What the steps must show, not only that both agree.
    by = dict(seglog)
    check(any("share.auto.offset.reset=earliest sensitive=false" in l for l in by["describe"]),
          by["describe"])
    check(any("share.delivery.count.limit must be in the range 2 to 10 inclusive." in l
              for l in by["refused range"]), by["refused range"])
    check(not any("share.auto.offset.reset" in l for l in by["describe after delete"]),
          by["describe after delete"])
    ctx.expect_records = None


CASES = [group_configs_kafka_configs]
