// LogManagerConfig; see log_manager_config.h.
#include "manager/log_manager_config.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <set>

#include "base/config_values.h"
#include "log/topic_config_defs.h"

namespace seglog {

namespace {

// Broker key -> topic key, for the synonyms that map one to one: the topic configs seglog keeps
// that fall back to exactly one broker setting (the time settings with several units are
// folded apart).
const std::map<std::string, std::string>& DirectSynonyms() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> out;
    for (const TopicConfigDef& def : TopicConfigDefs()) {
      if (def.set && def.synonyms.size() == 1) out[def.synonyms.front().name] = def.name;
    }
    return out;
  }();
  return m;
}

// Keys of a Kafka broker's server.properties outside storage: those the layers above parse
// (listeners, the socket server, the coordinators, tiered storage, the node), and those no
// part of seglog uses (quorum, replication, SSL ...).
bool IsOtherBrokerKey(const std::string& k) {
  static const std::set<std::string> exact = {
      // Read by the node and the layers above storage.
      "auto.create.topics.enable", "default.replication.factor", "listeners",
      "advertised.listeners", "listener.security.protocol.map", "controller.listener.names",
      "num.network.threads", "num.io.threads", "queued.max.requests", "max.connections",
      "connections.max.idle.ms", "offsets.topic.num.partitions", "offsets.topic.segment.bytes",
      "offset.metadata.max.bytes", "offsets.retention.minutes",
      "offsets.retention.check.interval.ms", "transaction.max.timeout.ms",
      "transactional.id.expiration.ms",
      "transaction.abort.timed.out.transaction.cleanup.interval.ms",
      "transaction.remove.expired.transaction.cleanup.interval.ms", "transaction.version",
      "transaction.partition.verification.enable", "remote.fetch.max.wait.ms",
      // Used by no part of seglog.
      "process.roles", "controller.quorum.voters", "controller.quorum.bootstrap.servers",
      "inter.broker.listener.name", "min.insync.replicas", "broker.id",
      "offsets.topic.replication.factor", "share.coordinator.state.topic.replication.factor",
      "share.coordinator.state.topic.min.isr", "delete.topic.enable",
      "unclean.leader.election.enable", "log.dir.failure.timeout.ms", "metadata.log.dir",
      "replica.high.watermark.checkpoint.interval.ms", "max.connections.per.ip",
      "max.connections.per.ip.overrides", "max.connection.creation.rate",
      "queued.max.request.bytes", "connection.failed.authentication.delay.ms",
      "connections.max.reauth.ms", "principal.builder.class"};
  if (exact.count(k)) return true;
  for (const char* prefix : {"socket.", "transaction.state.log.", "group.", "listener.name.",
                             "ssl.", "sasl.", "metric.", "metrics.", "replica.", "controller.",
                             "quota.", "share.", "remote.log.", "rlmm.config.", "rsm.config."}) {
    if (k.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

void LogManagerConfig::Parse(const std::map<std::string, std::string>& props,
                             const OtherLayer& other, LogManagerConfig* out,
                             std::vector<std::string>* errors_out) {
  LogManagerConfig& c = *out;
  std::vector<std::string>& errors = *errors_out;
  auto check = [&](const Status& s) {
    if (!s.ok()) errors.emplace_back(s.message());
  };
  auto get = [&](const char* key) -> const std::string* {
    auto it = props.find(key);
    return it == props.end() ? nullptr : &it->second;
  };
  // Time synonyms: the finest unit given wins.
  auto time_synonym = [&](const std::vector<std::pair<const char*, int64_t>>& keys, int64_t min,
                          const char* topic_key, bool negative_is_unlimited) {
    for (const auto& [key, unit] : keys) {
      const std::string* v = get(key);
      if (v == nullptr) continue;
      int64_t x = 0;
      Status s = ParseConfigInt<int64_t>(key, *v, negative_is_unlimited ? INT64_MIN : min, &x);
      if (!s.ok()) {
        check(s);
        return;
      }
      int64_t ms = x > INT64_MAX / unit ? INT64_MAX : x * unit;
      if (negative_is_unlimited && ms < 0) ms = -1;
      c.topic_defaults[topic_key] = std::to_string(ms);
      return;
    }
  };
  time_synonym({{"log.roll.ms", 1}, {"log.roll.hours", 3600000}}, 1, "segment.ms", false);
  time_synonym({{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", 3600000}}, 0,
               "segment.jitter.ms", false);
  time_synonym(
      {{"log.retention.ms", 1}, {"log.retention.minutes", 60000}, {"log.retention.hours", 3600000}},
      -1, "retention.ms", true);
  time_synonym({{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}}, 0,
               "flush.ms", false);
  for (const auto& [broker_key, topic_key] : DirectSynonyms()) {
    if (const std::string* v = get(broker_key.c_str())) c.topic_defaults[topic_key] = *v;
  }
  // Each topic default must be valid as the topic config it becomes; report it by the broker
  // key the user wrote.
  for (const auto& [broker_key, topic_key] : DirectSynonyms()) {
    const std::string* v = get(broker_key.c_str());
    if (v == nullptr) continue;
    LogConfig probe;
    Status s = probe.Set(topic_key, *v);
    if (!s.ok()) {
      std::string msg(s.message());
      const std::string needle = "configuration " + topic_key;
      if (auto at = msg.find(needle); at != std::string::npos) {
        msg.replace(at, needle.size(), "configuration " + broker_key);
      }
      errors.push_back(msg);
    }
  }

  const std::map<std::string, std::function<Status(const std::string&)>> storage = {
      {"log.dirs",
       [&](const std::string& v) {
         c.log_dirs = SplitConfigList(v);
         return c.log_dirs.empty() ? ConfigInvalid("log.dirs", v, "no directory given")
                                   : Status::OK();
       }},
      {"log.dir",
       [&](const std::string& v) {
         if (get("log.dirs") == nullptr) c.log_dirs = SplitConfigList(v);
         return Status::OK();
       }},
      {"node.id",
       [&](const std::string& v) { return ParseConfigInt<int32_t>("node.id", v, 0, &c.node_id); }},
      {"remote.log.storage.system.enable",
       [&](const std::string& v) {
         return ParseConfigBool("remote.log.storage.system.enable", v,
                                &c.remote_storage_system_enable);
       }},
      {"num.partitions",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("num.partitions", v, 1, &c.num_partitions);
       }},
      {"num.recovery.threads.per.data.dir",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("num.recovery.threads.per.data.dir", v, 1,
                                        &c.num_recovery_threads_per_data_dir);
       }},
      {"log.retention.check.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.retention.check.interval.ms", v, 1,
                                        &c.log_retention_check_interval_ms);
       }},
      {"log.flush.scheduler.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.flush.scheduler.interval.ms", v, INT64_MIN,
                                        &c.log_flush_scheduler_interval_ms);
       }},
      {"log.flush.offset.checkpoint.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.flush.offset.checkpoint.interval.ms", v, 0,
                                        &c.log_flush_offset_checkpoint_interval_ms);
       }},
      {"log.flush.start.offset.checkpoint.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.flush.start.offset.checkpoint.interval.ms", v, 0,
                                        &c.log_flush_start_offset_checkpoint_interval_ms);
       }},
      {"log.initial.task.delay.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.initial.task.delay.ms", v, 0,
                                        &c.log_initial_task_delay_ms);
       }},
      {"background.threads",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("background.threads", v, 1, &c.background_threads);
       }},
      {"log.cleaner.enable",
       [&](const std::string& v) {
         return ParseConfigBool("log.cleaner.enable", v, &c.log_cleaner_enable);
       }},
      {"log.cleaner.threads",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("log.cleaner.threads", v, 0, &c.log_cleaner_threads);
       }},
      {"log.cleaner.dedupe.buffer.size",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.cleaner.dedupe.buffer.size", v, INT64_MIN,
                                        &c.log_cleaner_dedupe_buffer_size);
       }},
      {"log.cleaner.io.buffer.size",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("log.cleaner.io.buffer.size", v, 0,
                                        &c.log_cleaner_io_buffer_size);
       }},
      {"producer.id.expiration.ms",
       [&](const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("producer.id.expiration.ms", v, 1, &x);
         if (s.ok()) c.producer_id_expiration_ms = x;
         return s;
       }},
      {"producer.id.expiration.check.interval.ms",
       [&](const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("producer.id.expiration.check.interval.ms", v, 1, &x);
         if (s.ok()) c.producer_id_expiration_check_interval_ms = x;
         return s;
       }},
      {"metadata.log.segment.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.log.segment.bytes", v, 8 * 1024 * 1024,
                                        &c.metadata_log_segment_bytes);
       }},
      {"metadata.log.segment.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.log.segment.ms", v, 1,
                                        &c.metadata_log_segment_ms);
       }},
      {"metadata.log.max.record.bytes.between.snapshots",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.log.max.record.bytes.between.snapshots", v, 1,
                                        &c.metadata_log_max_record_bytes_between_snapshots);
       }},
      {"metadata.log.max.snapshot.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.log.max.snapshot.interval.ms", v, 0,
                                        &c.metadata_log_max_snapshot_interval_ms);
       }},
      {"metadata.max.retention.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.max.retention.bytes", v, INT64_MIN,
                                        &c.metadata_max_retention_bytes);
       }},
      {"metadata.max.retention.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("metadata.max.retention.ms", v, INT64_MIN,
                                        &c.metadata_max_retention_ms);
       }},
      {"log.cleaner.backoff.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.cleaner.backoff.ms", v, 0, &c.log_cleaner_backoff_ms);
       }},
      {"log.cleaner.io.buffer.load.factor",
       [&](const std::string& v) {
         try {
           c.log_cleaner_io_buffer_load_factor = std::stod(v);
           return Status::OK();
         } catch (...) {
           return ConfigInvalid("log.cleaner.io.buffer.load.factor", v,
                                "Not a number of type DOUBLE");
         }
       }},
      {"log.cleaner.io.max.bytes.per.second",
       [&](const std::string& v) {
         try {
           c.log_cleaner_io_max_bytes_per_second = std::stod(v);
           return Status::OK();
         } catch (...) {
           return ConfigInvalid("log.cleaner.io.max.bytes.per.second", v,
                                "Not a number of type DOUBLE");
         }
       }},
  };
  static const std::set<std::string> time_keys = {
      "log.roll.ms",      "log.roll.hours",        "log.roll.jitter.ms",  "log.roll.jitter.hours",
      "log.retention.ms", "log.retention.minutes", "log.retention.hours", "log.flush.interval.ms"};
  for (const auto& [k, v] : props) {
    if (auto it = storage.find(k); it != storage.end()) {
      check(it->second(v));
    } else if (time_keys.count(k) || DirectSynonyms().count(k)) {
      // handled above
    } else if (std::optional<Status> theirs = other ? other(k, v) : std::nullopt) {
      check(*theirs);
    } else if (IsOtherBrokerKey(k)) {
      c.ignored.push_back(k);
    } else {
      errors.push_back(fmt::format("Unknown configuration '{}'", k));
    }
  }
}

