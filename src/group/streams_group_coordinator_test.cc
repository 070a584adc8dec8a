// Tests for KIP-1071's streams groups in the GroupCoordinator, over a real LogManager in a
// temporary directory on the manual clock: a join that asks for its internal topics, their
// creation and the assignment that follows, what survives a restart, the session timeout,
// group types kept apart in both directions with Kafka's answers, ListGroups, DeleteGroups
// (empty groups only) and the offset checks of streams members.
#include <gtest/gtest.h>

#include <set>

#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "group/streams_topology.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using Request = p::StreamsGroupHeartbeatRequestData;

class StreamsGroupCoordinatorTest : public CoordinatorTestBase {
 protected:
  // Every target at once (streams_group_assignment_delay_test covers the waits).
  static std::map<std::string, std::string> NoDelays() {
    return {{"group.streams.initial.rebalance.delay.ms", "0"},
            {"group.streams.assignment.interval.ms", "0"}};
  }
  void SetUp() override {
    Open(NoDelays());
    ASSERT_TRUE(logs_->CreateTopic("in", 2, {}).ok());
  }
  void Reopen() {
    Close();
    lines_.clear();
    Open(NoDelays());
  }

  static Request Join(const std::string& member, const std::string& group = "app") {
    Request r;
    r.group_id = group;
    r.member_id = member;
    r.member_epoch = 0;
    r.rebalance_timeout_ms = 30000;
    r.process_id = "process-" + member;
    Request::Topology t;
    t.epoch = 1;
    auto& s = t.subtopologies.emplace_back();
    s.subtopology_id = "0";
    s.source_topics = {"in"};
    auto& cl = s.state_changelog_topics.emplace_back();
    cl.name = group + "-store-changelog";
    r.topology = std::move(t);
    r.active_tasks.emplace();
    r.standby_tasks.emplace();
    r.warmup_tasks.emplace();
    return r;
  }
  static Request Beat(const std::string& member, int32_t epoch, const std::string& group = "app") {
    Request r;
    r.group_id = group;
    r.member_id = member;
    r.member_epoch = epoch;
    return r;
  }
  StreamsGroupHeartbeatResult Heartbeat(const Request& r) {
    return coordinator_->StreamsGroupHeartbeat(1, {"client", "/127.0.0.1"}, r);
  }
  // Joins, creates the internal topics asked for, and heartbeats until the member has tasks.
  int32_t JoinWithTasks(const std::string& member, const std::string& group = "app") {
    StreamsGroupHeartbeatResult r = Heartbeat(Join(member, group));
    EXPECT_EQ(r.response.error_code, ke::kNone) << r.response.error_message.value_or("");
    if (!r.internal_topics_to_create.empty()) {
      EXPECT_TRUE(coordinator_->CreateStreamsInternalTopics(r.internal_topics_to_create).empty());
    }
    int32_t epoch = r.response.member_epoch;
    for (int i = 0; i < 3; ++i) {
      r = Heartbeat(Beat(member, epoch, group));
      EXPECT_EQ(r.response.error_code, ke::kNone) << r.response.error_message.value_or("");
      epoch = r.response.member_epoch;
      if (r.response.active_tasks && !r.response.active_tasks->empty()) break;
    }
    return epoch;
  }
};

