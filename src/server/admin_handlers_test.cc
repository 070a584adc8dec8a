// The admin API handlers (partition_handlers.cc, config_handlers.cc) called directly over a
// LogManager in a temporary directory, each response encoded at every version its API serves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "base/scheduler.h"
#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "server/expect_encodes.h"
#include "server/generated/broker_config_defs.h"
#include "server/handlers.h"
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

constexpr int64_t kT0 = 1794024676000;

class AdminHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override { Open({}); }
  void Open(std::map<std::string, std::string> props) {
    ctx_.logs = nullptr;
    logs_.reset();
    props["log.dirs"] = a_.path() + "," + b_.path();
    props["node.id"] = "1";
    auto config = ServerConfig::FromProperties(props);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(*config, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    ctx_.logs = logs_.get();
    ctx_.node_id = 1;
  }
  void TearDown() override {
    if (logs_) (void)logs_->Shutdown();
  }
  std::shared_ptr<Log> GetLog(const std::string& topic, int32_t partition) {
    auto log = logs_->GetLog(TopicPartition{topic, partition});
    EXPECT_TRUE(log.ok());
    return log.ok() ? log.value() : nullptr;
  }
  void Append(const std::string& topic, int32_t partition, int count, int32_t epoch = 0) {
    auto r = GetLog(topic, partition)->AppendAsLeader(ProducerBatch(0, count, 10, kT0), epoch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  TempDir a_, b_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  BrokerContext ctx_;
};

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

TEST_F(AdminHandlersTest, CreatePartitionsGrowsTheTopic) {
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
    auto resp = HandleCreatePartitions(ctx_, req, v);
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

TEST_F(AdminHandlersTest, CreatePartitionsRefusesAsKafkaDoes) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  ASSERT_TRUE(logs_->CreateTopic("dup", 1).ok());
  p::CreatePartitionsRequestData req;
  req.topics.push_back(PartitionsTopic("orders", 2));
  req.topics.push_back(PartitionsTopic("orders2", 2));
  req.topics.push_back(PartitionsTopic("dup", 2));
  req.topics.push_back(PartitionsTopic("dup", 3));
  auto resp = HandleCreatePartitions(ctx_, req, 2);
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
  resp = HandleCreatePartitions(ctx_, req, 0);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidPartitions);
  EXPECT_EQ(resp.results[0].error_message, "Topic already has 3 partition(s).");

  req.topics = {PartitionsTopic("orders", 5, std::vector<std::vector<int32_t>>{{1}, {2}})};
  resp = HandleCreatePartitions(ctx_, req, 1);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidReplicaAssignment);
  EXPECT_EQ(resp.results[0].error_message,
            "The manual partition assignment includes broker 2, but no such broker is "
            "registered.");
  req.topics = {PartitionsTopic("orders", 5, std::vector<std::vector<int32_t>>{{1}})};
  resp = HandleCreatePartitions(ctx_, req, 1);
  EXPECT_EQ(resp.results[0].error_code, ke::kInvalidReplicaAssignment);
  EXPECT_EQ(resp.results[0].error_message,
            "Attempted to add 2 additional partition(s), but only 1 assignment(s) were "
            "specified.");
  req.topics = {PartitionsTopic("orders", 4, std::vector<std::vector<int32_t>>{{}})};
  resp = HandleCreatePartitions(ctx_, req, 1);
  EXPECT_EQ(resp.results[0].error_message,
            "The manual partition assignment includes an empty replica list.");
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 3);
  EXPECT_EQ(logs_->FindTopic("dup")->partitions, 1);
}

TEST_F(AdminHandlersTest, CreatePartitionsValidateOnlyChangesNothing) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  p::CreatePartitionsRequestData req;
  req.validate_only = true;
  req.topics.push_back(PartitionsTopic("orders", 6));
  auto resp = HandleCreatePartitions(ctx_, req, 3);
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

