// Log's tiered-storage side (KIP-405; docs/design/tiered_storage.md): the local log start
// offset, the highest offset in remote storage, the log start offset the remote tier raises,
// and the segments the remote log manager may copy. See seglog/log.h.
#include <fmt/format.h>

#include <array>

#include "io/env.h"
#include "io/file_names.h"
#include "log/log_loader.h"
#include "log/log_state.h"
#include "seglog/log.h"

namespace seglog {

namespace {
constexpr std::string_view kMovedToTiered = "OffsetMovedToTieredStorageException";
}  // namespace

bool IsOffsetMovedToTieredStorage(const Status& status) {
  return status.IsOutOfRange() && status.message().starts_with(kMovedToTiered);
}

Status OffsetMovedToTieredStorage(const std::string& dir, int64_t offset, int64_t local_start) {
  return Status::OutOfRange(fmt::format(
      "{}: Received request for offset {} for partition {}, which is below the local log start "
      "offset {}",
      kMovedToTiered, offset, dir, local_start));
}

bool RemoteLogEnabledFor(const std::string& dir, const LogConfig& config,
                         const LogOptions& options) {
  if (!options.remote_storage_system_enable || !config.remote_storage_enable) return false;
  // Kafka's Topic.isInternal: the coordinators' topics are never tiered.
  static constexpr std::array<std::string_view, 3> kInternal = {
      "__consumer_offsets", "__transaction_state", "__share_group_state"};
  const std::string name = dir.substr(dir.rfind('/') + 1);
  const size_t dash = name.rfind('-');
  const std::string_view topic =
      std::string_view(name).substr(0, dash == std::string::npos ? name.size() : dash);
  for (std::string_view internal : kInternal) {
    if (topic == internal) return false;
  }
  return true;
}

int64_t Log::local_log_start_offset() const {
  const auto snapshot = state_->Snapshot();
  const int64_t first = snapshot->empty() ? log_end_offset() : snapshot->begin()->first;
  return std::max(first, log_start_offset());
}

std::optional<int32_t> Log::EpochForOffset(int64_t offset) const {
  std::optional<int32_t> epoch;
  for (const auto& [e, start] : leader_epochs()) {
    if (start > offset) break;
    epoch = e;
  }
  return epoch;
}

bool Log::remote_log_enabled() const {
  MutexLock l(&state_->append_mu);
  return RemoteLogEnabledFor(dir_, config_, options_);
}

bool Log::remote_copy_enabled() const {
  MutexLock l(&state_->append_mu);
  return RemoteLogEnabledFor(dir_, config_, options_) && !config_.remote_log_copy_disable;
}

int64_t Log::highest_offset_in_remote_storage() const {
  return state_->highest_offset_in_remote_storage.load(std::memory_order_acquire);
}

void Log::UpdateHighestOffsetInRemoteStorage(int64_t offset) {
  std::atomic<int64_t>& highest = state_->highest_offset_in_remote_storage;
  int64_t current = highest.load(std::memory_order_acquire);
  while (offset > current &&
         !highest.compare_exchange_weak(current, offset, std::memory_order_acq_rel)) {
  }
}

Status Log::UpdateLogStartOffsetFromRemoteTier(int64_t offset) {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  if (!RemoteLogEnabledFor(dir_, config_, options_)) {
    return Status::FailedPrecondition(fmt::format(
        "updateLogStartOffsetFromRemoteTier: remote storage is not enabled for {}", dir_));
  }
  return MaybeIncrementLogStartOffsetLocked(offset, "remote log segment deletion");
}

Result<std::vector<RemoteCopyCandidate>> Log::RemoteCopyCandidates(int64_t from_offset) const {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const auto snapshot = state_->Snapshot();
  const int64_t lso = last_stable_offset();
  std::vector<RemoteCopyCandidate> out;
  for (auto it = snapshot->begin(); it != snapshot->end(); ++it) {
    auto next = std::next(it);
    if (next == snapshot->end()) break;  // the active segment is never copied
    // Every offset of the segment below the last stable offset: its successor starts there.
    if (next->first > lso) break;
    if (next->first - 1 < from_offset) continue;
    LogSegment& seg = *it->second;
    RemoteCopyCandidate c;
    c.base_offset = it->first;
    c.end_offset = next->first - 1;
    c.size_bytes = seg.size();
    SEGLOG_ASSIGN_OR_RETURN(const TimestampOffset max, seg.MaxTimestampAndOffsetSoFar());
    c.max_timestamp = max.timestamp;
    c.log_path = seg.log_path();
    const std::string stem = c.log_path.substr(0, c.log_path.size() - kLogFileSuffix.size());
    c.offset_index_path = stem + std::string(kIndexFileSuffix);
    c.time_index_path = stem + std::string(kTimeIndexFileSuffix);
    const std::string txn = stem + std::string(kTxnIndexFileSuffix);
    if (options_.env->FileExists(txn)) {
      SEGLOG_ASSIGN_OR_RETURN(const FileStat stat, options_.env->Stat(txn));
      if (stat.size > 0) c.txn_index_path = txn;
    }
    const std::string snap = SnapshotFilePath(dir_, next->first);
    if (options_.env->FileExists(snap)) c.producer_snapshot_path = snap;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace seglog
