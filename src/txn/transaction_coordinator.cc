// TransactionCoordinator; see transaction_coordinator.h and docs/design/transactions.md. The
// rules are Kafka 4.4.0's TransactionCoordinator / TransactionMetadata at transaction.version
// 0-1 (docs/design/transaction_coordinator_facts.md names the sections below).
#include "txn/transaction_coordinator.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>

#include "base/java_string.h"
#include "base/mutex.h"
#include "coordinator/append_error.h"
#include "coordinator/coordinator_log.h"
#include "coordinator/coordinator_shard.h"
#include "coordinator/internal_topic.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "txn/transaction_log.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
using protocol::DescribeTransactionsResponseData;
using protocol::ListTransactionsResponseData;

// The leader epoch of every __transaction_state partition on one node (see the header).
constexpr int32_t kCoordinatorEpoch = 0;
constexpr int16_t kMaxEpoch = 32767;

}  // namespace

class TransactionCoordinator::Core : public std::enable_shared_from_this<Core> {
 public:
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

  Status Open() {
    for (int32_t p = 0; p < topic_.partitions(); ++p) {
      shards_.push_back(std::make_unique<Shard>());
      shards_.back()->partition = p;
    }
    if (topic_.ready()) {
      for (auto& s : shards_) LoadShard(*s);
    }
    return Status::OK();
  }

  void Start(MarkerWriter writer) {
    {
      MutexLock l(&writer_mu_);
      writer_ = std::make_shared<MarkerWriter>(std::move(writer));
    }
    std::weak_ptr<Core> weak = weak_from_this();
    scheduler_->Schedule(
        "transaction-abort",
        [weak] {
          if (auto c = weak.lock()) {
            c->AbortTimedOutTransactions();
            c->RetryPendingMarkers();
          }
        },
        config_.abort_timed_out_transaction_cleanup_interval_ms,
        config_.abort_timed_out_transaction_cleanup_interval_ms);
    scheduler_->Schedule(
        "transactionalId-expiration",
        [weak] {
          if (auto c = weak.lock()) c->RemoveExpiredTransactionalIds();
        },
        config_.remove_expired_transaction_cleanup_interval_ms,
        config_.remove_expired_transaction_cleanup_interval_ms);
    RetryPendingMarkers();  // the transactions the load found half-completed
  }

  void Shutdown() { shut_down_.store(true); }

  Status EnsureStateTopic() {
    return topic_.Ensure([this](int32_t p, std::shared_ptr<Log> log) {
      Shard& s = *shards_[p];
      MutexLock l(&s.mu);
      s.log = std::move(log);
    });
  }

  int32_t PartitionFor(std::string_view id) const { return topic_.PartitionFor(id); }

  // ---- InitProducerId (facts §3) ----

