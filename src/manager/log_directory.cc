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
  if (options.log_options.env == nullptr) options.log_options.env = Env::Default();
  Env* const env = options.log_options.env;
  const bool read_only = options.read_only;
  std::unique_ptr<LogDirLock> lock;
  if (read_only) {
    // No lock (a node may hold it), but the directory must exist: nothing is created.
    SEGLOG_RETURN_IF_ERROR(env->ListDirectory(log_dir).status());
  } else {
    SEGLOG_ASSIGN_OR_RETURN(lock, LogDirLock::Acquire(env, log_dir));
  }
  std::unique_ptr<LogDirectory> d(new LogDirectory(log_dir, std::move(lock), std::move(options)));
  d->options_.log_options.read_only = read_only;
  const std::string marker = log_dir + "/" + kCleanShutdownFile;
  if (read_only) {
    // meta.properties as it is (a directory of copied partitions may have none).
    const std::string meta = log_dir + "/" + kMetaPropertiesFile;
    if (auto text = ReadFileToString(env, meta); text.ok()) {
      SEGLOG_ASSIGN_OR_RETURN(d->meta_, ParseMetaProperties(meta, *text));
    } else if (!text.status().IsNotFound()) {
      return text.status();
    }
  } else {
    SEGLOG_ASSIGN_OR_RETURN(d->meta_, LoadOrCreateMetaProperties(env, log_dir, d->options_.node_id,
                                                                 d->options_.cluster_id));
  }
  if (read_only && env->FileExists(marker)) {
    d->had_clean_shutdown_ = true;  // and the marker stays for the node's next open
  } else if (env->FileExists(marker)) {
    // Deleted before anything is loaded: a crash while loading is an unclean shutdown.
    SEGLOG_RETURN_IF_ERROR(env->RemoveFile(marker, false));
    SEGLOG_RETURN_IF_ERROR(env->SyncDirectory(log_dir));
    d->had_clean_shutdown_ = true;
  } else {
    // A directory that never held a log has nothing to recover.
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDirectory(log_dir));
    bool any_partition = false;
    for (const std::string& n : names) any_partition |= ParsePartitionDirName(n).ok();
    d->had_clean_shutdown_ = !any_partition;
  }
  for (auto [file, map] : {std::pair<const char*, OffsetMap LogDirectory::*>{
                               kRecoveryPointCheckpointFile, &LogDirectory::recovery_points_},
                           {kLogStartOffsetCheckpointFile, &LogDirectory::log_start_offsets_},
                           {kCleanerOffsetCheckpointFile, &LogDirectory::cleaner_offsets_}}) {
    const std::string path = log_dir + "/" + file;
    if (!env->FileExists(path)) continue;
    auto m = ReadOffsetCheckpoint(env, path);
    if (m.ok()) {
      MutexLock l(&d->mu_);
      (*d).*map = *m;
    } else {
      d->warnings_.push_back(fmt::format("{} (using no checkpoint)", m.status().ToString()));
    }
  }
  return d;
}

LogDirectory::~LogDirectory() = default;

Status LogDirectory::CheckWritable(const char* what) const {
  if (!options_.read_only) return Status::OK();
  return Status::FailedPrecondition(
      fmt::format("{}: opened read-only, so it cannot {}", dir_, what));
}

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
  {
    MutexLock l(&mu_);
    auto rp = recovery_points_.find(tp);
    o.recovery_point = rp == recovery_points_.end() ? 0 : rp->second;
    auto ls = log_start_offsets_.find(tp);
    o.log_start_offset = ls == log_start_offsets_.end() ? 0 : ls->second;
  }
  o.topic_id = topic_id;
  o.directory_offline = offline_;
  o.on_storage_failure = [this](const Status& s) { MarkOffline(s); };
  if (o.logger) {
    o.logger = o.logger.WithPrefix(
        fmt::format("[UnifiedLog partition={}, dir={}] ", PartitionDirName(tp), dir_));
  }
  return o;
}

std::shared_ptr<Log> LogDirectory::FindLog(const TopicPartition& tp) const {
  MutexLock l(&mu_);
  auto it = logs_.find(tp);
  return it == logs_.end() ? nullptr : it->second;
}

