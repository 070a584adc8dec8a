// TransactionCoordinator: Kafka's transaction coordinator for one node - transactional ids
// (InitProducerId with a transactional.id: epoch bumps, zombie fencing, producer id rotation),
// their transactions (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn), the COMMIT/ABORT markers
// written to every partition of a transaction, the abort of transactions left open past their
// timeout, the expiry of idle transactional ids, DescribeTransactions and ListTransactions. The
// state lives in the compacted __transaction_state topic with Kafka's TransactionLogKey/Value
// records (transaction_log.h), so a Kafka broker given the same log directory sees the same
// transactions.
//
// Protocol level: the `transaction.version` config (Kafka's finalized feature, default 2). Each
// request brings its client's version (Kafka's transactionVersionFor*: AddPartitionsToTxn v4+,
// EndTxn v5+, Produce v12+ and TxnOffsetCommit v5+ are version 2): at 2 (KIP-890 part 2) every
// EndTxn bumps the producer epoch and answers the new one, partitions are added by the produce
// itself; below 2 the epoch is bumped only by InitProducerId and by the coordinator's fencing.
// The records' value version is 1 from level 1 (0 below), as Kafka writes them.
//
// Shards: one per __transaction_state partition, chosen by Kafka's partitionFor (the Java hash
// of the id). A shard's mutex serialises its ids' transitions and the appends of their records;
// each answer is given after its record is in the log. EndTxn writes PrepareCommit or
// PrepareAbort, then - without the shard's mutex - the markers through `MarkerWriter` (the
// broker appends them to the data partitions and hands __consumer_offsets' to the group
// coordinator), then CompleteCommit or CompleteAbort; a marker that fails is tried again by the
// periodic task and at the next start, as Kafka resends the markers of a transaction found in a
// Prepare state at load. Until Complete is written, the id's requests get
// CONCURRENT_TRANSACTIONS.
//
// Coordinator epoch: the leader epoch of the transactional id's __transaction_state partition
// (Log::leader_epoch, from the metadata log), which never goes backwards across restarts or a
// Kafka broker's turn on the directory (the markers carry it; a partition refuses a marker of
// an older coordinator epoch).
//
// Thread safety: thread-safe. The marker writer is called without any of the coordinator's locks
// held.
#ifndef SEGLOG_TXN_TRANSACTION_COORDINATOR_H_
#define SEGLOG_TXN_TRANSACTION_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/generated/describe_transactions_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/scheduler.h"
#include "seglog/topic_partition.h"
#include "txn/transaction_coordinator_config.h"
#include "txn/transaction_metadata.h"

namespace seglog {

class LogManager;

class TransactionCoordinator {
 public:
  // Writes one COMMIT (commit) or ABORT marker of (producer_id, producer_epoch) with
  // `coordinator_epoch` and the coordinator's clock `timestamp_ms` to `tp`; returns Kafka's
  // error code (0: written).
  using MarkerWriter =
      std::function<int16_t(const TopicPartition& tp, int64_t producer_id, int16_t producer_epoch,
                            int32_t coordinator_epoch, bool commit, int64_t timestamp_ms)>;

  // Loads every partition of __transaction_state that exists. Markers are not written until
  // Start(). `logs` and `scheduler` must outlive the coordinator; `logger` may discard.
  static Result<std::unique_ptr<TransactionCoordinator>> Open(
      const TransactionCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
      Logger logger);
  ~TransactionCoordinator();  // Shutdown()
  TransactionCoordinator(const TransactionCoordinator&) = delete;
  TransactionCoordinator& operator=(const TransactionCoordinator&) = delete;

  // Completes the transactions the load found in PrepareCommit/PrepareAbort (their markers
  // again, then Complete*), and schedules the timeout abort and the id expiry.
  void Start(MarkerWriter writer);
  // Later requests answer NOT_COORDINATOR. Idempotent.
  void Shutdown();

  // FindCoordinator's part: creates __transaction_state if it does not exist.
  Status EnsureStateTopic();
  int32_t PartitionFor(std::string_view transactional_id) const;

  struct ProducerIdAndEpoch {
    int16_t error_code = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  // InitProducerId of a transactional id; `expected_*` are -1 unless the client sent them
  // (v3+, KIP-360).
  ProducerIdAndEpoch InitProducerId(const std::string& transactional_id, int32_t timeout_ms,
                                    int64_t expected_producer_id, int16_t expected_epoch);
  // AddPartitionsToTxn (and AddOffsetsToTxn's __consumer_offsets partition): one error for
  // all of them.
  int16_t AddPartitions(const std::string& transactional_id, int64_t producer_id,
                        int16_t producer_epoch, const std::vector<TopicPartition>& partitions,
                        int16_t client_transaction_version = 0);
  // AddPartitionsToTxn's VerifyOnly: per partition NONE if it is in the open transaction, else
  // TRANSACTION_ABORTABLE; or one error for all (the first's code, `partitions` unchanged).
  struct Verification {
    int16_t error_code = 0;
    std::vector<int16_t> partition_errors;  // parallel to the request's partitions
  };
  Verification VerifyPartitions(const std::string& transactional_id, int64_t producer_id,
                                int16_t producer_epoch,
                                const std::vector<TopicPartition>& partitions);
  // EndTxn: answered once its markers are written (or left to be retried). At client
  // transaction version 2 the answer carries the producer id and epoch to use next (the bumped
  // epoch, or a new producer id at epoch 0 when the epoch ran out); below, -1 and -1.
  ProducerIdAndEpoch EndTxn(const std::string& transactional_id, int64_t producer_id,
                            int16_t producer_epoch, bool commit,
                            int16_t client_transaction_version = 0);

  protocol::DescribeTransactionsResponseData::TransactionState Describe(
      const std::string& transactional_id);
  protocol::ListTransactionsResponseData List(const protocol::ListTransactionsRequestData& req);

  // The periodic tasks' work, as of the scheduler's clock (tests call them).
  void AbortTimedOutTransactions();
  void RemoveExpiredTransactionalIds();
  void RetryPendingMarkers();

 private:
  class Core;
  explicit TransactionCoordinator(std::shared_ptr<Core> core);
  std::shared_ptr<Core> core_;
};

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_COORDINATOR_H_