TEST_F(StreamsGroupCoordinatorTest, JoinAsksForInternalTopicsThenAssigns) {
  StreamsGroupHeartbeatResult r = Heartbeat(Join("m1"));
  ASSERT_EQ(r.response.error_code, ke::kNone) << r.response.error_message.value_or("");
  ASSERT_TRUE(r.response.status.has_value());
  bool missing = false;
  for (const auto& s : *r.response.status) {
    missing =
        missing || s.status_code == static_cast<int8_t>(StreamsGroupStatus::kMissingInternalTopics);
  }
  EXPECT_TRUE(missing);
  ASSERT_EQ(r.internal_topics_to_create.size(), 1u);
  const StreamsInternalTopic& t = r.internal_topics_to_create.begin()->second;
  EXPECT_EQ(t.name, "app-store-changelog");
  EXPECT_EQ(t.partitions, 2);
  EXPECT_TRUE(coordinator_->CreateStreamsInternalTopics(r.internal_topics_to_create).empty());
  auto md = logs_->FindTopic("app-store-changelog");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->partitions, 2);
  // Created twice is no failure.
  EXPECT_TRUE(coordinator_->CreateStreamsInternalTopics(r.internal_topics_to_create).empty());
  StreamsGroupHeartbeatResult next = Heartbeat(Beat("m1", r.response.member_epoch));
  ASSERT_EQ(next.response.error_code, ke::kNone);
  EXPECT_TRUE(next.internal_topics_to_create.empty());
  ASSERT_TRUE(next.response.active_tasks.has_value());
  ASSERT_EQ(next.response.active_tasks->size(), 1u);
  EXPECT_EQ(next.response.active_tasks->at(0).partitions.size(), 2u);
  auto d = coordinator_->DescribeStreamsGroup("app");
  EXPECT_EQ(d.error_code, ke::kNone);
  EXPECT_EQ(d.group_state, "Stable");
  ASSERT_EQ(d.members.size(), 1u);
}

TEST_F(StreamsGroupCoordinatorTest, RestartReplaysTheSameGroupThenSessionFences) {
  const int32_t epoch = JoinWithTasks("m1");
  auto before = coordinator_->DescribeStreamsGroup("app");
  Reopen();
  auto after = coordinator_->DescribeStreamsGroup("app");
  ASSERT_EQ(after.error_code, ke::kNone);
  EXPECT_EQ(after.group_epoch, before.group_epoch);
  EXPECT_EQ(after.assignment_epoch, before.assignment_epoch);
  ASSERT_EQ(after.members.size(), 1u);
  EXPECT_EQ(after.members[0].member_id, "m1");
  EXPECT_EQ(after.members[0].member_epoch, epoch);
  EXPECT_EQ(after.members[0].assignment, before.members[0].assignment);
  // The member heartbeats on after the restart ...
  StreamsGroupHeartbeatResult r = Heartbeat(Beat("m1", epoch));
  EXPECT_EQ(r.response.error_code, ke::kNone) << r.response.error_message.value_or("");
  // ... then goes silent: its session (45 s) runs out and it is fenced.
  scheduler_->Advance(44999);
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("app").members.size(), 1u);
  scheduler_->Advance(1);
  auto fenced = coordinator_->DescribeStreamsGroup("app");
  EXPECT_TRUE(fenced.members.empty());
  EXPECT_EQ(fenced.group_state, "Empty");
  EXPECT_EQ(Heartbeat(Beat("m1", epoch)).response.error_code, ke::kUnknownMemberId);
}

