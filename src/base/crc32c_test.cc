#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace seglog {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(Crc32cTest, StandardCheckValue) { EXPECT_EQ(Crc32c(Bytes("123456789")), 0xE3069283u); }

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(Crc32c({}), 0u);
  // RFC 3720 B.4: 32 bytes of zeros, and 32 bytes of 0xFF.
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff);
  EXPECT_EQ(Crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(ones), 0x62A8AB43u);
  // Four zero bytes: the CRC of an empty producer snapshot's array
  // (docs/format/producer_snapshot.md, "The snapshot file").
  EXPECT_EQ(Crc32c(std::span<const uint8_t>(zeros.data(), 4)), 0x48674BC7u);
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::mt19937 rng(1);
  std::vector<uint8_t> data(10000);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  const uint32_t whole = Crc32c(data);
  for (size_t split : {size_t{0}, size_t{1}, size_t{17}, size_t{4096}, data.size()}) {
    std::span<const uint8_t> s(data);
    EXPECT_EQ(Crc32cExtend(Crc32c(s.first(split)), s.subspan(split)), whole) << split;
  }
}

TEST(Crc32cTest, DetectsEverySingleBitFlip) {
  std::vector<uint8_t> data(64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  const uint32_t base = Crc32c(data);
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_NE(Crc32c(data), base) << bit;
    data[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
}

TEST(Crc32IeeeTest, StandardCheckValue) { EXPECT_EQ(Crc32Ieee(Bytes("123456789")), 0xCBF43926u); }

}  // namespace
}  // namespace seglog
