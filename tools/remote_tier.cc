// RemoteTier; see remote_tier.h.
#include "tools/remote_tier.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace seglog {

Result<std::unique_ptr<RemoteTier>> RemoteTier::Open(const BrokerConfig& config, LogManager* logs,
                                                     RemoteStorageManager* rsm) {
  if (!config.remote_storage_system_enable) {
    return Status::FailedPrecondition(
        "the node's config does not set remote.log.storage.system.enable=true: no remote tier "
        "(give --server-config with the broker's server.properties)");
  }
  std::unique_ptr<RemoteTier> tier(new RemoteTier());
  // A temporary index cache, never the broker's (see remote_tier.h).
  std::string pattern =
      (std::filesystem::temp_directory_path() / "seglog-tool-index-cache-XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) {
    return Status::IOError(
        fmt::format("cannot create a temporary index cache {}: {}", pattern, std::strerror(errno)));
  }
  tier->cache_dir_ = name.data();
  RemoteLogStorageConfig tool_config = config.remote;
  tool_config.index_cache_dir = tier->cache_dir_;
  auto opened = rsm != nullptr
                    ? TieredStorage::OpenWith(tool_config, logs, rsm, /*start_tasks=*/false)
                    : TieredStorage::Open(tool_config, logs, /*start_tasks=*/false);
  if (!opened.ok()) return opened.status().WithContext("opening the remote tier");
  tier->storage_ = std::move(opened).value();
  return tier;
}

RemoteTier::~RemoteTier() {
  if (storage_) storage_->Shutdown();
  storage_.reset();  // the cache's files are closed before they go
  if (!cache_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(cache_dir_, ec);
  }
}

}  // namespace seglog
