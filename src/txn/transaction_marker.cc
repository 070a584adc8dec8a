// Transaction markers; see transaction_marker.h.
#include "txn/transaction_marker.h"

#include "protocol/kafka_error.h"
#include "seglog/record_batch.h"

namespace seglog {

Result<std::vector<uint8_t>> BuildTransactionMarkerBatch(int64_t producer_id,
                                                         int16_t producer_epoch,
                                                         int32_t coordinator_epoch, bool commit,
                                                         int64_t timestamp_ms) {
  BatchOptions o;
  o.producer_id = producer_id;
  o.producer_epoch = producer_epoch;
  o.is_transactional = true;
  o.is_control = true;
  RecordBatchBuilder b(o);
  SEGLOG_RETURN_IF_ERROR(
      b.AppendEndTxnMarker(commit ? ControlRecordType::kCommit : ControlRecordType::kAbort,
                           coordinator_epoch, timestamp_ms));
  return b.Build();
}

int16_t WriteTransactionMarker(Log& log, int64_t producer_id, int16_t producer_epoch,
                               int32_t coordinator_epoch, bool commit, int64_t timestamp_ms) {
  Result<std::vector<uint8_t>> batch = BuildTransactionMarkerBatch(
      producer_id, producer_epoch, coordinator_epoch, commit, timestamp_ms);
  if (!batch.ok()) return kafka_error::kUnknownServerError;
  Result<LogAppendInfo> info =
      log.AppendAsLeader(*batch, Log::kCurrentLeaderEpoch, AppendOrigin::kCoordinator);
  if (!info.ok()) return kafka_error::FromStatus(info.status());
  return kafka_error::kNone;
}

}  // namespace seglog
