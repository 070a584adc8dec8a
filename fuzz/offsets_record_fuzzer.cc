// libFuzzer target for the records of __consumer_offsets read back at load: every key and value
// decoder Kafka's group coordinator records go through (offsets_records.h for types 0-2,
// consumer_group_records.h for KIP-848's 3-8 and 16, share_group_records.h for KIP-932's 10-15,
// streams_group_records.h for KIP-1071's 17-23). The input is used three ways: as a whole
// key with no value (a tombstone), as a key followed by a value (split at its first byte), and
// as the value of a well-formed key of every record type, so the value decoders are reached
// without the fuzzer having to find a key first. The same input is also a classic member's
// ConsumerProtocol subscription and assignment (consumer_protocol.h) - bytes a client sends in
// JoinGroup/SyncGroup and a group's record keeps - read alone and through an online upgrade of
// a classic group holding them (group_conversion.h). Last, what a load does with transactions
// (transactional_offsets.h): the input as a whole batch, and as the value of an OffsetCommit
// record in a producer's transactional batch followed by its COMMIT or ABORT control batch,
// replayed into the pending set as the coordinator's load replays them. Build with the
// `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "group/classic_group.h"
#include "group/consumer_group_records.h"
#include "group/consumer_protocol.h"
#include "group/group_conversion.h"
#include "group/offsets_records.h"
#include "group/share_group_records.h"
#include "group/streams_group_records.h"
#include "group/transactional_offsets.h"
#include "seglog/record_batch.h"

using namespace seglog;

