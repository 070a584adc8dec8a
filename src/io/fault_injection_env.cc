// FaultInjectionEnv; see fault_injection_env.h.
#include "io/fault_injection_env.h"

#include <fmt/format.h>

#include <cstring>

namespace seglog {

namespace {
bool Matches(const std::string& substring, const std::string& path, const std::string& other) {
  return path.find(substring) != std::string::npos ||
         (!other.empty() && other.find(substring) != std::string::npos);
}
}  // namespace

FaultInjectionEnv::~FaultInjectionEnv() {
  MutexLock l(&mu_);
  destroying_ = true;
  cv_.SignalAll();
  // Blocked callers leave before the env goes away.
  for (;;) {
    bool any = false;
    for (const auto& [id, rule] : block_rules_) any |= rule.waiting > 0;
    if (!any) break;
    cv_.Wait(&mu_);
  }
}

void FaultInjectionEnv::Fail(EnvOp op, std::string path_substring, int err, int times) {
  MutexLock l(&mu_);
  fail_rules_.push_back(FailRule{op, std::move(path_substring), err, times});
}

void FaultInjectionEnv::ClearFailures() {
  MutexLock l(&mu_);
  fail_rules_.clear();
}

int FaultInjectionEnv::failures_injected() const {
  MutexLock l(&mu_);
  return failures_injected_;
}

int FaultInjectionEnv::Block(EnvOp op, std::string path_substring) {
  MutexLock l(&mu_);
  const int id = next_block_id_++;
  block_rules_[id] = BlockRule{op, std::move(path_substring)};
  return id;
}

void FaultInjectionEnv::WaitUntilBlocked(int id, int threads) {
  MutexLock l(&mu_);
  while (block_rules_.at(id).waiting < threads) cv_.Wait(&mu_);
}

void FaultInjectionEnv::Release(int id) {
  MutexLock l(&mu_);
  block_rules_.at(id).released = true;
  cv_.SignalAll();
}

int FaultInjectionEnv::count(EnvOp op, const std::string& path_substring) const {
  MutexLock l(&mu_);
  int n = 0;
  for (const auto& [call, times] : calls_) {
    if (call.first == op && Matches(path_substring, call.second, "")) n += times;
  }
  return n;
}

Status FaultInjectionEnv::Intercept(EnvOp op, const std::string& path,
                                    const std::string& other_path) {
  MutexLock l(&mu_);
  ++calls_[{op, other_path.empty() ? path : path + " " + other_path}];
  for (auto& [id, rule] : block_rules_) {
    if (rule.op != op || rule.released || !Matches(rule.substring, path, other_path)) continue;
    ++rule.waiting;
    cv_.SignalAll();  // WaitUntilBlocked
    while (!rule.released && !destroying_) cv_.Wait(&mu_);
    --rule.waiting;
    cv_.SignalAll();  // the destructor
  }
  for (FailRule& rule : fail_rules_) {
    if (rule.op != op || rule.remaining == 0 || !Matches(rule.substring, path, other_path)) {
      continue;
    }
    if (rule.remaining > 0) --rule.remaining;
    ++failures_injected_;
    const std::string what =
        op == EnvOp::kRename ? fmt::format("rename {} to {}", path, other_path) : path;
    return Status::IOError(
        fmt::format("{}: {}: {} (injected)", what, EnvOpName(op), std::strerror(rule.err)));
  }
  return Status::OK();
}

Result<int> FaultInjectionEnv::OpenDescriptor(const std::string& path, File::Mode mode) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kOpen, path));
  return EnvWrapper::OpenDescriptor(path, mode);
}

Result<size_t> FaultInjectionEnv::Read(const File& file, int64_t position, std::span<uint8_t> out) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kRead, file.path()));
  return EnvWrapper::Read(file, position, out);
}

Status FaultInjectionEnv::Write(const File& file, int64_t position, std::span<const uint8_t> data) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kWrite, file.path()));
  return EnvWrapper::Write(file, position, data);
}

Status FaultInjectionEnv::Truncate(const File& file, int64_t length) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kTruncate, file.path()));
  return EnvWrapper::Truncate(file, length);
}

Result<bool> FaultInjectionEnv::Allocate(const File& file, int64_t position, int64_t length) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kAllocate, file.path()));
  return EnvWrapper::Allocate(file, position, length);
}

Status FaultInjectionEnv::SyncFile(const File& file) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kSync, file.path()));
  return EnvWrapper::SyncFile(file);
}

Result<FileStat> FaultInjectionEnv::StatOpenFile(const File& file) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kStat, file.path()));
  return EnvWrapper::StatOpenFile(file);
}

Result<uint8_t*> FaultInjectionEnv::MapFile(const File& file, size_t length, bool writable) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kMap, file.path()));
  return EnvWrapper::MapFile(file, length, writable);
}

Status FaultInjectionEnv::SyncMapping(uint8_t* data, size_t length, const std::string& path) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kMsync, path));
  return EnvWrapper::SyncMapping(data, length, path);
}

Result<FileStat> FaultInjectionEnv::Stat(const std::string& path) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kStat, path));
  return EnvWrapper::Stat(path);
}

Status FaultInjectionEnv::SetLastModifiedMs(const std::string& path, int64_t ms) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kSetTimes, path));
  return EnvWrapper::SetLastModifiedMs(path, ms);
}

Result<std::vector<std::string>> FaultInjectionEnv::ListDirectory(const std::string& dir) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kList, dir));
  return EnvWrapper::ListDirectory(dir);
}

Status FaultInjectionEnv::CreateDirectories(const std::string& dir) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kMkdir, dir));
  return EnvWrapper::CreateDirectories(dir);
}

Status FaultInjectionEnv::RenameFile(const std::string& from, const std::string& to) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kRename, from, to));
  return EnvWrapper::RenameFile(from, to);
}

Status FaultInjectionEnv::RemoveFile(const std::string& path, bool missing_ok) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kUnlink, path));
  return EnvWrapper::RemoveFile(path, missing_ok);
}

Status FaultInjectionEnv::RemoveDirectory(const std::string& dir) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kRmdir, dir));
  return EnvWrapper::RemoveDirectory(dir);
}

Status FaultInjectionEnv::SyncDirectory(const std::string& dir) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kSyncDir, dir));
  return EnvWrapper::SyncDirectory(dir);
}

Result<std::unique_ptr<FileLock>> FaultInjectionEnv::LockFile(const std::string& path) {
  SEGLOG_RETURN_IF_ERROR(Intercept(EnvOp::kLock, path));
  return EnvWrapper::LockFile(path);
}

}  // namespace seglog
