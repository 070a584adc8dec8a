// The partition APIs (partition_handlers.cc: CreatePartitions, DeleteRecords,
// OffsetForLeaderEpoch, DescribeLogDirs, DescribeTopicPartitions) called directly over a
// LogManager in temporary directories, each response encoded at every version its API serves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "server/expect_encodes.h"
#include "server/generated/broker_config_defs.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;
namespace ke = kafka_error;
namespace p = protocol;

class PartitionHandlersTest : public HandlersTest {};

// ---- CreatePartitions

p::CreatePartitionsRequestData::CreatePartitionsTopic PartitionsTopic(
    const std::string& name, int32_t count,
    std::optional<std::vector<std::vector<int32_t>>> assignments = std::nullopt) {
  p::CreatePartitionsRequestData::CreatePartitionsTopic t;
  t.name = name;
  t.count = count;
  if (assignments) {
    t.assignments.emplace();
    for (const auto& a : *assignments) t.assignments->emplace_back().broker_ids = a;
  } else {
    t.assignments = std::nullopt;
  }
  return t;
}

TEST_F(PartitionHandlersTest, CreatePartitionsGrowsTheTopic) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("audit", 1).ok());
  p::CreatePartitionsRequestData req;
  req.topics.push_back(PartitionsTopic("orders", 4));
  req.topics.push_back(PartitionsTopic("audit", 3, std::vector<std::vector<int32_t>>{{1}, {1}}));
  for (int16_t v : {0, 3}) {
    if (v == 3) {
      req.topics[0].count = 5;
      req.topics[1] = PartitionsTopic("audit", 4);
    }
    auto resp = HandleCreatePartitions(ctx_, rc_, req, v);
    ASSERT_EQ(resp.results.size(), 2u);
    EXPECT_EQ(resp.throttle_time_ms, 0);
    for (const auto& r : resp.results) {
      EXPECT_EQ(r.error_code, ke::kNone) << r.name;
      EXPECT_EQ(r.error_message, std::nullopt);
    }
    EXPECT_EQ(resp.results[0].name, "orders");
    EXPECT_EQ(resp.results[1].name, "audit");
    testing::ExpectEncodes(resp, p::ApiKey::kCreatePartitions);
  }
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 5);
  EXPECT_EQ(logs_->FindTopic("audit")->partitions, 4);
  EXPECT_NE(GetLog("orders", 4), nullptr);
}

TEST_F(PartitionHandlersTest, CreatePartitionsRefusesAsKafkaDoes) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  ASSERT_TRUE(logs_->CreateTopic("dup", 1).ok());
  p::CreatePartitionsRequestData req;
  req.topics.push_back(PartitionsTopic("orders", 2));
  req.topics.push_back(PartitionsTopic("orders2", 2));
  req.topics.push_back(PartitionsTopic("dup", 2));
  req.topics.push_back(PartitionsTopic("dup", 3));
  auto resp = HandleCreatePartitions(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.results.size(), 3u);
  EXPECT_EQ(resp.results[0].name, "orders");
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidPartitions);
  EXPECT_EQ(resp.results[0].error_message,
            "The topic orders currently has 3 partition(s); 2 would not be an increase.");
  EXPECT_EQ(resp.results[1].name, "orders2");
  EXPECT_EQ(resp.results[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.results[1].error_message, std::nullopt);
  EXPECT_EQ(resp.results[2].name, "dup");
  EXPECT_EQ(resp.results[2].error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.results[2].error_message, "Duplicate topic name.");
  testing::ExpectEncodes(resp, p::ApiKey::kCreatePartitions);

  req.topics = {PartitionsTopic("orders", 3)};
  resp = HandleCreatePartitions(ctx_, rc_, req, 0);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidPartitions);
  EXPECT_EQ(resp.results[0].error_message, "Topic already has 3 partition(s).");

  req.topics = {PartitionsTopic("orders", 5, std::vector<std::vector<int32_t>>{{1}, {2}})};
  resp = HandleCreatePartitions(ctx_, rc_, req, 1);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidReplicaAssignment);
  EXPECT_EQ(resp.results[0].error_message,
            "The manual partition assignment includes broker 2, but no such broker is "
            "registered.");
  req.topics = {PartitionsTopic("orders", 5, std::vector<std::vector<int32_t>>{{1}})};
  resp = HandleCreatePartitions(ctx_, rc_, req, 1);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidReplicaAssignment);
  EXPECT_EQ(resp.results[0].error_message,
            "Attempted to add 2 additional partition(s), but only 1 assignment(s) were "
            "specified.");
  req.topics = {PartitionsTopic("orders", 4, std::vector<std::vector<int32_t>>{{}})};
  resp = HandleCreatePartitions(ctx_, rc_, req, 1);
  EXPECT_EQ(resp.results[0].error_message,
            "The manual partition assignment includes an empty replica list.");
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 3);
  EXPECT_EQ(logs_->FindTopic("dup")->partitions, 1);
}

