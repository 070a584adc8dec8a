// __transaction_state records: Kafka's TransactionLogKey and TransactionLogValue, the only
// record type (0) of the transaction coordinator's compacted topic.
//
//   key:   int16 key version (0) | TransactionalId (int16 length + UTF-8)
//   value: int16 value version (0 or 1) | ProducerId int64 | ProducerEpoch int16 |
//          TransactionTimeoutMs int32 | TransactionStatus int8 |
//          TransactionPartitions [{Topic, [PartitionIds int32]}] (null for Empty) |
//          TransactionLastUpdateTimestampMs int64 | TransactionStartTimestampMs int64 |
//          v1 only: tagged fields 0 PreviousProducerId, 1 NextProducerId,
//          2 ClientTransactionVersion (each written only when not its default)
//   a null value: the id's tombstone (it expired).
//
// Specified in docs/format/transaction_state.md; the schemas are Kafka 4.4.0's JSON files
// (src/protocol/generated/transaction_log_{key,value}.h).
//
// Thread safety: functions of their arguments.
#ifndef SEGLOG_TXN_TRANSACTION_LOG_H_
#define SEGLOG_TXN_TRANSACTION_LOG_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/coordinator_record.h"
#include "seglog/result.h"
#include "txn/transaction_metadata.h"

namespace seglog {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

using TransactionLogRecord = CoordinatorRecord;

// The record of `m`'s state at value version `value_version` (0: TV_0; 1: TV_1 and later).
// REQUIRES: m.state is not Dead or PrepareEpochFence (those are never written).
TransactionLogRecord TransactionRecord(const TransactionMetadata& m, int16_t value_version);
TransactionLogRecord TransactionTombstone(const std::string& transactional_id);

// A record read back. `metadata` is nullopt for a tombstone; `skipped` names why a record
// of a key or value version this build does not know was ignored (Kafka logs and skips them).
struct LoadedTransactionRecord {
  std::string transactional_id;
  std::optional<TransactionMetadata> metadata;
  std::string skipped;
};
// Corruption for bytes that are not a record of a known version.
Result<LoadedTransactionRecord> DecodeTransactionRecord(
    std::span<const uint8_t> key, const std::optional<std::span<const uint8_t>>& value);

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_LOG_H_
