// TransactionCoordinator::Core: the transaction coordinator's state and logic behind the
// TransactionCoordinator facade (transaction_coordinator.h), one class whose member functions
// are defined by concept:
//
//   transaction_coordinator.cc           the facade, opening and loading, appends, start and
//                                        shutdown
//   transaction_coordinator_protocol.cc  InitProducerId, AddPartitionsToTxn, the verification
//                                        of a transactional produce, EndTxn, epoch bumps
//   transaction_coordinator_markers.cc   the COMMIT/ABORT markers and the Complete record,
//                                        timed-out transactions, expired transactional ids
//   transaction_coordinator_admin.cc     DescribeTransactions, ListTransactions
//
// Internal to src/txn: only those files include it.
//
// Thread safety: thread-safe. Each shard's mutex guards its transactional ids and their
// markers' progress; the topic and the shards are fixed once open; markers are written with
// no shard lock held.
#ifndef SEGLOG_TXN_TRANSACTION_COORDINATOR_CORE_H_
#define SEGLOG_TXN_TRANSACTION_COORDINATOR_CORE_H_

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "coordinator/coordinator_shard.h"
#include "coordinator/internal_topic.h"
#include "manager/log_manager.h"
#include "txn/transaction_coordinator.h"
#include "txn/transaction_log.h"

namespace seglog {

class TransactionCoordinator::Core : public std::enable_shared_from_this<Core> {
 public:
  // The highest producer epoch.
  static constexpr int16_t kMaxEpoch = 32767;

  // A partition of __transaction_state and the transactional ids it owns.
  struct Shard : CoordinatorShard {
    std::map<std::string, TransactionMetadata> txns GUARDED_BY(mu);
    // Ids in PrepareCommit/PrepareAbort whose markers are not all written: the partitions
    // still to write (empty: only the Complete record is left to write).
    std::map<std::string, TransactionPartitions> pending_markers GUARDED_BY(mu);
    // Ids a thread is writing markers for now (no other thread writes them meanwhile).
    std::set<std::string> in_flight GUARDED_BY(mu);
    // Ids whose markers a partition refused (a newer producer epoch or coordinator epoch):
    // they stay in their Prepare state until the next start tries again, as in Kafka.
    std::set<std::string> stalled GUARDED_BY(mu);
  };

  Core(const TransactionCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
       const Logger& logger)
      : config_(config),
        logs_(logs),
        scheduler_(scheduler),
        logger_(logger.WithPrefix("[TransactionCoordinator id=1] ")),
        topic_(logs,
               {kTransactionStateTopic,
                config_.transaction_state_log_num_partitions,
                {{"cleanup.policy", "compact"},
                 {"compression.type", "uncompressed"},
                 {"segment.bytes", std::to_string(config_.transaction_state_log_segment_bytes)}}},
               logger_) {}

  void Info(const std::string& line) const { logger_.Info(line); }
  void Warn(const std::string& line) const { logger_.Warn(line); }
  void Error(const std::string& line) const { logger_.Error(line); }

  Status Open();

  void Start(MarkerWriter writer);

  void Shutdown() { shut_down_.store(true); }

  Status EnsureStateTopic();

  int32_t PartitionFor(std::string_view id) const { return topic_.PartitionFor(id); }

  // ---- transaction_coordinator_protocol.cc ----
  // InitProducerId (facts §3)

  ProducerIdAndEpoch InitProducerId(const std::string& id, int32_t timeout_ms, int64_t expected_pid,
                                    int16_t expected_epoch);

  // AddPartitionsToTxn / AddOffsetsToTxn (facts §4.1, §4.2)

  int16_t AddPartitions(const std::string& id, int64_t pid, int16_t epoch,
                        const std::vector<TopicPartition>& partitions, int16_t client_tv);

  Verification VerifyPartitions(const std::string& id, int64_t pid, int16_t epoch,
                                const std::vector<TopicPartition>& partitions);

  // EndTxn (facts §4.4)

  ProducerIdAndEpoch EndTxn(const std::string& id, int64_t pid, int16_t epoch, bool commit,
                            int16_t client_tv);

  // Kafka's prepareFenceProducerEpoch and then its own EndTxn(ABORT) at the server's
  // transaction version: the epoch +1 fences the producer, and at version 2 the abort bumps it
  // once more. 0, or the error to answer.
  int16_t PrepareFencedAbort(TransactionMetadata& next, const TransactionMetadata& m, int64_t now);

  // KIP-890 part 2's bump of a Prepare transition from `m`: the next epoch (not past 32767),
  // the old one remembered for retries, and a next producer id when the epoch is used up.
  // 0, or the error to answer.
  int16_t BumpForTv2(TransactionMetadata& next, const TransactionMetadata& m);

  // ---- transaction_coordinator_markers.cc ----
  // Markers (facts §5)

  // REQUIRES: this thread put `id` in s.in_flight (it takes it out).
  void WriteMarkersAndComplete(Shard& s, const std::string& id) EXCLUDES(s.mu);

  void RetryPendingMarkers();

  // Timeouts and expiry (facts §6)

  void AbortTimedOutTransactions();

  void RemoveExpiredTransactionalIds();

  // ---- transaction_coordinator_admin.cc ----
  // DescribeTransactions / ListTransactions (facts §7)

  protocol::DescribeTransactionsResponseData::TransactionState Describe(const std::string& id);

  protocol::ListTransactionsResponseData List(const protocol::ListTransactionsRequestData& req);

 private:
  Shard& ShardFor(std::string_view id) { return *shards_[PartitionFor(id)]; }

  int16_t Unavailable(Shard& s) REQUIRES(s.mu) { return s.Unavailable(shut_down_.load()); }

  // ---- transaction_coordinator.cc ----
  // Appends `m`'s record; 0 or the error to answer.
  int16_t Write(Shard& s, const TransactionMetadata& m) REQUIRES(s.mu);

  int16_t AppendRecord(Shard& s, const TransactionLogRecord& r) REQUIRES(s.mu);

  void LoadShard(Shard& s) EXCLUDES(s.mu);

  const TransactionCoordinatorConfig config_;
  LogManager* const logs_;
  Scheduler* const scheduler_;
  const Logger logger_;  // with the coordinator's prefix
  InternalTopic topic_;
  std::vector<std::unique_ptr<Shard>> shards_;  // fixed at Open
  std::atomic<bool> shut_down_{false};
  Mutex writer_mu_;
  std::shared_ptr<MarkerWriter> writer_ GUARDED_BY(writer_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_COORDINATOR_CORE_H_