  ProducerIdAndEpoch InitProducerId(const std::string& id, int32_t timeout_ms, int64_t expected_pid,
                                    int16_t expected_epoch) {
    auto fail = [](int16_t code) { return ProducerIdAndEpoch{code, -1, -1}; };
    if (id.empty()) return fail(ke::kInvalidRequest);
    if ((expected_pid == -1) != (expected_epoch == -1)) return fail(ke::kInvalidRequest);
    if (timeout_ms <= 0 || timeout_ms > config_.transaction_max_timeout_ms) {
      return fail(ke::kInvalidTransactionTimeout);
    }
    if (!EnsureStateTopic().ok()) return fail(ke::kCoordinatorNotAvailable);
    Shard& s = ShardFor(id);
    bool fenced_an_ongoing = false;
    ProducerIdAndEpoch answer;
    {
      MutexLock l(&s.mu);
      if (int16_t e = Unavailable(s)) return fail(e);
      if (s.in_flight.count(id) != 0) return fail(ke::kConcurrentTransactions);
      auto it = s.txns.find(id);
      TransactionMetadata m;
      if (it != s.txns.end()) {
        m = it->second;
      } else {
        Result<int64_t> pid = logs_->NextProducerId();
        if (!pid.ok()) {
          Error("Failed to allocate a producer id: " + pid.status().ToString());
          return fail(ke::kCoordinatorNotAvailable);
        }
        m.transactional_id = id;
        m.producer_id = *pid;
        m.previous_producer_id = *pid;
        m.producer_epoch = kNoProducerEpochValue;
        m.txn_timeout_ms = timeout_ms;
        m.state = TransactionState::kEmpty;
      }
      if (expected_pid != -1 && m.producer_epoch != kNoProducerEpochValue &&
          expected_pid != m.producer_id &&
          !(expected_pid == m.previous_producer_id && expected_epoch >= kExhaustedProducerEpoch)) {
        return fail(ke::kProducerFenced);
      }
      const int64_t now = scheduler_->NowMs();
      TransactionMetadata next = m;
      next.previous_producer_id = m.producer_id;
      switch (m.state) {
        case TransactionState::kPrepareCommit:
        case TransactionState::kPrepareAbort:
          return fail(ke::kConcurrentTransactions);
        case TransactionState::kOngoing: {
          // A zombie's transaction is open: fence it with a higher epoch and abort it; the
          // client is told to retry (CONCURRENT_TRANSACTIONS) and finds the abort complete.
          if (int16_t e = PrepareFencedAbort(next, m, now)) return fail(e);
          if (int16_t e = Write(s, next)) return fail(e);
          s.txns[id] = next;
          s.pending_markers[id] = next.partitions;
          s.in_flight.insert(id);
          Info(
              fmt::format("Fencing the ongoing transaction of {} (producer id {}): epoch {} and "
                          "an abort",
                          id, next.producer_id, next.producer_epoch));
          fenced_an_ongoing = true;
          break;
        }
        default: {  // Empty, CompleteCommit, CompleteAbort
          if (m.producer_epoch >= kExhaustedProducerEpoch &&
              (expected_epoch == -1 || expected_epoch == m.producer_epoch)) {
            // The epoch is used up: a new producer id, at epoch 0.
            Result<int64_t> pid = logs_->NextProducerId();
            if (!pid.ok()) return fail(ke::kCoordinatorNotAvailable);
            next.producer_id = *pid;
            next.producer_epoch = 0;
            next.last_producer_epoch =
                expected_epoch == -1 ? kNoProducerEpochValue : m.producer_epoch;
          } else if (expected_epoch == -1) {
            next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
            next.last_producer_epoch = kNoProducerEpochValue;
          } else if (expected_epoch == m.producer_epoch ||
                     m.producer_epoch == kNoProducerEpochValue) {
            next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
            next.last_producer_epoch = m.producer_epoch;
          } else if (expected_epoch == m.last_producer_epoch) {
            // A retry of an InitProducerId that succeeded: the epoch it got, no new bump.
          } else {
            return fail(ke::kProducerFenced);
          }
          next.state = TransactionState::kEmpty;
          next.partitions.clear();
          next.txn_timeout_ms = timeout_ms;
          next.txn_start_timestamp_ms = -1;
          next.txn_last_update_timestamp_ms = now;
          if (int16_t e = Write(s, next)) return fail(e);
          s.txns[id] = next;
          answer = ProducerIdAndEpoch{ke::kNone, next.producer_id, next.producer_epoch};
          break;
        }
      }
    }
    if (fenced_an_ongoing) {
      WriteMarkersAndComplete(s, id);
      return fail(ke::kConcurrentTransactions);
    }
    return answer;
  }

  // ---- AddPartitionsToTxn / AddOffsetsToTxn (facts §4.1, §4.2) ----