TEST_F(PartitionHandlersTest, CreatePartitionsValidateOnlyChangesNothing) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  p::CreatePartitionsRequestData req;
  req.validate_only = true;
  req.topics.push_back(PartitionsTopic("orders", 6));
  auto resp = HandleCreatePartitions(ctx_, rc_, req, 3);
  ASSERT_EQ(resp.results.size(), 1u);
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 1);
  EXPECT_FALSE(logs_->GetLog(TopicPartition{"orders", 1}).ok());
}

// ---- DeleteRecords

p::DeleteRecordsRequestData DeleteRecordsRequest(
    const std::string& topic, std::vector<std::pair<int32_t, int64_t>> partitions) {
  p::DeleteRecordsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  for (auto [index, offset] : partitions) {
    auto& part = t.partitions.emplace_back();
    part.partition_index = index;
    part.offset = offset;
  }
  return req;
}

TEST_F(PartitionHandlersTest, DeleteRecordsRaisesTheLogStartOffset) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  Append("orders", 0, 10);
  Append("orders", 1, 4);
  auto req = DeleteRecordsRequest("orders", {{0, 6}, {1, -1}, {2, -1}});
  for (int16_t v = 0; v <= 2; ++v) {
    auto resp = HandleDeleteRecords(ctx_, rc_, req, v);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].name, "orders");
    const auto& parts = resp.topics[0].partitions;
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].partition_index, 0);
    EXPECT_EQ(parts[0].error_code, ke::kNone);
    EXPECT_EQ(parts[0].low_watermark, 6);
    EXPECT_EQ(parts[1].partition_index, 1);
    EXPECT_EQ(parts[1].error_code, ke::kNone);
    EXPECT_EQ(parts[1].low_watermark, 4);
    EXPECT_EQ(parts[2].error_code, ke::kNone);
    EXPECT_EQ(parts[2].low_watermark, 0);
    testing::ExpectEncodes(resp, p::ApiKey::kDeleteRecords);
  }
  EXPECT_EQ(GetLog("orders", 0)->log_start_offset(), 6);
  // Below the log start offset: nothing changes, the answer is the current start.
  auto resp = HandleDeleteRecords(ctx_, rc_, DeleteRecordsRequest("orders", {{0, 2}}), 2);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].partitions[0].low_watermark, 6);
}

TEST_F(PartitionHandlersTest, DeleteRecordsRefusesOffsetsOutOfRangeAndUnknownPartitions) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  ASSERT_TRUE(logs_->CreateTopic("compacted", 1, {{"cleanup.policy", "compact"}}).ok());
  Append("orders", 0, 5);
  auto req = DeleteRecordsRequest("orders", {{0, 6}, {0, -2}, {7, 1}});
  auto& other = req.topics.emplace_back();
  other.name = "nope";
  other.partitions.emplace_back().offset = 0;
  auto& compacted = req.topics.emplace_back();
  compacted.name = "compacted";
  compacted.partitions.emplace_back().offset = 0;
  auto resp = HandleDeleteRecords(ctx_, rc_, req, 1);
  ASSERT_EQ(resp.topics.size(), 3u);
  const auto& parts = resp.topics[0].partitions;
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].error_code, ke::kOffsetOutOfRange);
  EXPECT_EQ(parts[0].low_watermark, -1);
  EXPECT_EQ(parts[1].error_code, ke::kOffsetOutOfRange);
  EXPECT_EQ(parts[1].low_watermark, -1);
  EXPECT_EQ(parts[2].partition_index, 7);
  EXPECT_EQ(parts[2].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.topics[1].name, "nope");
  EXPECT_EQ(resp.topics[1].partitions[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.topics[2].partitions[0].error_code, ke::kPolicyViolation);
  EXPECT_EQ(GetLog("orders", 0)->log_start_offset(), 0);
  testing::ExpectEncodes(resp, p::ApiKey::kDeleteRecords);
}

