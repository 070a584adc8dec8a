// LogValidator: Kafka's checks of an append as leader and the offset assignment that follows
// (UnifiedLog.analyzeAndValidateRecords, then LogValidator.validateMessagesAndAssignOffsets;
// docs/design/log.md, "Appending as leader"), for v2 batches.
//
// The checks, in Kafka's order; each refusal's message begins with Kafka's exception name
// (see seglog/validation_error.h):
//   analyze, per batch:  magic 2 (InvalidRecordException); a client batch's base offset is 0
//     (InvalidRecordException); size <= max.message.bytes (RecordTooLargeException); CRC
//     (CorruptRecordException); a known codec (UnsupportedCompressionTypeException).
//   batch:  exactly one batch (InvalidRecordException); lastOffsetDelta + 1 > 0, recordsCount
//     > 0 and the two equal (InvalidRecordException); for clients also no control batch and no
//     producer id without a base sequence (InvalidRecordException).
//   records, one pass (decompressing into a per-thread buffer):  the record structure
//     (InvalidRecordException; a codec stream that fails is KafkaException, as in Kafka); then
//     per record, collected as Kafka's RecordErrors (batch index + message) and refused
//     together: a key on compacted topics, else the CreateTime window or a producer-set
//     LogAppendTime (InvalidTimestampException when any timestamp failed, else
//     InvalidRecordException), and for uncompressed batches offset deltas 0..n-1.
//   assign:  in place (base offset, partition leader epoch, timestamp type and max timestamp,
//     CRC only if those changed) when the codec stays and, for compressed batches, the offset
//     deltas are 0..n-1; otherwise rebuilt with the topic's codec, and refused when the
//     rebuilt batch exceeds max.message.bytes (RecordTooLargeException).
//
// Thread safety: immutable after construction; const methods may run on any thread.
#ifndef SEGLOG_LOG_LOG_VALIDATOR_H_
#define SEGLOG_LOG_LOG_VALIDATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/log.h"
#include "seglog/log_config.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"
#include "seglog/validation_error.h"

namespace seglog {

// What the validator made of an append (Kafka's ValidationResult plus the offsets).
struct ValidationResult {
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t max_timestamp = kNoTimestamp;
  // The broker time written as maxTimestamp, with LogAppendTime; else kNoTimestamp.
  int64_t log_append_time = kNoTimestamp;
  int32_t batch_count = 0;
  int32_t record_count = 0;
  // The batch was rebuilt (Kafka's messageSizeMaybeChanged).
  bool rebuilt = false;
};

class LogValidator {
 public:
  struct Options {
    // The partition as Kafka names it in messages ("<topic>-<partition>").
    std::string topic_partition;
    AppendOrigin origin = AppendOrigin::kClient;
    // Stamped on the written batch.
    int32_t partition_leader_epoch = kNoPartitionLeaderEpoch;
    // The broker's clock, for the CreateTime window and LogAppendTime.
    int64_t now_ms = 0;
  };

  // `config` must outlive the validator.
  LogValidator(const LogConfig& config, Options options);

  // Checks `records` (the bytes of a produce request's partition), assigns offsets from
  // `next_offset` (the log end offset) and leaves in *out the bytes to write. An empty input
  // gives an empty result. On a refusal *out is unspecified.
  Result<ValidationResult> ValidateMessagesAndAssignOffsets(Bytes records, int64_t next_offset,
                                                            std::vector<uint8_t>* out) const;

 private:
  struct Scan;
  Result<RecordBatchView> AnalyzeBatch(Bytes bytes, int64_t position) const;
  Status ValidateBatch(const RecordBatchView& batch) const;
  // The pass over the records: record checks, max timestamp, offset order; appends every
  // record to `rebuild` when set.
  Status ScanRecords(const RecordBatchView& batch, bool uncompressed, RecordBatchBuilder* rebuild,
                     Scan* scan) const;
  std::optional<std::string> TimestampError(const RecordBatchView& batch,
                                            const Record& record) const;
  BatchOptions RebuildOptions(const RecordBatchView& batch, CompressionType codec,
                              int64_t next_offset) const;
  void AssignInPlace(const RecordBatchView& batch, int64_t next_offset, int64_t max_timestamp,
                     std::vector<uint8_t>* out) const;
  Status InvalidRecord(std::string_view message) const;

  const LogConfig& config_;
  Options options_;
};

}  // namespace seglog

#endif  // SEGLOG_LOG_LOG_VALIDATOR_H_
