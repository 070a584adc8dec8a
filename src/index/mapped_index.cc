// MappedIndex; see mapped_index.h.
#include "index/mapped_index.h"

#include <fmt/format.h>

#include <algorithm>

namespace seglog {

MappedIndex::~MappedIndex() = default;

std::string MappedIndex::path() const {
  ReaderMutexLock l(&remap_mu_);
  return path_;
}

Status MappedIndex::CheckOpen() const {
  if (!file_) return Status::FailedPrecondition(fmt::format("index {} is closed", path_));
  return Status::OK();
}

Status MappedIndex::Init(const std::string& path, bool writable) {
  WriterMutexLock l(&remap_mu_);
  path_ = path;
  writable_ = writable;
  allocated_end_.store(0, std::memory_order_relaxed);
  bool created = false;
  if (writable) {
    auto existing = env_->OpenFile(path, File::Mode::kReadWrite);
    if (existing.ok()) {
      file_ = std::move(existing).value();
    } else if (existing.status().IsNotFound()) {
      if (max_index_size_ < static_cast<int64_t>(entry_size_)) {
        return Status::InvalidArgument(
            fmt::format("{}: invalid max index size {}", path, max_index_size_));
      }
      auto f = env_->OpenFile(path, File::Mode::kCreate);
      if (!f.ok()) return f.status();
      file_ = std::move(f).value();
      created = true;
    } else {
      return existing.status();
    }
  } else {
    auto f = env_->OpenFile(path, File::Mode::kReadOnly);
    if (!f.ok()) return f.status();
    file_ = std::move(f).value();
  }
  if (created) {
    const int64_t size =
        max_index_size_ / static_cast<int64_t>(entry_size_) * static_cast<int64_t>(entry_size_);
    SEGLOG_RETURN_IF_ERROR(file_->Truncate(size));
  }
  auto len = file_->Size();
  if (!len.ok()) return len.status();
  auto map = MappedRegion::Map(*file_, static_cast<size_t>(*len), writable);
  if (!map.ok()) return map.status();
  map_ = std::move(map).value();
  length_.store(*len, std::memory_order_release);
  const int slots = static_cast<int>(*len / static_cast<int64_t>(entry_size_));
  max_entries_.store(slots, std::memory_order_release);
  // A new file is empty; an existing one holds as many entries as its length allows.
  SetEntries(created ? 0 : slots);
  return Status::OK();
}

Status MappedIndex::WriteEntrySlow(int64_t pos, const uint8_t* entry) {
  const int64_t end = pos + static_cast<int64_t>(entry_size_);
  if (map_writes_.load(std::memory_order_relaxed)) {
    const int64_t start = pos / 4096 * 4096;
    const int64_t len = std::min(kAllocateChunk, length() - start);
    if (len >= end - start) {
      auto allocated = file_->Allocate(start, len);
      if (!allocated.ok()) return allocated.status();
      if (*allocated) {
        allocated_end_.store(start + len, std::memory_order_relaxed);
        std::memcpy(map_->data() + pos, entry, entry_size_);
        return Status::OK();
      }
      map_writes_.store(false, std::memory_order_relaxed);  // no fallocate here: pwrite only
    }
  }
  return file_->WriteAt(pos, std::span<const uint8_t>(entry, entry_size_));
}

Status MappedIndex::ResizeLocked(int64_t new_size) {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const int64_t rounded =
      new_size / static_cast<int64_t>(entry_size_) * static_cast<int64_t>(entry_size_);
  if (rounded == length()) return Status::OK();
  if (!writable_) return Status::FailedPrecondition(fmt::format("index {} is read-only", path_));
  allocated_end_.store(0, std::memory_order_relaxed);  // a regrown tail is a hole again
  map_.reset();
  SEGLOG_RETURN_IF_ERROR(file_->Truncate(rounded));
  auto map = MappedRegion::Map(*file_, static_cast<size_t>(rounded), true);
  if (!map.ok()) return map.status();
  map_ = std::move(map).value();
  length_.store(rounded, std::memory_order_release);
  const int slots = static_cast<int>(rounded / static_cast<int64_t>(entry_size_));
  max_entries_.store(slots, std::memory_order_release);
  if (entries() > slots) SetEntries(slots);
  return Status::OK();
}

Status MappedIndex::Resize(int64_t new_size) {
  WriterMutexLock l(&remap_mu_);
  return ResizeLocked(new_size);
}

Status MappedIndex::TrimToValidSize() {
  WriterMutexLock l(&remap_mu_);
  return ResizeLocked(static_cast<int64_t>(entries()) * static_cast<int64_t>(entry_size_));
}

Status MappedIndex::Reset() {
  WriterMutexLock l(&remap_mu_);
  SetEntries(0);
  SEGLOG_RETURN_IF_ERROR(ResizeLocked(0));
  return ResizeLocked(max_index_size_);
}

Status MappedIndex::Flush() {
  ReaderMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  if (!writable_) return Status::OK();
  return map_->Sync(path_);
}

Status MappedIndex::Close() {
  WriterMutexLock l(&remap_mu_);
  if (!file_) return Status::OK();
  Status s;
  if (writable_) {
    s = ResizeLocked(static_cast<int64_t>(entries()) * static_cast<int64_t>(entry_size_));
  }
  map_.reset();
  file_.reset();
  return s;
}

Status MappedIndex::RenameTo(const std::string& new_path) {
  WriterMutexLock l(&remap_mu_);
  SEGLOG_RETURN_IF_ERROR(env_->RenameFile(path_, new_path));
  path_ = new_path;
  return Status::OK();
}

Status MappedIndex::Delete() {
  WriterMutexLock l(&remap_mu_);
  map_.reset();
  file_.reset();
  return env_->RemoveFile(path_, /*missing_ok=*/true);
}

}  // namespace seglog
