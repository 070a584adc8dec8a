// StreamsGroupHeartbeat, StreamsGroupDescribe and StreamsGroupTopologyDescriptionUpdate on the
// broker (streams_group_handlers.cc): refused below streams.version 1, the ACL and topology
// checks Kafka's KafkaApis makes first, the internal topics created only with CREATE, and a
// join and describe that reach the group coordinator.
#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using authz_test::kGroup;
using authz_test::kTopic;

constexpr int8_t kMissingInternalTopics =
    static_cast<int8_t>(StreamsGroupStatus::kMissingInternalTopics);

class StreamsGroupHandlersTest : public AuthorizationHandlersTest {
 protected:
  void SetUp() override {
    AuthorizationHandlersTest::SetUp();
    CreateTopic("in", 2);
    ctx_.features->streams_version = 1;
  }
  static p::StreamsGroupHeartbeatRequestData Join(const std::string& member,
                                                  const std::string& source = "in") {
    p::StreamsGroupHeartbeatRequestData r;
    r.group_id = "app";
    r.member_id = member;
    r.member_epoch = 0;
    r.rebalance_timeout_ms = 30000;
    r.process_id = "p-" + member;
    p::StreamsGroupHeartbeatRequestData::Topology t;
    t.epoch = 1;
    auto& s = t.subtopologies.emplace_back();
    s.subtopology_id = "0";
    s.source_topics = {source};
    s.state_changelog_topics.emplace_back().name = "app-store-changelog";
    r.topology = std::move(t);
    r.active_tasks.emplace();
    r.standby_tasks.emplace();
    r.warmup_tasks.emplace();
    return r;
  }
  static std::string MissingDetail(const p::StreamsGroupHeartbeatResponseData& r) {
    if (!r.status) return "";
    for (const auto& s : *r.status) {
      if (s.status_code == kMissingInternalTopics) return s.status_detail;
    }
    return "";
  }
  GroupClient client_{"c1", "/127.0.0.1"};
};

TEST_F(StreamsGroupHandlersTest, RefusedBelowStreamsVersionOne) {
  ctx_.features->streams_version = 0;
  auto hb = HandleStreamsGroupHeartbeat(ctx_, admin_, client_, Join("m-1"), 1);
  EXPECT_EQ(hb.error_code, ke::kUnsupportedVersion);
  EXPECT_EQ(hb.error_message, std::nullopt);
  p::StreamsGroupDescribeRequestData d;
  d.group_ids = {"a", "b"};
  auto described = HandleStreamsGroupDescribe(ctx_, admin_, d, 1);
  ASSERT_EQ(described.groups.size(), 2u);
  for (const auto& g : described.groups) EXPECT_EQ(g.error_code, ke::kUnsupportedVersion);
  p::StreamsGroupTopologyDescriptionUpdateRequestData u;
  u.group_id = "app";
  u.member_id = "m-1";
  EXPECT_EQ(HandleStreamsGroupTopologyDescriptionUpdate(ctx_, admin_, u, 0).error_code,
            ke::kUnsupportedVersion);
}

