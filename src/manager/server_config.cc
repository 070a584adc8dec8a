// ServerConfig; see server_config.h.
#include "manager/server_config.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <set>

#include "base/properties.h"
#include "io/atomic_file.h"
#include "log/config_values.h"
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

// Keys of a Kafka broker's server.properties that seglog does not use (not about log storage,
// or socket server limits it does not apply).
bool IsOtherBrokerKey(const std::string& k) {
  static const std::set<std::string> exact = {"process.roles",
                                              "controller.quorum.voters",
                                              "controller.quorum.bootstrap.servers",
                                              "inter.broker.listener.name",
                                              "min.insync.replicas",
                                              "broker.id",
                                              "offsets.topic.replication.factor",
                                              "share.coordinator.state.topic.replication.factor",
                                              "share.coordinator.state.topic.min.isr",
                                              "delete.topic.enable",
                                              "unclean.leader.election.enable",
                                              "log.dir.failure.timeout.ms",
                                              "metadata.log.dir",
                                              "replica.high.watermark.checkpoint.interval.ms",
                                              "max.connections.per.ip",
                                              "max.connections.per.ip.overrides",
                                              "max.connection.creation.rate",
                                              "queued.max.request.bytes",
                                              "connection.failed.authentication.delay.ms"};
  if (exact.count(k)) return true;
  for (const char* prefix :
       {"socket.", "transaction.state.log.", "group.", "listener.name.", "ssl.", "sasl.", "metric.",
        "metrics.", "replica.", "controller.", "quota.", "share.", "remote.log.", "rlmm.config."}) {
    if (k.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> SplitDirs(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string d = v.substr(start, comma - start);
    while (!d.empty() && d.front() == ' ') d.erase(d.begin());
    while (!d.empty() && d.back() == ' ') d.pop_back();
    if (!d.empty()) out.push_back(d);
    start = comma + 1;
  }
  return out;
}

// listeners, advertised.listeners, with listener.security.protocol.map and
// controller.listener.names.
void ParseListenerConfigs(const std::map<std::string, std::string>& props, ServerConfig* c,
                          std::vector<std::string>* errors) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = props.find(key);
    return it == props.end() ? nullptr : &it->second;
  };
  std::map<std::string, std::string> protocols = DefaultSecurityProtocolMap();
  if (const std::string* v = get("listener.security.protocol.map")) {
    auto m = ParseSecurityProtocolMap("listener.security.protocol.map", *v);
    if (!m.ok()) {
      errors->emplace_back(m.status().message());
      return;
    }
    protocols = *m;
  }
  std::vector<std::string> controller_names;
  if (const std::string* v = get("controller.listener.names")) {
    for (const std::string& name : SplitDirs(*v)) {
      std::string upper = name;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      controller_names.push_back(upper);
      // KRaft maps controller listeners to PLAINTEXT when the map does not name them.
      protocols.emplace(upper, "PLAINTEXT");
    }
  }
  if (const std::string* v = get("listeners")) {
    auto l = ParseListeners("listeners", *v, protocols, controller_names);
    if (!l.ok()) {
      errors->emplace_back(l.status().message());
    } else if (l->empty()) {
      errors->push_back(fmt::format(
          "Invalid value {} for configuration listeners: no PLAINTEXT listener given", *v));
    } else {
      c->listeners = *l;
    }
  }
  c->advertised_listeners = c->listeners;
  if (const std::string* v = get("advertised.listeners")) {
    auto l = ParseListeners("advertised.listeners", *v, protocols, controller_names);
    if (!l.ok()) {
      errors->emplace_back(l.status().message());
      return;
    }
    for (const ListenerEndpoint& e : *l) {
      if (e.host == "0.0.0.0") {
        errors->push_back(
            "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a "
            "routable IP address.");
      }
    }
    if (!l->empty()) c->advertised_listeners = *l;
  }
}

}  // namespace

