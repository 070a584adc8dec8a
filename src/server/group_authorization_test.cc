// The ACL checks of the group and transaction APIs with a StandardAuthorizer: what an allowed
// client gets, the exact codes and shapes Kafka 4.4's KafkaApis answers a refused one (for the
// whole request, the group or the partition), that a refused request writes nothing, ListGroups'
// and OffsetFetch's filtering, and the groups' authorized_operations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
namespace ke = kafka_error;
namespace p = protocol;

using namespace authz_test;  // NOLINT(build/namespaces)

class GroupAuthorizationTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("orders", 2);
    CreateTopic("other");
  }
  // A standalone commit (no member) of `offset` for partition 0 of each topic.
  static p::OffsetCommitRequestData Commit(const std::string& group,
                                           std::vector<std::string> topics, int64_t offset = 5) {
    p::OffsetCommitRequestData req;
    req.group_id = group;
    for (auto& name : topics) {
      auto& t = req.topics.emplace_back();
      t.name = std::move(name);
      auto& part = t.partitions.emplace_back();
      part.partition_index = 0;
      part.committed_offset = offset;
    }
    return req;
  }
  // The offsets `group` has committed, as a super user sees them (topic -> offset of p0).
  std::map<std::string, int64_t> Committed(const std::string& group) {
    p::OffsetFetchRequestData req;
    auto& g = req.groups.emplace_back();
    g.group_id = group;
    g.topics = std::nullopt;
    std::map<std::string, int64_t> out;
    auto resp = HandleOffsetFetch(ctx_, admin_, req, 8);
    for (const auto& t : resp.groups.at(0).topics) {
      for (const auto& part : t.partitions) {
        if (part.partition_index == 0) out[t.name] = part.committed_offset;
      }
    }
    return out;
  }
  std::vector<std::string> ListedGroups(const RequestContext& rc) {
    std::vector<std::string> out;
    for (const auto& g : HandleListGroups(ctx_, rc, {}, 5).groups) out.push_back(g.group_id);
    std::sort(out.begin(), out.end());
    return out;
  }
};

// ---- FindCoordinator

