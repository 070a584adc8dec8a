// __transaction_state records and transaction states; see transaction_log.h and
// transaction_metadata.h.
#include "txn/transaction_log.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include "base/coding.h"
#include "protocol/generated/transaction_log_key.h"
#include "protocol/generated/transaction_log_value.h"

namespace seglog {

namespace {

constexpr const char* kStateNames[] = {"Empty",        "Ongoing",          "PrepareCommit",
                                       "PrepareAbort", "CompleteCommit",   "CompleteAbort",
                                       "Dead",         "PrepareEpochFence"};

template <typename Message>
std::vector<uint8_t> Prefixed(int16_t version, const Message& m) {
  protocol::ProtocolWriter w;
  w.WriteInt16(version);
  if (!m.Encode(&w, version).ok()) std::abort();  // the coordinator's own values always encode
  return w.bytes();
}

std::vector<uint8_t> KeyBytes(const std::string& transactional_id) {
  protocol::TransactionLogKey key;
  key.transactional_id = transactional_id;
  return Prefixed(0, key);
}

}  // namespace

std::string_view TransactionStateName(TransactionState state) {
  const auto id = static_cast<int8_t>(state);
  if (id < 0 || id > 7) return "";
  return kStateNames[id];
}

std::optional<TransactionState> TransactionStateFromId(int8_t id) {
  if (id < 0 || id > 7) return std::nullopt;
  return static_cast<TransactionState>(id);
}

std::optional<TransactionState> TransactionStateFromName(std::string_view name) {
  for (int8_t id = 0; id <= 7; ++id) {
    if (name == kStateNames[id]) return static_cast<TransactionState>(id);
  }
  return std::nullopt;
}

TransactionLogRecord TransactionRecord(const TransactionMetadata& m, int16_t value_version) {
  protocol::TransactionLogValue v;
  v.producer_id = m.producer_id;
  v.producer_epoch = m.producer_epoch;
  v.transaction_timeout_ms = m.txn_timeout_ms;
  v.transaction_status = static_cast<int8_t>(m.state);
  if (m.state == TransactionState::kEmpty) {
    v.transaction_partitions = std::nullopt;  // Kafka writes Empty without a partition list
  } else {
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (const TopicPartition& tp : m.partitions) by_topic[tp.topic].push_back(tp.partition);
    std::vector<protocol::TransactionLogValue::PartitionsSchema> parts;
    for (auto& [topic, ids] : by_topic) {
      auto& p = parts.emplace_back();
      p.topic = topic;
      p.partition_ids = std::move(ids);
    }
    v.transaction_partitions = std::move(parts);
  }
  v.transaction_last_update_timestamp_ms = m.txn_last_update_timestamp_ms;
  v.transaction_start_timestamp_ms = m.txn_start_timestamp_ms;
  if (value_version >= 1) {
    v.previous_producer_id = m.previous_producer_id;
    v.next_producer_id = m.next_producer_id;
    v.client_transaction_version = m.client_transaction_version;
  }
  return {KeyBytes(m.transactional_id), Prefixed(value_version, v)};
}

TransactionLogRecord TransactionTombstone(const std::string& transactional_id) {
  return {KeyBytes(transactional_id), std::nullopt};
}

Result<LoadedTransactionRecord> DecodeTransactionRecord(
    std::span<const uint8_t> key, const std::optional<std::span<const uint8_t>>& value) {
  if (key.size() < 2) return Status::Corruption("A __transaction_state key shorter than 2 bytes");
  LoadedTransactionRecord out;
  const int16_t key_version = LoadBEInt16(key.data());
  if (key_version != 0) {
    out.skipped = fmt::format(
        "Unknown message key version {} in the transaction log. It could be a left over from an "
        "aborted upgrade.",
        key_version);
    return out;
  }
  Result<protocol::TransactionLogKey> k = protocol::TransactionLogKey::Parse(key.subspan(2), 0);
  if (!k.ok()) return Status::Corruption("A __transaction_state key: " + k.status().ToString());
  out.transactional_id = std::move(k->transactional_id);
  if (!value) return out;  // a tombstone
  if (value->size() < 2) {
    return Status::Corruption(fmt::format(
        "The __transaction_state value of {} is shorter than 2 bytes", out.transactional_id));
  }
  const int16_t value_version = LoadBEInt16(value->data());
  if (value_version < 0 || value_version > 1) {
    out.skipped = fmt::format(
        "Unknown message value version {} in the transaction log. It could be a left over from "
        "an aborted upgrade.",
        value_version);
    return out;
  }
  Result<protocol::TransactionLogValue> v =
      protocol::TransactionLogValue::Parse(value->subspan(2), value_version);
  if (!v.ok()) {
    return Status::Corruption(fmt::format("The __transaction_state value of {}: {}",
                                          out.transactional_id, v.status().ToString()));
  }
  std::optional<TransactionState> state = TransactionStateFromId(v->transaction_status);
  if (!state || *state == TransactionState::kDead ||
      *state == TransactionState::kPrepareEpochFence) {
    return Status::Corruption(fmt::format("The __transaction_state value of {} has state id {}",
                                          out.transactional_id, v->transaction_status));
  }
  TransactionMetadata m;
  m.transactional_id = out.transactional_id;
  m.producer_id = v->producer_id;
  m.previous_producer_id = value_version >= 1 ? v->previous_producer_id : v->producer_id;
  m.next_producer_id = v->next_producer_id;
  m.producer_epoch = v->producer_epoch;
  m.txn_timeout_ms = v->transaction_timeout_ms;
  m.state = *state;
  // Empty has no partitions (Kafka never writes an Empty record with some); a record that
  // lists them anyway is read as Empty without them, so the state is one Kafka could be in.
  if (v->transaction_partitions && m.state != TransactionState::kEmpty) {
    for (const auto& p : *v->transaction_partitions) {
      for (int32_t id : p.partition_ids) m.partitions.insert(TopicPartition{p.topic, id});
    }
  }
  m.txn_last_update_timestamp_ms = v->transaction_last_update_timestamp_ms;
  m.txn_start_timestamp_ms = v->transaction_start_timestamp_ms;
  m.client_transaction_version = v->client_transaction_version;
  out.metadata = std::move(m);
  return out;
}

}  // namespace seglog