// ---- OffsetForLeaderEpoch

p::OffsetForLeaderEpochRequestData EpochRequest(const std::string& topic,
                                                std::vector<std::pair<int32_t, int32_t>> asks,
                                                int32_t current_leader_epoch = -1) {
  p::OffsetForLeaderEpochRequestData req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  for (auto [partition, epoch] : asks) {
    auto& part = t.partitions.emplace_back();
    part.partition = partition;
    part.leader_epoch = epoch;
    part.current_leader_epoch = current_leader_epoch;
  }
  return req;
}

TEST_F(PartitionHandlersTest, OffsetForLeaderEpochFollowsTheLeaderEpochCache) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  Append("orders", 0, 5, 0);
  Append("orders", 0, 3, 2);
  Append("orders", 0, 2, 4);  // cache: (0, 0) (2, 5) (4, 8); log end 10
  Append("orders", 1, 4, 0);  // cache: (0, 0); log end 4
  auto req = EpochRequest(
      "orders", {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 0}, {2, 0}, {0, -1}});
  for (int16_t v = 2; v <= 4; ++v) {
    auto resp = HandleOffsetForLeaderEpoch(ctx_, rc_, req, v);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].topic, "orders");
    const auto& r = resp.topics[0].partitions;
    ASSERT_EQ(r.size(), 9u);
    auto expect = [&](size_t i, int32_t partition, int32_t epoch, int64_t end) {
      EXPECT_EQ(r[i].error_code, ke::kNone) << i;
      EXPECT_EQ(r[i].partition, partition) << i;
      EXPECT_EQ(r[i].leader_epoch, epoch) << i;
      EXPECT_EQ(r[i].end_offset, end) << i;
    };
    expect(0, 0, 0, 5);  // the start of the next epoch
    expect(1, 0, 0, 5);  // between epochs: the epoch below, the start of the one above
    expect(2, 0, 2, 8);
    expect(3, 0, 2, 8);
    expect(4, 0, 4, 10);   // the latest epoch: the log end offset
    expect(5, 0, -1, -1);  // above every epoch
    expect(6, 1, 0, 4);
    expect(7, 2, 0, 0);    // a leader's empty log starts epoch 0 at offset 0
    expect(8, 0, -1, -1);  // the undefined epoch
    testing::ExpectEncodes(resp, p::ApiKey::kOffsetForLeaderEpoch);
  }
  // After DeleteRecords the cache starts at the new log start offset.
  ASSERT_TRUE(GetLog("orders", 0)->DeleteRecords(6).ok());
  auto resp = HandleOffsetForLeaderEpoch(ctx_, rc_, EpochRequest("orders", {{0, 1}}), 4);
  EXPECT_EQ(resp.topics[0].partitions[0].leader_epoch, 1);  // below the earliest epoch
  EXPECT_EQ(resp.topics[0].partitions[0].end_offset, 6);
}

TEST_F(PartitionHandlersTest, OffsetForLeaderEpochChecksTheCurrentLeaderEpoch) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  Append("orders", 0, 3);
  auto resp = HandleOffsetForLeaderEpoch(ctx_, rc_, EpochRequest("orders", {{0, 0}}, 0), 3);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].partitions[0].end_offset, 3);
  resp = HandleOffsetForLeaderEpoch(ctx_, rc_, EpochRequest("orders", {{0, 0}, {4, 0}}, 1), 3);
  const auto& r = resp.topics[0].partitions;
  EXPECT_EQ(r[0].error_code, ke::kUnknownLeaderEpoch);
  EXPECT_EQ(r[0].leader_epoch, -1);
  EXPECT_EQ(r[0].end_offset, -1);
  EXPECT_EQ(r[1].error_code, ke::kUnknownTopicOrPartition);
  testing::ExpectEncodes(resp, p::ApiKey::kOffsetForLeaderEpoch);
  resp = HandleOffsetForLeaderEpoch(ctx_, rc_, EpochRequest("nope", {{0, 0}}), 2);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kUnknownTopicOrPartition);
}

