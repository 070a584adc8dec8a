// LogManager; see log_manager.h.
#include "manager/log_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include <fmt/ranges.h>

#include "base/uuid.h"
#include "io/file.h"
#include "io/file_names.h"

namespace seglog {

Result<std::unique_ptr<LogManager>> LogManager::Open(
    const ServerConfig& config, Scheduler* scheduler,
    std::function<void(const std::string&)> logger) {
  if (scheduler == nullptr) return Status::InvalidArgument("LogManager needs a scheduler");
  std::unique_ptr<LogManager> m(new LogManager(config, scheduler, std::move(logger)));
  MutexLock l(&m->mu_);
  m->Info(fmt::format("Loading logs from log dirs {}", fmt::join(config.log_dirs, ", ")));
  for (const std::string& dir : config.log_dirs) {
    SEGLOG_RETURN_IF_ERROR(CreateDirectories(dir));
    LogDirectoryOptions o;
    o.node_id = config.node_id;
    o.log_options.scheduler = scheduler;
    o.log_options.clock = [scheduler] { return scheduler->NowMs(); };
    o.log_options.logger = m->logger_;
    // All directories share one cluster id.
    if (!m->dirs_.empty()) o.cluster_id = m->dirs_.front()->meta().cluster_id;
    SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogDirectory> d, LogDirectory::Open(dir, o));
    if (!m->dirs_.empty() && d->meta().cluster_id != m->dirs_.front()->meta().cluster_id) {
      return Status::InvalidArgument(fmt::format(
          "{}: meta.properties has cluster.id {}, but {} has {}: the log directories belong to "
          "different clusters",
          dir, d->meta().cluster_id, m->dirs_.front()->dir(), m->dirs_.front()->meta().cluster_id));
    }
    SEGLOG_ASSIGN_OR_RETURN(TopicMap topics, LoadTopics(dir));
    for (auto& [name, md] : topics) {
      TopicMetadata& known = m->topics_[name];
      known.partitions = std::max(known.partitions, md.partitions);
      if (known.topic_id.empty()) known.topic_id = md.topic_id;
      if (known.configs.empty()) known.configs = md.configs;
    }
    m->dirs_.push_back(std::move(d));
  }
  const TopicMap known_topics = m->topics_;
  for (auto& d : m->dirs_) {
    const ServerConfig& c = m->config_;
    SEGLOG_RETURN_IF_ERROR(
        d->LoadAll(c.num_recovery_threads_per_data_dir, m->logger_,
                   [&topics = known_topics, &c](const std::string& topic, const TopicMetadata& md) {
                     auto it = topics.find(topic);
                     return c.TopicConfig(it != topics.end() ? it->second.configs : md.configs);
                   }));
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> pending, d->PendingDeleteDirs());
    for (const std::string& p : pending) {
      m->pending_deletes_.push_back({p, scheduler->NowMs()});  // found at startup: due now
    }
  }
  return m;
}

LogManager::~LogManager() { (void)Shutdown(); }

void LogManager::Info(const std::string& line) const {
  if (logger_) logger_(line);
}

std::vector<Log*> LogManager::AllLogs() const {
  std::vector<Log*> out;
  for (const auto& d : dirs_) {
    for (const auto& [tp, log] : d->logs()) out.push_back(log.get());
  }
  return out;
}

LogDirectory* LogManager::DirFor(const TopicPartition& tp) const {
  for (const auto& d : dirs_) {
    if (d->FindLog(tp) != nullptr) return d.get();
  }
  return nullptr;
}

LogDirectory* LogManager::LeastLoadedDir() const {
  LogDirectory* best = nullptr;
  for (const auto& d : dirs_) {
    if (d->offline()) continue;
    if (best == nullptr || d->num_logs() < best->num_logs()) best = d.get();
  }
  return best;
}

Status LogManager::SaveTopicsLocked() {
  for (const auto& d : dirs_) {
    if (!d->offline()) SEGLOG_RETURN_IF_ERROR(SaveTopics(d->dir(), topics_));
  }
  return Status::OK();
}

Status LogManager::CreatePartitionsLocked(const std::string& topic, int32_t from, int32_t to) {
  const TopicMetadata& md = topics_.at(topic);
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, config_.TopicConfig(md.configs));
  for (int32_t p = from; p < to; ++p) {
    LogDirectory* d = LeastLoadedDir();
    if (d == nullptr) return Status::IOError("no log directory is online");
    SEGLOG_RETURN_IF_ERROR(d->GetLog({topic, p}, config, md.topic_id).status());
  }
  return Status::OK();
}

