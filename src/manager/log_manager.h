// LogManager: a storage node - Kafka's LogManager. It owns every partition of one or more log
// directories (each a LogDirectory: lock, meta.properties, checkpoints, clean-shutdown marker),
// the topics (partition count, topic id and config overrides, kept in KRaft's metadata log in
// the first directory: manager/metadata_store.h), and Kafka's background tasks on a Scheduler:
//
//   kafka-log-retention              every log.retention.check.interval.ms: retention
//                                    (Log::DeleteOldSegments) of every log - of the
//                                    non-compacted ones once a cleaner runs, as in Kafka
//   kafka-log-flusher                every log.flush.scheduler.interval.ms: flush.ms
//   kafka-recovery-point-checkpoint  every log.flush.offset.checkpoint.interval.ms
//   kafka-log-start-offset-checkpoint every log.flush.start.offset.checkpoint.interval.ms
//   kafka-delete-logs                removes deleted partitions' -delete directories after
//                                    file.delete.delay.ms
//   PeriodicProducerExpirationCheck  every producer.id.expiration.check.interval.ms (first run
//                                    after one interval, as Kafka's ReplicaManager schedules
//                                    it): Log::RemoveExpiredProducers of every log
// plus the per-log flush-log (after a roll) and delete-file (after retention) tasks. All start
// after log.initial.task.delay.ms. Shutdown stops the tasks, then closes every directory
// cleanly (flush, trimmed indexes, checkpoints, marker last).
//
// New partitions go to the log directory holding the fewest partitions (Kafka's nextLogDirs).
// Topic names are checked as Kafka does, so no name reaches outside a log directory.
//
// Thread safety: thread-safe. Topic operations (create, add partitions, delete, alter) are
// serialised by admin_mu_, which is held over their file I/O and which only other topic
// operations wait for. mu_ guards the manager's maps and is never held over file I/O: GetLog
// does not take it (each LogDirectory finds its own logs), and the tasks take a snapshot of the
// logs under it and then work without it; the cleaner chooses its log under it and cleans
// outside it. defaults_mu_ guards only the pointer to the topic defaults in force. Lock order:
// admin_mu_, mu_, defaults_mu_, then a LogDirectory's locks, then a Log's
// (docs/design/threading.md).
// GetLog hands out shared ownership: a log whose topic is deleted meanwhile answers NotFound.
// NextProducerId takes only the ProducerIdManager's own mutex (never with mu_ held).
//
// Producer ids (InitProducerId): NextProducerId hands out ids from blocks of 1000 reserved in
// the metadata log (manager/producer_id_manager.h), never reused across restarts.
#ifndef SEGLOG_MANAGER_LOG_MANAGER_H_
#define SEGLOG_MANAGER_LOG_MANAGER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/progress.h"
#include "base/scheduler.h"
#include "cleaner/cleaner.h"
#include "manager/log_directory.h"
#include "manager/log_manager_config.h"
#include "manager/metadata_store.h"
#include "manager/producer_id_manager.h"
#include "manager/topic_store.h"
#include "seglog/logger.h"
#include "seglog/topic_description.h"

namespace seglog {

class LogManager {
 public:
  // Opens (creating if needed) every log directory, loads all partitions with
  // num.recovery.threads.per.data.dir threads per directory (recovering after an unclean
  // shutdown), and queues leftover -delete directories. `scheduler` runs the tasks (a
  // MockScheduler in tests) and supplies the clock; it must outlive the manager. All file and
  // directory operations go through `env` (nullptr: Env::Default()), which must outlive it too.
  // `load_progress` hears, per log directory, the logs and segments to load and then each log
  // as it is loaded (recovered), from the loading threads (Kafka's remainingLogsToRecover and
  // remainingSegmentsToRecover gauges are made from it).
  using LoadProgress = std::function<void(const std::string& dir, const ProgressStep& step)>;
  static Result<std::unique_ptr<LogManager>> Open(const LogManagerConfig& config,
                                                  Scheduler* scheduler, Logger logger = {},
                                                  Env* env = nullptr,
                                                  const LoadProgress& load_progress = {});
  // The same node, read-only, for the tools that read log directories (consume, get-offsets):
  // every directory opens with LogDirectoryOptions::read_only - no .lock (as Kafka's tools
  // read a live directory, a node may hold it meanwhile), nothing written, the clean-shutdown
  // marker left in place, nothing recovered - and its partitions load read-only with what the
  // directory's files say: the checkpointed log start offsets and recovery points, the topic
  // store's configs. Topic operations, tasks and the cleaner fail with FailedPrecondition;
  // Shutdown closes the logs and writes nothing.
  static Result<std::unique_ptr<LogManager>> OpenReadOnly(const LogManagerConfig& config,
                                                          Scheduler* scheduler, Logger logger = {},
                                                          Env* env = nullptr);
  ~LogManager();
  LogManager(const LogManager&) = delete;
  LogManager& operator=(const LogManager&) = delete;