// ---- DescribeLogDirs

TEST_F(PartitionHandlersTest, DescribeLogDirsListsEveryPartitionAndItsSize) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("audit", 1).ok());
  Append("orders", 0, 5);
  p::DescribeLogDirsRequestData req;
  req.topics = std::nullopt;
  for (int16_t v = 1; v <= 5; ++v) {
    auto resp = HandleDescribeLogDirs(ctx_, rc_, req, v);
    EXPECT_EQ(resp.error_code, ke::kNone);
    ASSERT_EQ(resp.results.size(), 2u);
    EXPECT_EQ(resp.results[0].log_dir, std::filesystem::path(a_.path()).lexically_normal());
    EXPECT_EQ(resp.results[1].log_dir, std::filesystem::path(b_.path()).lexically_normal());
    std::map<std::string, int64_t> sizes;
    for (const auto& r : resp.results) {
      EXPECT_EQ(r.error_code, ke::kNone);
      EXPECT_FALSE(r.is_cordoned);
      if (v >= 4) {
        EXPECT_GT(r.total_bytes, 0);
        EXPECT_GE(r.usable_bytes, 0);
        EXPECT_LE(r.usable_bytes, r.total_bytes);
      } else {
        EXPECT_EQ(r.total_bytes, -1);
        EXPECT_EQ(r.usable_bytes, -1);
      }
      for (const auto& t : r.topics) {
        for (const auto& part : t.partitions) {
          sizes[t.name + "-" + std::to_string(part.partition_index)] = part.partition_size;
          EXPECT_EQ(part.offset_lag, 0);
          EXPECT_FALSE(part.is_future_key);
        }
      }
    }
    ASSERT_EQ(sizes.size(), 3u);
    EXPECT_EQ(sizes["orders-0"], GetLog("orders", 0)->size_in_bytes());
    EXPECT_GT(sizes["orders-0"], 0);
    EXPECT_EQ(sizes["orders-1"], 0);
    EXPECT_EQ(sizes["audit-0"], 0);
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeLogDirs);
  }
  // Only what was asked for.
  req.topics.emplace();
  auto& t = req.topics->emplace_back();
  t.topic = "orders";
  t.partitions = {1, 7};
  req.topics->emplace_back().topic = "nope";
  auto resp = HandleDescribeLogDirs(ctx_, rc_, req, 4);
  int listed = 0;
  for (const auto& r : resp.results) {
    for (const auto& topic : r.topics) {
      EXPECT_EQ(topic.name, "orders");
      ASSERT_EQ(topic.partitions.size(), 1u);
      EXPECT_EQ(topic.partitions[0].partition_index, 1);
      ++listed;
    }
  }
  EXPECT_EQ(listed, 1);
  req.topics->clear();
  resp = HandleDescribeLogDirs(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.results.size(), 2u);
  EXPECT_TRUE(resp.results[0].topics.empty());
  EXPECT_TRUE(resp.results[1].topics.empty());
}

// ---- DescribeTopicPartitions

p::DescribeTopicPartitionsRequestData DescribeTopicPartitionsRequest(
    std::vector<std::string> topics, int32_t limit = 2000,
    std::optional<std::pair<std::string, int32_t>> cursor = std::nullopt) {
  p::DescribeTopicPartitionsRequestData req;
  for (const auto& t : topics) req.topics.emplace_back().name = t;
  req.response_partition_limit = limit;
  if (cursor) {
    req.cursor.emplace();
    req.cursor->topic_name = cursor->first;
    req.cursor->partition_index = cursor->second;
  }
  return req;
}