Status LogManager::CreateTopic(const std::string& topic, int32_t partitions,
                               const std::map<std::string, std::string>& configs) {
  SEGLOG_RETURN_IF_ERROR(ValidateTopicName(topic));
  if (partitions < 1) {
    return Status::InvalidArgument(
        fmt::format("Number of partitions must be larger than 0, not {}", partitions));
  }
  SEGLOG_RETURN_IF_ERROR(config_.TopicConfig(configs).status());  // nothing written if bad
  MutexLock l(&mu_);
  if (topics_.count(topic)) {
    return Status::AlreadyExists(fmt::format("Topic '{}' already exists.", topic));
  }
  topics_[topic] = TopicMetadata{partitions, configs, Uuid::Random().ToString()};
  SEGLOG_RETURN_IF_ERROR(SaveTopicsLocked());
  Info(fmt::format("Created topic {} with {} partition(s) and topic id {}", topic, partitions,
                   topics_[topic].topic_id));
  return CreatePartitionsLocked(topic, 0, partitions);
}

Status LogManager::AddPartitions(const std::string& topic, int32_t total) {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  const int32_t current = it->second.partitions;
  if (total <= current) {
    return Status::InvalidArgument(
        fmt::format("Topic currently has {} partitions, which is higher than the requested {}.",
                    current, total));
  }
  it->second.partitions = total;
  SEGLOG_RETURN_IF_ERROR(SaveTopicsLocked());
  return CreatePartitionsLocked(topic, current, total);
}

Status LogManager::DeleteTopic(const std::string& topic) {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, config_.TopicConfig(it->second.configs));
  const int32_t partitions = it->second.partitions;
  topics_.erase(it);
  SEGLOG_RETURN_IF_ERROR(SaveTopicsLocked());
  for (int32_t p = 0; p < partitions; ++p) {
    LogDirectory* d = DirFor({topic, p});
    if (d == nullptr) continue;
    SEGLOG_ASSIGN_OR_RETURN(const std::string renamed, d->RemoveLog({topic, p}));
    Info(fmt::format("Log for partition {} is renamed to {} and is scheduled for deletion",
                     PartitionDirName({topic, p}), renamed));
    pending_deletes_.push_back({renamed, scheduler_->NowMs() + config.file_delete_delay_ms});
  }
  scheduler_->Schedule(
      "kafka-delete-logs", [this] { (void)DeleteLogs(false); }, config.file_delete_delay_ms);
  return Status::OK();
}

std::vector<std::string> LogManager::ListTopics() const {
  MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, md] : topics_) out.push_back(name);
  return out;
}

Result<TopicDescription> LogManager::DescribeTopic(const std::string& topic) const {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  TopicDescription t;
  t.topic = topic;
  t.topic_id = it->second.topic_id;
  t.overrides = it->second.configs;
  SEGLOG_ASSIGN_OR_RETURN(t.config, config_.TopicConfig(it->second.configs));
  for (int32_t p = 0; p < it->second.partitions; ++p) {
    LogDirectory* d = DirFor({topic, p});
    if (d == nullptr) continue;
    Log* log = d->FindLog({topic, p});
    t.partitions.push_back(PartitionDescription{p, d->dir(), log->num_segments(),
                                                log->size_in_bytes(), log->log_start_offset(),
                                                log->log_end_offset(), log->recovery_point()});
  }
  return t;
}

Status LogManager::AlterTopicConfig(const std::string& topic,
                                    const std::map<std::string, std::string>& set,
                                    const std::vector<std::string>& remove) {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  std::map<std::string, std::string> next = it->second.configs;
  for (const std::string& k : remove) {
    if (!LogConfig::IsKnownName(k)) {
      return Status::InvalidArgument(fmt::format("Unknown topic config name: {}", k));
    }
    next.erase(k);
  }
  for (const auto& [k, v] : set) next[k] = v;
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, config_.TopicConfig(next));
  it->second.configs = next;
  SEGLOG_RETURN_IF_ERROR(SaveTopicsLocked());
  for (int32_t p = 0; p < it->second.partitions; ++p) {
    if (LogDirectory* d = DirFor({topic, p})) d->FindLog({topic, p})->UpdateConfig(config);
  }
  return Status::OK();
}

Result<Log*> LogManager::GetLog(const TopicPartition& tp) const {
  MutexLock l(&mu_);
  LogDirectory* d = DirFor(tp);
  if (d == nullptr) {
    return Status::NotFound(fmt::format(
        "UnknownTopicOrPartitionException: {} is not in any log directory", PartitionDirName(tp)));
  }
  return d->FindLog(tp);
}