Status LogManagerConfig::Finish(const std::vector<std::string>& errors) const {
  if (!errors.empty()) {
    std::string all;
    for (const std::string& e : errors) all += (all.empty() ? "" : "; ") + e;
    return Status::InvalidArgument(all);
  }
  // The defaults must also make a valid topic config together (cross-field rules).
  return LogConfig::FromProperties(topic_defaults).status();
}

Result<LogManagerConfig> LogManagerConfig::FromProperties(
    const std::map<std::string, std::string>& props) {
  LogManagerConfig c;
  std::vector<std::string> errors;
  Parse(props, nullptr, &c, &errors);
  SEGLOG_RETURN_IF_ERROR(c.Finish(errors));
  return c;
}

const std::map<std::string, std::string>& LogManagerConfig::DynamicTopicDefaultKeys() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> out;
    for (const TopicConfigDef& def : TopicConfigDefs()) {
      if (def.set && !def.synonyms.empty()) out[def.synonyms.front().name] = def.name;
    }
    return out;
  }();
  return m;
}

Status LogManagerConfig::CheckDynamicConfig(const std::string& key, const std::string& value) {
  auto it = DynamicTopicDefaultKeys().find(key);
  if (it == DynamicTopicDefaultKeys().end()) {
    return Status::InvalidArgument(
        fmt::format("Cannot update these configs dynamically: Set({})", key));
  }
  LogConfig probe;
  Status s = probe.Set(it->second, value);
  if (s.ok()) return s;
  // Reported by the broker key the user wrote.
  std::string msg(s.message());
  const std::string needle = "configuration " + it->second;
  if (auto at = msg.find(needle); at != std::string::npos) {
    msg.replace(at, needle.size(), "configuration " + key);
  }
  return Status::InvalidArgument(msg);
}

