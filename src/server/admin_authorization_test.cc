// The ACL checks of the config, cluster and admin APIs (DescribeConfigs, AlterConfigs,
// IncrementalAlterConfigs, ListConfigResources, DescribeCluster, DescribeLogDirs,
// AlterReplicaLogDirs, ElectLeaders, the reassignment APIs, DescribeQuorum, UpdateFeatures,
// DescribeProducers, the membership APIs, the ACL and SCRAM APIs) with a StandardAuthorizer:
// Kafka 4.4's codes and shapes for a refused client, and that nothing changes for it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"
#include "server/features.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

using namespace authz_test;  // NOLINT(build/namespaces)
constexpr int8_t kTopicConfig = 2, kBrokerConfig = 4, kBrokerLoggerConfig = 8, kGroupConfig = 32;

class AdminAuthorizationTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("orders");
  }
  static p::DescribeConfigsRequestData Describe(
      std::vector<std::pair<int8_t, std::string>> resources) {
    p::DescribeConfigsRequestData req;
    for (auto& [type, name] : resources) {
      auto& r = req.resources.emplace_back();
      r.resource_type = type;
      r.resource_name = std::move(name);
      r.configuration_keys = std::nullopt;
    }
    return req;
  }
  static p::IncrementalAlterConfigsRequestData SetConfig(int8_t type, std::string name,
                                                         std::string key, std::string value) {
    p::IncrementalAlterConfigsRequestData req;
    auto& r = req.resources.emplace_back();
    r.resource_type = type;
    r.resource_name = std::move(name);
    auto& c = r.configs.emplace_back();
    c.name = std::move(key);
    c.config_operation = 0;  // SET
    c.value = std::move(value);
    return req;
  }
};

// ---- Configs

TEST_F(AdminAuthorizationTest, DescribeConfigsChecksEachResource) {
  Grant({AllowAlice(kTopic, "orders", AclOperation::kAlterConfigs)});  // implies DESCRIBE_CONFIGS
  auto resp = HandleDescribeConfigs(ctx_, alice_,
                                    Describe({{kBrokerConfig, "1"},
                                              {kTopicConfig, "orders"},
                                              {kTopicConfig, "secret"},
                                              {kGroupConfig, "g"}}),
                                    4);
  ASSERT_EQ(resp.results.size(), 4u);
  // The allowed one first, then the refused ones in request order, with no configs.
  EXPECT_EQ(resp.results[0].resource_name, "orders");
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  EXPECT_FALSE(resp.results[0].configs.empty());
  struct Want {
    int8_t type;
    const char* name;
    int16_t code;
    const char* message;
  };
  const Want want[] = {
      {kBrokerConfig, "1", ke::kClusterAuthorizationFailed, "Cluster authorization failed."},
      {kTopicConfig, "secret", ke::kTopicAuthorizationFailed, "Topic authorization failed."},
      {kGroupConfig, "g", ke::kGroupAuthorizationFailed, "Group authorization failed."}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = resp.results[i + 1];
    EXPECT_EQ(r.resource_type, want[i].type) << i;
    EXPECT_EQ(r.resource_name, want[i].name) << i;
    EXPECT_EQ(r.error_code, want[i].code) << i;
    EXPECT_EQ(r.error_message, want[i].message) << i;
    EXPECT_TRUE(r.configs.empty()) << i;
  }
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  EXPECT_EQ(HandleDescribeConfigs(ctx_, admin_, Describe({{kBrokerConfig, "1"}}), 4)
                .results[0]
                .error_code,
            ke::kNone);
}

