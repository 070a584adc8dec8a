// LogManager; see log_manager.h.
#include "manager/log_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/ranges.h>

#include "base/coding.h"
#include "base/uuid.h"
#include "io/file.h"
#include "io/file_names.h"
#include "seglog/validation_error.h"

namespace seglog {

Result<std::unique_ptr<LogManager>> LogManager::Open(const LogManagerConfig& config,
                                                     Scheduler* scheduler, Logger logger, Env* env,
                                                     const LoadProgress& load_progress) {
  SEGLOG_ASSIGN_OR_RETURN(
      std::unique_ptr<LogManager> m,
      OpenDirs(config, scheduler, std::move(logger), /*read_only=*/false, env, load_progress));
  SEGLOG_RETURN_IF_ERROR(m->SettleMetadataPartitions());
  return m;
}

Result<std::unique_ptr<LogManager>> LogManager::OpenReadOnly(const LogManagerConfig& config,
                                                             Scheduler* scheduler, Logger logger,
                                                             Env* env) {
  return OpenDirs(config, scheduler, std::move(logger), /*read_only=*/true, env);
}

Status LogManager::CheckWritable(const char* what) const {
  if (!read_only_) return Status::OK();
  return Status::FailedPrecondition(
      fmt::format("the log directories were opened read-only, so they cannot {}", what));
}

Result<std::unique_ptr<LogManager>> LogManager::OpenDirs(const LogManagerConfig& config,
                                                         Scheduler* scheduler, Logger logger,
                                                         bool read_only, Env* env,
                                                         const LoadProgress& load_progress) {
  if (scheduler == nullptr) return Status::InvalidArgument("LogManager needs a scheduler");
  if (env == nullptr) env = Env::Default();
  std::unique_ptr<LogManager> m(new LogManager(config, scheduler, std::move(logger), env));
  m->read_only_ = read_only;
  MutexLock l(&m->mu_);
  m->logger_.Info(fmt::format("Loading logs from log dirs {}", fmt::join(config.log_dirs, ", ")));
  TopicMap found;  // what the directories hold: partition directories, a legacy topic store
  if (!read_only && !config.log_dirs.empty()) {
    SEGLOG_RETURN_IF_ERROR(
        MetadataStore::CheckSingleNodeDirectory(config.log_dirs.front(), config.node_id, env));
  }
  for (const std::string& dir : config.log_dirs) {
    if (!read_only) SEGLOG_RETURN_IF_ERROR(env->CreateDirectories(dir));
    LogDirectoryOptions o;
    o.read_only = read_only;
    o.log_options.env = env;
    o.node_id = config.node_id;
    o.log_options.scheduler = scheduler;
    o.log_options.on_flush = [manager = m.get()](int64_t ns) { manager->OnFlush(ns); };
    o.log_options.clock = [scheduler] { return scheduler->NowMs(); };
    o.log_options.logger = m->logger_.Named("org.apache.kafka.storage.internals.log.UnifiedLog");
    o.log_options.producer_id_expiration_ms = config.producer_id_expiration_ms;
    o.log_options.remote_storage_system_enable = config.remote_storage_system_enable;
    // All directories share one cluster id.
    if (!m->dirs_.empty()) o.cluster_id = m->dirs_.front()->meta().cluster_id;
    SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogDirectory> d, LogDirectory::Open(dir, o));
    // (A read-only view of a directory without meta.properties has no cluster id to compare.)
    if (!m->dirs_.empty() && d->meta().cluster_id != m->dirs_.front()->meta().cluster_id &&
        !(read_only &&
          (d->meta().cluster_id.empty() || m->dirs_.front()->meta().cluster_id.empty()))) {
      return Status::InvalidArgument(fmt::format(
          "{}: meta.properties has cluster.id {}, but {} has {}: the log directories belong to "
          "different clusters",
          dir, d->meta().cluster_id, m->dirs_.front()->dir(), m->dirs_.front()->meta().cluster_id));
    }
    SEGLOG_ASSIGN_OR_RETURN(TopicMap topics, LoadTopics(env, dir));
    for (auto& [name, md] : topics) {
      TopicMetadata& known = found[name];
      known.partitions = std::max(known.partitions, md.partitions);
      if (known.topic_id.empty()) known.topic_id = md.topic_id;
      if (known.configs.empty()) known.configs = md.configs;
    }
    m->dirs_.push_back(std::move(d));
  }
  SEGLOG_RETURN_IF_ERROR(m->OpenMetadata(found));
  m->IndexTopicIdsLocked();
  m->LoadDynamicConfigs();
  if (!read_only) SEGLOG_RETURN_IF_ERROR(m->SettleFutureLogs());
  const TopicMap known_topics = m->topics_;
  for (auto& d : m->dirs_) {
    const LogManager* self = m.get();
    SEGLOG_RETURN_IF_ERROR(d->LoadAll(
        m->config_.num_recovery_threads_per_data_dir, m->logger_,
        [&topics = known_topics, self](const std::string& topic, const TopicMetadata& md) {
          auto it = topics.find(topic);
          return self->StoredTopicConfig(it != topics.end() ? it->second.configs : md.configs);
        },
        load_progress ? ProgressCallback([&load_progress, dir = d->dir()](const ProgressStep& s) {
          load_progress(dir, s);
        })
                      : ProgressCallback()));
    if (read_only) continue;  // a read-only view deletes nothing
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> pending, d->PendingDeleteDirs());
    for (const std::string& p : pending) {
      m->pending_deletes_.push_back({p, scheduler->NowMs()});  // found at startup: due now
    }
  }
  m->NoteFlushSettings(known_topics);
  if (!read_only && m->metadata_ != nullptr) {
    MetadataStore* store = m->metadata_.get();
    m->producer_ids_ =
        std::make_unique<ProducerIdManager>([store] { return store->ReserveProducerIdBlock(); });
  }
  return m;
}

