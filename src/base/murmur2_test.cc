#include "base/murmur2.h"

#include <gtest/gtest.h>

#include <string>

namespace seglog {
namespace {

std::span<const uint8_t> B(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Values printed by Kafka 4.4.0's org.apache.kafka.common.utils.Utils.murmur2 (and
// toPositive(...) % 3) for the same bytes.
TEST(Murmur2Test, MatchesKafkasClient) {
  struct Case {
    const char* key;
    int32_t hash;
    int32_t partition_of_3;
  };
  for (const Case& c :
       {Case{"", 275646681, 0}, Case{"a", -1563381124, 1}, Case{"21", -973932308, 0},
        Case{"foobar", -790332482, 0}, Case{"a-little-bit-long-string", -985981536, 2},
        Case{"a-little-bit-longer-string", -1486304829, 2},
        Case{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971, 2},
        Case{"abc", 479470107, 0}, Case{"k-000000", -576642948, 2}, Case{"user1", 1619149554, 0},
        Case{"user2", -681250719, 2}}) {
    EXPECT_EQ(Murmur2(B(c.key)), c.hash) << c.key;
    EXPECT_EQ(PartitionForKey(B(c.key), 3), c.partition_of_3) << c.key;
  }
}

}  // namespace
}  // namespace seglog
