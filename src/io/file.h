// File: a POSIX file descriptor with positional reads and writes, returning Status with the
// path and errno text on failure. Opened by an Env (io/env.h), through which each of its
// operations is dispatched. MappedRegion: an mmap of a file range, likewise. Plus the free
// directory operations over Env::Default(), for tools and tests (hidden from engine code, which
// uses the Env it is given; see env.h).
//
// Thread safety: File is thread-safe for concurrent ReadAt calls (pread); writes, truncation and
// Sync must be externally synchronised with each other. MappedRegion is externally synchronised.
#ifndef SEGLOG_IO_FILE_H_
#define SEGLOG_IO_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

class Env;

// stat(2) by path or descriptor.
struct FileStat {
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  bool is_directory = false;
  uint64_t device = 0;  // st_dev and st_ino: the file's identity
  uint64_t inode = 0;
};

class File {
 public:
  enum class Mode {
    kReadOnly,        // must exist
    kReadWrite,       // must exist
    kCreate,          // read-write, created if missing
    kCreateExclusive  // read-write, must not exist
  };
  // Opens through Env::Default() (tools and tests; engine code calls env->OpenFile).
  static Result<std::unique_ptr<File>> Open(const std::string& path, Mode mode);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  bool writable() const { return writable_; }
  // The Env that opened the file; its operations go through it.
  Env* env() const { return env_; }

  Result<int64_t> Size() const;
  // Reads exactly out.size() bytes at `position`; Corruption naming the path when the file ends
  // first (a short file is bad data, not an I/O failure).
  Status ReadAt(int64_t position, std::span<uint8_t> out) const;
  // Reads up to out.size() bytes; returns how many were read (fewer only at end of file).
  Result<size_t> ReadAtMost(int64_t position, std::span<uint8_t> out) const;
  // Writes all of `data` at `position` (retrying short writes).
  Status WriteAt(int64_t position, std::span<const uint8_t> data);
  // Sets the file length (shrinks or extends with zeros).
  Status Truncate(int64_t length);
  // fallocate(2) without KEEP_SIZE: gives [position, position + length) disk blocks, so that
  // later stores into a mapping of that range cannot fail for lack of space (which would be a
  // SIGBUS). False when the file system does not support it; ENOSPC is an error naming the file.
  Result<bool> Allocate(int64_t position, int64_t length);
  // fdatasync: the data and the metadata needed to read it.
  Status Sync();
  // Last modification time, ms since the epoch.
  Result<int64_t> LastModifiedMs() const;

 private:
  friend class Env;
  File(Env* env, std::string path, int fd, bool writable)
      : env_(env), path_(std::move(path)), fd_(fd), writable_(writable) {}

  Env* const env_;
  std::string path_;
  int fd_;
  bool writable_;
};

// A shared mapping of [0, length) of a file, made (and synced and unmapped) through the file's
// Env.
class MappedRegion {
 public:
  static Result<std::unique_ptr<MappedRegion>> Map(const File& file, size_t length, bool writable);
  // A read-only mapping of the whole file at `path` as it is now (for tools that read segments
  // and indexes in place); the descriptor is closed at once, the mapping stays valid. NotFound
  // when the file is missing. A file truncated below the mapping by another process makes
  // reads past its new end fault, as with any mapping.
  static Result<std::unique_ptr<MappedRegion>> MapWholeFile(const std::string& path);
  ~MappedRegion();
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t length() const { return length_; }
  std::span<const uint8_t> bytes() const { return {data_, length_}; }
  // msync(MS_SYNC) of the whole mapping.
  Status Sync(const std::string& path_for_errors);

 private:
  MappedRegion(Env* env, uint8_t* data, size_t length) : env_(env), data_(data), length_(length) {}
  Env* const env_;
  uint8_t* data_;
  size_t length_;
};

#ifndef SEGLOG_ENGINE_NO_DEFAULT_ENV
// Env::Default()'s operations by path, for tools and tests; see Env for each.
bool FileExists(const std::string& path);
Result<FileStat> StatFile(const std::string& path);
Status SetLastModifiedMs(const std::string& path, int64_t ms);
Result<std::vector<std::string>> ListDirectory(const std::string& dir);
Status CreateDirectories(const std::string& dir);
Status RenameFile(const std::string& from, const std::string& to);
Status RemoveFile(const std::string& path, bool missing_ok);
Status SyncDirectory(const std::string& dir);
#endif  // SEGLOG_ENGINE_NO_DEFAULT_ENV

}  // namespace seglog

#endif  // SEGLOG_IO_FILE_H_
