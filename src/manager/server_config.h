// ServerConfig: the broker-level settings of a seglog storage node, read from a
// server.properties file with Kafka's names, defaults, precedence and validation
// (docs/design/log_manager.md, "Settings: Kafka's names, defaults and synonyms"). The log.*
// defaults for topics become each topic's defaults through Kafka's synonyms (log.retention.ms
// over .minutes over .hours, log.roll.ms over .hours, ...), and a topic's overrides apply on
// top (TopicConfig).
//
// The socket server's settings (listeners, network and I/O threads, socket limits) carry Kafka's
// names and defaults too (SocketServerConfigs, ServerConfigs); the server layer reads them.
//
// Keys that configure other parts of a Kafka broker (quorum, replication, SSL ...) are
// accepted and listed in `ignored`; any other unknown key is an error naming it.
//
// Thread safety: a value type.
#ifndef SEGLOG_MANAGER_SERVER_CONFIG_H_
#define SEGLOG_MANAGER_SERVER_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "manager/listener_config.h"
#include "seglog/log_config.h"
#include "seglog/result.h"

namespace seglog {

// The group coordinator's settings (src/group), with Kafka's names and defaults
// (GroupCoordinatorConfig). offsets.topic.replication.factor is accepted and ignored: one node
// holds the only replica.
struct GroupCoordinatorConfig {
  int32_t offsets_topic_num_partitions = 50;             // offsets.topic.num.partitions, >= 1
  int32_t offsets_topic_segment_bytes = 104857600;       // offsets.topic.segment.bytes, >= 1
  int32_t group_min_session_timeout_ms = 6000;           // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;        // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000;       // group.initial.rebalance.delay.ms, >= 0
  int32_t group_max_size = INT32_MAX;                    // group.max.size, >= 1
  int32_t offset_metadata_max_bytes = 4096;              // offset.metadata.max.bytes (Java chars)
  int64_t offsets_retention_minutes = 10080;             // offsets.retention.minutes, >= 1
  int64_t offsets_retention_check_interval_ms = 600000;  // offsets.retention.check.interval.ms
  // KIP-848's consumer groups (ConsumerGroupHeartbeat): the members' session timeout and the
  // heartbeat interval the coordinator tells them (the interval must be below the timeout),
  // the most members a group may have, and the server-side assignors (the first is the
  // default; each "uniform" or "range", or the class name of Kafka's).
  int32_t group_consumer_session_timeout_ms = 45000;    // group.consumer.session.timeout.ms
  int32_t group_consumer_heartbeat_interval_ms = 5000;  // group.consumer.heartbeat.interval.ms
  int32_t group_consumer_max_size = INT32_MAX;          // group.consumer.max.size, >= 1
  std::vector<std::string> group_consumer_assignors = {"uniform", "range"};  // ..assignors
  // How often the topics of a group's regular expressions are resolved again even when no
  // topic was created (Kafka's internal group.consumer.regex.refresh.interval.ms, >= 10 s).
  int32_t group_consumer_regex_refresh_interval_ms = 600000;
  // group.consumer.migration.policy (bidirectional, upgrade, downgrade, disabled; any case):
  // whether a live classic group becomes a consumer group when a ConsumerGroupHeartbeat member
  // joins it (upgrade), and a consumer group whose last consumer-protocol member leaves
  // becomes a classic group again (downgrade). Empty groups convert whatever it says.
  bool group_consumer_migration_upgrade = true;
  bool group_consumer_migration_downgrade = true;
};

// The transaction coordinator's settings (TransactionCoordinatorConfig). The replication
// factor and min.isr of __transaction_state are accepted and ignored: one node holds the only
// replica.
struct TransactionCoordinatorConfig {
  int32_t transaction_state_log_num_partitions = 50;        // transaction.state.log.num.partitions
  int32_t transaction_state_log_segment_bytes = 104857600;  // transaction.state.log.segment.bytes
  int32_t transaction_max_timeout_ms = 900000;              // transaction.max.timeout.ms, >= 1
  int32_t transactional_id_expiration_ms = 604800000;       // transactional.id.expiration.ms
  // transaction.abort.timed.out.transaction.cleanup.interval.ms, >= 1
  int32_t abort_timed_out_transaction_cleanup_interval_ms = 10000;
  // transaction.remove.expired.transaction.cleanup.interval.ms, >= 1
  int32_t remove_expired_transaction_cleanup_interval_ms = 3600000;
  bool transaction_partition_verification_enable =
      true;  // transaction.partition.verification.enable
  // The finalized level of Kafka's `transaction.version` feature (0-2; a Kafka cluster sets it
  // with kafka-storage format / kafka-features, seglog with this key). 2, Kafka 4.4.0's default,
  // is KIP-890 part 2: clients learn it from ApiVersions and the epoch is bumped by every EndTxn.
  int16_t transaction_version = 2;
};

// Tiered storage's broker settings (Kafka's RemoteLogManagerConfig and
// TopicBasedRemoteLogMetadataManagerConfig; docs/design/tiered_storage.md). The remote
// storage manager's own settings keep their full `rsm.config.` keys (remote/s3_storage_config.h
// reads them). Thread pools beyond the copier's are accepted and ignored.
struct RemoteLogStorageConfig {
  bool system_enable = false;        // remote.log.storage.system.enable
  int64_t task_interval_ms = 30000;  // remote.log.manager.task.interval.ms, >= 1
  int64_t index_file_cache_total_size_bytes = 1073741824;  // remote.log.index.file.cache..., >= 1
  int32_t custom_metadata_max_bytes = 128;  // remote.log.metadata.custom.metadata.max.bytes, >= 0
  int32_t copier_thread_pool_size = 10;     // remote.log.manager.copier.thread.pool.size, >= 1
  // remote.log.storage.manager.class.name: Aiven's S3 plugin class names, or "s3" - all mean
  // seglog's S3 implementation; empty = "s3".
  std::string storage_manager_class_name;
  int32_t metadata_topic_num_partitions =
      50;                                    // rlmm.config.remote.log.metadata.topic.num.partitions
  int64_t metadata_topic_retention_ms = -1;  // rlmm.config.remote.log.metadata.topic.retention.ms
  int64_t fetch_max_wait_ms = 500;           // remote.fetch.max.wait.ms, >= 1
  std::map<std::string, std::string> rsm_config;  // every rsm.config.* key, as given
  // Not a broker setting (no key sets it): the remote index cache's directory. Empty: the
  // broker's, <first log dir>/remote-log-index-cache. The tools (consume, check --remote) set a
  // temporary one, so that they never write into the cache of a broker that may be running.
  std::string index_cache_dir;
};

struct ServerConfig {
  std::vector<std::string> log_dirs = {"/tmp/kafka-logs"};  // log.dirs, else log.dir
  int32_t node_id = 1;
  int32_t num_partitions = 1;                        // default partitions of a new topic
  bool auto_create_topics_enable = true;             // Metadata creates unknown topics
  int16_t default_replication_factor = 1;            // must be 1: one node holds every replica
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