LogManager::~LogManager() { (void)Shutdown(); }

namespace {
// A log that was closed or deleted while a task held it: nothing to report.
bool IsGone(const Status& s) {
  return s.IsNotFound() || s.code() == Status::Code::kFailedPrecondition;
}
}  // namespace

std::string LogManager::AbsoluteDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir, ec);
  std::string out = ec ? dir : p.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::vector<LogManager::LogRef> LogManager::AllLogs() const {
  std::vector<LogRef> out;
  for (const auto& d : dirs_) {
    for (auto& [tp, log] : d->logs()) out.push_back(LogRef{d.get(), tp, log});
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

void LogManager::RefreshTopic(const std::string& topic) {
  // One topic's entry, so a change costs the same with 10 topics or 10,000.
  std::optional<TopicMetadata> md = metadata_->FindTopic(topic);
  bool flushes = false;
  if (md.has_value()) {
    Result<LogConfig> c = StoredTopicConfig(md->configs);
    flushes = c.ok() && c.value().flush_messages < std::numeric_limits<int64_t>::max();
  }
  TopicMap all;
  {
    MutexLock l(&mu_);
    if (auto old = topics_.find(topic); old != topics_.end()) {
      topic_names_by_id_.erase(old->second.topic_id);
    }
    if (md.has_value()) {
      topics_[topic] = *md;
      if (!md->topic_id.empty()) topic_names_by_id_[md->topic_id] = topic;
    } else {
      topics_.erase(topic);
    }
    // The flag needs every topic only when it may have to go back to false.
    if (flushes || !appends_may_flush_.load(std::memory_order_relaxed)) {
      if (flushes) appends_may_flush_.store(true, std::memory_order_relaxed);
      return;
    }
    all = topics_;
  }
  NoteFlushSettings(all);
}

void LogManager::NoteFlushSettings(const TopicMap& topics) {
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  Result<LogConfig> defaults = TopicConfig({});  // log.flush.interval.messages
  bool may_flush = defaults.ok() && defaults.value().flush_messages < kNever;
  for (const auto& [name, md] : topics) {
    Result<LogConfig> c = StoredTopicConfig(md.configs);
    if (c.ok() && c.value().flush_messages < kNever) may_flush = true;
  }
  appends_may_flush_.store(may_flush, std::memory_order_relaxed);
}

Status LogManager::CreatePartitions(const std::string& topic, const TopicMetadata& md, int32_t from,
                                    const std::vector<LogDirectory*>& dirs) {
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, StoredTopicConfig(md.configs));
  Status failed;
  int32_t made = from;
  const int32_t to = from + static_cast<int32_t>(dirs.size());
  for (; made < to; ++made) {
    LogDirectory* d = dirs[static_cast<size_t>(made - from)];
    if (d->offline()) {
      failed = Status::IOError(fmt::format("KafkaStorageException: {} is offline", d->dir()));
      break;
    }
    if (auto log = d->GetLog({topic, made}, config, md.topic_id); !log.ok()) {
      failed = log.status();
      break;
    }
  }
  if (failed.ok()) return Status::OK();
  // Undo: the partitions made so far go the delete path at once.
  for (int32_t p = from; p < made; ++p) (void)RemovePartition({topic, p}, 0);
  (void)DeleteLogs(true);
  return failed.WithContext(fmt::format("creating partition {}-{}", topic, made));
}

Status LogManager::RemovePartition(const TopicPartition& tp, int64_t delay_ms) {
  CancelMove(tp);
  LogDirectory* d = DirFor(tp);
  if (d == nullptr) return Status::OK();
  auto renamed = d->RemoveLog(tp);
  if (!renamed.ok()) {
    return renamed.status().WithContext(
        fmt::format("deleting partition {} in {}", PartitionDirName(tp), d->dir()));
  }
  logger_.Info(fmt::format("Log for partition {} is renamed to {} and is scheduled for deletion",
                           PartitionDirName(tp), *renamed));
  MutexLock l(&mu_);
  pending_deletes_.push_back({*renamed, scheduler_->NowMs() + delay_ms});
  return Status::OK();
}

Status LogManager::CreateTopic(const std::string& topic, int32_t partitions,
                               const std::map<std::string, std::string>& configs) {
  return CreateTopics({NewTopic{topic, partitions, configs}}).front();
}

std::vector<Status> LogManager::CreateTopics(const std::vector<NewTopic>& topics) {
  std::vector<Status> out(topics.size());
  if (topics.empty()) return out;
  const Status writable = CheckWritable("create topics");
  for (size_t i = 0; i < topics.size(); ++i) {
    const NewTopic& t = topics[i];
    if (!writable.ok()) {
      out[i] = writable;
    } else if (Status valid = ValidateTopicName(t.name); !valid.ok()) {
      out[i] = valid;
    } else if (t.partitions < 1) {
      out[i] = Status::InvalidArgument(
          fmt::format("Number of partitions must be larger than 0, not {}", t.partitions));
    } else {
      out[i] = TopicConfig(t.configs).status();  // nothing written if bad
    }
  }
  MutexLock admin(&admin_mu_);
  std::vector<size_t> to_create;
  int total_partitions = 0;
  {
    MutexLock l(&mu_);
    for (size_t i = 0; i < topics.size(); ++i) {
      if (!out[i].ok()) continue;
      if (topics_.count(topics[i].name)) {
        out[i] = Status::AlreadyExists(fmt::format("Topic '{}' already exists.", topics[i].name));
        continue;
      }
      to_create.push_back(i);
      total_partitions += topics[i].partitions;
    }
  }
  if (to_create.empty()) return out;
  const std::vector<LogDirectory*> dirs = AssignDirs(total_partitions);
  if (dirs.empty()) {
    for (size_t i : to_create)
      out[i] = Status::IOError("KafkaStorageException: no log directory is online");
    return out;
  }
  std::vector<NewTopicRecords> records;
  std::vector<std::vector<LogDirectory*>> topic_dirs;
  std::set<Uuid> drawn;
  size_t next_dir = 0;
  for (size_t i : to_create) {
    Uuid id = Uuid::Random();
    while (metadata_->TopicIdInUse(id) || drawn.count(id)) id = Uuid::Random();
    drawn.insert(id);
    NewTopicRecords& r = records.emplace_back();
    r.name = topics[i].name;
    r.id = id;
    r.configs = topics[i].configs;
    std::vector<LogDirectory*>& mine = topic_dirs.emplace_back();
    for (int32_t p = 0; p < topics[i].partitions; ++p) {
      mine.push_back(dirs[next_dir++]);
      r.partition_dirs.push_back(DirectoryIdOf(mine.back()));
    }
  }
  // The metadata first: once durable, a topic exists (its missing partition directories are
  // created at the next open if a crash comes first).
  const std::vector<Status> recorded = metadata_->CreateTopics(records);
  for (size_t k = 0; k < to_create.size(); ++k) {
    const size_t i = to_create[k];
    if (!recorded[k].ok()) {
      out[i] = recorded[k];
      continue;
    }
    const TopicMetadata md{topics[i].partitions, topics[i].configs, records[k].id.ToString()};
    if (Status s = CreatePartitions(topics[i].name, md, 0, topic_dirs[k]); !s.ok()) {
      if (Status undo = metadata_->DeleteTopic(topics[i].name); !undo.ok()) {
        logger_.Error(undo.ToString());
      }
      RefreshTopic(topics[i].name);
      out[i] = s;
      continue;
    }
    RefreshTopic(topics[i].name);
    topics_created_.fetch_add(1, std::memory_order_acq_rel);
    logger_.Info(fmt::format("Created topic {} with {} partition(s) and topic id {}",
                             topics[i].name, topics[i].partitions, md.topic_id));
  }
  return out;
}

Status LogManager::AddPartitions(const std::string& topic, int32_t total) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("add partitions"));
  MutexLock admin(&admin_mu_);
  SEGLOG_ASSIGN_OR_RETURN(const TopicMetadata md, FindTopic(topic));
  const int32_t current = md.partitions;
  if (total <= current) {
    return Status::InvalidArgument(
        fmt::format("Topic currently has {} partitions, which is higher than the requested {}.",
                    current, total));
  }
  const std::vector<LogDirectory*> dirs = AssignDirs(total - current);
  if (dirs.empty()) return Status::IOError("KafkaStorageException: no log directory is online");
  std::vector<Uuid> dir_ids;
  for (LogDirectory* d : dirs) dir_ids.push_back(DirectoryIdOf(d));
  SEGLOG_RETURN_IF_ERROR(metadata_->AddPartitions(topic, dir_ids));
  RefreshTopic(topic);
  // Durable in the metadata: a partition whose directory fails now is created at the next open.
  return CreatePartitions(topic, md, current, dirs);
}