  // server.properties' settings; topic defaults changed since by dynamic broker configs are in
  // TopicDefaults().
  const LogManagerConfig& config() const { return config_; }

  // ---- Topic configs over the defaults in force (server.properties, then the dynamic broker
  // configs: the cluster-wide defaults, then this node's) ----
  // A topic's effective config (LogManagerConfig::TopicConfig over the defaults in force).
  Result<LogConfig> TopicConfig(const std::map<std::string, std::string>& overrides) const
      EXCLUDES(defaults_mu_);
  // The same for overrides the metadata log holds (LogManagerConfig::StoredTopicConfig).
  Result<LogConfig> StoredTopicConfig(const std::map<std::string, std::string>& overrides) const
      EXCLUDES(defaults_mu_);
  // The topic configs' broker defaults in force.
  std::map<std::string, std::string> TopicDefaults() const EXCLUDES(defaults_mu_);
  // The dynamic configs of a BROKER resource: "" the cluster-wide defaults, else this node's
  // id. Empty without a metadata log.
  std::map<std::string, std::string> DynamicBrokerConfigs(const std::string& resource) const;
  // The metadata log's kraft.version (1: a dynamic quorum); 0 without a metadata log.
  int16_t KRaftVersion() const;

  // ---- ACLs, kept in the metadata log (MetadataStore::CreateAcls, DeleteAcls) ----
  std::map<Uuid, AclBinding> Acls() const;
  // SCRAM credentials (MetadataStore's); null without a metadata log.
  MetadataStore* metadata() const { return metadata_.get(); }
  std::vector<Status> CreateAcls(const std::vector<AclBinding>& acls);
  Result<std::vector<std::vector<std::pair<Uuid, AclBinding>>>> DeleteAcls(
      const std::vector<AclBindingFilter>& filters);
  // Sets a BROKER resource's dynamic configs to `next` (Kafka's AlterConfigs semantics: the
  // whole set). Keys that change must be LogManagerConfig::DynamicTopicDefaultKeys with valid
  // values (else InvalidArgument in Kafka's words, nothing written); keys kept unchanged may be
  // others (a Kafka broker set them). Recorded in the metadata log, then applied to every log.
  Status AlterBrokerConfigs(const std::string& resource,
                            const std::map<std::string, std::string>& next, bool validate_only)
      EXCLUDES(admin_mu_, mu_, defaults_mu_);
  bool read_only() const { return read_only_; }

