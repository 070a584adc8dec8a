#include "base/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace seglog {
namespace {

std::vector<uint8_t> Enc32(int32_t v) {
  uint8_t buf[kMaxVarintBytes];
  uint8_t* end = EncodeVarint(buf, v);
  return std::vector<uint8_t>(buf, end);
}
std::vector<uint8_t> Enc64(int64_t v) {
  uint8_t buf[kMaxVarlongBytes];
  uint8_t* end = EncodeVarlong(buf, v);
  return std::vector<uint8_t>(buf, end);
}

TEST(VarintTest, KnownEncodingsMatchKafka) {
  // Values from the protobuf/Kafka zigzag definition.
  EXPECT_EQ(Enc32(0), (std::vector<uint8_t>{0x00}));
  EXPECT_EQ(Enc32(-1), (std::vector<uint8_t>{0x01}));
  EXPECT_EQ(Enc32(1), (std::vector<uint8_t>{0x02}));
  EXPECT_EQ(Enc32(63), (std::vector<uint8_t>{0x7e}));
  EXPECT_EQ(Enc32(-64), (std::vector<uint8_t>{0x7f}));
  EXPECT_EQ(Enc32(64), (std::vector<uint8_t>{0x80, 0x01}));
  EXPECT_EQ(Enc32(std::numeric_limits<int32_t>::max()),
            (std::vector<uint8_t>{0xfe, 0xff, 0xff, 0xff, 0x0f}));
  EXPECT_EQ(Enc32(std::numeric_limits<int32_t>::min()),
            (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x0f}));
  EXPECT_EQ(Enc64(std::numeric_limits<int64_t>::min()).size(), 10u);
  EXPECT_EQ(Enc64(300), (std::vector<uint8_t>{0xd8, 0x04}));
}

TEST(VarintTest, SizesAgreeWithEncoding) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 10000; ++i) {
    int64_t v64 = static_cast<int64_t>(rng()) >> (rng() % 64);
    int32_t v32 = static_cast<int32_t>(v64);
    EXPECT_EQ(static_cast<int>(Enc32(v32).size()), VarintSize(v32));
    EXPECT_EQ(static_cast<int>(Enc64(v64).size()), VarlongSize(v64));
  }
}

TEST(VarintTest, RoundTripsEdgeAndRandomValues) {
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 127,
                                 128,
                                 -128,
                                 16383,
                                 16384,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 5000; ++i) values.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  for (int64_t v : values) {
    auto b64 = Enc64(v);
    int64_t out64 = 0;
    int len = 0;
    ASSERT_EQ(DecodeVarlong(b64.data(), b64.data() + b64.size(), &out64, &len), VarintError::kOk);
    EXPECT_EQ(out64, v);
    EXPECT_EQ(len, static_cast<int>(b64.size()));
    int32_t v32 = static_cast<int32_t>(v);
    auto b32 = Enc32(v32);
    int32_t out32 = 0;
    ASSERT_EQ(DecodeVarint(b32.data(), b32.data() + b32.size(), &out32, &len), VarintError::kOk);
    EXPECT_EQ(out32, v32);
  }
}

TEST(VarintTest, RejectsVarintLongerThanFiveBytes) {
  const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  int32_t v = 0;
  int len = 0;
  EXPECT_EQ(DecodeVarint(six, six + sizeof six, &v, &len), VarintError::kTooLong);
  // A long may use those six bytes.
  int64_t v64 = 0;
  EXPECT_EQ(DecodeVarlong(six, six + sizeof six, &v64, &len), VarintError::kOk);
  EXPECT_EQ(len, 6);
}

TEST(VarintTest, RejectsVarlongLongerThanTenBytes) {
  std::vector<uint8_t> eleven(10, 0x80);
  eleven.push_back(0x01);
  int64_t v = 0;
  int len = 0;
  EXPECT_EQ(DecodeVarlong(eleven.data(), eleven.data() + eleven.size(), &v, &len),
            VarintError::kTooLong);
}

TEST(VarintTest, TruncatedAtEveryLength) {
  auto bytes = Enc64(std::numeric_limits<int64_t>::min());
  for (size_t n = 0; n < bytes.size(); ++n) {
    int64_t v = 0;
    int len = 0;
    EXPECT_EQ(DecodeVarlong(bytes.data(), bytes.data() + n, &v, &len), VarintError::kTruncated)
        << "length " << n;
  }
}

}  // namespace
}  // namespace seglog
