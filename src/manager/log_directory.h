// LogDirectory: one log directory's lifecycle as Kafka's LogManager runs it for a data dir
// (kafka-format.md 6.4-6.5, 10.5). LogManager owns one per log directory; the crash harness
// drives one directly:
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
//   Close:   close every log, write both checkpoints, then the clean-shutdown marker last -
//            only when every partition was loaded (or the last shutdown was clean), so that
//            partitions nobody opened are still recovered next time; and never when the
//            directory went offline.
// An fsync failure in any of its logs takes the whole directory offline: its logs refuse
// writes and reads, Close reports it, and other directories are unaffected.
//
// Thread safety: GetLog, LoadAll, CheckpointRecoveryPoints and Close are not thread-safe (one
// owner); the logs themselves are thread-safe, and offline() may be read from any thread.
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
#include "log/checkpoint_file.h"
#include "manager/log_dir_lock.h"
#include "manager/meta_properties.h"
#include "manager/topic_store.h"
#include "seglog/log.h"

namespace seglog {

inline constexpr const char* kCleanShutdownFile = ".kafka_cleanshutdown";

// Whether `name` is a partition directory that LoadAll loads: <topic>-<partition>, but not
// KRaft's __cluster_metadata nor a -delete, -stray or -future directory (kafka-format.md 10.5).
bool IsLoadablePartitionDir(const std::string& name);

struct LogDirectoryOptions {
  LogOptions log_options;  // clock, scheduler, quarantine ... for every log
  int32_t node_id = 1;     // node.id for a new meta.properties
  std::string cluster_id;  // cluster.id for a new meta.properties (default: a new id)
};

class LogDirectory {
 public:
  static Result<std::unique_ptr<LogDirectory>> Open(const std::string& log_dir,
                                                    LogDirectoryOptions options = {});
  ~LogDirectory();

  const std::string& dir() const { return dir_; }
  bool had_clean_shutdown() const { return had_clean_shutdown_; }
  const MetaProperties& meta() const { return meta_; }
  // Problems met reading the checkpoints (they were then treated as empty, as in Kafka).
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool offline() const { return offline_->load(std::memory_order_acquire); }
  Status offline_reason() const EXCLUDES(offline_mu_);

  // Opens (once) the partition's log, creating its directory if needed.
  Result<Log*> GetLog(const TopicPartition& tp, const LogConfig& config,
                      const std::string& topic_id = "");

  // Loads every partition directory (skipping KRaft's __cluster_metadata and -delete, -stray
  // and -future directories) with `threads` threads; configs and topic ids come from the topic
  // store. `progress` receives one line per event, from the loading threads (serialised).
  // `config_for` gives a topic's config (default: the topic store's overrides on Kafka's
  // defaults).
  using ConfigFor =
      std::function<Result<LogConfig>(const std::string& topic, const TopicMetadata&)>;
  Status LoadAll(int threads, const std::function<void(const std::string&)>& progress = {},
                 const ConfigFor& config_for = {});

  // Flushes every open log to its end and writes recovery-point-offset-checkpoint.
  Status CheckpointRecoveryPoints();
  // Kafka's kafka-recovery-point-checkpoint and kafka-log-start-offset-checkpoint tasks: write
  // the checkpoint from the logs' current values, without flushing.
  Status WriteRecoveryPointCheckpoint();
  Status WriteLogStartOffsetCheckpoint();

  // Takes the partition out of this directory (Kafka's asyncDelete): closes its log, drops its
  // checkpoint entries, and renames its directory to <topic>-<partition>.<uuid>-delete, which
  // it returns; the caller removes that directory after file.delete.delay.ms.
  Result<std::string> RemoveLog(const TopicPartition& tp);
  // Partition directories being deleted (-delete) found in this directory.
  Result<std::vector<std::string>> PendingDeleteDirs() const;
  size_t num_logs() const { return logs_.size(); }
  // cleaner-offset-checkpoint: each compacted partition's first dirty offset. Read at open
  // (unreadable: warn, treat as empty); Set writes the file at once.
  std::optional<int64_t> CleanerCheckpoint(const TopicPartition& tp) const;
  Status SetCleanerCheckpoint(const TopicPartition& tp, int64_t first_dirty);
  Log* FindLog(const TopicPartition& tp) const {
    auto it = logs_.find(tp);
    return it == logs_.end() ? nullptr : it->second.get();
  }
  // Closes the logs, writes the checkpoints and then the clean-shutdown marker.
  Status Close();

  const std::map<TopicPartition, std::unique_ptr<Log>, TopicPartitionLess>& logs() const {
    return logs_;
  }

 private:
  LogDirectory(std::string dir, std::unique_ptr<LogDirLock> lock, LogDirectoryOptions options)
      : dir_(std::move(dir)), lock_(std::move(lock)), options_(std::move(options)) {}
  LogOptions OptionsFor(const TopicPartition& tp, const std::string& topic_id);
  void MarkOffline(const Status& failure) EXCLUDES(offline_mu_);
  Status WriteCheckpoints();
  void RefreshCheckpointMaps();

  std::string dir_;
  std::unique_ptr<LogDirLock> lock_;
  LogDirectoryOptions options_;
  MetaProperties meta_;
  bool had_clean_shutdown_ = false;
  bool loaded_all_ = false;
  bool closed_ = false;
  OffsetMap recovery_points_;
  OffsetMap log_start_offsets_;
  OffsetMap cleaner_offsets_;
  std::vector<std::string> warnings_;
  std::map<TopicPartition, std::unique_ptr<Log>, TopicPartitionLess> logs_;
  std::shared_ptr<std::atomic<bool>> offline_ = std::make_shared<std::atomic<bool>>(false);
  mutable Mutex offline_mu_;
  Status offline_reason_ GUARDED_BY(offline_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_DIRECTORY_H_
