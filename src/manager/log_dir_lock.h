// LogDirLock: exclusive use of a log directory, through a POSIX record lock on <dir>/.lock - the
// same file and kind of lock (fcntl, as Java's FileChannel.tryLock takes) that a Kafka broker
// holds, so seglog and Kafka also keep out of each other's way. fcntl locks belong to a process
// and do not exclude a second open by the same process, so a process-wide registry of the
// directories locked here (by device and inode, so that another path to the same directory is
// the same directory) refuses that too.
// Thread safety: a LogDirLock is owned by its directory's single user; Acquire is thread-safe.
#ifndef SEGLOG_MANAGER_LOG_DIR_LOCK_H_
#define SEGLOG_MANAGER_LOG_DIR_LOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "io/env.h"
#include "seglog/result.h"

namespace seglog {

class LogDirLock {
 public:
  // Creates the directory if needed and takes the lock, through `env`. FailedPrecondition naming
  // the directory when another process holds it, or when this process has it open already.
  static Result<std::unique_ptr<LogDirLock>> Acquire(Env* env, const std::string& log_dir);
  ~LogDirLock();
  LogDirLock(const LogDirLock&) = delete;
  LogDirLock& operator=(const LogDirLock&) = delete;

  using DirId = std::pair<uint64_t, uint64_t>;  // st_dev, st_ino

 private:
  LogDirLock(DirId id, std::unique_ptr<FileLock> lock) : id_(id), lock_(std::move(lock)) {}
  const DirId id_;
  std::unique_ptr<FileLock> lock_;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_LOG_DIR_LOCK_H_