TEST_F(StreamsGroupHandlersTest, ChecksBeforeTheCoordinator) {
  EXPECT_EQ(HandleStreamsGroupHeartbeat(ctx_, bob_, client_, Join("m-1"), 1).error_code,
            ke::kGroupAuthorizationFailed);
  auto internal =
      HandleStreamsGroupHeartbeat(ctx_, admin_, client_, Join("m-1", "__consumer_offsets"), 1);
  EXPECT_EQ(internal.error_code, kStreamsInvalidTopologyCode);
  EXPECT_EQ(internal.error_message,
            "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is "
            "prohibited.");
  auto invalid = HandleStreamsGroupHeartbeat(ctx_, admin_, client_, Join("m-1", "a b"), 1);
  EXPECT_EQ(invalid.error_code, kStreamsInvalidTopologyCode);
  EXPECT_EQ(invalid.error_message, "Topic names a b are not valid topic names.");
  // READ on the group but not DESCRIBE on the topics.
  Grant({AllowAlice(kGroup, "app", AclOperation::kRead)});
  auto refused = HandleStreamsGroupHeartbeat(ctx_, alice_, client_, Join("m-1"), 1);
  EXPECT_EQ(refused.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.error_message, std::nullopt);
  // DESCRIBE too, but not CREATE: the member joins; the changelog is not created.
  Grant({AllowAlice(kTopic, "in", AclOperation::kDescribe),
         AllowAlice(kTopic, "app-store-changelog", AclOperation::kDescribe)});
  auto joined = HandleStreamsGroupHeartbeat(ctx_, alice_, client_, Join("m-1"), 1);
  ASSERT_EQ(joined.error_code, ke::kNone) << joined.error_message.value_or("");
  EXPECT_NE(MissingDetail(joined).find("; Unauthorized to CREATE on topics app-store-changelog."),
            std::string::npos)
      << MissingDetail(joined);
  EXPECT_FALSE(logs_->FindTopic("app-store-changelog").ok());
  ExpectEncodesAt(joined, 1);
  // With CREATE on the topic it is created.
  Grant({AllowAlice(kTopic, "app-store-changelog", AclOperation::kCreate)});
  auto again = HandleStreamsGroupHeartbeat(ctx_, alice_, client_, Join("m-1"), 1);
  ASSERT_EQ(again.error_code, ke::kNone) << again.error_message.value_or("");
  auto md = logs_->FindTopic("app-store-changelog");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->partitions, 2);
}

TEST_F(StreamsGroupHandlersTest, JoinThenDescribe) {
  auto joined = HandleStreamsGroupHeartbeat(ctx_, admin_, client_, Join("m-1"), 1);
  ASSERT_EQ(joined.error_code, ke::kNone) << joined.error_message.value_or("");
  EXPECT_TRUE(logs_->FindTopic("app-store-changelog").ok());
  p::StreamsGroupDescribeRequestData d;
  d.group_ids = {"app", "nope"};
  d.include_authorized_operations = true;
  auto described = HandleStreamsGroupDescribe(ctx_, admin_, d, 1);
  ASSERT_EQ(described.groups.size(), 2u);
  EXPECT_EQ(described.groups[0].error_code, ke::kNone);
  ASSERT_EQ(described.groups[0].members.size(), 1u);
  EXPECT_EQ(described.groups[0].members[0].member_id, "m-1");
  EXPECT_NE(described.groups[0].authorized_operations, 0);
  EXPECT_EQ(described.groups[1].error_code, ke::kGroupIdNotFound);
  ExpectEncodesAt(described, 1);
  // Bob may describe app only: "nope" is refused, and listed first; app's topics he may not
  // describe, so app is refused too.
  Grant({Allow(kGroup, "app", "User:bob", AclOperation::kDescribe)});
  d.group_ids = {"nope", "app"};
  auto for_bob = HandleStreamsGroupDescribe(ctx_, bob_, d, 1);
  ASSERT_EQ(for_bob.groups.size(), 2u);
  EXPECT_EQ(for_bob.groups[0].group_id, "nope");
  EXPECT_EQ(for_bob.groups[0].error_code, ke::kGroupAuthorizationFailed);
  EXPECT_EQ(for_bob.groups[1].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_TRUE(for_bob.groups[1].members.empty());
  // Without a topology description plugin, 93 is refused as Kafka 4.4.0 does.
  p::StreamsGroupTopologyDescriptionUpdateRequestData u;
  u.group_id = "app";
  u.member_id = "m-1";
  u.topology_epoch = 1;
  auto updated = HandleStreamsGroupTopologyDescriptionUpdate(ctx_, admin_, u, 0);
  EXPECT_EQ(updated.error_code, ke::kUnsupportedVersion);
  EXPECT_EQ(updated.error_message,
            "The broker has no streams group topology description plugin configured.");
}

}  // namespace
}  // namespace seglog
