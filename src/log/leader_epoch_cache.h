// LeaderEpochCache: a partition's leader epochs and the first offset of each (Kafka's
// LeaderEpochFileCache), kept in memory and in the partition's leader-epoch-checkpoint file
// (docs/format/checkpoints.md, "leader-epoch-checkpoint"; the file's code is in
// log/checkpoint_file.h).
//
// On a single node the log leads one epoch at a time: an append as leader records its epoch
// (a higher one starts a new entry at the append's first offset), replicated batches record
// theirs, and a rising log start offset drops the entries below it - the last of them moves up
// to the new start, as Kafka's truncateFromStart.
//
// Lifecycle: constructed by the log with its checkpoint path, Load()ed once when the log opens,
// then changed by the appender. Thread safety: externally synchronised (the log's append lock).
#ifndef SEGLOG_LOG_LEADER_EPOCH_CACHE_H_
#define SEGLOG_LOG_LEADER_EPOCH_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "io/env.h"
#include "log/checkpoint_file.h"
#include "seglog/status.h"

namespace seglog {

class LeaderEpochCache {
 public:
  // The file's I/O goes through `env`, which must outlive the cache.
  LeaderEpochCache(Env* env, std::string path) : env_(env), path_(std::move(path)) {}

  // Reads the checkpoint (when it exists) and trims it as Kafka's loader does: entries at or
  // past `log_end_offset` go, and so do those below `log_start_offset` (the last of them moves
  // to it). A log with no entry left leads epoch 0 from the log end. The file is rewritten
  // when this changed it, or written when it did not exist.
  Status Load(int64_t log_start_offset, int64_t log_end_offset);

  // Records `epoch` from `start_offset` when it is newer than the latest one, writing the file
  // at once (Kafka's assign); an older or equal epoch changes nothing.
  Status Assign(int32_t epoch, int64_t start_offset);

  // Drops the entries below `offset`, the last of them moving to `offset`. Returns whether
  // anything changed; the file is then written by WriteIfDirty (Kafka flushes it off the
  // path that raised the log start offset).
  bool TruncateFromStart(int64_t offset);

  // Writes the file if TruncateFromStart changed the entries since the last write.
  Status WriteIfDirty();

  const std::vector<EpochEntry>& entries() const { return entries_; }

 private:
  Status Write();

  Env* const env_;
  const std::string path_;
  std::vector<EpochEntry> entries_;
  bool dirty_ = false;  // changed by TruncateFromStart, not yet written
};

}  // namespace seglog

#endif  // SEGLOG_LOG_LEADER_EPOCH_CACHE_H_
