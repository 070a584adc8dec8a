// The topic config table; see topic_config_defs.h. Validation messages follow Kafka's
// ConfigDef: "Invalid value X for configuration NAME: <reason>".
#include "log/topic_config_defs.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "base/config_values.h"
#include "log/generated/topic_config_kafka.h"

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

// How seglog parses, validates and prints each topic config it keeps (LogConfig's fields).
struct Setter {
  const char* name;
  std::function<Status(LogConfig*, const std::string&)> set;
  std::function<std::string(const LogConfig&)> get;
};

const std::vector<Setter>& Setters() {
  static const std::vector<Setter> setters = {
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
      {"delete.retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("delete.retention.ms", v, 0, &c->delete_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.delete_retention_ms); }},
      {"file.delete.delay.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("file.delete.delay.ms", v, 0, &c->file_delete_delay_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.file_delete_delay_ms); }},
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
      {"index.interval.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("index.interval.bytes", v, 0, &c->index_interval_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.index_interval_bytes); }},
      {"local.retention.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.bytes", v, -2, &c->local_retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_bytes); }},
      {"local.retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.ms", v, -2, &c->local_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_ms); }},
      {"max.compaction.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("max.compaction.lag.ms", v, 1, &c->max_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.max_compaction_lag_ms); }},
      {"max.message.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("max.message.bytes", v, 0, &c->max_message_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.max_message_bytes); }},
      {"message.timestamp.after.max.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.after.max.ms", v, 0,
                                        &c->message_timestamp_after_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_after_max_ms); }},
      {"message.timestamp.before.max.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.before.max.ms", v, 0,
                                        &c->message_timestamp_before_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_before_max_ms); }},
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
      {"min.cleanable.dirty.ratio",
       [](LogConfig* c, const std::string& v) {
         return ParseRatio("min.cleanable.dirty.ratio", v, &c->min_cleanable_dirty_ratio);
       },
       [](const LogConfig& c) { return FormatDouble(c.min_cleanable_dirty_ratio); }},
      {"min.compaction.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("min.compaction.lag.ms", v, 0, &c->min_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.min_compaction_lag_ms); }},
      {"preallocate",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("preallocate", v, &c->preallocate);
       },
       [](const LogConfig& c) { return std::string(c.preallocate ? "true" : "false"); }},
      {"remote.copy.lag.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.bytes", v, -1, &c->remote_copy_lag_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_bytes); }},
      {"remote.copy.lag.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.ms", v, -1, &c->remote_copy_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_ms); }},
      {"errors.deadletterqueue.group.enable",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("errors.deadletterqueue.group.enable", v,
                                &c->errors_deadletterqueue_group_enable);
       },
       [](const LogConfig& c) {
         return std::string(c.errors_deadletterqueue_group_enable ? "true" : "false");
       }},
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
      {"remote.storage.enable",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.storage.enable", v, &c->remote_storage_enable);
       },
       [](const LogConfig& c) { return std::string(c.remote_storage_enable ? "true" : "false"); }},
      {"retention.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.bytes", v, INT64_MIN, &c->retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_bytes); }},
      {"retention.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.ms", v, -1, &c->retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_ms); }},
      {"segment.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.bytes", v, 1048576, &c->segment_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_bytes); }},
      {"segment.index.bytes",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.index.bytes", v, 4, &c->segment_index_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_index_bytes); }},
      {"segment.jitter.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.jitter.ms", v, 0, &c->segment_jitter_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_jitter_ms); }},
      {"segment.ms",
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.ms", v, 1, &c->segment_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_ms); }},
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
  };
  return setters;
}

}  // namespace

const std::vector<TopicConfigDef>& TopicConfigDefs() {
  static const std::vector<TopicConfigDef> defs = [] {
    std::vector<TopicConfigDef> out;
    for (const KafkaTopicConfig& k : KafkaTopicConfigs()) {
      TopicConfigDef d;
      d.name = k.name;
      d.type = k.type;
      d.default_value = k.default_value;
      d.synonyms.assign(k.synonyms, k.synonyms + k.synonym_count);
      d.internal = k.internal;
      d.documentation = k.documentation;
      out.push_back(std::move(d));
    }
    for (const Setter& s : Setters()) {
      auto it = std::find_if(out.begin(), out.end(), [&](const TopicConfigDef& d) {
        return std::string(d.name) == s.name;
      });
      if (it == out.end()) {
        // A programming error: seglog keeps a config Kafka does not define.
        std::fprintf(stderr, "seglog: topic config %s is not one of Kafka's\n", s.name);
        std::abort();
      }
      it->set = s.set;
      it->get = s.get;
    }
    return out;
  }();
  return defs;
}

const TopicConfigDef* FindTopicConfigDef(std::string_view name) {
  for (const TopicConfigDef& d : TopicConfigDefs()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

}  // namespace seglog
