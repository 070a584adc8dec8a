// ProducerIdManager; see producer_id_manager.h.
#include "manager/producer_id_manager.h"

#include <fmt/format.h>

#include <span>

#include "base/coding.h"
#include "base/crc32c.h"
#include "io/atomic_file.h"

namespace seglog {

namespace pb = producer_id_block;

namespace {

std::string Encode(int64_t next_block_start) {
  std::string out(pb::kFileSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreBE16(p + pb::kVersionOffset, static_cast<uint16_t>(pb::kVersion));
  StoreBE64(p + pb::kNextBlockStartOffset, static_cast<uint64_t>(next_block_start));
  StoreBE32(p + pb::kCrcOffset, Crc32c(std::span<const uint8_t>(p, pb::kCrcOffset)));
  return out;
}

Result<int64_t> Decode(const std::string& path, const std::string& bytes) {
  if (bytes.size() != pb::kFileSize) {
    return Status::Corruption(fmt::format("{}: {} bytes, expected {}; producer ids refused", path,
                                          bytes.size(), pb::kFileSize));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t stored = LoadBE32(p + pb::kCrcOffset);
  const uint32_t computed = Crc32c(std::span<const uint8_t>(p, pb::kCrcOffset));
  if (stored != computed) {
    return Status::Corruption(
        fmt::format("{}: crc at byte {} is {:#010x}, computed {:#010x}; producer ids refused", path,
                    pb::kCrcOffset, stored, computed));
  }
  const int16_t version = LoadBEInt16(p + pb::kVersionOffset);
  if (version != pb::kVersion) {
    return Status::Corruption(
        fmt::format("{}: version {} at byte 0, expected {}", path, version, pb::kVersion));
  }
  const int64_t next = LoadBEInt64(p + pb::kNextBlockStartOffset);
  if (next < 0) {
    return Status::Corruption(fmt::format("{}: next block start {} at byte {} is negative", path,
                                          next, pb::kNextBlockStartOffset));
  }
  return next;
}

}  // namespace

Result<std::unique_ptr<ProducerIdManager>> ProducerIdManager::Open(Env* env, std::string path) {
  int64_t next = 0;
  if (env->FileExists(path)) {
    SEGLOG_ASSIGN_OR_RETURN(const std::string bytes, ReadFileToString(env, path));
    SEGLOG_ASSIGN_OR_RETURN(next, Decode(path, bytes));
  }
  return std::unique_ptr<ProducerIdManager>(new ProducerIdManager(env, std::move(path), next));
}

Result<int64_t> ProducerIdManager::NextProducerId() {
  MutexLock l(&mu_);
  if (next_id_ == block_end_) {
    if (block_end_ > INT64_MAX - pb::kBlockSize) {
      return Status::OutOfRange("producer ids exhausted");
    }
    // Invariant: a block is durable before any id in it is handed out.
    const int64_t end = block_end_ + pb::kBlockSize;
    SEGLOG_RETURN_IF_ERROR(WriteFileAtomically(env_, path_, Encode(end)));
    block_end_ = end;
  }
  return next_id_++;
}

}  // namespace seglog
