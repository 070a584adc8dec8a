// ShareGroupHeartbeat and ShareGroupDescribe on the broker (share_group_handlers.cc): refused
// below share.version 1, the ACL and member id checks Kafka's KafkaApis makes first (codes
// only), and a join and describe that reach the group coordinator.
#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using authz_test::kGroup;

class ShareGroupHandlersTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("orders", 2);
    ctx_.features->share_version = 2;
  }
  static p::ShareGroupHeartbeatRequestData Join(const std::string& member) {
    p::ShareGroupHeartbeatRequestData req;
    req.group_id = "sg";
    req.member_id = member;
    req.member_epoch = 0;
    req.subscribed_topic_names = std::vector<std::string>{"orders"};
    return req;
  }
  GroupClient client_{"c1", "/127.0.0.1"};
};

TEST_F(ShareGroupHandlersTest, RefusedBelowShareVersionOne) {
  ctx_.features->share_version = 0;
  auto hb = HandleShareGroupHeartbeat(ctx_, admin_, client_, Join("m-1"), 1);
  EXPECT_EQ(hb.error_code, ke::kUnsupportedVersion);
  EXPECT_EQ(hb.error_message, std::nullopt);
  p::ShareGroupDescribeRequestData d;
  d.group_ids = {"a", "b"};
  auto described = HandleShareGroupDescribe(ctx_, admin_, d, 1);
  ASSERT_EQ(described.groups.size(), 2u);
  for (const auto& g : described.groups) EXPECT_EQ(g.error_code, ke::kUnsupportedVersion);
}

TEST_F(ShareGroupHandlersTest, ChecksBeforeTheCoordinator) {
  EXPECT_EQ(HandleShareGroupHeartbeat(ctx_, bob_, client_, Join("m-1"), 1).error_code,
            ke::kGroupAuthorizationFailed);
  EXPECT_EQ(HandleShareGroupHeartbeat(ctx_, admin_, client_, Join(""), 1).error_code,
            ke::kInvalidRequest);
  EXPECT_EQ(
      HandleShareGroupHeartbeat(ctx_, admin_, client_, Join(std::string(37, 'm')), 1).error_code,
      ke::kInvalidRequest);
  // READ on the group but not DESCRIBE on the topic.
  Grant({AllowAlice(kGroup, "sg", AclOperation::kRead)});
  auto refused = HandleShareGroupHeartbeat(ctx_, alice_, client_, Join("m-1"), 1);
  EXPECT_EQ(refused.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.error_message, std::nullopt);
  // Nothing was made of the refused heartbeats.
  p::ShareGroupDescribeRequestData d;
  d.group_ids = {"sg"};
  EXPECT_EQ(HandleShareGroupDescribe(ctx_, admin_, d, 1).groups.at(0).error_code,
            ke::kGroupIdNotFound);
}

TEST_F(ShareGroupHandlersTest, JoinThenDescribe) {
  auto joined = HandleShareGroupHeartbeat(ctx_, admin_, client_, Join("m-1"), 1);
  ASSERT_EQ(joined.error_code, ke::kNone) << joined.error_message.value_or("");
  EXPECT_EQ(joined.member_id, "m-1");
  EXPECT_GE(joined.member_epoch, 1);
  ExpectEncodesAt(joined, 1);
  p::ShareGroupDescribeRequestData d;
  d.group_ids = {"sg", "nope"};
  d.include_authorized_operations = true;
  auto described = HandleShareGroupDescribe(ctx_, admin_, d, 1);
  ASSERT_EQ(described.groups.size(), 2u);
  EXPECT_EQ(described.groups[0].error_code, ke::kNone);
  EXPECT_EQ(described.groups[0].group_state, "Stable");
  ASSERT_EQ(described.groups[0].members.size(), 1u);
  EXPECT_EQ(described.groups[0].members[0].member_id, "m-1");
  EXPECT_NE(described.groups[0].authorized_operations, 0);
  EXPECT_EQ(described.groups[1].error_code, ke::kGroupIdNotFound);
  ExpectEncodesAt(described, 1);
  // Bob may describe sg only: "nope" is refused, and listed first.
  Grant({Allow(kGroup, "sg", "User:bob", AclOperation::kDescribe)});
  d.group_ids = {"nope", "sg"};
  auto for_bob = HandleShareGroupDescribe(ctx_, bob_, d, 1);
  EXPECT_EQ(for_bob.groups.at(0).group_id, "nope");
  EXPECT_EQ(for_bob.groups.at(0).error_code, ke::kGroupAuthorizationFailed);
}

}  // namespace
}  // namespace seglog
