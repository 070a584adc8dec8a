// LogConfig's property table; see seglog/log_config.h. Messages follow Kafka's ConfigDef:
// "Invalid value X for configuration NAME: <reason>".
#include "seglog/log_config.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <vector>

#include "log/config_values.h"

namespace seglog {

namespace {

Status ParseRatio(const std::string& name, const std::string& value, double* out) {
  double v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    return ConfigInvalid(name, value, "Not a number of type DOUBLE");
  }
  if (v < 0) return ConfigInvalid(name, value, "Value must be at least 0.0");
  if (v > 1) return ConfigInvalid(name, value, "Value must be no more than 1.0");
  *out = v;
  return Status::OK();
}

std::string FormatDouble(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // Java's Double.toString
  return s;
}

struct Property {
  const char* name;
  std::function<Status(LogConfig*, const std::string&)> set;
  std::function<std::string(const LogConfig&)> get;
};

const std::vector<Property>& Properties() {
  static const std::vector<Property> props = {
      {"segment.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.bytes", v, 1048576, &c->segment_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_bytes); }},
      {"internal.segment.bytes",
       [](LogConfig* c, const std::string& v) {
         int32_t x = 0;
         SEGLOG_RETURN_IF_ERROR(ParseConfigInt<int32_t>("internal.segment.bytes", v, 14, &x));
         c->internal_segment_bytes = x;
         return Status::OK();
       },
       [](const LogConfig& c) {
         return c.internal_segment_bytes ? std::to_string(*c.internal_segment_bytes) : "";
       }},
      {"segment.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.ms", v, 1, &c->segment_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_ms); }},
      {"segment.jitter.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.jitter.ms", v, 0, &c->segment_jitter_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_jitter_ms); }},
      {"segment.index.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.index.bytes", v, 4, &c->segment_index_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_index_bytes); }},
      {"index.interval.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("index.interval.bytes", v, 0, &c->index_interval_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.index_interval_bytes); }},
      {"max.message.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("max.message.bytes", v, 0, &c->max_message_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.max_message_bytes); }},
      {"message.timestamp.type",
       [](LogConfig* c, const std::string& v) {
         if (v == "CreateTime") {
           c->message_timestamp_type = TimestampType::kCreateTime;
         } else if (v == "LogAppendTime") {
           c->message_timestamp_type = TimestampType::kLogAppendTime;
         } else {
           return ConfigInvalid("message.timestamp.type", v,
                                "String must be one of: CreateTime, LogAppendTime");
         }
         return Status::OK();
       },
       [](const LogConfig& c) { return std::string(TimestampTypeName(c.message_timestamp_type)); }},
      {"message.timestamp.before.max.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.before.max.ms", v, 0,
                                        &c->message_timestamp_before_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_before_max_ms); }},
      {"message.timestamp.after.max.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.after.max.ms", v, 0,
                                        &c->message_timestamp_after_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_after_max_ms); }},
      {"cleanup.policy",
       [](LogConfig* c, const std::string& v) {
         bool compact = false, del = false;
         size_t start = 0;
         while (start <= v.size()) {
           size_t comma = v.find(',', start);
           if (comma == std::string::npos) comma = v.size();
           std::string item = v.substr(start, comma - start);
           item.erase(0, item.find_first_not_of(' '));
           item.erase(item.find_last_not_of(' ') + 1);
           if (item == "compact") {
             compact = true;
           } else if (item == "delete") {
             del = true;
           } else {
             return ConfigInvalid(
                 "cleanup.policy", v,
                 fmt::format("String must be one of: compact, delete (found '{}')", item));
           }
           start = comma + 1;
         }
         c->cleanup_compact = compact;
         c->cleanup_delete = del;
         return Status::OK();
       },
       [](const LogConfig& c) {
         if (c.cleanup_compact && c.cleanup_delete) return std::string("compact,delete");
         return std::string(c.cleanup_compact ? "compact" : "delete");
       }},
      {"max.compaction.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("max.compaction.lag.ms", v, 1, &c->max_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.max_compaction_lag_ms); }},
      {"compression.type",
       [](LogConfig* c, const std::string& v) {
         if (v == "producer") {
           c->compression.reset();
           return Status::OK();
         }
         if (v == "uncompressed") {
           c->compression = CompressionType::kNone;
           return Status::OK();
         }
         auto t = ParseCompressionName(v);
         if (!t.ok() || *t == CompressionType::kNone) {
           return ConfigInvalid(
               "compression.type", v,
               "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer");
         }
         c->compression = *t;
         return Status::OK();
       },
       [](const LogConfig& c) {
         if (!c.compression) return std::string("producer");
         if (*c.compression == CompressionType::kNone) return std::string("uncompressed");
         return std::string(CompressionName(*c.compression));
       }},
      {"flush.messages",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("flush.messages", v, 1, &c->flush_messages);
       },
       [](const LogConfig& c) { return std::to_string(c.flush_messages); }},
      {"flush.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("flush.ms", v, 0, &c->flush_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.flush_ms); }},
      {"retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.ms", v, -1, &c->retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_ms); }},
      {"retention.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.bytes", v, INT64_MIN, &c->retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_bytes); }},
      {"file.delete.delay.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("file.delete.delay.ms", v, 0, &c->file_delete_delay_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.file_delete_delay_ms); }},
      {"delete.retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("delete.retention.ms", v, 0, &c->delete_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.delete_retention_ms); }},
      {"min.compaction.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("min.compaction.lag.ms", v, 0, &c->min_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.min_compaction_lag_ms); }},
      {"min.cleanable.dirty.ratio",
       [](LogConfig* c, const std::string& v) {
         return ParseRatio("min.cleanable.dirty.ratio", v, &c->min_cleanable_dirty_ratio);
       },
       [](const LogConfig& c) { return FormatDouble(c.min_cleanable_dirty_ratio); }},
      {"preallocate",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("preallocate", v, &c->preallocate);
       },
       [](const LogConfig& c) { return std::string(c.preallocate ? "true" : "false"); }},
      {"remote.storage.enable",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.storage.enable", v, &c->remote_storage_enable);
       },
       [](const LogConfig& c) { return std::string(c.remote_storage_enable ? "true" : "false"); }},
      {"local.retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.ms", v, -2, &c->local_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_ms); }},
      {"local.retention.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.bytes", v, -2, &c->local_retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_bytes); }},
      {"remote.log.copy.disable",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.log.copy.disable", v, &c->remote_log_copy_disable);
       },
       [](const LogConfig& c) {
         return std::string(c.remote_log_copy_disable ? "true" : "false");
       }},
      {"remote.log.delete.on.disable",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.log.delete.on.disable", v,
                                &c->remote_log_delete_on_disable);
       },
       [](const LogConfig& c) {
         return std::string(c.remote_log_delete_on_disable ? "true" : "false");
       }},
      {"remote.copy.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.ms", v, -1, &c->remote_copy_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_ms); }},
      {"remote.copy.lag.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.bytes", v, -1, &c->remote_copy_lag_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_bytes); }},
  };
  return props;
}

}  // namespace

int64_t LogConfig::MaxSegmentMs() const {
  if (cleanup_compact && max_compaction_lag_ms > 0)
    return std::min(max_compaction_lag_ms, segment_ms);
  return segment_ms;
}

Status LogConfig::Set(const std::string& name, const std::string& value) {
  for (const Property& p : Properties()) {
    if (name == p.name) return p.set(this, value);
  }
  return Status::InvalidArgument(fmt::format("Unknown topic config name: {}", name));
}

bool LogConfig::IsKnownName(const std::string& name) {
  for (const Property& p : Properties()) {
    if (name == p.name) return true;
  }
  return false;
}

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
  for (const Property& p : Properties()) {
    const std::string mine = p.get(*this);
    if (mine != p.get(defaults)) out[p.name] = mine;
  }
  return out;
}

}  // namespace seglog