Result<ServerConfig> ServerConfig::FromProperties(const std::map<std::string, std::string>& props) {
  ServerConfig c;
  c.properties = props;
  std::vector<std::string> errors;
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

  const std::map<std::string, std::function<Status(const std::string&)>> broker = {
      {"log.dirs",
       [&](const std::string& v) {
         c.log_dirs = SplitDirs(v);
         return c.log_dirs.empty() ? ConfigInvalid("log.dirs", v, "no directory given")
                                   : Status::OK();
       }},
      {"log.dir",
       [&](const std::string& v) {
         if (get("log.dirs") == nullptr) c.log_dirs = SplitDirs(v);
         return Status::OK();
       }},
      {"node.id",
       [&](const std::string& v) { return ParseConfigInt<int32_t>("node.id", v, 0, &c.node_id); }},
      {"auto.create.topics.enable",
       [&](const std::string& v) {
         return ParseConfigBool("auto.create.topics.enable", v, &c.auto_create_topics_enable);
       }},
      // One node holds every replica there is: a factor above 1 could never be met (Kafka
      // refuses such a topic with InvalidReplicationFactorException, too few brokers).
      {"default.replication.factor",
       [&](const std::string& v) {
         Status st = ParseConfigInt<int16_t>("default.replication.factor", v, 1,
                                             &c.default_replication_factor);
         if (st.ok() && c.default_replication_factor != 1) {
           return Status::InvalidArgument(
               "Invalid value " + v +
               " for configuration default.replication.factor: seglog is a single broker, so "
               "the replication factor must be 1");
         }
         return st;
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
      {"remote.log.storage.system.enable",
       [&](const std::string& v) {
         return ParseConfigBool("remote.log.storage.system.enable", v, &c.remote.system_enable);
       }},
      {"remote.log.manager.task.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.manager.task.interval.ms", v, 1,
                                        &c.remote.task_interval_ms);
       }},
      {"remote.log.index.file.cache.total.size.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.index.file.cache.total.size.bytes", v, 1,
                                        &c.remote.index_file_cache_total_size_bytes);
       }},
      {"remote.log.metadata.custom.metadata.max.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.metadata.custom.metadata.max.bytes", v, 0,
                                        &c.remote.custom_metadata_max_bytes);
       }},
      {"remote.log.manager.copier.thread.pool.size",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.manager.copier.thread.pool.size", v, 1,
                                        &c.remote.copier_thread_pool_size);
       }},
      {"remote.log.storage.manager.class.name",
       [&](const std::string& v) {
         c.remote.storage_manager_class_name = v;
         return Status::OK();
       }},
      {"rlmm.config.remote.log.metadata.topic.num.partitions",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.metadata.topic.num.partitions", v, 1,
                                        &c.remote.metadata_topic_num_partitions);
       }},
      {"rlmm.config.remote.log.metadata.topic.retention.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.metadata.topic.retention.ms", v, -1,
                                        &c.remote.metadata_topic_retention_ms);
       }},
      {"remote.fetch.max.wait.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("remote.fetch.max.wait.ms", v, 1,
                                        &c.remote.fetch_max_wait_ms);
       }},
      {"transaction.state.log.num.partitions",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.state.log.num.partitions", v, 1,
                                        &c.txn.transaction_state_log_num_partitions);
       }},
      {"transaction.state.log.segment.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.state.log.segment.bytes", v, 1,
                                        &c.txn.transaction_state_log_segment_bytes);
       }},
      {"transaction.max.timeout.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.max.timeout.ms", v, 1,
                                        &c.txn.transaction_max_timeout_ms);
       }},
      {"transactional.id.expiration.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("transactional.id.expiration.ms", v, 1,
                                        &c.txn.transactional_id_expiration_ms);
       }},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>(
             "transaction.abort.timed.out.transaction.cleanup.interval.ms", v, 1,
             &c.txn.abort_timed_out_transaction_cleanup_interval_ms);
       }},
      {"transaction.remove.expired.transaction.cleanup.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>(
             "transaction.remove.expired.transaction.cleanup.interval.ms", v, 1,
             &c.txn.remove_expired_transaction_cleanup_interval_ms);
       }},
      {"transaction.version",
       [&](const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("transaction.version", v, 0, &x);
         if (s.ok() && x > 2) {
           s = ConfigInvalid("transaction.version", v, "Value must be no more than 2");
         }
         if (s.ok()) c.txn.transaction_version = static_cast<int16_t>(x);
         return s;
       }},
      {"transaction.partition.verification.enable",
       [&](const std::string& v) {
         return ParseConfigBool("transaction.partition.verification.enable", v,
                                &c.txn.transaction_partition_verification_enable);
       }},
      {"offsets.topic.num.partitions",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("offsets.topic.num.partitions", v, 1,
                                        &c.group.offsets_topic_num_partitions);
       }},
      {"offsets.topic.segment.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("offsets.topic.segment.bytes", v, 1,
                                        &c.group.offsets_topic_segment_bytes);
       }},
      {"group.min.session.timeout.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.min.session.timeout.ms", v, INT32_MIN,
                                        &c.group.group_min_session_timeout_ms);
       }},
      {"group.max.session.timeout.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.max.session.timeout.ms", v, INT32_MIN,
                                        &c.group.group_max_session_timeout_ms);
       }},
      {"group.initial.rebalance.delay.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.initial.rebalance.delay.ms", v, 0,
                                        &c.group.group_initial_rebalance_delay_ms);
       }},
      {"group.max.size",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.max.size", v, 1, &c.group.group_max_size);
       }},
      {"group.consumer.session.timeout.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.consumer.session.timeout.ms", v, 1,
                                        &c.group.group_consumer_session_timeout_ms);
       }},
      {"group.consumer.heartbeat.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.consumer.heartbeat.interval.ms", v, 1,
                                        &c.group.group_consumer_heartbeat_interval_ms);
       }},
      {"group.consumer.regex.refresh.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.consumer.regex.refresh.interval.ms", v, 10000,
                                        &c.group.group_consumer_regex_refresh_interval_ms);
       }},
      {"group.consumer.max.size",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("group.consumer.max.size", v, 1,
                                        &c.group.group_consumer_max_size);
       }},
      {"group.consumer.assignors",
       [&](const std::string& v) -> Status {
         std::vector<std::string> names;
         size_t start = 0;
         while (start <= v.size()) {
           size_t comma = v.find(',', start);
           if (comma == std::string::npos) comma = v.size();
           std::string name = v.substr(start, comma - start);
           while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
             name.pop_back();
           }
           while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front()))) {
             name.erase(name.begin());
           }
           // Kafka takes class names too: its two built-in assignors by theirs.
           if (name == "org.apache.kafka.coordinator.group.assignor.UniformAssignor")
             name = "uniform";
           if (name == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") name = "range";
           if (name != "uniform" && name != "range") {
             return Status::InvalidArgument(fmt::format(
                 "Invalid value {} for configuration group.consumer.assignors: seglog has the "
                 "assignors uniform and range",
                 v));
           }
           names.push_back(name);
           start = comma + 1;
         }
         c.group.group_consumer_assignors = std::move(names);
         return Status::OK();
       }},
      {"group.consumer.migration.policy",
       [&](const std::string& v) -> Status {
         std::string p = v;
         for (char& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
         if (p != "bidirectional" && p != "upgrade" && p != "downgrade" && p != "disabled") {
           return Status::InvalidArgument(fmt::format(
               "Invalid value {} for configuration group.consumer.migration.policy: String must "
               "be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL",
               v));
         }
         c.group.group_consumer_migration_upgrade = p == "bidirectional" || p == "upgrade";
         c.group.group_consumer_migration_downgrade = p == "bidirectional" || p == "downgrade";
         return Status::OK();
       }},
      {"offset.metadata.max.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("offset.metadata.max.bytes", v, INT32_MIN,
                                        &c.group.offset_metadata_max_bytes);
       }},
      {"offsets.retention.minutes",
       [&](const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("offsets.retention.minutes", v, 1, &x);
         if (s.ok()) c.group.offsets_retention_minutes = x;
         return s;
       }},
      {"offsets.retention.check.interval.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("offsets.retention.check.interval.ms", v, 1,
                                        &c.group.offsets_retention_check_interval_ms);
       }},
      {"log.cleaner.backoff.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("log.cleaner.backoff.ms", v, 0, &c.log_cleaner_backoff_ms);
       }},
      {"num.network.threads",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("num.network.threads", v, 1, &c.num_network_threads);
       }},
      {"num.io.threads",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("num.io.threads", v, 1, &c.num_io_threads);
       }},
      {"queued.max.requests",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("queued.max.requests", v, 1, &c.queued_max_requests);
       }},
      {"socket.request.max.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("socket.request.max.bytes", v, 1,
                                        &c.socket_request_max_bytes);
       }},
      {"socket.send.buffer.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("socket.send.buffer.bytes", v, INT32_MIN,
                                        &c.socket_send_buffer_bytes);
       }},
      {"socket.receive.buffer.bytes",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("socket.receive.buffer.bytes", v, INT32_MIN,
                                        &c.socket_receive_buffer_bytes);
       }},
      {"socket.listen.backlog.size",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("socket.listen.backlog.size", v, 1,
                                        &c.socket_listen_backlog_size);
       }},
      {"max.connections",
       [&](const std::string& v) {
         return ParseConfigInt<int32_t>("max.connections", v, 0, &c.max_connections);
       }},
      {"connections.max.idle.ms",
       [&](const std::string& v) {
         return ParseConfigInt<int64_t>("connections.max.idle.ms", v, INT64_MIN,
                                        &c.connections_max_idle_ms);
       }},
      // Read with `listeners` below, as they depend on each other.
      {"listeners", [](const std::string&) { return Status::OK(); }},
      {"advertised.listeners", [](const std::string&) { return Status::OK(); }},
      {"listener.security.protocol.map", [](const std::string&) { return Status::OK(); }},
      {"controller.listener.names", [](const std::string&) { return Status::OK(); }},
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
    if (auto it = broker.find(k); it != broker.end()) {
      check(it->second(v));
    } else if (k.rfind("rsm.config.", 0) == 0) {
      c.remote.rsm_config[k] = v;
    } else if (time_keys.count(k) || DirectSynonyms().count(k)) {
      // handled above
    } else if (IsOtherBrokerKey(k)) {
      c.ignored.push_back(k);
    } else {
      errors.push_back(fmt::format("Unknown configuration '{}'", k));
    }
  }
  if (c.group.group_consumer_heartbeat_interval_ms >= c.group.group_consumer_session_timeout_ms) {
    errors.push_back(
        "group.consumer.heartbeat.interval.ms must be less than "
        "group.consumer.session.timeout.ms");
  }
  ParseListenerConfigs(props, &c, &errors);
  if (!errors.empty()) {
    std::string all;
    for (const std::string& e : errors) all += (all.empty() ? "" : "; ") + e;
    return Status::InvalidArgument(all);
  }
  // The defaults must also make a valid topic config together (cross-field rules).
  SEGLOG_RETURN_IF_ERROR(LogConfig::FromProperties(c.topic_defaults).status());
  return c;
}

Result<ServerConfig> ServerConfig::Load(const std::string& path) {
  // The server's own config file, read before any engine (and its Env) exists.
  SEGLOG_ASSIGN_OR_RETURN(const std::string text, ReadFileToString(Env::Default(), path));
  auto c = FromProperties(ParseProperties(text));
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

Result<LogConfig> ServerConfig::TopicConfig(
    const std::map<std::string, std::string>& overrides) const {
  std::map<std::string, std::string> merged = topic_defaults;
  for (const auto& [k, v] : overrides) merged[k] = v;
  return LogConfig::FromProperties(merged);
}

}  // namespace seglog
