// Env: every operation seglog does on files and directories, behind one interface (LevelDB's
// Env). The engine (src/index, src/log, src/cleaner, src/manager) is handed an Env - through
// LogOptions::env, LogDirectoryOptions, LogManager::Open - and does all its I/O through it, so a
// test can put a FaultInjectionEnv (io/fault_injection_env.h) under a whole LogManager and fail or
// block any one operation on any one file. Env::Default() is the POSIX one.
//
// Why File stays a concrete class holding a descriptor, rather than an interface an Env
// implements: sendfile(2) (FileSlice, the fetch path) and mmap (the indexes) need the real fd,
// and a wrapping Env would have to unwrap File objects to get it. Instead a File remembers the
// Env that opened it and dispatches each of its operations (pread, pwrite, ftruncate, fallocate,
// fdatasync, fstat, mmap, msync) through that Env's virtual per-operation methods, which receive
// the File. OpenFile is non-virtual and binds the File to the Env it is called on, so a File
// opened through an EnvWrapper reports its operations to the wrapper, which forwards them. The
// cost is one virtual call per system call.
//
// The free functions in io/file.h, io/atomic_file.h and the checkpoint and topic-store headers
// that take no Env use Env::Default(); they are for tools and tests. Engine libraries compile with
// SEGLOG_ENGINE_NO_DEFAULT_ENV, which hides them, so engine code cannot bypass the Env it was
// given (File::Open, the one member, is checked by grep).
//
// Thread safety: an Env is thread-safe; Default() lives for the whole process.
#ifndef SEGLOG_IO_ENV_H_
#define SEGLOG_IO_ENV_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/file.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

// The operations an Env performs, for fault injection and for naming them in errors.
enum class EnvOp : uint8_t {
  kOpen,      // open(2) of a file
  kRead,      // pread
  kWrite,     // pwrite
  kTruncate,  // ftruncate
  kAllocate,  // fallocate
  kSync,      // fdatasync of a file
  kStat,      // fstat / stat
  kMap,       // mmap
  kMsync,     // msync of a mapping
  kSetTimes,  // utimensat
  kList,      // opendir/readdir
  kMkdir,     // mkdir (of each missing parent)
  kRename,    // rename(2)
  kUnlink,    // unlink(2)
  kRmdir,     // rmdir(2)
  kSyncDir,   // fsync of a directory
  kLock,      // open + fcntl lock of a lock file
};
const char* EnvOpName(EnvOp op);

// IOError "<what>: <op>: <strerror(err)>", the form every Env error takes.
Status ErrnoStatus(const std::string& what, const char* op, int err);

// A held lock file (LockFile); destroying it releases the lock. Not thread-safe: owned by the
// one holder of the lock.
class FileLock {
 public:
  virtual ~FileLock();
};

class Env {
 public:
  virtual ~Env();
  // The POSIX Env, shared by the whole process; never destroyed.
  static Env* Default();

  // Opens `path`; the File's operations go through this Env. NotFound / AlreadyExists for a
  // missing or existing file as `mode` requires, IOError naming the path otherwise.
  Result<std::unique_ptr<File>> OpenFile(const std::string& path, File::Mode mode);
  // Removes `path` and, if it is a directory, everything under it (missing: OK).
  Status RemoveTree(const std::string& path);

  // --- Operations on open files, called by File and MappedRegion (and OpenFile). ---
  virtual Result<int> OpenDescriptor(const std::string& path, File::Mode mode) = 0;
  // Up to out.size() bytes at `position`; fewer only at the end of the file.
  virtual Result<size_t> Read(const File& file, int64_t position, std::span<uint8_t> out) = 0;
  // All of `data` at `position`.
  virtual Status Write(const File& file, int64_t position, std::span<const uint8_t> data) = 0;
  virtual Status Truncate(const File& file, int64_t length) = 0;
  // False when the file system cannot allocate (see File::Allocate).
  virtual Result<bool> Allocate(const File& file, int64_t position, int64_t length) = 0;
  // fdatasync.
  virtual Status SyncFile(const File& file) = 0;
  virtual Result<FileStat> StatOpenFile(const File& file) = 0;
  virtual Result<uint8_t*> MapFile(const File& file, size_t length, bool writable) = 0;
  virtual void UnmapFile(uint8_t* data, size_t length) = 0;
  // msync(MS_SYNC) of a mapping of `path`.
  virtual Status SyncMapping(uint8_t* data, size_t length, const std::string& path) = 0;

