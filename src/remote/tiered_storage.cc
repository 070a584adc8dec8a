// TieredStorage; see tiered_storage.h.
#include "remote/tiered_storage.h"

#include <fmt/format.h>

#include "remote/s3_remote_storage_manager.h"

namespace seglog {

namespace {
// The S3 store under the names a Kafka server.properties may give it: Aiven's plugin (whose
// rsm.config.* keys seglog reads), or seglog's own plugin for Kafka, which reads and writes
// seglog's layout (interop/kafka/move/src/SeglogS3RemoteStorageManager.java), so one file
// serves both programs.
bool IsS3ClassName(const std::string& name) {
  return name.empty() || name == "s3" ||
         name == "io.aiven.kafka.tieredstorage.RemoteStorageManager" ||
         name == "dev.seglog.kafka.SeglogS3RemoteStorageManager";
}
}  // namespace

Result<std::unique_ptr<TieredStorage>> TieredStorage::Open(const RemoteLogStorageConfig& config,
                                                           LogManager* logs, bool start_tasks,
                                                           Logger logger) {
  const std::string& name = config.storage_manager_class_name;
  if (!IsS3ClassName(name)) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value {} for configuration remote.log.storage.manager.class.name: seglog's "
        "remote storage is S3 (\"s3\", Aiven's io.aiven.kafka.tieredstorage."
        "RemoteStorageManager or seglog's dev.seglog.kafka.SeglogS3RemoteStorageManager, with "
        "the rsm.config.storage.s3.* settings)",
        name));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<S3RemoteStorageManager> s3,
                          S3RemoteStorageManager::FromProperties(config.rsm_config));
  std::unique_ptr<RemoteStorageManager> rsm = std::move(s3);
  RemoteStorageManager* raw = rsm.get();
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<TieredStorage> t,
                          OpenWith(config, logs, raw, start_tasks, std::move(logger)));
  t->owned_rsm_ = std::move(rsm);
  return t;
}

Result<std::unique_ptr<TieredStorage>> TieredStorage::OpenWith(const RemoteLogStorageConfig& config,
                                                               LogManager* logs,
                                                               RemoteStorageManager* rsm,
                                                               bool start_tasks, Logger logger) {
  std::unique_ptr<TieredStorage> t(new TieredStorage());
  t->rsm_ = rsm;
  RemoteLogMetadataManagerOptions rlmm_options;
  rlmm_options.num_partitions = config.metadata_topic_num_partitions;
  rlmm_options.retention_ms = config.metadata_topic_retention_ms;
  rlmm_options.logger = logger;
  SEGLOG_ASSIGN_OR_RETURN(t->rlmm_, RemoteLogMetadataManager::Open(logs, rlmm_options));
  RemoteIndexCacheOptions cache_options;
  cache_options.dir = !config.index_cache_dir.empty() ? config.index_cache_dir
                                                      : logs->config().log_dirs.front() + "/" +
                                                            std::string(kRemoteIndexCacheDirName);
  cache_options.total_size_bytes = config.index_file_cache_total_size_bytes;
  SEGLOG_ASSIGN_OR_RETURN(t->cache_, RemoteIndexCache::Open(cache_options, rsm));
  t->scheduler_ = NewThreadScheduler(1);
  RemoteLogManagerOptions options;
  options.broker_id = logs->config().node_id;
  options.task_interval_ms = config.task_interval_ms;
  options.custom_metadata_max_bytes = config.custom_metadata_max_bytes;
  options.reader_threads = config.reader_threads;
  options.reader_max_pending_tasks = config.reader_max_pending_tasks;
  options.fetch_max_wait_ms = config.fetch_max_wait_ms;
  options.logger = logger;
  t->rlm_ = std::make_unique<RemoteLogManager>(logs, rsm, t->rlmm_.get(), t->cache_.get(),
                                               t->scheduler_.get(), options);
  if (start_tasks) t->rlm_->Start();
  return t;
}

TieredStorage::~TieredStorage() { Shutdown(); }

void TieredStorage::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (rlm_) rlm_->Shutdown();
  if (scheduler_) scheduler_->Shutdown();
}

}  // namespace seglog