void LogManager::StartTasks() {
  const int64_t delay = config_.log_initial_task_delay_ms;
  Info(fmt::format("Starting log cleanup with a period of {} ms.",
                   config_.log_retention_check_interval_ms));
  scheduler_->Schedule(
      "kafka-log-retention", [this] { (void)CleanupLogs(); }, delay,
      config_.log_retention_check_interval_ms);
  Info(fmt::format("Starting log flusher with a default period of {} ms.",
                   config_.log_flush_scheduler_interval_ms));
  if (config_.log_flush_scheduler_interval_ms > 0 &&
      config_.log_flush_scheduler_interval_ms < INT64_MAX / 2) {
    scheduler_->Schedule(
        "kafka-log-flusher", [this] { (void)FlushDirtyLogs(); }, delay,
        config_.log_flush_scheduler_interval_ms);
  }
  scheduler_->Schedule(
      "kafka-recovery-point-checkpoint", [this] { (void)CheckpointRecoveryPoints(); }, delay,
      config_.log_flush_offset_checkpoint_interval_ms);
  scheduler_->Schedule(
      "kafka-log-start-offset-checkpoint", [this] { (void)CheckpointLogStartOffsets(); }, delay,
      config_.log_flush_start_offset_checkpoint_interval_ms);
  scheduler_->Schedule(
      "kafka-delete-logs", [this] { (void)DeleteLogs(false); }, delay);
  if (config_.log_cleaner_enable && config_.log_cleaner_threads > 0) {
    {
      MutexLock l(&mu_);
      cleaner_running_ = true;
    }
    for (int id = 0; id < config_.log_cleaner_threads; ++id) ScheduleCleaner(id, 0);
  }
}

void LogManager::ScheduleCleaner(int id, int64_t delay_ms) {
  // Kafka's CleanerThread.doWork: clean the filthiest log, or rest log.cleaner.backoff.ms.
  scheduler_->Schedule(
      fmt::format("kafka-log-cleaner-thread-{}", id),
      [this, id] {
        auto cleaned = RunCleanerRound(id);
        ScheduleCleaner(id, cleaned.ok() && *cleaned ? 0 : config_.log_cleaner_backoff_ms);
      },
      delay_ms);
}

Status LogManager::CleanupLogs() {
  MutexLock l(&mu_);
  if (shut_down_) return Status::OK();
  Status first;
  for (Log* log : AllLogs()) {
    // With a cleaner running, compacted logs get their retention from it; without one
    // (log.cleaner.enable=false, or before StartTasks) every log is handled here, as Kafka does.
    if (cleaner_running_ && log->config().cleanup_compact) continue;
    auto n = log->DeleteOldSegments();
    if (!n.ok() && first.ok()) first = n.status();
  }
  return first;
}

