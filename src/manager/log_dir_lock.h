// LogDirLock: exclusive use of a log directory, through a POSIX record lock on <dir>/.lock - the
// same file and kind of lock (fcntl, as Java's FileChannel.tryLock takes) that a Kafka broker
// holds, so seglog and Kafka also keep out of each other's way.
// Thread safety: not thread-safe; owned by the process's single user of the directory.
#ifndef SEGLOG_MANAGER_LOG_DIR_LOCK_H_
#define SEGLOG_MANAGER_LOG_DIR_LOCK_H_

#include <memory>
#include <string>

#include "seglog/result.h"

namespace seglog {

class LogDirLock {
 public:
  // Creates the directory if needed and takes the lock. FailedPrecondition naming the directory
  // when another process holds it.
  static Result<std::unique_ptr<LogDirLock>> Acquire(const std::string& log_dir);
  ~LogDirLock();
  LogDirLock(const LogDirLock&) = delete;
  LogDirLock& operator=(const LogDirLock&) = delete;

 private:
  explicit LogDirLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_DIR_LOCK_H_
