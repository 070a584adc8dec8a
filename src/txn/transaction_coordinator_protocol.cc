// TransactionCoordinator::Core's transaction protocol: InitProducerId, AddPartitionsToTxn,
// the verification of a transactional produce, EndTxn, and the epoch bumps of fencing and
// KIP-890 part 2; see transaction_coordinator_core.h. The rules are Kafka 4.4.0's
// TransactionCoordinator / TransactionMetadata (docs/design/transaction_coordinator_facts.md
// names the sections).
#include <fmt/format.h>

#include "protocol/kafka_error.h"
#include "txn/transaction_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::Core::InitProducerId(
    const std::string& id, int32_t timeout_ms, int64_t expected_pid, int16_t expected_epoch) {
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

int16_t TransactionCoordinator::Core::AddPartitions(const std::string& id, int64_t pid,
                                                    int16_t epoch,
                                                    const std::vector<TopicPartition>& partitions,
                                                    int16_t client_tv) {
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

TransactionCoordinator::Verification TransactionCoordinator::Core::VerifyPartitions(
    const std::string& id, int64_t pid, int16_t epoch,
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

TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::Core::EndTxn(
    const std::string& id, int64_t pid, int16_t epoch, bool commit, int16_t client_tv) {
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

int16_t TransactionCoordinator::Core::PrepareFencedAbort(TransactionMetadata& next,
                                                         const TransactionMetadata& m,
                                                         int64_t now) {
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

int16_t TransactionCoordinator::Core::BumpForTv2(TransactionMetadata& next,
                                                 const TransactionMetadata& m) {
  if (m.producer_epoch < kMaxEpoch) next.producer_epoch = m.producer_epoch + 1;
  next.last_producer_epoch = m.producer_epoch;
  if (m.producer_epoch >= kExhaustedProducerEpoch) {
    Result<int64_t> pid = logs_->NextProducerId();
    if (!pid.ok()) return ke::kCoordinatorNotAvailable;
    next.next_producer_id = *pid;
  }
  return ke::kNone;
}

}  // namespace seglog
