// Tests for the KIP-848 records of __consumer_offsets: bytes laid out by hand from Kafka's
// schemas (ConsumerGroupMetadata, ConsumerGroupCurrentMemberAssignment with its tagged
// AssignmentEpochs), every record type decoded back as written (a consumer-protocol member and
// a classic-protocol one), tombstones, and refusals for broken bytes.
#include "group/consumer_group_records.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

using testing::BE;
using testing::Cat;
using testing::Str16;
Uuid Id(uint8_t first) { return testing::TestUuid(first); }

// The decoded record of type T (a default T, with a test failure, when it is not one).
template <typename T>
T As(const Result<LoadedConsumerGroupRecord>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || !std::holds_alternative<T>(*r)) {
    ADD_FAILURE() << "not the record type expected";
    return T{};
  }
  return std::get<T>(*r);
}

Result<LoadedConsumerGroupRecord> Decode(const OffsetsRecord& r) {
  std::optional<std::span<const uint8_t>> value;
  if (r.value) value = *r.value;
  return DecodeConsumerGroupRecord(r.key, value);
}

TEST(ConsumerGroupRecordsTest, GroupEpochBytes) {
  OffsetsRecord r = ConsumerGroupMetadataRecord("grp", 5, 0x1122334455667788);
  EXPECT_EQ(r.key, Cat({BE(3, 2), Str16("grp")}));
  // v0, flexible: epoch, then one tagged field (tag 0, 8 bytes: the metadata hash).
  EXPECT_EQ(*r.value, Cat({BE(0, 2), BE(5, 4), {1, 0, 8}, BE(0x1122334455667788, 8)}));
  // A zero hash is the default: no tag written.
  EXPECT_EQ(*ConsumerGroupMetadataRecord("grp", 5, 0).value, Cat({BE(0, 2), BE(5, 4), {0}}));
  const auto d = As<LoadedConsumerGroupMetadata>(Decode(r));
  EXPECT_EQ(d.group, "grp");
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(d.value->epoch, 5);
  EXPECT_EQ(d.value->metadata_hash, 0x1122334455667788);
  EXPECT_FALSE(As<LoadedConsumerGroupMetadata>(Decode(ConsumerGroupMetadataTombstone("grp")))
                   .value.has_value());
}

TEST(ConsumerGroupRecordsTest, CurrentAssignmentBytesCarryEachPartitionsEpoch) {
  ConsumerGroupMember m;
  m.member_id = "m";
  m.member_epoch = 4;
  m.previous_member_epoch = 3;
  m.state = ConsumerMemberState::kUnrevokedPartitions;
  m.assigned_partitions[Id(1)] = {{0, 2}, {5, 4}};
  OffsetsRecord r = ConsumerGroupCurrentMemberAssignmentRecord("g", m);
  EXPECT_EQ(r.key, Cat({BE(8, 2), Str16("g"), Str16("m")}));
  const Uuid id1 = Id(1);
  const std::vector<uint8_t> topic(id1.bytes.begin(), id1.bytes.end());
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           BE(4, 4),
                           BE(3, 4),
                           {1},  // epochs, state 1
                           {2},
                           topic,
                           {3},
                           BE(0, 4),
                           BE(5, 4),  // one topic: compact array of 2
                           {1, 0, 9, 3},
                           BE(2, 4),
                           BE(4, 4),  // tag 0: AssignmentEpochs [2, 4]
                           {1},       // no partitions pending revocation
                           {0}}));    // no tags of the value
  const auto d = As<LoadedConsumerGroupCurrentMemberAssignment>(Decode(r));
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(d.value->member_epoch, 4);
  EXPECT_EQ(d.value->previous_member_epoch, 3);
  EXPECT_EQ(d.value->state, ConsumerMemberState::kUnrevokedPartitions);
  EXPECT_EQ(d.value->assigned_partitions, m.assigned_partitions);
  EXPECT_TRUE(d.value->partitions_pending_revocation.empty());
}

