// TransactionMetadata: what the transaction coordinator knows of one transactional id - its
// producer id and epoch, its state, the partitions of its open transaction, its timeout and
// timestamps - and the states Kafka's TransactionState names (with their ids in
// __transaction_state's records and their names in DescribeTransactions/ListTransactions).
//
//   Empty --AddPartitions--> Ongoing --EndTxn--> PrepareCommit --markers--> CompleteCommit
//                                    \--EndTxn/timeout/fence--> PrepareAbort --> CompleteAbort
//   CompleteCommit/CompleteAbort --InitProducerId--> Empty, --AddPartitions--> Ongoing
//
// Thread safety: a value type; the TransactionCoordinator's shard mutex guards the live ones.
#ifndef SEGLOG_TXN_TRANSACTION_METADATA_H_
#define SEGLOG_TXN_TRANSACTION_METADATA_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "seglog/topic_partition.h"

namespace seglog {

// Kafka's TransactionState ids (TransactionLogValue.TransactionStatus).
enum class TransactionState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// "Empty", "Ongoing", "PrepareCommit", ... (Kafka's names); "" for an id it does not know.
std::string_view TransactionStateName(TransactionState state);
// The state of a record's TransactionStatus byte; nullopt for an unknown id.
std::optional<TransactionState> TransactionStateFromId(int8_t id);
// A name as ListTransactions' StateFilters give it; nullopt for an unknown name.
std::optional<TransactionState> TransactionStateFromName(std::string_view name);

inline constexpr int16_t kNoProducerEpochValue = -1;
// Kafka keeps Short.MAX_VALUE for fencing: an epoch at or above this is exhausted.
inline constexpr int16_t kExhaustedProducerEpoch = 32766;

using TransactionPartitions = std::set<TopicPartition, TopicPartitionLess>;

struct TransactionMetadata {
  std::string transactional_id;
  int64_t producer_id = -1;
  int64_t previous_producer_id = -1;  // the id before the last transition (a rotation changes it)
  int64_t next_producer_id = -1;
  int16_t producer_epoch = kNoProducerEpochValue;
  // The epoch before the last bump (not persisted: -1 after a load), for InitProducerId's
  // retries.
  int16_t last_producer_epoch = kNoProducerEpochValue;
  int32_t txn_timeout_ms = 0;
  TransactionState state = TransactionState::kEmpty;
  TransactionPartitions partitions;
  int64_t txn_start_timestamp_ms = -1;
  int64_t txn_last_update_timestamp_ms = -1;
  int16_t client_transaction_version = 0;

  bool IsPrepare() const {
    return state == TransactionState::kPrepareCommit || state == TransactionState::kPrepareAbort;
  }
  bool IsCompleteOrEmpty() const {
    return state == TransactionState::kEmpty || state == TransactionState::kCompleteCommit ||
           state == TransactionState::kCompleteAbort;
  }
  bool operator==(const TransactionMetadata&) const = default;
};

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_METADATA_H_