LogManagerConfig LogManagerConfig::WithDynamicConfigs(
    const std::map<std::string, std::string>& cluster_default,
    const std::map<std::string, std::string>& node, std::vector<std::string>* skipped) const {
  LogManagerConfig out = *this;
  for (const auto* layer : {&cluster_default, &node}) {
    for (const auto& [k, v] : *layer) {
      if (!CheckDynamicConfig(k, v).ok()) {
        if (skipped != nullptr) skipped->push_back(k);
        continue;
      }
      out.topic_defaults[DynamicTopicDefaultKeys().at(k)] = v;
    }
  }
  // Together they must still make a valid topic config (cross-field rules); if not, the
  // static defaults stay.
  if (!LogConfig::FromProperties(out.topic_defaults).ok()) {
    if (skipped != nullptr) {
      for (const auto* layer : {&cluster_default, &node}) {
        for (const auto& [k, v] : *layer) skipped->push_back(k);
      }
    }
    return *this;
  }
  return out;
}

Result<LogConfig> LogManagerConfig::TopicConfig(
    const std::map<std::string, std::string>& overrides) const {
  std::map<std::string, std::string> merged = topic_defaults;
  for (const auto& [k, v] : overrides) merged[k] = v;
  return LogConfig::FromProperties(merged);
}

Result<LogConfig> LogManagerConfig::StoredTopicConfig(
    const std::map<std::string, std::string>& overrides) const {
  std::map<std::string, std::string> applied;
  for (const auto& [k, v] : overrides) {
    if (LogConfig::IsKnownName(k) || !LogConfig::IsKafkaName(k)) applied[k] = v;
  }
  return TopicConfig(applied);
}

}  // namespace seglog
