// OffsetIndex; see offset_index.h.
#include "index/offset_index.h"

#include <fmt/format.h>

#include "base/coding.h"

namespace seglog {

Result<std::unique_ptr<OffsetIndex>> OffsetIndex::Open(Env* env, const std::string& path,
                                                       int64_t base_offset, int64_t max_index_size,
                                                       bool writable) {
  std::unique_ptr<OffsetIndex> index(new OffsetIndex(env, base_offset, max_index_size, kEntrySize));
  SEGLOG_RETURN_IF_ERROR(index->Init(path, writable));
  return index;
}

Result<OffsetPosition> OffsetIndex::ReadLastEntry(Env* env, const std::string& path,
                                                  int64_t base_offset) {
  auto file = env->OpenFile(path, File::Mode::kReadOnly);
  if (!file.ok()) {
    if (file.status().IsNotFound()) return OffsetPosition{base_offset, 0};
    return file.status();
  }
  SEGLOG_ASSIGN_OR_RETURN(const int64_t length, (*file)->Size());
  const int64_t entries = length / static_cast<int64_t>(kEntrySize);
  if (entries == 0) return OffsetPosition{base_offset, 0};
  uint8_t entry[kEntrySize];
  SEGLOG_RETURN_IF_ERROR(
      (*file)->ReadAt((entries - 1) * static_cast<int64_t>(kEntrySize), std::span(entry)));
  return OffsetPosition{base_offset + LoadBEInt32(entry), LoadBEInt32(entry + 4)};
}

OffsetPosition OffsetIndex::Parse(int slot) const {
  const uint8_t* p = EntryPtr(slot);
  return {base_offset() + LoadBEInt32(p), LoadBEInt32(p + 4)};
}

OffsetPosition OffsetIndex::Lookup(int64_t target_offset) const {
  ReaderMutexLock l(&remap_mu_);
  if (!CheckOpen().ok()) return {base_offset(), 0};
  const int slot =
      LargestLowerBound(entries(), target_offset,
                        [this](int i) NO_THREAD_SAFETY_ANALYSIS { return Parse(i).offset; });
  if (slot == -1) return {base_offset(), 0};
  return Parse(slot);
}

std::optional<OffsetPosition> OffsetIndex::FetchUpperBoundOffset(int32_t start_position,
                                                                 int32_t fetch_size) const {
  ReaderMutexLock l(&remap_mu_);
  if (!CheckOpen().ok()) return std::nullopt;
  const int64_t target = int64_t{start_position} + fetch_size;
  const int slot = SmallestUpperBound(entries(), target, [this](int i) NO_THREAD_SAFETY_ANALYSIS {
    return int64_t{Parse(i).position};
  });
  if (slot == -1) return std::nullopt;
  return Parse(slot);
}

OffsetPosition OffsetIndex::EntryAt(int slot) const {
  ReaderMutexLock l(&remap_mu_);
  // A reader of a live segment (the console) may ask after the index was closed, deleted or
  // truncated under it: no mapping to read then.
  if (slot < 0 || slot >= entries() || !CheckOpen().ok()) return {base_offset(), 0};
  return Parse(slot);
}

OffsetPosition OffsetIndex::LastEntry() const {
  ReaderMutexLock l(&remap_mu_);
  const int n = entries();
  if (n == 0 || !CheckOpen().ok()) return {base_offset(), 0};
  return Parse(n - 1);
}

Status OffsetIndex::Append(int64_t offset, int32_t position) {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const int n = entries();
  if (n >= max_entries()) {
    return Status::InvalidArgument(
        fmt::format("attempt to append to a full index (size = {}) {}", n, path_locked()));
  }
  const int64_t relative = offset - base_offset();
  if (relative < 0 || relative > INT32_MAX) {
    return Status::InvalidArgument(
        fmt::format("offset {} cannot be stored relative to base offset {} in {}", offset,
                    base_offset(), path_locked()));
  }
  if (n > 0) {
    const OffsetPosition last = Parse(n - 1);
    if (offset <= last.offset) {
      return Status::InvalidArgument(fmt::format(
          "attempt to append an offset ({}) no larger than the last offset appended ({}) to {}",
          offset, last.offset, path_locked()));
    }
  }
  uint8_t entry[kEntrySize];
  StoreBE32(entry, static_cast<uint32_t>(relative));
  StoreBE32(entry + 4, static_cast<uint32_t>(position));
  SEGLOG_RETURN_IF_ERROR(WriteEntry(n, entry));
  SetEntries(n + 1);
  return Status::OK();
}

Status OffsetIndex::TruncateTo(int64_t offset) {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  TruncateEntriesTo(offset, [this](int i) NO_THREAD_SAFETY_ANALYSIS { return Parse(i).offset; });
  return Status::OK();
}

Status OffsetIndex::SanityCheck() const {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const int n = entries();
  if (n != 0) {
    const OffsetPosition last = Parse(n - 1);
    if (last.offset < base_offset()) {
      return Status::Corruption(fmt::format(
          "Corrupt index found, index file {} has non-zero size but the last offset is {} which "
          "is less than the base offset {}",
          path_locked(), last.offset, base_offset()));
    }
  }
  if (length() % static_cast<int64_t>(kEntrySize) != 0) {
    return Status::Corruption(fmt::format(
        "Index file {} is corrupt, found {} bytes which is neither positive nor a multiple of {}",
        path_locked(), length(), kEntrySize));
  }
  return Status::OK();
}

}  // namespace seglog