  // Topics. Errors in Kafka's words ("Topic 'x' already exists.", "Topic name is illegal").
  // The metadata log records the topic first (durable: the topic exists), then the partitions'
  // directories are created; if one cannot be, those made are removed and the topic is deleted
  // again. A crash in between leaves the topic, whose missing partitions the next open creates.
  Status CreateTopic(const std::string& topic, int32_t partitions,
                     const std::map<std::string, std::string>& configs = {})
      EXCLUDES(admin_mu_, mu_);
  struct NewTopic {
    std::string name;
    int32_t partitions = 1;
    std::map<std::string, std::string> configs;
  };
  // CreateTopic for many topics (a CreateTopics request, a Metadata request's auto-creations):
  // the metadata records of all of them in one append and one fsync, as Kafka's controller
  // commits a request; a status per topic, in order.
  std::vector<Status> CreateTopics(const std::vector<NewTopic>& topics) EXCLUDES(admin_mu_, mu_);
  Status AddPartitions(const std::string& topic, int32_t total_partitions) EXCLUDES(admin_mu_, mu_);
  // Removes the topic from the store, then each partition (closed, renamed -delete, removed
  // after file.delete.delay.ms); reports the first partition that could not be removed.
  Status DeleteTopic(const std::string& topic) EXCLUDES(admin_mu_, mu_);
  std::vector<std::string> ListTopics() const EXCLUDES(mu_);
  // How many topics this LogManager created since it opened: it moves exactly when a topic
  // is created (the group coordinator resolves regular expressions again then, as Kafka does
  // when its metadata image has new topics).
  int64_t topics_created() const { return topics_created_.load(std::memory_order_acquire); }
  // A copy of the topic's metadata (partition count, configs, topic id) without touching its
  // logs: the broker's Metadata path. NotFound in Kafka's words.
  Result<TopicMetadata> FindTopic(const std::string& topic) const EXCLUDES(mu_);
  // The topic's id and partition count only (no configs copied): the group coordinator's
  // lookup, made at every consumer group heartbeat. nullopt when the topic does not exist.
  struct TopicIdentity {
    std::string topic_id;
    int32_t partitions = 0;
  };
  std::optional<TopicIdentity> FindTopicIdentity(const std::string& topic) const EXCLUDES(mu_);
  // Every topic's metadata at one moment.
  TopicMap AllTopicMetadata() const EXCLUDES(mu_);
  // The name of the topic whose id (as TopicMetadata::topic_id spells it) is `topic_id`, or
  // nullopt: the broker's lookup for requests that name topics by id. Copies nothing else.
  std::optional<std::string> TopicNameForId(std::string_view topic_id) const EXCLUDES(mu_);
  // Whether an append to some log may fsync in the appending thread: flush.messages below its
  // default (Long.MAX_VALUE) as the broker's log.flush.interval.messages or a topic override.
  // Kept current as topics and their configs change; lock-free.
  bool AppendsMayFlush() const { return appends_may_flush_.load(std::memory_order_relaxed); }
  // The cluster.id of meta.properties (the first log directory's).
  std::string cluster_id() const;
  Result<TopicDescription> DescribeTopic(const std::string& topic) const EXCLUDES(mu_);
  // Sets and removes topic overrides; they persist, and apply to the logs at once (from their
  // next append, roll or retention pass). Nothing changes if any is invalid.
  Status AlterTopicConfig(const std::string& topic, const std::map<std::string, std::string>& set,
                          const std::vector<std::string>& remove) EXCLUDES(admin_mu_, mu_);

  // The partition's log, shared: it stays a valid object after a delete or shutdown, and then
  // refuses work with NotFound or FailedPrecondition.
  Result<std::shared_ptr<Log>> GetLog(const TopicPartition& tp) const EXCLUDES(mu_);

  // ---- Moving a partition to another log directory (Kafka's AlterReplicaLogDirs) ----
  //
  // Starts moving `tp` to the log directory whose absolute path is `path` (exactly: Kafka
  // compares the strings), and answers with Kafka's code: NONE when the move started, is
  // already going there, or `path` is the partition's directory (which cancels a move going
  // elsewhere); LOG_DIR_NOT_FOUND for a path that is not a log directory; KAFKA_STORAGE_ERROR
  // for an offline one; UNKNOWN_TOPIC_OR_PARTITION for a partition that does not exist. The copy
  // runs in the alter-log-dirs task (MoveReplicas); see docs/design/alter_replica_log_dirs.md.
  int16_t AlterReplicaLogDir(const TopicPartition& tp, const std::string& path)
      EXCLUDES(admin_mu_, mu_);
  // One pass of the alter-log-dirs task: copies each moving partition's new batches into its
  // future log (at most `budget_bytes` in all), and swaps a future log that caught up in for
  // the partition's log: appends held, the rest copied, the future log flushed, the old log
  // renamed -delete, the future log renamed and opened in its place.
  Status MoveReplicas(int64_t budget_bytes = 32 << 20) EXCLUDES(admin_mu_, mu_);
  // The partitions moving now: each future log, its directory and how far it is behind.
  struct FutureLogInfo {
    TopicPartition tp;
    std::string dir;
    std::shared_ptr<Log> log;
    int64_t offset_lag = 0;  // the partition's log end offset - the future log's
  };
  std::vector<FutureLogInfo> FutureLogs() const EXCLUDES(mu_);
  // A log directory's path as Kafka reports it (absolute), for DescribeLogDirs.
  static std::string AbsoluteDir(const std::string& dir);

