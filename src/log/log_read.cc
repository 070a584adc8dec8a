// Log: the read path - reads from an offset, offset and timestamp lookups, the aborted
// transactions a read_committed fetch needs; see seglog/log.h and docs/design/log.md ("Reads").
#include "seglog/log.h"

#include <fmt/format.h>

#include "log/leader_epoch_cache.h"
#include "log/log_segment.h"
#include "log/log_state.h"
#include "log/producer_state_manager.h"

namespace seglog {

namespace {
Status OffsetOutOfRange(const std::string& dir, int64_t offset, int64_t start, int64_t end) {
  return Status::OutOfRange(fmt::format(
      "OffsetOutOfRangeException: Received request for offset {} for partition {}, but we only "
      "have log segments in the range {} to {}.",
      offset, dir, start, end));
}
}  // namespace

Result<std::vector<AbortedTransaction>> Log::CollectAbortedTransactions(int64_t start_offset,
                                                                        int64_t upper_bound) const {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  auto snapshot = state_->Snapshot();
  std::vector<AbortedTransaction> out;
  auto it = snapshot->upper_bound(start_offset);
  if (it != snapshot->begin()) --it;
  // On past the bound too: a transaction that starts below it may be aborted in a later
  // segment (an earlier open transaction held the bound back) - until an entry's LSO says
  // nothing later can matter (Kafka's completeness rule).
  for (; it != snapshot->end(); ++it) {
    SEGLOG_ASSIGN_OR_RETURN(TransactionIndex::Collected c,
                            it->second->txn_index().CollectAbortedTxns(start_offset, upper_bound));
    for (const AbortedTxn& t : c.txns) out.push_back({t.producer_id, t.first_offset});
    if (c.complete) break;
  }
  return out;
}

Result<FetchDataInfo> Log::Read(int64_t start_offset, int32_t max_bytes, bool min_one_message,
                                std::optional<int64_t> max_offset) {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  auto snapshot = state_->Snapshot();
  const int64_t end = log_end_offset();
  const int64_t start = log_start_offset();
  if (start_offset < start || start_offset > end) {
    return OffsetOutOfRange(dir_, start_offset, start, end);
  }
  // Below the first local segment, a tiered log's data is in remote storage.
  if (start_offset < snapshot->begin()->first) {
    return OffsetMovedToTieredStorage(dir_, start_offset, snapshot->begin()->first);
  }
  const int64_t bound = std::min(max_offset.value_or(high_watermark()), high_watermark());
  FetchDataInfo empty;
  empty.first_batch.base_offset = end;
  empty.first_batch.last_offset = end - 1;
  SEGLOG_ASSIGN_OR_RETURN(empty.slice.file, snapshot->rbegin()->second->log_file());
  empty.slice.position = snapshot->rbegin()->second->size();
  empty.first_batch.segment_base_offset = snapshot->rbegin()->first;
  empty.first_batch.position = empty.slice.position;
  if (start_offset >= bound) return empty;
  // The readable end: the start of the batch holding `bound` (Kafka's max offset metadata), or
  // everything when the bound is the log end offset.
  std::optional<BatchLocation> bound_loc;
  if (bound < end) {
    SEGLOG_ASSIGN_OR_RETURN(bound_loc, LookupOffset(bound));
  }
  auto it = snapshot->upper_bound(start_offset);
  if (it == snapshot->begin()) return OffsetOutOfRange(dir_, start_offset, start, end);
  --it;
  for (; it != snapshot->end(); ++it) {
    LogSegment& seg = *it->second;
    int64_t max_position = seg.size();
    if (bound_loc) {
      if (seg.base_offset() > bound_loc->segment_base_offset) break;
      if (seg.base_offset() == bound_loc->segment_base_offset) max_position = bound_loc->position;
    }
    SEGLOG_ASSIGN_OR_RETURN(std::optional<FetchDataInfo> got,
                            seg.Read(start_offset, max_bytes, max_position, min_one_message));
    if (got) return *got;
  }
  return empty;
}

Result<std::optional<BatchLocation>> Log::LookupOffset(int64_t offset) {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  auto snapshot = state_->Snapshot();
  if (offset < log_start_offset() || offset >= log_end_offset()) {
    return std::optional<BatchLocation>();
  }
  auto it = snapshot->upper_bound(offset);
  if (it == snapshot->begin()) return std::optional<BatchLocation>();
  --it;
  for (; it != snapshot->end(); ++it) {
    SEGLOG_ASSIGN_OR_RETURN(std::optional<BatchLocation> loc, it->second->TranslateOffset(offset));
    if (loc) return loc;
  }
  return std::optional<BatchLocation>();
}

Result<std::optional<TimestampAndOffset>> Log::FetchOffsetByTimestamp(int64_t timestamp) {
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  auto snapshot = state_->Snapshot();
  if (timestamp == kEarliestTimestamp) {
    return std::optional<TimestampAndOffset>(
        TimestampAndOffset{kNoTimestamp, log_start_offset(), {}});
  }
  if (timestamp == kLatestTimestamp) {
    return std::optional<TimestampAndOffset>(
        TimestampAndOffset{kNoTimestamp, log_end_offset(), {}});
  }
  if (timestamp == kEarliestLocalTimestamp) {
    const int64_t local_start = local_log_start_offset();
    return std::optional<TimestampAndOffset>(
        TimestampAndOffset{kNoTimestamp, local_start, EpochForOffset(local_start)});
  }
  if (timestamp == kLatestTieredTimestamp) {
    const int64_t highest = highest_offset_in_remote_storage();
    return std::optional<TimestampAndOffset>(TimestampAndOffset{
        kNoTimestamp, highest, highest < 0 ? std::optional<int32_t>() : EpochForOffset(highest)});
  }
  if (timestamp == kMaxTimestamp) {
    std::shared_ptr<LogSegment> best;
    TimestampOffset best_max{-1, 0};
    for (const auto& [base, seg] : *snapshot) {
      SEGLOG_ASSIGN_OR_RETURN(const TimestampOffset m, seg->MaxTimestampAndOffsetSoFar());
      if (!best || m.timestamp > best_max.timestamp) {
        best = seg;
        best_max = m;
      }
    }
    if (!best || best_max.timestamp < 0) return std::optional<TimestampAndOffset>();
    SEGLOG_ASSIGN_OR_RETURN(std::optional<TimestampAndOffset> found,
                            best->FindOffsetByTimestamp(best_max.timestamp, log_start_offset()));
    return found;
  }
  if (timestamp < 0) {
    return Status::InvalidArgument(fmt::format("unsupported ListOffsets timestamp {}", timestamp));
  }
  for (const auto& [base, seg] : *snapshot) {
    SEGLOG_ASSIGN_OR_RETURN(const int64_t largest, seg->LargestTimestamp());
    if (largest >= timestamp) return seg->FindOffsetByTimestamp(timestamp, log_start_offset());
  }
  return std::optional<TimestampAndOffset>();
}

}  // namespace seglog
