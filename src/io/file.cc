// File and directory operations over POSIX; see file.h.
#include "io/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace seglog {

namespace {
Status ErrnoStatus(const std::string& path, const char* op, int err) {
  return Status::IOError(fmt::format("{}: {}: {}", path, op, std::strerror(err)));
}
}  // namespace

Result<std::unique_ptr<File>> File::Open(const std::string& path, Mode mode) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case Mode::kReadOnly:
      flags |= O_RDONLY;
      break;
    case Mode::kReadWrite:
      flags |= O_RDWR;
      break;
    case Mode::kCreate:
      flags |= O_RDWR | O_CREAT;
      break;
    case Mode::kCreateExclusive:
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
  return std::unique_ptr<File>(new File(path, fd, mode != Mode::kReadOnly));
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

Status File::Error(const char* op) const { return ErrnoStatus(path_, op, errno); }

Result<int64_t> File::Size() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) return Error("fstat");
  return static_cast<int64_t>(st.st_size);
}

Result<FileStat> StatFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(fmt::format("{}: no such file", path));
    return ErrnoStatus(path, "stat", errno);
  }
  return FileStat{static_cast<int64_t>(st.st_size),
                  static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000};
}

Status SetLastModifiedMs(const std::string& path, int64_t ms) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(ms / 1000);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>((ms % 1000) * 1000000);
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return ErrnoStatus(path, "utimensat", errno);
  }
  return Status::OK();
}

Result<int64_t> File::LastModifiedMs() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) return Error("fstat");
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

Result<size_t> File::ReadAtMost(int64_t position, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                              static_cast<off_t>(position + static_cast<int64_t>(done)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error("pread");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

Status File::ReadAt(int64_t position, std::span<uint8_t> out) const {
  auto n = ReadAtMost(position, out);
  if (!n.ok()) return n.status();
  if (*n != out.size()) {
    return Status::Corruption(fmt::format("{}: file ends at byte {}, {} byte(s) needed at {}",
                                          path_, position + static_cast<int64_t>(*n), out.size(),
                                          position));
  }
  return Status::OK();
}

Status File::WriteAt(int64_t position, std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done,
                               static_cast<off_t>(position + static_cast<int64_t>(done)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error("pwrite");
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status File::Truncate(int64_t length) {
  if (::ftruncate(fd_, static_cast<off_t>(length)) != 0) return Error("ftruncate");
  return Status::OK();
}

Result<bool> File::Allocate(int64_t position, int64_t length) {
  for (;;) {
    if (::fallocate(fd_, 0, static_cast<off_t>(position), static_cast<off_t>(length)) == 0) {
      return true;
    }
    if (errno == EINTR) continue;
    if (errno == EOPNOTSUPP || errno == ENOSYS) return false;
    return Error("fallocate");
  }
}

namespace {
std::atomic<SyncFaultHook> sync_fault_hook{nullptr};

Status InjectedSyncFault(const std::string& path) {
  SyncFaultHook hook = sync_fault_hook.load(std::memory_order_acquire);
  return hook == nullptr ? Status::OK() : hook(path);
}
}  // namespace

void SetSyncFaultHookForTesting(SyncFaultHook hook) {
  sync_fault_hook.store(hook, std::memory_order_release);
}

Status File::Sync() {
  SEGLOG_RETURN_IF_ERROR(InjectedSyncFault(path_));
  if (::fdatasync(fd_) != 0) return Error("fdatasync");
  return Status::OK();
}

Result<std::unique_ptr<MappedRegion>> MappedRegion::Map(const File& file, size_t length,
                                                        bool writable) {
  if (length == 0) return std::unique_ptr<MappedRegion>(new MappedRegion(nullptr, 0));
  void* p = ::mmap(nullptr, length, writable ? (PROT_READ | PROT_WRITE) : PROT_READ, MAP_SHARED,
                   file.fd(), 0);
  if (p == MAP_FAILED) return ErrnoStatus(file.path(), "mmap", errno);
  return std::unique_ptr<MappedRegion>(new MappedRegion(static_cast<uint8_t*>(p), length));
}

Result<std::unique_ptr<MappedRegion>> MappedRegion::MapWholeFile(const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, File::Open(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, file->Size());
  return Map(*file, static_cast<size_t>(size), /*writable=*/false);
}

MappedRegion::~MappedRegion() {
  if (data_ != nullptr) ::munmap(data_, length_);
}

Status MappedRegion::Sync(const std::string& path_for_errors) {
  if (data_ == nullptr) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(InjectedSyncFault(path_for_errors));
  if (::msync(data_, length_, MS_SYNC) != 0) return ErrnoStatus(path_for_errors, "msync", errno);
  return Status::OK();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Result<std::vector<std::string>> ListDirectory(const std::string& dir) {
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

Status CreateDirectories(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(fmt::format("{}: create directories: {}", dir, ec.message()));
  return Status::OK();
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return Status::IOError(fmt::format("rename {} to {}: {}", from, to, std::strerror(errno)));
  }
  return Status::OK();
}

Status RemoveFile(const std::string& path, bool missing_ok) {
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT && missing_ok) return Status::OK();
    return ErrnoStatus(path, "unlink", errno);
  }
  return Status::OK();
}

Status SyncDirectory(const std::string& dir) {
  SEGLOG_RETURN_IF_ERROR(InjectedSyncFault(dir));
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(dir, "open directory", errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus(dir, "fsync directory", err);
  return Status::OK();
}

}  // namespace seglog
