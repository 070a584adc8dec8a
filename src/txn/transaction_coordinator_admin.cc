// TransactionCoordinator::Core's admin answers: DescribeTransactions and ListTransactions;
// see transaction_coordinator_core.h.
#include <re2/re2.h>

#include "protocol/kafka_error.h"
#include "txn/transaction_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
using protocol::DescribeTransactionsResponseData;
using protocol::ListTransactionsResponseData;
}  // namespace

DescribeTransactionsResponseData::TransactionState TransactionCoordinator::Core::Describe(
    const std::string& id) {
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

ListTransactionsResponseData TransactionCoordinator::Core::List(
    const protocol::ListTransactionsRequestData& req) {
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

}  // namespace seglog