TEST_F(AdminAuthorizationTest, AlteringConfigsNeedsAlterConfigsAndChangesNothingWithout) {
  Grant({AllowAlice(kTopic, "orders", AclOperation::kDescribeConfigs)});
  auto topic = HandleIncrementalAlterConfigs(
      ctx_, alice_, SetConfig(kTopicConfig, "orders", "retention.ms", "1000"), 1);
  EXPECT_EQ(topic.responses[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(topic.responses[0].error_message, "Topic authorization failed.");
  EXPECT_TRUE(logs_->FindTopic("orders")->configs.empty());
  testing::ExpectEncodes(topic, p::ApiKey::kIncrementalAlterConfigs);
  // A topic that does not exist is refused the same way.
  EXPECT_EQ(HandleIncrementalAlterConfigs(ctx_, alice_,
                                          SetConfig(kTopicConfig, "nope", "retention.ms", "1"), 1)
                .responses[0]
                .error_code,
            ke::kTopicAuthorizationFailed);
  auto broker = HandleIncrementalAlterConfigs(
      ctx_, alice_, SetConfig(kBrokerConfig, "1", "log.retention.ms", "1000"), 1);
  EXPECT_EQ(broker.responses[0].error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(broker.responses[0].error_message, "Cluster authorization failed.");
  EXPECT_TRUE(logs_->DynamicBrokerConfigs("1").empty());
  auto logger = HandleIncrementalAlterConfigs(
      ctx_, alice_, SetConfig(kBrokerLoggerConfig, "1", "root", "DEBUG"), 1);
  EXPECT_EQ(logger.responses[0].error_code, ke::kClusterAuthorizationFailed);
  auto group = HandleIncrementalAlterConfigs(
      ctx_, alice_, SetConfig(kGroupConfig, "g", "consumer.session.timeout.ms", "50000"), 1);
  EXPECT_EQ(group.responses[0].error_code, ke::kGroupAuthorizationFailed);
  // The legacy API checks the same.
  p::AlterConfigsRequestData legacy;
  auto& r = legacy.resources.emplace_back();
  r.resource_type = kTopicConfig;
  r.resource_name = "orders";
  auto& c = r.configs.emplace_back();
  c.name = "retention.ms";
  c.value = "1000";
  auto refused = HandleAlterConfigs(ctx_, alice_, legacy, 2);
  EXPECT_EQ(refused.responses[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.responses[0].error_message, "Topic authorization failed.");
  EXPECT_TRUE(logs_->FindTopic("orders")->configs.empty());
  // With ALTER_CONFIGS on the topic it is changed.
  Grant({AllowAlice(kTopic, "orders", AclOperation::kAlterConfigs)});
  EXPECT_EQ(HandleAlterConfigs(ctx_, alice_, legacy, 2).responses[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->FindTopic("orders")->configs.at("retention.ms"), "1000");
}

TEST_F(AdminAuthorizationTest, ListConfigResourcesNeedsDescribeConfigsOnTheCluster) {
  auto refused = HandleListConfigResources(ctx_, alice_, {}, 1);
  EXPECT_EQ(refused.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(refused.config_resources.empty());
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kDescribeConfigs)});
  auto ok = HandleListConfigResources(ctx_, alice_, {}, 1);
  EXPECT_EQ(ok.error_code, ke::kNone);
  EXPECT_FALSE(ok.config_resources.empty());
}

// ---- The cluster

TEST_F(AdminAuthorizationTest, DescribeClusterReportsTheClientsClusterOperations) {
  p::DescribeClusterRequestData req;
  req.include_cluster_authorized_operations = true;
  auto bob = HandleDescribeCluster(ctx_, bob_, req, 1);
  EXPECT_EQ(bob.error_code, ke::kNone);  // never refused
  EXPECT_EQ(bob.cluster_authorized_operations, 0);
  EXPECT_EQ(bob.brokers.size(), 1u);
  EXPECT_EQ(HandleDescribeCluster(ctx_, admin_, req, 1).cluster_authorized_operations, 8096);
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kAlter)});  // implies DESCRIBE
  EXPECT_EQ(HandleDescribeCluster(ctx_, alice_, req, 1).cluster_authorized_operations, 128 | 256);
  req.include_cluster_authorized_operations = false;
  EXPECT_EQ(HandleDescribeCluster(ctx_, admin_, req, 1).cluster_authorized_operations, INT32_MIN);
}

