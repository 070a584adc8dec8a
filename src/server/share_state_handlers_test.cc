// The share coordinator's RPCs on the broker (share_state_handlers.cc) and FindCoordinator's
// key type 2: CLUSTER_ACTION, Kafka's empty answers to requests without a group, topics or
// partitions, each share-partition's outcome from the ShareCoordinator, and the coordinator
// keys Kafka's SharePartitionKey parser refuses.
#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"
#include "sharestate/share_coordinator.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using authz_test::kCluster;
using authz_test::kClusterName;

class ShareStateHandlersTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("orders", 2);
    topic_ = *Uuid::Parse(logs_->FindTopicIdentity("orders")->topic_id);
    LogManager* logs = logs_.get();
    auto c = ShareCoordinator::Open(ShareCoordinatorConfig(), logs, scheduler_.get(),
                                    [logs](const Uuid& id) -> std::optional<int32_t> {
                                      auto name = logs->TopicNameForId(id.ToString());
                                      if (!name) return std::nullopt;
                                      return logs->FindTopicIdentity(*name)->partitions;
                                    },
                                    {});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    share_ = std::move(c).value();
    ctx_.share_state = share_.get();
  }
  void TearDown() override {
    share_->Shutdown();
    AuthorizationHandlersTest::TearDown();
  }
  p::InitializeShareGroupStateRequestData Init(int32_t partition, int64_t start) {
    p::InitializeShareGroupStateRequestData req;
    req.group_id = "sg";
    auto& t = req.topics.emplace_back();
    t.topic_id = topic_;
    auto& part = t.partitions.emplace_back();
    part.partition = partition;
    part.state_epoch = 0;
    part.start_offset = start;
    return req;
  }
  p::ReadShareGroupStateRequestData Read(int32_t partition, int32_t leader_epoch) {
    p::ReadShareGroupStateRequestData req;
    req.group_id = "sg";
    auto& t = req.topics.emplace_back();
    t.topic_id = topic_;
    auto& part = t.partitions.emplace_back();
    part.partition = partition;
    part.leader_epoch = leader_epoch;
    return req;
  }

  Uuid topic_;
  std::unique_ptr<ShareCoordinator> share_;
};

TEST_F(ShareStateHandlersTest, InitializeWriteReadSummaryDelete) {
  auto init = HandleInitializeShareGroupState(ctx_, admin_, Init(1, 5), 0);
  ASSERT_EQ(init.results.size(), 1u);
  EXPECT_EQ(init.results[0].topic_id, topic_);
  EXPECT_EQ(init.results[0].partitions.at(0).partition, 1);
  EXPECT_EQ(init.results[0].partitions.at(0).error_code, ke::kNone);
  EXPECT_EQ(init.results[0].partitions.at(0).error_message, std::nullopt);
  ExpectEncodesAt(init, 0);

  p::WriteShareGroupStateRequestData w;
  w.group_id = "sg";
  auto& wt = w.topics.emplace_back();
  wt.topic_id = topic_;
  auto& wp = wt.partitions.emplace_back();
  wp.partition = 1;
  wp.leader_epoch = 0;
  wp.start_offset = 7;
  wp.delivery_complete_count = 1;
  auto& b = wp.state_batches.emplace_back();
  b.first_offset = 7;
  b.last_offset = 9;
  b.delivery_state = 2;
  b.delivery_count = 1;
  auto written = HandleWriteShareGroupState(ctx_, admin_, w, 1);
  EXPECT_EQ(written.results.at(0).partitions.at(0).error_code, ke::kNone);
  ExpectEncodesAt(written, 1);

  auto read = HandleReadShareGroupState(ctx_, admin_, Read(1, 0), 0);
  const auto& r = read.results.at(0).partitions.at(0);
  EXPECT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.start_offset, 7);
  ASSERT_EQ(r.state_batches.size(), 1u);
  EXPECT_EQ(r.state_batches[0].first_offset, 7);
  EXPECT_EQ(r.state_batches[0].last_offset, 9);
  EXPECT_EQ(r.state_batches[0].delivery_state, 2);

  p::ReadShareGroupStateSummaryRequestData s;
  s.group_id = "sg";
  auto& st = s.topics.emplace_back();
  st.topic_id = topic_;
  st.partitions.emplace_back().partition = 1;
  st.partitions.emplace_back().partition = 0;  // no state
  auto summary = HandleReadShareGroupStateSummary(ctx_, admin_, s, 1);
  ASSERT_EQ(summary.results.at(0).partitions.size(), 2u);
  EXPECT_EQ(summary.results[0].partitions[0].start_offset, 7);
  EXPECT_EQ(summary.results[0].partitions[0].delivery_complete_count, 1);
  EXPECT_EQ(summary.results[0].partitions[1].error_code, ke::kNone);
  EXPECT_EQ(summary.results[0].partitions[1].start_offset, -1);

  p::DeleteShareGroupStateRequestData d;
  d.group_id = "sg";
  auto& dt = d.topics.emplace_back();
  dt.topic_id = topic_;
  dt.partitions.emplace_back().partition = 1;
  EXPECT_EQ(
      HandleDeleteShareGroupState(ctx_, admin_, d, 0).results.at(0).partitions.at(0).error_code,
      ke::kNone);
  auto gone = HandleReadShareGroupState(ctx_, admin_, Read(1, 0), 0);
  EXPECT_EQ(gone.results.at(0).partitions.at(0).error_code, ke::kInvalidRequest);
  EXPECT_EQ(gone.results.at(0).partitions.at(0).error_message,
            "Read operation on uninitialized share partition not allowed.");
}

