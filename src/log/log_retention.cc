// Log's retention (docs/design/log_manager.md, "Retention, step by step"): the three deletion
// passes, DeleteRecords, the log start offset, and the two-step delete of segment files. See
// seglog/log.h.
#include <fmt/format.h>

#include "base/scheduler.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/log_loader.h"
#include "log/log_state.h"
#include "seglog/log.h"

namespace seglog {

Status Log::MaybeIncrementLogStartOffsetLocked(int64_t offset, const std::string& reason) {
  State& st = *state_;
  st.append_mu.AssertHeld();
  if (offset > high_watermark()) {
    return Status::OutOfRange(fmt::format(
        "OffsetOutOfRangeException: Cannot increment the log start offset to {} of partition {} "
        "since it is larger than the high watermark {}",
        offset, dir_, high_watermark()));
  }
  if (offset <= log_start_offset()) return Status::OK();
  st.log_start_offset.store(offset, std::memory_order_release);
  options_.logger.Info(fmt::format("Incremented log start offset to {} due to {}", offset, reason));
  st.producers->OnLogStartOffsetIncremented(offset);
  // The leader-epoch cache loses its entries below the new start (the last one moves up).
  if (!st.epochs.TruncateFromStart(offset)) return Status::OK();
  // Flushed off this path, as Kafka's truncateFromStartAsyncFlush: a crash before it leaves
  // the older file, whose extra entry below the log start the next open drops again.
  if (options_.scheduler != nullptr) {
    options_.scheduler->ScheduleOnce("leader-epoch-cache-flush", [handle = st.flush_handle] {
      MutexLock l(&handle->mu);
      if (handle->log != nullptr) (void)handle->log->WriteLeaderEpochs();
    });
    return Status::OK();
  }
  return st.epochs.WriteIfDirty();
}

Result<int64_t> Log::DeleteRecords(int64_t offset) {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  if (!config_.cleanup_delete) {
    return Status::FailedPrecondition(fmt::format(
        "PolicyViolationException: Records of partition {} can not be deleted because the "
        "topic's cleanup.policy does not include delete",
        dir_));
  }
  SEGLOG_RETURN_IF_ERROR(CheckOnline());
  const int64_t target = offset == -1 ? high_watermark() : offset;
  if (target < 0) {
    return Status::OutOfRange(fmt::format(
        "OffsetOutOfRangeException: The offset {} for partition {} is not valid", offset, dir_));
  }
  SEGLOG_RETURN_IF_ERROR(
      MaybeIncrementLogStartOffsetLocked(target, "client delete records request"));
  return log_start_offset();
}

Result<int> Log::DeletePrefixLocked(const DeletablePredicate& predicate,
                                    const std::function<void(LogSegment&)>& log_reason) {
  State& st = *state_;
  st.append_mu.AssertHeld();
  auto snapshot = st.Snapshot();
  const int64_t hw = high_watermark();
  std::vector<std::shared_ptr<LogSegment>> deletable;
  for (auto it = snapshot->begin(); it != snapshot->end(); ++it) {
    auto next = std::next(it);
    LogSegment& seg = *it->second;
    const int64_t upper = next == snapshot->end() ? log_end_offset() : next->first;
    if (hw < upper) break;
    if (next == snapshot->end() && seg.size() == 0) break;
    SEGLOG_ASSIGN_OR_RETURN(const bool go,
                            predicate(seg, next == snapshot->end() ? nullptr : next->second.get()));
    if (!go) break;
    deletable.push_back(it->second);
  }
  if (deletable.empty()) return 0;
  if (deletable.size() == snapshot->size()) {
    // Every segment goes: roll an empty active segment first, so the log keeps one.
    SEGLOG_RETURN_IF_ERROR(RollLocked(log_end_offset()));
    snapshot = st.Snapshot();
  }
  // The log start moves to the first segment that stays - unless the log is tiered: then
  // only the local log start moves, and remote storage serves the offsets below it.
  auto survivor = snapshot->upper_bound(deletable.back()->base_offset());
  if (RemoteLogEnabledFor(dir_, config_, options_) && !config_.remote_log_copy_disable) {
    options_.logger.Info(fmt::format(
        "Incremented local log start offset to {} due to segment deletion", survivor->first));
  } else {
    SEGLOG_RETURN_IF_ERROR(MaybeIncrementLogStartOffsetLocked(survivor->first, "segment deletion"));
  }
  if (options_.logger) {
    for (const auto& seg : deletable) log_reason(*seg);  // (Describe opens the time index)
  }
  const size_t n_deleted = deletable.size();
  auto next_map = std::make_shared<SegmentMap>(*snapshot);
  for (const auto& seg : deletable) next_map->erase(seg->base_offset());
  st.Publish(std::move(next_map));
  // The renames are made durable (Kafka skips this fsync; seglog syncs the directory after
  // every create, rename and removal in a partition directory).
  // A failed rename leaves files under live names that the published map no longer has
  // (Kafka's LogDirFailureChannel takes the directory offline then too): the log goes offline,
  // and the next open sorts the files out.
  for (const auto& seg : deletable) {
    Status renamed = seg->ChangeFileSuffixes("", std::string(kDeletedFileSuffix));
    if (!renamed.ok()) return SyncFailed(renamed);
  }
  // Their producer snapshots go with them (Kafka's deleteProducerSnapshots).
  std::vector<std::string> snapshot_files = MarkSnapshotsForDeletionLocked(deletable, -1);
  if (Status s = options_.env->SyncDirectory(dir_); !s.ok()) return SyncFailed(s);
  // Physical deletion later, so that readers holding these segments finish first
  // (docs/design/log_manager.md, "Retention, step by step").
  ScheduleDeletion(std::move(deletable), std::move(snapshot_files));
  return static_cast<int>(n_deleted);
}

std::vector<std::string> Log::MarkSnapshotsForDeletionLocked(
    const std::vector<std::shared_ptr<LogSegment>>& segments, int64_t keep_base_offset) {
  state_->append_mu.AssertHeld();
  std::vector<std::string> out;
  for (const auto& seg : segments) {
    if (seg->base_offset() == keep_base_offset) continue;
    auto renamed = state_->producers->RenameSnapshotForDeletion(seg->base_offset());
    if (!renamed.ok()) {
      // Left under its live name, it is a stray snapshot that the next open removes.
      options_.logger.Warn("Failed to rename producer state snapshot: " +
                           renamed.status().ToString());
    } else if (*renamed) {
      out.push_back(**renamed);
    }
  }
  return out;
}

void Log::ScheduleDeletion(std::vector<std::shared_ptr<LogSegment>> segments,
                           std::vector<std::string> files) {
  auto delete_files = [segments = std::move(segments), files = std::move(files),
                       logger = options_.logger, dir = dir_, env = options_.env] {
    if (logger) {
      std::string list;
      for (const auto& seg : segments) list += (list.empty() ? "" : ", ") + seg->Describe();
      logger.Info("Deleting segment files " + list);
    }
    for (const auto& seg : segments) {
      const std::string name = seg->log_path().substr(seg->log_path().rfind('/') + 1);
      Status s = seg->DeleteFiles();
      logger.Info(s.ok() ? fmt::format("Deleted log {}.", name)
                         : fmt::format("Error deleting {}: {}", name, s.ToString()));
    }
    for (const std::string& path : files) {
      Status s = env->RemoveFile(path, true);
      if (!s.ok()) logger.Warn(s.ToString());
    }
    // A removal lost in a crash only leaves *.deleted files, which the loader removes.
    if (Status s = env->SyncDirectory(dir); !s.ok()) logger.Warn(s.ToString());
  };
  if (options_.scheduler != nullptr) {
    options_.scheduler->Schedule("delete-file", std::move(delete_files),
                                 config_.file_delete_delay_ms);
  } else {
    delete_files();
  }
}

Result<int> Log::DeleteOldSegments() {
  Result<int> n = DeleteOldSegmentsUnflushed();
  if (Status s = RunPendingFlush(); n.ok() && !s.ok()) return s;
  return n;
}

Result<int> Log::DeleteOldSegmentsUnflushed() {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  int total = 0;
  // 1. Segments wholly below the log start offset (DeleteRecords, or a raised start).
  {
    const int64_t start = log_start_offset();
    SEGLOG_ASSIGN_OR_RETURN(
        const int n,
        DeletePrefixLocked(
            [start](LogSegment&, LogSegment* next) -> Result<bool> {
              return next != nullptr && next->base_offset() <= start;
            },
            [this, start](LogSegment& seg) {
              options_.logger.Info(fmt::format(
                  "Deleting segment {} due to log start offset {} breach", seg.Describe(), start));
            }));
    total += n;
  }
  if (!config_.cleanup_delete) return total;
  // A tiered log keeps local.retention.* locally, and only segments remote storage already
  // holds may go (Kafka's isSegmentEligibleForDeletion).
  const bool tiered =
      RemoteLogEnabledFor(dir_, config_, options_) && !config_.remote_log_copy_disable;
  const int64_t highest_remote = highest_offset_in_remote_storage();
  auto eligible = [this, tiered, highest_remote](LogSegment&, LogSegment* next) {
    if (!tiered) return true;
    const int64_t upper = next != nullptr ? next->base_offset() : log_end_offset();
    return (upper > 0 && upper - 1 <= highest_remote) ||
           (next != nullptr && log_start_offset() >= next->base_offset());
  };
  const std::string local = tiered ? "local " : "";
  // A tiered log whose walk reached its active segment, and whose active segment breaches the
  // local retention too, rolls it: copied, it can go (Kafka's deletableSegments).
  auto roll_breaching_active =
      [&](const std::function<Result<bool>(LogSegment&)>& breaches) -> Status {
    if (!tiered) return Status::OK();
    auto snapshot = st.Snapshot();
    if (snapshot->size() != 1) return Status::OK();
    LogSegment& active = *snapshot->begin()->second;
    if (active.size() == 0) return Status::OK();
    SEGLOG_ASSIGN_OR_RETURN(const bool breached, breaches(active));
    if (!breached) return Status::OK();
    options_.logger.Info(
        fmt::format("Rolling the active segment to make it eligible for deletion"));
    return RollLocked(log_end_offset());
  };
  // 2. retention.bytes: delete while the log stays at or above the cap without the segment.
  const int64_t retention_bytes = tiered ? config_.LocalRetentionBytes() : config_.retention_bytes;
  if (retention_bytes >= 0 && size_in_bytes() >= retention_bytes) {
    int64_t diff = size_in_bytes() - retention_bytes;
    int64_t size_after = size_in_bytes();
    const int64_t cap = retention_bytes;
    SEGLOG_ASSIGN_OR_RETURN(
        const int n,
        DeletePrefixLocked(
            [&diff, &eligible](LogSegment& seg, LogSegment* next) -> Result<bool> {
              if (diff - seg.size() < 0 || !eligible(seg, next)) return false;
              diff -= seg.size();
              return true;
            },
            [this, cap, &size_after, &local](LogSegment& seg) {
              size_after -= seg.size();
              options_.logger.Info(fmt::format(
                  "Deleting segment {} due to {}log retention size {} breach. Log size after "
                  "deletion will be {}.",
                  seg.Describe(), local, cap, size_after));
            }));
    total += n;
    SEGLOG_RETURN_IF_ERROR(roll_breaching_active(
        [&diff](LogSegment& seg) -> Result<bool> { return diff - seg.size() >= 0; }));
  }
  // 3. retention.ms, judged by each segment's largest record timestamp.
  const int64_t retention_ms = tiered ? config_.LocalRetentionMs() : config_.retention_ms;
  if (retention_ms >= 0) {
    const int64_t now = Now();
    const int64_t retention = retention_ms;
    SEGLOG_ASSIGN_OR_RETURN(
        const int n,
        DeletePrefixLocked(
            [this, now, retention, &eligible](LogSegment& seg, LogSegment* next) -> Result<bool> {
              SEGLOG_ASSIGN_OR_RETURN(const int64_t largest, seg.LargestTimestamp());
              if (largest > now) {
                options_.logger.Warn(fmt::format(
                    "Segment {} has a largest timestamp {} in the future (now {}): it is "
                    "never deleted by retention.ms",
                    seg.log_path(), largest, now));
              }
              return now - largest > retention && eligible(seg, next);
            },
            [this, retention, &local](LogSegment& seg) {
              auto max = seg.MaxTimestampAndOffsetSoFar();
              options_.logger.Info(fmt::format(
                  "Deleting segment {} due to {}log retention time {}ms breach based "
                  "on {}",
                  seg.Describe(), local, retention,
                  max.ok() && max->timestamp >= 0 ? "the largest record timestamp in the segment"
                                                  : "the last modified time of the segment"));
            }));
    total += n;
    SEGLOG_RETURN_IF_ERROR(roll_breaching_active([now, retention](LogSegment& seg) -> Result<bool> {
      SEGLOG_ASSIGN_OR_RETURN(const int64_t largest, seg.LargestTimestamp());
      return now - largest > retention;
    }));
  }
  return total;
}

}  // namespace seglog
