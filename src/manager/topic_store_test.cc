#include "manager/topic_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "log/checkpoint_file.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

TEST(TopicStoreTest, RoundTripsAndFindsKafkaPartitionDirectories) {
  testing::TempDir tmp;
  TopicMap topics;
  topics["orders"] = TopicMetadata{3, {{"segment.bytes", "1048576"}}, "8PHy8_T19vf4-fr7_P3-_w"};
  ASSERT_TRUE(SaveTopics(tmp.path(), topics).ok());
  // A Kafka-written topic's id comes from its partition.metadata.
  std::filesystem::create_directories(tmp.path() + "/kafka-made-1");
  ASSERT_TRUE(WritePartitionMetadata(tmp.path() + "/kafka-made-1/partition.metadata",
                                     "AAAAAAAAAAAAAAAAAAAAAg")
                  .ok());
  std::filesystem::create_directories(tmp.path() + "/kafka-made-0");
  std::filesystem::create_directories(tmp.path() + "/kafka-made-1");
  std::filesystem::create_directories(tmp.path() + "/orders-0");
  std::filesystem::create_directories(tmp.path() + "/orders-0.0123abcd-delete");
  auto loaded = LoadTopics(tmp.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)["orders"].partitions, 3);
  EXPECT_EQ((*loaded)["orders"].configs.at("segment.bytes"), "1048576");
  EXPECT_EQ((*loaded)["kafka-made"].partitions, 2);
  EXPECT_EQ((*loaded)["kafka-made"].topic_id, "AAAAAAAAAAAAAAAAAAAAAg");
  EXPECT_EQ((*loaded)["orders"].topic_id, "8PHy8_T19vf4-fr7_P3-_w");
  EXPECT_EQ(*ListPartitionDirs(tmp.path(), "orders"), (std::vector<int32_t>{0}));
  auto config = TopicConfig((*loaded)["orders"]);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->segment_bytes, 1048576);
}

TEST(TopicStoreTest, CorruptStoreIsReportedByName) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() + "/seglog-topics.json") << "{not json";
  auto loaded = LoadTopics(tmp.path());
  EXPECT_TRUE(loaded.status().IsCorruption());
  EXPECT_THAT(loaded.status().ToString(), ::testing::HasSubstr("seglog-topics.json"));
}

}  // namespace
}  // namespace seglog