LogDirectory::LogMap LogDirectory::logs() const {
  MutexLock l(&mu_);
  return logs_;
}

Result<std::shared_ptr<Log>> LogDirectory::GetLog(const TopicPartition& tp, const LogConfig& config,
                                                  const std::string& topic_id) {
  MutexLock open_lock(&open_mu_);
  if (std::shared_ptr<Log> log = FindLog(tp)) return log;
  if (offline()) {
    return Status::IOError(fmt::format("KafkaStorageException: log directory {} is offline: {}",
                                       dir_, offline_reason().ToString()));
  }
  const std::string path = dir_ + "/" + PartitionDirName(tp);
  const bool is_new = !env()->FileExists(path);
  if (is_new && options_.read_only) {
    return Status::NotFound(
        fmt::format("{}: no partition directory {}", dir_, PartitionDirName(tp)));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> opened,
                          Log::Open(path, config, OptionsFor(tp, topic_id)));
  std::shared_ptr<Log> log = std::move(opened);
  // The new partition directory's name is durable before anyone appends to it.
  if (is_new) SEGLOG_RETURN_IF_ERROR(env()->SyncDirectory(dir_));
  MutexLock l(&mu_);
  logs_[tp] = log;
  return log;
}

Status LogDirectory::LoadAll(int threads, const Logger& logger, const ConfigFor& config_for,
                             const ProgressCallback& progress) {
  const int64_t start = MonotonicMs();
  SEGLOG_ASSIGN_OR_RETURN(TopicMap topics, LoadTopics(env(), dir_));
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env()->ListDirectory(dir_));
  std::sort(names.begin(), names.end());
  struct Job {
    TopicPartition tp;
    LogConfig config;
    LogOptions options;
    std::unique_ptr<Log> log;
    Status status;
    ProgressStep size;  // its .log files, for `progress`
  };
  std::vector<Job> jobs;
  const LogMap already = logs();
  for (const std::string& name : names) {
    if (!IsLoadablePartitionDir(name)) continue;
    TopicPartition tp = *ParsePartitionDirName(name);
    if (already.count(tp)) continue;
    const TopicMetadata& md = topics[tp.topic];
    SEGLOG_ASSIGN_OR_RETURN(LogConfig config,
                            config_for ? config_for(tp.topic, md) : TopicConfig(md));
    LogOptions o = OptionsFor(tp, md.topic_id);
    jobs.push_back(Job{tp, std::move(config), std::move(o), nullptr, Status::OK(), {}});
  }
  if (progress) {
    ProgressStep total;
    for (Job& job : jobs) {
      const std::string path = dir_ + "/" + PartitionDirName(job.tp);
      auto files = env()->ListDirectory(path);
      if (!files.ok()) continue;
      for (const std::string& f : *files) {
        if (f.size() < 4 || f.compare(f.size() - 4, 4, ".log") != 0) continue;
        auto st = env()->Stat(path + "/" + f);
        job.size.bytes += st.ok() ? st->size : 0;
        ++job.size.segments;
      }
      job.size.logs = 1;
      total.add_bytes_total += job.size.bytes;
      total.add_segments_total += job.size.segments;
      ++total.add_logs_total;
    }
    progress(total);
  }
  Mutex progress_mu;
  int done = 0;
  auto say = [&](const std::string& line) { logger.Info(line); };
  // Kafka's LogManager words.
  say(had_clean_shutdown_
          ? fmt::format("Skipping recovery for all logs in {} since clean shutdown file was found",
                        dir_)
          : fmt::format("Attempting recovery for all logs in {} since no clean shutdown file was "
                        "found",
                        dir_));
  if (jobs.empty()) {
    say(fmt::format("No logs found to be loaded in {}", dir_));
  } else if (had_clean_shutdown_) {
    say(fmt::format("Skipping recovery of {} logs from {} since clean shutdown file was found",
                    jobs.size(), dir_));
  } else {
    say(fmt::format("Recovering {} logs from {} since no clean shutdown file was found",
                    jobs.size(), dir_));
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      Job& job = jobs[i];
      const int64_t t0 = MonotonicMs();
      auto log = Log::Open(dir_ + "/" + PartitionDirName(job.tp), job.config, job.options);
      if (progress) progress(job.size);
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
    if (job.log) {
      MutexLock l(&mu_);
      logs_[job.tp] = std::move(job.log);
    }
    if (first_error.ok() && !job.status.ok()) first_error = job.status;
  }
  if (!first_error.ok()) return first_error;
  loaded_all_ = true;
  say(fmt::format("Loaded {} logs in {}ms{}", jobs.size(), MonotonicMs() - start,
                  had_clean_shutdown_ ? "" : fmt::format(" (unclean log dirs = [{}])", dir_)));
  return Status::OK();
}

