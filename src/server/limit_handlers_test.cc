// Kafka's limits in the handlers (issue 29): the controller's partition limits on CreateTopics
// and CreatePartitions, delete.topic.enable, and internal topics - no client appends, and made
// only as their coordinators make them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/produce_request.h"
#include "protocol/kafka_error.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "tests/support/batches.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

class LimitHandlersTest : public HandlersTest {
 protected:
  size_t PartitionDirs() {
    size_t n = 0;
    for (const auto* dir : {&a_, &b_}) {
      for (const auto& e : std::filesystem::directory_iterator(dir->path())) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name.find('-') != std::string::npos &&
            name.rfind("__cluster_metadata", 0) != 0) {
          ++n;
        }
      }
    }
    return n;
  }
};

p::CreateTopicsRequestData Create(std::vector<std::pair<std::string, int32_t>> topics) {
  p::CreateTopicsRequestData req;
  for (const auto& [name, partitions] : topics) {
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = -1;
  }
  return req;
}

TEST_F(LimitHandlersTest, CreateTopicsPastTenThousandPartitionsFailsWholeAndMakesNothing) {
  // 6000 + 4001: every topic fails with POLICY_VIOLATION, as Kafka's whole request does.
  auto resp = HandleCreateTopics(ctx_, rc_, Create({{"a", 6000}, {"b", 4001}, {"c", 1}}), 5);
  ASSERT_EQ(resp.topics.size(), 3u);
  for (const auto& t : resp.topics) {
    EXPECT_EQ(t.error_code, ke::kPolicyViolation) << t.name;
    EXPECT_EQ(t.error_message, "Excessively large number of partitions per request.");
  }
  EXPECT_FALSE(logs_->FindTopic("c").ok());
  EXPECT_EQ(PartitionDirs(), 0u);
  // Two million in one topic: the same, at once.
  resp = HandleCreateTopics(ctx_, rc_, Create({{"huge", 2000000}}), 0);
  EXPECT_EQ(resp.topics[0].error_code, ke::kPolicyViolation);
  EXPECT_EQ(resp.topics[0].error_message, std::nullopt);  // v0 has no message
  // Default partitions (-1) count as num.partitions; 10000 exactly is allowed (validated only:
  // making ten thousand directories is not this test's business).
  p::CreateTopicsRequestData exact = Create({{"x", 9999}, {"y", -1}});
  exact.validate_only = true;
  resp = HandleCreateTopics(ctx_, rc_, exact, 5);
  EXPECT_EQ(resp.topics[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[1].error_code, ke::kNone);
  exact.topics.push_back(Create({{"z", 1}}).topics[0]);
  resp = HandleCreateTopics(ctx_, rc_, exact, 5);
  EXPECT_EQ(resp.topics[2].error_code, ke::kPolicyViolation);
}

TEST_F(LimitHandlersTest, CreatePartitionsPastTheControllersRecordBoundFailsTheTopic) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  ASSERT_TRUE(logs_->CreateTopic("u", 1).ok());
  p::CreatePartitionsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "t";
  t.count = 2000000;
  t.assignments = std::nullopt;
  auto& u = req.topics.emplace_back();
  u.name = "u";
  u.count = 3;
  u.assignments = std::nullopt;
  auto resp = HandleCreatePartitions(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.results.size(), 2u);
  EXPECT_EQ(resp.results[0].error_code, ke::kUnknownServerError);
  EXPECT_EQ(resp.results[0].error_message, std::nullopt);
  // Kafka's record list is full after the overflow: the next topic fails too.
  EXPECT_EQ(resp.results[1].error_code, ke::kUnknownServerError);
  EXPECT_EQ(logs_->FindTopic("t").value().partitions, 1);
  EXPECT_EQ(PartitionDirs(), 2u);
  // Within the bound it works.
  req.topics.erase(req.topics.begin());
  resp = HandleCreatePartitions(ctx_, rc_, req, 2);
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->FindTopic("u").value().partitions, 3);
}

