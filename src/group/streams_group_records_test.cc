// Tests for the streams-group records of __consumer_offsets (types 17-23): bytes laid out by
// hand from Kafka 4.4.0's schemas, every type decoded back as written, tombstones, type 18
// read and ignored, and refusals for broken bytes.
#include "group/streams_group_records.h"

#include <gtest/gtest.h>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

using testing::BE;
using testing::Cat;
using testing::Str16;

// A compact string: unsigned varint length + 1, then the bytes (short strings only).
std::vector<uint8_t> CStr(std::string_view s) {
  return Cat({{static_cast<uint8_t>(s.size() + 1)}, std::vector<uint8_t>(s.begin(), s.end())});
}

template <typename T>
T As(const Result<LoadedStreamsGroupRecord>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || !std::holds_alternative<T>(*r)) {
    ADD_FAILURE() << "not the record type expected";
    return T{};
  }
  return std::get<T>(*r);
}

Result<LoadedStreamsGroupRecord> Decode(const OffsetsRecord& r) {
  std::optional<std::span<const uint8_t>> value;
  if (r.value) value = *r.value;
  return DecodeStreamsGroupRecord(r.key, value);
}

TEST(StreamsGroupRecordsTest, RecordTypes) {
  for (int16_t t = 17; t <= 23; ++t) EXPECT_TRUE(IsStreamsGroupRecordType(t)) << t;
  EXPECT_FALSE(IsStreamsGroupRecordType(16));
  EXPECT_FALSE(IsStreamsGroupRecordType(24));
}

TEST(StreamsGroupRecordsTest, GroupMetadataBytes) {
  StreamsGroupMetadata m;
  m.epoch = 5;
  m.metadata_hash = 0x1122334455667788;
  OffsetsRecord r = StreamsGroupMetadataRecord("grp", m);
  EXPECT_EQ(r.key, Cat({BE(17, 2), Str16("grp")}));
  // v0 flexible: epoch, metadata hash, no tagged field (all at their defaults).
  EXPECT_EQ(*r.value, Cat({BE(0, 2), BE(5, 4), BE(0x1122334455667788, 8), {0}}));

  m.validated_topology_epoch = 2;
  m.last_assignment_configs["num.standby.replicas"] = "1";
  r = StreamsGroupMetadataRecord("grp", m);
  // tag 0 (4 bytes: epoch 2), tag 1: compact array of one {key, value, no tags}.
  const std::vector<uint8_t> config = Cat({{2}, CStr("num.standby.replicas"), CStr("1"), {0}});
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           BE(5, 4),
                           BE(0x1122334455667788, 8),
                           {2},
                           {0, 4},
                           BE(2, 4),
                           {1, static_cast<uint8_t>(config.size())},
                           config}));
  const auto d = As<LoadedStreamsGroupMetadata>(Decode(r));
  EXPECT_EQ(d.group, "grp");
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, m);
  EXPECT_FALSE(As<LoadedStreamsGroupMetadata>(Decode(StreamsGroupMetadataTombstone("grp"))).value);
}

TEST(StreamsGroupRecordsTest, MemberMetadataBytes) {
  StreamsGroupMember m;
  m.member_id = "m1";
  m.client_id = "c";
  m.client_host = "/h";
  m.rebalance_timeout_ms = 300;
  m.topology_epoch = 1;
  m.process_id = "p";
  m.user_endpoint = StreamsEndpoint{"x", 9092};
  m.client_tags = {{"z", "1"}, {"a", "2"}};
  OffsetsRecord r = StreamsGroupMemberMetadataRecord("g", m);
  EXPECT_EQ(r.key, Cat({BE(19, 2), Str16("g"), Str16("m1")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),  {0},        {0},  // instance id, rack id: null
                           CStr("c"), CStr("/h"), BE(300, 4),  BE(1, 4), CStr("p"),
                           {1},       CStr("x"),  BE(9092, 2), {0},  // endpoint present, no tags
                           {3},       CStr("a"),  CStr("2"),   {0},      CStr("z"),
                           CStr("1"), {0},  // sorted tags
                           {0}}));
  const auto d = As<LoadedStreamsGroupMemberMetadata>(Decode(r));
  EXPECT_EQ(d.member_id, "m1");
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, m);
  EXPECT_FALSE(
      As<LoadedStreamsGroupMemberMetadata>(Decode(StreamsGroupMemberMetadataTombstone("g", "m1")))
          .value);
}

