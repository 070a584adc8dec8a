// TieredStorage: one node's tiered storage, assembled from its broker settings
// (remote.log.*, rlmm.config.*, rsm.config.*; docs/design/tiered_storage.md): the S3 remote
// storage manager, the remote log metadata manager over __remote_log_metadata, the remote
// index cache in <first log dir>/remote-log-index-cache (or config.remote.index_cache_dir, a
// tool's temporary directory), and the remote log manager with a scheduler thread of its own.
// `seglog serve` runs one; `seglog consume` and `seglog check --remote` open one, without its
// tasks, to read through to the remote tier (tools/remote_tier.h).
//
// remote.log.storage.manager.class.name may be empty, "s3", or Aiven's class names
// (io.aiven.kafka.tieredstorage.RemoteStorageManager): all mean seglog's S3 implementation,
// configured by Aiven's rsm.config.storage.* keys. Anything else is refused by name.
//
// Thread safety: the parts are thread-safe; Shutdown is called once, before the LogManager
// shuts down.
#ifndef SEGLOG_REMOTE_TIERED_STORAGE_H_
#define SEGLOG_REMOTE_TIERED_STORAGE_H_

#include <functional>
#include <memory>
#include <string>

#include "manager/log_manager.h"
#include "remote/remote_index_cache.h"
#include "remote/remote_log_manager.h"
#include "remote/remote_log_metadata_manager.h"
#include "remote/remote_log_storage_config.h"
#include "remote/remote_storage_manager.h"
#include "seglog/logger.h"
#include "seglog/scheduler.h"

namespace seglog {

class TieredStorage {
 public:
  // Opens every part (no request is made to the store yet). `logs` must outlive it. With
  // `start_tasks`, the remote log manager's passes are scheduled (a server); without, only
  // reads are served (a tool).
  static Result<std::unique_ptr<TieredStorage>> Open(const RemoteLogStorageConfig& config,
                                                     LogManager* logs, bool start_tasks,
                                                     Logger logger = {});
  // Opens with another store (tests: LocalRemoteStorage), which must outlive it.
  static Result<std::unique_ptr<TieredStorage>> OpenWith(const RemoteLogStorageConfig& config,
                                                         LogManager* logs,
                                                         RemoteStorageManager* rsm,
                                                         bool start_tasks, Logger logger = {});
  ~TieredStorage();
  TieredStorage(const TieredStorage&) = delete;
  TieredStorage& operator=(const TieredStorage&) = delete;

  RemoteLogManager* manager() { return rlm_.get(); }
  RemoteLogMetadataManager* metadata() { return rlmm_.get(); }
  RemoteIndexCache* index_cache() { return cache_.get(); }
  RemoteStorageManager* storage() { return rsm_; }

  // Stops the passes (waiting for a running one) and the scheduler.
  void Shutdown();

 private:
  TieredStorage() = default;
  std::unique_ptr<RemoteStorageManager> owned_rsm_;
  RemoteStorageManager* rsm_ = nullptr;
  std::unique_ptr<RemoteLogMetadataManager> rlmm_;
  std::unique_ptr<RemoteIndexCache> cache_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<RemoteLogManager> rlm_;
  bool shut_down_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TIERED_STORAGE_H_