Status LogManager::DeleteTopic(const std::string& topic) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("delete topics"));
  MutexLock admin(&admin_mu_);
  TopicMetadata md;
  {
    MutexLock l(&mu_);
    auto it = topics_.find(topic);
    if (it == topics_.end()) {
      return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
    }
    md = it->second;
    topic_names_by_id_.erase(md.topic_id);
    topics_.erase(it);
    for (int32_t p = 0; p < md.partitions; ++p) uncleanable_.erase(PartitionDirName({topic, p}));
  }
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, StoredTopicConfig(md.configs));
  if (Status s = metadata_->DeleteTopic(topic); !s.ok()) {
    RefreshTopic(topic);  // the topic is back in topics_: nothing was deleted
    return s;
  }
  RefreshTopic(topic);
  Status first;
  for (int32_t p = 0; p < md.partitions; ++p) {
    Status s = RemovePartition({topic, p}, config.file_delete_delay_ms);
    if (!s.ok()) {
      logger_.Error(s.ToString());
      if (first.ok()) first = s;
    }
  }
  scheduler_->Schedule(
      "kafka-delete-logs", [this] { (void)DeleteLogs(false); }, config.file_delete_delay_ms);
  return first;
}

Result<TopicMetadata> LogManager::FindTopic(const std::string& topic) const {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", topic));
  }
  return it->second;
}