TEST_F(AdminHandlersTest, DeleteRecordsRaisesTheLogStartOffset) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  Append("orders", 0, 10);
  Append("orders", 1, 4);
  auto req = DeleteRecordsRequest("orders", {{0, 6}, {1, -1}, {2, -1}});
  for (int16_t v = 0; v <= 2; ++v) {
    auto resp = HandleDeleteRecords(ctx_, req, v);
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
  auto resp = HandleDeleteRecords(ctx_, DeleteRecordsRequest("orders", {{0, 2}}), 2);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].partitions[0].low_watermark, 6);
}

TEST_F(AdminHandlersTest, DeleteRecordsRefusesOffsetsOutOfRangeAndUnknownPartitions) {
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
  auto resp = HandleDeleteRecords(ctx_, req, 1);
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

TEST_F(AdminHandlersTest, OffsetForLeaderEpochFollowsTheLeaderEpochCache) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 3).ok());
  Append("orders", 0, 5, 0);
  Append("orders", 0, 3, 2);
  Append("orders", 0, 2, 4);  // cache: (0, 0) (2, 5) (4, 8); log end 10
  Append("orders", 1, 4, 0);  // cache: (0, 0); log end 4
  auto req = EpochRequest(
      "orders", {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 0}, {2, 0}, {0, -1}});
  for (int16_t v = 2; v <= 4; ++v) {
    auto resp = HandleOffsetForLeaderEpoch(ctx_, req, v);
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
  auto resp = HandleOffsetForLeaderEpoch(ctx_, EpochRequest("orders", {{0, 1}}), 4);
  EXPECT_EQ(resp.topics[0].partitions[0].leader_epoch, 1);  // below the earliest epoch
  EXPECT_EQ(resp.topics[0].partitions[0].end_offset, 6);
}

TEST_F(AdminHandlersTest, OffsetForLeaderEpochChecksTheCurrentLeaderEpoch) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  Append("orders", 0, 3);
  auto resp = HandleOffsetForLeaderEpoch(ctx_, EpochRequest("orders", {{0, 0}}, 0), 3);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].partitions[0].end_offset, 3);
  resp = HandleOffsetForLeaderEpoch(ctx_, EpochRequest("orders", {{0, 0}, {4, 0}}, 1), 3);
  const auto& r = resp.topics[0].partitions;
  EXPECT_EQ(r[0].error_code, ke::kUnknownLeaderEpoch);
  EXPECT_EQ(r[0].leader_epoch, -1);
  EXPECT_EQ(r[0].end_offset, -1);
  EXPECT_EQ(r[1].error_code, ke::kUnknownTopicOrPartition);
  testing::ExpectEncodes(resp, p::ApiKey::kOffsetForLeaderEpoch);
  resp = HandleOffsetForLeaderEpoch(ctx_, EpochRequest("nope", {{0, 0}}), 2);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kUnknownTopicOrPartition);
}

// ---- DescribeLogDirs

TEST_F(AdminHandlersTest, DescribeLogDirsListsEveryPartitionAndItsSize) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("audit", 1).ok());
  Append("orders", 0, 5);
  p::DescribeLogDirsRequestData req;
  req.topics = std::nullopt;
  for (int16_t v = 1; v <= 5; ++v) {
    auto resp = HandleDescribeLogDirs(ctx_, req, v);
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
  auto resp = HandleDescribeLogDirs(ctx_, req, 4);
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
  resp = HandleDescribeLogDirs(ctx_, req, 2);
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

TEST_F(AdminHandlersTest, DescribeTopicPartitionsDescribesTopicsInNameOrder) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("audit", 1).ok());
  auto resp = HandleDescribeTopicPartitions(ctx_, DescribeTopicPartitionsRequest({}), 0);
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
      ctx_, DescribeTopicPartitionsRequest({"orders", "nope", "audit"}), 0);
  ASSERT_EQ(resp.topics.size(), 3u);
  EXPECT_EQ(resp.topics[0].name, "audit");
  EXPECT_EQ(resp.topics[1].name, "nope");
  EXPECT_EQ(resp.topics[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_TRUE(resp.topics[1].topic_id.IsZero());
  EXPECT_TRUE(resp.topics[1].partitions.empty());
  EXPECT_EQ(resp.topics[2].name, "orders");
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);
}

