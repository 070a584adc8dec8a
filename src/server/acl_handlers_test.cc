// The ACL APIs (acl_handlers.cc) over a LogManager in temporary directories: without an
// authorizer, SECURITY_DISABLED; with one, ACLs created, described, deleted with Kafka's
// filters and checks, kept in the metadata log across a restart, and given to the authorizer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "server/expect_encodes.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

class AclHandlersTest : public HandlersTest {
 protected:
  void WithAuthorizer(AuthorizerOptions options = {{"User:ANONYMOUS"}, false}) {
    ctx_.authorizer = std::make_shared<StandardAuthorizer>(std::move(options));
    RefreshAuthorizer(ctx_);
  }
};

p::CreateAclsRequestData::AclCreation Creation(int8_t type, std::string name, int8_t pattern,
                                               std::string principal, int8_t op, int8_t permission,
                                               std::string host = "*") {
  p::CreateAclsRequestData::AclCreation c;
  c.resource_type = type;
  c.resource_name = std::move(name);
  c.resource_pattern_type = pattern;
  c.principal = std::move(principal);
  c.host = std::move(host);
  c.operation = op;
  c.permission_type = permission;
  return c;
}

constexpr int8_t kTopic = 2, kGroup = 3, kCluster = 4, kLiteral = 3, kPrefixed = 4, kAny = 1,
                 kMatch = 2, kRead = 3, kWrite = 4, kAllow = 3, kDeny = 2;

TEST_F(AclHandlersTest, WithoutAnAuthorizerEveryAclApiIsSecurityDisabled) {
  auto d = HandleDescribeAcls(ctx_, rc_, {}, 3);
  EXPECT_EQ(d.error_code, ke::kSecurityDisabled);
  p::CreateAclsRequestData c;
  c.creations = {Creation(kTopic, "t", kLiteral, "User:a", kRead, kAllow)};
  EXPECT_EQ(HandleCreateAcls(ctx_, rc_, c, 3).results.at(0).error_code, ke::kSecurityDisabled);
  EXPECT_TRUE(logs_->Acls().empty());
}

