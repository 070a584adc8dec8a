// The coordinators' record types (protocol/generated/coordinator_records.h): the table names
// every key and value schema of the group and transaction coordinators with the versions of its
// struct and dispatches to that struct, and the record structs encode as Kafka's schemas say.
// Kafka's own classes judge the same samples in interop.kafka_reads_seglog_protocol_messages.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "protocol/generated/consumer_group_member_metadata_value.h"
#include "protocol/generated/coordinator_records.h"
#include "protocol/generated/message_samples.h"
#include "protocol/generated/offset_commit_key.h"
#include "protocol/generated/offset_commit_value.h"
#include "protocol/generated/share_snapshot_key.h"
#include "protocol/generated/share_snapshot_value.h"
#include "protocol/generated/share_update_value.h"
#include "protocol/generated/transaction_log_key.h"
#include "protocol/generated/transaction_log_value.h"

namespace seglog::protocol {
namespace {

using testing::AllMessageCases;
using testing::MessageCase;

const MessageCase* FindCase(std::string_view name) {
  for (const MessageCase& c : AllMessageCases()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(CoordinatorRecordsTest, EveryRecordTypeHasAKeyAndAValue) {
  std::set<std::tuple<Coordinator, int16_t, bool>> seen;
  for (const CoordinatorRecordInfo& info : AllCoordinatorRecords()) {
    SCOPED_TRACE(std::string(info.name));
    EXPECT_TRUE(seen.insert({info.coordinator, info.record_type, info.is_key}).second);
    EXPECT_EQ(FindCoordinatorRecord(info.coordinator, info.record_type, info.is_key), &info);
    const CoordinatorRecordInfo* other =
        FindCoordinatorRecord(info.coordinator, info.record_type, !info.is_key);
    ASSERT_NE(other, nullptr);
    // OffsetCommitKey and OffsetCommitValue: one record type, one name before Key/Value.
    const std::string_view suffix = info.is_key ? "Key" : "Value";
    ASSERT_TRUE(info.name.ends_with(suffix));
    const std::string_view base = info.name.substr(0, info.name.size() - suffix.size());
    EXPECT_EQ(other->name.substr(0, base.size()), base);
    // Keys have the one version the coordinators write them at.
    if (info.is_key) {
      EXPECT_EQ(info.lowest_version, 0);
      EXPECT_EQ(info.highest_version, 0);
    }
  }
  // 22 group record types (9 and 18 are retired), ShareSnapshot and ShareUpdate, TransactionLog.
  EXPECT_EQ(seen.size(), 2u * 25u);
}

TEST(CoordinatorRecordsTest, TheTableDispatchesToTheSchemasStruct) {
  int checked = 0;
  for (const CoordinatorRecordInfo& info : AllCoordinatorRecords()) {
    const MessageCase* c = FindCase(info.name);
    ASSERT_NE(c, nullptr) << info.name << " has no sample";
    EXPECT_EQ(c->api_key, -1);
    EXPECT_EQ(c->lowest_version, info.lowest_version);
    EXPECT_EQ(c->highest_version, info.highest_version);
    EXPECT_EQ(c->lowest_flexible_version, info.lowest_flexible_version);
    for (int16_t v = info.lowest_version; v <= info.highest_version; ++v) {
      SCOPED_TRACE(std::string(info.name) + " v" + std::to_string(v));
      std::vector<uint8_t> sample;
      ASSERT_TRUE(c->encode_sample(v, 3, &sample).ok());
      std::vector<uint8_t> again;
      Status s = RoundTripCoordinatorRecord(info.coordinator, info.record_type, info.is_key, v,
                                            sample, &again);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(again, sample);
      ++checked;
    }
  }
  EXPECT_GT(checked, 46);
  std::vector<uint8_t> out;
  EXPECT_TRUE(
      RoundTripCoordinatorRecord(Coordinator::kGroup, 9, true, 0, {}, &out).IsInvalidArgument());
  EXPECT_TRUE(
      RoundTripCoordinatorRecord(Coordinator::kGroup, 1, false, 5, {}, &out).IsInvalidArgument());
}

TEST(CoordinatorRecordsTest, RecordTypesArePerCoordinator) {
  const CoordinatorRecordInfo* legacy = FindCoordinatorRecord(Coordinator::kGroup, 0, true);
  const CoordinatorRecordInfo* txn = FindCoordinatorRecord(Coordinator::kTransaction, 0, true);
  ASSERT_NE(legacy, nullptr);
  ASSERT_NE(txn, nullptr);
  EXPECT_EQ(legacy->name, "LegacyOffsetCommitKey");
  EXPECT_EQ(txn->name, "TransactionLogKey");
  EXPECT_EQ(FindCoordinatorRecord(Coordinator::kTransaction, 1, true), nullptr);
  EXPECT_EQ(FindCoordinatorRecord(Coordinator::kGroup, 18, false), nullptr);
  const CoordinatorRecordInfo* snapshot = FindCoordinatorRecord(Coordinator::kShare, 0, false);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->name, "ShareSnapshotValue");
  EXPECT_EQ(snapshot->lowest_flexible_version, 0);
  EXPECT_EQ(ShareUpdateValue::kRecordType, static_cast<int16_t>(ShareRecordType::kShareUpdate));
  EXPECT_EQ(FindCoordinatorRecord(Coordinator::kShare, 2, true), nullptr);

  EXPECT_EQ(OffsetCommitKey::kRecordType, static_cast<int16_t>(GroupRecordType::kOffsetCommit));
  EXPECT_EQ(TransactionLogValue::kRecordType,
            static_cast<int16_t>(TransactionRecordType::kTransactionLog));
  const CoordinatorRecordInfo* offset_value =
      FindCoordinatorRecord(Coordinator::kGroup, OffsetCommitValue::kRecordType, false);
  ASSERT_NE(offset_value, nullptr);
  EXPECT_EQ(offset_value->name, "OffsetCommitValue");
  EXPECT_EQ(offset_value->highest_version, 4);
  EXPECT_EQ(offset_value->lowest_flexible_version, 4);
}

TEST(CoordinatorRecordsTest, OffsetCommitKeyAndValueBytes) {
  OffsetCommitKey key;
  key.group = "g";
  key.topic = "t";
  key.partition = 1;
  ProtocolWriter k;
  ASSERT_TRUE(key.Encode(&k, 0).ok());
  const std::vector<uint8_t> want_key = {0, 1, 'g', 0, 1, 't', 0, 0, 0, 1};
  EXPECT_EQ(k.bytes(), want_key);

  OffsetCommitValue value;
  value.offset = 5;
  value.metadata = "m";
  value.commit_timestamp = 7;
  ProtocolWriter v3;
  ASSERT_TRUE(value.Encode(&v3, 3).ok());
  // offset, leader epoch -1, "m", commit timestamp (v3 has no expire timestamp).
  const std::vector<uint8_t> want3 = {0, 0, 0,   0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff,
                                      0, 1, 'm', 0, 0, 0, 0, 0, 0,    0,    7};
  EXPECT_EQ(v3.bytes(), want3);
  // v1 has an expire timestamp and no leader epoch, which is ignorable: dropped.
  value.leader_epoch = 3;
  value.expire_timestamp = 9;
  ProtocolWriter v1;
  ASSERT_TRUE(value.Encode(&v1, 1).ok());
  const std::vector<uint8_t> want1 = {0, 0, 0, 0, 0, 0, 0, 5, 0, 1, 'm', 0, 0, 0,
                                      0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0,   0, 9};
  EXPECT_EQ(v1.bytes(), want1);
}

TEST(CoordinatorRecordsTest, ShareSnapshotKeyAndValueBytes) {
  // __share_group_state's key (non-flexible: int16 string, 16-byte uuid, int32) and value
  // (flexible: compact array, DeliveryCompleteCount as tag 0 only when it is not -1).
  ShareSnapshotKey key;
  key.group_id = "g";
  key.topic_id = Uuid::FromHalves(1, 2);
  key.partition = 3;
  ProtocolWriter k;
  ASSERT_TRUE(key.Encode(&k, 0).ok());
  const std::vector<uint8_t> want_key = {0, 1, 'g', 0, 0, 0, 0, 0, 0, 0, 1, 0,
                                         0, 0, 0,   0, 0, 0, 2, 0, 0, 0, 3};
  EXPECT_EQ(k.bytes(), want_key);

  ShareSnapshotValue value;
  value.snapshot_epoch = 1;
  value.state_epoch = 2;
  value.leader_epoch = 3;
  value.start_offset = 4;
  value.create_timestamp = 5;
  value.write_timestamp = 6;
  value.state_batches.push_back({.first_offset = 4,
                                 .last_offset = 7,
                                 .delivery_state = 2,
                                 .delivery_count = 1,
                                 .unknown_tagged_fields = {}});
  ProtocolWriter v;
  ASSERT_TRUE(value.Encode(&v, 0).ok());
  std::vector<uint8_t> want = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
                               4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6,
                               2,  // one batch
                               0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 7, 2, 0, 1,
                               0,   // the batch's tagged fields
                               0};  // no tagged fields: DeliveryCompleteCount is -1
  EXPECT_EQ(v.bytes(), want);
  value.delivery_complete_count = 9;
  ProtocolWriter tagged;
  ASSERT_TRUE(value.Encode(&tagged, 0).ok());
  want.back() = 1;                              // one tagged field
  want.insert(want.end(), {0, 4, 0, 0, 0, 9});  // tag 0, 4 bytes, int32 9
  EXPECT_EQ(tagged.bytes(), want);
  auto parsed = ShareSnapshotValue::Parse(tagged.bytes(), 0);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value(), value);
}

TEST(CoordinatorRecordsTest, TransactionLogValueTaggedFieldsHaveOnlyTaggedVersions) {
  // PreviousProducerId and the other tagged fields have no "versions" in the schema: they are in
  // their tagged versions (1+) only, so v0 cannot carry a non-default one.
  TransactionLogValue value;
  value.producer_id = 4;
  value.transaction_partitions = std::nullopt;
  ProtocolWriter v0;
  ASSERT_TRUE(value.Encode(&v0, 0).ok());
  value.previous_producer_id = 3;
  ProtocolWriter v0_tagged;
  EXPECT_TRUE(value.Encode(&v0_tagged, 0).IsInvalidArgument());
  ProtocolWriter v1;
  ASSERT_TRUE(value.Encode(&v1, 1).ok());
  auto parsed = TransactionLogValue::Parse(v1.bytes(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value(), value);
  EXPECT_EQ(parsed.value().previous_producer_id, 3);
  EXPECT_FALSE(parsed.value().transaction_partitions.has_value());
}

TEST(CoordinatorRecordsTest, NullableStructInATaggedFieldHasAVarintMarker) {
  // ConsumerGroupMemberMetadataValue v0 as Kafka 4.4.0's class writes it: empty strings and
  // topic list, rebalance timeout -1, then one tagged field, ClassicMemberMetadata (tag 0). Its
  // default is the empty struct, so null is written: marker uvarint 0 (not the int8 -1 of
  // untagged nullable structs); present, the marker is 1 and the struct follows.
  const std::vector<uint8_t> null_bytes = {1, 1, 1, 1, 1, 1, 0xff, 0xff, 0xff, 0xff, 1, 1, 0, 1, 0};
  const std::vector<uint8_t> present_bytes = {1, 1, 1, 1, 1, 1, 0xff, 0xff, 0xff, 0xff, 1,
                                              1, 0, 7, 1, 0, 0, 0,    5,    1,    0};
  auto null_value = ConsumerGroupMemberMetadataValue::Parse(null_bytes, 0);
  ASSERT_TRUE(null_value.ok()) << null_value.status().ToString();
  EXPECT_FALSE(null_value.value().classic_member_metadata.has_value());
  ProtocolWriter w;
  ASSERT_TRUE(null_value.value().Encode(&w, 0).ok());
  EXPECT_EQ(w.bytes(), null_bytes);

  auto present = ConsumerGroupMemberMetadataValue::Parse(present_bytes, 0);
  ASSERT_TRUE(present.ok()) << present.status().ToString();
  ASSERT_TRUE(present.value().classic_member_metadata.has_value());
  EXPECT_EQ(present.value().classic_member_metadata->session_timeout_ms, 5);
  ProtocolWriter again;
  ASSERT_TRUE(present.value().Encode(&again, 0).ok());
  EXPECT_EQ(again.bytes(), present_bytes);

  // The default (the empty struct) is not written at all.
  ConsumerGroupMemberMetadataValue defaults;
  ProtocolWriter d;
  ASSERT_TRUE(defaults.Encode(&d, 0).ok());
  const std::vector<uint8_t> default_bytes = {1, 1, 1, 1, 1, 1, 0xff, 0xff, 0xff, 0xff, 1, 0};
  EXPECT_EQ(d.bytes(), default_bytes);
}

}  // namespace
}  // namespace seglog::protocol
