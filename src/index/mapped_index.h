// MappedIndex: what the offset index and the time index share (Kafka's AbstractIndex). An index
// is a file of fixed-size big-endian entries with no header, memory-mapped whole:
//
//   - A new file is preallocated to segment.index.bytes rounded down to whole entries (zeros).
//   - Opening an existing file never changes its length; the entry count is length / entry
//     size. There is no scan for a zero tail: an untrimmed file after a crash reads as full,
//     and recovery rebuilds it (as Kafka does).
//   - TrimToValidSize() cuts the file to the entries written (at roll and close); Resize()
//     grows the active segment's index back to its maximum after load.
//   - Lookups search the "warm" last 8 KiB of entries first, then the rest, so that the pages
//     that lookups of recent offsets touch stay the same as the index grows.
//
// Thread safety: one writer (the log's appender, or the thread that rolls/closes) and any
// number of concurrent readers. Readers take the shared side of remap_mu_ only while they read
// the mapping; remapping (Resize, Trim, Close, Rename) takes the exclusive side. The entry
// count is published with release/acquire ordering after the entry bytes are written.
// All its I/O goes through the Env it was opened with.
#ifndef SEGLOG_INDEX_MAPPED_INDEX_H_
#define SEGLOG_INDEX_MAPPED_INDEX_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "io/env.h"
#include "io/file.h"
#include "seglog/result.h"

namespace seglog {

class MappedIndex {
 public:
  virtual ~MappedIndex();
  MappedIndex(const MappedIndex&) = delete;
  MappedIndex& operator=(const MappedIndex&) = delete;

  std::string path() const EXCLUDES(remap_mu_);
  int64_t base_offset() const { return base_offset_; }
  int entries() const { return entries_.load(std::memory_order_acquire); }
  int max_entries() const { return max_entries_.load(std::memory_order_acquire); }
  // Length of the file (and of the mapping) in bytes.
  int64_t length() const { return length_.load(std::memory_order_acquire); }
  int64_t max_index_size() const { return max_index_size_; }
  size_t entry_size() const { return entry_size_; }
  virtual bool IsFull() const = 0;

  // Sets the file length to `new_size` rounded down to whole entries and remaps; the entry
  // count is kept (capped at the new maximum, where Kafka would throw). No-op when the length is
  // unchanged.
  Status Resize(int64_t new_size) EXCLUDES(remap_mu_);
  // Forgets entries past the first `n` (Kafka's truncateToEntries). REQUIRES: n <= entries().
  void TruncateToEntries(int n) { SetEntries(std::min(n, entries())); }
  // Cuts the file to the entries written.
  Status TrimToValidSize() EXCLUDES(remap_mu_);
  // Empties the index and grows it back to max_index_size (zero-filled; Kafka leaves the old
  // bytes in place, which no reader looks at).
  Status Reset() EXCLUDES(remap_mu_);
  // msync of the mapping.
  Status Flush() EXCLUDES(remap_mu_);
  // Trims (when writable), unmaps and closes the file. Further use is an error.
  Status Close() EXCLUDES(remap_mu_);
  // Renames the file (the mapping stays valid).
  Status RenameTo(const std::string& new_path) EXCLUDES(remap_mu_);
  // Removes the file (closing it first).
  Status Delete() EXCLUDES(remap_mu_);

 protected:
  MappedIndex(Env* env, int64_t base_offset, int64_t max_index_size, size_t entry_size)
      : env_(env),
        base_offset_(base_offset),
        max_index_size_(max_index_size),
        entry_size_(entry_size) {}

  // Opens or creates (preallocated) the file and maps it.
  Status Init(const std::string& path, bool writable) EXCLUDES(remap_mu_);

  // Slot of the largest entry whose key (KeyAt) is <= target, or -1. `key_at(i)` reads slot i.
  // REQUIRES: remap_mu_ held (shared).
  template <typename KeyAt>
  int LargestLowerBound(int n, int64_t target, KeyAt key_at) const;
  // Slot of the smallest entry whose key is >= target, or -1 (with Kafka's quirk, see below).
  template <typename KeyAt>
  int SmallestUpperBound(int n, int64_t target, KeyAt key_at) const;
  template <typename KeyAt>
  int SearchSlot(int n, int64_t target, KeyAt key_at, bool smallest_upper) const;

  // Kafka's truncateTo: keeps the entries for offsets below `offset` (the entry equal to it goes
  // too). `offset_at(i)` reads slot i's offset.
  template <typename OffsetAt>
  void TruncateEntriesTo(int64_t offset, OffsetAt offset_at) REQUIRES_SHARED(remap_mu_) {
    const int slot = LargestLowerBound(entries(), offset, offset_at);
    const int keep = slot < 0 ? 0 : (offset_at(slot) == offset ? slot : slot + 1);
    SetEntries(keep);
  }

