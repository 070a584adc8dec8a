// The two things every coordinator does with a partition of its compacted internal topic: read
// it back from the log start to the end at load, handing each record (and each control batch:
// the COMMIT/ABORT markers of transactional offset commits) to the coordinator's replay, and
// append a batch of its records. Kafka: coordinator-common's CoordinatorLoaderImpl (load) and
// CoordinatorRuntime's batch builder (append); the transaction coordinator's
// TransactionStateManager does the same two things its own way.
//
// Load, batch by batch (reads of kLoadReadBytes: Kafka's offsets.load.buffer.size and
// transaction.state.log.load.buffer.size, both 5 MiB by default). A read that fails is the load's
// error; what is read is taken as far as it is whole. With ReplayPolicy::kLenient (the group and
// transaction coordinators: the groups that can be read stay available) a batch that does not
// parse ends the load there and a batch whose records do not all decode gives the ones before
// and a warning; with kStrict (__remote_log_metadata: a tiered segment must not be forgotten)
// both are the load's error.
//
// Append: the records, in order, as one batch appended as the leader with the coordinator's
// origin (AppendOrigin::kCoordinator), timestamps the caller's clock; transactional when given a
// producer (TxnOffsetCommit's records, as Kafka's runtime writes them).
//
// Thread safety: functions; the log is thread-safe, the handler is called on the caller's thread.
#ifndef SEGLOG_COORDINATOR_COORDINATOR_LOG_H_
#define SEGLOG_COORDINATOR_COORDINATOR_LOG_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "coordinator/coordinator_record.h"
#include "seglog/log.h"
#include "seglog/logger.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int32_t kCoordinatorLoadReadBytes = 5 << 20;

enum class ReplayPolicy { kLenient, kStrict };

struct ReplayHandler {
  // A record of a data batch at or above the start offset.
  std::function<void(const RecordBatchView& batch, const Record& record)> record;
  // A control batch whose base offset is at or above the start offset (optional).
  std::function<void(const RecordBatchView& batch)> control;
  // Gets the load's warnings (Kafka's WARN lines: a batch cut short); optional.
  Logger logger;
};

struct ReplayStats {
  int64_t records = 0;     // records handed to the handler
  int64_t end_offset = 0;  // the offset the load reached
};

// Replays `log` (named `name` in lines and errors, e.g. "__consumer_offsets-3") from its log
// start offset to its end offset as it was when the call began.
Result<ReplayStats> ReplayCoordinatorLog(Log& log, const std::string& name, ReplayPolicy policy,
                                         const ReplayHandler& handler);

// How a coordinator's batch is written.
struct CoordinatorBatch {
  int64_t now_ms = 0;                   // every record's timestamp
  int64_t producer_id = kNoProducerId;  // set: a transactional batch of this producer
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;  // the group coordinator's runtime writes 0
};

// Appends `records` as one batch. REQUIRES: !records.empty().
Result<LogAppendInfo> AppendCoordinatorRecords(Log& log, std::span<const CoordinatorRecord> records,
                                               const CoordinatorBatch& batch);

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_COORDINATOR_LOG_H_
