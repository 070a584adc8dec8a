// The storage-node subcommands; see manage.h.
#include "tools/manage.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/scheduler.h"
#include "manager/log_manager.h"

namespace seglog {

namespace {

// A one-shot run of a writing subcommand, logging what is worth showing to `out`.
Result<OneShotNode> OpenOneShot(const NodeOptions& o, std::ostream& out) {
  return OpenNode(o, /*read_only=*/false, [&out](const std::string& line) {
    if (IsNoteworthyNodeLine(line)) out << line << "\n";
  });
}

void PrintDescription(const TopicDescription& t, std::ostream& out) {
  std::string configs;
  for (const auto& [k, v] : t.overrides) configs += (configs.empty() ? "" : ",") + k + "=" + v;
  out << fmt::format("Topic: {}\tTopicId: {}\tPartitionCount: {}\tConfigs: {}\n", t.topic,
                     t.topic_id, t.partitions.size(), configs);
  for (const PartitionDescription& p : t.partitions) {
    out << fmt::format(
        "\tTopic: {}\tPartition: {}\tLogDir: {}\tSegments: {}\tBytes: {}\tLogStartOffset: {}\t"
        "LogEndOffset: {}\tRecoveryPoint: {}\n",
        t.topic, p.partition, p.log_dir, p.segments, p.bytes, p.log_start_offset, p.log_end_offset,
        p.recovery_point);
  }
}

}  // namespace

Status Topics(const TopicsOptions& o, std::ostream& out) {
  static const std::vector<std::string> actions = {"create", "describe", "alter", "delete", "list"};
  if (std::find(actions.begin(), actions.end(), o.action) == actions.end()) {
    return Status::InvalidArgument(
        "Command must include exactly one action: --list, --describe, --create, --alter or "
        "--delete");
  }
  if (o.topic.empty() && (o.action == "create" || o.action == "alter" || o.action == "delete")) {
    return Status::InvalidArgument(fmt::format("--{} needs --topic", o.action));
  }
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode s, OpenOneShot(o.node, out));
  LogManager& m = *s.manager;
  Status result;
  if (o.action == "create") {
    const int32_t n = o.partitions > 0 ? o.partitions : m.config().num_partitions;
    result = o.partitions == 0
                 ? Status::InvalidArgument("Number of partitions must be larger than 0, not 0")
                 : m.CreateTopic(o.topic, n, o.configs);
    if (result.ok()) out << "Created topic " << o.topic << ".\n";
  } else if (o.action == "list") {
    for (const std::string& t : m.ListTopics()) out << t << "\n";
  } else if (o.action == "describe") {
    for (const std::string& t : o.topic.empty() ? m.ListTopics() : std::vector{o.topic}) {
      auto d = m.DescribeTopic(t);
      if (!d.ok()) {
        result = d.status();
        break;
      }
      PrintDescription(*d, out);
    }
  } else if (o.action == "alter") {
    if (o.partitions > 0) result = m.AddPartitions(o.topic, o.partitions);
    if (result.ok() && !o.configs.empty()) result = m.AlterTopicConfig(o.topic, o.configs, {});
    if (result.ok() && o.partitions <= 0 && o.configs.empty()) {
      result = Status::InvalidArgument("--alter needs --partitions or --config");
    }
  } else if (o.action == "delete") {
    result = m.DeleteTopic(o.topic);
    if (result.ok()) out << "Deleted topic " << o.topic << ".\n";
  }
  return FinishNode(s, result);
}

Status Configs(const ConfigsOptions& o, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode s, OpenOneShot(o.node, out));
  Status result;
  if (o.alter) {
    if (o.add.empty() && o.remove.empty()) {
      result = Status::InvalidArgument("--alter needs --add-config or --delete-config");
    } else {
      result = s.manager->AlterTopicConfig(o.topic, o.add, o.remove);
      if (result.ok()) out << "Completed updating config for topic " << o.topic << ".\n";
    }
  } else {
    auto d = s.manager->DescribeTopic(o.topic);
    if (d.ok()) {
      out << "Dynamic configs for topic " << o.topic << " are:\n";
      for (const auto& [k, v] : d->overrides) out << "  " << k << "=" << v << "\n";
    }
    result = d.status();
  }
  return FinishNode(s, result);
}

Status DeleteRecordsCommand(const DeleteRecordsOptions& o, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode s, OpenOneShot(o.node, out));
  Status result;
  auto log = s.manager->GetLog({o.topic, o.partition});
  if (!log.ok()) {
    result = log.status();
  } else {
    auto low = (*log)->DeleteRecords(o.offset);
    if (low.ok()) {
      out << fmt::format("partition: {}-{}\tlow_watermark: {}\n", o.topic, o.partition, *low);
    }
    result = low.status();
  }
  return FinishNode(s, result);
}

Status Clean(const CleanOptions& o, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode s, OpenOneShot(o.node, out));
  auto n = s.manager->CleanNow(o.topic, o.partition, o.progress);
  if (n.ok()) out << fmt::format("cleaned {} partition(s) of {}\n", *n, o.topic);
  return FinishNode(s, n.status());
}

Status RunTasks(const NodeOptions& node, const std::vector<std::string>& tasks, std::ostream& out) {
  if (tasks.empty()) {
    return Status::InvalidArgument(
        "name at least one task: retention, flush, checkpoint, delete-files, cleaner, "
        "producer-expiration");
  }
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode s, OpenOneShot(node, out));
  Status result;
  for (const std::string& t : tasks) {
    result = s.manager->RunTask(t);
    if (!result.ok()) break;
    out << "ran " << t << "\n";
  }
  return FinishNode(s, result);
}

Status ServeStorage(const NodeOptions& node, const std::atomic<bool>& stop, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(BrokerConfig config, LoadNodeConfig(node));
  ThreadScheduler scheduler(config.background_threads);
  auto logger = KafkaLayoutLogger(out);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogManager> m,
                          LogManager::Open(config, &scheduler, logger));
  for (const std::string& k : config.ignored) logger.Info("Ignoring broker setting " + k);
  m->StartTasks();
  logger.Info("seglog storage node started");
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return m->Shutdown();
}

}  // namespace seglog
