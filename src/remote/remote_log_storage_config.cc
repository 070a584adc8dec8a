// RemoteLogStorageConfig; see remote_log_storage_config.h.
#include "remote/remote_log_storage_config.h"

#include "base/config_values.h"

namespace seglog {

namespace {

using C = RemoteLogStorageConfig;

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"remote.log.manager.task.interval.ms", SetConfigInt<C, int64_t, &C::task_interval_ms, 1>},
      {"remote.log.index.file.cache.total.size.bytes",
       SetConfigInt<C, int64_t, &C::index_file_cache_total_size_bytes, 1>},
      {"remote.log.metadata.custom.metadata.max.bytes",
       SetConfigInt<C, int32_t, &C::custom_metadata_max_bytes, 0>},
      {"remote.log.manager.copier.thread.pool.size",
       SetConfigInt<C, int32_t, &C::copier_thread_pool_size, 1>},
      {"remote.log.storage.manager.class.name",
       [](C* c, const std::string&, const std::string& v) {
         c->storage_manager_class_name = v;
         return Status::OK();
       }},
      {"rlmm.config.remote.log.metadata.topic.num.partitions",
       [](C* c, const std::string&, const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.metadata.topic.num.partitions", v, 1,
                                        &c->metadata_topic_num_partitions);
       }},
      {"rlmm.config.remote.log.metadata.topic.retention.ms",
       [](C* c, const std::string&, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.metadata.topic.retention.ms", v, -1,
                                        &c->metadata_topic_retention_ms);
       }},
      {"remote.fetch.max.wait.ms", SetConfigInt<C, int64_t, &C::fetch_max_wait_ms, 1>},
      {"remote.log.reader.threads", SetConfigInt<C, int32_t, &C::reader_threads, 1>},
      {"remote.log.reader.max.pending.tasks",
       SetConfigInt<C, int32_t, &C::reader_max_pending_tasks, 1>},
  };
  return setters;
}

}  // namespace

std::optional<Status> RemoteLogStorageConfig::Set(const std::string& key,
                                                  const std::string& value) {
  if (key.rfind("rsm.config.", 0) == 0) {
    rsm_config[key] = value;
    return Status::OK();
  }
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
