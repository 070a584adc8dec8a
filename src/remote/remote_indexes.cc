// RemoteIndexes; see remote_indexes.h.
#include "remote/remote_indexes.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace seglog {
namespace {

// Read-only indexes never grow, so the maximum size only has to admit the file (Kafka passes
// Integer.MAX_VALUE as well).
constexpr int64_t kReadOnlyMaxIndexSize = std::numeric_limits<int32_t>::max();

}  // namespace

std::string RemoteSegmentName(const Uuid& segment_id, int64_t start_offset) {
  return fmt::format("remote segment {} at offset {}", segment_id.ToString(), start_offset);
}

RemoteIndexes::~RemoteIndexes() = default;

Result<std::shared_ptr<RemoteIndexes>> RemoteIndexes::Open(Env* env, const RemoteIndexPaths& paths,
                                                           const SegmentBounds& bounds) {
  std::shared_ptr<RemoteIndexes> indexes(new RemoteIndexes(env, paths, bounds));
  const std::string name = RemoteSegmentName(bounds.segment_id, bounds.start_offset);
  Status s = indexes->CheckOffsetIndex();
  if (s.ok()) s = indexes->CheckTimeIndex();
  if (s.ok()) s = indexes->CheckTxnIndex();
  if (!s.ok()) return s.WithContext(name);
  return indexes;
}

Status RemoteIndexes::CheckInRange(int64_t offset, const std::string& path, int64_t position,
                                   const char* what) const {
  if (offset < bounds_.start_offset) {
    return Status::Corruption(
        fmt::format("{}: {} at byte {}: offset {} is below the segment's start offset {}", path,
                    what, position, offset, bounds_.start_offset));
  }
  if (bounds_.end_offset.has_value() && offset > *bounds_.end_offset) {
    return Status::Corruption(
        fmt::format("{}: {} at byte {}: offset {} is past the segment's end offset {}", path, what,
                    position, offset, *bounds_.end_offset));
  }
  return Status::OK();
}

Status RemoteIndexes::CheckOffsetIndex() {
  SEGLOG_ASSIGN_OR_RETURN(offset_index_,
                          OffsetIndex::Open(env_, paths_.offset_index, bounds_.start_offset,
                                            kReadOnlyMaxIndexSize, /*writable=*/false));
  SEGLOG_RETURN_IF_ERROR(offset_index_->SanityCheck());
  const int n = offset_index_->entries();
  std::optional<OffsetPosition> previous;
  for (int i = 0; i < n; ++i) {
    const OffsetPosition e = offset_index_->EntryAt(i);
    const int64_t at = int64_t{i} * static_cast<int64_t>(OffsetIndex::kEntrySize);
    SEGLOG_RETURN_IF_ERROR(CheckInRange(e.offset, paths_.offset_index, at, "entry"));
    // Invariant: offsets strictly increase, positions never decrease (OffsetIndex::Append).
    if (previous && e.offset <= previous->offset) {
      return Status::Corruption(
          fmt::format("{}: entry at byte {}: offset {} is not above the previous entry's offset {}",
                      paths_.offset_index, at, e.offset, previous->offset));
    }
    if (e.position < 0 || (previous && e.position < previous->position)) {
      return Status::Corruption(
          fmt::format("{}: entry at byte {}: position {} is below the previous entry's position {}",
                      paths_.offset_index, at, e.position, previous ? previous->position : 0));
    }
    if (bounds_.segment_size.has_value() && *bounds_.segment_size > 0 &&
        e.position >= *bounds_.segment_size) {
      return Status::Corruption(
          fmt::format("{}: entry at byte {}: position {} is past the segment's {} bytes",
                      paths_.offset_index, at, e.position, *bounds_.segment_size));
    }
    previous = e;
  }
  size_bytes_ += offset_index_->length();
  max_offset_ = std::max(bounds_.start_offset, previous ? previous->offset : bounds_.start_offset);
  max_position_ = previous ? previous->position : 0;
  return Status::OK();
}

