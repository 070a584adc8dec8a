// FaultInjectionEnv: an EnvWrapper for tests (LevelDB's fault_injection_test.cc, RocksDB's
// FaultInjectionTestFS) that makes chosen operations on chosen files fail or wait:
//
//   FaultInjectionEnv env(Env::Default());
//   env.Fail(EnvOp::kRename, ".deleted", ENOSPC);          // every rename to/from *.deleted*
//   env.Fail(EnvOp::kSync, "00000000000000000000.log", EIO, /*times=*/1);
//   int b = env.Block(EnvOp::kSync, ".cleaned");           // the next fdatasync of a .cleaned file
//   ... start the work on another thread ...
//   env.WaitUntilBlocked(b);                               // a thread is now waiting in it
//   ... check what else still works meanwhile ...
//   env.Release(b);
//
// A rule matches an operation when the operation is its kind and the path (either path of a
// rename) contains its substring ("" matches every path). An injected failure is an IOError in
// the form a real one takes - "<path>: <op>: <strerror> (injected)" - and the operation is not
// performed. A block rule holds every matching call until Release; it counts the threads
// waiting in it. Tests join their threads before the env is destroyed; the destructor releases
// callers still blocked, so that a failed assertion does not hang the test.
//
// Thread safety: thread-safe; rules may be added and removed while other threads do I/O.
#ifndef SEGLOG_IO_FAULT_INJECTION_ENV_H_
#define SEGLOG_IO_FAULT_INJECTION_ENV_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "io/env.h"

namespace seglog {

class FaultInjectionEnv : public EnvWrapper {
 public:
  static constexpr int kAlways = -1;

  explicit FaultInjectionEnv(Env* target) : EnvWrapper(target) {}
  ~FaultInjectionEnv() override;

  // Fails the next `times` (kAlways: every) `op` on paths containing `path_substring` with
  // `err` (ENOSPC, EIO, ...).
  void Fail(EnvOp op, std::string path_substring, int err, int times = kAlways) EXCLUDES(mu_);
  // Removes every failure rule.
  void ClearFailures() EXCLUDES(mu_);
  // How many operations were failed so far.
  int failures_injected() const EXCLUDES(mu_);

  // Makes every `op` on a matching path wait, from now until Release(id). Returns the rule id.
  int Block(EnvOp op, std::string path_substring) EXCLUDES(mu_);
  // Waits until at least `threads` threads are waiting in rule `id` (no timeout: a test that
  // never reaches the blocked call hangs, and the test runner's timeout names it).
  void WaitUntilBlocked(int id, int threads = 1) EXCLUDES(mu_);
  // Lets the waiting and all later calls of rule `id` through.
  void Release(int id) EXCLUDES(mu_);

  // How many `op` calls on paths containing `path_substring` were made through this env.
  int count(EnvOp op, const std::string& path_substring = "") const EXCLUDES(mu_);

  Result<int> OpenDescriptor(const std::string& path, File::Mode mode) override;
  Result<size_t> Read(const File& file, int64_t position, std::span<uint8_t> out) override;
  Status Write(const File& file, int64_t position, std::span<const uint8_t> data) override;
  Status Truncate(const File& file, int64_t length) override;
  Result<bool> Allocate(const File& file, int64_t position, int64_t length) override;
  Status SyncFile(const File& file) override;
  Result<FileStat> StatOpenFile(const File& file) override;
  Result<uint8_t*> MapFile(const File& file, size_t length, bool writable) override;
  Status SyncMapping(uint8_t* data, size_t length, const std::string& path) override;
  Result<FileStat> Stat(const std::string& path) override;
  Status SetLastModifiedMs(const std::string& path, int64_t ms) override;
  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override;
  Status CreateDirectories(const std::string& dir) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status RemoveFile(const std::string& path, bool missing_ok) override;
  Status RemoveDirectory(const std::string& dir) override;
  Status SyncDirectory(const std::string& dir) override;
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override;

 private:
  struct FailRule {
    EnvOp op;
    std::string substring;
    int err;
    int remaining;  // kAlways, or how many more to fail
  };
  struct BlockRule {
    EnvOp op;
    std::string substring;
    bool released = false;
    int waiting = 0;
  };
  // Records the call, waits while a block rule holds it, then returns the failure to inject, if
  // any. `other_path` is a rename's second path.
  Status Intercept(EnvOp op, const std::string& path, const std::string& other_path = "")
      EXCLUDES(mu_);

  mutable Mutex mu_;
  CondVar cv_{&mu_};
  std::vector<FailRule> fail_rules_ GUARDED_BY(mu_);
  std::map<int, BlockRule> block_rules_ GUARDED_BY(mu_);
  int next_block_id_ GUARDED_BY(mu_) = 0;
  int failures_injected_ GUARDED_BY(mu_) = 0;
  bool destroying_ GUARDED_BY(mu_) = false;
  std::map<std::pair<EnvOp, std::string>, int> calls_ GUARDED_BY(mu_);  // by op and path
};

}  // namespace seglog

#endif  // SEGLOG_IO_FAULT_INJECTION_ENV_H_