  const uint8_t* EntryPtr(int slot) const REQUIRES_SHARED(remap_mu_) {
    return map_->data() + static_cast<size_t>(slot) * entry_size_;
  }
  // Writes one entry. A store into the map of a hole in the preallocated, sparse file would
  // raise SIGBUS on a full disk, so entries go into the map only below allocated_end_: the file
  // is given disk blocks (fallocate) ahead of the entries, kAllocateChunk bytes at a time, and
  // that call is where a full disk shows up, as an error naming the file. Where the file system
  // has no fallocate, each entry is written with pwrite instead (which returns ENOSPC). A
  // profile of appends of 16 KiB batches put the two pwrites per batch (offset and time index)
  // at a sixth of the append's kernel time; this costs one fallocate per 64 KiB of entries.
  Status WriteEntry(int slot, const uint8_t* entry) REQUIRES_SHARED(remap_mu_) {
    const int64_t pos = static_cast<int64_t>(slot) * static_cast<int64_t>(entry_size_);
    if (pos + static_cast<int64_t>(entry_size_) > allocated_end_.load(std::memory_order_relaxed)) {
      return WriteEntrySlow(pos, entry);
    }
    std::memcpy(map_->data() + pos, entry, entry_size_);
    return Status::OK();
  }
  Status WriteEntrySlow(int64_t pos, const uint8_t* entry) REQUIRES_SHARED(remap_mu_);
  const std::string& path_locked() const REQUIRES_SHARED(remap_mu_) { return path_; }
  void SetEntries(int n) { entries_.store(n, std::memory_order_release); }
  bool writable() const { return writable_; }
  Status CheckOpen() const REQUIRES_SHARED(remap_mu_);

  mutable SharedMutex remap_mu_;

 private:
  Status ResizeLocked(int64_t new_size) REQUIRES(remap_mu_);

  Env* const env_;  // all the index's I/O
  const int64_t base_offset_;
  const int64_t max_index_size_;
  const size_t entry_size_;
  bool writable_ = false;
  std::string path_ GUARDED_BY(remap_mu_);
  std::unique_ptr<File> file_ GUARDED_BY(remap_mu_);
  std::unique_ptr<MappedRegion> map_ GUARDED_BY(remap_mu_);
  std::atomic<int> entries_{0};
  std::atomic<int> max_entries_{0};
  std::atomic<int64_t> length_{0};
  // Bytes from the start of the file known to have disk blocks (reset to 0 by every resize),
  // and whether the file system can allocate them (else entries are written with pwrite).
  // Written by the one writer under the shared side of remap_mu_, or under the exclusive side.
  static constexpr int64_t kAllocateChunk = 64 * 1024;
  std::atomic<int64_t> allocated_end_{0};
  std::atomic<bool> map_writes_{true};
};

// Warm-section binary search (Kafka's AbstractIndex.indexSlotRangeFor).
inline constexpr int kWarmSectionBytes = 8192;

// Kafka's AbstractIndex.indexSlotRangeFor with its binary search, step for step, including its
// quirks (an exact match is only noticed inside the search loop, so for the smallest upper bound
// a target equal to the first entry of a one-range search returns the slot after it).
template <typename KeyAt>
int MappedIndex::SearchSlot(int n, int64_t target, KeyAt key_at, bool smallest_upper) const {
  if (n == 0) return -1;
  auto search = [&](int lo, int hi) {
    while (lo < hi) {
      const int mid =
          static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi) + 1) >> 1);
      const int64_t k = key_at(mid);
      if (k > target) {
        hi = mid - 1;
      } else if (k < target) {
        lo = mid;
      } else {
        return mid;
      }
    }
    if (!smallest_upper) return lo;
    return lo == n - 1 ? -1 : lo + 1;
  };
  const int warm = kWarmSectionBytes / static_cast<int>(entry_size_);
  const int first_hot = std::max(0, n - 1 - warm);
  if (key_at(first_hot) < target) return search(first_hot, n - 1);
  if (key_at(0) > target) return smallest_upper ? 0 : -1;
  return search(0, first_hot);
}

template <typename KeyAt>
int MappedIndex::LargestLowerBound(int n, int64_t target, KeyAt key_at) const {
  return SearchSlot(n, target, key_at, /*smallest_upper=*/false);
}

template <typename KeyAt>
int MappedIndex::SmallestUpperBound(int n, int64_t target, KeyAt key_at) const {
  return SearchSlot(n, target, key_at, /*smallest_upper=*/true);
}

}  // namespace seglog

#endif  // SEGLOG_INDEX_MAPPED_INDEX_H_