void LogDirectory::RefreshCheckpointMaps() {
  // Each log's values are read without mu_ (they take the log's own lock).
  struct Values {
    TopicPartition tp;
    int64_t recovery_point;
    int64_t high_watermark;
    std::optional<int64_t> log_start_offset;
  };
  std::vector<Values> values;
  for (const auto& [tp, log] : logs()) {
    Values v{tp, log->recovery_point(), log->high_watermark(), std::nullopt};
    // Kafka lists only partitions whose log start is above their first segment.
    const std::vector<int64_t> bases = log->segment_base_offsets();
    if (!bases.empty() && log->log_start_offset() > bases.front()) {
      v.log_start_offset = log->log_start_offset();
    }
    values.push_back(std::move(v));
  }
  MutexLock l(&mu_);
  high_watermarks_.clear();
  for (const Values& v : values) {
    if (!logs_.count(v.tp)) continue;  // removed meanwhile
    recovery_points_[v.tp] = v.recovery_point;
    high_watermarks_[v.tp] = v.high_watermark;
    if (v.log_start_offset) {
      log_start_offsets_[v.tp] = *v.log_start_offset;
    } else {
      log_start_offsets_.erase(v.tp);
    }
  }
}

Status LogDirectory::WriteCheckpoint(const char* file, OffsetMap LogDirectory::*map) {
  OffsetMap copy;
  {
    MutexLock l(&mu_);
    copy = this->*map;
  }
  return WriteOffsetCheckpoint(env(), dir_ + "/" + file, copy);
}

Status LogDirectory::WriteCheckpoints() {
  RefreshCheckpointMaps();
  SEGLOG_RETURN_IF_ERROR(
      WriteCheckpoint(kRecoveryPointCheckpointFile, &LogDirectory::recovery_points_));
  SEGLOG_RETURN_IF_ERROR(
      WriteCheckpoint(kReplicationOffsetCheckpointFile, &LogDirectory::high_watermarks_));
  return WriteCheckpoint(kLogStartOffsetCheckpointFile, &LogDirectory::log_start_offsets_);
}

Status LogDirectory::WriteRecoveryPointCheckpoint() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write recovery-point-offset-checkpoint"));
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  MutexLock l(&checkpoint_mu_);
  RefreshCheckpointMaps();
  return WriteCheckpoint(kRecoveryPointCheckpointFile, &LogDirectory::recovery_points_);
}

Status LogDirectory::WriteLogStartOffsetCheckpoint() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write log-start-offset-checkpoint"));
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  MutexLock l(&checkpoint_mu_);
  RefreshCheckpointMaps();
  return WriteCheckpoint(kLogStartOffsetCheckpointFile, &LogDirectory::log_start_offsets_);
}

std::optional<int64_t> LogDirectory::CleanerCheckpoint(const TopicPartition& tp) const {
  MutexLock l(&mu_);
  auto it = cleaner_offsets_.find(tp);
  if (it == cleaner_offsets_.end()) return std::nullopt;
  return it->second;
}

Status LogDirectory::SetCleanerCheckpoint(const TopicPartition& tp, int64_t first_dirty) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write cleaner-offset-checkpoint"));
  MutexLock checkpoint_lock(&checkpoint_mu_);
  {
    MutexLock l(&mu_);
    if (!logs_.count(tp)) return Status::OK();  // removed while it was being cleaned
    cleaner_offsets_[tp] = first_dirty;
    // Entries of partitions no longer here are dropped on rewrite (docs/design/cleaner.md,
    // "cleaner-offset-checkpoint").
    for (auto it = cleaner_offsets_.begin(); it != cleaner_offsets_.end();) {
      it = logs_.count(it->first) ? std::next(it) : cleaner_offsets_.erase(it);
    }
  }
  return WriteCheckpoint(kCleanerOffsetCheckpointFile, &LogDirectory::cleaner_offsets_);
}