TEST_F(LimitHandlersTest, DeleteTopicDisabledRefusesEveryTopicAndKeepsThem) {
  ASSERT_TRUE(logs_->CreateTopic("keep", 1).ok());
  ctx_.delete_topic_enable = false;
  p::DeleteTopicsRequestData req;
  req.topic_names = {"keep", "absent"};
  auto resp = HandleDeleteTopics(ctx_, rc_, req, 4);
  ASSERT_EQ(resp.responses.size(), 2u);
  for (const auto& r : resp.responses) EXPECT_EQ(r.error_code, ke::kTopicDeletionDisabled);
  resp = HandleDeleteTopics(ctx_, rc_, req, 2);  // before v3: INVALID_REQUEST
  for (const auto& r : resp.responses) EXPECT_EQ(r.error_code, ke::kInvalidRequest);
  p::DeleteTopicsRequestData by_state;
  auto& s = by_state.topics.emplace_back();
  s.name = "keep";
  resp = HandleDeleteTopics(ctx_, rc_, by_state, 6);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].error_code, ke::kTopicDeletionDisabled);
  EXPECT_TRUE(logs_->FindTopic("keep").ok());
  ctx_.delete_topic_enable = true;
  resp = HandleDeleteTopics(ctx_, rc_, req, 4);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_FALSE(logs_->FindTopic("keep").ok());
}

// controller_mutation_rate = 10 for every client: a bucket of 110 partitions.
std::unique_ptr<ControllerMutationQuotaManager> MutationQuotas(int64_t* now) {
  ControllerMutationQuotaManager::Options o;
  o.now_ms = [now] { return *now; };
  return std::make_unique<ControllerMutationQuotaManager>(
      o, [](ClientQuotaType type, const std::string&, const std::string&) {
        ClientQuotaLimit l;
        if (type == ClientQuotaType::kControllerMutation) l.limit = 10;
        return l;
      });
}

