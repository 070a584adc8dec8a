// RemoteTier: how the reading tools (`seglog consume`, `seglog check --remote`) reach a node's
// remote tier. When the node's config has remote.log.storage.system.enable=true they open its
// TieredStorage (remote/tiered_storage.h) over their read-only LogManager, without the remote
// log manager's tasks: the metadata manager only replays __remote_log_metadata (it writes - and
// creates the topic - only when an event is written, which a tool never does), and the store is
// only fetched from. The remote index cache is the one part that writes files: the tool's is a
// fresh temporary directory, removed when the RemoteTier goes, never the broker's
// <log dir>/remote-log-index-cache (a running broker owns that one: its evictions and
// startup cleanup would race a second writer).
// Thread safety: thread-compatible; one tool owns a RemoteTier.
#ifndef SEGLOG_TOOLS_REMOTE_TIER_H_
#define SEGLOG_TOOLS_REMOTE_TIER_H_

#include <memory>
#include <string>

#include "manager/log_manager.h"
#include "node/broker_config.h"
#include "remote/remote_storage_manager.h"
#include "remote/tiered_storage.h"
#include "seglog/result.h"

namespace seglog {

class RemoteTier {
 public:
  // Opens the tiered storage `config` describes over `logs` (which must outlive it). `rsm`
  // (tests: LocalRemoteStorage) replaces the configured S3 store when set. FailedPrecondition
  // when the config does not enable remote.log.storage.system.enable.
  static Result<std::unique_ptr<RemoteTier>> Open(const BrokerConfig& config, LogManager* logs,
                                                  RemoteStorageManager* rsm = nullptr);
  ~RemoteTier();
  RemoteTier(const RemoteTier&) = delete;
  RemoteTier& operator=(const RemoteTier&) = delete;

  TieredStorage* storage() { return storage_.get(); }
  // The temporary index cache directory.
  const std::string& cache_dir() const { return cache_dir_; }

 private:
  RemoteTier() = default;
  std::string cache_dir_;
  std::unique_ptr<TieredStorage> storage_;
};

}  // namespace seglog

#endif  // SEGLOG_TOOLS_REMOTE_TIER_H_
