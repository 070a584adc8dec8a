// LogConfig: parsing, validation and overrides over the topic config table
// (log/topic_config_defs.h); see seglog/log_config.h.
#include "seglog/log_config.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <vector>

#include "base/config_values.h"
#include "log/topic_config_defs.h"

namespace seglog {

int64_t LogConfig::MaxSegmentMs() const {
  if (cleanup_compact && max_compaction_lag_ms > 0)
    return std::min(max_compaction_lag_ms, segment_ms);
  return segment_ms;
}

Status LogConfig::Set(const std::string& name, const std::string& value) {
  const TopicConfigDef* def = FindTopicConfigDef(name);
  if (def == nullptr || !def->set) {
    return Status::InvalidArgument(fmt::format("Unknown topic config name: {}", name));
  }
  return def->set(this, value);
}

bool LogConfig::IsKnownName(const std::string& name) {
  const TopicConfigDef* def = FindTopicConfigDef(name);
  return def != nullptr && def->set != nullptr;
}

bool LogConfig::IsKafkaName(const std::string& name) { return FindTopicConfigDef(name) != nullptr; }

Result<LogConfig> LogConfig::FromProperties(const std::map<std::string, std::string>& props) {
  LogConfig config;
  std::string errors;
  for (const auto& [name, value] : props) {
    Status s = config.Set(name, value);
    if (!s.ok()) {
      if (!errors.empty()) errors += "; ";
      errors += std::string(s.message());
    }
  }
  if (errors.empty() && config.min_compaction_lag_ms > config.max_compaction_lag_ms) {
    errors = fmt::format(
        "conflict topic config setting min.compaction.lag.ms ({}) > max.compaction.lag.ms ({})",
        config.min_compaction_lag_ms, config.max_compaction_lag_ms);
  }
  if (!errors.empty()) return Status::InvalidArgument(errors);
  return config;
}

Status LogConfig::ValidateRemoteStorage(bool system_enabled, bool was_enabled) const {
  if (was_enabled && !remote_storage_enable && !remote_log_delete_on_disable) {
    return Status::InvalidArgument(
        "It is invalid to disable remote storage without deleting remote data. If you want to "
        "keep the remote data and turn to read only, please set `remote.storage.enable=true,"
        "remote.log.copy.disable=true`. If you want to disable remote storage and delete all "
        "remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.");
  }
  if (!remote_storage_enable) return Status::OK();
  if (!system_enabled) {
    return Status::InvalidArgument(
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured "
        "with remote log storage.");
  }
  if (cleanup_compact) {
    return Status::InvalidArgument(
        "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy "
        "being an empty list.");
  }
  if (retention_bytes > -1 && local_retention_bytes != -2) {
    if (local_retention_bytes == -1) {
      return ConfigInvalid(
          "local.retention.bytes", std::to_string(local_retention_bytes),
          fmt::format("Value must not be -1 as retention.bytes value is set as {}.",
                      retention_bytes));
    }
    if (local_retention_bytes > retention_bytes) {
      return ConfigInvalid(
          "local.retention.bytes", std::to_string(local_retention_bytes),
          fmt::format("Value must not be more than retention.bytes property value: {}",
                      retention_bytes));
    }
  }
  if (retention_ms != -1 && local_retention_ms != -2) {
    if (local_retention_ms == -1) {
      return ConfigInvalid(
          "local.retention.ms", std::to_string(local_retention_ms),
          fmt::format("Value must not be -1 as retention.ms value is set as {}.", retention_ms));
    }
    if (local_retention_ms > retention_ms) {
      return ConfigInvalid(
          "local.retention.ms", std::to_string(local_retention_ms),
          fmt::format("Value must not be more than retention.ms property value: {}", retention_ms));
    }
  }
  if (remote_log_copy_disable) {
    // Kafka checks bytes first (InvalidConfigurationException).
    const char* kMessage =
        "When `remote.log.copy.disable` is set to true, the `local.retention.{0}` and "
        "`retention.{0}` must be set to the identical value because there will be no more logs "
        "copied to the remote storage.";
    if (local_retention_bytes != -2 && local_retention_bytes != retention_bytes) {
      return Status::InvalidArgument(fmt::format(fmt::runtime(kMessage), "bytes"));
    }
    if (local_retention_ms != -2 && local_retention_ms != retention_ms) {
      return Status::InvalidArgument(fmt::format(fmt::runtime(kMessage), "ms"));
    }
  }
  // KIP-1241: a lag beyond what stays local would never be waited for.
  if (remote_copy_lag_ms > 0 && LocalRetentionMs() >= 0 &&
      remote_copy_lag_ms > LocalRetentionMs()) {
    return ConfigInvalid(
        "remote.copy.lag.ms", std::to_string(remote_copy_lag_ms),
        fmt::format("Value must not exceed local.retention.ms (effective value: {})",
                    LocalRetentionMs()));
  }
  if (remote_copy_lag_bytes > 0 && LocalRetentionBytes() >= 0 &&
      remote_copy_lag_bytes > LocalRetentionBytes()) {
    return ConfigInvalid(
        "remote.copy.lag.bytes", std::to_string(remote_copy_lag_bytes),
        fmt::format("Value must not exceed local.retention.bytes (effective value: {})",
                    LocalRetentionBytes()));
  }
  return Status::OK();
}

std::map<std::string, std::string> LogConfig::Overrides() const {
  const LogConfig defaults;
  std::map<std::string, std::string> out;
  for (const TopicConfigDef& def : TopicConfigDefs()) {
    if (!def.get) continue;
    const std::string mine = def.get(*this);
    if (mine != def.get(defaults)) out[def.name] = mine;
  }
  return out;
}

}  // namespace seglog