TEST_F(AdminAuthorizationTest, LogDirsNeedTheCluster) {
  auto described = HandleDescribeLogDirs(ctx_, alice_, {}, 4);
  EXPECT_EQ(described.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(described.results.empty());
  testing::ExpectEncodes(described, p::ApiKey::kDescribeLogDirs);
  EXPECT_FALSE(HandleDescribeLogDirs(ctx_, admin_, {}, 4).results.empty());

  p::AlterReplicaLogDirsRequestData move;
  auto& d = move.dirs.emplace_back();
  d.path = b_.path();
  auto& t = d.topics.emplace_back();
  t.name = "orders";
  t.partitions = {0};
  auto refused = HandleAlterReplicaLogDirs(ctx_, alice_, move, 2);
  EXPECT_EQ(refused.results.at(0).partitions.at(0).error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(logs_->FutureLogs().empty());  // nothing moves
  testing::ExpectEncodes(refused, p::ApiKey::kAlterReplicaLogDirs);
}

TEST_F(AdminAuthorizationTest, ControllerAdminApisNeedTheCluster) {
  p::ElectLeadersRequestData elect;
  elect.topic_partitions.emplace();
  auto& et = elect.topic_partitions->emplace_back();
  et.topic = "orders";
  et.partitions = {0};
  auto elected = HandleElectLeaders(ctx_, alice_, elect, 2);
  EXPECT_EQ(elected.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(elected.replica_election_results.at(0).partition_result.at(0).error_code,
            ke::kClusterAuthorizationFailed);
  EXPECT_EQ(HandleElectLeaders(ctx_, alice_, elect, 0).error_code, ke::kNone);  // v0: no field
  ExpectEncodesAt(elected, 2);

  p::AlterPartitionReassignmentsRequestData alter;
  auto& at = alter.topics.emplace_back();
  at.name = "orders";
  at.partitions.emplace_back().partition_index = 0;
  auto reassigned = HandleAlterPartitionReassignments(ctx_, alice_, alter, 0);
  EXPECT_EQ(reassigned.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(reassigned.responses.at(0).partitions.at(0).error_code,
            ke::kClusterAuthorizationFailed);
  testing::ExpectEncodes(reassigned, p::ApiKey::kAlterPartitionReassignments);

  p::ListPartitionReassignmentsRequestData list;
  list.topics.emplace().emplace_back().name = "orders";
  (*list.topics)[0].partition_indexes = {0};
  auto listed = HandleListPartitionReassignments(ctx_, alice_, list, 0);
  EXPECT_EQ(listed.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(listed.topics.at(0).partitions.at(0).partition_index, 0);
  testing::ExpectEncodes(listed, p::ApiKey::kListPartitionReassignments);

  p::DescribeQuorumRequestData quorum;
  auto& qt = quorum.topics.emplace_back();
  qt.topic_name = "__cluster_metadata";
  qt.partitions.emplace_back().partition_index = 0;
  auto described = HandleDescribeQuorum(ctx_, alice_, quorum, 2);
  EXPECT_EQ(described.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(described.error_message, "Cluster authorization failed.");
  EXPECT_TRUE(described.topics.empty());
  ExpectEncodesAt(described, 2);

  p::UpdateFeaturesRequestData features;
  auto& f = features.feature_updates.emplace_back();
  f.feature = "transaction.version";
  f.max_version_level = 2;
  auto updated = HandleUpdateFeatures(ctx_, alice_, features, 1);
  EXPECT_EQ(updated.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(updated.results.empty());
  testing::ExpectEncodes(updated, p::ApiKey::kUpdateFeatures);

  p::UnregisterBrokerRequestData unregister;
  unregister.broker_id = 1;
  EXPECT_EQ(HandleUnregisterBroker(ctx_, alice_, unregister, 0).error_code,
            ke::kClusterAuthorizationFailed);
  p::UnregisterControllerRequestData controller;
  controller.controller_id = 1;
  EXPECT_EQ(HandleUnregisterController(ctx_, alice_, controller, 0).error_code,
            ke::kClusterAuthorizationFailed);
  p::AddRaftVoterRequestData add;
  auto voter = HandleAddRaftVoter(ctx_, alice_, add, 0);
  EXPECT_EQ(voter.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(voter.error_message, "Cluster authorization failed.");
  EXPECT_EQ(HandleRemoveRaftVoter(ctx_, alice_, {}, 0).error_code, ke::kClusterAuthorizationFailed);

  // With ALTER and DESCRIBE on the cluster each goes on to its own answer.
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kAlter)});
  EXPECT_EQ(HandleElectLeaders(ctx_, alice_, elect, 2)
                .replica_election_results.at(0)
                .partition_result.at(0)
                .error_code,
            ke::kElectionNotNeeded);
  EXPECT_EQ(HandleDescribeQuorum(ctx_, alice_, quorum, 2).error_code, ke::kNone);
  EXPECT_EQ(HandleListPartitionReassignments(ctx_, alice_, list, 0).error_code, ke::kNone);
}

TEST_F(AdminAuthorizationTest, DescribeProducersNeedsReadAfterTheNameCheck) {
  p::DescribeProducersRequestData req;
  for (const char* name : {"orders", "bad name"}) {
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.partition_indexes = {0};
  }
  auto refused = HandleDescribeProducers(ctx_, bob_, req, 0);
  EXPECT_EQ(refused.topics[0].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.topics[0].partitions[0].error_message, "Topic authorization failed.");
  EXPECT_EQ(refused.topics[1].partitions[0].error_code, ke::kInvalidTopic);
  testing::ExpectEncodes(refused, p::ApiKey::kDescribeProducers);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kRead)});
  EXPECT_EQ(HandleDescribeProducers(ctx_, alice_, req, 0).topics[0].partitions[0].error_code,
            ke::kNone);
}

// ---- ACLs and SCRAM users: the client's own principal decides

TEST_F(AdminAuthorizationTest, AclAndScramApisAreTheClustersToAlterOrDescribe) {
  p::CreateAclsRequestData create;
  auto& c = create.creations.emplace_back();
  c.resource_type = static_cast<int8_t>(kTopic);
  c.resource_name = "orders";
  c.resource_pattern_type = static_cast<int8_t>(PatternType::kLiteral);
  c.principal = "User:bob";
  c.host = "*";
  c.operation = static_cast<int8_t>(AclOperation::kRead);
  c.permission_type = static_cast<int8_t>(AclPermissionType::kAllow);
  const size_t acls = logs_->Acls().size();
  EXPECT_EQ(HandleCreateAcls(ctx_, alice_, create, 3).results.at(0).error_code,
            ke::kClusterAuthorizationFailed);
  EXPECT_EQ(logs_->Acls().size(), acls);
  EXPECT_EQ(HandleDescribeAcls(ctx_, alice_, {}, 3).error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(HandleDescribeUserScramCredentials(ctx_, alice_, {}, 0).error_code,
            ke::kClusterAuthorizationFailed);
  p::AlterUserScramCredentialsRequestData scram;
  scram.deletions.emplace_back().name = "carol";
  scram.deletions[0].mechanism = 1;
  EXPECT_EQ(HandleAlterUserScramCredentials(ctx_, alice_, scram, 0).results.at(0).error_code,
            ke::kClusterAuthorizationFailed);
  // ALTER on the cluster: alice may now change the ACLs (and so give bob READ).
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kAlter)});
  EXPECT_EQ(HandleCreateAcls(ctx_, alice_, create, 3).results.at(0).error_code, ke::kNone);
  EXPECT_TRUE(Authorized(ctx_, bob_, AclOperation::kRead, kTopic, "orders"));
}

}  // namespace
}  // namespace seglog