TEST_F(GroupAuthorizationTest, FindCoordinatorNeedsDescribeAndCreatesNothingWithout) {
  p::FindCoordinatorRequestData req;
  req.key_type = 0;
  req.coordinator_keys = {"g"};
  auto refused = HandleFindCoordinator(ctx_, bob_, req, 4);
  ASSERT_EQ(refused.coordinators.size(), 1u);
  const auto& c = refused.coordinators[0];
  EXPECT_EQ(c.key, "g");
  EXPECT_EQ(c.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(c.error_message, std::nullopt);
  EXPECT_EQ(c.node_id, -1);
  EXPECT_EQ(c.host, "");
  EXPECT_EQ(c.port, -1);
  EXPECT_FALSE(logs_->FindTopic("__consumer_offsets").ok());  // not created for bob
  // Before v4 the whole answer, with Errors.message().
  p::FindCoordinatorRequestData old;
  old.key = "g";
  auto v3 = HandleFindCoordinator(ctx_, bob_, old, 3);
  EXPECT_EQ(v3.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(v3.error_message, "Group authorization failed.");
  EXPECT_EQ(v3.node_id, -1);
  ExpectEncodesAt(v3, 3);
  // A transactional id: DESCRIBE on it.
  old.key_type = 1;
  old.key = "tx";
  auto txn = HandleFindCoordinator(ctx_, bob_, old, 3);
  EXPECT_EQ(txn.error_code, ke::kTransactionalIdAuthorizationFailed);
  EXPECT_EQ(txn.error_message, "Transactional Id authorization failed.");
  EXPECT_FALSE(logs_->FindTopic("__transaction_state").ok());
  // A share coordinator is for brokers: without CLUSTER_ACTION every key fails.
  req.key_type = 2;
  req.coordinator_keys = {"s1", "s2"};
  auto share = HandleFindCoordinator(ctx_, admin_, req, 6);
  EXPECT_EQ(share.coordinators[0].error_code, ke::kInvalidRequest);  // not group:topic-id:n
  req.coordinator_keys = {"g:AAAAAAAAAAAAAAAAAAAAAQ:0"};
  share = HandleFindCoordinator(ctx_, admin_, req, 6);
  EXPECT_EQ(share.coordinators[0].error_code, ke::kCoordinatorNotAvailable);  // no coordinator
  req.coordinator_keys = {"s1", "s2"};
  share = HandleFindCoordinator(ctx_, bob_, req, 6);
  ASSERT_EQ(share.coordinators.size(), 2u);
  for (const auto& k : share.coordinators) {
    EXPECT_EQ(k.error_code, ke::kClusterAuthorizationFailed);
    EXPECT_EQ(k.error_message, "Cluster authorization failed.");
  }
  // READ implies DESCRIBE.
  Grant({AllowAlice(kGroup, "g", AclOperation::kRead)});
  req.key_type = 0;
  req.coordinator_keys = {"g"};
  EXPECT_EQ(HandleFindCoordinator(ctx_, alice_, req, 4).coordinators[0].error_code, ke::kNone);
  EXPECT_TRUE(logs_->FindTopic("__consumer_offsets").ok());
}

// ---- The classic membership APIs

TEST_F(GroupAuthorizationTest, JoinSyncHeartbeatAndLeaveNeedReadOnTheGroup) {
  p::JoinGroupRequestData join;
  join.group_id = "g";
  join.member_id = "m";
  join.session_timeout_ms = 10000;
  join.protocol_type = "consumer";
  join.protocols.emplace_back().name = "range";
  for (int16_t v : {6, 9}) {
    std::optional<p::JoinGroupResponseData> got;
    HandleJoinGroup(ctx_, bob_, {"client", "/127.0.0.1"}, join, v,
                    [&](p::JoinGroupResponseData r) { got = std::move(r); });
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->error_code, ke::kGroupAuthorizationFailed);
    EXPECT_EQ(got->generation_id, -1);
    EXPECT_EQ(got->member_id, "");
    EXPECT_EQ(got->leader, "");
    EXPECT_EQ(got->protocol_name, v >= 7 ? std::nullopt : std::optional<std::string>(""));
    EXPECT_TRUE(got->members.empty());
    ExpectEncodesAt(*got, v);
  }
  EXPECT_TRUE(ListedGroups(admin_).empty());  // no group was made

  p::SyncGroupRequestData sync;
  sync.group_id = "g";
  sync.protocol_type = "consumer";
  sync.protocol_name = "range";
  std::optional<p::SyncGroupResponseData> synced;
  HandleSyncGroup(ctx_, bob_, sync, 5, [&](p::SyncGroupResponseData r) { synced = std::move(r); });
  ASSERT_TRUE(synced.has_value());
  EXPECT_EQ(synced->error_code, ke::kGroupAuthorizationFailed);
  EXPECT_TRUE(synced->assignment.empty());
  // The protocol check comes first, as Kafka's.
  sync.protocol_type = std::nullopt;
  HandleSyncGroup(ctx_, bob_, sync, 5, [&](p::SyncGroupResponseData r) { synced = std::move(r); });
  EXPECT_EQ(synced->error_code, ke::kInconsistentGroupProtocol);

  p::HeartbeatRequestData heartbeat;
  heartbeat.group_id = "g";
  EXPECT_EQ(HandleHeartbeat(ctx_, bob_, heartbeat, 4).error_code, ke::kGroupAuthorizationFailed);
  p::LeaveGroupRequestData leave;
  leave.group_id = "g";
  leave.members.emplace_back().member_id = "m";
  auto left = HandleLeaveGroup(ctx_, bob_, leave, 5);
  EXPECT_EQ(left.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_TRUE(left.members.empty());
  // With READ the coordinator answers (no such member here).
  Grant({AllowAlice(kGroup, "g", AclOperation::kRead)});
  EXPECT_NE(HandleHeartbeat(ctx_, alice_, heartbeat, 4).error_code, ke::kGroupAuthorizationFailed);
}

// ---- Offsets

TEST_F(GroupAuthorizationTest, OffsetCommitNeedsReadOnTheGroupAndTheTopics) {
  auto refused = HandleOffsetCommit(ctx_, bob_, Commit("g", {"orders", "nope"}), 8);
  ASSERT_EQ(refused.topics.size(), 2u);
  for (const auto& t : refused.topics) {
    EXPECT_EQ(t.partitions.at(0).error_code, ke::kGroupAuthorizationFailed) << t.name;
  }
  EXPECT_TRUE(ListedGroups(admin_).empty());  // nothing committed, no group made
  testing::ExpectEncodes(refused, p::ApiKey::kOffsetCommit);
  // READ on the group: then READ on each topic, before whether it exists.
  Grant({AllowAlice(kGroup, "g", AclOperation::kRead),
         AllowAlice(kTopic, "orders", AclOperation::kRead)});
  auto resp = HandleOffsetCommit(ctx_, alice_, Commit("g", {"orders", "other", "nope"}), 8);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[1].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(resp.topics[2].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(Committed("g"), (std::map<std::string, int64_t>{{"orders", 5}}));
  // By topic id (v10): an unknown id first, then READ.
  p::OffsetCommitRequestData by_id = Commit("g", {"other", "ghost"});
  by_id.topics[0].topic_id = TopicId("other");
  by_id.topics[1].topic_id = Uuid::Random();
  auto ids = HandleOffsetCommit(ctx_, alice_, by_id, 10);
  EXPECT_EQ(ids.topics[0].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(ids.topics[1].partitions[0].error_code, ke::kUnknownTopicId);
}

TEST_F(GroupAuthorizationTest, OffsetFetchFiltersTheTopicsTheClientMayNotDescribe) {
  ASSERT_EQ(HandleOffsetCommit(ctx_, admin_, Commit("g", {"orders", "other"}, 7), 8)
                .topics[1]
                .partitions[0]
                .error_code,
            ke::kNone);
  // bob may not describe the group: a group-level error.
  p::OffsetFetchRequestData all;
  auto& g = all.groups.emplace_back();
  g.group_id = "g";
  g.topics = std::nullopt;
  auto refused = HandleOffsetFetch(ctx_, bob_, all, 8);
  EXPECT_EQ(refused.groups.at(0).error_code, ke::kGroupAuthorizationFailed);
  EXPECT_TRUE(refused.groups[0].topics.empty());
  // alice may describe the group and "orders": every committed offset means hers only.
  Grant({AllowAlice(kGroup, "g", AclOperation::kDescribe),
         AllowAlice(kTopic, "orders", AclOperation::kDescribe)});
  auto mine = HandleOffsetFetch(ctx_, alice_, all, 8);
  EXPECT_EQ(mine.groups.at(0).error_code, ke::kNone);
  ASSERT_EQ(mine.groups[0].topics.size(), 1u);
  EXPECT_EQ(mine.groups[0].topics[0].name, "orders");
  EXPECT_EQ(mine.groups[0].topics[0].partitions.at(0).committed_offset, 7);
  // Named: "other" is TOPIC_AUTHORIZATION_FAILED with offset -1, after the fetched ones.
  p::OffsetFetchRequestData named;
  auto& ng = named.groups.emplace_back();
  ng.group_id = "g";
  ng.topics.emplace();
  for (const char* t : {"other", "orders"}) {
    auto& rt = ng.topics->emplace_back();
    rt.name = t;
    rt.partition_indexes = {0};
  }
  auto resp = HandleOffsetFetch(ctx_, alice_, named, 8);
  ASSERT_EQ(resp.groups[0].topics.size(), 2u);
  EXPECT_EQ(resp.groups[0].topics[0].name, "orders");
  EXPECT_EQ(resp.groups[0].topics[0].partitions[0].committed_offset, 7);
  EXPECT_EQ(resp.groups[0].topics[1].name, "other");
  EXPECT_EQ(resp.groups[0].topics[1].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(resp.groups[0].topics[1].partitions[0].committed_offset, -1);
  ExpectEncodesAt(resp, 8);
  // v1 has no group error: each partition named carries it.
  p::OffsetFetchRequestData v1;
  v1.group_id = "g";
  v1.topics.emplace();
  auto& t1 = v1.topics->emplace_back();
  t1.name = "orders";
  t1.partition_indexes = {0, 1};
  auto old = HandleOffsetFetch(ctx_, bob_, v1, 1);
  ASSERT_EQ(old.topics.size(), 1u);
  for (const auto& part : old.topics[0].partitions) {
    EXPECT_EQ(part.error_code, ke::kGroupAuthorizationFailed);
    EXPECT_EQ(part.committed_offset, -1);
  }
  auto v7 = HandleOffsetFetch(ctx_, bob_, v1, 7);
  EXPECT_EQ(v7.error_code, ke::kGroupAuthorizationFailed);
}

TEST_F(GroupAuthorizationTest, OffsetDeleteNeedsDeleteOnTheGroupAndReadOnTheTopics) {
  HandleOffsetCommit(ctx_, admin_, Commit("g", {"orders", "other"}), 8);
  p::OffsetDeleteRequestData req;
  req.group_id = "g";
  for (const char* name : {"orders", "other"}) {
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.partitions.emplace_back().partition_index = 0;
  }
  auto refused = HandleOffsetDelete(ctx_, bob_, req, 0);
  EXPECT_EQ(refused.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_TRUE(refused.topics.empty());
  testing::ExpectEncodes(refused, p::ApiKey::kOffsetDelete);
  Grant({AllowAlice(kGroup, "g", AclOperation::kDelete),
         AllowAlice(kTopic, "orders", AclOperation::kRead)});
  auto resp = HandleOffsetDelete(ctx_, alice_, req, 0);
  EXPECT_EQ(resp.error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[1].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(Committed("g"), (std::map<std::string, int64_t>{{"other", 5}}));
}

// ---- ListGroups, DescribeGroups, DeleteGroups

TEST_F(GroupAuthorizationTest, ListGroupsShowsTheGroupsTheClientMayDescribe) {
  for (const char* g : {"g1", "g2", "h1"})
    HandleOffsetCommit(ctx_, admin_, Commit(g, {"orders"}), 8);
  EXPECT_TRUE(ListedGroups(bob_).empty());
  Grant({AllowAlice(kGroup, "g", AclOperation::kDescribe, PatternType::kPrefixed)});
  EXPECT_THAT(ListedGroups(alice_), ElementsAre("g1", "g2"));
  // DESCRIBE on the cluster lists them all.
  Grant({Allow(kCluster, kClusterName, "User:bob", AclOperation::kDescribe)});
  EXPECT_THAT(ListedGroups(bob_), ElementsAre("g1", "g2", "h1"));
  EXPECT_THAT(ListedGroups(admin_), ElementsAre("g1", "g2", "h1"));
}

TEST_F(GroupAuthorizationTest, DescribeGroupsNeedsDescribeAndReportsTheClientsOperations) {
  HandleOffsetCommit(ctx_, admin_, Commit("g1", {"orders"}), 8);
  HandleOffsetCommit(ctx_, admin_, Commit("g2", {"orders"}), 8);
  Grant({AllowAlice(kGroup, "g2", AclOperation::kRead)});
  p::DescribeGroupsRequestData req;
  req.groups = {"g2", "g1", "unknown"};
  req.include_authorized_operations = true;
  auto resp = HandleDescribeGroups(ctx_, alice_, req, 5);
  ASSERT_EQ(resp.groups.size(), 3u);
  // The refused ones first, in Kafka's groupError shape.
  for (size_t i : {0, 1}) {
    const auto& g = resp.groups[i];
    EXPECT_EQ(g.error_code, ke::kGroupAuthorizationFailed) << i;
    EXPECT_EQ(g.error_message, std::nullopt);
    EXPECT_EQ(g.group_state, "");
    EXPECT_EQ(g.protocol_type, "");
    EXPECT_TRUE(g.members.empty());
    EXPECT_EQ(g.authorized_operations, INT32_MIN);
  }
  EXPECT_EQ(resp.groups[0].group_id, "g1");
  EXPECT_EQ(resp.groups[1].group_id, "unknown");
  EXPECT_EQ(resp.groups[2].group_id, "g2");
  EXPECT_EQ(resp.groups[2].error_code, ke::kNone);
  EXPECT_EQ(resp.groups[2].group_state, "Empty");
  EXPECT_EQ(resp.groups[2].authorized_operations, 8 | 256);  // READ and the DESCRIBE it implies
  ExpectEncodesAt(resp, 5);
  auto all = HandleDescribeGroups(ctx_, admin_, req, 5);
  EXPECT_EQ(all.groups[0].authorized_operations, 3400);
  EXPECT_EQ(all.groups[2].group_state, "Dead");  // a Dead group is described too (v5)
  EXPECT_EQ(all.groups[2].authorized_operations, 3400);
  // Not asked for, or before v3: the default.
  EXPECT_EQ(HandleDescribeGroups(ctx_, admin_, req, 2).groups[0].authorized_operations, INT32_MIN);
}

TEST_F(GroupAuthorizationTest, DeleteGroupsNeedsDelete) {
  HandleOffsetCommit(ctx_, admin_, Commit("g1", {"orders"}), 8);
  HandleOffsetCommit(ctx_, admin_, Commit("g2", {"orders"}), 8);
  Grant({AllowAlice(kGroup, "g2", AclOperation::kDelete)});
  p::DeleteGroupsRequestData req;
  req.groups_names = {"g1", "g2", "g1"};
  auto resp = HandleDeleteGroups(ctx_, alice_, req, 2);
  ASSERT_EQ(resp.results.size(), 2u);
  EXPECT_EQ(resp.results[0].group_id, "g2");
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  EXPECT_EQ(resp.results[1].group_id, "g1");  // refused ones after, once each
  EXPECT_EQ(resp.results[1].error_code, ke::kGroupAuthorizationFailed);
  EXPECT_THAT(ListedGroups(admin_), ElementsAre("g1"));
  testing::ExpectEncodes(resp, p::ApiKey::kDeleteGroups);
}

// ---- KIP-848 consumer groups

TEST_F(GroupAuthorizationTest, ConsumerGroupHeartbeatNeedsReadAndDescribeOnTheSubscription) {
  p::ConsumerGroupHeartbeatRequestData req;
  req.group_id = "cg";
  req.member_id = "member-1";
  req.member_epoch = 0;
  req.rebalance_timeout_ms = 30000;
  req.subscribed_topic_names = std::vector<std::string>{"orders", "other"};
  req.topic_partitions.emplace();
  auto refused = HandleConsumerGroupHeartbeat(ctx_, bob_, {"c", "/127.0.0.1"}, req, 1);
  EXPECT_EQ(refused.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(refused.error_message, std::nullopt);
  Grant({AllowAlice(kGroup, "cg", AclOperation::kRead),
         AllowAlice(kTopic, "orders", AclOperation::kDescribe)});
  auto topic = HandleConsumerGroupHeartbeat(ctx_, alice_, {"c", "/127.0.0.1"}, req, 1);
  EXPECT_EQ(topic.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(topic.member_epoch, 0);
  EXPECT_TRUE(ListedGroups(admin_).empty());  // no member joined
  testing::ExpectEncodes(topic, p::ApiKey::kConsumerGroupHeartbeat);
  req.subscribed_topic_names = std::vector<std::string>{"orders"};
  auto joined = HandleConsumerGroupHeartbeat(ctx_, alice_, {"c", "/127.0.0.1"}, req, 1);
  EXPECT_EQ(joined.error_code, ke::kNone);
  EXPECT_EQ(joined.member_epoch, 1);
}

TEST_F(GroupAuthorizationTest, ConsumerGroupDescribeHidesGroupsAssignedTopicsTheClientMayNotSee) {
  p::ConsumerGroupHeartbeatRequestData join;
  join.group_id = "cg";
  join.member_id = "member-1";
  join.member_epoch = 0;
  join.rebalance_timeout_ms = 30000;
  join.subscribed_topic_names = std::vector<std::string>{"orders"};
  join.topic_partitions.emplace();
  ASSERT_EQ(HandleConsumerGroupHeartbeat(ctx_, admin_, {"c", "/127.0.0.1"}, join, 1).error_code,
            ke::kNone);
  p::ConsumerGroupDescribeRequestData req;
  req.group_ids = {"cg", "hidden"};
  req.include_authorized_operations = true;
  auto refused = HandleConsumerGroupDescribe(ctx_, bob_, req, 1);
  ASSERT_EQ(refused.groups.size(), 2u);
  EXPECT_EQ(refused.groups[0].error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(refused.groups[1].error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(refused.groups[0].authorized_operations, INT32_MIN);
  // alice may describe the group but not the topic its member is assigned.
  Grant({AllowAlice(kGroup, "cg", AclOperation::kDescribe)});
  req.group_ids = {"cg"};
  auto hidden = HandleConsumerGroupDescribe(ctx_, alice_, req, 1);
  ASSERT_EQ(hidden.groups.size(), 1u);
  EXPECT_EQ(hidden.groups[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(hidden.groups[0].error_message,
            "The group has described topic(s) that the client is not authorized to describe.");
  EXPECT_TRUE(hidden.groups[0].members.empty());
  EXPECT_EQ(hidden.groups[0].authorized_operations, INT32_MIN);
  testing::ExpectEncodes(hidden, p::ApiKey::kConsumerGroupDescribe);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kDescribe)});
  auto shown = HandleConsumerGroupDescribe(ctx_, alice_, req, 1);
  EXPECT_EQ(shown.groups[0].error_code, ke::kNone);
  EXPECT_EQ(shown.groups[0].members.size(), 1u);
  EXPECT_EQ(shown.groups[0].authorized_operations, 256);
  EXPECT_EQ(HandleConsumerGroupDescribe(ctx_, admin_, req, 1).groups[0].authorized_operations,
            3400);
}

// ---- Transactions

class TxnAuthorizationTest : public GroupAuthorizationTest {
 protected:
  // A transaction of "tx" (by a super user) with partition 0 of "orders" in it.
  void OpenTransaction() {
    p::FindCoordinatorRequestData find;
    find.key_type = 1;
    find.coordinator_keys = {"tx"};
    ASSERT_EQ(HandleFindCoordinator(ctx_, admin_, find, 4).coordinators[0].error_code, ke::kNone);
    p::InitProducerIdRequestData init;
    init.transactional_id = "tx";
    init.transaction_timeout_ms = 60000;
    auto id = HandleInitProducerId(ctx_, admin_, init, 4);
    ASSERT_EQ(id.error_code, ke::kNone);
    producer_id_ = id.producer_id;
    auto added = HandleAddPartitionsToTxn(ctx_, admin_, AddPartitions("tx", {"orders"}), 3);
    ASSERT_EQ(
        added.results_by_topic_v3_and_below.at(0).results_by_partition.at(0).partition_error_code,
        ke::kNone);
  }
  p::AddPartitionsToTxnRequestData AddPartitions(const std::string& id,
                                                 std::vector<std::string> topics) {
    p::AddPartitionsToTxnRequestData req;
    req.v3_and_below_transactional_id = id;
    req.v3_and_below_producer_id = producer_id_;
    req.v3_and_below_producer_epoch = 0;
    for (auto& name : topics) {
      auto& t = req.v3_and_below_topics.emplace_back();
      t.name = std::move(name);
      t.partitions = {0};
    }
    return req;
  }

  int64_t producer_id_ = 0;
};

TEST_F(TxnAuthorizationTest, InitProducerIdNeedsWriteOnTheTransactionalId) {
  p::InitProducerIdRequestData req;
  req.transactional_id = "tx";
  req.transaction_timeout_ms = 60000;
  auto refused = HandleInitProducerId(ctx_, bob_, req, 4);
  EXPECT_EQ(refused.error_code, ke::kTransactionalIdAuthorizationFailed);
  EXPECT_EQ(refused.producer_id, -1);
  EXPECT_EQ(refused.producer_epoch, -1);
  testing::ExpectEncodes(refused, p::ApiKey::kInitProducerId);
  Grant({AllowAlice(kTxn, "tx", AclOperation::kWrite)});
  p::FindCoordinatorRequestData find;
  find.key_type = 1;
  find.coordinator_keys = {"tx"};
  // WRITE implies DESCRIBE, which FindCoordinator needs.
  ASSERT_EQ(HandleFindCoordinator(ctx_, alice_, find, 4).coordinators[0].error_code, ke::kNone);
  EXPECT_EQ(HandleInitProducerId(ctx_, alice_, req, 4).error_code, ke::kNone);
}

TEST_F(TxnAuthorizationTest, AddPartitionsToTxnChecksTheIdThenEachTopic) {
  OpenTransaction();
  // bob may not write "tx": every partition fails 53.
  auto refused = HandleAddPartitionsToTxn(
      ctx_, bob_, AddPartitions("tx", std::vector<std::string>{"orders", "other"}), 3);
  ASSERT_EQ(refused.results_by_topic_v3_and_below.size(), 2u);
  for (const auto& t : refused.results_by_topic_v3_and_below) {
    EXPECT_EQ(t.results_by_partition.at(0).partition_error_code,
              ke::kTransactionalIdAuthorizationFailed);
  }
  ExpectEncodesAt(refused, 3);
  // alice may write "tx" and "orders", not "other" (nor an internal topic): those fail 29, the
  // rest are not attempted.
  Grant({AllowAlice(kTxn, "tx", AclOperation::kWrite),
         AllowAlice(kTopic, "orders", AclOperation::kWrite),
         AllowAlice(kTopic, "__consumer_offsets", AclOperation::kWrite)});
  auto resp = HandleAddPartitionsToTxn(
      ctx_, alice_, AddPartitions("tx", {"orders", "other", "__consumer_offsets"}), 3);
  const auto& topics = resp.results_by_topic_v3_and_below;
  ASSERT_EQ(topics.size(), 3u);
  EXPECT_EQ(topics[0].results_by_partition[0].partition_error_code, ke::kOperationNotAttempted);
  EXPECT_EQ(topics[1].results_by_partition[0].partition_error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(topics[2].results_by_partition[0].partition_error_code, ke::kTopicAuthorizationFailed);
  // v4+ is a broker's: CLUSTER_ACTION, else the whole request fails.
  p::AddPartitionsToTxnRequestData v4;
  auto& x = v4.transactions.emplace_back();
  x.transactional_id = "tx";
  x.producer_id = producer_id_;
  x.verify_only = true;
  x.topics.emplace_back().name = "orders";
  x.topics[0].partitions = {0};
  auto broker = HandleAddPartitionsToTxn(ctx_, alice_, v4, 5);
  EXPECT_EQ(broker.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(broker.results_by_transaction.empty());
  ExpectEncodesAt(broker, 5);
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kClusterAction)});
  EXPECT_EQ(HandleAddPartitionsToTxn(ctx_, alice_, v4, 5).error_code, ke::kNone);
}

TEST_F(TxnAuthorizationTest, AddOffsetsEndTxnAndTxnOffsetCommit) {
  OpenTransaction();
  p::AddOffsetsToTxnRequestData add;
  add.transactional_id = "tx";
  add.producer_id = producer_id_;
  add.group_id = "g";
  EXPECT_EQ(HandleAddOffsetsToTxn(ctx_, bob_, add, 3).error_code,
            ke::kTransactionalIdAuthorizationFailed);
  Grant({AllowAlice(kTxn, "tx", AclOperation::kWrite)});
  EXPECT_EQ(HandleAddOffsetsToTxn(ctx_, alice_, add, 3).error_code, ke::kGroupAuthorizationFailed);

  p::TxnOffsetCommitRequestData commit;
  commit.transactional_id = "tx";
  commit.group_id = "g";
  commit.producer_id = producer_id_;
  for (const char* name : {"orders", "other"}) {
    auto& t = commit.topics.emplace_back();
    t.name = name;
    t.partitions.emplace_back().committed_offset = 3;
  }
  auto whole = HandleTxnOffsetCommit(ctx_, bob_, commit, 3);
  for (const auto& t : whole.topics) {
    EXPECT_EQ(t.partitions.at(0).error_code, ke::kTransactionalIdAuthorizationFailed);
  }
  auto group = HandleTxnOffsetCommit(ctx_, alice_, commit, 3);
  for (const auto& t : group.topics) {
    EXPECT_EQ(t.partitions.at(0).error_code, ke::kGroupAuthorizationFailed);
  }
  testing::ExpectEncodes(group, p::ApiKey::kTxnOffsetCommit);
  Grant({AllowAlice(kGroup, "g", AclOperation::kRead),
         AllowAlice(kTopic, "orders", AclOperation::kRead)});
  ASSERT_EQ(HandleAddOffsetsToTxn(ctx_, alice_, add, 3).error_code, ke::kNone);
  auto topics = HandleTxnOffsetCommit(ctx_, alice_, commit, 3);
  EXPECT_EQ(topics.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(topics.topics[1].partitions[0].error_code, ke::kTopicAuthorizationFailed);

  p::EndTxnRequestData end;
  end.transactional_id = "tx";
  end.producer_id = producer_id_;
  end.committed = true;
  auto refused = HandleEndTxn(ctx_, bob_, end, 3);
  EXPECT_EQ(refused.error_code, ke::kTransactionalIdAuthorizationFailed);
  testing::ExpectEncodes(refused, p::ApiKey::kEndTxn);
  EXPECT_EQ(HandleEndTxn(ctx_, alice_, end, 3).error_code, ke::kNone);
}

TEST_F(TxnAuthorizationTest, DescribeAndListTransactionsShowWhatTheClientMayDescribe) {
  OpenTransaction();
  p::DescribeTransactionsRequestData describe;
  describe.transactional_ids = {"tx"};
  auto refused = HandleDescribeTransactions(ctx_, bob_, describe, 0);
  ASSERT_EQ(refused.transaction_states.size(), 1u);
  EXPECT_EQ(refused.transaction_states[0].error_code, ke::kTransactionalIdAuthorizationFailed);
  testing::ExpectEncodes(refused, p::ApiKey::kDescribeTransactions);
  // alice may describe the id, not the topic in the transaction: its partitions are left out.
  Grant({AllowAlice(kTxn, "tx", AclOperation::kDescribe)});
  auto hidden = HandleDescribeTransactions(ctx_, alice_, describe, 0);
  EXPECT_EQ(hidden.transaction_states[0].error_code, ke::kNone);
  EXPECT_EQ(hidden.transaction_states[0].transaction_state, "Ongoing");
  EXPECT_TRUE(hidden.transaction_states[0].topics.empty());
  auto all = HandleDescribeTransactions(ctx_, admin_, describe, 0);
  ASSERT_EQ(all.transaction_states[0].topics.size(), 1u);
  EXPECT_EQ(all.transaction_states[0].topics[0].topic, "orders");

  EXPECT_TRUE(HandleListTransactions(ctx_, bob_, {}, 1).transaction_states.empty());
  auto listed = HandleListTransactions(ctx_, alice_, {}, 1);
  ASSERT_EQ(listed.transaction_states.size(), 1u);
  EXPECT_EQ(listed.transaction_states[0].transactional_id, "tx");
}

TEST_F(TxnAuthorizationTest, WriteTxnMarkersNeedsAlterOrClusterActionAndWritesNothingWithout) {
  OpenTransaction();
  p::WriteTxnMarkersRequestData req;
  auto& m = req.markers.emplace_back();
  m.producer_id = producer_id_;
  m.transaction_result = false;
  auto& t = m.topics.emplace_back();
  t.name = "orders";
  t.partition_indexes = {0};
  const int64_t end = LogEndOffset("orders");
  auto refused = HandleWriteTxnMarkers(
      ctx_, alice_, req, 1, [](const TopicPartition&, int64_t, int16_t, int32_t, bool, int64_t) {
        ADD_FAILURE() << "a refused marker was written";
        return ke::kNone;
      });
  EXPECT_EQ(refused.markers.at(0).topics.at(0).partitions.at(0).error_code,
            ke::kClusterAuthorizationFailed);
  EXPECT_EQ(LogEndOffset("orders"), end);
  testing::ExpectEncodes(refused, p::ApiKey::kWriteTxnMarkers);
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kAlter)});
  int written = 0;
  auto ok = HandleWriteTxnMarkers(
      ctx_, alice_, req, 1, [&](const TopicPartition&, int64_t, int16_t, int32_t, bool, int64_t) {
        ++written;
        return ke::kNone;
      });
  EXPECT_EQ(ok.markers[0].topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(written, 1);
}

}  // namespace
}  // namespace seglog