TEST_F(AdminHandlersTest, DescribeTopicPartitionsPagesWithACursor) {
  ASSERT_TRUE(logs_->CreateTopic("a", 3).ok());
  ASSERT_TRUE(logs_->CreateTopic("b", 2).ok());
  ASSERT_TRUE(logs_->CreateTopic("c", 1).ok());
  auto resp = HandleDescribeTopicPartitions(ctx_, DescribeTopicPartitionsRequest({}, 2), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].partitions.size(), 2u);
  ASSERT_TRUE(resp.next_cursor.has_value());
  EXPECT_EQ(resp.next_cursor->topic_name, "a");
  EXPECT_EQ(resp.next_cursor->partition_index, 2);
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);

  resp = HandleDescribeTopicPartitions(
      ctx_, DescribeTopicPartitionsRequest({}, 3, std::make_pair("a", 2)), 0);
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
      ctx_, DescribeTopicPartitionsRequest({"c", "b"}, 10, std::make_pair("c", 0)), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].name, "c");
  EXPECT_EQ(resp.next_cursor, std::nullopt);

  resp = HandleDescribeTopicPartitions(
      ctx_, DescribeTopicPartitionsRequest({"b"}, 10, std::make_pair("c", 0)), 0);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, ke::kInvalidRequest);
  resp = HandleDescribeTopicPartitions(
      ctx_, DescribeTopicPartitionsRequest({}, 10, std::make_pair("a", -1)), 0);
  for (const auto& t : resp.topics) EXPECT_EQ(t.error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);
}

// ---- DescribeConfigs

p::DescribeConfigsRequestData DescribeConfigsRequest(
    int8_t type, const std::string& name,
    std::optional<std::vector<std::string>> keys = std::nullopt, bool synonyms = false) {
  p::DescribeConfigsRequestData req;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  r.configuration_keys = std::move(keys);
  req.include_synonyms = synonyms;
  return req;
}

