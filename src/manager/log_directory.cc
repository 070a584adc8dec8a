// LogDirectory; see log_directory.h.
#include "manager/log_directory.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/clock.h"
#include "base/uuid.h"
#include "io/atomic_file.h"
#include "io/file.h"
#include "io/file_names.h"

namespace seglog {

bool IsLoadablePartitionDir(const std::string& name) {
  if (name.ends_with("-delete") || name.ends_with("-stray") || name.ends_with("-future")) {
    return false;
  }
  auto tp = ParsePartitionDirName(name);
  return tp.ok() && name == PartitionDirName(*tp) && tp->topic != "__cluster_metadata";
}

Result<std::unique_ptr<LogDirectory>> LogDirectory::Open(const std::string& log_dir,
                                                         LogDirectoryOptions options) {
  SEGLOG_ASSIGN_OR_RETURN(auto lock, LogDirLock::Acquire(log_dir));
  std::unique_ptr<LogDirectory> d(new LogDirectory(log_dir, std::move(lock), std::move(options)));
  SEGLOG_ASSIGN_OR_RETURN(
      d->meta_, LoadOrCreateMetaProperties(log_dir, d->options_.node_id, d->options_.cluster_id));
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
        {kLogStartOffsetCheckpointFile, &d->log_start_offsets_},
        {kCleanerOffsetCheckpointFile, &d->cleaner_offsets_}}) {
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

Status LogDirectory::offline_reason() const {
  MutexLock l(&offline_mu_);
  return offline_reason_;
}

void LogDirectory::MarkOffline(const Status& failure) {
  MutexLock l(&offline_mu_);
  if (offline_reason_.ok()) offline_reason_ = failure;
  offline_->store(true, std::memory_order_release);
}

LogOptions LogDirectory::OptionsFor(const TopicPartition& tp, const std::string& topic_id) {
  LogOptions o = options_.log_options;
  o.had_clean_shutdown = had_clean_shutdown_;
  auto rp = recovery_points_.find(tp);
  o.recovery_point = rp == recovery_points_.end() ? 0 : rp->second;
  auto ls = log_start_offsets_.find(tp);
  o.log_start_offset = ls == log_start_offsets_.end() ? 0 : ls->second;
  o.topic_id = topic_id;
  o.directory_offline = offline_;
  o.on_storage_failure = [this](const Status& s) { MarkOffline(s); };
  if (o.logger) {
    o.logger = [inner = o.logger,
                prefix = fmt::format("[UnifiedLog partition={}, dir={}] ", PartitionDirName(tp),
                                     dir_)](const std::string& line) { inner(prefix + line); };
  }
  return o;
}

Result<Log*> LogDirectory::GetLog(const TopicPartition& tp, const LogConfig& config,
                                  const std::string& topic_id) {
  auto it = logs_.find(tp);
  if (it != logs_.end()) return it->second.get();
  if (offline()) {
    return Status::IOError(fmt::format("KafkaStorageException: log directory {} is offline: {}",
                                       dir_, offline_reason().ToString()));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> log, Log::Open(dir_ + "/" + PartitionDirName(tp),
                                                              config, OptionsFor(tp, topic_id)));
  Log* raw = log.get();
  logs_[tp] = std::move(log);
  return raw;
}

Status LogDirectory::LoadAll(int threads, const std::function<void(const std::string&)>& progress,
                             const ConfigFor& config_for) {
  const int64_t start = MonotonicMs();
  SEGLOG_ASSIGN_OR_RETURN(TopicMap topics, LoadTopics(dir_));
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(dir_));
  std::sort(names.begin(), names.end());
  struct Job {
    TopicPartition tp;
    LogConfig config;
    LogOptions options;
    std::unique_ptr<Log> log;
    Status status;
  };
  std::vector<Job> jobs;
  for (const std::string& name : names) {
    if (!IsLoadablePartitionDir(name)) continue;
    TopicPartition tp = *ParsePartitionDirName(name);
    if (logs_.count(tp)) continue;
    const TopicMetadata& md = topics[tp.topic];
    SEGLOG_ASSIGN_OR_RETURN(LogConfig config,
                            config_for ? config_for(tp.topic, md) : TopicConfig(md));
    LogOptions o = OptionsFor(tp, md.topic_id);
    jobs.push_back(Job{tp, std::move(config), std::move(o), nullptr, Status::OK()});
  }
  Mutex progress_mu;
  int done = 0;
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  say(fmt::format("Loading {} logs from {} with {} thread(s) after {} shutdown", jobs.size(), dir_,
                  std::max(1, threads), had_clean_shutdown_ ? "a clean" : "an unclean"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      Job& job = jobs[i];
      const int64_t t0 = MonotonicMs();
      auto log = Log::Open(dir_ + "/" + PartitionDirName(job.tp), job.config, job.options);
      MutexLock l(&progress_mu);
      ++done;
      if (!log.ok()) {
        job.status = log.status();
        say(fmt::format("Error while loading log {}: {}", PartitionDirName(job.tp),
                        log.status().ToString()));
        continue;
      }
      job.log = std::move(log).value();
      for (const std::string& action : job.log->load_report().actions) say(action);
      say(fmt::format(
          "Completed load of log {} with {} segments, local-log-start-offset {} and "
          "log-end-offset {} in {} ms ({}/{} completed in {})",
          PartitionDirName(job.tp), job.log->num_segments(), job.log->log_start_offset(),
          job.log->log_end_offset(), MonotonicMs() - t0, done, jobs.size(), dir_));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads) && static_cast<size_t>(t) < jobs.size(); ++t) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread& t : pool) t.join();
  Status first_error;
  for (Job& job : jobs) {
    if (job.log) logs_[job.tp] = std::move(job.log);
    if (first_error.ok() && !job.status.ok()) first_error = job.status;
  }
  if (!first_error.ok()) return first_error;
  loaded_all_ = true;
  say(fmt::format("Loaded {} logs in {} ms", jobs.size(), MonotonicMs() - start));
  return Status::OK();
}

