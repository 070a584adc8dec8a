// SkimpyOffsetMap; see skimpy_offset_map.h.
#include "cleaner/skimpy_offset_map.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <random>

#include "base/coding.h"

namespace seglog {

namespace {

uint8_t* MapAnonymous(size_t length) {
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();  // as the new[] it replaces: out of memory
  (void)::madvise(p, length, MADV_HUGEPAGE);    // advice only: no huge pages is no error
  return static_cast<uint8_t*>(p);
}

}  // namespace

void SkimpyOffsetMap::Unmap::operator()(uint8_t* p) const { ::munmap(p, length); }

SkimpyOffsetMap::SkimpyOffsetMap(int64_t memory, double load_factor)
    : slots_(std::max<int64_t>(1, std::min<int64_t>(memory, INT32_MAX) / kSlotSize)),
      max_desired_(
          std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(slots_) * load_factor))),
      bytes_(MapAnonymous(static_cast<size_t>(slots_ * kSlotSize)),
             Unmap{static_cast<size_t>(slots_ * kSlotSize)}) {
  Clear();
}

SkimpyOffsetMap::~SkimpyOffsetMap() = default;

void SkimpyOffsetMap::Clear() {
  std::memset(bytes_.get(), 0, static_cast<size_t>(slots_ * kSlotSize));
  entries_ = 0;
  latest_offset_ = -1;
  // A new seed for every round: keys made to collide under one seed (to make the cleaner drop
  // a record, or to make its probes long) collide under another only by chance.
  std::random_device random;
  seed_ = (uint64_t{random()} << 32) ^ random();
}

void SkimpyOffsetMap::Hash(std::span<const uint8_t> key, uint8_t* out) const {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key.data(), key.size(), seed_);
  StoreBE64(out, h.high64);
  StoreBE64(out + 8, h.low64);
}

SkimpyOffsetMap::HashedKey SkimpyOffsetMap::HashKey(std::span<const uint8_t> key) const {
  HashedKey k;
  Hash(key, k.hash);
  return k;
}

void SkimpyOffsetMap::Prefetch(const HashedKey& key) const {
  const uint8_t* slot = bytes_.get() + PositionOf(key.hash, 0);
  __builtin_prefetch(slot);
  __builtin_prefetch(slot + kSlotSize - 1);  // a slot may straddle two cache lines
}

int64_t SkimpyOffsetMap::PositionOf(const uint8_t* hash, int64_t attempt) const {
  const int64_t window = std::min<int64_t>(attempt, kHashSize - 4);
  // Java int arithmetic: wraps around.
  const int32_t probe = static_cast<int32_t>(
      LoadBE32(hash + window) + static_cast<uint32_t>(std::max<int64_t>(0, attempt - window)));
  // Kafka's Utils.abs: |Integer.MIN_VALUE| is 0.
  const int64_t magnitude = probe == INT32_MIN ? 0 : (probe < 0 ? -int64_t{probe} : probe);
  return (magnitude % slots_) * kSlotSize;
}

bool SkimpyOffsetMap::IsEmpty(int64_t position) const {
  const uint8_t* p = bytes_.get() + position;
  for (int64_t i = 0; i < kSlotSize; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

Status SkimpyOffsetMap::Put(const HashedKey& key, int64_t offset) {
  if (entries_ >= slots_) {
    return Status::FailedPrecondition(
        fmt::format("offset map is full: {} of {} slots used", entries_, slots_));
  }
  const uint8_t* hash = key.hash;
  ++lookups_;
  for (int64_t attempt = 0;; ++attempt) {
    const int64_t pos = PositionOf(hash, attempt);
    uint8_t* slot = bytes_.get() + pos;
    if (IsEmpty(pos)) {
      std::memcpy(slot, hash, kHashSize);
      StoreBE64(slot + kHashSize, static_cast<uint64_t>(offset));
      ++entries_;
      break;
    }
    if (std::memcmp(slot, hash, kHashSize) == 0) {
      StoreBE64(slot + kHashSize, static_cast<uint64_t>(offset));
      break;
    }
    ++extra_probes_;
  }
  latest_offset_ = offset;
  return Status::OK();
}

int64_t SkimpyOffsetMap::Get(const HashedKey& key) const {
  const uint8_t* hash = key.hash;
  ++lookups_;
  for (int64_t attempt = 0; attempt < slots_ + kHashSize - 4; ++attempt) {
    const int64_t pos = PositionOf(hash, attempt);
    if (IsEmpty(pos)) return -1;
    if (std::memcmp(bytes_.get() + pos, hash, kHashSize) == 0) {
      return LoadBEInt64(bytes_.get() + pos + kHashSize);
    }
    ++extra_probes_;
  }
  return -1;
}

}  // namespace seglog
