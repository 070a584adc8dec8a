// Tests for the coordinator partition of a group id. The expected hashes were printed by
// Java 17 (new String(bytes, UTF_8).hashCode(), and Utils.abs(hash) % 50).
#include "group/group_partitioner.h"

#include <gtest/gtest.h>

#include <string>

namespace seglog {
namespace {

std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

TEST(GroupPartitionerTest, MatchesJavaStringHashCode) {
  struct Case {
    std::string id;
    int32_t hash;
    int32_t partition_of_50;
  };
  const Case cases[] = {
      {"", 0, 0},
      {"hello", 99162322, 22},
      {"console-consumer-12345", 158455506, 6},
      {"gr\xc3\xbc\xc3\x9f"
       "e-\xe2\x82\xac-\xf0\x9f\x98\x80",
       1678055834, 34},  // 2-, 3-, 4-byte
      // Ill-formed: a stray 0xff, a truncated 3-byte sequence, a truncated 4-byte one, an
      // encoded surrogate and an overlong '/': each ill-formed part becomes U+FFFD.
      {Hex("ff41e28241f09f98eda080c0af"), -1291613688, 38},
      {"polygenelubricants", INT32_MIN, 0},  // Utils.abs(Integer.MIN_VALUE) is 0
  };
  for (const Case& c : cases) {
    EXPECT_EQ(JavaStringHashCode(c.id), c.hash) << c.id;
    EXPECT_EQ(CoordinatorPartitionFor(c.id, 50), c.partition_of_50) << c.id;
  }
}

// Java's decoding of ill-formed input, piece by piece (printed by Java 17: the UTF-16 length
// of new String(bytes, UTF_8), each U+FFFD or character one unit).
TEST(GroupPartitionerTest, IllFormedUtf8DecodesAsJavaDoes) {
  struct Case {
    const char* hex;
    size_t length;
  };
  const Case cases[] = {
      {"ff41", 2}, {"e28241", 2}, {"f09f9841", 2}, {"eda080", 1}, {"c0af", 2},   {"e2", 1},
      {"f09f", 1}, {"ed9fbf", 1}, {"f4908080", 4}, {"80", 1},     {"e0808f", 3}, {"f09f9880", 2},
  };
  for (const Case& c : cases) EXPECT_EQ(JavaStringLength(Hex(c.hex)), c.length) << c.hex;
  EXPECT_EQ(JavaStringHashCode(Hex("ed9fbf")), 0xd7ff);
  EXPECT_EQ(JavaStringHashCode(Hex("ff41")), 0xfffd * 31 + 0x41);
}

TEST(GroupPartitionerTest, EveryPartitionIsInRange) {
  for (int i = 0; i < 2000; ++i) {
    const std::string id = "group-" + std::to_string(i * 7919);
    for (int32_t n : {1, 3, 50}) {
      const int32_t p = CoordinatorPartitionFor(id, n);
      EXPECT_GE(p, 0);
      EXPECT_LT(p, n);
    }
  }
  EXPECT_EQ(KafkaAbs(-5), 5);
  EXPECT_EQ(KafkaAbs(INT32_MIN), 0);
}

}  // namespace
}  // namespace seglog