Result<std::string> LogDirectory::RemoveLog(const TopicPartition& tp) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("remove a partition"));
  MutexLock checkpoint_lock(&checkpoint_mu_);
  std::shared_ptr<Log> log;
  bool had_cleaner_entry = false;
  {
    MutexLock l(&mu_);
    auto it = logs_.find(tp);
    if (it == logs_.end()) {
      return Status::NotFound(fmt::format("{}: no open log for {}", dir_, PartitionDirName(tp)));
    }
    log = std::move(it->second);
    logs_.erase(it);
    recovery_points_.erase(tp);
    log_start_offsets_.erase(tp);
    had_cleaner_entry = cleaner_offsets_.erase(tp) > 0;
  }
  // Holders of the log see it deleted from here on; Close waits for a running flush.
  log->MarkDeleted();
  SEGLOG_RETURN_IF_ERROR(log->Close());
  SEGLOG_RETURN_IF_ERROR(WriteCheckpoints());
  if (had_cleaner_entry) {
    SEGLOG_RETURN_IF_ERROR(
        WriteCheckpoint(kCleanerOffsetCheckpointFile, &LogDirectory::cleaner_offsets_));
  }
  // Kafka's name: <topic>-<partition>.<uuid, 32 hex digits>-delete.
  std::string hex;
  for (uint8_t b : Uuid::Random().bytes) hex += fmt::format("{:02x}", b);
  const std::string deleted = fmt::format("{}/{}.{}-delete", dir_, PartitionDirName(tp), hex);
  SEGLOG_RETURN_IF_ERROR(env()->RenameFile(dir_ + "/" + PartitionDirName(tp), deleted));
  SEGLOG_RETURN_IF_ERROR(env()->SyncDirectory(dir_));
  return deleted;
}

namespace {
// <topic>-<partition>.<uuid, 32 hex digits>-<suffix>: Kafka's names of deleted and future logs.
std::string RenamedDirName(const TopicPartition& tp, const char* suffix) {
  std::string hex;
  for (uint8_t b : Uuid::Random().bytes) hex += fmt::format("{:02x}", b);
  return fmt::format("{}.{}-{}", PartitionDirName(tp), hex, suffix);
}
}  // namespace

Result<std::shared_ptr<Log>> LogDirectory::OpenFutureLog(const TopicPartition& tp,
                                                         const LogConfig& config,
                                                         const std::string& topic_id,
                                                         int64_t log_start_offset) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("move a partition"));
  MutexLock open_lock(&open_mu_);
  if (offline()) {
    return Status::IOError(fmt::format("KafkaStorageException: log directory {} is offline: {}",
                                       dir_, offline_reason().ToString()));
  }
  {
    MutexLock l(&mu_);
    if (futures_.count(tp)) {
      return Status::AlreadyExists(
          fmt::format("{}: {} already has a future log", dir_, PartitionDirName(tp)));
    }
  }
  const std::string path = dir_ + "/" + RenamedDirName(tp, "future");
  LogOptions o = OptionsFor(tp, topic_id);
  o.had_clean_shutdown = true;  // a new, empty directory: nothing to recover
  o.recovery_point = log_start_offset;
  o.log_start_offset = log_start_offset;
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> opened, Log::Open(path, config, o));
  std::shared_ptr<Log> log = std::move(opened);
  SEGLOG_RETURN_IF_ERROR(env()->SyncDirectory(dir_));
  MutexLock l(&mu_);
  futures_[tp] = FutureLog{path, log};
  return log;
}

std::shared_ptr<Log> LogDirectory::FindFutureLog(const TopicPartition& tp) const {
  MutexLock l(&mu_);
  auto it = futures_.find(tp);
  return it == futures_.end() ? nullptr : it->second.log;
}

Result<LogDirectory::FutureLog> LogDirectory::TakeFutureLog(const TopicPartition& tp) {
  MutexLock l(&mu_);
  auto it = futures_.find(tp);
  if (it == futures_.end()) {
    return Status::NotFound(fmt::format("{}: no future log of {}", dir_, PartitionDirName(tp)));
  }
  FutureLog f = std::move(it->second);
  futures_.erase(it);
  return f;
}