  // The socket server (src/server). `listeners`: where to accept connections, PLAINTEXT only;
  // listeners named in controller.listener.names are left out (there is no KRaft controller).
  std::vector<ListenerEndpoint> listeners = {{"PLAINTEXT", "", 9092}};
  // advertised.listeners: what Metadata tells clients; `listeners` when not set.
  std::vector<ListenerEndpoint> advertised_listeners = {{"PLAINTEXT", "", 9092}};
  int32_t num_network_threads = 3;               // >= 1: threads owning connections
  int32_t num_io_threads = 8;                    // >= 1: request handler threads
  int32_t queued_max_requests = 500;             // >= 1: requests queued for the handlers
  int32_t socket_request_max_bytes = 104857600;  // >= 1: largest request frame
  int32_t socket_send_buffer_bytes = 102400;     // SO_SNDBUF; -1: the OS default
  int32_t socket_receive_buffer_bytes = 102400;  // SO_RCVBUF; -1: the OS default
  int32_t socket_listen_backlog_size = 50;       // >= 1
  int32_t max_connections = INT32_MAX;           // >= 0: open connections at any time
  int64_t connections_max_idle_ms = 600000;      // a connection idle this long is closed

  GroupCoordinatorConfig group;
  TransactionCoordinatorConfig txn;
  RemoteLogStorageConfig remote;

  // Topic config names -> the broker's default for them (after the synonym rules).
  std::map<std::string, std::string> topic_defaults;
  // Kafka broker keys outside storage that were present and are not used.
  std::vector<std::string> ignored;
  // Every key as given (server.properties, then the overrides): what DescribeConfigs reports
  // as STATIC_BROKER_CONFIG.
  std::map<std::string, std::string> properties;

  // Every problem in Kafka's words, all at once ("Invalid value 102400 for configuration
  // log.segment.bytes: Value must be at least 1048576"; "Unknown configuration 'x'").
  static Result<ServerConfig> FromProperties(const std::map<std::string, std::string>& props);
  static Result<ServerConfig> Load(const std::string& path);

  // The topic's effective config: the broker's defaults, then the topic's overrides.
  Result<LogConfig> TopicConfig(const std::map<std::string, std::string>& overrides) const;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_SERVER_CONFIG_H_