Status LogManager::FlushDirtyLogs() {
  MutexLock l(&mu_);
  Status first;
  for (Log* log : AllLogs()) {
    Status s = log->FlushIfDue();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

Status LogManager::ForEachOnlineDir(Status (LogDirectory::*write)()) {
  MutexLock l(&mu_);
  Status first;
  for (const auto& d : dirs_) {
    if (d->offline()) continue;
    Status s = (d.get()->*write)();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

Status LogManager::CheckpointRecoveryPoints() {
  return ForEachOnlineDir(&LogDirectory::WriteRecoveryPointCheckpoint);
}

Status LogManager::CheckpointLogStartOffsets() {
  return ForEachOnlineDir(&LogDirectory::WriteLogStartOffsetCheckpoint);
}

Status LogManager::DeleteLogs(bool now) {
  MutexLock l(&mu_);
  const int64_t t = scheduler_->NowMs();
  Status first;
  for (auto it = pending_deletes_.begin(); it != pending_deletes_.end();) {
    if (!now && it->due_ms > t) {
      ++it;
      continue;
    }
    std::error_code ec;
    std::filesystem::remove_all(it->path, ec);
    if (ec && first.ok()) {
      first = Status::IOError(fmt::format("{}: delete: {}", it->path, ec.message()));
    }
    Info(fmt::format("Deleted log for partition {} in {}.",
                     it->path.substr(it->path.rfind('/') + 1), it->path));
    it = pending_deletes_.erase(it);
  }
  return first;
}

SkimpyOffsetMap* LogManager::MapFor(int id) {
  auto& m = cleaner_maps_[id];
  if (!m) {
    const int threads = std::max(1, config_.log_cleaner_threads);
    m = std::make_unique<SkimpyOffsetMap>(config_.log_cleaner_dedupe_buffer_size / threads,
                                          config_.log_cleaner_io_buffer_load_factor);
  }
  return m.get();
}

Result<bool> LogManager::CleanLocked(int id, LogDirectory* dir, const TopicPartition& tp, Log* log,
                                     bool force, int64_t now, std::optional<LogToClean> computed) {
  const std::string name = PartitionDirName(tp);
  Result<LogToClean> range = computed ? Result<LogToClean>(*computed)
                                      : CleanableRange(*log, dir->CleanerCheckpoint(tp), now);
  if (!range.ok()) return range.status();
  if (range->checkpoint_reset) {
    SEGLOG_RETURN_IF_ERROR(dir->SetCleanerCheckpoint(tp, range->first_dirty_offset));
  }
  const bool eligible =
      force ? range->cleanable_bytes > 0 : range->Eligible(log->config().min_cleanable_dirty_ratio);
  if (!eligible) return false;
  Cleaner cleaner(id, MapFor(id), logger_);
  cleaner.SetIoLimit(config_.log_cleaner_io_max_bytes_per_second);
  auto cleaned = cleaner.Clean(*log, name, *range, now);
  if (!cleaned.ok()) return cleaned.status();
  SEGLOG_RETURN_IF_ERROR(dir->SetCleanerCheckpoint(tp, cleaned->end_offset));
  return true;
}

Result<bool> LogManager::RunCleanerRound(int id) {
  MutexLock l(&mu_);
  if (shut_down_) return false;
  // The filthiest eligible log (11.3).
  struct Candidate {
    LogDirectory* dir;
    TopicPartition tp;
    Log* log;
    double ratio;
    LogToClean range;
  };
  std::optional<Candidate> best;
  const int64_t now = scheduler_->NowMs();
  for (const auto& d : dirs_) {
    if (d->offline()) continue;
    for (const auto& [tp, log] : d->logs()) {
      if (!log->config().cleanup_compact || uncleanable_.count(PartitionDirName(tp))) continue;
      auto range = CleanableRange(*log, d->CleanerCheckpoint(tp), now);
      if (!range.ok() || !range->Eligible(log->config().min_cleanable_dirty_ratio)) continue;
      if (!best || range->cleanable_ratio() > best->ratio) {
        best = Candidate{d.get(), tp, log.get(), range->cleanable_ratio(), *range};
      }
    }
  }
  bool cleaned = false;
  if (best) {
    // The range this round measured, not a second computation of it (same lock, same now).
    auto r = CleanLocked(id, best->dir, best->tp, best->log, /*force=*/false, now, best->range);
    if (!r.ok()) {
      uncleanable_.insert(PartitionDirName(best->tp));
      Info(
          fmt::format("Cleaner {}: Unexpected exception thrown when cleaning log {}. Marking "
                      "its partition ({}) as uncleanable: {}",
                      id, best->log->dir(), PartitionDirName(best->tp), r.status().ToString()));
    } else {
      cleaned = *r;
    }
  }
  // Then retention for the compacted logs (11.9).
  for (Log* log : AllLogs()) {
    if (!log->config().cleanup_compact) continue;
    (void)log->DeleteOldSegments();
  }
  return cleaned;
}

Result<int> LogManager::CleanNow(const std::string& topic, int32_t partition) {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  int cleaned = 0;
  for (int32_t p = 0; p < it->second.partitions; ++p) {
    if (partition >= 0 && p != partition) continue;
    LogDirectory* d = DirFor({topic, p});
    if (d == nullptr) continue;
    Log* log = d->FindLog({topic, p});
    if (!log->config().cleanup_compact) {
      return Status::InvalidArgument(fmt::format(
          "{}: cleanup.policy is {}: only compacted topics are cleaned",
          PartitionDirName({topic, p}), log->config().cleanup_delete ? "delete" : "none"));
    }
    SEGLOG_ASSIGN_OR_RETURN(
        const bool done, CleanLocked(0, d, {topic, p}, log, /*force=*/true, scheduler_->NowMs()));
    cleaned += done ? 1 : 0;
  }
  return cleaned;
}

Status LogManager::RunTask(const std::string& name) {
  if (name == "cleaner") return RunCleanerRound(0).status();
  if (name == "retention") return CleanupLogs();
  if (name == "flush") return FlushDirtyLogs();
  if (name == "checkpoint") {
    SEGLOG_RETURN_IF_ERROR(CheckpointRecoveryPoints());
    return CheckpointLogStartOffsets();
  }
  if (name == "delete-files") {
    // Pending deletions at once: the delayed delete-file tasks, then -delete directories.
    if (auto* mock = dynamic_cast<MockScheduler*>(scheduler_)) mock->RunPendingNow("delete-file");
    return DeleteLogs(true);
  }
  return Status::InvalidArgument(fmt::format(
      "unknown task '{}': expected retention, flush, checkpoint, delete-files or cleaner", name));
}

Status LogManager::Shutdown() {
  {
    MutexLock l(&mu_);
    if (shut_down_) return Status::OK();
    shut_down_ = true;
  }
  Info("Shutting down.");
  // Outside the lock: a task that is running may be waiting for it.
  scheduler_->Shutdown();
  MutexLock l(&mu_);
  Status first;
  for (auto& d : dirs_) {
    Status s = d->Close();
    if (first.ok() && !s.ok()) first = s;
  }
  Info("Shutdown complete.");
  return first;
}

}  // namespace seglog
