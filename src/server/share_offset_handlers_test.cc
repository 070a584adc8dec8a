// DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets on the broker
// (share_offset_handlers.cc): refused below share.version 1, Kafka's ACL checks (DESCRIBE /
// READ / DELETE on the group, DESCRIBE / READ on topics) and where the refused topics go, and
// an alter, describe and delete that reach the group coordinator.
#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using authz_test::kGroup;
using authz_test::kTopic;

class ShareOffsetHandlersTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("orders", 2);
    CreateTopic("secret", 1);
    ctx_.features->share_version = 2;
  }
  static p::AlterShareGroupOffsetsRequestData Alter(const std::vector<std::string>& topics) {
    p::AlterShareGroupOffsetsRequestData req;
    req.group_id = "sg";
    for (const auto& name : topics) {
      auto& t = req.topics.emplace_back();
      t.topic_name = name;
      auto& part = t.partitions.emplace_back();
      part.partition_index = 0;
      part.start_offset = 0;
    }
    return req;
  }
  static p::DescribeShareGroupOffsetsRequestData Describe(
      std::optional<std::vector<std::string>> topics) {
    p::DescribeShareGroupOffsetsRequestData req;
    auto& g = req.groups.emplace_back();
    g.group_id = "sg";
    g.topics = std::nullopt;
    if (topics) {
      std::vector<p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestTopic>
          named;
      for (const auto& name : *topics) {
        auto& t = named.emplace_back();
        t.topic_name = name;
        t.partitions = {0};
      }
      g.topics = std::move(named);
    }
    return req;
  }
  static p::DeleteShareGroupOffsetsRequestData Delete(const std::vector<std::string>& topics) {
    p::DeleteShareGroupOffsetsRequestData req;
    req.group_id = "sg";
    for (const auto& name : topics) req.topics.emplace_back().topic_name = name;
    return req;
  }
};

TEST_F(ShareOffsetHandlersTest, RefusedBelowShareVersionOne) {
  ctx_.features->share_version = 0;
  auto d = HandleDescribeShareGroupOffsets(ctx_, admin_, Describe(std::nullopt), 1);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].error_code, ke::kUnsupportedVersion);
  auto a = HandleAlterShareGroupOffsets(ctx_, admin_, Alter({"orders"}), 0);
  EXPECT_EQ(a.error_code, ke::kUnsupportedVersion);
  EXPECT_EQ(a.error_message, "The version of API is not supported.");
  EXPECT_TRUE(a.responses.empty());
  auto del = HandleDeleteShareGroupOffsets(ctx_, admin_, Delete({"orders"}), 0);
  EXPECT_EQ(del.error_code, ke::kUnsupportedVersion);
  // Nothing was made.
  EXPECT_EQ(ctx_.groups->DescribeShareGroup("sg").error_code, ke::kGroupIdNotFound);
}