void LogDirectory::RefreshCheckpointMaps() {
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
}

Status LogDirectory::WriteCheckpoints() {
  RefreshCheckpointMaps();
  SEGLOG_RETURN_IF_ERROR(
      WriteOffsetCheckpoint(dir_ + "/" + kRecoveryPointCheckpointFile, recovery_points_));
  return WriteOffsetCheckpoint(dir_ + "/" + kLogStartOffsetCheckpointFile, log_start_offsets_);
}

Status LogDirectory::WriteRecoveryPointCheckpoint() {
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  RefreshCheckpointMaps();
  return WriteOffsetCheckpoint(dir_ + "/" + kRecoveryPointCheckpointFile, recovery_points_);
}

Status LogDirectory::WriteLogStartOffsetCheckpoint() {
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  RefreshCheckpointMaps();
  return WriteOffsetCheckpoint(dir_ + "/" + kLogStartOffsetCheckpointFile, log_start_offsets_);
}

std::optional<int64_t> LogDirectory::CleanerCheckpoint(const TopicPartition& tp) const {
  auto it = cleaner_offsets_.find(tp);
  if (it == cleaner_offsets_.end()) return std::nullopt;
  return it->second;
}

Status LogDirectory::SetCleanerCheckpoint(const TopicPartition& tp, int64_t first_dirty) {
  cleaner_offsets_[tp] = first_dirty;
  // Entries of partitions no longer here are dropped on rewrite (11.10).
  for (auto it = cleaner_offsets_.begin(); it != cleaner_offsets_.end();) {
    it = logs_.count(it->first) ? std::next(it) : cleaner_offsets_.erase(it);
  }
  return WriteOffsetCheckpoint(dir_ + "/" + kCleanerOffsetCheckpointFile, cleaner_offsets_);
}

Result<std::string> LogDirectory::RemoveLog(const TopicPartition& tp) {
  auto it = logs_.find(tp);
  if (it == logs_.end()) {
    return Status::NotFound(fmt::format("{}: no open log for {}", dir_, PartitionDirName(tp)));
  }
  SEGLOG_RETURN_IF_ERROR(it->second->Close());
  logs_.erase(it);
  recovery_points_.erase(tp);
  log_start_offsets_.erase(tp);
  SEGLOG_RETURN_IF_ERROR(WriteCheckpoints());
  if (cleaner_offsets_.erase(tp) > 0) {
    SEGLOG_RETURN_IF_ERROR(
        WriteOffsetCheckpoint(dir_ + "/" + kCleanerOffsetCheckpointFile, cleaner_offsets_));
  }
  // Kafka's name: <topic>-<partition>.<uuid, 32 hex digits>-delete.
  std::string hex;
  for (uint8_t b : Uuid::Random().bytes) hex += fmt::format("{:02x}", b);
  const std::string deleted = fmt::format("{}/{}.{}-delete", dir_, PartitionDirName(tp), hex);
  SEGLOG_RETURN_IF_ERROR(RenameFile(dir_ + "/" + PartitionDirName(tp), deleted));
  SEGLOG_RETURN_IF_ERROR(SyncDirectory(dir_));
  return deleted;
}

Result<std::vector<std::string>> LogDirectory::PendingDeleteDirs() const {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(dir_));
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (n.ends_with("-delete") && ParsePartitionDirName(n).ok()) out.push_back(dir_ + "/" + n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status LogDirectory::CheckpointRecoveryPoints() {
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  for (auto& [tp, log] : logs_) SEGLOG_RETURN_IF_ERROR(log->Flush(log->log_end_offset()));
  return WriteCheckpoints();
}

Status LogDirectory::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  Status result;
  for (auto& [tp, log] : logs_) {
    Status s = log->Close();
    if (result.ok() && !s.ok()) result = s;
  }
  if (offline()) {
    // No checkpoints and no marker: the next open recovers what may have been lost.
    return Status::IOError(fmt::format(
        "KafkaStorageException: log directory {} went offline; it was not shut down cleanly: {}",
        dir_, offline_reason().ToString()));
  }
  SEGLOG_RETURN_IF_ERROR(result);
  SEGLOG_RETURN_IF_ERROR(WriteCheckpoints());
  // Last: the marker says everything above is complete - for every partition, so only when
  // all were loaded (and recovered) or nothing needed recovery.
  if (!had_clean_shutdown_ && !loaded_all_) return Status::OK();
  return WriteFileAtomically(dir_ + "/" + kCleanShutdownFile, "{\"version\":0,\"brokerEpoch\":-1}");
}

}  // namespace seglog