TEST_F(ShareStateHandlersTest, BrokersOnlyAndNothingWrittenForOthers) {
  auto refused = HandleInitializeShareGroupState(ctx_, bob_, Init(0, 0), 0);
  EXPECT_EQ(refused.results.at(0).partitions.at(0).error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(refused.results.at(0).partitions.at(0).error_message, "Cluster authorization failed.");
  EXPECT_FALSE(logs_->FindTopic("__share_group_state").ok());
  auto read = HandleReadShareGroupState(ctx_, bob_, Read(0, 0), 0);
  EXPECT_EQ(read.results.at(0).partitions.at(0).error_code, ke::kClusterAuthorizationFailed);
  Grant({Allow(kCluster, kClusterName, "User:bob", AclOperation::kClusterAction)});
  EXPECT_EQ(HandleInitializeShareGroupState(ctx_, bob_, Init(0, 0), 0)
                .results.at(0)
                .partitions.at(0)
                .error_code,
            ke::kNone);
}

TEST_F(ShareStateHandlersTest, MalformedRequestsGetEmptyAnswers) {
  auto no_group = Read(0, 0);
  no_group.group_id = "";
  EXPECT_TRUE(HandleReadShareGroupState(ctx_, admin_, no_group, 0).results.empty());
  auto no_partitions = Read(0, 0);
  no_partitions.topics[0].partitions.clear();
  EXPECT_TRUE(HandleReadShareGroupState(ctx_, admin_, no_partitions, 0).results.empty());
  auto no_topics = Init(0, 0);
  no_topics.topics.clear();
  EXPECT_TRUE(HandleInitializeShareGroupState(ctx_, admin_, no_topics, 0).results.empty());
  // An unknown topic, a partition the topic does not have, a negative partition.
  auto unknown = Init(0, 0);
  unknown.topics[0].topic_id = Uuid::FromHalves(7, 7);
  EXPECT_EQ(HandleInitializeShareGroupState(ctx_, admin_, unknown, 0)
                .results.at(0)
                .partitions.at(0)
                .error_code,
            ke::kUnknownTopicOrPartition);
  EXPECT_EQ(HandleInitializeShareGroupState(ctx_, admin_, Init(2, 0), 0)
                .results.at(0)
                .partitions.at(0)
                .error_code,
            ke::kUnknownTopicOrPartition);
  auto negative = HandleInitializeShareGroupState(ctx_, admin_, Init(-1, 0), 0);
  EXPECT_EQ(negative.results.at(0).partitions.at(0).error_code, ke::kInvalidRequest);
  EXPECT_EQ(negative.results.at(0).partitions.at(0).error_message,
            "The partition id cannot be a negative number.");
  // A shut-down coordinator.
  share_->Shutdown();
  auto down = HandleReadShareGroupState(ctx_, admin_, Read(0, 0), 0);
  EXPECT_EQ(down.results.at(0).partitions.at(0).error_code, ke::kCoordinatorNotAvailable);
  EXPECT_EQ(down.results.at(0).partitions.at(0).error_message,
            "Share coordinator is not available.");
}

TEST_F(ShareStateHandlersTest, FindCoordinatorForShareKeys) {
  p::FindCoordinatorRequestData req;
  req.key_type = 2;
  const std::string good = "sg:" + topic_.ToString() + ":1";
  req.coordinator_keys = {good,
                          "with:colons:" + topic_.ToString() + ":+0",
                          "",
                          "sg:" + topic_.ToString(),
                          " :" + topic_.ToString() + ":0",
                          "sg:not-a-uuid:0",
                          "sg:" + topic_.ToString() + ":x",
                          "sg:" + topic_.ToString() + ":99999999999"};
  auto resp = HandleFindCoordinator(ctx_, admin_, req, 6);
  ASSERT_EQ(resp.coordinators.size(), 8u);
  EXPECT_EQ(resp.coordinators[0].error_code, ke::kNone);
  EXPECT_EQ(resp.coordinators[0].node_id, 1);
  EXPECT_EQ(resp.coordinators[1].error_code, ke::kNone);
  for (size_t i = 2; i < 8; ++i) {
    EXPECT_EQ(resp.coordinators[i].error_code, ke::kInvalidRequest) << resp.coordinators[i].key;
    EXPECT_EQ(resp.coordinators[i].node_id, -1);
  }
  // The topic was made, with Kafka's configs.
  auto topic = logs_->FindTopic("__share_group_state");
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->partitions, 50);
  EXPECT_EQ(topic->configs.at("cleanup.policy"), "delete");
  // Below v6 key type 2 is not known.
  EXPECT_EQ(HandleFindCoordinator(ctx_, admin_, req, 5).coordinators[0].error_code,
            ke::kInvalidRequest);
}

}  // namespace
}  // namespace seglog
