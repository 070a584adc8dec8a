// ProducerIdManager; see producer_id_manager.h.
#include "manager/producer_id_manager.h"

#include <fmt/format.h>

#include <span>

#include "base/coding.h"
#include "base/crc32c.h"
#include "io/atomic_file.h"

namespace seglog {

namespace pb = producer_id_block;

namespace {}  // namespace

std::string EncodeLegacyProducerIdFile(int64_t next_block_start) {
  std::string out(pb::kFileSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreBE16(p + pb::kVersionOffset, static_cast<uint16_t>(pb::kVersion));
  StoreBE64(p + pb::kNextBlockStartOffset, static_cast<uint64_t>(next_block_start));
  StoreBE32(p + pb::kCrcOffset, Crc32c(std::span<const uint8_t>(p, pb::kCrcOffset)));
  return out;
}

namespace {

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

Result<int64_t> ReadLegacyProducerIdFile(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(const std::string bytes, ReadFileToString(env, path));
  return Decode(path, bytes);
}

Result<int64_t> ProducerIdManager::NextProducerId() {
  MutexLock l(&mu_);
  if (next_id_ == block_end_) {
    // Invariant: a block is durable before any id in it is handed out.
    SEGLOG_ASSIGN_OR_RETURN(const int64_t start, reserve_block_());
    next_id_ = start;
    block_end_ = start + pb::kBlockSize;
  }
  return next_id_++;
}

}  // namespace seglog