  // A new producer id for InitProducerId: above every id this node handed out before, across
  // restarts. FailedPrecondition on a read-only manager; IOError when the block file cannot be
  // written (then nothing is handed out).
  Result<int64_t> NextProducerId() EXCLUDES(mu_);
  // Forgets the expired producers of every log (the PeriodicProducerExpirationCheck task).
  Status RemoveExpiredProducers() EXCLUDES(mu_);

  // Schedules Kafka's periodic tasks (see above).
  void StartTasks();
  // Runs one task now: "retention", "flush", "checkpoint" (both checkpoints), "delete-files"
  // (removes .deleted files and -delete directories whose deletion is pending, at once),
  // "cleaner" (one round of cleaner 0), "producer-expiration", "alter-log-dirs" (one
  // MoveReplicas pass; the broker's, not named in the error).
  Status RunTask(const std::string& name) EXCLUDES(mu_);
  Status CleanupLogs() EXCLUDES(mu_);
  Status FlushDirtyLogs() EXCLUDES(mu_);
  Status CheckpointRecoveryPoints() EXCLUDES(mu_);
  Status CheckpointLogStartOffsets() EXCLUDES(mu_);
  Status DeleteLogs(bool now) EXCLUDES(mu_);

  // The log cleaner (docs/design/cleaner.md, "Pieces" and "Kafka's rules"): one round of
  // cleaner thread `id` - the filthiest compacted log whose cleanable ratio passes
  // min.cleanable.dirty.ratio (or that is overdue by max.compaction.lag.ms) is cleaned and its
  // cleaner-offset-checkpoint entry moved to the end of the round; then retention for the
  // compacted logs (start offset only for compact, time and size too for compact,delete). A log
  // whose cleaning fails is marked uncleanable, with the reason logged. Returns whether a log
  // was cleaned.
  Result<bool> RunCleanerRound(int id) EXCLUDES(mu_);
  // Cleans the given partitions now (all of the topic's with -1) if they have anything to
  // clean, whatever their dirty ratio (`seglog clean`). Returns how many were cleaned.
  Result<int> CleanNow(const std::string& topic, int32_t partition,
                       const ProgressCallback& progress = {}) EXCLUDES(mu_);

  // Stops the tasks and closes every directory cleanly.
  Status Shutdown() EXCLUDES(mu_);

  // The log cleaner's state, as Kafka's LogCleaner and LogCleanerManager gauges report it.
  struct CleanerMetrics {
    double max_buffer_utilization_percent = 0;  // of the last rounds, the fullest offset map
    double cleaner_recopy_percent = 0;          // bytes written / read by the last rounds
    double max_clean_time_secs = 0;             // the longest of the last rounds
    double max_dirty_percent = 0;               // the dirtiest log when a round last chose
    int64_t last_run_ms = -1;                   // when a round last ended (-1: never)
    // Uncleanable partitions per log directory (path), and their logs' bytes.
    std::map<std::string, std::pair<int64_t, int64_t>> uncleanable_by_dir;
  };
  CleanerMetrics cleaner_metrics() const EXCLUDES(mu_);
  // Receives the duration (ns) of every log flush that synced something (LogFlushStats).
  // Thread-safe; the observer is called on flushing threads and must return promptly.
  void SetFlushObserver(std::function<void(int64_t flush_ns)> observer) EXCLUDES(flush_mu_);

