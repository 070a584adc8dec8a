// LogDirLock: exclusive use of a log directory, through a record lock on <dir>/.lock - the
// same file and the lock that a Kafka broker holds (fcntl, as Java's FileChannel.tryLock takes),
// so seglog and Kafka also keep out of each other's way. It is an open file description lock
// (F_OFD_SETLK), which conflicts with Kafka's POSIX lock and, unlike one, also with a second
// holder in the same process: two Storages on one directory are refused.
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
  // when another process, or another LogDirLock of this one, holds it.
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