TEST_F(StreamsGroupCoordinatorTest, GroupTypesStayApart) {
  p::ConsumerGroupHeartbeatRequestData c;
  c.group_id = "cg";
  c.member_id = "c1";
  c.member_epoch = 0;
  c.rebalance_timeout_ms = 30000;
  c.subscribed_topic_names = std::vector<std::string>{"in"};
  c.topic_partitions.emplace();
  ASSERT_EQ(coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, c).error_code,
            ke::kNone);
  StreamsGroupHeartbeatResult r = Heartbeat(Join("s1", "cg"));
  EXPECT_EQ(r.response.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(r.response.error_message, "Group cg is not a streams group.");
  EXPECT_TRUE(r.internal_topics_to_create.empty());
  auto sd = coordinator_->DescribeStreamsGroup("cg");
  EXPECT_EQ(sd.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(sd.error_message, "Group cg is not a streams group.");
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("nope").error_message, "Group nope not found.");

  JoinWithTasks("s1", "sg");
  c.group_id = "sg";
  auto cr = coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, c);
  EXPECT_EQ(cr.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(cr.error_message, "Group sg is not a consumer group.");
  p::ShareGroupHeartbeatRequestData sh;
  sh.group_id = "sg";
  sh.member_id = "x1";
  sh.member_epoch = 0;
  sh.subscribed_topic_names = std::vector<std::string>{"in"};
  auto shr = coordinator_->ShareGroupHeartbeat({"client", "/127.0.0.1"}, sh);
  EXPECT_EQ(shr.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(shr.error_message, "Group sg is not a share group.");
  p::JoinGroupRequestData j;
  j.group_id = "sg";
  j.session_timeout_ms = 10000;
  j.rebalance_timeout_ms = 10000;
  j.protocol_type = "consumer";
  j.protocols.emplace_back().name = "range";
  std::optional<p::JoinGroupResponseData> joined;
  coordinator_->JoinGroup(9, {"client", "/127.0.0.1"}, j,
                          [&joined](p::JoinGroupResponseData x) { joined = std::move(x); });
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->error_code, ke::kInconsistentGroupProtocol);
  int16_t error = 0;
  auto dg = coordinator_->DescribeGroup("sg", &error);
  ASSERT_TRUE(dg.has_value());
  EXPECT_EQ(dg->error_code, ke::kGroupIdNotFound);

  auto listed = coordinator_->ListGroups({}, {"streams"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_id, "sg");
  EXPECT_EQ(listed[0].type, "streams");
  EXPECT_EQ(listed[0].protocol_type, "streams");
  EXPECT_EQ(coordinator_->ListGroups({}, {}).size(), 2u);
}

TEST_F(StreamsGroupCoordinatorTest, DeleteOnlyAnEmptyGroup) {
  const int32_t epoch = JoinWithTasks("m1");
  EXPECT_EQ(coordinator_->DeleteGroup("app"), ke::kNonEmptyGroup);
  StreamsGroupHeartbeatResult left = Heartbeat(Beat("m1", -1));
  ASSERT_EQ(left.response.error_code, ke::kNone);
  EXPECT_EQ(left.response.member_epoch, -1);
  (void)epoch;
  EXPECT_EQ(coordinator_->DeleteGroup("app"), ke::kNone);
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("app").error_message, "Group app not found.");
  Reopen();
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("app").error_code, ke::kGroupIdNotFound);
  EXPECT_TRUE(coordinator_->ListGroups({}, {}).empty());
}

TEST_F(StreamsGroupCoordinatorTest, OffsetsOfStreamsMembersAreChecked) {
  const int32_t epoch = JoinWithTasks("m1");
  auto commit = [&](int16_t version, int32_t e, const std::string& member) {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = "in";
    parts[0].partition = 0;
    parts[0].offset = 5;
    coordinator_->CommitOffsets(version, "app", e, member, std::nullopt, -1, &parts);
    return parts[0].error_code;
  };
  EXPECT_EQ(commit(9, epoch, "m1"), ke::kNone);
  EXPECT_EQ(commit(8, epoch, "m1"), ke::kUnsupportedVersion);
  EXPECT_EQ(commit(9, epoch, "other"), ke::kUnknownMemberId);
  EXPECT_EQ(commit(9, epoch + 1, "m1"), ke::kStaleMemberEpoch);
  auto fetched = coordinator_->FetchOffsets("app", std::nullopt, std::string("m1"), epoch);
  EXPECT_EQ(fetched.error_code, ke::kNone);
  ASSERT_EQ(fetched.offsets.size(), 1u);
  EXPECT_EQ(fetched.offsets[0].offset, 5);
  EXPECT_EQ(
      coordinator_->FetchOffsets("app", std::nullopt, std::string("m1"), epoch + 1).error_code,
      ke::kStaleMemberEpoch);
  EXPECT_EQ(coordinator_->FetchOffsets("app", std::nullopt, std::string("x"), epoch).error_code,
            ke::kUnknownMemberId);
  // OffsetDelete: refused for the topology's source topics while the group has members.
  auto deleted = coordinator_->DeleteOffsets("app", {TopicPartition{"in", 0}});
  EXPECT_EQ(deleted.error_code, ke::kNone);
  ASSERT_EQ(deleted.partitions.size(), 1u);
  EXPECT_EQ(deleted.partitions[0].second, ke::kGroupSubscribedToTopic);
  ASSERT_EQ(Heartbeat(Beat("m1", -1)).response.error_code, ke::kNone);
  deleted = coordinator_->DeleteOffsets("app", {TopicPartition{"in", 0}});
  ASSERT_EQ(deleted.partitions.size(), 1u);
  EXPECT_EQ(deleted.partitions[0].second, ke::kNone);
}

}  // namespace
}  // namespace seglog