 private:
  LogManager(LogManagerConfig config, Scheduler* scheduler, Logger logger, Env* env)
      : config_(std::move(config)),
        scheduler_(scheduler),
        logger_(logger.Named("org.apache.kafka.storage.internals.log.LogManager")),
        cleaner_logger_(logger.Named("kafka.log.LogCleaner")),
        env_(env),
        effective_(std::make_shared<const LogManagerConfig>(config_)) {}
  static Result<std::unique_ptr<LogManager>> OpenDirs(const LogManagerConfig& config,
                                                      Scheduler* scheduler, Logger logger,
                                                      bool read_only, Env* env,
                                                      const LoadProgress& load_progress = {});
  // At open, before the logs load: each <topic>-<p>.<uuid>-future directory (a move between
  // log directories, Kafka's AlterReplicaLogDirs, that a stop cut short) is settled. Beside its
  // partition's log (in any directory) it is renamed -delete, so the move is undone; without one
  // it is renamed <topic>-<p> and loads as the partition's log.
  Status SettleFutureLogs() REQUIRES(mu_);
  // FailedPrecondition naming `what` in a read-only manager.
  Status CheckWritable(const char* what) const;
  LogDirectory* DirFor(const TopicPartition& tp) const;
  LogDirectory* LeastLoadedDir() const;
  // Takes `topic`'s entry of topics_ from the metadata store (erased when it is gone) and
  // updates appends_may_flush_.
  void RefreshTopic(const std::string& topic) REQUIRES(admin_mu_) EXCLUDES(mu_);
  void NoteFlushSettings(const TopicMap& topics);
  // Recomputes the topic defaults in force from the metadata log's dynamic broker configs.
  void LoadDynamicConfigs() EXCLUDES(defaults_mu_);
  // The settings in force (config_ with the dynamic broker configs), shared.
  std::shared_ptr<const LogManagerConfig> Effective() const EXCLUDES(defaults_mu_);
  // Opens partitions [from, from + dirs.size()) of `topic`, partition from + i in dirs[i]; on
  // failure removes those it made.
  Status CreatePartitions(const std::string& topic, const TopicMetadata& md, int32_t from,
                          const std::vector<LogDirectory*>& dirs) REQUIRES(admin_mu_) EXCLUDES(mu_);
  // ---- The metadata log (log_manager_metadata.cc) ----
  // At open, after the directories: opens (formatting if needed) the metadata store in the
  // first log directory, starts this run's epoch, migrates what an earlier seglog kept outside
  // it (seglog-topics.json, seglog-producer-ids, partition directories it does not name) when
  // it was formatted now, and renames aside as Kafka does (<dir>.<uuid>-stray) every partition
  // directory the metadata does not name. `found`: the topics the directories hold.
  Status OpenMetadata(const TopicMap& found) REQUIRES(mu_);
  // After the logs loaded: creates the partitions the metadata names that have no directory
  // yet, and becomes the leader of every partition.
  Status SettleMetadataPartitions() EXCLUDES(admin_mu_, mu_);
  // Where `n` new partitions go: the least loaded online directory for each, in turn (Kafka's
  // nextLogDirs). Empty when no directory is online.
  std::vector<LogDirectory*> AssignDirs(int n) const EXCLUDES(mu_);
  // The directory.id of `dir` (meta.properties); zero (Kafka's MIGRATING) when it has none.
  static Uuid DirectoryIdOf(const LogDirectory* dir);
  // Takes the partition's log out of its directory; the -delete directory is queued.
  Status RemovePartition(const TopicPartition& tp, int64_t delay_ms) EXCLUDES(mu_);
  struct LogRef {
    LogDirectory* dir;
    TopicPartition tp;
    std::shared_ptr<Log> log;
  };
  // Ends the move of `tp` if there is one - only if it goes to `only_to`, when given - (its
  // future log removed, -delete queued).
  void CancelMove(const TopicPartition& tp, const LogDirectory* only_to = nullptr) EXCLUDES(mu_);
  // The swap of a caught-up move (MoveReplicas).
  Status CompleteMove(const TopicPartition& tp, LogDirectory* dest) REQUIRES(admin_mu_)
      EXCLUDES(mu_);
  // A snapshot of every open log.
  std::vector<LogRef> AllLogs() const EXCLUDES(mu_);
  Status ForEachOnlineDir(Status (LogDirectory::*write)()) EXCLUDES(mu_);

