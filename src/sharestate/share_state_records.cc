// __share_group_state's records; see share_state_records.h.
#include "sharestate/share_state_records.h"

#include <fmt/format.h>

#include <cstdlib>

#include "base/coding.h"
#include "protocol/generated/coordinator_records.h"
#include "protocol/generated/share_snapshot_key.h"
#include "protocol/generated/share_snapshot_value.h"
#include "protocol/generated/share_update_key.h"
#include "protocol/generated/share_update_value.h"

namespace seglog {

namespace {

using protocol::ShareRecordType;

template <typename Message>
std::vector<uint8_t> Prefixed(int16_t prefix, const Message& m) {
  protocol::ProtocolWriter w;
  w.WriteInt16(prefix);
  if (!m.Encode(&w, 0).ok()) std::abort();  // the coordinator's own values always encode
  return w.bytes();
}

template <typename Key>
std::vector<uint8_t> KeyBytes(const SharePartitionKey& key) {
  Key k;
  k.group_id = key.group_id;
  k.topic_id = key.topic_id;
  k.partition = key.partition;
  return Prefixed(Key::kRecordType, k);
}

template <typename Batch>
std::vector<Batch> ToRecordBatches(const std::vector<PersisterStateBatch>& batches) {
  std::vector<Batch> out;
  out.reserve(batches.size());
  for (const PersisterStateBatch& b : batches) {
    Batch r;
    r.first_offset = b.first_offset;
    r.last_offset = b.last_offset;
    r.delivery_state = b.delivery_state;
    r.delivery_count = b.delivery_count;
    out.push_back(std::move(r));
  }
  return out;
}

template <typename Batch>
std::vector<PersisterStateBatch> FromRecordBatches(const std::vector<Batch>& batches) {
  std::vector<PersisterStateBatch> out;
  out.reserve(batches.size());
  for (const Batch& b : batches) {
    out.push_back({.first_offset = b.first_offset,
                   .last_offset = b.last_offset,
                   .delivery_state = b.delivery_state,
                   .delivery_count = b.delivery_count});
  }
  return out;
}

template <typename Key>
Result<SharePartitionKey> ParseKey(std::span<const uint8_t> body) {
  Result<Key> k = Key::Parse(body, 0);
  if (!k.ok()) return Status::Corruption("A __share_group_state key: " + k.status().ToString());
  return SharePartitionKey{
      .group_id = std::move(k->group_id), .topic_id = k->topic_id, .partition = k->partition};
}

}  // namespace

CoordinatorRecord ShareSnapshotRecord(const SharePartitionKey& key, const ShareGroupOffset& value) {
  protocol::ShareSnapshotValue v;
  v.snapshot_epoch = value.snapshot_epoch;
  v.state_epoch = value.state_epoch;
  v.leader_epoch = value.leader_epoch;
  v.start_offset = value.start_offset;
  v.delivery_complete_count = value.delivery_complete_count;
  v.create_timestamp = value.create_timestamp;
  v.write_timestamp = value.write_timestamp;
  v.state_batches = ToRecordBatches<protocol::ShareSnapshotValue::StateBatch>(value.state_batches);
  return {KeyBytes<protocol::ShareSnapshotKey>(key), Prefixed(0, v)};
}

CoordinatorRecord ShareUpdateRecord(const SharePartitionKey& key, const ShareGroupOffset& value) {
  protocol::ShareUpdateValue v;
  v.snapshot_epoch = value.snapshot_epoch;
  v.leader_epoch = value.leader_epoch;
  v.start_offset = value.start_offset;
  v.delivery_complete_count = value.delivery_complete_count;
  v.state_batches = ToRecordBatches<protocol::ShareUpdateValue::StateBatch>(value.state_batches);
  return {KeyBytes<protocol::ShareUpdateKey>(key), Prefixed(0, v)};
}

CoordinatorRecord ShareStateTombstone(const SharePartitionKey& key) {
  return {KeyBytes<protocol::ShareSnapshotKey>(key), std::nullopt};
}

Result<LoadedShareStateRecord> DecodeShareStateRecord(
    std::span<const uint8_t> key, const std::optional<std::span<const uint8_t>>& value) {
  if (key.size() < 2) return Status::Corruption("A __share_group_state key shorter than 2 bytes");
  LoadedShareStateRecord out;
  const int16_t type = LoadBEInt16(key.data());
  if (type == static_cast<int16_t>(ShareRecordType::kShareSnapshot)) {
    out.type = LoadedShareStateRecord::Type::kSnapshot;
    SEGLOG_ASSIGN_OR_RETURN(out.key, ParseKey<protocol::ShareSnapshotKey>(key.subspan(2)));
  } else if (type == static_cast<int16_t>(ShareRecordType::kShareUpdate)) {
    out.type = LoadedShareStateRecord::Type::kUpdate;
    SEGLOG_ASSIGN_OR_RETURN(out.key, ParseKey<protocol::ShareUpdateKey>(key.subspan(2)));
  } else {
    out.skipped = fmt::format("Unknown record type {} in __share_group_state: skipped", type);
    return out;
  }
  if (!value) return out;  // a tombstone
  if (value->size() < 2) {
    return Status::Corruption(fmt::format(
        "The __share_group_state value of {} is shorter than 2 bytes", out.key.CoordinatorKey()));
  }
  const int16_t version = LoadBEInt16(value->data());
  if (version != 0) {
    out.skipped = fmt::format("Unknown value version {} of {} in __share_group_state: skipped",
                              version, out.key.CoordinatorKey());
    return out;
  }
  ShareGroupOffset v;
  if (out.type == LoadedShareStateRecord::Type::kSnapshot) {
    Result<protocol::ShareSnapshotValue> s =
        protocol::ShareSnapshotValue::Parse(value->subspan(2), 0);
    if (!s.ok()) {
      return Status::Corruption(fmt::format("The __share_group_state snapshot of {}: {}",
                                            out.key.CoordinatorKey(), s.status().ToString()));
    }
    v.snapshot_epoch = s->snapshot_epoch;
    v.state_epoch = s->state_epoch;
    v.leader_epoch = s->leader_epoch;
    v.start_offset = s->start_offset;
    v.delivery_complete_count = s->delivery_complete_count;
    v.create_timestamp = s->create_timestamp;
    v.write_timestamp = s->write_timestamp;
    v.state_batches = FromRecordBatches(s->state_batches);
  } else {
    Result<protocol::ShareUpdateValue> u = protocol::ShareUpdateValue::Parse(value->subspan(2), 0);
    if (!u.ok()) {
      return Status::Corruption(fmt::format("The __share_group_state update of {}: {}",
                                            out.key.CoordinatorKey(), u.status().ToString()));
    }
    v.snapshot_epoch = u->snapshot_epoch;
    v.leader_epoch = u->leader_epoch;
    v.start_offset = u->start_offset;
    v.delivery_complete_count = u->delivery_complete_count;
    v.state_batches = FromRecordBatches(u->state_batches);
  }
  out.value = std::move(v);
  return out;
}

}  // namespace seglog
