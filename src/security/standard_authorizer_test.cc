// StandardAuthorizer: Kafka's decision rules, one case each (docs/design/security.md, "ACLs"),
// and the ACL filters of DescribeAcls / DeleteAcls.
#include "security/standard_authorizer.h"

#include "security/cidr.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

using O = AclOperation;
using R = ResourceType;

AclBinding Acl(R type, std::string name, PatternType pattern, std::string principal, O op,
               AclPermissionType permission, std::string host = "*") {
  AclBinding a;
  a.resource_type = type;
  a.resource_name = std::move(name);
  a.pattern_type = pattern;
  a.principal = std::move(principal);
  a.host = std::move(host);
  a.operation = op;
  a.permission = permission;
  return a;
}

AclBinding Allow(R type, std::string name, std::string principal, O op,
                 PatternType pattern = PatternType::kLiteral, std::string host = "*") {
  return Acl(type, std::move(name), pattern, std::move(principal), op, AclPermissionType::kAllow,
             std::move(host));
}

AclBinding Deny(R type, std::string name, std::string principal, O op,
                PatternType pattern = PatternType::kLiteral, std::string host = "*") {
  return Acl(type, std::move(name), pattern, std::move(principal), op, AclPermissionType::kDeny,
             std::move(host));
}

class StandardAuthorizerTest : public ::testing::Test {
 protected:
  void Set(StandardAuthorizer* a, std::vector<AclBinding> acls) {
    std::map<Uuid, AclBinding> byid;
    for (AclBinding& acl : acls) byid[Uuid::Random()] = std::move(acl);
    a->SetAcls(byid);
  }
  const RequestPrincipal alice_{"User:alice", "10.0.0.1"};
  const RequestPrincipal bob_{"User:bob", "10.0.0.2"};
};

TEST_F(StandardAuthorizerTest, NoAclsDeniesUnlessAllowEveryoneAndSuperUsersAlwaysPass) {
  StandardAuthorizer strict({{"User:admin"}, false});
  EXPECT_FALSE(strict.Authorize(alice_, O::kRead, R::kTopic, "orders"));
  EXPECT_TRUE(strict.Authorize({"User:admin", "1.2.3.4"}, O::kAlter, R::kCluster, "kafka-cluster"));
  // Super users match exactly: type and case.
  EXPECT_FALSE(strict.Authorize({"User:Admin", "1.2.3.4"}, O::kRead, R::kTopic, "orders"));
  StandardAuthorizer open({{}, true});
  EXPECT_TRUE(open.Authorize(alice_, O::kRead, R::kTopic, "orders"));
}

TEST_F(StandardAuthorizerTest, AnAclOnTheResourceForSomeoneElseTurnsOffTheNoAclDefault) {
  StandardAuthorizer a({{}, true});
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kRead)});
  EXPECT_TRUE(a.Authorize(alice_, O::kRead, R::kTopic, "orders"));
  EXPECT_FALSE(a.Authorize(bob_, O::kRead, R::kTopic, "orders"));  // an ACL exists there
  EXPECT_FALSE(a.Authorize(alice_, O::kWrite, R::kTopic, "orders"));
  EXPECT_TRUE(a.Authorize(bob_, O::kRead, R::kTopic, "payments"));  // none there
  EXPECT_TRUE(a.Authorize(bob_, O::kRead, R::kGroup, "orders"));    // other resource type
}

TEST_F(StandardAuthorizerTest, DenyWinsAndImpliesNothing) {
  StandardAuthorizer a({{}, false});
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kAll),
           Deny(R::kTopic, "orders", "User:alice", O::kWrite),
           Allow(R::kTopic, "audit", "User:alice", O::kRead),
           Deny(R::kTopic, "audit", "User:alice", O::kRead)});
  EXPECT_TRUE(a.Authorize(alice_, O::kRead, R::kTopic, "orders"));
  EXPECT_FALSE(a.Authorize(alice_, O::kWrite, R::kTopic, "orders"));
  EXPECT_TRUE(a.Authorize(alice_, O::kDescribe, R::kTopic, "orders"));
  // DENY READ does not deny DESCRIBE, and the ALLOW READ still implies it.
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "audit"));
  EXPECT_TRUE(a.Authorize(alice_, O::kDescribe, R::kTopic, "audit"));
  // DENY ALL denies everything.
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kRead),
           Deny(R::kTopic, "orders", "User:*", O::kAll)});
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "orders"));
  EXPECT_FALSE(a.Authorize(alice_, O::kDescribe, R::kTopic, "orders"));
}

