#include "manager/log_manager_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(LogManagerConfigTest, DefaultsAreKafkas) {
  auto c = LogManagerConfig::FromProperties({});
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

TEST(LogManagerConfigTest, SynonymsFollowKafkasPrecedence) {
  // log.retention.ms over .minutes over .hours; log.roll.ms over .hours.
  auto c = LogManagerConfig::FromProperties({{"log.retention.hours", "1"},
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
  auto ms = LogManagerConfig::FromProperties(
      {{"log.retention.ms", "20000"}, {"log.retention.hours", "1"}});
  EXPECT_EQ(ms->TopicConfig({})->retention_ms, 20000);
  auto negative = LogManagerConfig::FromProperties({{"log.retention.hours", "-5"}});
  EXPECT_EQ(negative->TopicConfig({})->retention_ms, -1);  // any negative: unlimited
  // A topic override wins over the broker default.
  auto o = c->TopicConfig({{"retention.ms", "1000"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->retention_ms, 1000);
}

TEST(LogManagerConfigTest, BadValuesAndUnknownKeysAreRefusedInKafkasWords) {
  auto c = LogManagerConfig::FromProperties({{"log.segment.bytes", "102400"},
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
  auto k = LogManagerConfig::FromProperties(
      {{"process.roles", "broker,controller"}, {"ssl.keystore.location", "/x"}});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->ignored, (std::vector<std::string>{"process.roles", "ssl.keystore.location"}));
  // Cross-field rules apply to the defaults too.
  auto lag = LogManagerConfig::FromProperties(
      {{"log.cleaner.min.compaction.lag.ms", "10"}, {"log.cleaner.max.compaction.lag.ms", "5"}});
  EXPECT_THAT(lag.status().message(),
              HasSubstr("min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"));
  // A bad topic override names the topic key.
  auto ok = LogManagerConfig::FromProperties({});
  EXPECT_THAT(ok->TopicConfig({{"segment.bytes", "102400"}}).status().message(),
              HasSubstr("Invalid value 102400 for configuration segment.bytes"));
  EXPECT_THAT(ok->TopicConfig({{"retention.mss", "1"}}).status().message(),
              HasSubstr("retention.mss"));
}

TEST(LogManagerConfigTest, KeysOfTheLayersAboveAreOfferedToThemThenIgnored) {
  // Parsed alone (the embedded Storage, the tools), a Kafka broker's keys outside storage
  // are accepted and listed as unused.
  auto alone = LogManagerConfig::FromProperties({{"listeners", "PLAINTEXT://:9092"},
                                                 {"num.io.threads", "4"},
                                                 {"offsets.topic.num.partitions", "3"},
                                                 {"rsm.config.storage.s3.bucket.name", "b"},
                                                 {"log.segment.bytes", "2097152"}});
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_EQ(alone->ignored,
            (std::vector<std::string>{"listeners", "num.io.threads", "offsets.topic.num.partitions",
                                      "rsm.config.storage.s3.bucket.name"}));
  EXPECT_EQ(alone->TopicConfig({})->segment_bytes, 2097152);
  // A layer above gets each key storage does not own first: its verdict stands, and what it
  // takes is not listed as unused.
  std::vector<std::string> offered;
  auto layer = [&](const std::string& k, const std::string& v) -> std::optional<Status> {
    offered.push_back(k);
    if (k == "num.io.threads") {
      return v == "0" ? Status::InvalidArgument("num.io.threads: at least 1") : Status::OK();
    }
    return std::nullopt;
  };
  LogManagerConfig c;
  std::vector<std::string> errors;
  LogManagerConfig::Parse({{"num.io.threads", "0"},
                           {"listeners", "PLAINTEXT://:9092"},
                           {"log.segment.bytes", "2097152"},
                           {"log.segmnet.bytes", "1"}},
                          layer, &c, &errors);
  EXPECT_EQ(offered,
            (std::vector<std::string>{"listeners", "log.segmnet.bytes", "num.io.threads"}));
  EXPECT_EQ(c.ignored, std::vector<std::string>{"listeners"});
  EXPECT_EQ(errors, (std::vector<std::string>{"Unknown configuration 'log.segmnet.bytes'",
                                              "num.io.threads: at least 1"}));
  Status finished = c.Finish(errors);
  EXPECT_THAT(std::string(finished.message()),
              HasSubstr("Unknown configuration 'log.segmnet.bytes'; num.io.threads: at least 1"));
}

}  // namespace
}  // namespace seglog