std::optional<LogManager::TopicIdentity> LogManager::FindTopicIdentity(
    const std::string& topic) const {
  MutexLock l(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return TopicIdentity{it->second.topic_id, it->second.partitions};
}

TopicMap LogManager::AllTopicMetadata() const {
  MutexLock l(&mu_);
  return topics_;
}

std::optional<std::string> LogManager::TopicNameForId(std::string_view topic_id) const {
  MutexLock l(&mu_);
  auto it = topic_names_by_id_.find(std::string(topic_id));
  if (it == topic_names_by_id_.end()) return std::nullopt;
  return it->second;
}

void LogManager::IndexTopicIdsLocked() {
  topic_names_by_id_.clear();
  for (const auto& [name, md] : topics_) {
    if (!md.topic_id.empty()) topic_names_by_id_[md.topic_id] = name;
  }
}

std::string LogManager::cluster_id() const {
  // Invariant: every directory of one node carries the same cluster.id (checked at Open).
  return dirs_.empty() ? std::string() : dirs_.front()->meta().cluster_id;
}

std::vector<std::string> LogManager::ListTopics() const {
  MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, md] : topics_) out.push_back(name);
  return out;
}

Result<TopicDescription> LogManager::DescribeTopic(const std::string& topic) const {
  SEGLOG_ASSIGN_OR_RETURN(const TopicMetadata md, FindTopic(topic));
  TopicDescription t;
  t.topic = topic;
  t.topic_id = md.topic_id;
  t.overrides = md.configs;
  SEGLOG_ASSIGN_OR_RETURN(t.config, StoredTopicConfig(md.configs));
  for (int32_t p = 0; p < md.partitions; ++p) {
    LogDirectory* d = DirFor({topic, p});
    if (d == nullptr) continue;
    std::shared_ptr<Log> log = d->FindLog({topic, p});
    if (log == nullptr) continue;  // deleted meanwhile
    t.partitions.push_back(PartitionDescription{p, d->dir(), log->num_segments(),
                                                log->size_in_bytes(), log->log_start_offset(),
                                                log->log_end_offset(), log->recovery_point()});
  }
  return t;
}