  const LogManagerConfig config_;
  Scheduler* const scheduler_;
  const Logger logger_;          // org.apache.kafka.storage.internals.log.LogManager
  const Logger cleaner_logger_;  // kafka.log.LogCleaner
  bool read_only_ = false;       // set by OpenReadOnly before the manager is shared
  Env* const env_;
  Mutex admin_mu_ ACQUIRED_BEFORE(mu_);
  mutable Mutex mu_;
  // Filled by Open, then never changed (the directories are thread-safe).
  std::vector<std::unique_ptr<LogDirectory>> dirs_;
  // Set by Open for a writable manager (and for a read-only view of a directory with a
  // metadata log), then never changed (thread-safe themselves).
  std::unique_ptr<MetadataStore> metadata_;
  std::unique_ptr<ProducerIdManager> producer_ids_;
  TopicMap topics_ GUARDED_BY(mu_);
  // topics_ by topic id (TopicNameForId: O(1), as Fetch and Produce by id look up every topic).
  std::unordered_map<std::string, std::string> topic_names_by_id_ GUARDED_BY(mu_);
  void IndexTopicIdsLocked() REQUIRES(mu_);
  std::atomic<bool> appends_may_flush_{false};  // see AppendsMayFlush()
  // config_ with the dynamic broker configs applied (LoadDynamicConfigs); swapped whole.
  mutable Mutex defaults_mu_ ACQUIRED_AFTER(mu_);
  std::shared_ptr<const LogManagerConfig> effective_ GUARDED_BY(defaults_mu_);
  std::atomic<int64_t> topics_created_{0};  // see topics_created()
  struct PendingDelete {
    std::string path;
    int64_t due_ms;
  };
  std::vector<PendingDelete> pending_deletes_ GUARDED_BY(mu_);
  // Partitions moving to another directory: the destination (which holds the future log).
  std::map<TopicPartition, LogDirectory*, TopicPartitionLess> moves_ GUARDED_BY(mu_);
  bool shut_down_ GUARDED_BY(mu_) = false;
  // Whether log cleaner threads run (StartTasks with log.cleaner.enable): then they, not the
  // retention task, handle the compacted logs' retention, as in Kafka.
  bool cleaner_running_ GUARDED_BY(mu_) = false;
  // Cleans one log, which the caller has marked in progress, when it is eligible (always when
  // `force` and anything is cleanable), as of `now`. `computed`: its cleanable range as of
  // `now`, when the caller has just measured it; else measured here. Runs without mu_.
  // Kafka's LogCleanerManager line at DEBUG for each compacted log measured.
  void DebugCleanableRange(const std::string& name, std::optional<int64_t> checkpoint, int64_t now,
                           const LogToClean& range) const;
  Result<bool> CleanOne(int id, const LogRef& ref, bool force, int64_t now,
                        std::optional<LogToClean> computed = std::nullopt,
                        const ProgressCallback& progress = {}) EXCLUDES(mu_);
  // Marks the partition as being cleaned (Kafka's LogCleaningInProgress); false if it is.
  bool BeginCleaning(const TopicPartition& tp) EXCLUDES(mu_);
  void EndCleaning(const TopicPartition& tp, const Status& result, int id, const Log& log)
      EXCLUDES(mu_);
  void ScheduleCleaner(int id, int64_t delay_ms);
  // One offset map per cleaner thread id; its mutex is held while a round uses it.
  struct CleanerSlot {
    Mutex mu;
    std::unique_ptr<SkimpyOffsetMap> map GUARDED_BY(mu);
  };
  CleanerSlot* SlotFor(int id) EXCLUDES(mu_);
  std::map<int, std::unique_ptr<CleanerSlot>> cleaner_slots_ GUARDED_BY(mu_);
  std::set<std::string> uncleanable_ GUARDED_BY(mu_);  // partition dir names
  std::set<std::string> cleaning_ GUARDED_BY(mu_);     // partition dir names
  // Each cleaner thread's last round (by id), for cleaner_metrics().
  struct CleanerRound {
    double buffer_utilization = 0;
    int64_t bytes_read = 0;
    int64_t bytes_written = 0;
    double seconds = 0;
  };
  std::map<int, CleanerRound> last_rounds_ GUARDED_BY(mu_);
  double last_max_dirty_ratio_ GUARDED_BY(mu_) = 0;
  int64_t last_cleaner_run_ms_ GUARDED_BY(mu_) = -1;
  void OnFlush(int64_t ns) EXCLUDES(flush_mu_);
  mutable Mutex flush_mu_;
  std::function<void(int64_t)> flush_observer_ GUARDED_BY(flush_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_MANAGER_H_