TEST_F(LimitHandlersTest, StrictMutationQuotaRefusesTopicsOnceTheBucketIsEmpty) {
  int64_t now = 1'000'000;
  auto quotas = MutationQuotas(&now);
  ControllerMutationQuota q = quotas->QuotaFor("ANONYMOUS", "admin", /*strict=*/true);
  // 60 + 60 are accepted (the second takes the bucket to -10); the third is refused, and so
  // are topics that fail other checks first (already there: not charged).
  ASSERT_TRUE(logs_->CreateTopic("old", 1).ok());
  auto resp =
      HandleCreateTopics(ctx_, rc_, Create({{"a", 60}, {"b", 60}, {"c", 1}, {"old", 1}}), 6, &q);
  ASSERT_EQ(resp.topics.size(), 4u);
  EXPECT_EQ(resp.topics[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[1].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[3].error_code, ke::kTopicAlreadyExists);
  EXPECT_EQ(resp.topics[2].error_code, ke::kThrottlingQuotaExceeded);
  EXPECT_EQ(resp.topics[2].error_message, std::nullopt);  // as Kafka 4.4.0 answers
  EXPECT_EQ(resp.topics[2].num_partitions, -1);
  EXPECT_EQ(q.ThrottleMs(), 1000);  // 10 partitions owed at 10 a second
  EXPECT_TRUE(logs_->FindTopic("b").ok());
  EXPECT_FALSE(logs_->FindTopic("c").ok());
  // Validate-only requests are charged too, as Kafka charges them; refused while in debt.
  p::CreateTopicsRequestData dry = Create({{"d", 1}});
  dry.validate_only = true;
  ControllerMutationQuota q2 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  EXPECT_EQ(HandleCreateTopics(ctx_, rc_, dry, 6, &q2).topics[0].error_code,
            ke::kThrottlingQuotaExceeded);
  // DeleteTopics v5 and CreatePartitions v3 are refused while the bucket is below zero.
  p::DeleteTopicsRequestData del;
  del.topic_names = {"b"};
  ControllerMutationQuota q3 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  auto dresp = HandleDeleteTopics(ctx_, rc_, del, 5, &q3);
  ASSERT_EQ(dresp.responses.size(), 1u);
  EXPECT_EQ(dresp.responses[0].error_code, ke::kThrottlingQuotaExceeded);
  EXPECT_EQ(dresp.responses[0].error_message, std::nullopt);
  EXPECT_TRUE(logs_->FindTopic("b").ok());
  p::CreatePartitionsRequestData grow;
  auto& g = grow.topics.emplace_back();
  g.name = "b";
  g.count = 61;
  g.assignments = std::nullopt;
  ControllerMutationQuota q4 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  auto gresp = HandleCreatePartitions(ctx_, rc_, grow, 3, &q4);
  EXPECT_EQ(gresp.results[0].error_code, ke::kThrottlingQuotaExceeded);
  EXPECT_EQ(logs_->FindTopic("b").value().partitions, 60);
  // One second later the debt is paid: each is accepted again.
  now += 1000;
  ControllerMutationQuota q5 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  EXPECT_EQ(HandleCreatePartitions(ctx_, rc_, grow, 3, &q5).results[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->FindTopic("b").value().partitions, 61);
  // That took the bucket to -1: a delete now is refused, a tenth of a second later accepted.
  ControllerMutationQuota refused = quotas->QuotaFor("ANONYMOUS", "admin", true);
  EXPECT_EQ(HandleDeleteTopics(ctx_, rc_, del, 5, &refused).responses[0].error_code,
            ke::kThrottlingQuotaExceeded);
  EXPECT_EQ(refused.ThrottleMs(), 100);
  now += 100;
  ControllerMutationQuota q6 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  EXPECT_EQ(HandleDeleteTopics(ctx_, rc_, del, 5, &q6).responses[0].error_code, ke::kNone);
  EXPECT_FALSE(logs_->FindTopic("b").ok());
  // Strict: an accepted request is not throttled, though it left the bucket at -61 (b had 61
  // partitions); the next one finds the debt (6.1 s).
  EXPECT_EQ(q6.ThrottleMs(), 0);
  ControllerMutationQuota q7 = quotas->QuotaFor("ANONYMOUS", "admin", true);
  EXPECT_EQ(HandleCreateTopics(ctx_, rc_, Create({{"e", 1}}), 7, &q7).topics[0].error_code,
            ke::kThrottlingQuotaExceeded);
  EXPECT_EQ(q7.ThrottleMs(), 6100);
}

TEST_F(LimitHandlersTest, PermissiveMutationQuotaAcceptsAndThrottles) {
  int64_t now = 1'000'000;
  auto quotas = MutationQuotas(&now);
  ControllerMutationQuota q = quotas->QuotaFor("ANONYMOUS", "admin", /*strict=*/false);
  auto resp = HandleCreateTopics(ctx_, rc_, Create({{"a", 100}, {"b", 100}, {"c", 100}}), 5, &q);
  for (const auto& t : resp.topics) EXPECT_EQ(t.error_code, ke::kNone) << t.name;
  EXPECT_EQ(q.ThrottleMs(), 19000);  // 110 - 300 = -190
  now += 4000;
  EXPECT_EQ(q.ThrottleMs(), 15000);
}

TEST_F(LimitHandlersTest, ClientsMayNotAppendToInternalTopicsNorAutoCreateThemAsOrdinaryOnes) {
  // No coordinator in this context: Metadata does not make __consumer_offsets at all.
  p::MetadataRequestData md;
  md.topics.emplace();
  md.topics->emplace_back().name = "__consumer_offsets";
  md.topics->emplace_back().name = "__share_group_state";
  md.allow_auto_topic_creation = true;
  auto mresp = HandleMetadata(ctx_, rc_, md, 12);
  ASSERT_EQ(mresp.topics.size(), 2u);
  EXPECT_EQ(mresp.topics[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(mresp.topics[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_FALSE(logs_->FindTopic("__consumer_offsets").ok());
  // A client's Produce to an internal topic that exists: INVALID_TOPIC_EXCEPTION, nothing
  // appended.
  ASSERT_TRUE(logs_->CreateTopic("__consumer_offsets", 1).ok());
  p::ProduceRequestData req;
  req.acks = -1;
  auto& topic = req.topic_data.emplace_back();
  topic.name = "__consumer_offsets";
  auto& part = topic.partition_data.emplace_back();
  part.index = 0;
  const std::vector<uint8_t> batch = testing::ProducerBatch(0, 1, 10, kHandlersTestT0);
  part.records = p::Records::View(batch);
  std::vector<TopicPartition> appended;
  bool any_error = false;
  auto resp = HandleProduce(ctx_, rc_, req, 9, &appended, &any_error);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].partition_responses[0].error_code, ke::kInvalidTopic);
  EXPECT_TRUE(any_error);
  EXPECT_TRUE(appended.empty());
  EXPECT_EQ(GetLog("__consumer_offsets", 0)->log_end_offset(), 0);
  EXPECT_TRUE(IsInternalTopic("__transaction_state"));
  EXPECT_FALSE(IsInternalTopic("__consumer_offsets2"));
}

}  // namespace
}  // namespace seglog