TEST_F(StandardAuthorizerTest, ImpliedOperations) {
  StandardAuthorizer a({{}, false});
  for (O granted : {O::kRead, O::kWrite, O::kDelete, O::kAlter}) {
    Set(&a, {Allow(R::kTopic, "t", "User:alice", granted)});
    EXPECT_TRUE(a.Authorize(alice_, O::kDescribe, R::kTopic, "t")) << AclOperationName(granted);
    EXPECT_FALSE(a.Authorize(alice_, O::kDescribeConfigs, R::kTopic, "t"));
  }
  Set(&a, {Allow(R::kTopic, "t", "User:alice", O::kAlterConfigs)});
  EXPECT_TRUE(a.Authorize(alice_, O::kDescribeConfigs, R::kTopic, "t"));
  EXPECT_FALSE(a.Authorize(alice_, O::kDescribe, R::kTopic, "t"));
  Set(&a, {Allow(R::kTopic, "t", "User:alice", O::kCreate)});
  EXPECT_FALSE(a.Authorize(alice_, O::kDescribe, R::kTopic, "t"));
  Set(&a, {Allow(R::kTopic, "t", "User:alice", O::kDescribe)});
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "t"));
}

TEST_F(StandardAuthorizerTest, PatternsPrincipalsAndHosts) {
  StandardAuthorizer a({{}, false});
  Set(&a, {Allow(R::kTopic, "orders-", "User:alice", O::kRead, PatternType::kPrefixed),
           Allow(R::kTopic, "*", "User:*", O::kDescribe),
           Allow(R::kGroup, "g", "User:bob", O::kRead, PatternType::kLiteral, "10.0.0.2"),
           Deny(R::kTopic, "orders-secret", "User:alice", O::kRead, PatternType::kPrefixed)});
  EXPECT_TRUE(a.Authorize(alice_, O::kRead, R::kTopic, "orders-eu"));
  EXPECT_TRUE(a.Authorize(alice_, O::kRead, R::kTopic, "orders-"));  // the prefix itself
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "orders"));
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "orders-secret-1"));
  EXPECT_FALSE(a.Authorize(bob_, O::kRead, R::kTopic, "orders-eu"));
  // The literal wildcard resource, for the wildcard principal.
  EXPECT_TRUE(a.Authorize(bob_, O::kDescribe, R::kTopic, "anything"));
  // Hosts: the exact client address or "*".
  EXPECT_TRUE(a.Authorize(bob_, O::kRead, R::kGroup, "g"));
  EXPECT_FALSE(a.Authorize({"User:bob", "10.0.0.3"}, O::kRead, R::kGroup, "g"));
  // Only User:* is a wildcard principal; other types match exactly.
  Set(&a, {Allow(R::kTopic, "t", "Group:*", O::kRead), Allow(R::kTopic, "u", "alice", O::kRead)});
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "t"));
  EXPECT_FALSE(a.Authorize(alice_, O::kRead, R::kTopic, "u"));  // no type: never matches
  EXPECT_TRUE(a.Authorize({"Group:*", "1.1.1.1"}, O::kRead, R::kTopic, "t"));
}

TEST_F(StandardAuthorizerTest, CidrHostsAsKafka44) {
  StandardAuthorizer a({{}, false});
  Set(&a, {Allow(R::kTopic, "t", "User:bob", O::kRead, PatternType::kLiteral, "10.0.0.0/30"),
           Deny(R::kTopic, "t", "User:*", O::kRead, PatternType::kLiteral, "10.0.0.2/32"),
           Allow(R::kTopic, "v6", "User:*", O::kRead, PatternType::kLiteral, "2001:db8::/32")});
  EXPECT_TRUE(a.Authorize({"User:bob", "10.0.0.1"}, O::kRead, R::kTopic, "t"));
  EXPECT_TRUE(a.Authorize({"User:bob", "10.0.0.3"}, O::kRead, R::kTopic, "t"));  // broadcast too
  EXPECT_FALSE(a.Authorize({"User:bob", "10.0.0.4"}, O::kRead, R::kTopic, "t"));
  EXPECT_FALSE(a.Authorize({"User:bob", "10.0.0.2"}, O::kRead, R::kTopic, "t"));  // the DENY
  EXPECT_TRUE(a.Authorize({"User:x", "2001:db8:1::5"}, O::kRead, R::kTopic, "v6"));
  EXPECT_FALSE(a.Authorize({"User:x", "2001:db9::5"}, O::kRead, R::kTopic, "v6"));
  EXPECT_FALSE(a.Authorize({"User:x", "10.0.0.1"}, O::kRead, R::kTopic, "v6"));  // family
}

TEST(CidrTest, RangesParseAsKafkasCidrUtils) {
  EXPECT_TRUE(ValidateCidr("192.168.0.0/16").ok());
  EXPECT_TRUE(ValidateCidr("::1/128").ok());
  EXPECT_EQ(ValidateCidr("10.0.0.0/33").message(), "Value [33] not in range [0,32]");
  EXPECT_EQ(ValidateCidr("10.0.0/8").message(), "Could not parse [10.0.0/8]");
  EXPECT_FALSE(ValidateCidr("10.0.0.0/").ok());
  EXPECT_FALSE(ValidateCidr("10.0.0.0/x").ok());
  EXPECT_TRUE(AddressInCidr("0.0.0.1", "0.0.0.0/0"));
  EXPECT_FALSE(AddressInCidr("not-an-ip", "0.0.0.0/0"));
}