  int16_t AddPartitions(const std::string& id, int64_t pid, int16_t epoch,
                        const std::vector<TopicPartition>& partitions, int16_t client_tv) {
    if (id.empty()) return ke::kInvalidRequest;
    if (!EnsureStateTopic().ok()) return ke::kCoordinatorNotAvailable;
    Shard& s = ShardFor(id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s)) return e;
    auto it = s.txns.find(id);
    if (it == s.txns.end()) return ke::kInvalidProducerIdMapping;
    if (s.in_flight.count(id) != 0) return ke::kConcurrentTransactions;
    const TransactionMetadata& m = it->second;
    if (pid != m.producer_id) return ke::kInvalidProducerIdMapping;
    if (epoch != m.producer_epoch) return ke::kProducerFenced;
    if (m.IsPrepare()) return ke::kConcurrentTransactions;
    bool all_in = m.state == TransactionState::kOngoing;
    for (const TopicPartition& tp : partitions) {
      if (m.partitions.count(tp) == 0) all_in = false;
    }
    if (all_in) return ke::kNone;
    TransactionMetadata next = m;
    const int64_t now = scheduler_->NowMs();
    if (m.state != TransactionState::kOngoing) next.txn_start_timestamp_ms = now;
    next.state = TransactionState::kOngoing;
    next.previous_producer_id = m.producer_id;
    next.partitions.insert(partitions.begin(), partitions.end());
    next.txn_last_update_timestamp_ms = now;
    next.client_transaction_version = client_tv;
    if (int16_t e = Write(s, next)) return e;
    it->second = std::move(next);
    return ke::kNone;
  }

  Verification VerifyPartitions(const std::string& id, int64_t pid, int16_t epoch,
                                const std::vector<TopicPartition>& partitions) {
    Verification v;
    if (id.empty()) {
      v.error_code = ke::kInvalidRequest;
      return v;
    }
    if (!topic_.ready()) {
      v.error_code = ke::kInvalidProducerIdMapping;  // no transactional id exists yet
      return v;
    }
    Shard& s = ShardFor(id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s)) {
      v.error_code = e;
      return v;
    }
    auto it = s.txns.find(id);
    if (it == s.txns.end() || it->second.producer_id != pid) {
      v.error_code = ke::kInvalidProducerIdMapping;
      return v;
    }
    const TransactionMetadata& m = it->second;
    if (m.producer_epoch != epoch) {
      v.error_code = ke::kProducerFenced;
      return v;
    }
    if (m.IsPrepare()) {
      v.error_code = ke::kConcurrentTransactions;
      return v;
    }
    for (const TopicPartition& tp : partitions) {
      const bool in = m.state == TransactionState::kOngoing && m.partitions.count(tp) != 0;
      v.partition_errors.push_back(in ? ke::kNone : ke::kTransactionAbortable);
    }
    return v;
  }

  // ---- EndTxn (facts §4.4, the TV<2 path) ----

  ProducerIdAndEpoch EndTxn(const std::string& id, int64_t pid, int16_t epoch, bool commit,
                            int16_t client_tv) {
    auto fail = [](int16_t code) { return ProducerIdAndEpoch{code, -1, -1}; };
    if (id.empty()) return fail(ke::kInvalidRequest);
    if (!EnsureStateTopic().ok()) return fail(ke::kCoordinatorNotAvailable);
    const bool tv2 = client_tv >= 2;
    Shard& s = ShardFor(id);
    {
      MutexLock l(&s.mu);
      if (int16_t e = Unavailable(s)) return fail(e);
      auto it = s.txns.find(id);
      if (it == s.txns.end()) return fail(ke::kInvalidProducerIdMapping);
      const TransactionMetadata& m = it->second;
      // What a TV2 answer that changes nothing carries: the producer id and epoch to use.
      const ProducerIdAndEpoch done{ke::kNone, tv2 ? m.producer_id : -1,
                                    tv2 ? m.producer_epoch : int16_t{-1}};
      bool retry = false;  // TV2: a retry of an EndTxn whose bump the client did not see
      if (!tv2) {
        if (pid != m.producer_id) return fail(ke::kInvalidProducerIdMapping);
        if (epoch != m.producer_epoch) return fail(ke::kProducerFenced);
        if (s.in_flight.count(id) != 0) return fail(ke::kConcurrentTransactions);
      } else {
        const bool retry_on_bump = epoch + 1 == m.producer_epoch;
        const bool retry_on_overflow = m.previous_producer_id == pid &&
                                       epoch == kExhaustedProducerEpoch && m.producer_epoch == 0;
        if (s.in_flight.count(id) != 0) return fail(ke::kConcurrentTransactions);
        if (pid != m.producer_id && !retry_on_overflow) {
          return fail(ke::kInvalidProducerIdMapping);
        }
        bool valid = false;
        switch (m.state) {
          case TransactionState::kOngoing:
          case TransactionState::kEmpty:
            valid = epoch == m.producer_epoch && pid == m.producer_id;
            break;
          case TransactionState::kPrepareCommit:
          case TransactionState::kPrepareAbort:
            valid = retry_on_bump;
            break;
          default:  // CompleteCommit, CompleteAbort
            valid = retry_on_bump || retry_on_overflow || epoch == m.producer_epoch;
            break;
        }
        if (!valid) return fail(ke::kProducerFenced);
        retry = retry_on_bump || retry_on_overflow;
      }
      switch (m.state) {
        case TransactionState::kOngoing:
          break;
        case TransactionState::kEmpty:
          // TV2 may abort with nothing begun (a client that bumps its epoch this way).
          if (tv2 && !commit && !retry) break;
          return fail(tv2 && retry ? ke::kProducerFenced : ke::kInvalidTxnState);
        case TransactionState::kCompleteCommit:
        case TransactionState::kCompleteAbort: {
          const bool committed = m.state == TransactionState::kCompleteCommit;
          if (!tv2) return commit == committed ? done : fail(ke::kInvalidTxnState);
          if (retry) return commit == committed ? done : fail(ke::kInvalidTxnState);
          if (!commit) break;  // TV2: a new abort, with nothing begun
          return fail(ke::kInvalidTxnState);
        }
        case TransactionState::kPrepareCommit:
          return fail(commit ? ke::kConcurrentTransactions : ke::kInvalidTxnState);
        case TransactionState::kPrepareAbort:
          return fail(commit ? ke::kInvalidTxnState : ke::kConcurrentTransactions);
        default:
          return fail(ke::kInvalidTxnState);
      }
      TransactionMetadata next = m;
      const int64_t now = scheduler_->NowMs();
      next.state = commit ? TransactionState::kPrepareCommit : TransactionState::kPrepareAbort;
      next.previous_producer_id = m.producer_id;
      next.txn_last_update_timestamp_ms = now;
      if (tv2) {
        next.client_transaction_version = client_tv;
        if (int16_t e = BumpForTv2(next, m)) return fail(e);
        if (m.state != TransactionState::kOngoing) {
          next.partitions.clear();
          next.txn_start_timestamp_ms = now;
        }
      }
      if (int16_t e = Write(s, next)) return fail(e);
      s.pending_markers[id] = next.partitions;
      s.in_flight.insert(id);
      it->second = std::move(next);
    }
    // The decision is durable: the answer is NONE whatever happens to the markers (a failed one
    // is tried again).
    WriteMarkersAndComplete(s, id);
    if (!tv2) return ProducerIdAndEpoch{ke::kNone, -1, -1};
    // TV2's answer is the state Complete leaves (or will leave, if markers are still due).
    MutexLock l(&s.mu);
    auto it = s.txns.find(id);
    if (it == s.txns.end()) return ProducerIdAndEpoch{ke::kNone, -1, -1};
    const TransactionMetadata& m = it->second;
    if (m.IsPrepare() && m.next_producer_id != -1) {
      return ProducerIdAndEpoch{ke::kNone, m.next_producer_id, 0};
    }
    return ProducerIdAndEpoch{ke::kNone, m.producer_id, m.producer_epoch};
  }

  // Kafka's prepareFenceProducerEpoch and then its own EndTxn(ABORT) at the server's
  // transaction version: the epoch +1 fences the producer, and at version 2 the abort bumps it
  // once more. 0, or the error to answer.
  int16_t PrepareFencedAbort(TransactionMetadata& next, const TransactionMetadata& m, int64_t now) {
    next = m;
    if (m.producer_epoch < kMaxEpoch) next.producer_epoch = m.producer_epoch + 1;
    next.last_producer_epoch = kNoProducerEpochValue;
    next.previous_producer_id = m.producer_id;
    next.state = TransactionState::kPrepareAbort;
    next.txn_last_update_timestamp_ms = now;
    if (config_.transaction_version >= 2) {
      const TransactionMetadata fenced = next;
      next.client_transaction_version = config_.transaction_version;
      return BumpForTv2(next, fenced);
    }
    return ke::kNone;
  }

  // KIP-890 part 2's bump of a Prepare transition from `m`: the next epoch (not past 32767),
  // the old one remembered for retries, and a next producer id when the epoch is used up.
  // 0, or the error to answer.
  int16_t BumpForTv2(TransactionMetadata& next, const TransactionMetadata& m) {
    if (m.producer_epoch < kMaxEpoch) next.producer_epoch = m.producer_epoch + 1;
    next.last_producer_epoch = m.producer_epoch;
    if (m.producer_epoch >= kExhaustedProducerEpoch) {
      Result<int64_t> pid = logs_->NextProducerId();
      if (!pid.ok()) return ke::kCoordinatorNotAvailable;
      next.next_producer_id = *pid;
    }
    return ke::kNone;
  }

  // ---- Markers (facts §5) ----

  // REQUIRES: this thread put `id` in s.in_flight (it takes it out).
  void WriteMarkersAndComplete(Shard& s, const std::string& id) EXCLUDES(s.mu) {
    std::shared_ptr<MarkerWriter> writer;
    {
      MutexLock l(&writer_mu_);
      writer = writer_;
    }
    TransactionPartitions to_write;
    int64_t pid = -1;
    int16_t epoch = -1;
    bool commit = false;
    {
      MutexLock l(&s.mu);
      auto it = s.txns.find(id);
      if (writer == nullptr || it == s.txns.end() || !it->second.IsPrepare()) {
        s.in_flight.erase(id);
        return;
      }
      to_write = s.pending_markers[id];
      pid = it->second.producer_id;
      epoch = it->second.producer_epoch;
      commit = it->second.state == TransactionState::kPrepareCommit;
    }
    TransactionPartitions left;
    bool refused = false;
    for (const TopicPartition& tp : to_write) {
      const int16_t code =
          (*writer)(tp, pid, epoch, kCoordinatorEpoch, commit, scheduler_->NowMs());
      switch (code) {
        case ke::kNone:
          break;
        case ke::kUnknownTopicOrPartition:
          // The topic is gone (deleted while the transaction was open): nothing to mark.
          Warn(
              fmt::format("Dropping the {} marker of {} for {}: the partition no longer "
                          "exists",
                          commit ? "COMMIT" : "ABORT", id, tp.ToString()));
          break;
        case ke::kInvalidProducerEpoch:
        case ke::kTransactionCoordinatorFenced:
          refused = true;
          left.insert(tp);
          Error(
              fmt::format("The {} marker of {} (producer id {}, epoch {}) was refused by "
                          "{} with error {}; the transaction stays in its prepared state",
                          commit ? "COMMIT" : "ABORT", id, pid, epoch, tp.ToString(), code));
          break;
        default:
          left.insert(tp);
          Warn(
              fmt::format("The {} marker of {} for {} failed with error {}; it will be "
                          "retried",
                          commit ? "COMMIT" : "ABORT", id, tp.ToString(), code));
          break;
      }
    }
    MutexLock l(&s.mu);
    s.in_flight.erase(id);
    auto it = s.txns.find(id);
    if (it == s.txns.end() || !it->second.IsPrepare() || it->second.producer_epoch != epoch) {
      return;
    }
    if (refused) s.stalled.insert(id);
    if (!left.empty()) {
      s.pending_markers[id] = std::move(left);
      return;
    }
    TransactionMetadata next = it->second;
    next.state = commit ? TransactionState::kCompleteCommit : TransactionState::kCompleteAbort;
    next.previous_producer_id = it->second.producer_id;
    next.partitions.clear();
    next.txn_last_update_timestamp_ms = scheduler_->NowMs();
    if (next.next_producer_id != -1) {
      // TV2 ran out of epochs: the next transaction uses the new producer id from epoch 0 (the
      // last epoch stays the one the client saw, for its retries).
      next.producer_id = next.next_producer_id;
      next.producer_epoch = 0;
      next.next_producer_id = -1;
    }
    if (Write(s, next) != ke::kNone) {
      s.pending_markers[id].clear();  // only the Complete record is left to write
      return;
    }
    s.pending_markers.erase(id);
    it->second = std::move(next);
  }

  void RetryPendingMarkers() {
    for (auto& sp : shards_) {
      Shard& s = *sp;
      std::vector<std::string> ids;
      {
        MutexLock l(&s.mu);
        if (shut_down_.load()) return;
        for (const auto& [id, parts] : s.pending_markers) {
          if (s.in_flight.count(id) != 0 || s.stalled.count(id) != 0) continue;
          s.in_flight.insert(id);
          ids.push_back(id);
        }
      }
      for (const std::string& id : ids) WriteMarkersAndComplete(s, id);
    }
  }

  // ---- Timeouts and expiry (facts §6) ----

  void AbortTimedOutTransactions() {
    const int64_t now = scheduler_->NowMs();
    for (auto& sp : shards_) {
      Shard& s = *sp;
      std::vector<std::string> ids;
      {
        MutexLock l(&s.mu);
        if (shut_down_.load() || Unavailable(s) != ke::kNone) continue;
        for (auto& [id, m] : s.txns) {
          if (m.state != TransactionState::kOngoing || s.in_flight.count(id) != 0) continue;
          if (m.txn_start_timestamp_ms + m.txn_timeout_ms >= now) continue;
          TransactionMetadata next;
          if (PrepareFencedAbort(next, m, now) != ke::kNone) continue;
          if (Write(s, next) != ke::kNone) continue;
          Info(
              fmt::format("Aborting the transaction of {} (producer id {}) that was open for "
                          "longer than its timeout of {} ms; its producer is fenced at epoch {}",
                          id, m.producer_id, m.txn_timeout_ms, next.producer_epoch));
          s.pending_markers[id] = next.partitions;
          s.in_flight.insert(id);
          m = std::move(next);
          ids.push_back(id);
        }
      }
      for (const std::string& id : ids) WriteMarkersAndComplete(s, id);
    }
  }

  void RemoveExpiredTransactionalIds() {
    const int64_t now = scheduler_->NowMs();
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (shut_down_.load() || Unavailable(s) != ke::kNone) continue;
      for (auto it = s.txns.begin(); it != s.txns.end();) {
        const TransactionMetadata& m = it->second;
        if (!m.IsCompleteOrEmpty() || s.in_flight.count(it->first) != 0 ||
            m.txn_last_update_timestamp_ms > now - config_.transactional_id_expiration_ms) {
          ++it;
          continue;
        }
        if (AppendRecord(s, TransactionTombstone(it->first)) != ke::kNone) {
          ++it;
          continue;
        }
        Info(fmt::format("Removed the expired transactional id {} (last used at {})", it->first,
                         m.txn_last_update_timestamp_ms));
        it = s.txns.erase(it);
      }
    }
  }

  // ---- DescribeTransactions / ListTransactions (facts §7) ----

  DescribeTransactionsResponseData::TransactionState Describe(const std::string& id) {
    DescribeTransactionsResponseData::TransactionState out;
    out.transactional_id = id;
    out.producer_id = -1;
    out.producer_epoch = -1;
    out.transaction_start_time_ms = -1;
    if (id.empty()) {
      out.error_code = ke::kInvalidRequest;
      return out;
    }
    if (!topic_.ready()) {
      out.error_code = ke::kTransactionalIdNotFound;
      return out;
    }
    Shard& s = ShardFor(id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s)) {
      out.error_code = e;
      return out;
    }
    auto it = s.txns.find(id);
    if (it == s.txns.end()) {
      out.error_code = ke::kTransactionalIdNotFound;
      return out;
    }
    const TransactionMetadata& m = it->second;
    out.transaction_state = std::string(TransactionStateName(m.state));
    out.transaction_timeout_ms = m.txn_timeout_ms;
    out.transaction_start_time_ms = m.txn_start_timestamp_ms;
    out.producer_id = m.producer_id;
    out.producer_epoch = m.producer_epoch;
    // While markers are being written, the partitions still waiting for theirs.
    const TransactionPartitions* parts = &m.partitions;
    if (auto p = s.pending_markers.find(id); p != s.pending_markers.end()) parts = &p->second;
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (const TopicPartition& tp : *parts) by_topic[tp.topic].push_back(tp.partition);
    for (auto& [topic, ids] : by_topic) {
      auto& t = out.topics.emplace_back();
      t.topic = topic;
      t.partitions = std::move(ids);
    }
    return out;
  }

  ListTransactionsResponseData List(const protocol::ListTransactionsRequestData& req) {
    ListTransactionsResponseData out;
    std::set<TransactionState> states;
    for (const std::string& name : req.state_filters) {
      if (std::optional<TransactionState> st = TransactionStateFromName(name)) {
        states.insert(*st);
      } else {
        out.unknown_state_filters.push_back(name);
      }
    }
    // Unknown state names match nothing.
    if (!req.state_filters.empty() && states.empty()) return out;
    const std::set<int64_t> pids(req.producer_id_filters.begin(), req.producer_id_filters.end());
    std::unique_ptr<RE2> pattern;
    if (req.transactional_id_pattern && !req.transactional_id_pattern->empty()) {
      pattern = std::make_unique<RE2>(*req.transactional_id_pattern, RE2::Quiet);
      if (!pattern->ok()) {
        out.error_code = ke::kInvalidRegularExpression;
        return out;
      }
    }
    if (!topic_.ready()) return out;
    const int64_t now = scheduler_->NowMs();
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (int16_t e = Unavailable(s)) {
        out.error_code = e;
        out.transaction_states.clear();
        return out;
      }
      for (const auto& [id, m] : s.txns) {
        if (!states.empty() && states.count(m.state) == 0) continue;
        if (!pids.empty() && pids.count(m.producer_id) == 0) continue;
        if (req.duration_filter >= 0 && m.txn_start_timestamp_ms != -1 &&
            now - m.txn_start_timestamp_ms <= req.duration_filter) {
          continue;
        }
        if (pattern && !RE2::FullMatch(id, *pattern)) continue;
        auto& t = out.transaction_states.emplace_back();
        t.transactional_id = id;
        t.producer_id = m.producer_id;
        t.transaction_state = std::string(TransactionStateName(m.state));
      }
    }
    return out;
  }

 private:
  Shard& ShardFor(std::string_view id) { return *shards_[PartitionFor(id)]; }

  int16_t Unavailable(Shard& s) REQUIRES(s.mu) { return s.Unavailable(shut_down_.load()); }

  // Appends `m`'s record; 0 or the error to answer.
  int16_t Write(Shard& s, const TransactionMetadata& m) REQUIRES(s.mu) {
    return AppendRecord(s, TransactionRecord(m, config_.transaction_version >= 1 ? 1 : 0));
  }

  int16_t AppendRecord(Shard& s, const TransactionLogRecord& r) REQUIRES(s.mu) {
    if (s.log == nullptr) return ke::kCoordinatorNotAvailable;
    CoordinatorBatch batch;
    batch.now_ms = scheduler_->NowMs();
    Result<LogAppendInfo> info = AppendCoordinatorRecords(*s.log, {&r, 1}, batch);
    if (!info.ok()) {
      Warn(fmt::format("Failed to write a record to {}-{}: {}", kTransactionStateTopic, s.partition,
                       info.status().ToString()));
      return TransactionCoordinatorAppendError(info.status());
    }
    return ke::kNone;
  }

  void LoadShard(Shard& s) EXCLUDES(s.mu) {
    const std::string tp = fmt::format("{}-{}", kTransactionStateTopic, s.partition);
    Result<std::shared_ptr<seglog::Log>> log = logs_->GetLog({kTransactionStateTopic, s.partition});
    MutexLock l(&s.mu);
    if (!log.ok()) {
      s.failed = true;
      Error(fmt::format("Failed to load transaction metadata from {}: {}", tp,
                        log.status().ToString()));
      return;
    }
    s.log = *log;
    const auto start = std::chrono::steady_clock::now();
    ReplayHandler h;
    h.record = [&](const RecordBatchView&, const Record& r) REQUIRES(s.mu) {
      if (!r.key) {
        Warn(fmt::format("Skipping a record without a key at offset {} of {}", r.offset, tp));
        return;
      }
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      Result<LoadedTransactionRecord> rec = DecodeTransactionRecord(*r.key, value);
      if (!rec.ok()) {
        Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                         rec.status().ToString()));
        return;
      }
      if (!rec->skipped.empty()) {
        Warn(fmt::format("{} (offset {} of {})", rec->skipped, r.offset, tp));
        return;
      }
      if (rec->metadata) {
        s.txns[rec->transactional_id] = std::move(*rec->metadata);
      } else {
        s.txns.erase(rec->transactional_id);
      }
    };
    h.logger = logger_;
    Result<ReplayStats> loaded = ReplayCoordinatorLog(*s.log, tp, ReplayPolicy::kLenient, h);
    if (!loaded.ok()) {
      s.failed = true;
      Error(fmt::format("Failed to load transaction metadata from {}: {}", tp,
                        loaded.status().ToString()));
      return;
    }
    int prepared = 0;
    for (const auto& [id, m] : s.txns) {
      if (m.IsPrepare()) {
        // Its markers may not all be written: all of them again (a repeated marker is
        // harmless), then its Complete record.
        s.pending_markers[id] = m.partitions;
        ++prepared;
      }
    }
    if (loaded->records == 0) return;  // an empty partition: nothing worth a line
    Info(fmt::format(
        "Finished loading {} transaction metadata from {} in {} ms: {} records, {} "
        "transactions to complete",
        s.txns.size(), tp,
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                              start)
            .count(),
        loaded->records, prepared));
  }

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