Status RemoteIndexes::CheckTimeIndex() {
  SEGLOG_ASSIGN_OR_RETURN(time_index_,
                          TimeIndex::Open(env_, paths_.time_index, bounds_.start_offset,
                                          kReadOnlyMaxIndexSize, /*writable=*/false));
  SEGLOG_RETURN_IF_ERROR(time_index_->SanityCheck());
  const int n = time_index_->entries();
  std::optional<TimestampOffset> previous;
  for (int i = 0; i < n; ++i) {
    const TimestampOffset e = time_index_->EntryAt(i);
    const int64_t at = int64_t{i} * static_cast<int64_t>(TimeIndex::kEntrySize);
    SEGLOG_RETURN_IF_ERROR(CheckInRange(e.offset, paths_.time_index, at, "entry"));
    // Invariant: timestamps and offsets never decrease (TimeIndex::MaybeAppend).
    if (previous && (e.timestamp < previous->timestamp || e.offset < previous->offset)) {
      return Status::Corruption(fmt::format(
          "{}: entry at byte {}: (timestamp {}, offset {}) goes back from the previous entry's "
          "(timestamp {}, offset {})",
          paths_.time_index, at, e.timestamp, e.offset, previous->timestamp, previous->offset));
    }
    previous = e;
  }
  size_bytes_ += time_index_->length();
  if (previous) max_offset_ = std::max(max_offset_, previous->offset);
  return Status::OK();
}

Result<std::vector<AbortedTxn>> RemoteIndexes::PinTxnIndex() {
  // The first read opens the file and the TransactionIndex keeps the descriptor, so the
  // entries stay readable after the cache unlinks the file.
  return txn_index_->AllAbortedTxns();
}

Status RemoteIndexes::CheckTxnIndex() {
  SEGLOG_ASSIGN_OR_RETURN(const FileStat stat, env_->Stat(paths_.txn_index));
  if (stat.size % static_cast<int64_t>(kAbortedTxnSize) != 0) {
    return Status::Corruption(fmt::format(
        "{}: {} bytes is not a whole number of {}-byte aborted transaction entries "
        "(a partial entry at byte {})",
        paths_.txn_index, stat.size, kAbortedTxnSize,
        stat.size / static_cast<int64_t>(kAbortedTxnSize) * static_cast<int64_t>(kAbortedTxnSize)));
  }
  txn_index_ = std::make_unique<TransactionIndex>(env_, bounds_.start_offset, paths_.txn_index,
                                                  /*writable=*/false);
  std::optional<int64_t> next_segment_offset;
  if (bounds_.end_offset.has_value()) next_segment_offset = *bounds_.end_offset + 1;
  SEGLOG_RETURN_IF_ERROR(txn_index_->SanityCheck(next_segment_offset));
  SEGLOG_ASSIGN_OR_RETURN(const std::vector<AbortedTxn> all, PinTxnIndex());
  size_bytes_ += stat.size;
  if (!all.empty()) max_offset_ = std::max(max_offset_, all.back().last_offset);
  return Status::OK();
}

Status RemoteIndexes::RenameTo(const RemoteIndexPaths& paths) {
  SEGLOG_RETURN_IF_ERROR(offset_index_->RenameTo(paths.offset_index));
  paths_.offset_index = paths.offset_index;
  SEGLOG_RETURN_IF_ERROR(time_index_->RenameTo(paths.time_index));
  paths_.time_index = paths.time_index;
  SEGLOG_RETURN_IF_ERROR(txn_index_->RenameTo(paths.txn_index));
  paths_.txn_index = paths.txn_index;
  // TransactionIndex::RenameTo closes the descriptor; open the file under its new name.
  return PinTxnIndex().status();
}

bool RemoteIndexes::Matches(const RemoteLogSegmentMetadata& metadata) const {
  if (!(metadata.segment_id.id == bounds_.segment_id)) return false;
  if (metadata.start_offset != bounds_.start_offset) return false;
  if (max_offset_ > metadata.end_offset) return false;
  if (metadata.segment_size_in_bytes > 0 && max_position_ >= metadata.segment_size_in_bytes) {
    return false;
  }
  return true;
}

OffsetPosition RemoteIndexes::LookupOffset(int64_t target_offset) const {
  return offset_index_->Lookup(target_offset);
}

OffsetPosition RemoteIndexes::LookupTimestamp(int64_t timestamp, int64_t starting_offset) const {
  const TimestampOffset floor = time_index_->Lookup(timestamp);
  return offset_index_->Lookup(std::max(starting_offset, floor.offset));
}

TimestampOffset RemoteIndexes::LookupTimeIndex(int64_t timestamp) const {
  return time_index_->Lookup(timestamp);
}

Result<TransactionIndex::Collected> RemoteIndexes::CollectAbortedTxns(
    int64_t fetch_offset, int64_t upper_bound_offset) const {
  return txn_index_->CollectAbortedTxns(fetch_offset, upper_bound_offset);
}

}  // namespace seglog
