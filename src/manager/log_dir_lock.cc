// LogDirLock; see log_dir_lock.h.
#include "manager/log_dir_lock.h"

#include <fmt/format.h>
#include <unistd.h>

#include <set>

#include "base/mutex.h"

namespace seglog {

namespace {

// The directories this process holds. A child made by fork() inherits a copy of the set but not
// the fcntl locks, so the set belongs to the process that filled it. Thread-safe (mu_).
class LockedDirs {
 public:
  // False when `id` is held already.
  bool Insert(LogDirLock::DirId id) EXCLUDES(mu_) {
    MutexLock l(&mu_);
    ForgetIfForked();
    return held_.insert(id).second;
  }
  void Erase(LogDirLock::DirId id) EXCLUDES(mu_) {
    MutexLock l(&mu_);
    ForgetIfForked();
    held_.erase(id);
  }

 private:
  void ForgetIfForked() REQUIRES(mu_) {
    if (owner_ != ::getpid()) {
      held_.clear();
      owner_ = ::getpid();
    }
  }
  Mutex mu_;
  pid_t owner_ GUARDED_BY(mu_) = ::getpid();
  std::set<LogDirLock::DirId> held_ GUARDED_BY(mu_);
};

LockedDirs& Locked() {
  static LockedDirs* const dirs = new LockedDirs;
  return *dirs;
}

}  // namespace

Result<std::unique_ptr<LogDirLock>> LogDirLock::Acquire(Env* env, const std::string& log_dir) {
  SEGLOG_RETURN_IF_ERROR(env->CreateDirectories(log_dir));
  SEGLOG_ASSIGN_OR_RETURN(const FileStat st, env->Stat(log_dir));
  const DirId id{st.device, st.inode};
  if (!Locked().Insert(id)) {
    return Status::FailedPrecondition(fmt::format(
        "Failed to acquire lock on file .lock in {}. This process has the log directory open "
        "already.",
        log_dir));
  }
  auto lock = env->LockFile(log_dir + "/.lock");
  if (!lock.ok()) {
    Locked().Erase(id);
    if (lock.status().code() == Status::Code::kFailedPrecondition) {
      return Status::FailedPrecondition(fmt::format(
          "Failed to acquire lock on file .lock in {}. A Kafka instance or another seglog process "
          "is using this directory.",
          log_dir));
    }
    return lock.status();
  }
  return std::unique_ptr<LogDirLock>(new LogDirLock(id, std::move(lock).value()));
}

LogDirLock::~LogDirLock() {
  lock_.reset();  // closing the lock file releases the fcntl lock
  Locked().Erase(id_);
}

}  // namespace seglog