TEST_F(ShareOffsetHandlersTest, GroupAcls) {
  auto d = HandleDescribeShareGroupOffsets(ctx_, bob_, Describe(std::nullopt), 1);
  EXPECT_EQ(d.groups.at(0).error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(d.groups.at(0).error_message, std::nullopt);
  auto a = HandleAlterShareGroupOffsets(ctx_, bob_, Alter({"orders"}), 0);
  EXPECT_EQ(a.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(a.error_message, "Group authorization failed.");
  // READ on the group is not DELETE.
  Grant({AllowAlice(kGroup, "sg", AclOperation::kRead)});
  auto del = HandleDeleteShareGroupOffsets(ctx_, alice_, Delete({"orders"}), 0);
  EXPECT_EQ(del.error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(ctx_.groups->DescribeShareGroup("sg").error_code, ke::kGroupIdNotFound);
}

TEST_F(ShareOffsetHandlersTest, TopicAclsAndUnknownTopics) {
  Grant({AllowAlice(kGroup, "sg", AclOperation::kRead),
         AllowAlice(kGroup, "sg", AclOperation::kDelete),
         AllowAlice(kGroup, "sg", AclOperation::kDescribe),
         AllowAlice(kTopic, "orders", AclOperation::kRead),
         AllowAlice(kTopic, "nope", AclOperation::kRead)});
  auto a = HandleAlterShareGroupOffsets(ctx_, alice_, Alter({"orders", "secret", "nope"}), 0);
  ASSERT_EQ(a.error_code, ke::kNone) << a.error_message.value_or("");
  ASSERT_EQ(a.responses.size(), 3u);
  // The refused first, in request order, then the coordinator's.
  EXPECT_EQ(a.responses[0].topic_name, "secret");
  EXPECT_EQ(a.responses[0].topic_id, TopicId("secret"));
  EXPECT_EQ(a.responses[0].partitions.at(0).error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(a.responses[0].partitions.at(0).error_message, "Topic authorization failed.");
  EXPECT_EQ(a.responses[1].topic_name, "nope");
  EXPECT_EQ(a.responses[1].partitions.at(0).error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(a.responses[2].topic_name, "orders");
  EXPECT_EQ(a.responses[2].topic_id, TopicId("orders"));
  EXPECT_EQ(a.responses[2].partitions.at(0).error_code, ke::kNone);
  ExpectEncodesAt(a, 0);

  // Describe all: "orders" is initialized; bob may describe the group but not the topic: left
  // out. Alice's READ implies DESCRIBE.
  Grant({Allow(kGroup, "sg", "User:bob", AclOperation::kDescribe)});
  auto hidden = HandleDescribeShareGroupOffsets(ctx_, bob_, Describe(std::nullopt), 1);
  ASSERT_EQ(hidden.groups.at(0).error_code, ke::kNone);
  EXPECT_TRUE(hidden.groups[0].topics.empty());
  auto all = HandleDescribeShareGroupOffsets(ctx_, alice_, Describe(std::nullopt), 1);
  ASSERT_EQ(all.groups.at(0).topics.size(), 1u);
  EXPECT_EQ(all.groups[0].topics[0].topic_name, "orders");
  EXPECT_EQ(all.groups[0].topics[0].topic_id, TopicId("orders"));
  EXPECT_EQ(all.groups[0].topics[0].partitions.at(0).start_offset, -1);  // no share coordinator
  // Named: the refused come last, with start offset -1 and the error.
  auto named = HandleDescribeShareGroupOffsets(ctx_, alice_, Describe({{"secret"}}), 1);
  ASSERT_EQ(named.groups.at(0).topics.size(), 1u);
  const auto& refused = named.groups[0].topics[0];
  EXPECT_EQ(refused.topic_name, "secret");
  EXPECT_EQ(refused.topic_id, Uuid{});
  EXPECT_EQ(refused.partitions.at(0).start_offset, -1);
  EXPECT_EQ(refused.partitions.at(0).error_code, ke::kTopicAuthorizationFailed);
  ExpectEncodesAt(named, 1);
  ExpectEncodesAt(named, 0);
  // An empty topic list: the group, nothing else.
  auto empty =
      HandleDescribeShareGroupOffsets(ctx_, alice_, Describe(std::vector<std::string>{}), 1);
  EXPECT_EQ(empty.groups.at(0).error_code, ke::kNone);
  EXPECT_TRUE(empty.groups[0].topics.empty());

  auto del = HandleDeleteShareGroupOffsets(ctx_, alice_, Delete({"secret", "orders"}), 0);
  ASSERT_EQ(del.error_code, ke::kNone);
  ASSERT_EQ(del.responses.size(), 2u);
  EXPECT_EQ(del.responses[0].topic_name, "secret");
  EXPECT_EQ(del.responses[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(del.responses[0].error_message, "Topic authorization failed.");
  EXPECT_EQ(del.responses[1].topic_name, "orders");
  EXPECT_EQ(del.responses[1].error_code, ke::kNone);
  ExpectEncodesAt(del, 0);
}

TEST_F(ShareOffsetHandlersTest, CoordinatorErrorsDropTheRefusedTopics) {
  auto missing = HandleDeleteShareGroupOffsets(ctx_, admin_, Delete({"orders"}), 0);
  EXPECT_EQ(missing.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(missing.error_message, "Group sg not found.");
  EXPECT_TRUE(missing.responses.empty());
  p::ShareGroupHeartbeatRequestData join;
  join.group_id = "sg";
  join.member_id = "m-1";
  join.member_epoch = 0;
  join.subscribed_topic_names = std::vector<std::string>{"orders"};
  ASSERT_EQ(ctx_.groups->ShareGroupHeartbeat({"c", "/127.0.0.1"}, join).error_code, ke::kNone);
  Grant({AllowAlice(kGroup, "sg", AclOperation::kRead)});
  auto busy = HandleAlterShareGroupOffsets(ctx_, alice_, Alter({"orders"}), 0);
  EXPECT_EQ(busy.error_code, ke::kNonEmptyGroup);
  EXPECT_EQ(busy.error_message, "The group is not empty.");
  EXPECT_TRUE(busy.responses.empty());
}

}  // namespace
}  // namespace seglog
