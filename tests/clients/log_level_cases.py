"""Log levels at run time (issue 30): Kafka 4.4.0's kafka-configs.sh (ConfigCommand) describes
the broker's loggers (--entity-type broker-loggers), sets kafka.log.LogCleaner to DEBUG, and the
broker's log holds the cleaner's DEBUG lines from then on and none before; a bad level and an
unknown logger are refused with Kafka's messages; --delete-config returns the logger to root's
level and the DEBUG lines stop. Levels given at start (log4j.rootLogger and
log4j.logger.<name> in server.properties) are in force from the first line."""
import re
import time

from harness import Failure, check, kafka_tool

C = "org.apache.kafka.tools.ConfigCommand"
T = "org.apache.kafka.tools.TopicCommand"
CLEANER_DEBUG = re.compile(r"^\S+ \S+ DEBUG Finding range of cleanable offsets for "
                           r"log=compacted-0\. ", re.M)


def wait_for(pred, timeout, what, interval=0.2):
    deadline = time.time() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.time() > deadline:
            raise Failure(f"{what}: not within {timeout}s")
        time.sleep(interval)


def configs(b, *args, ok=True):
    return kafka_tool(C, "--bootstrap-server", b.bootstrap, "--entity-type", "broker-loggers",
                      "--entity-name", "1", *args, ok=ok)


def described(b):
    """{logger: level} from kafka-configs --describe."""
    out = configs(b, "--describe").stdout
    return dict(re.findall(r"^\s+(\S+)=(\S+) sensitive=false", out, re.M)), out


def broker_loggers_kafka_configs(ctx):
    b = ctx.broker
    kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "compacted",
               "--partitions", "1", "--config", "cleanup.policy=compact")
    levels, out = described(b)
    # Kafka 4.4.0's names for the same work.
    for name in ("root", "kafka.log.LogCleaner", "org.apache.kafka.storage.internals.log.LogManager",
                 "kafka.server.KafkaApis", "kafka.network.SocketServer", "kafka.server.BrokerServer",
                 "org.apache.kafka.storage.internals.log.UnifiedLog",
                 "org.apache.kafka.coordinator.group.GroupCoordinatorService",
                 "kafka.coordinator.transaction.TransactionCoordinator"):
        check(levels.get(name) == "INFO", f"{name} is not described at INFO:\n{out}")
    # The cleaner measures the compacted log every log.cleaner.backoff.ms (200 ms here), at
    # DEBUG: nothing of it at INFO.
    time.sleep(1.5)
    check(not CLEANER_DEBUG.search(b.log()), "cleaner DEBUG lines before the level was set")

    p = configs(b, "--alter", "--add-config", "kafka.log.LogCleaner=DEBUG")
    check("Completed updating config for broker-logger 1." in p.stdout, p.stdout + p.stderr)
    set_at = len(b.log())
    line = wait_for(lambda: CLEANER_DEBUG.search(b.log(), set_at), 10,
                    "a cleaner DEBUG line after kafka-configs set DEBUG")
    print(f"after SET: {line.group(0)}...")
    check("WARN Updated the log level of kafka.log.LogCleaner to DEBUG" in b.log(),
          "no WARN line for the change")
    levels, out = described(b)
    check(levels.get("kafka.log.LogCleaner") == "DEBUG" and levels.get("root") == "INFO" and
          levels.get("org.apache.kafka.storage.internals.log.LogManager") == "INFO",
          f"described after SET:\n{out}")
    # Only that logger: no DEBUG line of another component.
    others = [l for l in b.log()[set_at:].splitlines()
              if " DEBUG " in l and not CLEANER_DEBUG.search(l + "\n")]
    check(not others, f"DEBUG lines of other loggers: {others[:3]}")

    # Kafka's refusals, nothing changed.
    p = configs(b, "--alter", "--add-config", "kafka.log.LogCleaner=LOUD", ok=False)
    check(p.returncode != 0 and "Cannot set the log level of kafka.log.LogCleaner to LOUD as it "
          "is not a supported log level." in p.stdout + p.stderr, p.stdout + p.stderr)
    # Kafka 4.4.0 takes TRACE to FATAL at run time, not OFF (a log4j level all the same).
    p = configs(b, "--alter", "--add-config", "root=OFF", ok=False)
    check(p.returncode != 0 and "Cannot set the log level of root to OFF as it is not a supported "
          "log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN" in
          p.stdout + p.stderr, p.stdout + p.stderr)
    # ConfigCommand checks the name against the described loggers before it asks the broker
    # (the broker's own refusal, "Logger ... does not exist!", is in config_handlers_test.cc).
    p = configs(b, "--alter", "--add-config", "kafka.nope.Nothing=DEBUG", ok=False)
    check(p.returncode != 0 and "Invalid broker logger(s): kafka.nope.Nothing" in
          p.stdout + p.stderr, p.stdout + p.stderr)
    p = configs(b, "--alter", "--delete-config", "root", ok=False)
    check(p.returncode != 0 and "Removing the log level of the root logger is not allowed" in
          p.stdout + p.stderr, p.stdout + p.stderr)
    check(described(b)[0].get("kafka.log.LogCleaner") == "DEBUG", "a refused change applied")

    # DELETE: the logger inherits root's INFO again and the DEBUG lines stop.
    configs(b, "--alter", "--delete-config", "kafka.log.LogCleaner")
    check(described(b)[0].get("kafka.log.LogCleaner") == "INFO", "not INFO after delete-config")
    time.sleep(0.5)  # a round already past the check may still print
    unset_at = len(b.log())
    time.sleep(1.5)
    check(not CLEANER_DEBUG.search(b.log(), unset_at), "cleaner DEBUG lines after delete-config")
    # The whole tree through root.
    configs(b, "--alter", "--add-config", "root=DEBUG")
    wait_for(lambda: CLEANER_DEBUG.search(b.log(), unset_at), 10, "DEBUG through root")
    levels, out = described(b)
    check(levels.get("kafka.server.KafkaApis") == "DEBUG", f"root=DEBUG not inherited:\n{out}")
    ctx.expect_records = None