TEST_F(StandardAuthorizerTest, AuthorizeByResourceTypeAsKafkasDefault) {
  StandardAuthorizer a({{"User:admin"}, false});
  EXPECT_FALSE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
  EXPECT_TRUE(a.AuthorizeByResourceType({"User:admin", "h"}, O::kWrite, R::kTopic));
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kWrite)});
  EXPECT_TRUE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
  EXPECT_FALSE(a.AuthorizeByResourceType(alice_, O::kRead, R::kTopic));
  EXPECT_FALSE(a.AuthorizeByResourceType(bob_, O::kWrite, R::kTopic));
  // No implied operations here: ALLOW WRITE does not give DESCRIBE.
  EXPECT_FALSE(a.AuthorizeByResourceType(alice_, O::kDescribe, R::kTopic));
  // A DENY of the name, or of a prefix of it, hides the ALLOW.
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kWrite),
           Deny(R::kTopic, "ord", "User:alice", O::kWrite, PatternType::kPrefixed)});
  EXPECT_FALSE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kWrite, PatternType::kPrefixed),
           Deny(R::kTopic, "orders", "User:alice", O::kWrite)});  // literal: not over a prefix
  EXPECT_TRUE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
  // LITERAL "*": an ALLOW allows, a DENY denies whatever else there is.
  Set(&a, {Allow(R::kTopic, "*", "User:alice", O::kWrite)});
  EXPECT_TRUE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kAll),
           Deny(R::kTopic, "*", "User:*", O::kWrite)});
  EXPECT_FALSE(a.AuthorizeByResourceType(alice_, O::kWrite, R::kTopic));
}

TEST_F(StandardAuthorizerTest, AuthorizedOperationsAreKafkasBitFields) {
  StandardAuthorizer a({{}, false});
  Set(&a,
      {Allow(R::kTopic, "t", "User:alice", O::kAll), Allow(R::kGroup, "g", "User:alice", O::kRead),
       Allow(R::kCluster, "kafka-cluster", "User:alice", O::kAll)});
  EXPECT_EQ(a.AuthorizedOperations(alice_, R::kTopic, "t"), 3576);
  EXPECT_EQ(a.AuthorizedOperations(alice_, R::kCluster, "kafka-cluster"), 8096);
  // READ, and DESCRIBE from it.
  EXPECT_EQ(a.AuthorizedOperations(alice_, R::kGroup, "g"), (1 << 3) | (1 << 8));
  EXPECT_EQ(a.AuthorizedOperations(bob_, R::kTopic, "t"), 0);
  EXPECT_EQ(SupportedOperationsMask(R::kGroup), 3400);
  EXPECT_EQ(SupportedOperationsMask(R::kTransactionalId), (1 << 4) | (1 << 8));
}

TEST_F(StandardAuthorizerTest, FiltersMatchAsDescribeAclsAndDeleteAclsDo) {
  StandardAuthorizer a({{}, false});
  Set(&a, {Allow(R::kTopic, "orders", "User:alice", O::kRead),
           Allow(R::kTopic, "ord", "User:bob", O::kWrite, PatternType::kPrefixed),
           Deny(R::kTopic, "*", "User:*", O::kDelete),
           Allow(R::kGroup, "orders", "User:alice", O::kRead)});
  EXPECT_EQ(a.Acls({}).size(), 4u);
  AclBindingFilter f;
  f.resource_type = R::kTopic;
  EXPECT_EQ(a.Acls(f).size(), 3u);
  // ANY (or the same type) compares names exactly: "*" only finds the wildcard ACL.
  f.resource_name = "*";
  ASSERT_EQ(a.Acls(f).size(), 1u);
  EXPECT_EQ(a.Acls(f)[0].second.operation, O::kDelete);
  // MATCH: every ACL that applies to the topic.
  f.resource_name = "orders";
  f.pattern_type = PatternType::kMatch;
  EXPECT_EQ(a.Acls(f).size(), 3u);
  f.pattern_type = PatternType::kLiteral;
  EXPECT_EQ(a.Acls(f).size(), 1u);
  // The entry: exact principal (no wildcard expansion), host, operation (no implication).
  AclBindingFilter e;
  e.principal = "User:alice";
  EXPECT_EQ(a.Acls(e).size(), 2u);
  e.operation = O::kDescribe;
  EXPECT_EQ(a.Acls(e).size(), 0u);
  e = {};
  e.permission = AclPermissionType::kDeny;
  e.host = "*";
  EXPECT_EQ(a.Acls(e).size(), 1u);
}

TEST_F(StandardAuthorizerTest, OptionsFromProperties) {
  auto o = AuthorizerOptions::FromProperties(
      {{"super.users", " User:admin ; ;User:ops"}, {"allow.everyone.if.no.acl.found", " TRUE "}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->super_users, (std::set<std::string>{"User:admin", "User:ops"}));
  EXPECT_TRUE(o->allow_everyone_if_no_acl_found);
  auto bad = AuthorizerOptions::FromProperties({{"super.users", "User:admin;ops"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "expected a string in format principalType:principalName but got ops");
  auto off = AuthorizerOptions::FromProperties({{"allow.everyone.if.no.acl.found", "yes"}});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->allow_everyone_if_no_acl_found);
}

}  // namespace
}  // namespace seglog
