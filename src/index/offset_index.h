// OffsetIndex: the sparse map from offset to .log file position of one segment (<base>.index).
//
//   +0                          +4                         +8
//   | relativeOffset int32 BE   | physicalPosition int32 BE |   ... repeated, no header
//
// relativeOffset = offset - segment base offset. An entry (O, P) says: the batch that starts at
// byte P of the .log has last offset O. Entries strictly increase in offset. Spec:
// docs/format/offset_index.md; Kafka: OffsetIndex.java.
//
// Thread safety: see MappedIndex (one writer, concurrent readers).
#ifndef SEGLOG_INDEX_OFFSET_INDEX_H_
#define SEGLOG_INDEX_OFFSET_INDEX_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "index/mapped_index.h"

namespace seglog {

struct OffsetPosition {
  int64_t offset = 0;
  int32_t position = 0;
  bool operator==(const OffsetPosition&) const = default;
};

class OffsetIndex final : public MappedIndex {
 public:
  static constexpr size_t kEntrySize = 8;

  // Opens `path`, creating it preallocated to max_index_size (rounded down to whole entries)
  // when missing and writable.
  // All its I/O goes through `env`.
  static Result<std::unique_ptr<OffsetIndex>> Open(Env* env, const std::string& path,
                                                   int64_t base_offset, int64_t max_index_size,
                                                   bool writable = true);

  // The last whole entry of the index file at `path` read with pread, without mapping it (a
  // clean open finds the log end this way); (base offset, 0) when the file is missing or empty.
  static Result<OffsetPosition> ReadLastEntry(Env* env, const std::string& path,
                                              int64_t base_offset);

  bool IsFull() const override { return entries() >= max_entries(); }

  // The entry with the largest offset <= target; (base offset, 0) when there is none.
  OffsetPosition Lookup(int64_t target_offset) const EXCLUDES(remap_mu_);
  // The first entry whose position is >= start_position + fetch_size (Kafka's
  // fetchUpperBoundOffset), if any.
  std::optional<OffsetPosition> FetchUpperBoundOffset(int32_t start_position,
                                                      int32_t fetch_size) const EXCLUDES(remap_mu_);
  // The entry at `slot`; (base offset, 0) when there is none there (a slot outside
  // [0, entries()), or an index closed or deleted meanwhile).
  OffsetPosition EntryAt(int slot) const EXCLUDES(remap_mu_);
  // The last entry, or (base offset, 0) when empty.
  OffsetPosition LastEntry() const EXCLUDES(remap_mu_);

  // Appends (offset, position). InvalidArgument when the index is full, when the offset does
  // not fit relative to the base offset, or when it is not above the last entry's offset.
  Status Append(int64_t offset, int32_t position) EXCLUDES(remap_mu_);
  // Removes the entries for offsets >= `offset` (Kafka's truncateTo).
  Status TruncateTo(int64_t offset) EXCLUDES(remap_mu_);
  // Kafka's sanityCheck: Corruption if the last offset is below the base offset or the length
  // is not a whole number of entries.
  Status SanityCheck() const EXCLUDES(remap_mu_);

 private:
  using MappedIndex::MappedIndex;
  OffsetPosition Parse(int slot) const REQUIRES_SHARED(remap_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_INDEX_OFFSET_INDEX_H_
