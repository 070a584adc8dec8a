// LogDirectory: one log directory's lifecycle as Kafka's LogManager runs it for a data dir
// (docs/design/recovery.md, "The log directory"; its files: docs/format/checkpoints.md).
// LogManager owns one per log directory; the crash harness drives one directly:
//   Open:    take the .lock; read or create meta.properties; if .kafka_cleanshutdown exists,
//            delete it and remember the shutdown was clean (a crash while loading then counts
//            as unclean); read the recovery-point and log-start-offset checkpoints (unreadable:
//            warn and start from 0, as Kafka).
//   LoadAll: open every partition directory with a pool of num.recovery.threads.per.data.dir
//            threads, reporting progress in Kafka's words - after an unclean shutdown, each
//            partition recovers from its checkpointed recovery point.
//   GetLog:  open (once) one partition with those inputs.
//   CheckpointRecoveryPoints: flush each open log and write recovery-point-offset-checkpoint
//            (Kafka's kafka-recovery-point-checkpoint task).
//   Close:   close every log, write the checkpoints (recovery points, log start offsets, and
//            for a Kafka broker that takes over, replication-offset-checkpoint: each log's
//            high watermark), then the clean-shutdown marker last -
//            only when every partition was loaded (or the last shutdown was clean), so that
//            partitions nobody opened are still recovered next time; and never when the
//            directory went offline.
// All its I/O goes through LogDirectoryOptions::log_options.env.
// An fsync failure in any of its logs takes the whole directory offline: its logs refuse
// writes and reads, Close reports it, and other directories are unaffected.
//
// Logs are handed out as shared_ptr: a caller that still holds one after RemoveLog or Close
// gets the closed log's clean errors, never a dangling pointer.
//
// Thread safety: thread-safe. `mu_` guards the map of logs and the checkpoint maps and is held
// only to read or change them, never over file I/O; `checkpoint_mu_` serialises the writers of
// the checkpoint files (taken before `mu_`). Open, LoadAll and Close belong to one owner.
#ifndef SEGLOG_MANAGER_LOG_DIRECTORY_H_
#define SEGLOG_MANAGER_LOG_DIRECTORY_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/progress.h"
#include "log/checkpoint_file.h"
#include "manager/log_dir_lock.h"
#include "manager/meta_properties.h"
#include "manager/topic_store.h"
#include "seglog/log.h"
#include "seglog/logger.h"

namespace seglog {

inline constexpr const char* kCleanShutdownFile = ".kafka_cleanshutdown";

// Whether `name` is a partition directory that LoadAll loads: <topic>-<partition>, but not
// KRaft's __cluster_metadata nor a -delete, -stray or -future directory
// (docs/design/recovery.md, "Loading many partitions").
bool IsLoadablePartitionDir(const std::string& name);

struct LogDirectoryOptions {
  // clock, scheduler, quarantine ... for every log. Its `env` (default Env::Default()) is where
  // all of the directory's I/O goes too: the lock, meta.properties, checkpoints, topic store.
  LogOptions log_options;
  int32_t node_id = 1;     // node.id for a new meta.properties
  std::string cluster_id;  // cluster.id for a new meta.properties (default: a new id)
  // A read-only view, for tools that read a directory (consume, get-offsets): as Kafka's tools
  // read a live log directory, it takes no .lock, so a storage node may hold the directory
  // meanwhile (each read then sees the files as they are at that moment). It writes nothing:
  // meta.properties is read if present, never created; the clean-shutdown marker stays; no
  // checkpoint is written and nothing is recovered (the logs open read-only) - but the
  // checkpointed log start offsets and recovery points are applied as in a writable open.
  // Writing operations fail with FailedPrecondition.
  bool read_only = false;
};

class LogDirectory {
 public:
  static Result<std::unique_ptr<LogDirectory>> Open(const std::string& log_dir,
                                                    LogDirectoryOptions options = {});
  ~LogDirectory();

