#include "base/byte_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(ByteReaderTest, ReadsBigEndianFields) {
  const std::vector<uint8_t> b = {0x7f, 0x01, 0x02, 0xff, 0xff, 0xff, 0xfe, 0,
                                  0,    0,    0,    0,    0,    0x01, 0x00, 0x02};
  ByteReader r(b);
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  ASSERT_TRUE(r.ReadInt8("a", &i8).ok());
  ASSERT_TRUE(r.ReadInt16("b", &i16).ok());
  ASSERT_TRUE(r.ReadInt32("c", &i32).ok());
  ASSERT_TRUE(r.ReadInt64("d", &i64).ok());
  EXPECT_EQ(i8, 0x7f);
  EXPECT_EQ(i16, 0x0102);
  EXPECT_EQ(i32, -2);
  EXPECT_EQ(i64, 0x100);
  int8_t extra;
  EXPECT_TRUE(r.ReadInt8("e", &extra).ok());
  EXPECT_EQ(extra, 2);
  EXPECT_TRUE(r.empty());
}

TEST(ByteReaderTest, TruncationNamesFieldPositionAndCounts) {
  const std::vector<uint8_t> b = {1, 2, 3};
  ByteReader r(b, /*base_position=*/1000);
  int8_t skip;
  ASSERT_TRUE(r.ReadInt8("first", &skip).ok());
  int32_t v = 12345;
  Status s = r.ReadInt32("recordsCount", &v);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.ToString(), HasSubstr("recordsCount"));
  EXPECT_THAT(s.ToString(), HasSubstr("byte 1001"));
  EXPECT_THAT(s.ToString(), HasSubstr("need 4"));
  EXPECT_THAT(s.ToString(), HasSubstr("found 2"));
  EXPECT_EQ(v, 12345);        // untouched on failure
  EXPECT_EQ(r.offset(), 1u);  // cursor did not move
}

TEST(ByteReaderTest, ReadBytesNeverPastEnd) {
  const std::vector<uint8_t> b = {1, 2, 3, 4};
  ByteReader r(b);
  std::span<const uint8_t> out;
  EXPECT_TRUE(r.ReadBytes("x", 4, &out).ok());
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(out.data(), b.data());  // a view, not a copy
  EXPECT_TRUE(r.ReadBytes("y", 0, &out).ok());
  EXPECT_TRUE(r.ReadBytes("z", 1, &out).IsCorruption());
  ByteReader r2(b);
  // A huge length must fail cleanly, not wrap around.
  EXPECT_TRUE(r2.ReadBytes("huge", SIZE_MAX, &out).IsCorruption());
  EXPECT_TRUE(r2.Skip("huge", SIZE_MAX - 1).IsCorruption());
}

TEST(ByteReaderTest, VarintErrors) {
  const std::vector<uint8_t> too_long = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  ByteReader r(too_long, 50);
  int32_t v;
  Status s = r.ReadVarint("keyLength", &v);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.ToString(), HasSubstr("keyLength"));
  EXPECT_THAT(s.ToString(), HasSubstr("byte 50"));
  EXPECT_THAT(s.ToString(), HasSubstr("longer than 5"));

  const std::vector<uint8_t> truncated = {0x80, 0x80};
  ByteReader r2(truncated);
  int64_t v64;
  EXPECT_THAT(r2.ReadVarlong("timestampDelta", &v64).ToString(), HasSubstr("truncated"));
}

}  // namespace
}  // namespace seglog