TEST_F(AclHandlersTest, CreateDescribeDeleteAndKeepAcrossARestart) {
  WithAuthorizer();
  p::CreateAclsRequestData c;
  c.creations = {Creation(kTopic, "orders", kLiteral, "User:alice", kRead, kAllow),
                 Creation(kTopic, "ord", kPrefixed, "User:bob", kWrite, kDeny, "10.0.0.1"),
                 Creation(kGroup, "g", kLiteral, "User:alice", kRead, kAllow),
                 Creation(kTopic, "orders", kLiteral, "User:alice", kRead, kAllow),  // again
                 Creation(kCluster, "other", kLiteral, "User:alice", kRead, kAllow),
                 Creation(kTopic, "", kLiteral, "User:alice", kRead, kAllow)};
  auto created = HandleCreateAcls(ctx_, rc_, c, 3);
  ASSERT_EQ(created.results.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(created.results[i].error_code, ke::kNone) << i;
  EXPECT_EQ(created.results[4].error_code, ke::kInvalidRequest);
  EXPECT_EQ(created.results[4].error_message,
            "The only valid name for the CLUSTER resource is kafka-cluster");
  EXPECT_EQ(created.results[5].error_message, "Invalid empty resource name");
  testing::ExpectEncodes(created, p::ApiKey::kCreateAcls);
  EXPECT_EQ(logs_->Acls().size(), 3u);  // the duplicate wrote nothing
  // The authorizer has them at once.
  EXPECT_TRUE(ctx_.authorizer->Authorize({"User:alice", "h"}, AclOperation::kRead,
                                         ResourceType::kTopic, "orders"));
  EXPECT_FALSE(ctx_.authorizer->Authorize({"User:bob", "h"}, AclOperation::kRead,
                                          ResourceType::kTopic, "orders"));
  // DescribeAcls: MATCH on topic "orders" finds the literal and the prefixed ACL, by resource.
  p::DescribeAclsRequestData d;
  d.resource_type_filter = kTopic;
  d.resource_name_filter = "orders";
  d.pattern_type_filter = kMatch;
  d.principal_filter = std::nullopt;
  d.host_filter = std::nullopt;
  d.operation = kAny;
  d.permission_type = kAny;
  auto described = HandleDescribeAcls(ctx_, rc_, d, 3);
  EXPECT_EQ(described.error_code, ke::kNone);
  ASSERT_EQ(described.resources.size(), 2u);
  EXPECT_EQ(described.resources[0].resource_name, "ord");
  EXPECT_EQ(described.resources[0].pattern_type, kPrefixed);
  EXPECT_EQ(described.resources[0].acls.at(0).host, "10.0.0.1");
  EXPECT_EQ(described.resources[1].resource_name, "orders");
  testing::ExpectEncodes(described, p::ApiKey::kDescribeAcls);
  // A restart: the metadata log has them.
  Open({});
  WithAuthorizer();
  EXPECT_EQ(logs_->Acls().size(), 3u);
  // DeleteAcls: two filters matching one ACL list it twice and remove it once.
  p::DeleteAclsRequestData del;
  auto& f1 = del.filters.emplace_back();
  f1.resource_type_filter = kAny;
  f1.resource_name_filter = std::nullopt;
  f1.pattern_type_filter = kAny;
  f1.principal_filter = "User:alice";
  f1.host_filter = std::nullopt;
  f1.operation = kAny;
  f1.permission_type = kAny;
  auto f2 = f1;
  f2.resource_type_filter = kGroup;
  auto f3 = f1;
  f3.principal_filter = "User:nobody";
  del.filters = {f1, f2, f3};
  auto deleted = HandleDeleteAcls(ctx_, rc_, del, 3);
  ASSERT_EQ(deleted.filter_results.size(), 3u);
  EXPECT_EQ(deleted.filter_results[0].matching_acls.size(), 2u);
  EXPECT_EQ(deleted.filter_results[1].matching_acls.size(), 1u);
  EXPECT_EQ(deleted.filter_results[2].error_code, ke::kNone);
  EXPECT_TRUE(deleted.filter_results[2].matching_acls.empty());
  testing::ExpectEncodes(deleted, p::ApiKey::kDeleteAcls);
  ASSERT_EQ(logs_->Acls().size(), 1u);
  EXPECT_EQ(logs_->Acls().begin()->second.principal, "User:bob");
  EXPECT_FALSE(ctx_.authorizer->Authorize({"User:alice", "h"}, AclOperation::kRead,
                                          ResourceType::kTopic, "orders"));
}

TEST_F(AclHandlersTest, HostsAndPrincipalsAreCheckedAsKafka44sController) {
  WithAuthorizer();
  p::CreateAclsRequestData c;
  c.creations = {Creation(kTopic, "t", kLiteral, "User:a", kRead, kAllow, "10.1.0.0/16"),
                 Creation(kTopic, "t", kLiteral, "User:a", kRead, kAllow, "10.1.0.0/40"),
                 Creation(kTopic, "t", kLiteral, "User:a", kRead, kAllow, ""),
                 Creation(kTopic, "t", kLiteral, "alice", kRead, kAllow)};
  auto r = HandleCreateAcls(ctx_, rc_, c, 3);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].error_code, ke::kNone);
  EXPECT_EQ(r.results[1].error_code, ke::kInvalidRequest);
  EXPECT_EQ(r.results[1].error_message,
            "Invalid CIDR notation '10.1.0.0/40': Value [40] not in range [0,32]");
  EXPECT_EQ(r.results[2].error_message, "Host pattern cannot be null or empty");
  EXPECT_EQ(r.results[3].error_message,
            "Could not parse principal from `alice` (no colon is present separating the "
            "principal type from the principal name)");
  EXPECT_EQ(logs_->Acls().size(), 1u);
  // The range applies to the clients in it.
  EXPECT_TRUE(ctx_.authorizer->Authorize({"User:a", "10.1.200.3"}, AclOperation::kRead,
                                         ResourceType::kTopic, "t"));
  EXPECT_FALSE(ctx_.authorizer->Authorize({"User:a", "10.2.0.1"}, AclOperation::kRead,
                                          ResourceType::kTopic, "t"));
}

TEST_F(AclHandlersTest, AnyOrMatchInACreationFailsTheWholeRequest) {
  WithAuthorizer();
  p::CreateAclsRequestData c;
  c.creations = {Creation(kTopic, "ok", kLiteral, "User:a", kRead, kAllow),
                 Creation(kTopic, "t", kMatch, "User:a", kRead, kAllow)};
  auto r = HandleCreateAcls(ctx_, rc_, c, 3);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].error_code, ke::kUnknownServerError);
  EXPECT_EQ(r.results[1].error_code, ke::kUnknownServerError);
  EXPECT_TRUE(logs_->Acls().empty());
}

TEST_F(AclHandlersTest, AClientThatMayNotAlterTheClusterChangesNothing) {
  // ANONYMOUS is no super user here, and no ACL lets it alter the cluster.
  WithAuthorizer({{}, false});
  p::CreateAclsRequestData c;
  c.creations = {Creation(kTopic, "t", kLiteral, "User:a", kRead, kAllow)};
  auto r = HandleCreateAcls(ctx_, rc_, c, 3);
  EXPECT_EQ(r.results.at(0).error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(HandleDescribeAcls(ctx_, rc_, {}, 3).error_code, ke::kClusterAuthorizationFailed);
  EXPECT_TRUE(logs_->Acls().empty());
}

}  // namespace
}  // namespace seglog