Status LogManager::AlterTopicConfig(const std::string& topic,
                                    const std::map<std::string, std::string>& set,
                                    const std::vector<std::string>& remove) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("alter topic configs"));
  MutexLock admin(&admin_mu_);
  SEGLOG_ASSIGN_OR_RETURN(const TopicMetadata md, FindTopic(topic));
  std::map<std::string, std::string> next = md.configs;
  // Any of Kafka's topic configs may be removed (one seglog does not apply, kept from a Kafka
  // broker, too); only one seglog applies may be set.
  for (const std::string& k : remove) {
    if (!LogConfig::IsKafkaName(k)) {
      return Status::InvalidArgument(fmt::format("Unknown topic config name: {}", k));
    }
    next.erase(k);
  }
  for (const auto& [k, v] : set) {
    if (!LogConfig::IsKnownName(k)) {
      return Status::InvalidArgument(fmt::format("Unknown topic config name: {}", k));
    }
    next[k] = v;
  }
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, StoredTopicConfig(next));
  SEGLOG_RETURN_IF_ERROR(metadata_->AlterTopicConfig(topic, next));
  RefreshTopic(topic);
  for (int32_t p = 0; p < md.partitions; ++p) {
    if (LogDirectory* d = DirFor({topic, p})) {
      if (std::shared_ptr<Log> log = d->FindLog({topic, p})) log->UpdateConfig(config);
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<Log>> LogManager::GetLog(const TopicPartition& tp) const {
  for (const auto& d : dirs_) {
    if (std::shared_ptr<Log> log = d->FindLog(tp)) return log;
  }
  return Status::NotFound(fmt::format(
      "UnknownTopicOrPartitionException: {} is not in any log directory", PartitionDirName(tp)));
}

void LogManager::StartTasks() {
  if (read_only_) return;  // a read-only view runs no task
  const int64_t delay = config_.log_initial_task_delay_ms;
  logger_.Info(fmt::format("Starting log cleanup with a period of {} ms.",
                           config_.log_retention_check_interval_ms));
  scheduler_->Schedule(
      "kafka-log-retention", [this] { (void)CleanupLogs(); }, delay,
      config_.log_retention_check_interval_ms);
  logger_.Info(fmt::format("Starting log flusher with a default period of {} ms.",
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
  // ReplicaAlterLogDirsThread's part: moves between log directories, a bounded copy a pass.
  // It starts at once (not after log.initial.task.delay.ms): a move requested at startup
  // begins when the request is answered, as Kafka's thread starts with the future replica.
  scheduler_->Schedule(
      "kafka-alter-log-dirs", [this] { (void)MoveReplicas(); }, 200, 200);
  // The metadata log's snapshots by time and its retention (Kafka checks at every commit and
  // its cleaner every minute; size-driven snapshots are taken at the commit).
  scheduler_->Schedule(
      "metadata-snapshot", [this] { (void)metadata_->MaybeSnapshot(); }, 60000, 60000);
  scheduler_->Schedule(
      "PeriodicProducerExpirationCheck", [this] { (void)RemoveExpiredProducers(); },
      config_.producer_id_expiration_check_interval_ms,
      config_.producer_id_expiration_check_interval_ms);
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
  SEGLOG_RETURN_IF_ERROR(CheckWritable("run retention"));
  bool cleaner_running;
  {
    MutexLock l(&mu_);
    if (shut_down_) return Status::OK();
    cleaner_running = cleaner_running_;
  }
  Status first;
  for (const LogRef& ref : AllLogs()) {
    // With a cleaner running, compacted logs get their retention from it; without one
    // (log.cleaner.enable=false) every log is handled here, as Kafka does.
    if (cleaner_running && ref.log->config().cleanup_compact) continue;
    auto n = ref.log->DeleteOldSegments();
    if (!n.ok() && !IsGone(n.status()) && first.ok()) first = n.status();
  }
  return first;
}

Status LogManager::RemoveExpiredProducers() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("expire producers"));
  Status first;
  for (const LogRef& ref : AllLogs()) {
    auto n = ref.log->RemoveExpiredProducers();
    if (!n.ok() && !IsGone(n.status()) && first.ok()) first = n.status();
  }
  return first;
}

Result<int64_t> LogManager::NextProducerId() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("hand out producer ids"));
  if (producer_ids_ == nullptr) return Status::FailedPrecondition("no producer id manager");
  return producer_ids_->NextProducerId();
}

