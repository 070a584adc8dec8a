// LogManager: the topic defaults in force, and dynamic broker configs (see log_manager.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "manager/log_manager.h"

namespace seglog {

std::shared_ptr<const LogManagerConfig> LogManager::Effective() const {
  MutexLock l(&defaults_mu_);
  return effective_;
}

Result<LogConfig> LogManager::TopicConfig(
    const std::map<std::string, std::string>& overrides) const {
  return Effective()->TopicConfig(overrides);
}

Result<LogConfig> LogManager::StoredTopicConfig(
    const std::map<std::string, std::string>& overrides) const {
  return Effective()->StoredTopicConfig(overrides);
}

std::map<std::string, std::string> LogManager::TopicDefaults() const {
  return Effective()->topic_defaults;
}

std::map<std::string, std::string> LogManager::DynamicBrokerConfigs(
    const std::string& resource) const {
  return metadata_ != nullptr ? metadata_->BrokerConfigs(resource)
                              : std::map<std::string, std::string>{};
}

void LogManager::LoadDynamicConfigs() {
  const std::string node = std::to_string(config_.node_id);
  std::vector<std::string> skipped;
  auto next = std::make_shared<const LogManagerConfig>(
      config_.WithDynamicConfigs(DynamicBrokerConfigs(""), DynamicBrokerConfigs(node), &skipped));
  if (!skipped.empty()) {
    logger_.Info(
        fmt::format("Dynamic broker configs kept in the metadata log that seglog does "
                    "not apply: {}",
                    fmt::join(skipped, ", ")));
  }
  MutexLock l(&defaults_mu_);
  effective_ = std::move(next);
}

Status LogManager::AlterBrokerConfigs(const std::string& resource,
                                      const std::map<std::string, std::string>& next,
                                      bool validate_only) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("alter broker configs"));
  const std::string node = std::to_string(config_.node_id);
  if (!resource.empty() && resource != node) {
    return Status::InvalidArgument(fmt::format(
        "Unexpected broker id, expected {} or empty string, but received {}", node, resource));
  }
  if (metadata_ == nullptr) return Status::FailedPrecondition("there is no metadata log");
  MutexLock admin(&admin_mu_);
  const std::map<std::string, std::string> current = metadata_->BrokerConfigs(resource);
  // Only what changes must be a config seglog applies (a Kafka broker may have set others).
  for (const auto& [k, v] : next) {
    auto it = current.find(k);
    if (it != current.end() && it->second == v) continue;
    SEGLOG_RETURN_IF_ERROR(LogManagerConfig::CheckDynamicConfig(k, v));
  }
  // Together with the other layer they must make a valid topic config.
  std::map<std::string, std::string> cluster = DynamicBrokerConfigs("");
  std::map<std::string, std::string> mine = DynamicBrokerConfigs(node);
  (resource.empty() ? cluster : mine) = next;
  std::map<std::string, std::string> defaults = config_.topic_defaults;
  for (const auto* layer : {&cluster, &mine}) {
    for (const auto& [k, v] : *layer) {
      auto key = LogManagerConfig::DynamicTopicDefaultKeys().find(k);
      if (key != LogManagerConfig::DynamicTopicDefaultKeys().end()) defaults[key->second] = v;
    }
  }
  SEGLOG_RETURN_IF_ERROR(LogConfig::FromProperties(defaults).status());
  if (validate_only) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(metadata_->AlterBrokerConfig(resource, next));
  logger_.Info(fmt::format("Dynamic broker configs of {} are now {{{}}}",
                           resource.empty() ? "the cluster default" : "broker " + resource,
                           fmt::join(next, ", ")));
  LoadDynamicConfigs();
  // Every log whose topic does not override a changed default takes the new value.
  TopicMap topics;
  {
    MutexLock l(&mu_);
    topics = topics_;
  }
  for (const LogRef& ref : AllLogs()) {
    auto t = topics.find(ref.tp.topic);
    if (t == topics.end()) continue;
    Result<LogConfig> c = StoredTopicConfig(t->second.configs);
    if (c.ok()) {
      ref.log->UpdateConfig(*c);
    } else {
      logger_.Warn(fmt::format("{}: the new broker defaults do not apply: {}",
                               PartitionDirName(ref.tp), c.status().ToString()));
    }
  }
  NoteFlushSettings(topics);
  return Status::OK();
}

}  // namespace seglog