const p::DescribeConfigsResponseData::DescribeConfigsResourceResult* FindConfig(
    const p::DescribeConfigsResponseData::DescribeConfigsResult& r, const std::string& name) {
  for (const auto& c : r.configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST_F(AdminHandlersTest, DescribeConfigsDescribesEveryTopicConfig) {
  Open({{"log.retention.hours", "1"}, {"log.segment.bytes", "2097152"}});
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"cleanup.policy", "compact"}}).ok());
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp =
        HandleDescribeConfigs(ctx_, DescribeConfigsRequest(2, "orders", std::nullopt, true), v);
    ASSERT_EQ(resp.results.size(), 1u);
    const auto& r = resp.results[0];
    EXPECT_EQ(r.error_code, ke::kNone);
    EXPECT_EQ(r.error_message, std::nullopt);
    EXPECT_EQ(r.resource_type, 2);
    EXPECT_EQ(r.resource_name, "orders");
    // Kafka 4.4.0's LogConfig names, less internal.segment.bytes (an internal config).
    EXPECT_EQ(r.configs.size(), 37u);
    for (const auto& c : r.configs) {
      EXPECT_FALSE(c.read_only) << c.name;
      EXPECT_FALSE(c.is_sensitive) << c.name;
      if (v >= 3) {
        EXPECT_NE(c.config_type, 0) << c.name;
        EXPECT_EQ(c.documentation, std::nullopt);
      } else {
        EXPECT_EQ(c.config_type, 0);
      }
    }
    const auto* policy = FindConfig(r, "cleanup.policy");
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(policy->value, "compact");
    EXPECT_EQ(policy->config_source, 1);
    ASSERT_EQ(policy->synonyms.size(), 2u);
    EXPECT_EQ(policy->synonyms[0].name, "cleanup.policy");
    EXPECT_EQ(policy->synonyms[0].source, 1);
    EXPECT_EQ(policy->synonyms[1].name, "log.cleanup.policy");
    EXPECT_EQ(policy->synonyms[1].value, "delete");
    EXPECT_EQ(policy->synonyms[1].source, 5);
    if (v >= 3) {
      EXPECT_EQ(policy->config_type, 7);
    }
    const auto* retention = FindConfig(r, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "3600000");
    EXPECT_EQ(retention->config_source, 4);
    ASSERT_EQ(retention->synonyms.size(), 2u);
    EXPECT_EQ(retention->synonyms[0].name, "log.retention.ms");
    EXPECT_EQ(retention->synonyms[0].source, 4);
    EXPECT_EQ(retention->synonyms[1].name, "log.retention.hours");
    EXPECT_EQ(retention->synonyms[1].value, "168");
    const auto* segment = FindConfig(r, "segment.bytes");
    EXPECT_EQ(segment->value, "2097152");
    EXPECT_EQ(segment->config_source, 4);
    const auto* index = FindConfig(r, "index.interval.bytes");
    EXPECT_EQ(index->value, "4096");
    EXPECT_EQ(index->config_source, 5);
    const auto* throttled = FindConfig(r, "leader.replication.throttled.replicas");
    EXPECT_EQ(throttled->value, "");
    EXPECT_EQ(throttled->config_source, 5);
    EXPECT_TRUE(throttled->synonyms.empty());
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
  // Filtered by key, without synonyms.
  auto resp = HandleDescribeConfigs(
      ctx_, DescribeConfigsRequest(2, "orders", std::vector<std::string>{"segment.ms", "x"}), 4);
  ASSERT_EQ(resp.results[0].configs.size(), 1u);
  EXPECT_EQ(resp.results[0].configs[0].name, "segment.ms");
  EXPECT_EQ(resp.results[0].configs[0].value, "604800000");
  EXPECT_TRUE(resp.results[0].configs[0].synonyms.empty());
  EXPECT_EQ(resp.results[0].configs[0].config_type, 5);
  // Kafka's documentation on request (v3+), from its LogConfig.
  auto req = DescribeConfigsRequest(2, "orders", std::vector<std::string>{"retention.ms"});
  req.include_documentation = true;
  auto documented = HandleDescribeConfigs(ctx_, req, 4);
  ASSERT_EQ(documented.results[0].configs.size(), 1u);
  EXPECT_THAT(documented.results[0].configs[0].documentation.value_or(""),
              HasSubstr("controls the maximum time we will retain a log"));
}

TEST_F(AdminHandlersTest, DescribeConfigsRefusesUnknownResources) {
  p::DescribeConfigsRequestData req;
  for (auto [type, name] : std::vector<std::pair<int8_t, std::string>>{
           {2, "nope"}, {2, "bad name"}, {4, "2"}, {4, "x"}, {8, "2"}, {3, "1"}}) {
    auto& r = req.resources.emplace_back();
    r.resource_type = type;
    r.resource_name = name;
    r.configuration_keys = std::nullopt;
  }
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp = HandleDescribeConfigs(ctx_, req, v);
    ASSERT_EQ(resp.results.size(), 6u);
    EXPECT_EQ(resp.results[0].error_code, ke::kUnknownTopicOrPartition);
    EXPECT_EQ(resp.results[0].error_message, "The topic 'nope' does not exist.");
    EXPECT_EQ(resp.results[1].error_code, ke::kInvalidTopic);
    EXPECT_EQ(resp.results[2].error_code, ke::kInvalidRequest);
    EXPECT_EQ(resp.results[2].error_message,
              "Unexpected broker id, expected 1 or empty string, but received 2");
    EXPECT_EQ(resp.results[3].error_message, "Broker id must be an integer, but it is: x");
    EXPECT_EQ(resp.results[4].error_code, ke::kInvalidRequest);
    EXPECT_EQ(resp.results[4].error_message, "Unexpected broker id, expected 1 but received 2");
    EXPECT_EQ(resp.results[5].error_message, "Unsupported resource type: UNKNOWN");
    for (const auto& r : resp.results) EXPECT_TRUE(r.configs.empty());
    EXPECT_EQ(resp.results[5].resource_type, 3);
    EXPECT_EQ(resp.results[5].resource_name, "1");
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
}

