// TimeIndex: the sparse map from timestamp to offset of one segment (<base>.timeindex).
//
//   +0                      +8                         +12
//   | timestamp int64 BE    | relativeOffset int32 BE  |   ... repeated, no header
//
// An entry (T, O) says: T is the largest timestamp in the segment up to and including the batch
// whose last offset is O. Timestamps strictly increase; offsets never decrease. One slot is kept
// free for the entry written when the segment rolls or closes, so IsFull() is one entry early.
// Spec: docs/format/time_index.md; Kafka: TimeIndex.java.
//
// Thread safety: see MappedIndex (one writer, concurrent readers).
#ifndef SEGLOG_INDEX_TIME_INDEX_H_
#define SEGLOG_INDEX_TIME_INDEX_H_

#include <cstdint>
#include <memory>
#include <string>

#include "index/mapped_index.h"

namespace seglog {

struct TimestampOffset {
  int64_t timestamp = -1;
  int64_t offset = 0;
  bool operator==(const TimestampOffset&) const = default;
};

class TimeIndex final : public MappedIndex {
 public:
  static constexpr size_t kEntrySize = 12;

  // All its I/O goes through `env`.
  static Result<std::unique_ptr<TimeIndex>> Open(Env* env, const std::string& path,
                                                 int64_t base_offset, int64_t max_index_size,
                                                 bool writable = true);

  bool IsFull() const override { return entries() >= max_entries() - 1; }

  // Appends (timestamp, offset) only if the timestamp is above the last entry's (for an empty
  // index, above -1). InvalidArgument when full (unless skip_full_check), when the offset goes
  // backwards, or when the timestamp does.
  Status MaybeAppend(int64_t timestamp, int64_t offset, bool skip_full_check = false)
      EXCLUDES(remap_mu_);
  // The entry with the largest timestamp <= target; (-1, base offset) when there is none.
  TimestampOffset Lookup(int64_t target_timestamp) const EXCLUDES(remap_mu_);
  // The entry at `slot`; (-1, base offset) when there is none there (a slot outside
  // [0, entries()), or an index closed or deleted meanwhile).
  TimestampOffset EntryAt(int slot) const EXCLUDES(remap_mu_);
  // The last entry, or (-1, base offset) when empty.
  TimestampOffset LastEntry() const EXCLUDES(remap_mu_);
  // Removes entries for offsets >= `offset`.
  Status TruncateTo(int64_t offset) EXCLUDES(remap_mu_);
  // Kafka's sanityCheck.
  Status SanityCheck() const EXCLUDES(remap_mu_);

 private:
  using MappedIndex::MappedIndex;
  TimestampOffset Parse(int slot) const REQUIRES_SHARED(remap_mu_);
  TimestampOffset LastEntryLocked() const REQUIRES_SHARED(remap_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_INDEX_TIME_INDEX_H_
