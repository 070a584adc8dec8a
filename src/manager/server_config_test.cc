#include "manager/server_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(ServerConfigTest, DefaultsAreKafkas) {
  auto c = ServerConfig::FromProperties({});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->log_dirs, std::vector<std::string>{"/tmp/kafka-logs"});
  EXPECT_EQ(c->num_recovery_threads_per_data_dir, 2);
  EXPECT_EQ(c->log_retention_check_interval_ms, 300000);
  EXPECT_EQ(c->log_initial_task_delay_ms, 30000);
  auto topic = c->TopicConfig({});
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->retention_ms, 604800000);
  EXPECT_EQ(topic->segment_bytes, 1073741824);
  EXPECT_EQ(topic->file_delete_delay_ms, 60000);
}

TEST(ServerConfigTest, SynonymsFollowKafkasPrecedence) {
  // log.retention.ms over .minutes over .hours; log.roll.ms over .hours.
  auto c = ServerConfig::FromProperties({{"log.retention.hours", "1"},
                                         {"log.retention.minutes", "5"},
                                         {"log.roll.hours", "2"},
                                         {"log.dirs", "/a, /b"},
                                         {"log.dir", "/ignored"},
                                         {"log.segment.bytes", "2097152"},
                                         {"log.segment.delete.delay.ms", "10000"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->log_dirs, (std::vector<std::string>{"/a", "/b"}));
  auto t = c->TopicConfig({});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->retention_ms, 300000);
  EXPECT_EQ(t->segment_ms, 7200000);
  EXPECT_EQ(t->segment_bytes, 2097152);
  EXPECT_EQ(t->file_delete_delay_ms, 10000);
  auto ms =
      ServerConfig::FromProperties({{"log.retention.ms", "20000"}, {"log.retention.hours", "1"}});
  EXPECT_EQ(ms->TopicConfig({})->retention_ms, 20000);
  auto negative = ServerConfig::FromProperties({{"log.retention.hours", "-5"}});
  EXPECT_EQ(negative->TopicConfig({})->retention_ms, -1);  // any negative: unlimited
  // A topic override wins over the broker default.
  auto o = c->TopicConfig({{"retention.ms", "1000"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->retention_ms, 1000);
}

TEST(ServerConfigTest, BadValuesAndUnknownKeysAreRefusedInKafkasWords) {
  auto c = ServerConfig::FromProperties({{"log.segment.bytes", "102400"},
                                         {"num.recovery.threads.per.data.dir", "0"},
                                         {"log.retention.bytes", "lots"},
                                         {"log.segmnet.bytes", "1"}});
  ASSERT_FALSE(c.ok());
  const std::string m(c.status().message());
  EXPECT_THAT(m, HasSubstr("Invalid value 102400 for configuration log.segment.bytes: Value must "
                           "be at least 1048576"));
  EXPECT_THAT(m, HasSubstr("Invalid value 0 for configuration "
                           "num.recovery.threads.per.data.dir: Value must be at least 1"));
  EXPECT_THAT(m, HasSubstr("configuration log.retention.bytes: Not a number of type LONG"));
  EXPECT_THAT(m, HasSubstr("Unknown configuration 'log.segmnet.bytes'"));
  // A Kafka broker's other settings are accepted and listed as unused.
  auto k = ServerConfig::FromProperties({{"process.roles", "broker,controller"},
                                         {"listeners", "PLAINTEXT://:9092"},
                                         {"socket.send.buffer.bytes", "102400"}});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->ignored.size(), 3u);
  // Cross-field rules apply to the defaults too.
  auto lag = ServerConfig::FromProperties(
      {{"log.cleaner.min.compaction.lag.ms", "10"}, {"log.cleaner.max.compaction.lag.ms", "5"}});
  EXPECT_THAT(lag.status().message(),
              HasSubstr("min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"));
  // A bad topic override names the topic key.
  auto ok = ServerConfig::FromProperties({});
  EXPECT_THAT(ok->TopicConfig({{"segment.bytes", "102400"}}).status().message(),
              HasSubstr("Invalid value 102400 for configuration segment.bytes"));
  EXPECT_THAT(ok->TopicConfig({{"retention.mss", "1"}}).status().message(),
              HasSubstr("retention.mss"));
}

}  // namespace
}  // namespace seglog