Result<std::string> LogDirectory::RemoveFutureLog(const TopicPartition& tp) {
  SEGLOG_ASSIGN_OR_RETURN(FutureLog f, TakeFutureLog(tp));
  f.log->MarkDeleted();
  SEGLOG_RETURN_IF_ERROR(f.log->Close());
  const std::string deleted = dir_ + "/" + RenamedDirName(tp, "delete");
  SEGLOG_RETURN_IF_ERROR(env()->RenameFile(f.path, deleted));
  SEGLOG_RETURN_IF_ERROR(env()->SyncDirectory(dir_));
  return deleted;
}

Result<std::shared_ptr<Log>> LogDirectory::PromoteFutureLog(const TopicPartition& tp,
                                                            const LogConfig& config,
                                                            const std::string& topic_id) {
  SEGLOG_ASSIGN_OR_RETURN(FutureLog f, TakeFutureLog(tp));
  const int64_t log_start = f.log->log_start_offset();
  SEGLOG_RETURN_IF_ERROR(f.log->Close());  // flushes to the log end offset
  const int64_t recovery_point = f.log->log_end_offset();
  SEGLOG_RETURN_IF_ERROR(env()->RenameFile(f.path, dir_ + "/" + PartitionDirName(tp)));
  SEGLOG_RETURN_IF_ERROR(env()->SyncDirectory(dir_));
  {
    MutexLock l(&mu_);
    recovery_points_[tp] = recovery_point;
    log_start_offsets_[tp] = log_start;
  }
  return GetLog(tp, config, topic_id);
}

Result<std::vector<std::string>> LogDirectory::PendingDeleteDirs() const {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env()->ListDirectory(dir_));
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (n.ends_with("-delete") && ParsePartitionDirName(n).ok()) out.push_back(dir_ + "/" + n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status LogDirectory::CheckpointRecoveryPoints() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write recovery-point-offset-checkpoint"));
  if (offline()) return Status::IOError(fmt::format("{} is offline", dir_));
  for (const auto& [tp, log] : logs()) SEGLOG_RETURN_IF_ERROR(log->Flush(log->log_end_offset()));
  MutexLock l(&checkpoint_mu_);
  return WriteCheckpoints();
}

Status LogDirectory::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  Status s = CloseLogsAndWriteMarker();
  lock_.reset();  // as a Kafka broker's shutdown: free for the next owner
  return s;
}

Status LogDirectory::CloseLogsAndWriteMarker() {
  Status result;
  for (const auto& [tp, log] : logs()) {
    Status s = log->Close();
    if (result.ok() && !s.ok()) result = s;
  }
  std::vector<std::shared_ptr<Log>> futures;
  {
    MutexLock l(&mu_);
    for (const auto& [tp, f] : futures_) futures.push_back(f.log);
  }
  for (const auto& log : futures) {
    Status s = log->Close();  // the next open undoes the move (LogManager::SettleFutureLogs)
    if (result.ok() && !s.ok()) result = s;
  }
  if (offline()) {
    // No checkpoints and no marker: the next open recovers what may have been lost.
    return Status::IOError(fmt::format(
        "KafkaStorageException: log directory {} went offline; it was not shut down cleanly: {}",
        dir_, offline_reason().ToString()));
  }
  SEGLOG_RETURN_IF_ERROR(result);
  if (options_.read_only) return Status::OK();  // writes nothing, and leaves the marker be
  {
    MutexLock l(&checkpoint_mu_);
    SEGLOG_RETURN_IF_ERROR(WriteCheckpoints());
  }
  // Last: the marker says everything above is complete - for every partition, so only when
  // all were loaded (and recovered) or nothing needed recovery.
  if (!had_clean_shutdown_ && !loaded_all_) return Status::OK();
  return WriteFileAtomically(env(), dir_ + "/" + kCleanShutdownFile,
                             fmt::format("{{\"version\":0,\"brokerEpoch\":{}}}",
                                         broker_epoch_.load(std::memory_order_acquire)));
}

}  // namespace seglog