TEST_F(AdminHandlersTest, DescribeConfigsDescribesTheBroker) {
  Open({{"num.partitions", "3"}, {"log.segment.bytes", "2097152"}});
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp = HandleDescribeConfigs(ctx_, DescribeConfigsRequest(4, "1", std::nullopt, true), v);
    const auto& r = resp.results[0];
    EXPECT_EQ(r.error_code, ke::kNone);
    EXPECT_EQ(r.resource_type, 4);
    EXPECT_EQ(r.resource_name, "1");
    const auto* partitions = FindConfig(r, "num.partitions");
    ASSERT_NE(partitions, nullptr);
    EXPECT_EQ(partitions->value, "3");
    EXPECT_EQ(partitions->config_source, 4);
    EXPECT_TRUE(partitions->read_only);
    // Kafka's synonyms: the value set in server.properties, then Kafka's default.
    ASSERT_EQ(partitions->synonyms.size(), 2u);
    EXPECT_EQ(partitions->synonyms[0].name, "num.partitions");
    EXPECT_EQ(partitions->synonyms[0].value, "3");
    EXPECT_EQ(partitions->synonyms[0].source, 4);
    EXPECT_EQ(partitions->synonyms[1].value, "1");
    EXPECT_EQ(partitions->synonyms[1].source, 5);
    // Every broker config Kafka 4.4.0 has, including those seglog does not use.
    EXPECT_EQ(r.configs.size(), BrokerConfigDefs().size());
    EXPECT_GT(r.configs.size(), 300u);
    ASSERT_NE(FindConfig(r, "controller.quorum.voters"), nullptr);
    // log.roll.ms has no default: no value, and log.roll.hours' default is not its synonym
    // (Kafka drops leading synonyms of another name).
    const auto* roll = FindConfig(r, "log.roll.ms");
    ASSERT_NE(roll, nullptr);
    EXPECT_EQ(roll->value, std::nullopt);
    EXPECT_EQ(roll->config_source, 5);
    EXPECT_TRUE(roll->synonyms.empty());
    const auto* hours = FindConfig(r, "log.roll.hours");
    ASSERT_NE(hours, nullptr);
    EXPECT_EQ(hours->value, "168");
    // A password is sensitive: never shown.
    const auto* password = FindConfig(r, "ssl.key.password");
    ASSERT_NE(password, nullptr);
    EXPECT_TRUE(password->is_sensitive);
    EXPECT_EQ(password->value, std::nullopt);
    EXPECT_EQ(FindConfig(r, "process.roles")->value, "broker,controller");
    if (v >= 3) {
      EXPECT_EQ(partitions->config_type, 3);  // INT
    }
    const auto* segment = FindConfig(r, "log.segment.bytes");
    ASSERT_NE(segment, nullptr);
    EXPECT_EQ(segment->value, "2097152");
    EXPECT_EQ(segment->config_source, 4);
    const auto* threads = FindConfig(r, "num.io.threads");
    ASSERT_NE(threads, nullptr);
    EXPECT_EQ(threads->value, "8");
    EXPECT_EQ(threads->config_source, 5);
    const auto* retention = FindConfig(r, "log.retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, std::nullopt);
    EXPECT_EQ(FindConfig(r, "log.dirs")->value, a_.path() + "," + b_.path());
    EXPECT_EQ(FindConfig(r, "node.id")->value, "1");
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
  // Documentation on request (v3+), and only the keys asked for.
  auto req = DescribeConfigsRequest(4, "1", std::vector<std::string>{"num.io.threads", "nope"});
  req.include_documentation = true;
  auto documented = HandleDescribeConfigs(ctx_, req, 4);
  ASSERT_EQ(documented.results[0].configs.size(), 1u);
  EXPECT_THAT(documented.results[0].configs[0].documentation.value_or(""),
              HasSubstr("threads that the server uses for processing requests"));
  // The node's loggers (BROKER_LOGGER): root, at INFO.
  auto loggers = HandleDescribeConfigs(ctx_, DescribeConfigsRequest(8, "1"), 4);
  ASSERT_EQ(loggers.results[0].configs.size(), 1u);
  EXPECT_EQ(loggers.results[0].configs[0].name, "root");
  EXPECT_EQ(loggers.results[0].configs[0].value, "INFO");
  EXPECT_EQ(loggers.results[0].configs[0].config_source, 6);
  EXPECT_EQ(HandleDescribeConfigs(ctx_, DescribeConfigsRequest(8, ""), 4).results[0].error_message,
            "Broker id must not be empty");
  EXPECT_EQ(HandleDescribeConfigs(ctx_, DescribeConfigsRequest(8, "2"), 4).results[0].error_message,
            "Unexpected broker id, expected 1 but received 2");
  // The cluster-wide defaults: none.
  auto resp = HandleDescribeConfigs(ctx_, DescribeConfigsRequest(4, ""), 4);
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  EXPECT_TRUE(resp.results[0].configs.empty());
}

// ---- AlterConfigs

p::AlterConfigsRequestData AlterRequest(int8_t type, const std::string& name,
                                        std::vector<std::pair<std::string, std::string>> configs,
                                        bool validate_only = false) {
  p::AlterConfigsRequestData req;
  req.validate_only = validate_only;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  for (const auto& [k, v] : configs) {
    auto& c = r.configs.emplace_back();
    c.name = k;
    c.value = v;
  }
  return req;
}

TEST_F(AdminHandlersTest, AlterConfigsReplacesEveryOverride) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  auto req = AlterRequest(2, "orders", {{"segment.ms", "5000"}, {"cleanup.policy", "compact"}});
  for (int16_t v = 0; v <= 2; ++v) {
    auto resp = HandleAlterConfigs(ctx_, req, v);
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
    EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
    EXPECT_EQ(resp.responses[0].resource_type, 2);
    EXPECT_EQ(resp.responses[0].resource_name, "orders");
    testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
  }
  const std::map<std::string, std::string> want = {{"segment.ms", "5000"},
                                                   {"cleanup.policy", "compact"}};
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_compact);
}

