// Tests for KIP-1071's streams groups in the GroupCoordinator, over a real LogManager in a
// temporary directory on the manual clock: a join that asks for its internal topics, their
// creation and the assignment that follows, what survives a restart, the session timeout,
// group types kept apart in both directions with Kafka's answers, ListGroups, DeleteGroups
// (empty groups only) and the offset checks of streams members.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "group/streams_join_request_test_util.h"
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
    return StreamsJoinRequest(member, group);
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

// Issue 31, bad input: a heartbeat, join or describe for a group id of another type. Each gets
// Kafka 4.4.0's code and message (GroupMetadataManager's getOrMaybeCreate*/cast*/group
// lookups, classicGroupJoin) and changes nothing: the same records in __consumer_offsets, the
// same committed offsets, and every group described the same before and after.
class GroupTypeBadInputTest : public StreamsGroupCoordinatorTest {
 protected:
  struct Snapshot {
    std::vector<int64_t> offsets_log_ends;
    int64_t num_offsets = 0;
    std::vector<p::ConsumerGroupDescribeResponseData::DescribedGroup> consumer;
    std::vector<p::ShareGroupDescribeResponseData::DescribedGroup> share;
    std::vector<StreamsDescribedGroup> streams;
    std::vector<std::optional<p::DescribeGroupsResponseData::DescribedGroup>> classic;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot Take() {
    Snapshot out;
    for (int32_t i = 0; i < 3; ++i) {
      auto log = logs_->GetLog({"__consumer_offsets", i});
      out.offsets_log_ends.push_back(log.ok() ? (*log)->log_end_offset() : -1);
    }
    out.num_offsets = coordinator_->NumOffsets();
    for (const char* id : {"cg", "sg", "app", "kg", "nope"}) {
      out.consumer.push_back(coordinator_->DescribeConsumerGroup(id));
      out.share.push_back(coordinator_->DescribeShareGroup(id));
      out.streams.push_back(coordinator_->DescribeStreamsGroup(id));
      int16_t error = 0;
      out.classic.push_back(coordinator_->DescribeGroup(id, &error));
    }
    return out;
  }
  static p::ConsumerGroupHeartbeatRequestData ConsumerJoin(const std::string& group,
                                                           int32_t epoch = 0) {
    p::ConsumerGroupHeartbeatRequestData c;
    c.group_id = group;
    c.member_id = "c1";
    c.member_epoch = epoch;
    c.rebalance_timeout_ms = 30000;
    c.subscribed_topic_names = std::vector<std::string>{"in"};
    c.topic_partitions.emplace();
    return c;
  }
  static p::ShareGroupHeartbeatRequestData ShareJoin(const std::string& group, int32_t epoch = 0) {
    p::ShareGroupHeartbeatRequestData sh;
    sh.group_id = group;
    sh.member_id = "x1";
    sh.member_epoch = epoch;
    sh.subscribed_topic_names = std::vector<std::string>{"in"};
    return sh;
  }
  void SetUpGroups() {
    ASSERT_EQ(coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, ConsumerJoin("cg"))
                  .error_code,
              ke::kNone);
    ASSERT_EQ(
        coordinator_->ShareGroupHeartbeat({"client", "/127.0.0.1"}, ShareJoin("sg")).error_code,
        ke::kNone);
    JoinWithTasks("s1", "app");
    // An empty ("simple") classic group: offsets committed outside any generation.
    std::vector<GroupCoordinator::CommitPartition> commit(1);
    commit[0].topic.push_back('i');
    commit[0].topic.push_back('n');
    commit[0].offset = 7;
    coordinator_->CommitOffsets(9, "kg", -1, "", std::nullopt, -1, &commit);
    ASSERT_EQ(commit[0].error_code, ke::kNone);
  }
};

