// The topic config table; see topic_config_defs.h. Validation messages follow Kafka's
// ConfigDef: "Invalid value X for configuration NAME: <reason>".
#include "log/topic_config_defs.h"

#include <fmt/format.h>

#include <charconv>

#include "log/config_values.h"

namespace seglog {

namespace {

using T = TopicConfigType;

constexpr const char* kLongMax = "9223372036854775807";

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

}  // namespace

const std::vector<TopicConfigDef>& TopicConfigDefs() {
  static const std::vector<TopicConfigDef> defs = {
      {"cleanup.policy",
       T::kList,
       "delete",
       {{"log.cleanup.policy", "delete"}},
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
      {"compression.gzip.level",
       T::kInt,
       "-1",
       {{"compression.gzip.level", "-1"}},
       nullptr,
       nullptr},
      {"compression.lz4.level", T::kInt, "9", {{"compression.lz4.level", "9"}}, nullptr, nullptr},
      {"compression.type",
       T::kString,
       "producer",
       {{"compression.type", "producer"}},
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
      {"compression.zstd.level", T::kInt, "3", {{"compression.zstd.level", "3"}}, nullptr, nullptr},
      {"delete.retention.ms",
       T::kLong,
       "86400000",
       {{"log.cleaner.delete.retention.ms", "86400000"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("delete.retention.ms", v, 0, &c->delete_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.delete_retention_ms); }},
      {"errors.deadletterqueue.group.enable", T::kBoolean, "false", {}, nullptr, nullptr},
      {"file.delete.delay.ms",
       T::kLong,
       "60000",
       {{"log.segment.delete.delay.ms", "60000"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("file.delete.delay.ms", v, 0, &c->file_delete_delay_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.file_delete_delay_ms); }},
      {"flush.messages",
       T::kLong,
       kLongMax,
       {{"log.flush.interval.messages", kLongMax}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("flush.messages", v, 1, &c->flush_messages);
       },
       [](const LogConfig& c) { return std::to_string(c.flush_messages); }},
      {"flush.ms",
       T::kLong,
       kLongMax,
       {{"log.flush.interval.ms", nullptr}, {"log.flush.scheduler.interval.ms", kLongMax}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("flush.ms", v, 0, &c->flush_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.flush_ms); }},
      {"follower.replication.throttled.replicas", T::kList, "", {}, nullptr, nullptr},
      {"index.interval.bytes",
       T::kInt,
       "4096",
       {{"log.index.interval.bytes", "4096"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("index.interval.bytes", v, 0, &c->index_interval_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.index_interval_bytes); }},
      {"leader.replication.throttled.replicas", T::kList, "", {}, nullptr, nullptr},
      {"local.retention.bytes",
       T::kLong,
       "-2",
       {{"log.local.retention.bytes", "-2"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.bytes", v, -2, &c->local_retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_bytes); }},
      {"local.retention.ms",
       T::kLong,
       "-2",
       {{"log.local.retention.ms", "-2"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("local.retention.ms", v, -2, &c->local_retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.local_retention_ms); }},
      {"max.compaction.lag.ms",
       T::kLong,
       kLongMax,
       {{"log.cleaner.max.compaction.lag.ms", kLongMax}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("max.compaction.lag.ms", v, 1, &c->max_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.max_compaction_lag_ms); }},
      {"max.decompressed.message.bytes", T::kInt, "2147483639", {}, nullptr, nullptr},
      {"max.message.bytes",
       T::kInt,
       "1048588",
       {{"message.max.bytes", "1048588"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("max.message.bytes", v, 0, &c->max_message_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.max_message_bytes); }},
      {"message.timestamp.after.max.ms",
       T::kLong,
       "3600000",
       {{"log.message.timestamp.after.max.ms", "3600000"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.after.max.ms", v, 0,
                                        &c->message_timestamp_after_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_after_max_ms); }},
      {"message.timestamp.before.max.ms",
       T::kLong,
       kLongMax,
       {{"log.message.timestamp.before.max.ms", kLongMax}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("message.timestamp.before.max.ms", v, 0,
                                        &c->message_timestamp_before_max_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.message_timestamp_before_max_ms); }},
      {"message.timestamp.type",
       T::kString,
       "CreateTime",
       {{"log.message.timestamp.type", "CreateTime"}},
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
       T::kDouble,
       "0.5",
       {{"log.cleaner.min.cleanable.ratio", "0.5"}},
       [](LogConfig* c, const std::string& v) {
         return ParseRatio("min.cleanable.dirty.ratio", v, &c->min_cleanable_dirty_ratio);
       },
       [](const LogConfig& c) { return FormatDouble(c.min_cleanable_dirty_ratio); }},
      {"min.compaction.lag.ms",
       T::kLong,
       "0",
       {{"log.cleaner.min.compaction.lag.ms", "0"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("min.compaction.lag.ms", v, 0, &c->min_compaction_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.min_compaction_lag_ms); }},
      {"min.insync.replicas", T::kInt, "1", {{"min.insync.replicas", "1"}}, nullptr, nullptr},
      {"preallocate",
       T::kBoolean,
       "false",
       {{"log.preallocate", "false"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("preallocate", v, &c->preallocate);
       },
       [](const LogConfig& c) { return std::string(c.preallocate ? "true" : "false"); }},
      {"remote.copy.lag.bytes",
       T::kLong,
       "-1",
       {{"log.remote.copy.lag.bytes", "-1"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.bytes", v, -1, &c->remote_copy_lag_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_bytes); }},
      {"remote.copy.lag.ms",
       T::kLong,
       "0",
       {{"log.remote.copy.lag.ms", "0"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.copy.lag.ms", v, -1, &c->remote_copy_lag_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.remote_copy_lag_ms); }},
      {"remote.log.copy.disable",
       T::kBoolean,
       "false",
       {},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.log.copy.disable", v, &c->remote_log_copy_disable);
       },
       [](const LogConfig& c) {
         return std::string(c.remote_log_copy_disable ? "true" : "false");
       }},
      {"remote.log.delete.on.disable",
       T::kBoolean,
       "false",
       {},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.log.delete.on.disable", v,
                                &c->remote_log_delete_on_disable);
       },
       [](const LogConfig& c) {
         return std::string(c.remote_log_delete_on_disable ? "true" : "false");
       }},
      {"remote.storage.enable",
       T::kBoolean,
       "false",
       {},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigBool("remote.storage.enable", v, &c->remote_storage_enable);
       },
       [](const LogConfig& c) { return std::string(c.remote_storage_enable ? "true" : "false"); }},
      {"retention.bytes",
       T::kLong,
       "-1",
       {{"log.retention.bytes", "-1"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.bytes", v, INT64_MIN, &c->retention_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_bytes); }},
      {"retention.ms",
       T::kLong,
       "604800000",
       {{"log.retention.ms", nullptr},
        {"log.retention.minutes", nullptr},
        {"log.retention.hours", "168"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("retention.ms", v, -1, &c->retention_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.retention_ms); }},
      {"segment.bytes",
       T::kInt,
       "1073741824",
       {{"log.segment.bytes", "1073741824"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.bytes", v, 1048576, &c->segment_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_bytes); }},
      {"segment.index.bytes",
       T::kInt,
       "10485760",
       {{"log.index.size.max.bytes", "10485760"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int32_t>("segment.index.bytes", v, 4, &c->segment_index_bytes);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_index_bytes); }},
      {"segment.jitter.ms",
       T::kLong,
       "0",
       {{"log.roll.jitter.ms", nullptr}, {"log.roll.jitter.hours", "0"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.jitter.ms", v, 0, &c->segment_jitter_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_jitter_ms); }},
      {"segment.ms",
       T::kLong,
       "604800000",
       {{"log.roll.ms", nullptr}, {"log.roll.hours", "168"}},
       [](LogConfig* c, const std::string& v) {
         return ParseConfigInt<int64_t>("segment.ms", v, 1, &c->segment_ms);
       },
       [](const LogConfig& c) { return std::to_string(c.segment_ms); }},
      {"unclean.leader.election.enable",
       T::kBoolean,
       "false",
       {{"unclean.leader.election.enable", "false"}},
       nullptr,
       nullptr},
      {"internal.segment.bytes",
       T::kInt,
       nullptr,
       {},
       [](LogConfig* c, const std::string& v) {
         int32_t x = 0;
         SEGLOG_RETURN_IF_ERROR(ParseConfigInt<int32_t>("internal.segment.bytes", v, 14, &x));
         c->internal_segment_bytes = x;
         return Status::OK();
       },
       [](const LogConfig& c) {
         return c.internal_segment_bytes ? std::to_string(*c.internal_segment_bytes) : "";
       },
       /*internal=*/true},
  };
  return defs;
}

const TopicConfigDef* FindTopicConfigDef(std::string_view name) {
  for (const TopicConfigDef& d : TopicConfigDefs()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

}  // namespace seglog