TEST_F(AdminHandlersTest, AlterConfigsRefusesBadConfigsAndLeavesThemUnchanged) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  const std::map<std::string, std::string> before = {{"retention.ms", "1000"}};
  auto resp = HandleAlterConfigs(ctx_, AlterRequest(2, "orders", {{"segment.bytes", "10"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Invalid value 10 for configuration segment.bytes"));
  resp = HandleAlterConfigs(ctx_, AlterRequest(2, "orders", {{"no.such.config", "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message, "Unknown topic config name: no.such.config");
  resp = HandleAlterConfigs(ctx_, AlterRequest(2, "nope", {{"segment.ms", "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.responses[0].error_message, "The topic 'nope' does not exist.");
  resp = HandleAlterConfigs(ctx_, AlterRequest(2, "orders", {{"segment.ms", "1"}}, true), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  auto dup = AlterRequest(2, "orders", {{"segment.ms", "1"}, {"segment.ms", "2"}});
  resp = HandleAlterConfigs(ctx_, dup, 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.responses[0].error_message, "Error due to duplicate config keys");
  dup = AlterRequest(2, "orders", {{"segment.ms", "1"}});
  dup.resources.push_back(dup.resources[0]);
  resp = HandleAlterConfigs(ctx_, dup, 0);
  ASSERT_EQ(resp.responses.size(), 2u);
  EXPECT_EQ(resp.responses[0].error_message, "Each resource must appear at most once.");
  EXPECT_EQ(resp.responses[1].error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
  EXPECT_EQ(logs_->FindTopic("orders")->configs, before);
  // Broker configs are static.
  resp = HandleAlterConfigs(ctx_, AlterRequest(4, "1", {{"num.io.threads", "4"}}), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message,
            "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Cannot "
            "update these configs dynamically: Set(num.io.threads)");
  resp = HandleAlterConfigs(ctx_, AlterRequest(4, "5", {{"num.io.threads", "4"}}), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
}

// ---- IncrementalAlterConfigs

struct Op {
  std::string name;
  int8_t op;
  std::optional<std::string> value;
};

p::IncrementalAlterConfigsRequestData IncrementalRequest(int8_t type, const std::string& name,
                                                         std::vector<Op> ops,
                                                         bool validate_only = false) {
  p::IncrementalAlterConfigsRequestData req;
  req.validate_only = validate_only;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  for (const Op& o : ops) {
    auto& c = r.configs.emplace_back();
    c.name = o.name;
    c.config_operation = o.op;
    c.value = o.value;
  }
  return req;
}

TEST_F(AdminHandlersTest, IncrementalAlterConfigsSetsDeletesAppendsAndSubtracts) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  auto req = IncrementalRequest(2, "orders",
                                {{"segment.ms", 0, "5000"},
                                 {"retention.ms", 1, std::nullopt},
                                 {"cleanup.policy", 2, "compact"}});
  auto resp = HandleIncrementalAlterConfigs(ctx_, req, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
  EXPECT_EQ(resp.responses[0].resource_type, 2);
  EXPECT_EQ(resp.responses[0].resource_name, "orders");
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  std::map<std::string, std::string> want = {{"segment.ms", "5000"},
                                             {"cleanup.policy", "delete,compact"}};
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_compact);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_delete);

  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"cleanup.policy", 3, "delete"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  want["cleanup.policy"] = "compact";
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_FALSE(GetLog("orders", 0)->config().cleanup_delete);
}

TEST_F(AdminHandlersTest, IncrementalAlterConfigsRefusesBadOperations) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  const std::map<std::string, std::string> before = {{"retention.ms", "1000"}};
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"segment.ms", 2, "5"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message,
            "Can't APPEND to key segment.ms because its type is not LIST.");
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"retention.ms", 3, "5"}}), 1);
  EXPECT_EQ(resp.responses[0].error_message,
            "Can't SUBTRACT to key retention.ms because its type is not LIST.");
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"cleanup.policy", 2, "nonsense"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Invalid value delete,nonsense for configuration cleanup.policy"));
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"segment.ms", 0, "0"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"segment.ms", 7, "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "orders", {{"segment.ms", 0, "5000"}}, true), 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(2, "nope", {{"segment.ms", 0, "5000"}}), 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.responses[0].error_message, "The topic 'nope' does not exist.");
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  EXPECT_EQ(logs_->FindTopic("orders")->configs, before);
  resp = HandleIncrementalAlterConfigs(
      ctx_, IncrementalRequest(4, "", {{"log.cleaner.threads", 0, "2"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Cannot update these configs dynamically: Set(log.cleaner.threads)"));
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
}

TEST_F(AdminHandlersTest, TheNewApisAreServedAndAdvertised) {
  auto resp = HandleApiVersions(ctx_, p::ApiVersionsRequestData{}, 0);
  std::map<int16_t, std::pair<int16_t, int16_t>> got;
  for (const auto& v : resp.api_keys) got[v.api_key] = {v.min_version, v.max_version};
  EXPECT_EQ(got[37], (std::pair<int16_t, int16_t>(0, 3)));
  EXPECT_EQ(got[21], (std::pair<int16_t, int16_t>(0, 2)));
  EXPECT_EQ(got[32], (std::pair<int16_t, int16_t>(1, 4)));
  EXPECT_EQ(got[33], (std::pair<int16_t, int16_t>(0, 2)));
  EXPECT_EQ(got[44], (std::pair<int16_t, int16_t>(0, 1)));
  EXPECT_EQ(got[35], (std::pair<int16_t, int16_t>(1, 5)));
  EXPECT_EQ(got[75], (std::pair<int16_t, int16_t>(0, 0)));
  EXPECT_EQ(got[23], (std::pair<int16_t, int16_t>(2, 4)));
}

}  // namespace
}  // namespace seglog
