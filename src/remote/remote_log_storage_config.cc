// RemoteLogStorageConfig; see remote_log_storage_config.h.
#include "remote/remote_log_storage_config.h"

#include "base/config_values.h"

namespace seglog {

namespace {

using C = RemoteLogStorageConfig;

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"remote.log.manager.task.interval.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.manager.task.interval.ms", v, 1,
                                        &c->task_interval_ms);
       }},
      {"remote.log.index.file.cache.total.size.bytes",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.index.file.cache.total.size.bytes", v, 1,
                                        &c->index_file_cache_total_size_bytes);
       }},
      {"remote.log.metadata.custom.metadata.max.bytes",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.metadata.custom.metadata.max.bytes", v, 0,
                                        &c->custom_metadata_max_bytes);
       }},
      {"remote.log.manager.copier.thread.pool.size",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.manager.copier.thread.pool.size", v, 1,
                                        &c->copier_thread_pool_size);
       }},
      {"remote.log.storage.manager.class.name",
       [](C* c, const std::string& v) {
         c->storage_manager_class_name = v;
         return Status::OK();
       }},
      {"rlmm.config.remote.log.metadata.topic.num.partitions",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("remote.log.metadata.topic.num.partitions", v, 1,
                                        &c->metadata_topic_num_partitions);
       }},
      {"rlmm.config.remote.log.metadata.topic.retention.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.log.metadata.topic.retention.ms", v, -1,
                                        &c->metadata_topic_retention_ms);
       }},
      {"remote.fetch.max.wait.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int64_t>("remote.fetch.max.wait.ms", v, 1, &c->fetch_max_wait_ms);
       }},
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
