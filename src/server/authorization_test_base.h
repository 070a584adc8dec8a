// Test support for the ACL checks of the API handlers: a HandlersTest broker context with a
// StandardAuthorizer (super user User:admin, allow.everyone.if.no.acl.found off), the group and
// transaction coordinators, and three clients: admin, alice (whatever ACLs a test grants her)
// and bob (none).
//
// Thread safety: a test fixture; one test's thread.
#ifndef SEGLOG_SERVER_AUTHORIZATION_TEST_BASE_H_
#define SEGLOG_SERVER_AUTHORIZATION_TEST_BASE_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "group/group_coordinator.h"
#include "protocol/protocol_writer.h"
#include "security/acl.h"
#include "security/standard_authorizer.h"
#include "server/authorization.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

// The resources the authorization tests name.
namespace authz_test {
inline constexpr ResourceType kTopic = ResourceType::kTopic;
inline constexpr ResourceType kGroup = ResourceType::kGroup;
inline constexpr ResourceType kCluster = ResourceType::kCluster;
inline constexpr ResourceType kTxn = ResourceType::kTransactionalId;
inline const std::string kClusterName(kClusterResourceName);
}  // namespace authz_test

class AuthorizationHandlersTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    auto groups =
        GroupCoordinator::Open(GroupCoordinatorConfig(), logs_.get(), scheduler_.get(), {});
    ASSERT_TRUE(groups.ok()) << groups.status().ToString();
    groups_ = std::move(groups).value();
    auto txns = TransactionCoordinator::Open(TransactionCoordinatorConfig(), logs_.get(),
                                             scheduler_.get(), {});
    ASSERT_TRUE(txns.ok()) << txns.status().ToString();
    txns_ = std::move(txns).value();
    ctx_.groups = groups_.get();
    ctx_.txns = txns_.get();
    ctx_.cluster_id = "cluster-x";
    ctx_.next_producer_id = [this]() -> Result<int64_t> { return next_producer_id_++; };
    txns_->Start(BrokerMarkerWriter(ctx_, nullptr));
    ctx_.authorizer =
        std::make_shared<StandardAuthorizer>(AuthorizerOptions{{"User:admin"}, false});
    RefreshAuthorizer(ctx_);
  }
  void TearDown() override {
    txns_->Shutdown();
    groups_->Shutdown();
    HandlersTest::TearDown();
  }

  // Stores `acls` in the metadata log and hands the new set to the authorizer, as CreateAcls
  // does.
  void Grant(const std::vector<AclBinding>& acls) {
    for (const Status& s : logs_->CreateAcls(acls)) ASSERT_TRUE(s.ok()) << s.ToString();
    RefreshAuthorizer(ctx_);
  }
  static AclBinding Allow(ResourceType type, std::string name, std::string principal,
                          AclOperation operation, PatternType pattern = PatternType::kLiteral) {
    AclBinding a;
    a.resource_type = type;
    a.resource_name = std::move(name);
    a.pattern_type = pattern;
    a.principal = std::move(principal);
    a.operation = operation;
    a.permission = AclPermissionType::kAllow;
    return a;
  }
  static AclBinding AllowAlice(ResourceType type, std::string name, AclOperation operation,
                               PatternType pattern = PatternType::kLiteral) {
    return Allow(type, std::move(name), "User:alice", operation, pattern);
  }
  static RequestContext Client(std::string principal) {
    RequestContext rc;
    rc.principal = std::move(principal);
    rc.client_host = "127.0.0.1";
    rc.client_address = "127.0.0.1:50000";
    rc.listener = "PLAINTEXT";
    return rc;
  }
  void CreateTopic(const std::string& name, int32_t partitions = 1) {
    ASSERT_TRUE(logs_->CreateTopic(name, partitions).ok()) << name;
  }
  Uuid TopicId(const std::string& name) {
    auto md = logs_->FindTopic(name);
    EXPECT_TRUE(md.ok()) << name;
    return md.ok() ? Uuid::Parse(md->topic_id).value() : Uuid{};
  }
  // `resp` encodes at `version` (the one it was made for: some fields exist only there).
  template <typename Resp>
  static void ExpectEncodesAt(const Resp& resp, int16_t version) {
    protocol::ProtocolWriter w;
    Status s = resp.Encode(&w, version);
    EXPECT_TRUE(s.ok()) << "v" << version << ": " << s.ToString();
  }
  int64_t LogEndOffset(const std::string& topic, int32_t partition = 0) {
    std::shared_ptr<Log> log = GetLog(topic, partition);
    return log ? log->log_end_offset() : -1;
  }

  const RequestContext admin_ = Client("User:admin");
  const RequestContext alice_ = Client("User:alice");
  const RequestContext bob_ = Client("User:bob");
  std::unique_ptr<GroupCoordinator> groups_;
  std::unique_ptr<TransactionCoordinator> txns_;
  int64_t next_producer_id_ = 1000;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_AUTHORIZATION_TEST_BASE_H_