Status LogManager::FlushDirtyLogs() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("flush"));
  Status first;
  for (const LogRef& ref : AllLogs()) {
    Status s = ref.log->FlushIfDue();
    if (first.ok() && !s.ok() && !IsGone(s)) first = s;
  }
  return first;
}

Status LogManager::ForEachOnlineDir(Status (LogDirectory::*write)()) {
  Status first;
  for (const auto& d : dirs_) {
    if (d->offline()) continue;
    Status s = (d.get()->*write)();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

Status LogManager::CheckpointRecoveryPoints() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write checkpoints"));
  return ForEachOnlineDir(&LogDirectory::WriteRecoveryPointCheckpoint);
}

Status LogManager::CheckpointLogStartOffsets() {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("write checkpoints"));
  return ForEachOnlineDir(&LogDirectory::WriteLogStartOffsetCheckpoint);
}

Status LogManager::DeleteLogs(bool now) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("delete partitions"));
  std::vector<PendingDelete> due;
  {
    MutexLock l(&mu_);
    const int64_t t = scheduler_->NowMs();
    for (auto it = pending_deletes_.begin(); it != pending_deletes_.end();) {
      if (!now && it->due_ms > t) {
        ++it;
        continue;
      }
      due.push_back(*it);
      it = pending_deletes_.erase(it);
    }
  }
  Status first;
  for (const PendingDelete& pd : due) {
    const std::string name = pd.path.substr(pd.path.rfind('/') + 1);
    if (Status s = env_->RemoveTree(pd.path); !s.ok()) {
      // Kept for the next run; reported now.
      logger_.Error(
          fmt::format("Exception while deleting {} in dir {}: {}", name, pd.path, s.ToString()));
      if (first.ok()) first = s;
      MutexLock l(&mu_);
      pending_deletes_.push_back(pd);
      continue;
    }
    logger_.Info(fmt::format("Deleted log for partition {} in {}.", name, pd.path));
  }
  return first;
}

LogManager::CleanerSlot* LogManager::SlotFor(int id) {
  MutexLock l(&mu_);
  auto& slot = cleaner_slots_[id];
  if (!slot) slot = std::make_unique<CleanerSlot>();
  return slot.get();
}

bool LogManager::BeginCleaning(const TopicPartition& tp) {
  MutexLock l(&mu_);
  return cleaning_.insert(PartitionDirName(tp)).second;
}

void LogManager::EndCleaning(const TopicPartition& tp, const Status& result, int id,
                             const Log& log) {
  MutexLock l(&mu_);
  const std::string name = PartitionDirName(tp);
  cleaning_.erase(name);
  // A log deleted or closed meanwhile aborts its cleaning; it is not uncleanable.
  if (result.ok() || result.code() == Status::Code::kAborted || IsGone(result) || shut_down_) {
    return;
  }
  uncleanable_.insert(name);
  cleaner_logger_.Info(fmt::format(
      "Cleaner {}: Unexpected exception thrown when cleaning log {}. Marking its partition ({}) "
      "as uncleanable: {}",
      id, log.dir(), name, result.ToString()));
}

void LogManager::DebugCleanableRange(const std::string& name, std::optional<int64_t> checkpoint,
                                     int64_t now, const LogToClean& range) const {
  if (!cleaner_logger_.IsEnabled(LogLevel::kDebug)) return;
  cleaner_logger_.Debug(fmt::format(
      "Finding range of cleanable offsets for log={}. Last clean offset={} now={} => "
      "firstDirtyOffset={} firstUncleanableOffset={} cleanableBytes={}",
      name, checkpoint ? fmt::format("Optional[{}]", *checkpoint) : "Optional.empty", now,
      range.first_dirty_offset, range.first_uncleanable_offset, range.cleanable_bytes));
}

