// TransactionCoordinator::Core's markers and sweeps: the COMMIT/ABORT markers of a prepared
// transaction and its Complete record, their retries, the abort of timed-out transactions and
// the removal of expired transactional ids; see transaction_coordinator_core.h.
#include <fmt/format.h>

#include "protocol/kafka_error.h"
#include "txn/transaction_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

void TransactionCoordinator::Core::WriteMarkersAndComplete(Shard& s, const std::string& id) {
  std::shared_ptr<MarkerWriter> writer;
  {
    MutexLock l(&writer_mu_);
    writer = writer_;
  }
  TransactionPartitions to_write;
  int64_t pid = -1;
  int16_t epoch = -1;
  bool commit = false;
  int32_t coordinator_epoch = 0;
  {
    MutexLock l(&s.mu);
    // Kafka's coordinator epoch: the leader epoch of the __transaction_state partition, which
    // the partitions' producer state compares markers against.
    if (s.log != nullptr) coordinator_epoch = s.log->leader_epoch();
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
    const int16_t code = (*writer)(tp, pid, epoch, coordinator_epoch, commit, scheduler_->NowMs());
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

void TransactionCoordinator::Core::RetryPendingMarkers() {
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

void TransactionCoordinator::Core::AbortTimedOutTransactions() {
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

void TransactionCoordinator::Core::RemoveExpiredTransactionalIds() {
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

}  // namespace seglog
