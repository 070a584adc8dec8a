// Loading and appending a coordinator's internal-topic partition; see coordinator_log.h.
#include "coordinator/coordinator_log.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "record/batch_walker.h"

namespace seglog {

Result<ReplayStats> ReplayCoordinatorLog(Log& log, const std::string& name, ReplayPolicy policy,
                                         const ReplayHandler& handler) {
  const bool strict = policy == ReplayPolicy::kStrict;
  ReplayStats stats;
  int64_t offset = log.log_start_offset();
  const int64_t end = log.log_end_offset();
  while (offset < end) {
    Result<FetchDataInfo> read = log.Read(offset, kCoordinatorLoadReadBytes, true);
    if (!read.ok()) return read.status().WithContext(fmt::format("at offset {}", offset));
    Result<std::vector<uint8_t>> bytes = read->slice.ReadAll();
    if (!bytes.ok()) return bytes.status().WithContext(fmt::format("at offset {}", offset));
    if (bytes->empty()) break;
    LogBatchWalker walker(*bytes);
    int64_t next = offset;
    while (walker.Next()) {
      Result<RecordBatchView> batch = RecordBatchView::Parse(walker.current_bytes());
      if (!batch.ok()) {
        if (strict) return batch.status().WithContext(fmt::format("after offset {}", next));
        break;  // the rest of what was read is not whole: the load ends below
      }
      next = batch->last_offset() + 1;
      if (batch->is_control()) {
        // Its one record is at the base offset; below `offset`, it was below the log start.
        if (handler.control && batch->base_offset() >= offset) handler.control(*batch);
        continue;
      }
      RecordIterator it(*batch);
      while (it.Next()) {
        const Record& r = it.record();
        if (r.offset < offset) continue;
        ++stats.records;
        handler.record(*batch, r);
      }
      if (!it.status().ok()) {
        if (strict) {
          return it.status().WithContext(fmt::format("batch at offset {}", batch->base_offset()));
        }
        handler.logger.Warn(fmt::format("Skipping the rest of the batch at offset {} of {}: {}",
                                        batch->base_offset(), name, it.status().ToString()));
      }
    }
    if (strict && !walker.status().ok()) {
      return walker.status().WithContext(fmt::format("after offset {}", next));
    }
    if (next <= offset) break;  // nothing whole was read: the rest is not readable
    offset = next;
  }
  stats.end_offset = offset;
  return stats;
}

Result<LogAppendInfo> AppendCoordinatorRecords(Log& log, std::span<const CoordinatorRecord> records,
                                               const CoordinatorBatch& batch) {
  BatchOptions o;
  o.base_sequence = batch.base_sequence;
  o.producer_id = batch.producer_id;
  o.producer_epoch = batch.producer_epoch;
  o.is_transactional = batch.producer_id != kNoProducerId;
  RecordBatchBuilder b(o);
  for (const CoordinatorRecord& r : records) {
    NullableBytes value;
    if (r.value) value = Bytes(*r.value);
    SEGLOG_RETURN_IF_ERROR(b.Append(batch.now_ms, Bytes(r.key), value));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, b.Build());
  return log.AppendAsLeader(bytes, Log::kCurrentLeaderEpoch, AppendOrigin::kCoordinator);
}

}  // namespace seglog