Result<bool> LogManager::CleanOne(int id, const LogRef& ref, bool force, int64_t now,
                                  std::optional<LogToClean> computed,
                                  const ProgressCallback& progress) {
  const std::string name = PartitionDirName(ref.tp);
  Result<LogToClean> range =
      computed ? Result<LogToClean>(*computed)
               : CleanableRange(*ref.log, ref.dir->CleanerCheckpoint(ref.tp), now);
  if (!range.ok()) return range.status();
  if (!computed) DebugCleanableRange(name, ref.dir->CleanerCheckpoint(ref.tp), now, *range);
  if (range->checkpoint_reset) {
    SEGLOG_RETURN_IF_ERROR(ref.dir->SetCleanerCheckpoint(ref.tp, range->first_dirty_offset));
  }
  const bool eligible = force ? range->cleanable_bytes > 0
                              : range->Eligible(ref.log->config().min_cleanable_dirty_ratio);
  if (!eligible) return false;
  CleanerSlot* slot = SlotFor(id);
  MutexLock slot_lock(&slot->mu);  // only another round of cleaner `id` waits for it
  if (!slot->map) {
    const int threads = std::max(1, config_.log_cleaner_threads);
    slot->map = std::make_unique<SkimpyOffsetMap>(config_.log_cleaner_dedupe_buffer_size / threads,
                                                  config_.log_cleaner_io_buffer_load_factor);
  }
  Cleaner cleaner(id, slot->map.get(), cleaner_logger_);
  cleaner.SetIoLimit(config_.log_cleaner_io_max_bytes_per_second);
  cleaner.SetProgress(progress);
  auto cleaned = cleaner.Clean(*ref.log, name, *range, now);
  if (!cleaned.ok()) return cleaned.status();
  {
    const CleanerStats& st = cleaned->stats;
    MutexLock l(&mu_);
    // Kafka's recopy percent is of the copy phase's reads, not the map's.
    last_rounds_[id] =
        CleanerRound{st.map_utilization, st.bytes_read, st.bytes_written, st.total_seconds};
  }
  SEGLOG_RETURN_IF_ERROR(ref.dir->SetCleanerCheckpoint(ref.tp, cleaned->end_offset));
  return true;
}

Result<bool> LogManager::RunCleanerRound(int id) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("clean"));
  std::set<std::string> skip;
  {
    MutexLock l(&mu_);
    if (shut_down_) return false;
    skip = uncleanable_;
    skip.insert(cleaning_.begin(), cleaning_.end());
  }
  // The filthiest eligible log (docs/design/cleaner.md, "Choosing a log"), measured without
  // the manager lock.
  struct Candidate {
    LogRef ref;
    double ratio;
    LogToClean range;
  };
  std::optional<Candidate> best;
  double dirtiest = 0;  // over every compacted log, eligible or not (Kafka's max-dirty-percent)
  const int64_t now = scheduler_->NowMs();
  const std::vector<LogRef> logs = AllLogs();
  for (const LogRef& ref : logs) {
    if (ref.dir->offline() || !ref.log->config().cleanup_compact ||
        skip.count(PartitionDirName(ref.tp))) {
      continue;
    }
    const std::optional<int64_t> checkpoint = ref.dir->CleanerCheckpoint(ref.tp);
    auto range = CleanableRange(*ref.log, checkpoint, now);
    if (range.ok()) DebugCleanableRange(PartitionDirName(ref.tp), checkpoint, now, *range);
    if (range.ok()) dirtiest = std::max(dirtiest, range->cleanable_ratio());
    if (!range.ok() || !range->Eligible(ref.log->config().min_cleanable_dirty_ratio)) continue;
    if (!best || range->cleanable_ratio() > best->ratio) {
      best = Candidate{ref, range->cleanable_ratio(), *range};
    }
  }
  {
    MutexLock l(&mu_);
    last_max_dirty_ratio_ = dirtiest;
  }
  bool cleaned = false;
  if (best && BeginCleaning(best->ref.tp)) {
    // The range this round measured, not a second computation of it (same now).
    auto r = CleanOne(id, best->ref, /*force=*/false, now, best->range);
    EndCleaning(best->ref.tp, r.status(), id, *best->ref.log);
    cleaned = r.ok() && *r;
  }
  // Then retention for the compacted logs (docs/design/cleaner.md, "Retention of compacted
  // logs").
  for (const LogRef& ref : logs) {
    if (!ref.log->config().cleanup_compact) continue;
    (void)ref.log->DeleteOldSegments();
  }
  {
    MutexLock l(&mu_);
    last_cleaner_run_ms_ = scheduler_->NowMs();
  }
  return cleaned;
}