  // --- Operations by path. ---
  virtual bool FileExists(const std::string& path) = 0;
  // NotFound for a missing file.
  virtual Result<FileStat> Stat(const std::string& path) = 0;
  // utimensat: access and modification times to `ms` since the epoch.
  virtual Status SetLastModifiedMs(const std::string& path, int64_t ms) = 0;
  // Names (not paths) in `dir`, unsorted, without "." and "..".
  virtual Result<std::vector<std::string>> ListDirectory(const std::string& dir) = 0;
  // mkdir -p.
  virtual Status CreateDirectories(const std::string& dir) = 0;
  // rename(2); atomic within a file system.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  // unlink(2); a missing file is OK when `missing_ok`.
  virtual Status RemoveFile(const std::string& path, bool missing_ok) = 0;
  // rmdir(2) of an empty directory; missing is OK.
  virtual Status RemoveDirectory(const std::string& dir) = 0;
  // fsync of a directory, so that creates, renames and removals in it are durable.
  virtual Status SyncDirectory(const std::string& dir) = 0;
  // Creates `path` if needed and takes an exclusive POSIX record lock (fcntl F_SETLK) on it.
  // FailedPrecondition when another process holds it.
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;
};

// An Env that forwards every operation to another (LevelDB's EnvWrapper): subclasses override
// what they want to change. Thread-safe if the target is.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Result<int> OpenDescriptor(const std::string& path, File::Mode mode) override {
    return target_->OpenDescriptor(path, mode);
  }
  Result<size_t> Read(const File& file, int64_t position, std::span<uint8_t> out) override {
    return target_->Read(file, position, out);
  }
  Status Write(const File& file, int64_t position, std::span<const uint8_t> data) override {
    return target_->Write(file, position, data);
  }
  Status Truncate(const File& file, int64_t length) override {
    return target_->Truncate(file, length);
  }
  Result<bool> Allocate(const File& file, int64_t position, int64_t length) override {
    return target_->Allocate(file, position, length);
  }
  Status SyncFile(const File& file) override { return target_->SyncFile(file); }
  Result<FileStat> StatOpenFile(const File& file) override { return target_->StatOpenFile(file); }
  Result<uint8_t*> MapFile(const File& file, size_t length, bool writable) override {
    return target_->MapFile(file, length, writable);
  }
  void UnmapFile(uint8_t* data, size_t length) override { target_->UnmapFile(data, length); }
  Status SyncMapping(uint8_t* data, size_t length, const std::string& path) override {
    return target_->SyncMapping(data, length, path);
  }
  bool FileExists(const std::string& path) override { return target_->FileExists(path); }
  Result<FileStat> Stat(const std::string& path) override { return target_->Stat(path); }
  Status SetLastModifiedMs(const std::string& path, int64_t ms) override {
    return target_->SetLastModifiedMs(path, ms);
  }
  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override {
    return target_->ListDirectory(dir);
  }
  Status CreateDirectories(const std::string& dir) override {
    return target_->CreateDirectories(dir);
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    return target_->RenameFile(from, to);
  }
  Status RemoveFile(const std::string& path, bool missing_ok) override {
    return target_->RemoveFile(path, missing_ok);
  }
  Status RemoveDirectory(const std::string& dir) override { return target_->RemoveDirectory(dir); }
  Status SyncDirectory(const std::string& dir) override { return target_->SyncDirectory(dir); }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return target_->LockFile(path);
  }

 private:
  Env* const target_;
};

}  // namespace seglog

#endif  // SEGLOG_IO_ENV_H_
