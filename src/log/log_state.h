// Log::State: the shared state of one partition's log, for the files that implement Log (log.cc:
// append, roll, flush, reads; log_retention.cc: retention, DeleteRecords, the log start
// offset). Private to src/log. Thread safety: as documented per member (docs/design/threading.md).
#ifndef SEGLOG_LOG_LOG_STATE_H_
#define SEGLOG_LOG_LOG_STATE_H_

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "base/mutex.h"
#include "log/leader_epoch_cache.h"
#include "log/log_segment.h"
#include "log/producer_state_manager.h"
#include "seglog/log.h"

namespace seglog {

using SegmentMap = std::map<int64_t, std::shared_ptr<LogSegment>>;

struct Log::State {
  State(Env* env, std::string epoch_checkpoint_path)
      : epochs(env, std::move(epoch_checkpoint_path)) {}
  // Serialises flushes (each fsyncs outside append_mu, then publishes its recovery point) and
  // Close, which waits for a running flush. Lock order: flush_mu, then append_mu.
  Mutex flush_mu ACQUIRED_BEFORE(append_mu);
  // Serialises appends, rolls, retention and close, and guards the recovery point. Held only
  // for in-memory work and the writes of an append or roll, never over an fsync of a segment.
  // Readers never take it.
  Mutex append_mu;
  // Guards only the pointer to the current segment map (copy-on-write): readers copy the
  // shared_ptr and work on that snapshot; the appender publishes a new map on roll.
  mutable Mutex segments_mu;
  std::shared_ptr<const SegmentMap> segments GUARDED_BY(segments_mu);
  std::atomic<int64_t> log_end_offset{0};
  // The producer state's first unstable offset (-1: no open transaction), published after each
  // append for readers of the last stable offset.
  std::atomic<int64_t> first_unstable_offset{-1};
  std::atomic<int64_t> log_start_offset{0};
  // Tiered storage: the last offset copied to remote storage (-1: none), kept by the remote
  // log manager; retention deletes no local segment above it.
  std::atomic<int64_t> highest_offset_in_remote_storage{-1};
  int64_t recovery_point GUARDED_BY(append_mu) = 0;
  bool closed GUARDED_BY(append_mu) = false;
  // What readers check: set by Close (and MarkDeleted, before it).
  std::atomic<bool> closed_for_reads{false};
  // BlockAppends: appends refused (NotLeaderOrFollowerException) while the partition moves.
  bool appends_blocked GUARDED_BY(append_mu) = false;
  std::atomic<bool> deleted{false};
  // A flush that an append or roll asked for, run once the append lock is released.
  int64_t pending_flush GUARDED_BY(append_mu) = -1;
  std::mt19937_64 rng GUARDED_BY(append_mu){std::random_device{}()};
  int64_t last_flush_ms GUARDED_BY(append_mu) = 0;
  LeaderEpochCache epochs GUARDED_BY(append_mu);
  // Idempotent producers' state and its snapshot files (set by Open).
  std::unique_ptr<ProducerStateManager> producers GUARDED_BY(append_mu);
  // Producer snapshots written by a roll without fsync; the flush up to their offset syncs them.
  std::vector<int64_t> unsynced_snapshots GUARDED_BY(append_mu);

  // Offline after a failed sync (never retried).
  std::atomic<bool> offline{false};
  mutable Mutex offline_mu;
  Status offline_reason GUARDED_BY(offline_mu);

  // What a scheduled flush-log task reaches the log through; Close() detaches it, so a task
  // that runs later does nothing, and one that is running finishes first.
  struct FlushHandle {
    Mutex mu;
    Log* log GUARDED_BY(mu) = nullptr;
  };
  std::shared_ptr<FlushHandle> flush_handle = std::make_shared<FlushHandle>();
  void DetachFlushHandle() {
    MutexLock l(&flush_handle->mu);
    flush_handle->log = nullptr;
  }

  std::shared_ptr<const SegmentMap> Snapshot() const EXCLUDES(segments_mu) {
    MutexLock l(&segments_mu);
    return segments;
  }
  void Publish(std::shared_ptr<const SegmentMap> m) EXCLUDES(segments_mu) {
    MutexLock l(&segments_mu);
    segments = std::move(m);
  }
};

// Read's refusal of an offset only remote storage holds (log_tiered.cc).
Status OffsetMovedToTieredStorage(const std::string& dir, int64_t offset, int64_t local_start);

}  // namespace seglog

#endif  // SEGLOG_LOG_LOG_STATE_H_