  const std::string& dir() const { return dir_; }
  bool had_clean_shutdown() const { return had_clean_shutdown_; }
  bool read_only() const { return options_.read_only; }
  const MetaProperties& meta() const { return meta_; }
  // Problems met reading the checkpoints (they were then treated as empty, as in Kafka).
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool offline() const { return offline_->load(std::memory_order_acquire); }
  Status offline_reason() const EXCLUDES(offline_mu_);

  // Opens (once) the partition's log, creating its directory if needed (and making the new
  // directory's name durable); read-only, NotFound when the partition directory is missing.
  Result<std::shared_ptr<Log>> GetLog(const TopicPartition& tp, const LogConfig& config,
                                      const std::string& topic_id = "") EXCLUDES(mu_, open_mu_);

  // Loads every partition directory (skipping KRaft's __cluster_metadata and -delete, -stray
  // and -future directories) with `threads` threads; configs and topic ids come from the topic
  // store. `logger` receives one line per event, from the loading threads (serialised).
  // `config_for` gives a topic's config (default: the topic store's overrides on Kafka's
  // defaults).
  using ConfigFor =
      std::function<Result<LogConfig>(const std::string& topic, const TopicMetadata&)>;
  // `progress` is told the .log bytes and segments of the partitions to load first, then each
  // partition's as it is loaded (from the loading threads).
  Status LoadAll(int threads, const Logger& logger = {}, const ConfigFor& config_for = {},
                 const ProgressCallback& progress = {}) EXCLUDES(mu_);

  // Flushes every open log to its end and writes recovery-point-offset-checkpoint.
  Status CheckpointRecoveryPoints() EXCLUDES(mu_, checkpoint_mu_);
  // Kafka's kafka-recovery-point-checkpoint and kafka-log-start-offset-checkpoint tasks: write
  // the checkpoint from the logs' current values, without flushing.
  Status WriteRecoveryPointCheckpoint() EXCLUDES(mu_, checkpoint_mu_);
  Status WriteLogStartOffsetCheckpoint() EXCLUDES(mu_, checkpoint_mu_);

  // Takes the partition out of this directory (Kafka's asyncDelete): closes its log (whose
  // holders then get NotFound), drops its checkpoint entries, and renames its directory to
  // <topic>-<partition>.<uuid>-delete, which it returns; the caller removes that directory
  // after file.delete.delay.ms.
  Result<std::string> RemoveLog(const TopicPartition& tp) EXCLUDES(mu_, checkpoint_mu_);
  // Partition directories being deleted (-delete) found in this directory.
  Result<std::vector<std::string>> PendingDeleteDirs() const;
  size_t num_logs() const EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return logs_.size();
  }
  // cleaner-offset-checkpoint: each compacted partition's first dirty offset. Read at open
  // (unreadable: warn, treat as empty); Set writes the file at once.
  std::optional<int64_t> CleanerCheckpoint(const TopicPartition& tp) const EXCLUDES(mu_);
  Status SetCleanerCheckpoint(const TopicPartition& tp, int64_t first_dirty)
      EXCLUDES(mu_, checkpoint_mu_);
  // The open log, or nullptr.
  std::shared_ptr<Log> FindLog(const TopicPartition& tp) const EXCLUDES(mu_);
  // Closes the logs, writes the checkpoints and then the clean-shutdown marker, and releases
  // the directory's lock (whatever the outcome), so the directory can be opened again.
  Status Close() EXCLUDES(mu_, checkpoint_mu_);
  // The broker epoch the clean-shutdown marker carries (Kafka's CleanShutdownFileHandler): the
  // node's registration in the metadata log. -1 until set.
  void set_broker_epoch(int64_t epoch) { broker_epoch_.store(epoch, std::memory_order_release); }

  using LogMap = std::map<TopicPartition, std::shared_ptr<Log>, TopicPartitionLess>;
  // A snapshot of the open logs.
  LogMap logs() const EXCLUDES(mu_);