Result<int> LogManager::CleanNow(const std::string& topic, int32_t partition,
                                 const ProgressCallback& progress) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("clean"));
  SEGLOG_ASSIGN_OR_RETURN(const TopicMetadata md, FindTopic(topic));
  const int32_t partitions = md.partitions;
  int cleaned = 0;
  for (int32_t p = 0; p < partitions; ++p) {
    if (partition >= 0 && p != partition) continue;
    LogDirectory* d = DirFor({topic, p});
    if (d == nullptr) continue;
    LogRef ref{d, {topic, p}, d->FindLog({topic, p})};
    if (ref.log == nullptr) continue;
    if (!ref.log->config().cleanup_compact) {
      return Status::InvalidArgument(fmt::format(
          "{}: cleanup.policy is {}: only compacted topics are cleaned",
          PartitionDirName({topic, p}), ref.log->config().cleanup_delete ? "delete" : "none"));
    }
    if (!BeginCleaning(ref.tp)) continue;  // a cleaner thread has it now
    auto done = CleanOne(0, ref, /*force=*/true, scheduler_->NowMs(), std::nullopt, progress);
    EndCleaning(ref.tp, done.status(), 0, *ref.log);
    SEGLOG_RETURN_IF_ERROR(done.status());
    cleaned += *done ? 1 : 0;
  }
  return cleaned;
}

Status LogManager::RunTask(const std::string& name) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("run tasks"));
  if (name == "cleaner") return RunCleanerRound(0).status();
  if (name == "retention") return CleanupLogs();
  if (name == "flush") return FlushDirtyLogs();
  if (name == "producer-expiration") return RemoveExpiredProducers();
  if (name == "checkpoint") {
    SEGLOG_RETURN_IF_ERROR(CheckpointRecoveryPoints());
    return CheckpointLogStartOffsets();
  }
  if (name == "alter-log-dirs") return MoveReplicas();
  if (name == "delete-files") {
    // Pending deletions at once: the delayed delete-file tasks, then -delete directories.
    scheduler_->RunPendingNow("delete-file");
    return DeleteLogs(true);
  }
  return Status::InvalidArgument(fmt::format(
      "unknown task '{}': expected retention, flush, checkpoint, delete-files, cleaner or "
      "producer-expiration",
      name));
}

Status LogManager::Shutdown() {
  {
    MutexLock l(&mu_);
    if (shut_down_) return Status::OK();
    shut_down_ = true;
  }
  logger_.Info("Shutting down.");
  // Running tasks finish first; none holds a manager lock while it works.
  scheduler_->Shutdown();
  MutexLock admin(&admin_mu_);
  Status first;
  if (metadata_ != nullptr) {
    if (!read_only_) {
      if (Status s = metadata_->ControlledShutdown(); !s.ok()) logger_.Warn(s.ToString());
    }
    first = metadata_->Close();
  }
  for (auto& d : dirs_) {
    Status s = d->Close();
    if (first.ok() && !s.ok()) first = s;
  }
  logger_.Info("Shutdown complete.");
  return first;
}

LogManager::CleanerMetrics LogManager::cleaner_metrics() const {
  CleanerMetrics out;
  std::set<std::string> uncleanable;
  {
    MutexLock l(&mu_);
    int64_t read = 0, written = 0;
    for (const auto& [id, round] : last_rounds_) {
      out.max_buffer_utilization_percent =
          std::max(out.max_buffer_utilization_percent, std::floor(100 * round.buffer_utilization));
      out.max_clean_time_secs = std::max(out.max_clean_time_secs, std::floor(round.seconds));
      read += round.bytes_read;
      written += round.bytes_written;
    }
    // Kafka's cleaner-recopy-percent: of the bytes the last rounds read, the share written.
    // Whole percents, as Kafka's gauges report them.
    out.cleaner_recopy_percent =
        read > 0 ? std::floor(100.0 * static_cast<double>(written) / static_cast<double>(read)) : 0;
    out.max_dirty_percent = std::floor(100 * last_max_dirty_ratio_);
    out.last_run_ms = last_cleaner_run_ms_;
    uncleanable = uncleanable_;
  }
  for (const std::unique_ptr<LogDirectory>& d : dirs_) out.uncleanable_by_dir[d->dir()] = {0, 0};
  for (const LogRef& ref : AllLogs()) {
    if (!uncleanable.count(PartitionDirName(ref.tp))) continue;
    auto& [count, bytes] = out.uncleanable_by_dir[ref.dir->dir()];
    ++count;
    bytes += ref.log->size_in_bytes();
  }
  return out;
}

void LogManager::SetFlushObserver(std::function<void(int64_t flush_ns)> observer) {
  MutexLock l(&flush_mu_);
  flush_observer_ = std::move(observer);
}

void LogManager::OnFlush(int64_t ns) {
  MutexLock l(&flush_mu_);
  if (flush_observer_) flush_observer_(ns);
}

}  // namespace seglog