def _setup(ctx):
    ctx.broker.overrides.append("log.cleaner.backoff.ms=200")


broker_loggers_kafka_configs.setup = _setup


def broker_log_level_at_start(ctx):
    b = ctx.broker
    kafka_tool(T, "--bootstrap-server", b.bootstrap, "--create", "--topic", "compacted",
               "--partitions", "1", "--config", "cleanup.policy=compact")
    wait_for(lambda: CLEANER_DEBUG.search(b.log()), 10, "a cleaner DEBUG line (set at start)")
    levels, out = described(b)
    check(levels.get("kafka.log.LogCleaner") == "DEBUG" and levels.get("root") == "INFO" and
          levels.get("kafka.server.KafkaApis") == "WARN", f"levels given at start:\n{out}")
    # KafkaApis at WARN: its INFO line for an altered topic config is not written; the same
    # change with the logger back at INFO is.
    alter = ["--bootstrap-server", b.bootstrap, "--alter", "--entity-type", "topics",
             "--entity-name", "compacted", "--add-config"]
    kafka_tool(C, *alter, "retention.ms=3600000")
    check("Altered the configs of topic compacted" not in b.log(), "an INFO line at WARN")
    configs(b, "--alter", "--delete-config", "kafka.server.KafkaApis")
    kafka_tool(C, *alter, "retention.ms=7200000")
    wait_for(lambda: "INFO Altered the configs of topic compacted" in b.log(), 10,
             "KafkaApis' INFO line once its level is unset")
    ctx.expect_records = None


def _setup_start(ctx):
    ctx.broker.overrides += ["log.cleaner.backoff.ms=200", "log4j.rootLogger=info, stdout",
                             "log4j.logger.kafka.log.LogCleaner=DEBUG",
                             "log4j.logger.kafka.server.KafkaApis=WARN"]


broker_log_level_at_start.setup = _setup_start

CASES = [broker_loggers_kafka_configs, broker_log_level_at_start]
