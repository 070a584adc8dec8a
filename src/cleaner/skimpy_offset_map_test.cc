#include "cleaner/skimpy_offset_map.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace seglog {
namespace {

std::span<const uint8_t> B(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(OffsetMapTest, KeepsTheLastOffsetOfEachKey) {
  SkimpyOffsetMap m(24 * 1000, 0.9);
  EXPECT_EQ(m.slots(), 1000);
  EXPECT_EQ(m.max_desired_size(), 900);
  EXPECT_EQ(m.Get(B("user1")), -1);
  ASSERT_TRUE(m.Put(B("user1"), 0).ok());
  ASSERT_TRUE(m.Put(B("user2"), 1).ok());
  ASSERT_TRUE(m.Put(B("user1"), 3).ok());
  EXPECT_EQ(m.Get(B("user1")), 3);
  EXPECT_EQ(m.Get(B("user2")), 1);
  EXPECT_EQ(m.Get(B("")), -1);
  EXPECT_EQ(m.size(), 2);
  EXPECT_EQ(m.latest_offset(), 3);
  m.UpdateLatestOffset(9);
  EXPECT_EQ(m.latest_offset(), 9);
  m.Clear();
  EXPECT_EQ(m.size(), 0);
  EXPECT_EQ(m.Get(B("user1")), -1);
  EXPECT_EQ(m.latest_offset(), -1);
}

// Filled to every slot: each key still found (the probe sequence visits every slot), and one
// more is refused rather than overwriting another key.
TEST(OffsetMapTest, FullMapFindsEveryKeyAndRefusesMore) {
  SkimpyOffsetMap m(24 * 257, 1.0);
  for (int i = 0; i < 257; ++i) ASSERT_TRUE(m.Put(B(fmt::format("k{}", i)), i).ok()) << i;
  for (int i = 0; i < 257; ++i) EXPECT_EQ(m.Get(B(fmt::format("k{}", i))), i) << i;
  EXPECT_EQ(m.Get(B("absent")), -1);
  EXPECT_FALSE(m.Put(B("one more"), 1).ok());
  EXPECT_GT(m.extra_probes(), 0);
  EXPECT_TRUE(m.full());
}

TEST(OffsetMapTest, MemoryIsCappedLikeKafkas) {
  SkimpyOffsetMap tiny(10, 0.9);  // less than a slot: one slot
  EXPECT_EQ(tiny.slots(), 1);
  EXPECT_EQ(tiny.max_desired_size(), 1);
}

}  // namespace
}  // namespace seglog
