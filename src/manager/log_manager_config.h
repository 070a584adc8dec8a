// LogManagerConfig: the storage settings of a server.properties - log directories, recovery,
// the background tasks, the cleaner, producer expiry, and the broker's defaults for topic
// configs - with Kafka's names, defaults, precedence and validation
// (docs/design/log_manager.md, "Settings: Kafka's names, defaults and synonyms"). The log.*
// defaults for topics become each topic's defaults through Kafka's synonyms (log.retention.ms
// over .minutes over .hours, log.roll.ms over .hours, ...), and a topic's overrides apply on
// top (TopicConfig).
//
// The layers above storage parse their own keys: the node (src/node, BrokerConfig) hands them
// to Parse. Parsed alone (FromProperties: the embedded Storage, tools, tests), a Kafka broker's
// keys outside storage are accepted and listed in `ignored`; any other unknown key is an error
// naming it.
//
// Thread safety: a value type.
#ifndef SEGLOG_MANAGER_LOG_MANAGER_CONFIG_H_
#define SEGLOG_MANAGER_LOG_MANAGER_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seglog/log_config.h"
#include "seglog/result.h"

namespace seglog {

struct LogManagerConfig {
  std::vector<std::string> log_dirs = {"/tmp/kafka-logs"};  // log.dirs, else log.dir
  int32_t node_id = 1;                                      // node.id, in meta.properties
  int32_t num_partitions = 1;                               // default partitions of a new topic
  // remote.log.storage.system.enable: whether topics may tier (remote.storage.enable); the
  // logs keep local retention apart from retention when they do. Tiered storage itself
  // (src/remote, RemoteLogStorageConfig) reads its own keys.
  bool remote_storage_system_enable = false;
  int32_t num_recovery_threads_per_data_dir = 2;     // >= 1
  int64_t log_retention_check_interval_ms = 300000;  // >= 1
  int64_t log_flush_scheduler_interval_ms = INT64_MAX;
  int64_t log_flush_offset_checkpoint_interval_ms = 60000;        // >= 0
  int64_t log_flush_start_offset_checkpoint_interval_ms = 60000;  // >= 0
  int64_t log_initial_task_delay_ms = 30000;                      // >= 0
  int32_t background_threads = 10;                                // >= 1
  // The log cleaner's settings (LogManager::StartTasks and RunCleanerRound).
  bool log_cleaner_enable = true;
  int32_t log_cleaner_threads = 1;
  int64_t log_cleaner_dedupe_buffer_size = 134217728;
  int32_t log_cleaner_io_buffer_size = 524288;
  double log_cleaner_io_buffer_load_factor = 0.9;
  double log_cleaner_io_max_bytes_per_second = 1.7976931348623157e308;
  int64_t log_cleaner_backoff_ms = 15000;
  // Idempotent producers (Kafka's ProducerStateManagerConfig; both int, >= 1): a producer
  // without an ongoing transaction is forgotten once its last batch timestamp is
  // producer.id.expiration.ms old, checked every producer.id.expiration.check.interval.ms.
  int64_t producer_id_expiration_ms = 86400000;
  int64_t producer_id_expiration_check_interval_ms = 600000;
  // The metadata log (src/metadata, Kafka's MetadataLogConfig): its segments, when a snapshot
  // is taken, and how long old snapshots and segments stay.
  int64_t metadata_log_segment_bytes = 1073741824;                     // >= 8 MiB
  int64_t metadata_log_segment_ms = 604800000;                         // >= 1
  int64_t metadata_log_max_record_bytes_between_snapshots = 20971520;  // >= 1
  int64_t metadata_log_max_snapshot_interval_ms = 3600000;             // >= 0; 0: never by time
  int64_t metadata_max_retention_bytes = 104857600;
  int64_t metadata_max_retention_ms = 604800000;

  // Topic config names -> the broker's default for them (after the synonym rules).
  std::map<std::string, std::string> topic_defaults;
  // Kafka broker keys that were present and that no layer uses.
  std::vector<std::string> ignored;

  // Every problem in Kafka's words, all at once ("Invalid value 102400 for configuration
  // log.segment.bytes: Value must be at least 1048576"; "Unknown configuration 'x'").
  static Result<LogManagerConfig> FromProperties(const std::map<std::string, std::string>& props);

  // A layer above storage: sets a key of its own (the outcome of parsing the value), nullopt
  // for keys it does not know.
  using OtherLayer =
      std::function<std::optional<Status>(const std::string& key, const std::string& value)>;
  // Parses `props` into *c: the storage keys here, every other key offered to `other` (may be
  // null), then ignored if it is a Kafka broker key, else unknown. Each problem is appended to
  // `errors`; Finish turns them into the result.
  static void Parse(const std::map<std::string, std::string>& props, const OtherLayer& other,
                    LogManagerConfig* c, std::vector<std::string>* errors);
  // OK, or every error at once; then the topic defaults' rules across configs.
  Status Finish(const std::vector<std::string>& errors) const;

  // ---- Dynamic broker configs (Kafka's DynamicLogConfig) ----
  // The broker keys a dynamic broker config may set: for each topic config seglog applies, its
  // first broker synonym (log.retention.ms, log.segment.bytes, log.cleanup.policy, ...), mapped
  // to that topic config. Kafka's other dynamic broker keys are not applied by seglog.
  static const std::map<std::string, std::string>& DynamicTopicDefaultKeys();
  // OK when `key` may be set dynamically to `value`; else Kafka's words ("Cannot update these
  // configs dynamically: Set(k)", "Invalid value x for configuration k: ...").
  static Status CheckDynamicConfig(const std::string& key, const std::string& value);
  // This config with the dynamic broker configs over server.properties' topic defaults: the
  // cluster-wide defaults, then this node's, as Kafka layers them. A key seglog does not apply
  // (a Kafka broker set it) or a value that is not valid is passed over and named in *skipped.
  LogManagerConfig WithDynamicConfigs(const std::map<std::string, std::string>& cluster_default,
                                      const std::map<std::string, std::string>& node,
                                      std::vector<std::string>* skipped) const;

  // The topic's effective config: the broker's defaults, then the topic's overrides.
  Result<LogConfig> TopicConfig(const std::map<std::string, std::string>& overrides) const;
  // The same for overrides the metadata log holds: a Kafka topic config seglog does not apply
  // (min.insync.replicas, unclean.leader.election.enable, ...: Kafka writes some on its own
  // internal topics) is passed over rather than refused. The topic keeps it (DescribeConfigs
  // shows it, a Kafka broker taking over applies it); seglog runs without it.
  Result<LogConfig> StoredTopicConfig(const std::map<std::string, std::string>& overrides) const;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_MANAGER_CONFIG_H_
