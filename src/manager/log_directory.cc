// LogDirectory; see log_directory.h.
#include "manager/log_directory.h"

#include <fmt/format.h>

#include "io/atomic_file.h"
#include "io/file.h"
#include "io/file_names.h"

namespace seglog {

Result<std::unique_ptr<LogDirectory>> LogDirectory::Open(const std::string& log_dir,
                                                         LogOptions base_options) {
  SEGLOG_ASSIGN_OR_RETURN(auto lock, LogDirLock::Acquire(log_dir));
  std::unique_ptr<LogDirectory> d(
      new LogDirectory(log_dir, std::move(lock), std::move(base_options)));
  const std::string marker = log_dir + "/" + kCleanShutdownFile;
  if (FileExists(marker)) {
    // Deleted before anything is loaded: a crash while loading is an unclean shutdown.
    SEGLOG_RETURN_IF_ERROR(RemoveFile(marker, false));
    SEGLOG_RETURN_IF_ERROR(SyncDirectory(log_dir));
    d->had_clean_shutdown_ = true;
  } else {
    // A directory that never held a log has nothing to recover.
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(log_dir));
    bool any_partition = false;
    for (const std::string& n : names) any_partition |= ParsePartitionDirName(n).ok();
    d->had_clean_shutdown_ = !any_partition;
  }
  for (auto [file, map] :
       {std::pair<const char*, OffsetMap*>{kRecoveryPointCheckpointFile, &d->recovery_points_},
        {kLogStartOffsetCheckpointFile, &d->log_start_offsets_}}) {
    const std::string path = log_dir + "/" + file;
    if (!FileExists(path)) continue;
    auto m = ReadOffsetCheckpoint(path);
    if (m.ok()) {
      *map = *m;
    } else {
      d->warnings_.push_back(fmt::format("{} (using no checkpoint)", m.status().ToString()));
    }
  }
  return d;
}

LogDirectory::~LogDirectory() = default;

Result<Log*> LogDirectory::GetLog(const TopicPartition& tp, const LogConfig& config) {
  auto it = logs_.find(tp);
  if (it != logs_.end()) return it->second.get();
  LogOptions o = options_;
  o.had_clean_shutdown = had_clean_shutdown_;
  auto rp = recovery_points_.find(tp);
  o.recovery_point = rp == recovery_points_.end() ? 0 : rp->second;
  auto ls = log_start_offsets_.find(tp);
  o.log_start_offset = ls == log_start_offsets_.end() ? 0 : ls->second;
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> log,
                          Log::Open(dir_ + "/" + PartitionDirName(tp), config, o));
  Log* raw = log.get();
  logs_[tp] = std::move(log);
  return raw;
}

Status LogDirectory::WriteCheckpoints() {
  for (auto& [tp, log] : logs_) {
    recovery_points_[tp] = log->recovery_point();
    // Kafka lists only partitions whose log start is above their first segment.
    if (!log->segment_base_offsets().empty() &&
        log->log_start_offset() > log->segment_base_offsets().front()) {
      log_start_offsets_[tp] = log->log_start_offset();
    } else {
      log_start_offsets_.erase(tp);
    }
  }
  SEGLOG_RETURN_IF_ERROR(
      WriteOffsetCheckpoint(dir_ + "/" + kRecoveryPointCheckpointFile, recovery_points_));
  return WriteOffsetCheckpoint(dir_ + "/" + kLogStartOffsetCheckpointFile, log_start_offsets_);
}

Status LogDirectory::CheckpointRecoveryPoints() {
  for (auto& [tp, log] : logs_) SEGLOG_RETURN_IF_ERROR(log->Flush(log->log_end_offset()));
  return WriteCheckpoints();
}

Status LogDirectory::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  for (auto& [tp, log] : logs_) SEGLOG_RETURN_IF_ERROR(log->Close());
  SEGLOG_RETURN_IF_ERROR(WriteCheckpoints());
  // Last: the marker says everything above is complete.
  SEGLOG_RETURN_IF_ERROR(
      WriteFileAtomically(dir_ + "/" + kCleanShutdownFile, "{\"version\":0,\"brokerEpoch\":-1}"));
  return Status::OK();
}

}  // namespace seglog