TEST(StreamsGroupRecordsTest, TargetAssignmentBytes) {
  OffsetsRecord meta = StreamsGroupTargetAssignmentMetadataRecord("g", 7, 0);
  EXPECT_EQ(meta.key, Cat({BE(20, 2), Str16("g")}));
  EXPECT_EQ(*meta.value, Cat({BE(0, 2), BE(7, 4), {0}}));
  OffsetsRecord stamped = StreamsGroupTargetAssignmentMetadataRecord("g", 7, 1000);
  EXPECT_EQ(*stamped.value, Cat({BE(0, 2), BE(7, 4), {1, 0, 8}, BE(1000, 8)}));
  const auto dm = As<LoadedStreamsGroupTargetAssignmentMetadata>(Decode(stamped));
  ASSERT_TRUE(dm.value.has_value());
  EXPECT_EQ(dm.value->assignment_epoch, 7);
  EXPECT_EQ(dm.value->timestamp_ms, 1000);

  StreamsTasks t;
  t.active["1"] = {2, 0};
  t.standby["0"] = {1};
  OffsetsRecord r = StreamsGroupTargetAssignmentMemberRecord("g", "m", t);
  EXPECT_EQ(r.key, Cat({BE(21, 2), Str16("g"), Str16("m")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           {2},
                           CStr("1"),
                           {3},
                           BE(0, 4),
                           BE(2, 4),
                           {0},  // active
                           {2},
                           CStr("0"),
                           {2},
                           BE(1, 4),
                           {0},  // standby
                           {1},  // warmup: none
                           {0}}));
  const auto d = As<LoadedStreamsGroupTargetAssignmentMember>(Decode(r));
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, t);
}

TEST(StreamsGroupRecordsTest, CurrentAssignmentCarriesActiveTaskEpochs) {
  StreamsGroupMember m;
  m.member_id = "m";
  m.member_epoch = 4;
  m.previous_member_epoch = 3;
  m.state = StreamsMemberState::kUnrevokedTasks;
  m.assigned_tasks.active["0"] = {{0, 2}, {3, 4}};
  m.assigned_tasks.warmup["0"] = {1};
  m.tasks_pending_revocation.active["1"] = {{5, 3}};
  OffsetsRecord r = StreamsGroupCurrentMemberAssignmentRecord("g", m);
  EXPECT_EQ(r.key, Cat({BE(22, 2), Str16("g"), Str16("m")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           BE(4, 4),
                           BE(3, 4),
                           {1},
                           // active: "0" [0, 3], tag 0 = epochs [2, 4] (compact array: 9 bytes)
                           {2},
                           CStr("0"),
                           {3},
                           BE(0, 4),
                           BE(3, 4),
                           {1, 0, 9},
                           {3},
                           BE(2, 4),
                           BE(4, 4),
                           {1},  // standby: none
                           {2},
                           CStr("0"),
                           {2},
                           BE(1, 4),
                           {0},  // warmup "0" [1]
                           {2},
                           CStr("1"),
                           {2},
                           BE(5, 4),
                           {1, 0, 5},
                           {2},
                           BE(3, 4),  // active pending
                           {1},
                           {1},  // standby, warmup pending: none
                           {0}}));
  const auto d = As<LoadedStreamsGroupCurrentMemberAssignment>(Decode(r));
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(d.value->member_epoch, 4);
  EXPECT_EQ(d.value->previous_member_epoch, 3);
  EXPECT_EQ(d.value->state, StreamsMemberState::kUnrevokedTasks);
  EXPECT_EQ(d.value->assigned_tasks, m.assigned_tasks);
  EXPECT_EQ(d.value->tasks_pending_revocation, m.tasks_pending_revocation);
}