namespace {

void Decode(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  if (key.size() >= 2) {
    const int16_t type = static_cast<int16_t>(key[0] << 8 | key[1]);
    if (IsConsumerGroupRecordType(type)) {
      (void)DecodeConsumerGroupRecord(key, value);
      return;
    }
    if (IsShareGroupRecordType(type)) {
      (void)DecodeShareGroupRecord(key, value);
      return;
    }
    if (IsStreamsGroupRecordType(type)) {
      (void)DecodeStreamsGroupRecord(key, value);
      return;
    }
  }
  (void)DecodeOffsetsRecord(key, value);
}

// A well-formed key of each record type: the group "g", member "m", topic "t" partition 0.
std::vector<std::vector<uint8_t>> Keys() {
  std::vector<std::vector<uint8_t>> keys;
  keys.push_back(OffsetCommitTombstone("g", "t", 0).key);
  keys.push_back(GroupMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupMemberMetadataTombstone("g", "m").key);
  keys.push_back(ConsumerGroupTargetAssignmentMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupTargetAssignmentMemberTombstone("g", "m").key);
  keys.push_back(ConsumerGroupCurrentMemberAssignmentTombstone("g", "m").key);
  keys.push_back(ShareGroupMemberMetadataTombstone("g", "m").key);
  keys.push_back(ShareGroupMetadataTombstone("g").key);
  keys.push_back(ShareGroupTargetAssignmentMetadataTombstone("g").key);
  keys.push_back(ShareGroupTargetAssignmentMemberTombstone("g", "m").key);
  keys.push_back(ShareGroupCurrentMemberAssignmentTombstone("g", "m").key);
  keys.push_back(ShareGroupStatePartitionMetadataTombstone("g").key);
  keys.push_back(StreamsGroupMetadataTombstone("g").key);
  keys.push_back(StreamsGroupMemberMetadataTombstone("g", "m").key);
  keys.push_back(StreamsGroupTargetAssignmentMetadataTombstone("g").key);
  keys.push_back(StreamsGroupTargetAssignmentMemberTombstone("g", "m").key);
  keys.push_back(StreamsGroupCurrentMemberAssignmentTombstone("g", "m").key);
  keys.push_back(StreamsGroupTopologyTombstone("g").key);
  std::vector<uint8_t> legacy = OffsetCommitTombstone("g", "t", 0).key;
  legacy[1] = 0;  // type 0 has the same key layout as type 1
  keys.push_back(legacy);
  return keys;
}

// A batch of __consumer_offsets replayed as the load does: a control batch ends its producer's
// transaction, an OffsetCommit record of a producer's batch is pending, a tombstone drops the
// partition's pending offsets.
void ReplayBatch(std::span<const uint8_t> bytes, PendingTransactionalOffsets* pending,
                 OffsetsByGroup* committed) {
  Result<RecordBatchView> batch = RecordBatchView::Parse(bytes);
  if (!batch.ok()) return;
  if (batch->is_control()) {
    Result<std::optional<bool>> marker = ReadEndTransactionMarker(*batch);
    if (!marker.ok() || !*marker) return;
    OffsetsByGroup taken = pending->Take(batch->producer_id());
    for (int64_t pid : pending->ProducerIds()) {
      if (pid == batch->producer_id()) __builtin_trap();  // Take leaves nothing of it
    }
    if (**marker) CommitPendingOffsets(std::move(taken), committed);
    return;
  }
  RecordIterator it(*batch);
  while (it.Next()) {
    const Record& r = it.record();
    if (!r.key) continue;
    std::optional<std::span<const uint8_t>> value;
    if (r.value) value = *r.value;
    Result<LoadedOffsetsRecord> rec = DecodeOffsetsRecord(*r.key, value);
    if (!rec.ok()) continue;
    const auto* c = std::get_if<LoadedOffsetCommit>(&*rec);
    if (c == nullptr) continue;
    const OffsetPartitionKey key(c->topic, c->partition);
    if (!c->offset) {
      pending->RemovePartition(c->group, key);
      if (pending->Contains(c->group, key)) __builtin_trap();
      auto g = committed->find(c->group);
      if (g != committed->end()) g->second.erase(key);
    } else if (batch->producer_id() != kNoProducerId) {
      pending->Add(batch->producer_id(), c->group, key, StoredOffset{*c->offset, r.offset});
      if (!pending->Contains(c->group, key)) __builtin_trap();
    } else {
      (*committed)[c->group][key] = StoredOffset{*c->offset, r.offset};
    }
  }
}

// The input as an OffsetCommit value in a transactional batch of a producer, then that
// producer's marker (COMMIT or ABORT by the input's length, so a well-formed value reaches
// both), replayed in order.
void ReplayTransaction(std::span<const uint8_t> in) {
  const int64_t pid = static_cast<int64_t>(in.size()) + 1;
  const bool commit = in.size() % 2 == 1;
  BatchOptions data;
  data.base_sequence = 0;
  data.producer_id = pid;
  data.producer_epoch = 0;
  data.is_transactional = true;
  RecordBatchBuilder b(data);
  const OffsetsRecord key = OffsetCommitTombstone("g", "t", 0);
  if (!b.Append(0, Bytes(key.key), Bytes(in)).ok()) return;
  Result<std::vector<uint8_t>> data_batch = b.Build();
  BatchOptions control;
  control.base_offset = 1;
  control.producer_id = pid;
  control.producer_epoch = 0;
  control.is_transactional = true;
  control.is_control = true;
  RecordBatchBuilder m(control);
  if (!m.AppendEndTxnMarker(commit ? ControlRecordType::kCommit : ControlRecordType::kAbort, 0, 0)
           .ok()) {
    return;
  }
  Result<std::vector<uint8_t>> marker_batch = m.Build();
  if (!data_batch.ok() || !marker_batch.ok()) return;
  PendingTransactionalOffsets pending;
  OffsetsByGroup committed;
  ReplayBatch(*data_batch, &pending, &committed);
  ReplayBatch(*marker_batch, &pending, &committed);
  if (pending.Contains("g")) __builtin_trap();  // the marker ended the only transaction
  if (!commit && !committed.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::vector<uint8_t>> keys = Keys();
  const std::span<const uint8_t> in(data, size);
  Decode(in, std::nullopt);
  if (size > 0) {
    const size_t split = std::min<size_t>(data[0], size - 1);
    Decode(in.subspan(1, split), in.subspan(1 + split));
  }
  for (const auto& key : keys) Decode(key, in);

  (void)DecodeConsumerProtocolSubscription(in);
  (void)DecodeConsumerProtocolAssignment(in);
  ClassicGroupMember m;
  m.member_id = "m";
  m.protocol_type = "consumer";
  m.protocols.push_back({"range", std::vector<uint8_t>(in.begin(), in.end())});
  m.assignment.assign(in.begin(), in.end());
  ClassicGroup g("g", 0);
  g.RestoreFromRecord(1, "consumer", "range", "m", 0, {m});
  const Uuid topic = Uuid::Random();
  (void)ConsumerGroupFromClassicGroup(g, [&](const std::string& name) {
    return std::optional<ConsumerGroupTopic>(ConsumerGroupTopic{topic, name, 8});
  });

  (void)ParseControlRecordKey(Bytes(in));
  (void)ParseEndTransactionMarker(Bytes(in));
  PendingTransactionalOffsets pending;
  OffsetsByGroup committed;
  ReplayBatch(in, &pending, &committed);
  ReplayTransaction(in);
  return 0;
}
