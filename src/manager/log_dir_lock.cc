// LogDirLock; see log_dir_lock.h.
#include "manager/log_dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/file.h"

namespace seglog {

Result<std::unique_ptr<LogDirLock>> LogDirLock::Acquire(const std::string& log_dir) {
  SEGLOG_RETURN_IF_ERROR(CreateDirectories(log_dir));
  const std::string path = log_dir + "/.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IOError(fmt::format("{}: open: {}", path, std::strerror(errno)));
  }
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  // An open file description lock: it conflicts with a Kafka broker's POSIX lock on the same
  // file and also with a second Acquire in this process (a classic F_SETLK would be granted
  // again to the same process, letting two LogManagers share a directory).
  if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EACCES || err == EAGAIN) {
      return Status::FailedPrecondition(fmt::format(
          "Failed to acquire lock on file .lock in {}. A Kafka instance or another seglog process "
          "or Storage is using this directory.",
          log_dir));
    }
    return Status::IOError(fmt::format("{}: lock: {}", path, std::strerror(err)));
  }
  return std::unique_ptr<LogDirLock>(new LogDirLock(fd));
}

LogDirLock::~LogDirLock() { ::close(fd_); }  // closing releases the lock

}  // namespace seglog
