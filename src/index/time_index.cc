// TimeIndex; see time_index.h.
#include "index/time_index.h"

#include <fmt/format.h>

#include "base/coding.h"

namespace seglog {

Result<std::unique_ptr<TimeIndex>> TimeIndex::Open(Env* env, const std::string& path,
                                                   int64_t base_offset, int64_t max_index_size,
                                                   bool writable) {
  std::unique_ptr<TimeIndex> index(new TimeIndex(env, base_offset, max_index_size, kEntrySize));
  SEGLOG_RETURN_IF_ERROR(index->Init(path, writable));
  return index;
}

TimestampOffset TimeIndex::Parse(int slot) const {
  const uint8_t* p = EntryPtr(slot);
  return {LoadBEInt64(p), base_offset() + LoadBEInt32(p + 8)};
}

TimestampOffset TimeIndex::LastEntryLocked() const {
  const int n = entries();
  if (n == 0 || !CheckOpen().ok()) return {-1, base_offset()};
  return Parse(n - 1);
}

TimestampOffset TimeIndex::LastEntry() const {
  ReaderMutexLock l(&remap_mu_);
  return LastEntryLocked();
}

TimestampOffset TimeIndex::EntryAt(int slot) const {
  ReaderMutexLock l(&remap_mu_);
  // See OffsetIndex::EntryAt: the index may have been closed, deleted or truncated.
  if (slot < 0 || slot >= entries() || !CheckOpen().ok()) return {-1, base_offset()};
  return Parse(slot);
}

Status TimeIndex::MaybeAppend(int64_t timestamp, int64_t offset, bool skip_full_check) {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const int n = entries();
  if (!skip_full_check && n >= max_entries() - 1) {
    return Status::InvalidArgument(
        fmt::format("attempt to append to a full time index (size = {}) {}", n, path_locked()));
  }
  const TimestampOffset last = LastEntryLocked();
  if (n != 0 && offset < last.offset) {
    return Status::InvalidArgument(fmt::format(
        "attempt to append an offset ({}) smaller than the last offset appended ({}) to {}", offset,
        last.offset, path_locked()));
  }
  if (n != 0 && timestamp < last.timestamp) {
    return Status::InvalidArgument(fmt::format(
        "attempt to append a timestamp ({}) smaller than the last timestamp appended ({}) to {}",
        timestamp, last.timestamp, path_locked()));
  }
  if (timestamp <= last.timestamp) return Status::OK();  // only strictly growing timestamps
  if (n >= max_entries()) {
    return Status::InvalidArgument(
        fmt::format("no room for the final time index entry in {}", path_locked()));
  }
  const int64_t relative = offset - base_offset();
  if (relative < 0 || relative > INT32_MAX) {
    return Status::InvalidArgument(
        fmt::format("offset {} cannot be stored relative to base offset {} in {}", offset,
                    base_offset(), path_locked()));
  }
  uint8_t entry[kEntrySize];
  StoreBE64(entry, static_cast<uint64_t>(timestamp));
  StoreBE32(entry + 8, static_cast<uint32_t>(relative));
  SEGLOG_RETURN_IF_ERROR(WriteEntry(n, entry));
  SetEntries(n + 1);
  return Status::OK();
}

TimestampOffset TimeIndex::Lookup(int64_t target_timestamp) const {
  ReaderMutexLock l(&remap_mu_);
  if (!CheckOpen().ok()) return {-1, base_offset()};
  const int slot =
      LargestLowerBound(entries(), target_timestamp,
                        [this](int i) NO_THREAD_SAFETY_ANALYSIS { return Parse(i).timestamp; });
  if (slot == -1) return {-1, base_offset()};
  return Parse(slot);
}

Status TimeIndex::TruncateTo(int64_t offset) {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  TruncateEntriesTo(offset, [this](int i) NO_THREAD_SAFETY_ANALYSIS { return Parse(i).offset; });
  return Status::OK();
}

Status TimeIndex::SanityCheck() const {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const int n = entries();
  if (n != 0) {
    const TimestampOffset last = Parse(n - 1);
    const TimestampOffset first = Parse(0);
    if (last.timestamp < first.timestamp) {
      return Status::Corruption(fmt::format(
          "Corrupt time index found, time index file ({}) has non-zero size but the last "
          "timestamp is {} which is less than the first timestamp {}",
          path_locked(), last.timestamp, first.timestamp));
    }
    if (last.offset < base_offset()) {
      return Status::Corruption(fmt::format(
          "Corrupt time index found, time index file ({}) has non-zero size but the last offset "
          "is {} which is less than the first offset {}",
          path_locked(), last.offset, base_offset()));
    }
  }
  if (length() % static_cast<int64_t>(kEntrySize) != 0) {
    return Status::Corruption(fmt::format(
        "Time index file {} is corrupt, found {} bytes which is neither positive nor a multiple "
        "of {}",
        path_locked(), length(), kEntrySize));
  }
  return Status::OK();
}

}  // namespace seglog