TEST_F(PartitionHandlersTest, DescribeTopicPartitionsDescribesTopicsInNameOrder) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("audit", 1).ok());
  auto resp = HandleDescribeTopicPartitions(ctx_, rc_, DescribeTopicPartitionsRequest({}), 0);
  ASSERT_EQ(resp.topics.size(), 2u);
  EXPECT_EQ(resp.next_cursor, std::nullopt);
  EXPECT_EQ(resp.throttle_time_ms, 0);
  const auto& audit = resp.topics[0];
  EXPECT_EQ(audit.name, "audit");
  EXPECT_EQ(audit.error_code, ke::kNone);
  EXPECT_EQ(audit.topic_id.ToString(), logs_->FindTopic("audit")->topic_id);
  EXPECT_FALSE(audit.is_internal);
  EXPECT_EQ(audit.topic_authorized_operations, 3576);
  ASSERT_EQ(audit.partitions.size(), 1u);
  const auto& orders = resp.topics[1];
  EXPECT_EQ(orders.name, "orders");
  ASSERT_EQ(orders.partitions.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto& part = orders.partitions[i];
    EXPECT_EQ(part.error_code, ke::kNone);
    EXPECT_EQ(part.partition_index, i);
    EXPECT_EQ(part.leader_id, 1);
    EXPECT_EQ(part.leader_epoch, 0);
    EXPECT_THAT(part.replica_nodes, ElementsAre(1));
    EXPECT_THAT(part.isr_nodes, ElementsAre(1));
    EXPECT_EQ(part.eligible_leader_replicas, std::vector<int32_t>{});
    EXPECT_EQ(part.last_known_elr, std::vector<int32_t>{});
    EXPECT_TRUE(part.offline_replicas.empty());
  }
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);

  resp = HandleDescribeTopicPartitions(
      ctx_, rc_, DescribeTopicPartitionsRequest({"orders", "nope", "audit"}), 0);
  ASSERT_EQ(resp.topics.size(), 3u);
  EXPECT_EQ(resp.topics[0].name, "audit");
  EXPECT_EQ(resp.topics[1].name, "nope");
  EXPECT_EQ(resp.topics[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_TRUE(resp.topics[1].topic_id.IsZero());
  EXPECT_TRUE(resp.topics[1].partitions.empty());
  EXPECT_EQ(resp.topics[2].name, "orders");
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);
}

TEST_F(PartitionHandlersTest, DescribeTopicPartitionsPagesWithACursor) {
  ASSERT_TRUE(logs_->CreateTopic("a", 3).ok());
  ASSERT_TRUE(logs_->CreateTopic("b", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("c", 1).ok());
  auto resp = HandleDescribeTopicPartitions(ctx_, rc_, DescribeTopicPartitionsRequest({}, 2), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].partitions.size(), 2u);
  ASSERT_TRUE(resp.next_cursor.has_value());
  EXPECT_EQ(resp.next_cursor->topic_name, "a");
  EXPECT_EQ(resp.next_cursor->partition_index, 2);
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);

  resp = HandleDescribeTopicPartitions(
      ctx_, rc_, DescribeTopicPartitionsRequest({}, 3, std::make_pair("a", 2)), 0);
  ASSERT_EQ(resp.topics.size(), 2u);
  EXPECT_EQ(resp.topics[0].name, "a");
  ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp.topics[0].partitions[0].partition_index, 2);
  EXPECT_EQ(resp.topics[1].name, "b");
  EXPECT_EQ(resp.topics[1].partitions.size(), 2u);
  ASSERT_TRUE(resp.next_cursor.has_value());
  EXPECT_EQ(resp.next_cursor->topic_name, "c");
  EXPECT_EQ(resp.next_cursor->partition_index, 0);

  resp = HandleDescribeTopicPartitions(
      ctx_, rc_, DescribeTopicPartitionsRequest({"c", "b"}, 10, std::make_pair("c", 0)), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].name, "c");
  EXPECT_EQ(resp.next_cursor, std::nullopt);

  resp = HandleDescribeTopicPartitions(
      ctx_, rc_, DescribeTopicPartitionsRequest({"b"}, 10, std::make_pair("c", 0)), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, ke::kInvalidRequest);
  resp = HandleDescribeTopicPartitions(
      ctx_, rc_, DescribeTopicPartitionsRequest({}, 10, std::make_pair("a", -1)), 0);
  for (const auto& t : resp.topics) EXPECT_EQ(t.error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);
}

}  // namespace
}  // namespace seglog
