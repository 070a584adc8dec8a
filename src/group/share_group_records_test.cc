// Tests for the share-group records of __consumer_offsets (types 10-15): bytes laid out by hand
// from Kafka 4.4.0's schemas (ShareGroupMetadata, ShareGroupTargetAssignmentMember,
// ShareGroupMemberMetadata), every type decoded back as written, tombstones, and refusals for
// broken bytes.
#include "group/share_group_records.h"

#include <gtest/gtest.h>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

using testing::BE;
using testing::Cat;
using testing::Str16;
Uuid Id(uint8_t first) { return testing::TestUuid(first); }
std::vector<uint8_t> IdBytes(uint8_t first) {
  const Uuid id = Id(first);
  return std::vector<uint8_t>(id.bytes.begin(), id.bytes.end());
}
// A compact string: unsigned varint length + 1 (short strings: one byte), then the bytes.
std::vector<uint8_t> Compact(std::string_view s) {
  std::vector<uint8_t> out;
  out.push_back(static_cast<uint8_t>(s.size() + 1));
  for (char c : s) out.push_back(static_cast<uint8_t>(c));
  return out;
}

template <typename T>
T As(const Result<LoadedShareGroupRecord>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || !std::holds_alternative<T>(*r)) {
    ADD_FAILURE() << "not the record type expected";
    return T{};
  }
  return std::get<T>(*r);
}

Result<LoadedShareGroupRecord> Decode(const OffsetsRecord& r) {
  std::optional<std::span<const uint8_t>> value;
  if (r.value) value = *r.value;
  return DecodeShareGroupRecord(r.key, value);
}

TEST(ShareGroupRecordsTest, GroupEpochBytes) {
  OffsetsRecord r = ShareGroupMetadataRecord("grp", 5, 0x1122334455667788);
  // Key: type 11, then the (not flexible) key struct: an int16-length string.
  EXPECT_EQ(r.key, Cat({BE(11, 2), Str16("grp")}));
  // Value v0, flexible: epoch, metadata hash (a plain field here, not tagged), no tags.
  EXPECT_EQ(*r.value, Cat({BE(0, 2), BE(5, 4), BE(0x1122334455667788, 8), {0}}));
  const auto d = As<LoadedShareGroupMetadata>(Decode(r));
  EXPECT_EQ(d.group, "grp");
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(d.value->epoch, 5);
  EXPECT_EQ(d.value->metadata_hash, 0x1122334455667788);
  OffsetsRecord t = ShareGroupMetadataTombstone("grp");
  EXPECT_EQ(t.key, r.key);
  EXPECT_FALSE(t.value.has_value());
  EXPECT_FALSE(As<LoadedShareGroupMetadata>(Decode(t)).value.has_value());
}

TEST(ShareGroupRecordsTest, TargetAssignmentMemberBytes) {
  TopicPartitions target;
  target[Id(1)] = {0, 5};
  OffsetsRecord r = ShareGroupTargetAssignmentMemberRecord("g", "m", target);
  EXPECT_EQ(r.key, Cat({BE(13, 2), Str16("g"), Str16("m")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           {2},  // compact array of one topic
                           IdBytes(1),
                           {3},  // two partitions
                           BE(0, 4),
                           BE(5, 4),
                           {0},     // the topic's tags
                           {0}}));  // the value's tags
  const auto d = As<LoadedShareGroupTargetAssignmentMember>(Decode(r));
  EXPECT_EQ(d.group, "g");
  EXPECT_EQ(d.member_id, "m");
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, target);
}

TEST(ShareGroupRecordsTest, MemberMetadataBytes) {
  ShareGroupMember m;
  m.member_id = "m";
  m.rack_id = std::nullopt;
  m.client_id = "c";
  m.client_host = "/h";
  m.subscribed_topic_names = {"a", "b"};
  OffsetsRecord r = ShareGroupMemberMetadataRecord("g", m);
  EXPECT_EQ(r.key, Cat({BE(10, 2), Str16("g"), Str16("m")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           {0},  // a null compact string: the rack
                           Compact("c"),
                           Compact("/h"),
                           {3},
                           Compact("a"),
                           Compact("b"),
                           {0}}));
  const auto d = As<LoadedShareGroupMemberMetadata>(Decode(r));
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, m);
}

TEST(ShareGroupRecordsTest, EveryTypeDecodesAsWritten) {
  ShareGroupMember m;
  m.member_id = "m1";
  m.member_epoch = 7;
  m.previous_member_epoch = 6;
  m.assigned_partitions[Id(2)] = {1, 2, 3};
  const auto cur = As<LoadedShareGroupCurrentMemberAssignment>(
      Decode(ShareGroupCurrentMemberAssignmentRecord("g", m)));
  ASSERT_TRUE(cur.value.has_value());
  EXPECT_EQ(cur.member_id, "m1");
  EXPECT_EQ(cur.value->member_epoch, 7);
  EXPECT_EQ(cur.value->previous_member_epoch, 6);
  EXPECT_EQ(cur.value->state, 0);
  EXPECT_EQ(cur.value->assigned_partitions, m.assigned_partitions);

  const auto tm = As<LoadedShareGroupTargetAssignmentMetadata>(
      Decode(ShareGroupTargetAssignmentMetadataRecord("g", 9, 12345)));
  ASSERT_TRUE(tm.value.has_value());
  EXPECT_EQ(tm.value->assignment_epoch, 9);
  EXPECT_EQ(tm.value->timestamp_ms, 12345);

  ShareGroupStatePartitions sp;
  sp.initializing[Id(1)] = ShareStateTopic{"a", {0, 1}, 0};
  sp.initialized[Id(2)] = ShareStateTopic{"b", {0}, 0};
  sp.deleting[Id(3)] = "c";
  const auto spd = As<LoadedShareGroupStatePartitionMetadata>(
      Decode(ShareGroupStatePartitionMetadataRecord("g", sp)));
  ASSERT_TRUE(spd.value.has_value());
  EXPECT_EQ(*spd.value, sp);

  for (const OffsetsRecord& t : {ShareGroupMemberMetadataTombstone("g", "m"),
                                 ShareGroupTargetAssignmentMetadataTombstone("g"),
                                 ShareGroupTargetAssignmentMemberTombstone("g", "m"),
                                 ShareGroupCurrentMemberAssignmentTombstone("g", "m"),
                                 ShareGroupStatePartitionMetadataTombstone("g")}) {
    ASSERT_TRUE(Decode(t).ok());
    EXPECT_FALSE(t.value.has_value());
  }
  EXPECT_TRUE(IsShareGroupRecordType(10));
  EXPECT_TRUE(IsShareGroupRecordType(15));
  EXPECT_FALSE(IsShareGroupRecordType(9));
  EXPECT_FALSE(IsShareGroupRecordType(16));
}

TEST(ShareGroupRecordsTest, BrokenBytesAreRefused) {
  OffsetsRecord r = ShareGroupMetadataRecord("grp", 5, 1);
  // An unknown value version.
  std::vector<uint8_t> v = *r.value;
  v[1] = 1;
  EXPECT_TRUE(DecodeShareGroupRecord(r.key, v).status().IsCorruption());
  // A truncated value.
  std::vector<uint8_t> cut(r.value->begin(), r.value->begin() + 5);
  EXPECT_TRUE(DecodeShareGroupRecord(r.key, cut).status().IsCorruption());
  // A truncated key.
  std::vector<uint8_t> key(r.key.begin(), r.key.begin() + 4);
  EXPECT_TRUE(DecodeShareGroupRecord(key, std::nullopt).status().IsCorruption());
}

}  // namespace
}  // namespace seglog
