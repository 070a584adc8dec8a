// Env, EnvWrapper's helpers and the POSIX Env; see env.h.
#include "io/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seglog {

const char* EnvOpName(EnvOp op) {
  switch (op) {
    case EnvOp::kOpen:
      return "open";
    case EnvOp::kRead:
      return "pread";
    case EnvOp::kWrite:
      return "pwrite";
    case EnvOp::kTruncate:
      return "ftruncate";
    case EnvOp::kAllocate:
      return "fallocate";
    case EnvOp::kSync:
      return "fdatasync";
    case EnvOp::kStat:
      return "stat";
    case EnvOp::kMap:
      return "mmap";
    case EnvOp::kMsync:
      return "msync";
    case EnvOp::kSetTimes:
      return "utimensat";
    case EnvOp::kList:
      return "opendir";
    case EnvOp::kMkdir:
      return "mkdir";
    case EnvOp::kRename:
      return "rename";
    case EnvOp::kUnlink:
      return "unlink";
    case EnvOp::kRmdir:
      return "rmdir";
    case EnvOp::kSyncDir:
      return "fsync directory";
    case EnvOp::kLock:
      return "lock";
  }
  return "?";
}

Status ErrnoStatus(const std::string& what, const char* op, int err) {
  return Status::IOError(fmt::format("{}: {}: {}", what, op, std::strerror(err)));
}

FileLock::~FileLock() = default;
Env::~Env() = default;

Result<std::unique_ptr<File>> Env::OpenFile(const std::string& path, File::Mode mode) {
  SEGLOG_ASSIGN_OR_RETURN(const int fd, OpenDescriptor(path, mode));
  return std::unique_ptr<File>(new File(this, path, fd, mode != File::Mode::kReadOnly));
}

Status Env::RemoveTree(const std::string& path) {
  auto st = Stat(path);
  if (!st.ok()) return st.status().IsNotFound() ? Status::OK() : st.status();
  if (!st->is_directory) return RemoveFile(path, /*missing_ok=*/true);
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(path));
  for (const std::string& name : names) SEGLOG_RETURN_IF_ERROR(RemoveTree(path + "/" + name));
  return RemoveDirectory(path);
}

namespace {

FileStat FromStat(const struct stat& st) {
  return FileStat{static_cast<int64_t>(st.st_size),
                  static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000,
                  S_ISDIR(st.st_mode), static_cast<uint64_t>(st.st_dev),
                  static_cast<uint64_t>(st.st_ino)};
}

class PosixFileLock : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override { ::close(fd_); }  // closing releases the lock

 private:
  int fd_;
};

