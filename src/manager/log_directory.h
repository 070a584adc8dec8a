// LogDirectory: one log directory's lifecycle as Kafka's LogManager runs it for a data dir
// (kafka-format.md 6.5, 10.5), for the CLI and the crash harness until the full LogManager
// (issue 5):
//   Open:  take the .lock; if .kafka_cleanshutdown exists, delete it and remember the shutdown
//          was clean (a crash while loading then counts as unclean); read the recovery-point and
//          log-start-offset checkpoints (unreadable: warn and start from 0, as Kafka).
//   Log(): open a partition with those inputs - after an unclean shutdown, recovery runs from
//          the partition's checkpointed recovery point.
//   CheckpointRecoveryPoints(): flush each open log and write recovery-point-offset-checkpoint
//          (Kafka's kafka-recovery-point-checkpoint task).
//   Close: close every log, write both checkpoints, then the clean-shutdown marker last.
// Thread safety: not thread-safe; one owner.
#ifndef SEGLOG_MANAGER_LOG_DIRECTORY_H_
#define SEGLOG_MANAGER_LOG_DIRECTORY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "log/checkpoint_file.h"
#include "manager/log_dir_lock.h"
#include "seglog/log.h"

namespace seglog {

inline constexpr const char* kCleanShutdownFile = ".kafka_cleanshutdown";

class LogDirectory {
 public:
  static Result<std::unique_ptr<LogDirectory>> Open(const std::string& log_dir,
                                                    LogOptions base_options = {});
  ~LogDirectory();

  bool had_clean_shutdown() const { return had_clean_shutdown_; }
  // Problems met reading the checkpoints (they were then treated as empty, as in Kafka).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Opens (once) the partition's log, creating its directory if needed.
  Result<Log*> GetLog(const TopicPartition& tp, const LogConfig& config);

  // Flushes every open log to its end and writes recovery-point-offset-checkpoint.
  Status CheckpointRecoveryPoints();
  // Closes the logs, writes the checkpoints and then the clean-shutdown marker.
  Status Close();

 private:
  LogDirectory(std::string dir, std::unique_ptr<LogDirLock> lock, LogOptions options)
      : dir_(std::move(dir)), lock_(std::move(lock)), options_(std::move(options)) {}
  Status WriteCheckpoints();

  std::string dir_;
  std::unique_ptr<LogDirLock> lock_;
  LogOptions options_;
  bool had_clean_shutdown_ = false;
  bool closed_ = false;
  OffsetMap recovery_points_;
  OffsetMap log_start_offsets_;
  std::vector<std::string> warnings_;
  std::map<TopicPartition, std::unique_ptr<Log>, TopicPartitionLess> logs_;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_DIRECTORY_H_
