// Tests for the __consumer_offsets records: the bytes laid out by hand from Kafka's schemas
// (OffsetCommitKey v0, OffsetCommitValue v1/v4, GroupMetadataValue v3), tombstones, and
// decoding every version Kafka 4.4.0 reads, with refusals for broken bytes.
#include "group/offsets_records.h"

#include <gtest/gtest.h>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

using testing::BE;
using testing::Cat;
using testing::Str16;
Uuid Id(uint8_t first) { return testing::TestUuid(first); }

TEST(OffsetsRecordsTest, OffsetCommitBytes) {
  CommittedOffset c{42, 7, "md", 1000, std::nullopt, Uuid{}};
  OffsetsRecord r = OffsetCommitRecord("grp", "tp", 3, c);
  EXPECT_EQ(r.key, Cat({BE(1, 2), Str16("grp"), Str16("tp"), BE(3, 4)}));
  // v4 (flexible): offset, leaderEpoch, compact metadata (length + 1), commitTimestamp, no tags.
  EXPECT_EQ(*r.value, Cat({BE(4, 2), BE(42, 8), BE(7, 4), {3, 'm', 'd'}, BE(1000, 8), {0}}));
  // A topic id goes in tag 0.
  c.topic_id = Id(1);
  r = OffsetCommitRecord("grp", "tp", 3, c);
  EXPECT_EQ(*r.value, Cat({BE(4, 2),
                           BE(42, 8),
                           BE(7, 4),
                           {3, 'm', 'd'},
                           BE(1000, 8),
                           {1, 0, 16},
                           BE(0x0102030405060708ull, 8),
                           BE(0x090a0b0c0d0e0f10ull, 8)}));
  // With an expire timestamp (a v2-4 commit's retention): v1, which has no leader epoch.
  c.expire_timestamp_ms = 5000;
  r = OffsetCommitRecord("grp", "tp", 3, c);
  EXPECT_EQ(*r.value, Cat({BE(1, 2), BE(42, 8), Str16("md"), BE(1000, 8), BE(5000, 8)}));
  EXPECT_FALSE(OffsetCommitTombstone("grp", "tp", 3).value.has_value());
  EXPECT_EQ(OffsetCommitTombstone("grp", "tp", 3).key, r.key);
}

TEST(OffsetsRecordsTest, GroupMetadataBytes) {
  ClassicGroup g("grp", 0);
  ClassicGroupMember m;
  m.member_id = "m1";
  m.client_id = "c";
  m.client_host = "/h";
  m.rebalance_timeout_ms = 300;
  m.session_timeout_ms = 100;
  m.protocol_type = "consumer";
  m.protocols = {{"range", {1, 2}}, {"other", {9}}};
  m.assignment = {5};
  g.Add(m);
  g.TransitionTo(ClassicGroupState::kPreparingRebalance, 77);
  g.InitNextGeneration(88);  // generation 1, protocol "range", CompletingRebalance at 88
  OffsetsRecord r = GroupMetadataRecord(g);
  EXPECT_EQ(r.key, Cat({BE(2, 2), Str16("grp")}));
  EXPECT_EQ(*r.value, Cat({BE(3, 2),
                           Str16("consumer"),
                           BE(1, 4),
                           Str16("range"),
                           Str16("m1"),
                           BE(88, 8),
                           BE(1, 4),  // one member
                           Str16("m1"),
                           BE(0xFFFF, 2),  // no group instance id (null)
                           Str16("c"),
                           Str16("/h"),
                           BE(300, 4),
                           BE(100, 4),
                           BE(2, 4),
                           {1, 2},  // the chosen protocol's metadata
                           BE(1, 4),
                           {5}}));
  OffsetsRecord empty = EmptyGroupMetadataRecord("grp", 12);
  EXPECT_EQ(*empty.value, Cat({BE(3, 2), Str16(""), BE(0, 4), BE(0xFFFF, 2), BE(0xFFFF, 2),
                               BE(12, 8), BE(0, 4)}));
}

TEST(OffsetsRecordsTest, DecodesWhatItWritesAndOlderVersions) {
  CommittedOffset c{42, 7, "md", 1000, std::nullopt, Id(5)};
  OffsetsRecord r = OffsetCommitRecord("grp", "tp", 3, c);
  auto d = DecodeOffsetsRecord(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const auto& oc = std::get<LoadedOffsetCommit>(*d);
  EXPECT_EQ(oc.group, "grp");
  EXPECT_EQ(oc.topic, "tp");
  EXPECT_EQ(oc.partition, 3);
  EXPECT_EQ(*oc.offset, c);
  // v0: offset, metadata, commitTimestamp.
  std::vector<uint8_t> v0 = Cat({BE(0, 2), BE(9, 8), Str16("x"), BE(5, 8)});
  d = DecodeOffsetsRecord(r.key, std::span<const uint8_t>(v0));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(std::get<LoadedOffsetCommit>(*d).offset->offset, 9);
  EXPECT_EQ(std::get<LoadedOffsetCommit>(*d).offset->leader_epoch, -1);
  // A tombstone.
  d = DecodeOffsetsRecord(r.key, std::nullopt);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(std::get<LoadedOffsetCommit>(*d).offset.has_value());
  // The legacy type 0 reads as an offset commit.
  std::vector<uint8_t> legacy_key = Cat({BE(0, 2), Str16("grp"), Str16("tp"), BE(1, 4)});
  d = DecodeOffsetsRecord(legacy_key, std::span<const uint8_t>(v0));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(std::get<LoadedOffsetCommit>(*d).partition, 1);
  // A group.
  ClassicGroup g("grp", 3);
  OffsetsRecord e = EmptyGroupMetadataRecord("grp", 12);
  d = DecodeOffsetsRecord(e.key, std::span<const uint8_t>(*e.value));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(std::get<LoadedGroupMetadata>(*d).value->current_state_timestamp_ms, 12);
  // Unknown types are reported, not refused.
  std::vector<uint8_t> type9 = {0, 9, 1, 2};
  d = DecodeOffsetsRecord(type9, std::nullopt);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::get<UnknownOffsetsRecord>(*d).type, 9);
}

TEST(OffsetsRecordsTest, BrokenBytesAreCorruption) {
  OffsetsRecord r =
      OffsetCommitRecord("grp", "tp", 3, CommittedOffset{1, -1, "", 2, std::nullopt, Uuid{}});
  std::vector<uint8_t> one = {0};
  EXPECT_TRUE(DecodeOffsetsRecord(one, std::nullopt).status().IsCorruption());
  for (size_t cut = 0; cut < r.key.size(); ++cut) {
    std::vector<uint8_t> k(r.key.begin(), r.key.begin() + static_cast<long>(cut));
    EXPECT_FALSE(DecodeOffsetsRecord(k, std::span<const uint8_t>(*r.value)).ok()) << cut;
  }
  for (size_t cut = 0; cut < r.value->size(); ++cut) {
    std::vector<uint8_t> v(r.value->begin(), r.value->begin() + static_cast<long>(cut));
    EXPECT_FALSE(DecodeOffsetsRecord(r.key, std::span<const uint8_t>(v)).ok()) << cut;
  }
  std::vector<uint8_t> v9 = *r.value;
  v9[1] = 9;  // value version 9 does not exist
  auto d = DecodeOffsetsRecord(r.key, std::span<const uint8_t>(v9));
  EXPECT_TRUE(d.status().IsCorruption());
  EXPECT_NE(d.status().ToString().find("Unknown record version 9"), std::string::npos);
}

}  // namespace
}  // namespace seglog
