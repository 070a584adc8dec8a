// The request authorization helpers (authorization.h): the client a decision is about, the
// answers without and with an authorizer, and the authorized_operations values.
#include "server/authorization.h"

#include <gtest/gtest.h>

#include "base/uuid.h"
#include "protocol/kafka_error.h"

namespace seglog {
namespace {

AclBinding Allow(ResourceType type, std::string name, std::string principal, AclOperation op,
                 PatternType pattern = PatternType::kLiteral) {
  AclBinding a;
  a.resource_type = type;
  a.resource_name = std::move(name);
  a.pattern_type = pattern;
  a.principal = std::move(principal);
  a.operation = op;
  a.permission = AclPermissionType::kAllow;
  return a;
}

class AuthorizationTest : public ::testing::Test {
 protected:
  void WithAcls(const std::vector<AclBinding>& acls) {
    ctx_.authorizer =
        std::make_shared<StandardAuthorizer>(AuthorizerOptions{{"User:admin"}, false});
    std::map<Uuid, AclBinding> by_id;
    for (const AclBinding& a : acls) by_id[Uuid::Random()] = a;
    ctx_.authorizer->SetAcls(by_id);
  }
  static RequestContext Client(std::string principal, std::string host = "10.0.0.7") {
    RequestContext rc;
    rc.principal = std::move(principal);
    rc.client_host = std::move(host);
    return rc;
  }

  BrokerContext ctx_;
};

TEST_F(AuthorizationTest, TheClientIsTheRequestsPrincipalFromItsAddress) {
  RequestContext rc = Client("User:alice", "192.168.1.2");
  RequestPrincipal who = ClientPrincipal(rc);
  EXPECT_EQ(who.principal, "User:alice");
  EXPECT_EQ(who.host, "192.168.1.2");
}

TEST_F(AuthorizationTest, WithoutAnAuthorizerEverythingIsAllowed) {
  const RequestContext bob = Client("User:bob");
  EXPECT_TRUE(Authorized(ctx_, bob, AclOperation::kWrite, ResourceType::kTopic, "t"));
  EXPECT_TRUE(ClusterAuthorized(ctx_, bob, AclOperation::kAlter));
  EXPECT_TRUE(AuthorizedByResourceType(ctx_, bob, AclOperation::kWrite, ResourceType::kTopic));
  // Every operation the type supports, as Kafka's AuthHelper without an authorizer.
  EXPECT_EQ(AuthorizedOperations(ctx_, bob, ResourceType::kTopic, "t"), 3576);
  EXPECT_EQ(AuthorizedOperations(ctx_, bob, ResourceType::kGroup, "g"), 3400);
  EXPECT_EQ(AuthorizedOperations(ctx_, bob, ResourceType::kCluster, kClusterResourceName), 8096);
}

TEST_F(AuthorizationTest, WithAnAuthorizerTheAclsDecide) {
  WithAcls({Allow(ResourceType::kTopic, "orders", "User:alice", AclOperation::kRead),
            Allow(ResourceType::kTopic, "logs-", "User:alice", AclOperation::kWrite,
                  PatternType::kPrefixed),
            Allow(ResourceType::kCluster, std::string(kClusterResourceName), "User:alice",
                  AclOperation::kDescribe)});
  const RequestContext alice = Client("User:alice");
  const RequestContext bob = Client("User:bob");
  const RequestContext admin = Client("User:admin");
  EXPECT_TRUE(Authorized(ctx_, alice, AclOperation::kRead, ResourceType::kTopic, "orders"));
  // READ implies DESCRIBE; it does not give WRITE.
  EXPECT_TRUE(Authorized(ctx_, alice, AclOperation::kDescribe, ResourceType::kTopic, "orders"));
  EXPECT_FALSE(Authorized(ctx_, alice, AclOperation::kWrite, ResourceType::kTopic, "orders"));
  EXPECT_TRUE(Authorized(ctx_, alice, AclOperation::kWrite, ResourceType::kTopic, "logs-app"));
  EXPECT_FALSE(Authorized(ctx_, bob, AclOperation::kRead, ResourceType::kTopic, "orders"));
  EXPECT_TRUE(Authorized(ctx_, admin, AclOperation::kDelete, ResourceType::kTopic, "orders"));
  EXPECT_TRUE(ClusterAuthorized(ctx_, alice, AclOperation::kDescribe));
  EXPECT_FALSE(ClusterAuthorized(ctx_, alice, AclOperation::kAlter));
  // WRITE on some topic (the prefixed ACL) for alice, on none for bob.
  EXPECT_TRUE(AuthorizedByResourceType(ctx_, alice, AclOperation::kWrite, ResourceType::kTopic));
  EXPECT_FALSE(AuthorizedByResourceType(ctx_, bob, AclOperation::kWrite, ResourceType::kTopic));
  // READ (8) and the DESCRIBE it implies (256).
  EXPECT_EQ(AuthorizedOperations(ctx_, alice, ResourceType::kTopic, "orders"), 8 | 256);
  EXPECT_EQ(AuthorizedOperations(ctx_, bob, ResourceType::kTopic, "orders"), 0);
  EXPECT_EQ(AuthorizedOperations(ctx_, admin, ResourceType::kTopic, "orders"), 3576);
  EXPECT_EQ(AuthorizedOperations(ctx_, alice, ResourceType::kCluster, kClusterResourceName), 256);
}

TEST_F(AuthorizationTest, TheHostOfAnAclIsTheClientsAddress) {
  AclBinding only_there = Allow(ResourceType::kTopic, "t", "User:alice", AclOperation::kRead);
  only_there.host = "10.0.0.7";
  WithAcls({only_there});
  EXPECT_TRUE(Authorized(ctx_, Client("User:alice", "10.0.0.7"), AclOperation::kRead,
                         ResourceType::kTopic, "t"));
  EXPECT_FALSE(Authorized(ctx_, Client("User:alice", "10.0.0.8"), AclOperation::kRead,
                          ResourceType::kTopic, "t"));
}

TEST_F(AuthorizationTest, KafkasMessagesOfTheAuthorizationErrors) {
  EXPECT_EQ(AuthorizationErrorMessage(kafka_error::kTopicAuthorizationFailed),
            "Topic authorization failed.");
  EXPECT_EQ(AuthorizationErrorMessage(kafka_error::kGroupAuthorizationFailed),
            "Group authorization failed.");
  EXPECT_EQ(AuthorizationErrorMessage(kafka_error::kClusterAuthorizationFailed),
            "Cluster authorization failed.");
  EXPECT_EQ(AuthorizationErrorMessage(kafka_error::kTransactionalIdAuthorizationFailed),
            "Transactional Id authorization failed.");
  EXPECT_EQ(AuthorizationErrorMessage(kafka_error::kNone), std::nullopt);
}

}  // namespace
}  // namespace seglog
