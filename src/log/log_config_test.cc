#include "seglog/log_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(LogConfigTest, DefaultsAreKafkas) {
  LogConfig c;
  EXPECT_EQ(c.segment_bytes, 1073741824);
  EXPECT_EQ(c.segment_ms, 604800000);
  EXPECT_EQ(c.segment_index_bytes, 10485760);
  EXPECT_EQ(c.index_interval_bytes, 4096);
  EXPECT_EQ(c.max_message_bytes, 1048588);
  EXPECT_EQ(c.message_timestamp_after_max_ms, 3600000);
  EXPECT_TRUE(c.cleanup_delete);
  EXPECT_FALSE(c.cleanup_compact);
  EXPECT_TRUE(c.Overrides().empty());
}

TEST(LogConfigTest, SegmentBytesBelowOneMebibyteIsRefusedInKafkasWords) {
  LogConfig c;
  Status s = c.Set("segment.bytes", "102400");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.ToString(),
              HasSubstr("Invalid value 102400 for configuration segment.bytes: Value must be at "
                        "least 1048576"));
  EXPECT_EQ(c.segment_bytes, 1073741824);  // unchanged
  // The test-only internal setting may go lower, as Kafka's does.
  ASSERT_TRUE(c.Set("internal.segment.bytes", "102400").ok());
  EXPECT_EQ(c.SegmentSize(), 102400);
}

TEST(LogConfigTest, ParsesAndValidatesEachKind) {
  LogConfig c;
  EXPECT_TRUE(c.Set("segment.ms", "5000").ok());
  EXPECT_EQ(c.segment_ms, 5000);
  EXPECT_THAT(c.Set("segment.ms", "abc").ToString(), HasSubstr("Not a number of type LONG"));
  EXPECT_THAT(c.Set("index.interval.bytes", "9999999999").ToString(),
              HasSubstr("Not a number of type INT"));
  EXPECT_TRUE(c.Set("message.timestamp.type", "LogAppendTime").ok());
  EXPECT_EQ(c.message_timestamp_type, TimestampType::kLogAppendTime);
  EXPECT_FALSE(c.Set("message.timestamp.type", "WallTime").ok());
  EXPECT_TRUE(c.Set("cleanup.policy", "compact,delete").ok());
  EXPECT_TRUE(c.cleanup_compact && c.cleanup_delete);
  EXPECT_TRUE(c.Set("cleanup.policy", "compact").ok());
  EXPECT_FALSE(c.cleanup_delete);
  EXPECT_FALSE(c.Set("cleanup.policy", "compact,shred").ok());
  EXPECT_TRUE(c.Set("compression.type", "zstd").ok());
  EXPECT_EQ(c.compression, CompressionType::kZstd);
  EXPECT_TRUE(c.Set("compression.type", "producer").ok());
  EXPECT_FALSE(c.compression.has_value());
  EXPECT_FALSE(c.Set("compression.type", "brotli").ok());
  EXPECT_TRUE(c.Set("preallocate", "true").ok());
  EXPECT_FALSE(c.Set("preallocate", "yes").ok());
  EXPECT_THAT(c.Set("segment.bites", "1").ToString(),
              HasSubstr("Unknown topic config name: segment.bites"));
}

TEST(LogConfigTest, FromPropertiesReportsEveryProblemAtOnce) {
  auto r = LogConfig::FromProperties(
      {{"segment.bytes", "5"}, {"no.such.key", "1"}, {"segment.ms", "100"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().ToString(), HasSubstr("segment.bytes"));
  EXPECT_THAT(r.status().ToString(), HasSubstr("no.such.key"));
  auto ok =
      LogConfig::FromProperties({{"segment.bytes", "1048576"}, {"cleanup.policy", "compact"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->Overrides(), (std::map<std::string, std::string>{{"cleanup.policy", "compact"},
                                                                 {"segment.bytes", "1048576"}}));
}

TEST(LogConfigTest, MaxSegmentMsIsCappedByMaxCompactionLagOnCompactedTopics) {
  LogConfig c;
  ASSERT_TRUE(c.Set("segment.ms", "100000").ok());
  ASSERT_TRUE(c.Set("max.compaction.lag.ms", "5000").ok());
  EXPECT_EQ(c.MaxSegmentMs(), 100000);  // not compacted
  ASSERT_TRUE(c.Set("cleanup.policy", "compact").ok());
  EXPECT_EQ(c.MaxSegmentMs(), 5000);
}

}  // namespace
}  // namespace seglog