  // ---- Future logs: a partition moving into this directory (AlterReplicaLogDirs) ----
  // A future log is <topic>-<p>.<uuid>-future beside the partition directories, outside
  // logs(): no task (retention, flush, cleaner, checkpoints) touches it. Close() closes it, and
  // the next open undoes the move (LogManager::SettleFutureLogs).
  //
  // Opens an empty future log of `tp` whose log start offset is `log_start_offset`.
  // AlreadyExists when there is one.
  Result<std::shared_ptr<Log>> OpenFutureLog(const TopicPartition& tp, const LogConfig& config,
                                             const std::string& topic_id, int64_t log_start_offset)
      EXCLUDES(mu_, open_mu_);
  std::shared_ptr<Log> FindFutureLog(const TopicPartition& tp) const EXCLUDES(mu_);
  // Closes the future log and renames it -delete, which it returns (the caller deletes it).
  Result<std::string> RemoveFutureLog(const TopicPartition& tp) EXCLUDES(mu_);
  // Closes the future log (flushing it), renames it <topic>-<p> (durably) and opens it as the
  // partition's log of this directory, with the log start offset and recovery point it had.
  Result<std::shared_ptr<Log>> PromoteFutureLog(const TopicPartition& tp, const LogConfig& config,
                                                const std::string& topic_id)
      EXCLUDES(mu_, open_mu_);

 private:
  LogDirectory(std::string dir, std::unique_ptr<LogDirLock> lock, LogDirectoryOptions options)
      : dir_(std::move(dir)), lock_(std::move(lock)), options_(std::move(options)) {}
  LogOptions OptionsFor(const TopicPartition& tp, const std::string& topic_id);
  Env* env() const { return options_.log_options.env; }
  void MarkOffline(const Status& failure) EXCLUDES(offline_mu_);
  // Close without the lock's release.
  Status CloseLogsAndWriteMarker() EXCLUDES(mu_, checkpoint_mu_);
  Status WriteCheckpoints() REQUIRES(checkpoint_mu_) EXCLUDES(mu_);
  // Takes each log's recovery point and log start offset into the checkpoint maps.
  void RefreshCheckpointMaps() REQUIRES(checkpoint_mu_) EXCLUDES(mu_);
  Status WriteCheckpoint(const char* file, OffsetMap LogDirectory::*map) REQUIRES(checkpoint_mu_)
      EXCLUDES(mu_);
  // FailedPrecondition naming `what` when the directory was opened read-only.
  Status CheckWritable(const char* what) const;

  std::string dir_;
  std::unique_ptr<LogDirLock> lock_;
  LogDirectoryOptions options_;
  MetaProperties meta_;
  bool had_clean_shutdown_ = false;
  bool loaded_all_ = false;
  bool closed_ = false;
  std::vector<std::string> warnings_;
  mutable Mutex checkpoint_mu_ ACQUIRED_BEFORE(mu_);
  // Serialises GetLog's opens, so one partition is opened once (held over Log::Open, which
  // only other openers wait for).
  Mutex open_mu_ ACQUIRED_BEFORE(mu_);
  mutable Mutex mu_;
  OffsetMap recovery_points_ GUARDED_BY(mu_);
  OffsetMap log_start_offsets_ GUARDED_BY(mu_);
  OffsetMap high_watermarks_ GUARDED_BY(mu_);  // written for Kafka (replication-offset-checkpoint)
  OffsetMap cleaner_offsets_ GUARDED_BY(mu_);
  LogMap logs_ GUARDED_BY(mu_);
  struct FutureLog {
    std::string path;
    std::shared_ptr<Log> log;
  };
  std::map<TopicPartition, FutureLog, TopicPartitionLess> futures_ GUARDED_BY(mu_);
  // Removes the future log of `tp` from futures_ and returns it; NotFound when there is none.
  Result<FutureLog> TakeFutureLog(const TopicPartition& tp) EXCLUDES(mu_);
  std::shared_ptr<std::atomic<bool>> offline_ = std::make_shared<std::atomic<bool>>(false);
  mutable Mutex offline_mu_;
  Status offline_reason_ GUARDED_BY(offline_mu_);
  std::atomic<int64_t> broker_epoch_{-1};
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_DIRECTORY_H_