// The POSIX Env. Thread-safe: it keeps no state.
class PosixEnv : public Env {
 public:
  Result<int> OpenDescriptor(const std::string& path, File::Mode mode) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case File::Mode::kReadOnly:
        flags |= O_RDONLY;
        break;
      case File::Mode::kReadWrite:
        flags |= O_RDWR;
        break;
      case File::Mode::kCreate:
        flags |= O_RDWR | O_CREAT;
        break;
      case File::Mode::kCreateExclusive:
        flags |= O_RDWR | O_CREAT | O_EXCL;
        break;
    }
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) return Status::NotFound(fmt::format("{}: no such file", path));
      if (err == EEXIST) return Status::AlreadyExists(fmt::format("{}: already exists", path));
      return ErrnoStatus(path, "open", err);
    }
    return fd;
  }

  Result<size_t> Read(const File& file, int64_t position, std::span<uint8_t> out) override {
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(file.fd(), out.data() + done, out.size() - done,
                                static_cast<off_t>(position + static_cast<int64_t>(done)));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(file.path(), "pread", errno);
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

  Status Write(const File& file, int64_t position, std::span<const uint8_t> data) override {
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::pwrite(file.fd(), data.data() + done, data.size() - done,
                                 static_cast<off_t>(position + static_cast<int64_t>(done)));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(file.path(), "pwrite", errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }

  Status Truncate(const File& file, int64_t length) override {
    if (::ftruncate(file.fd(), static_cast<off_t>(length)) != 0) {
      return ErrnoStatus(file.path(), "ftruncate", errno);
    }
    return Status::OK();
  }

  Result<bool> Allocate(const File& file, int64_t position, int64_t length) override {
    for (;;) {
      if (::fallocate(file.fd(), 0, static_cast<off_t>(position), static_cast<off_t>(length)) ==
          0) {
        return true;
      }
      if (errno == EINTR) continue;
      if (errno == EOPNOTSUPP || errno == ENOSYS) return false;
      return ErrnoStatus(file.path(), "fallocate", errno);
    }
  }

  Status SyncFile(const File& file) override {
    if (::fdatasync(file.fd()) != 0) return ErrnoStatus(file.path(), "fdatasync", errno);
    return Status::OK();
  }

  Result<FileStat> StatOpenFile(const File& file) override {
    struct stat st;
    if (::fstat(file.fd(), &st) != 0) return ErrnoStatus(file.path(), "fstat", errno);
    return FromStat(st);
  }

  Result<uint8_t*> MapFile(const File& file, size_t length, bool writable) override {
    void* p = ::mmap(nullptr, length, writable ? (PROT_READ | PROT_WRITE) : PROT_READ, MAP_SHARED,
                     file.fd(), 0);
    if (p == MAP_FAILED) return ErrnoStatus(file.path(), "mmap", errno);
    return static_cast<uint8_t*>(p);
  }

  void UnmapFile(uint8_t* data, size_t length) override { ::munmap(data, length); }

  Status SyncMapping(uint8_t* data, size_t length, const std::string& path) override {
    if (::msync(data, length, MS_SYNC) != 0) return ErrnoStatus(path, "msync", errno);
    return Status::OK();
  }

  bool FileExists(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  Result<FileStat> Stat(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::NotFound(fmt::format("{}: no such file", path));
      return ErrnoStatus(path, "stat", errno);
    }
    return FromStat(st);
  }

  Status SetLastModifiedMs(const std::string& path, int64_t ms) override {
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(ms / 1000);
    times[0].tv_nsec = times[1].tv_nsec = static_cast<long>((ms % 1000) * 1000000);
    if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
      return ErrnoStatus(path, "utimensat", errno);
    }
    return Status::OK();
  }

  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return ErrnoStatus(dir, "opendir", errno);
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
  }

  Status CreateDirectories(const std::string& dir) override {
    // Each missing component, parents first (mkdir -p).
    for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
      const std::string prefix = dir.substr(0, end);
      if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        return ErrnoStatus(prefix, "mkdir", errno);
      }
      if (end == std::string::npos) break;
    }
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return ErrnoStatus(dir, "stat", errno);
    if (!S_ISDIR(st.st_mode)) return ErrnoStatus(dir, "mkdir", ENOTDIR);
    return Status::OK();
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return Status::IOError(fmt::format("rename {} to {}: {}", from, to, std::strerror(errno)));
    }
    return Status::OK();
  }

  Status RemoveFile(const std::string& path, bool missing_ok) override {
    if (::unlink(path.c_str()) != 0) {
      if (errno == ENOENT && missing_ok) return Status::OK();
      return ErrnoStatus(path, "unlink", errno);
    }
    return Status::OK();
  }

  Status RemoveDirectory(const std::string& dir) override {
    if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) return ErrnoStatus(dir, "rmdir", errno);
    return Status::OK();
  }

  Status SyncDirectory(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(dir, "open directory", errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) return ErrnoStatus(dir, "fsync directory", err);
    return Status::OK();
  }

  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus(path, "open", errno);
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd, F_SETLK, &fl) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EACCES || err == EAGAIN) {
        return Status::FailedPrecondition(fmt::format("{}: held by another process", path));
      }
      return ErrnoStatus(path, "lock", err);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }
};

}  // namespace

Env* Env::Default() {
  static Env* const env = new PosixEnv;
  return env;
}

}  // namespace seglog
