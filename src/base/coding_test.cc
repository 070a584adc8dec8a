#include "base/coding.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

TEST(CodingTest, BigEndianRoundTrip) {
  uint8_t buf[8];
  StoreBE64(buf, 0x0102030405060708ull);
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(buf[7], 8);
  EXPECT_EQ(LoadBE64(buf), 0x0102030405060708ull);
  StoreBE32(buf, 0xE99B8DD8u);
  EXPECT_EQ(buf[0], 0xE9);
  EXPECT_EQ(LoadBE32(buf), 0xE99B8DD8u);
  StoreBE16(buf, 0xfffe);
  EXPECT_EQ(LoadBEInt16(buf), -2);
  StoreBE32(buf, static_cast<uint32_t>(-1));
  EXPECT_EQ(LoadBEInt32(buf), -1);
  StoreLE32(buf, 0x184D2204u);
  EXPECT_EQ(buf[0], 0x04);
  EXPECT_EQ(buf[3], 0x18);
  EXPECT_EQ(LoadLE32(buf), 0x184D2204u);
}

}  // namespace
}  // namespace seglog
