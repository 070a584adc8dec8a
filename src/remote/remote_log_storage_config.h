// RemoteLogStorageConfig: tiered storage's broker settings (Kafka's RemoteLogManagerConfig and
// TopicBasedRemoteLogMetadataManagerConfig; docs/design/tiered_storage.md). The remote
// storage manager's own settings keep their full `rsm.config.` keys (remote/s3_storage_config.h
// reads them). Thread pools beyond the copier's and the readers' are accepted and ignored by
// the node.
// remote.log.storage.system.enable, which the logs read too, is storage's
// (LogManagerConfig::remote_storage_system_enable).
//
// Thread safety: a value type.
#ifndef SEGLOG_REMOTE_REMOTE_LOG_STORAGE_CONFIG_H_
#define SEGLOG_REMOTE_REMOTE_LOG_STORAGE_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "seglog/status.h"

namespace seglog {

struct RemoteLogStorageConfig {
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
  int32_t reader_threads = 10;               // remote.log.reader.threads, >= 1
  int32_t reader_max_pending_tasks = 100;    // remote.log.reader.max.pending.tasks, >= 1
  std::map<std::string, std::string> rsm_config;  // every rsm.config.* key, as given
  // Not a broker setting (no key sets it): the remote index cache's directory. Empty: the
  // broker's, <first log dir>/remote-log-index-cache. The tools (consume, check --remote) set a
  // temporary one, so that they never write into the cache of a broker that may be running.
  std::string index_cache_dir;

  // Sets `key` when it is one of the settings above or an rsm.config.* key (the outcome of
  // parsing `value`, in Kafka's words); nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_LOG_STORAGE_CONFIG_H_
