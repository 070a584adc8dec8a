// __share_group_state's records: the bytes of a key, a snapshot, an update and a tombstone, and
// decoding them back (with the cases a reader must skip or refuse).
#include "sharestate/share_state_records.h"

#include <gtest/gtest.h>

#include <vector>

namespace seglog {
namespace {

const SharePartitionKey kKey{.group_id = "g", .topic_id = Uuid::FromHalves(1, 2), .partition = 3};

TEST(ShareStateRecordsTest, SnapshotBytes) {
  ShareGroupOffset v;
  v.snapshot_epoch = 1;
  v.state_epoch = 2;
  v.leader_epoch = 3;
  v.start_offset = 4;
  v.create_timestamp = 5;
  v.write_timestamp = 6;
  v.state_batches = {
      {.first_offset = 4, .last_offset = 7, .delivery_state = 2, .delivery_count = 1}};
  const CoordinatorRecord r = ShareSnapshotRecord(kKey, v);
  const std::vector<uint8_t> key = {0, 0,  // type 0
                                    0, 1, 'g', 0, 0, 0, 0, 0, 0, 0, 1, 0,
                                    0, 0, 0,   0, 0, 0, 2, 0, 0, 0, 3};
  EXPECT_EQ(r.key, key);
  ASSERT_TRUE(r.value.has_value());
  const std::vector<uint8_t> value = {0, 0,  // version 0
                                      0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4,
                                      0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 2, 0, 0, 0,
                                      0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 7, 2, 0, 1, 0, 0};
  EXPECT_EQ(*r.value, value);
  auto back = DecodeShareStateRecord(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->type, LoadedShareStateRecord::Type::kSnapshot);
  EXPECT_EQ(back->key, kKey);
  ASSERT_TRUE(back->value.has_value());
  EXPECT_EQ(*back->value, v);
}

TEST(ShareStateRecordsTest, UpdateCarriesNoStateEpochOrTimestamps) {
  ShareGroupOffset v;
  v.snapshot_epoch = 1;
  v.state_epoch = 9;  // not written
  v.leader_epoch = 3;
  v.start_offset = 4;
  v.delivery_complete_count = 2;
  v.create_timestamp = 5;  // not written
  v.state_batches = {
      {.first_offset = 4, .last_offset = 5, .delivery_state = 4, .delivery_count = 3}};
  const CoordinatorRecord r = ShareUpdateRecord(kKey, v);
  EXPECT_EQ(r.key[1], 1);  // type 1
  const std::vector<uint8_t> value = {
      0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 2, 0, 0, 0, 0,
      0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5, 4, 0, 3, 0, 1, 0, 4, 0, 0, 0, 2};  // tag 0:
                                                                             // DeliveryCompleteCount
                                                                             // 2
  EXPECT_EQ(*r.value, value);
  auto back = DecodeShareStateRecord(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->type, LoadedShareStateRecord::Type::kUpdate);
  EXPECT_EQ(back->value->state_epoch, 0);
  EXPECT_EQ(back->value->create_timestamp, 0);
  EXPECT_EQ(back->value->delivery_complete_count, 2);
  EXPECT_EQ(back->value->state_batches, v.state_batches);
}

TEST(ShareStateRecordsTest, TombstoneIsASnapshotKeyWithoutValue) {
  const CoordinatorRecord r = ShareStateTombstone(kKey);
  EXPECT_EQ(r.key, ShareSnapshotRecord(kKey, {}).key);
  EXPECT_FALSE(r.value.has_value());
  auto back = DecodeShareStateRecord(r.key, std::nullopt);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->type, LoadedShareStateRecord::Type::kSnapshot);
  EXPECT_FALSE(back->value.has_value());
}

TEST(ShareStateRecordsTest, BadBytes) {
  const CoordinatorRecord r = ShareSnapshotRecord(kKey, {});
  // A short key, a cut key, a cut value, a value of one byte.
  EXPECT_TRUE(
      DecodeShareStateRecord(std::vector<uint8_t>{0}, std::nullopt).status().IsCorruption());
  std::vector<uint8_t> cut_key(r.key.begin(), r.key.end() - 1);
  EXPECT_TRUE(DecodeShareStateRecord(cut_key, std::nullopt).status().IsCorruption());
  std::vector<uint8_t> cut_value(r.value->begin(), r.value->end() - 3);
  EXPECT_TRUE(
      DecodeShareStateRecord(r.key, std::span<const uint8_t>(cut_value)).status().IsCorruption());
  std::vector<uint8_t> one = {0};
  EXPECT_TRUE(DecodeShareStateRecord(r.key, std::span<const uint8_t>(one)).status().IsCorruption());
  // A lying batch count (2^20 batches in a few bytes) is refused, not allocated.
  std::vector<uint8_t> lying = *r.value;
  lying[2 + 36] = 0x80;
  lying.insert(lying.begin() + 2 + 37, {0x80, 0x40});
  EXPECT_FALSE(DecodeShareStateRecord(r.key, std::span<const uint8_t>(lying)).ok());
  // Unknown record types and value versions are skipped with a line, not refused.
  std::vector<uint8_t> type2 = r.key;
  type2[1] = 2;
  auto skipped = DecodeShareStateRecord(type2, std::nullopt);
  ASSERT_TRUE(skipped.ok());
  EXPECT_FALSE(skipped->skipped.empty());
  std::vector<uint8_t> v1 = *r.value;
  v1[1] = 1;
  skipped = DecodeShareStateRecord(r.key, std::span<const uint8_t>(v1));
  ASSERT_TRUE(skipped.ok());
  EXPECT_FALSE(skipped->skipped.empty());
}

}  // namespace
}  // namespace seglog
