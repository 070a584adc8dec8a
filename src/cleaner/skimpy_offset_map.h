// SkimpyOffsetMap: the cleaner's fixed-memory map from a record key to the last offset at
// which the key appears in the dirty part of a log - Kafka's SkimpyOffsetMap
// (docs/design/cleaner.md, "The offset map") with a different hash.
//
// One preallocated buffer of 24-byte slots; a key is stored only as its 16-byte hash:
//
//   +0                               +16                  +24
//   | XXH3-128 of the key bytes (BE) | offset int64 (BE)  |   ... slots = memory / 24
//
// A slot is empty iff its 24 bytes are zero. Probe i takes a 4-byte big-endian window of the
// hash at byte min(i, 12) plus max(0, i - 12), modulo the slot count: Kafka's probe sequence.
// No allocation per key.
//
// Why XXH3-128 and not Kafka's MD5: two keys with one hash are one key to the cleaner, and
// the older record of one of them would be lost. For a 128-bit hash of good quality the chance
// that any two of n distinct keys collide is about n^2 / 2^129 - for a full default map (5
// million keys) 4e-26 per round, the same bound MD5 gives. Neither hash defends against keys
// chosen to collide (MD5 collisions are published; XXH3 is not built to resist them either),
// so a topic whose writers are adversaries is no safer with Kafka's choice; seglog seeds the
// hash afresh for every round (Clear), so keys cannot be chosen in advance to collide. XXH3-128
// hashes many times faster than MD5 (bench/cleaner_bench.cc, docs/benchmarks.md). Without
// collisions the map holds the same entries, fills at the same point and answers the same
// lookups as Kafka's, so the cleaner keeps exactly Kafka's records.
//
// Thread safety: not thread-safe; one cleaner thread owns a map.
#ifndef SEGLOG_CLEANER_SKIMPY_OFFSET_MAP_H_
#define SEGLOG_CLEANER_SKIMPY_OFFSET_MAP_H_

#include <cstdint>
#include <memory>
#include <span>

#include "seglog/result.h"

namespace seglog {

class SkimpyOffsetMap {
 public:
  static constexpr int64_t kHashSize = 16;
  static constexpr int64_t kSlotSize = kHashSize + 8;

  // `memory` bytes (at most 2^31 - 1, as Kafka's); `load_factor` is the fraction of slots that
  // may be filled (log.cleaner.io.buffer.load.factor).
  SkimpyOffsetMap(int64_t memory, double load_factor);
  ~SkimpyOffsetMap();
  SkimpyOffsetMap(const SkimpyOffsetMap&) = delete;
  SkimpyOffsetMap& operator=(const SkimpyOffsetMap&) = delete;

  // A key's 16-byte hash, as stored in its slot. Hashing first lets a caller Prefetch the
  // slots of many keys before it touches any: each first probe is a cache miss in a map of
  // 128 MiB, and a batch's misses then overlap instead of queueing.
  struct HashedKey {
    uint8_t hash[kHashSize];
  };
  HashedKey HashKey(std::span<const uint8_t> key) const;
  void Prefetch(const HashedKey& key) const;

  // Records `offset` as the latest for `key`. FailedPrecondition when every slot is taken.
  Status Put(std::span<const uint8_t> key, int64_t offset) { return Put(HashKey(key), offset); }
  Status Put(const HashedKey& key, int64_t offset);
  // The offset recorded for `key`, or -1.
  int64_t Get(std::span<const uint8_t> key) const { return Get(HashKey(key)); }
  int64_t Get(const HashedKey& key) const;
  // The last offset Put (or set by UpdateLatestOffset); -1 when empty.
  int64_t latest_offset() const { return latest_offset_; }
  void UpdateLatestOffset(int64_t offset) { latest_offset_ = offset; }

  void Clear();
  int64_t size() const { return entries_; }
  int64_t slots() const { return slots_; }
  // Kafka's maxDesiredMapSize: the cleaner stops adding keys at this many.
  int64_t max_desired_size() const { return max_desired_; }
  bool full() const { return entries_ >= max_desired_; }
  double utilization() const { return static_cast<double>(entries_) / static_cast<double>(slots_); }
  // Hash lookups (Put and Get) so far, and probes beyond the first: the map's collision rate.
  int64_t lookups() const { return lookups_; }
  int64_t extra_probes() const { return extra_probes_; }

 private:
  void Hash(std::span<const uint8_t> key, uint8_t* out) const;
  int64_t PositionOf(const uint8_t* hash, int64_t attempt) const;
  bool IsEmpty(int64_t position) const;

  const int64_t slots_;
  const int64_t max_desired_;
  // An anonymous mapping, advised to use huge pages (MADV_HUGEPAGE): with 4 KiB pages nearly
  // every lookup in 128 MiB also misses the TLB.
  struct Unmap {
    size_t length;
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t[], Unmap> bytes_;
  int64_t entries_ = 0;
  int64_t latest_offset_ = -1;
  uint64_t seed_ = 0;  // the hash's, new each round (Clear)
  mutable int64_t lookups_ = 0;
  mutable int64_t extra_probes_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_CLEANER_SKIMPY_OFFSET_MAP_H_