TEST(ConsumerGroupRecordsTest, EveryTypeDecodesAsWritten) {
  ConsumerGroupMember m;
  m.member_id = "m";
  m.instance_id = "i";
  m.client_id = "c";
  m.client_host = "/127.0.0.1";
  m.subscribed_topic_names = {"a", "b"};
  m.subscribed_topic_regex = "x.*";
  m.rebalance_timeout_ms = 30000;
  m.server_assignor = "range";
  const auto md =
      As<LoadedConsumerGroupMemberMetadata>(Decode(ConsumerGroupMemberMetadataRecord("g", m)));
  ASSERT_TRUE(md.value.has_value());
  EXPECT_EQ(md.member_id, "m");
  EXPECT_EQ(*md.value, m);  // epochs and partitions are not in this record (defaults)
  EXPECT_FALSE(md.value->uses_classic_protocol());

  m.classic = ClassicMemberMetadata{10000, {{"range", {1, 2, 3}}, {"roundrobin", {}}}};
  const auto classic =
      As<LoadedConsumerGroupMemberMetadata>(Decode(ConsumerGroupMemberMetadataRecord("g", m)));
  ASSERT_TRUE(classic.value.has_value());
  EXPECT_EQ(classic.value->classic, m.classic);

  TopicPartitions target;
  target[Id(7)] = {1, 2};
  const auto tm = As<LoadedConsumerGroupTargetAssignmentMember>(
      Decode(ConsumerGroupTargetAssignmentMemberRecord("g", "m", target)));
  EXPECT_EQ(tm.value, target);
  const auto ta = As<LoadedConsumerGroupTargetAssignmentMetadata>(
      Decode(ConsumerGroupTargetAssignmentMetadataRecord("g", 9, 1234)));
  ASSERT_TRUE(ta.value.has_value());
  EXPECT_EQ(ta.value->assignment_epoch, 9);
  EXPECT_EQ(ta.value->timestamp_ms, 1234);

  for (const OffsetsRecord& t : {ConsumerGroupMemberMetadataTombstone("g", "m"),
                                 ConsumerGroupTargetAssignmentMemberTombstone("g", "m"),
                                 ConsumerGroupTargetAssignmentMetadataTombstone("g"),
                                 ConsumerGroupCurrentMemberAssignmentTombstone("g", "m")}) {
    EXPECT_FALSE(t.value.has_value());
    EXPECT_TRUE(Decode(t).ok());
  }
}

TEST(ConsumerGroupRecordsTest, BrokenBytesAreCorruption) {
  ConsumerGroupMember m;
  m.member_id = "m";
  m.member_epoch = 2;
  m.assigned_partitions[Id(1)] = {{0, 2}, {1, 2}};
  OffsetsRecord r = ConsumerGroupCurrentMemberAssignmentRecord("g", m);
  // Every truncation of the value is corrupt, never a crash.
  for (size_t n = 0; n < r.value->size(); ++n) {
    std::vector<uint8_t> v(r.value->begin(), r.value->begin() + static_cast<ptrdiff_t>(n));
    EXPECT_FALSE(DecodeConsumerGroupRecord(r.key, std::span<const uint8_t>(v)).ok()) << n;
  }
  // A version Kafka 4.4.0 does not write.
  std::vector<uint8_t> v1 = *r.value;
  v1[1] = 1;
  EXPECT_FALSE(DecodeConsumerGroupRecord(r.key, std::span<const uint8_t>(v1)).ok());
  // AssignmentEpochs that do not match the partitions: two partitions, one epoch (the tag 0
  // of 9 bytes, [2, 2], replaced by one of 5 bytes, [2]).
  const std::vector<uint8_t> good = *r.value;
  const std::vector<uint8_t> tag_bytes = {1, 0, 9, 3};
  auto tag = std::search(good.begin(), good.end(), tag_bytes.begin(), tag_bytes.end());
  ASSERT_NE(tag, good.end());
  std::vector<uint8_t> bad(good.begin(), tag);
  for (uint8_t b : {1, 0, 5, 2, 0, 0, 0, 2}) bad.push_back(b);
  bad.insert(bad.end(), tag + 12, good.end());
  auto decoded = DecodeConsumerGroupRecord(r.key, std::span<const uint8_t>(bad));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().ToString().find("assignment epochs"), std::string::npos)
      << decoded.status().ToString();
  // A key too short to hold its type.
  const std::vector<uint8_t> short_key = {0};
  EXPECT_FALSE(DecodeConsumerGroupRecord(short_key, std::nullopt).ok());
}

}  // namespace
}  // namespace seglog