TEST(StreamsGroupRecordsTest, ActiveTasksWithoutEpochsTakeTheMemberEpoch) {
  // Active "0" [1, 2] without the tag and "1" [7] with an empty epoch list: both take the
  // member epoch 9.
  const std::vector<uint8_t> value =
      Cat({BE(0, 2), BE(9, 4), BE(8, 4),  {0}, {3},      CStr("0"), {3}, BE(1, 4),
           BE(2, 4), {0},      CStr("1"), {2}, BE(7, 4), {1, 0, 1}, {1},  // an empty epoch list
           {1},      {1},      {1},       {1}, {1},      {0}});
  const std::vector<uint8_t> key = Cat({BE(22, 2), Str16("g"), Str16("m")});
  const auto d = As<LoadedStreamsGroupCurrentMemberAssignment>(
      DecodeStreamsGroupRecord(key, std::span<const uint8_t>(value)));
  ASSERT_TRUE(d.value.has_value());
  StreamsEpochTasks want;
  want["0"] = {{1, 9}, {2, 9}};
  want["1"] = {{7, 9}};
  EXPECT_EQ(d.value->assigned_tasks.active, want);
}

TEST(StreamsGroupRecordsTest, TopologyBytes) {
  StreamsTopology t;
  t.epoch = 1;
  auto& s = t.subtopologies["0"];
  s.subtopology_id = "0";
  s.source_topics = {"in"};
  auto& cl = s.state_changelog_topics.emplace_back();
  cl.name = "app-store-changelog";
  cl.replication_factor = 3;
  OffsetsRecord r = StreamsGroupTopologyRecord("g", t);
  EXPECT_EQ(r.key, Cat({BE(23, 2), Str16("g")}));
  EXPECT_EQ(*r.value, Cat({BE(0, 2),
                           BE(1, 4),
                           {2},  // epoch, one subtopology
                           CStr("0"),
                           {2},
                           CStr("in"),
                           {1},  // id, source topics, no regex
                           {2},
                           CStr("app-store-changelog"),
                           BE(0, 4),
                           BE(3, 2),
                           {1},
                           {0},  // changelog
                           {1},
                           {1},
                           {1},  // sinks, repartition sources, copartition groups: none
                           {0},
                           {0}}));
  const auto d = As<LoadedStreamsGroupTopology>(Decode(r));
  ASSERT_TRUE(d.value.has_value());
  EXPECT_EQ(*d.value, t);
  EXPECT_FALSE(As<LoadedStreamsGroupTopology>(Decode(StreamsGroupTopologyTombstone("g"))).value);
}

TEST(StreamsGroupRecordsTest, PartitionMetadataIsReadAndIgnored) {
  const std::vector<uint8_t> key = Cat({BE(18, 2), Str16("g")});
  // Whatever the value holds (here a topic list of an older build), it is not decoded.
  const std::vector<uint8_t> value = Cat({BE(0, 2), {2, 9, 9, 9}});
  const auto d =
      As<IgnoredStreamsGroupRecord>(DecodeStreamsGroupRecord(key, std::span<const uint8_t>(value)));
  EXPECT_EQ(d.type, 18);
  EXPECT_EQ(d.group, "g");
  EXPECT_TRUE(std::holds_alternative<IgnoredStreamsGroupRecord>(
      *DecodeStreamsGroupRecord(key, std::nullopt)));
}

TEST(StreamsGroupRecordsTest, BrokenBytesAreCorruption) {
  const std::vector<uint8_t> key = Cat({BE(17, 2), Str16("g")});
  const std::vector<uint8_t> v1 = Cat({BE(1, 2), BE(5, 4), BE(0, 8), {0}});
  EXPECT_TRUE(DecodeStreamsGroupRecord(key, std::span<const uint8_t>(v1)).status().IsCorruption());
  const std::vector<uint8_t> cut = Cat({BE(0, 2), BE(5, 4)});
  EXPECT_TRUE(DecodeStreamsGroupRecord(key, std::span<const uint8_t>(cut)).status().IsCorruption());
  const std::vector<uint8_t> short_key = {0};
  EXPECT_TRUE(DecodeStreamsGroupRecord(short_key, std::nullopt).status().IsCorruption());
  const std::vector<uint8_t> bad_key = Cat({BE(19, 2), Str16("g")});  // no member id
  EXPECT_TRUE(DecodeStreamsGroupRecord(bad_key, std::nullopt).status().IsCorruption());
}

}  // namespace
}  // namespace seglog