TEST_F(GroupTypeBadInputTest, HeartbeatsIntoAnotherTypeChangeNothing) {
  SetUpGroups();
  const Snapshot before = Take();
  ASSERT_EQ(before.consumer[0].error_code, ke::kNone);
  ASSERT_EQ(before.share[1].error_code, ke::kNone);
  ASSERT_EQ(before.streams[2].error_code, ke::kNone);
  ASSERT_TRUE(before.classic[3].has_value());
  ASSERT_EQ(before.classic[3]->group_state, "Empty");
  const GroupCoordinator::Client client{"client", "/127.0.0.1"};

  // ConsumerGroupHeartbeat: a share or streams group never converts; a classic group only on
  // a join.
  for (const char* id : {"sg", "app"}) {
    auto r = coordinator_->ConsumerGroupHeartbeat(1, client, ConsumerJoin(id));
    EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
    EXPECT_EQ(r.error_message, fmt::format("Group {} is not a consumer group.", id));
    EXPECT_EQ(Take(), before) << id;
  }
  auto cr = coordinator_->ConsumerGroupHeartbeat(1, client, ConsumerJoin("kg", 3));
  EXPECT_EQ(cr.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(cr.error_message, "Group kg is not a consumer group.");
  EXPECT_EQ(Take(), before);

  // ShareGroupHeartbeat: no group of another type becomes a share group, not even an empty
  // classic one.
  for (const char* id : {"cg", "app", "kg"}) {
    auto r = coordinator_->ShareGroupHeartbeat(client, ShareJoin(id));
    EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
    EXPECT_EQ(r.error_message, fmt::format("Group {} is not a share group.", id));
    EXPECT_EQ(Take(), before) << id;
  }
  auto unknown_share = coordinator_->ShareGroupHeartbeat(client, ShareJoin("nope", 3));
  EXPECT_EQ(unknown_share.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(unknown_share.error_message, "Share group nope not found.");
  EXPECT_EQ(Take(), before);

  // StreamsGroupHeartbeat: a join never takes a consumer or share group; a heartbeat past
  // the join never takes an (empty) classic one; an unknown group past the join is not found.
  for (const char* id : {"cg", "sg"}) {
    StreamsGroupHeartbeatResult r = Heartbeat(Join("s9", id));
    EXPECT_EQ(r.response.error_code, ke::kGroupIdNotFound);
    EXPECT_EQ(r.response.error_message, fmt::format("Group {} is not a streams group.", id));
    EXPECT_TRUE(r.internal_topics_to_create.empty());
    EXPECT_EQ(Take(), before) << id;
  }
  StreamsGroupHeartbeatResult sr = Heartbeat(Beat("s9", 3, "kg"));
  EXPECT_EQ(sr.response.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(sr.response.error_message, "Group kg is not a streams group.");
  sr = Heartbeat(Beat("s9", 3, "nope"));
  EXPECT_EQ(sr.response.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(sr.response.error_message, "Streams group nope not found.");
  EXPECT_EQ(Take(), before);

  // Classic JoinGroup into a share group or a non-empty streams group: INCONSISTENT_GROUP_
  // PROTOCOL with an empty member id; classic Heartbeat: UNKNOWN_MEMBER_ID.
  for (const char* id : {"sg", "app"}) {
    p::JoinGroupRequestData j;
    j.group_id = id;
    j.session_timeout_ms = 10000;
    j.rebalance_timeout_ms = 10000;
    j.protocol_type = "consumer";
    j.protocols.emplace_back().name = "range";
    std::optional<p::JoinGroupResponseData> joined;
    coordinator_->JoinGroup(9, client, j,
                            [&joined](p::JoinGroupResponseData x) { joined = std::move(x); });
    ASSERT_TRUE(joined.has_value());
    EXPECT_EQ(joined->error_code, ke::kInconsistentGroupProtocol);
    EXPECT_EQ(joined->member_id, "");
    EXPECT_EQ(coordinator_->Heartbeat(id, 1, "s1", std::nullopt), ke::kUnknownMemberId);
    EXPECT_EQ(Take(), before) << id;
  }
}

TEST_F(GroupTypeBadInputTest, DescribesOfAnotherType) {
  SetUpGroups();
  const Snapshot s = Take();
  // Index order: cg, sg, app, kg, nope.
  const std::vector<std::string> ids{"cg", "sg", "app", "kg", "nope"};
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE(ids[i]);
    const std::string& id = ids[i];
    if (id != "cg") {
      EXPECT_EQ(s.consumer[i].error_code, ke::kGroupIdNotFound);
      EXPECT_EQ(s.consumer[i].error_message,
                id == "nope" ? "Group nope not found."
                             : fmt::format("Group {} is not a consumer group.", id));
    }
    if (id != "sg") {
      EXPECT_EQ(s.share[i].error_code, ke::kGroupIdNotFound);
      EXPECT_EQ(s.share[i].error_message, id == "nope"
                                              ? "Group nope not found."
                                              : fmt::format("Group {} is not a share group.", id));
    }
    if (id != "app") {
      EXPECT_EQ(s.streams[i].error_code, ke::kGroupIdNotFound);
      EXPECT_EQ(s.streams[i].error_message,
                id == "nope" ? "Group nope not found."
                             : fmt::format("Group {} is not a streams group.", id));
    }
    if (id != "kg" && id != "nope") {
      ASSERT_TRUE(s.classic[i].has_value());
      EXPECT_EQ(s.classic[i]->error_code, ke::kGroupIdNotFound);
      EXPECT_EQ(s.classic[i]->group_state, "Dead");
      EXPECT_EQ(s.classic[i]->error_message, fmt::format("Group {} is not a classic group.", id));
    }
  }
  EXPECT_EQ(Take(), s);
}

// The one conversion a streams join makes (maybeDeleteEmptyClassicGroup): an empty classic
// group becomes a streams group; its metadata is tombstoned, its committed offsets stay.
TEST_F(GroupTypeBadInputTest, StreamsJoinReplacesAnEmptyClassicGroup) {
  SetUpGroups();
  const int64_t offsets = coordinator_->NumOffsets();
  StreamsGroupHeartbeatResult r = Heartbeat(Join("s1", "kg"));
  ASSERT_EQ(r.response.error_code, ke::kNone) << r.response.error_message.value_or("");
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("kg").error_code, ke::kNone);
  int16_t error = 0;
  auto classic = coordinator_->DescribeGroup("kg", &error);
  ASSERT_TRUE(classic.has_value());
  EXPECT_EQ(classic->error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(coordinator_->NumOffsets(), offsets);
  // A restart replays the tombstone: still a streams group, not a classic one.
  Reopen();
  EXPECT_EQ(coordinator_->DescribeStreamsGroup("kg").error_code, ke::kNone);
  classic = coordinator_->DescribeGroup("kg", &error);
  ASSERT_TRUE(classic.has_value());
  EXPECT_EQ(classic->error_code, ke::kGroupIdNotFound);
}

// Issue 31, bad input: topologies Kafka 4.4.0 refuses. A refused heartbeat writes nothing and
// creates no topic; missing or mis-partitioned topics are statuses, not errors (the member
// joins without tasks and nothing is created for a topology whose sources are missing).
TEST_F(GroupTypeBadInputTest, RefusedTopologiesChangeNothing) {
  SetUpGroups();
  const Snapshot before = Take();
  auto expect_refused = [&](const Request& r, int16_t code,
                            const std::optional<std::string>& message) {
    StreamsGroupHeartbeatResult out = Heartbeat(r);
    EXPECT_EQ(out.response.error_code, code);
    EXPECT_EQ(out.response.error_message, message);
    EXPECT_TRUE(out.internal_topics_to_create.empty());
    EXPECT_EQ(Take(), before);
    EXPECT_EQ(coordinator_->DescribeStreamsGroup(r.group_id).error_code,
              r.group_id == "app" ? ke::kNone : ke::kGroupIdNotFound);
  };
  // A subtopology id twice: StreamsTopology.fromHeartbeatRequest's Collectors.toMap throws,
  // UNKNOWN_SERVER_ERROR without a message - for a new group and for the existing one.
  for (const char* group : {"dup", "app"}) {
    SCOPED_TRACE(group);
    Request dup = Join("d1", group);
    dup.topology->subtopologies.push_back(dup.topology->subtopologies[0]);
    expect_refused(dup, int16_t{-1}, std::nullopt);
  }
  // A changelog topic with a partition count (GroupCoordinatorService.throwIfInvalidTopology).
  Request counted = Join("d1", "bad");
  counted.topology->subtopologies[0].state_changelog_topics[0].partitions = 3;
  expect_refused(counted, kStreamsInvalidTopologyCode,
                 "Changelog topic bad-store-changelog must have an undefined partition count, but "
                 "it is set to 3.");
  // A repartition source topic no subtopology writes to (RepartitionTopics.setup).
  Request orphan = Join("d1", "bad");
  auto& rp = orphan.topology->subtopologies[0].repartition_source_topics.emplace_back();
  rp.name = "bad-orphan-repartition";
  expect_refused(orphan, kStreamsInvalidTopologyCode,
                 "Failed to compute number of partitions for all repartition topics, because a "
                 "repartition source topic is never used as a sink topic.");
  EXPECT_FALSE(logs_->FindTopicIdentity("bad-orphan-repartition").has_value());
  // A regular expression for the sources (not supported in 4.4.0).
  Request regex = Join("d1", "bad");
  regex.topology->subtopologies[0].source_topic_regex = {"in.*"};
  expect_refused(regex, ke::kInvalidRequest,
                 "Regular expressions for source topics are not supported yet.");
  // A topology epoch change without a new topology: another epoch of the same subtopologies
  // on a join, and any topology past the join.
  Request bumped = Join("s2", "app");
  bumped.topology->epoch = 2;
  expect_refused(bumped, ke::kInvalidRequest, "Topology updates are not supported yet.");
  Request later = Beat("s1", 1, "app");
  later.topology = Join("s1", "app").topology;
  expect_refused(later, ke::kInvalidRequest, "Topology can only be provided when (re-)joining.");
}

TEST_F(GroupTypeBadInputTest, MissingTopicsAreStatuses) {
  // Source topics that do not exist: MISSING_SOURCE_TOPICS (1); no internal topic is asked
  // for, and the member gets no tasks.
  Request missing = Join("m1", "lost");
  missing.topology->subtopologies[0].source_topics = {"absent-b", "absent-a"};
  StreamsGroupHeartbeatResult r = Heartbeat(missing);
  ASSERT_EQ(r.response.error_code, ke::kNone);
  ASSERT_TRUE(r.response.status.has_value());
  ASSERT_EQ(r.response.status->size(), 1u);
  EXPECT_EQ((*r.response.status)[0].status_code, 1);
  EXPECT_EQ((*r.response.status)[0].status_detail, "Source topics absent-a, absent-b are missing.");
  EXPECT_TRUE(r.internal_topics_to_create.empty());
  EXPECT_TRUE(!r.response.active_tasks || r.response.active_tasks->empty());
  EXPECT_FALSE(logs_->FindTopicIdentity("lost-store-changelog").has_value());
  // An internal topic that exists with another partition count: INCORRECTLY_PARTITIONED_TOPICS
  // (2), nothing created, no tasks.
  ASSERT_TRUE(logs_->CreateTopic("odd-store-changelog", 3, {}).ok());
  r = Heartbeat(Join("m1", "odd"));
  ASSERT_EQ(r.response.error_code, ke::kNone);
  ASSERT_TRUE(r.response.status.has_value());
  ASSERT_EQ(r.response.status->size(), 1u);
  EXPECT_EQ((*r.response.status)[0].status_code, 2);
  EXPECT_EQ((*r.response.status)[0].status_detail,
            "Existing topic odd-store-changelog has different number of partitions: expected 2, "
            "found 3");
  EXPECT_TRUE(r.internal_topics_to_create.empty());
  EXPECT_TRUE(!r.response.active_tasks || r.response.active_tasks->empty());
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
