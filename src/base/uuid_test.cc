#include "base/uuid.h"

#include <gtest/gtest.h>

#include <set>

namespace seglog {
namespace {

// Kafka's Uuid.toString is URL-safe Base64 of the 16 bytes without padding.
TEST(UuidTest, TextIsUrlSafeBase64WithoutPadding) {
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(0xf0 + i);
  // base64url(f0 f1 ... ff) computed independently: python3 -c "import base64;
  // print(base64.urlsafe_b64encode(bytes(range(0xf0,0x100))).decode().rstrip('='))"
  EXPECT_EQ(u.ToString(), "8PHy8_T19vf4-fr7_P3-_w");
  auto back = Uuid::Parse("8PHy8_T19vf4-fr7_P3-_w");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, u);
}

TEST(UuidTest, RandomIdsAreVersion4AndRoundTrip) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    Uuid u = Uuid::Random();
    EXPECT_EQ(u.bytes[6] >> 4, 4);
    EXPECT_NE(u.ToString()[0], '-');
    EXPECT_FALSE(u.IsZero());
    auto back = Uuid::Parse(u.ToString());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, u);
    seen.insert(u.ToString());
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(UuidTest, BadTextIsRefusedWithTheReason) {
  EXPECT_NE(Uuid::Parse("short").status().message().find("expected 22"), std::string::npos);
  EXPECT_NE(Uuid::Parse("8PHy8_T19vf4+fr7_P3-_w").status().message().find("'+'"),
            std::string::npos);
  EXPECT_NE(Uuid::Parse("8PHy8_T19vf4-fr7_P3-_x").status().message().find("trailing"),
            std::string::npos);
}

}  // namespace
}  // namespace seglog
