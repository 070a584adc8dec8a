// Transaction markers: the control batch that ends a producer's transaction in a partition
// (one COMMIT or ABORT control record: docs/format/record_batch.md, "5. Control batches"), and
// its append to a data partition's log as Kafka's WriteTxnMarkers does on the partition's
// leader.
//
//   batch: producerId, producerEpoch, baseSequence -1, attributes transactional|control,
//          one record: key  = int16 version 0 | int16 type (0 ABORT, 1 COMMIT)
//                      value = int16 version 0 | int32 coordinatorEpoch
//
// Thread safety: functions of their arguments; Log appends are thread-safe.
#ifndef SEGLOG_TXN_TRANSACTION_MARKER_H_
#define SEGLOG_TXN_TRANSACTION_MARKER_H_

#include <cstdint>
#include <vector>

#include "seglog/log.h"
#include "seglog/result.h"

namespace seglog {

Result<std::vector<uint8_t>> BuildTransactionMarkerBatch(int64_t producer_id,
                                                         int16_t producer_epoch,
                                                         int32_t coordinator_epoch, bool commit,
                                                         int64_t timestamp_ms);

// Appends the marker to `log` with the coordinator's origin; Kafka's error code for the
// transaction coordinator (0; INVALID_PRODUCER_EPOCH for an older epoch;
// TRANSACTION_COORDINATOR_FENCED for an older coordinator epoch; KAFKA_STORAGE_ERROR ...).
int16_t WriteTransactionMarker(Log& log, int64_t producer_id, int16_t producer_epoch,
                               int32_t coordinator_epoch, bool commit, int64_t timestamp_ms);

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_MARKER_H_