Result<std::unique_ptr<TransactionCoordinator>> TransactionCoordinator::Open(
    const TransactionCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
    Logger logger) {
  auto core = std::make_shared<Core>(config, logs, scheduler, logger);
  SEGLOG_RETURN_IF_ERROR(core->Open());
  return std::unique_ptr<TransactionCoordinator>(new TransactionCoordinator(std::move(core)));
}

TransactionCoordinator::TransactionCoordinator(std::shared_ptr<Core> core)
    : core_(std::move(core)) {}
TransactionCoordinator::~TransactionCoordinator() { Shutdown(); }
void TransactionCoordinator::Start(MarkerWriter writer) { core_->Start(std::move(writer)); }
void TransactionCoordinator::Shutdown() { core_->Shutdown(); }
Status TransactionCoordinator::EnsureStateTopic() { return core_->EnsureStateTopic(); }
int32_t TransactionCoordinator::PartitionFor(std::string_view id) const {
  return core_->PartitionFor(id);
}
TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::InitProducerId(
    const std::string& id, int32_t timeout_ms, int64_t expected_producer_id,
    int16_t expected_epoch) {
  return core_->InitProducerId(id, timeout_ms, expected_producer_id, expected_epoch);
}
int16_t TransactionCoordinator::AddPartitions(const std::string& id, int64_t producer_id,
                                              int16_t producer_epoch,
                                              const std::vector<TopicPartition>& partitions,
                                              int16_t client_transaction_version) {
  return core_->AddPartitions(id, producer_id, producer_epoch, partitions,
                              client_transaction_version);
}
TransactionCoordinator::Verification TransactionCoordinator::VerifyPartitions(
    const std::string& id, int64_t producer_id, int16_t producer_epoch,
    const std::vector<TopicPartition>& partitions) {
  return core_->VerifyPartitions(id, producer_id, producer_epoch, partitions);
}
TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::EndTxn(
    const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit,
    int16_t client_transaction_version) {
  return core_->EndTxn(id, producer_id, producer_epoch, commit, client_transaction_version);
}
protocol::DescribeTransactionsResponseData::TransactionState TransactionCoordinator::Describe(
    const std::string& id) {
  return core_->Describe(id);
}
protocol::ListTransactionsResponseData TransactionCoordinator::List(
    const protocol::ListTransactionsRequestData& req) {
  return core_->List(req);
}
void TransactionCoordinator::AbortTimedOutTransactions() { core_->AbortTimedOutTransactions(); }
void TransactionCoordinator::RemoveExpiredTransactionalIds() {
  core_->RemoveExpiredTransactionalIds();
}
void TransactionCoordinator::RetryPendingMarkers() { core_->RetryPendingMarkers(); }

}  // namespace seglog
