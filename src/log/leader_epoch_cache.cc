// LeaderEpochCache; see leader_epoch_cache.h.
#include "log/leader_epoch_cache.h"

#include <optional>

namespace seglog {

namespace {
// Kafka's truncateFromStart on a list of entries; whether it changed them.
bool DropBelow(std::vector<EpochEntry>* entries, int64_t offset) {
  std::optional<EpochEntry> below;
  while (!entries->empty() && entries->front().start_offset < offset) {
    below = entries->front();
    entries->erase(entries->begin());
  }
  if (!below) return false;
  if (entries->empty() || entries->front().start_offset != offset) {
    entries->insert(entries->begin(), EpochEntry{below->epoch, offset});
  }
  return true;
}
}  // namespace

Status LeaderEpochCache::Load(int64_t log_start_offset, int64_t log_end_offset) {
  const bool existed = env_->FileExists(path_);
  std::vector<EpochEntry> read;
  if (existed) {
    SEGLOG_ASSIGN_OR_RETURN(read, ReadLeaderEpochCheckpoint(env_, path_));
  }
  entries_ = read;
  while (!entries_.empty() && entries_.back().start_offset >= log_end_offset) entries_.pop_back();
  DropBelow(&entries_, log_start_offset);
  dirty_ = false;
  if (entries_.empty()) return Assign(0, log_end_offset);
  if (!existed || entries_ != read) return Write();
  return Status::OK();
}

Status LeaderEpochCache::Assign(int32_t epoch, int64_t start_offset) {
  if (!entries_.empty() && epoch <= entries_.back().epoch) return Status::OK();
  entries_.push_back(EpochEntry{epoch, start_offset});
  return Write();
}

bool LeaderEpochCache::TruncateFromStart(int64_t offset) {
  const bool changed = DropBelow(&entries_, offset);
  dirty_ |= changed;
  return changed;
}

Status LeaderEpochCache::WriteIfDirty() {
  if (!dirty_) return Status::OK();
  return Write();
}

Status LeaderEpochCache::Write() {
  SEGLOG_RETURN_IF_ERROR(WriteLeaderEpochCheckpoint(env_, path_, entries_));
  dirty_ = false;
  return Status::OK();
}

}  // namespace seglog
