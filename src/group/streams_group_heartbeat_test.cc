// Tests for StreamsGroupHeartbeat as a function of the group, the request and the topics:
// joining with a topology, MISSING_INTERNAL_TOPICS until the changelog exists, the records in
// Kafka's order, tasks split and moved between members (revoke before assign), leaving (-1,
// -2), fencing, the request checks with Kafka's messages, topology updates and stale members.
#include "group/streams_group_heartbeat.h"

#include <gtest/gtest.h>

#include "base/coding.h"
#include "group/streams_group_describe.h"
#include "group/streams_group_records.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"

namespace seglog {
namespace {

using Request = protocol::StreamsGroupHeartbeatRequestData;

class StreamsGroupHeartbeatTest : public ::testing::Test {
 protected:
  StreamsGroupHeartbeatTest() : group_("app") {
    ctx_.config = &config_;
    ctx_.client_id = "client";
    ctx_.client_host = "/127.0.0.1";
    ctx_.topics = &topics_;
    topics_["in"] = 2;
    // Every target at once (streams_group_assignment_delay_test covers the waits).
    config_.streams.initial_rebalance_delay_ms = 0;
    config_.streams.assignment_interval_ms = 0;
  }

  static Request::Topology Topology(int32_t epoch = 1) {
    Request::Topology t;
    t.epoch = epoch;
    auto& s = t.subtopologies.emplace_back();
    s.subtopology_id = "0";
    s.source_topics = {"in"};
    auto& cl = s.state_changelog_topics.emplace_back();
    cl.name = "app-store-changelog";
    return t;
  }

  static Request Join(const std::string& member, const std::string& process) {
    Request r;
    r.group_id = "app";
    r.member_id = member;
    r.member_epoch = 0;
    r.rebalance_timeout_ms = 30000;
    r.topology = Topology();
    r.process_id = process;
    r.active_tasks.emplace();
    r.standby_tasks.emplace();
    r.warmup_tasks.emplace();
    return r;
  }

  static Request Beat(const std::string& member, int32_t epoch, StreamsTaskSet active = {}) {
    Request r;
    r.group_id = "app";
    r.member_id = member;
    r.member_epoch = epoch;
    r.active_tasks.emplace();
    for (const auto& [sub, parts] : active) {
      auto& t = r.active_tasks->emplace_back();
      t.subtopology_id = sub;
      t.partitions.assign(parts.begin(), parts.end());
    }
    r.standby_tasks.emplace();
    r.warmup_tasks.emplace();
    return r;
  }

  StreamsGroupHeartbeatResult Run(const Request& r, int16_t version = 1) {
    auto result = StreamsGroupHeartbeat(&group_, exists_, version, r, ctx_);
    protocol::ProtocolWriter w;
    EXPECT_TRUE(result.response.Encode(&w, version).ok()) << "v" << version;
    if (result.response.error_code == 0) exists_ = true;
    return result;
  }

  static std::vector<int16_t> Types(const std::vector<OffsetsRecord>& records) {
    std::vector<int16_t> out;
    for (const auto& r : records) out.push_back(LoadBEInt16(r.key.data()));
    return out;
  }

  static StreamsTaskSet Active(const protocol::StreamsGroupHeartbeatResponseData& r) {
    StreamsTaskSet out;
    if (!r.active_tasks) return out;
    for (const auto& t : *r.active_tasks)
      out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
    return out;
  }

  GroupCoordinatorConfig config_;
  TopicPartitionCounts topics_;
  StreamsGroupHeartbeatContext ctx_;
  StreamsGroup group_;
  bool exists_ = false;
};

TEST_F(StreamsGroupHeartbeatTest, JoinWaitsForInternalTopicsThenGetsTasks) {
  auto r = Run(Join("m1", "p1"));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(r.member_id, "m1");
  EXPECT_EQ(r.response.member_epoch, 2);  // Kafka's groups start at 1
  EXPECT_EQ(r.response.heartbeat_interval_ms, 5000);
  EXPECT_EQ(r.response.acceptable_recovery_lag, 10000);
  EXPECT_EQ(r.response.task_offset_interval_ms, 60000);
  // Member metadata, topology, group epoch, target, target metadata, current assignment.
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{19, 23, 17, 21, 20, 22}));
  ASSERT_TRUE(r.response.status.has_value());
  ASSERT_EQ(r.response.status->size(), 1u);
  EXPECT_EQ((*r.response.status)[0].status_code, 3);  // MISSING_INTERNAL_TOPICS
  EXPECT_EQ((*r.response.status)[0].status_detail,
            "Internal topics are missing: app-store-changelog");
  ASSERT_EQ(r.internal_topics_to_create.size(), 1u);
  EXPECT_EQ(r.internal_topics_to_create.at("app-store-changelog").partitions, 2);
  EXPECT_TRUE(Active(r.response).empty());
  EXPECT_EQ(group_.state(), StreamsGroupState::kNotReady);

  // Still missing: nothing changes, the status stays.
  r = Run(Beat("m1", 2));
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_TRUE(r.records.empty());
  EXPECT_EQ(r.response.status->size(), 1u);
  EXPECT_FALSE(r.response.active_tasks.has_value());

  // The coordinator created it: the topology is ready, the epoch moves, the tasks come.
  topics_["app-store-changelog"] = 2;
  r = Run(Beat("m1", 2));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(r.response.member_epoch, 3);
  EXPECT_TRUE(r.response.status->empty());
  EXPECT_TRUE(r.internal_topics_to_create.empty());
  EXPECT_EQ(Active(r.response), (StreamsTaskSet{{"0", {0, 1}}}));
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{17, 21, 20, 22}));
  EXPECT_EQ(group_.state(), StreamsGroupState::kStable);
  EXPECT_EQ(group_.validated_topology_epoch(), 1);
}

TEST_F(StreamsGroupHeartbeatTest, SecondMemberTakesATaskAfterTheFirstRevokesIt) {
  topics_["app-store-changelog"] = 2;
  ASSERT_EQ(Run(Join("m1", "p1")).response.member_epoch, 2);
  auto r = Run(Join("m2", "p2"));
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_EQ(r.response.member_epoch, 3);
  EXPECT_TRUE(Active(r.response).empty());  // its task is still m1's
  EXPECT_EQ(group_.FindMember("m2")->state, StreamsMemberState::kUnreleasedTasks);

  // m1 is asked to give one up: it stays at epoch 2 with one task.
  r = Run(Beat("m1", 2, {{"0", {0, 1}}}));
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_EQ(r.response.member_epoch, 2);
  EXPECT_EQ(Active(r.response), (StreamsTaskSet{{"0", {0}}}));
  // It let go: epoch 3.
  r = Run(Beat("m1", 2, {{"0", {0}}}));
  EXPECT_EQ(r.response.member_epoch, 3);
  // m2 gets it.
  r = Run(Beat("m2", 3));
  EXPECT_EQ(Active(r.response), (StreamsTaskSet{{"0", {1}}}));
  EXPECT_EQ(group_.state(), StreamsGroupState::kStable);
}

TEST_F(StreamsGroupHeartbeatTest, LeavingAndStaticLeave) {
  topics_["app-store-changelog"] = 2;
  Run(Join("m1", "p1"));
  auto r = Run(Beat("m1", -1));
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_EQ(r.response.member_epoch, -1);
  EXPECT_TRUE(r.member_removed);
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{22, 21, 19, 17}));
  EXPECT_EQ(group_.state(), StreamsGroupState::kEmpty);
  EXPECT_EQ(group_.group_epoch(), 3);

  Request j = Join("m2", "p2");
  j.instance_id = "i";
  Run(j);
  Request leave = Beat("m2", -2);
  leave.instance_id = "i";
  r = Run(leave);
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_EQ(r.response.member_epoch, -2);
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{22}));
  EXPECT_EQ(group_.FindMember("m2")->member_epoch, -2);

  r = Run(Beat("nobody", -1));
  EXPECT_EQ(r.response.error_code, kafka_error::kUnknownMemberId);
  EXPECT_EQ(r.response.error_message, "Member nobody is not a member of group app.");
}

TEST_F(StreamsGroupHeartbeatTest, RequestChecks) {
  struct Case {
    Request req;
    int16_t code;
    std::string message;
  };
  std::vector<Case> cases;
  Request r = Join("m", "p");
  r.topology.reset();
  cases.push_back(
      {r, kafka_error::kInvalidRequest, "Topology must be non-null when (re-)joining."});
  r = Join("m", "p");
  r.topology->subtopologies[0].source_topic_regex = {"in.*"};
  cases.push_back({r, kafka_error::kInvalidRequest,
                   "Regular expressions for source topics are not supported yet."});
  r = Join("m", "p");
  r.topology->subtopologies[0].state_changelog_topics[0].partitions = 4;
  cases.push_back({r, kStreamsInvalidTopologyCode,
                   "Changelog topic app-store-changelog must have an undefined partition count, "
                   "but it is set to 4."});
  r = Join("m", "p");
  r.rebalance_timeout_ms = -1;
  cases.push_back(
      {r, kafka_error::kInvalidRequest, "RebalanceTimeoutMs must be provided in first request."});
  r = Join("m", "p");
  r.active_tasks->emplace_back().subtopology_id = "0";
  cases.push_back(
      {r, kafka_error::kInvalidRequest, "ActiveTasks must be empty when (re-)joining."});
  r = Join("m", "p");
  r.warmup_tasks.reset();
  cases.push_back(
      {r, kafka_error::kInvalidRequest, "If one task-type is non-null, all must be non-null."});
  r = Join("", "p");
  r.member_id = " ";
  cases.push_back({r, kafka_error::kInvalidRequest, "MemberId can't be empty."});
  r = Beat("m", 3);
  r.topology = Topology();
  cases.push_back(
      {r, kafka_error::kInvalidRequest, "Topology can only be provided when (re-)joining."});
  r = Beat("m", -3);
  cases.push_back({r, kafka_error::kInvalidRequest,
                   "MemberEpoch is -3, but must be greater than or equal to -2."});
  r = Beat("m", -2);
  cases.push_back({r, kafka_error::kInvalidRequest, "InstanceId can't be null."});
  r = Beat("m", 1);
  cases.push_back({r, kafka_error::kGroupIdNotFound, "Streams group app not found."});
  for (const auto& c : cases) {
    auto result = Run(c.req);
    EXPECT_EQ(result.response.error_code, c.code) << c.message;
    EXPECT_EQ(result.response.error_message, c.message);
    EXPECT_TRUE(result.records.empty());
  }
  EXPECT_EQ(NotAStreamsGroupMessage("g"), "Group g is not a streams group.");
}

TEST_F(StreamsGroupHeartbeatTest, FencingAndUnknownMembers) {
  topics_["app-store-changelog"] = 2;
  Run(Join("m1", "p1"));
  auto r = Run(Beat("m1", 5));
  EXPECT_EQ(r.response.error_code, kafka_error::kFencedMemberEpoch);
  EXPECT_EQ(r.response.error_message,
            "The streams group member has a greater member epoch (5) than the one known by the "
            "group coordinator (2). The member must abandon all its partitions and rejoin.");
  r = Run(Beat("m9", 1));
  EXPECT_EQ(r.response.error_code, kafka_error::kUnknownMemberId);
  // Owned tasks are checked against the validated topology.
  r = Run(Beat("m1", 2, {{"7", {0}}}));
  EXPECT_EQ(r.response.error_code, kafka_error::kInvalidRequest);
  EXPECT_EQ(r.response.error_message, "Subtopology 7 does not exist in the topology.");
  r = Run(Beat("m1", 2, {{"0", {2}}}));
  EXPECT_EQ(r.response.error_message,
            "Task 2 for subtopology 0 is invalid. Number of tasks for this subtopology: 2");
}

TEST_F(StreamsGroupHeartbeatTest, TopologyUpdatesAndStaleMembers) {
  topics_["app-store-changelog"] = 2;
  Request first = Join("m1", "p1");
  first.topology = Topology(2);
  Run(first);
  Request other = Join("m2", "p2");
  other.topology = Topology(2);
  other.topology->subtopologies[0].source_topics.push_back("in2");
  auto r = Run(other);
  EXPECT_EQ(r.response.error_code, kafka_error::kInvalidRequest);
  EXPECT_EQ(r.response.error_message, "Topology updates are not supported yet.");

  Request stale = Join("m3", "p3");
  stale.topology = Topology(1);
  r = Run(stale);
  ASSERT_EQ(r.response.error_code, 0);
  ASSERT_EQ(r.response.status->size(), 1u);
  EXPECT_EQ((*r.response.status)[0].status_code, 0);  // STALE_TOPOLOGY
  EXPECT_EQ((*r.response.status)[0].status_detail,
            "The member's topology epoch 1 is behind the group's topology epoch 2.");
}

TEST_F(StreamsGroupHeartbeatTest, MissingSourceTopicsAndShutdown) {
  topics_.clear();
  auto r = Run(Join("m1", "p1"));
  ASSERT_EQ(r.response.error_code, 0);
  ASSERT_EQ(r.response.status->size(), 1u);
  EXPECT_EQ((*r.response.status)[0].status_code, 1);  // MISSING_SOURCE_TOPICS
  EXPECT_EQ((*r.response.status)[0].status_detail, "Source topics in are missing.");
  Request bye = Beat("m1", 2);
  bye.shutdown_application = true;
  r = Run(bye);
  ASSERT_EQ(r.response.status->size(), 2u);
  EXPECT_EQ((*r.response.status)[1].status_code, 4);  // SHUTDOWN_APPLICATION
  EXPECT_EQ((*r.response.status)[1].status_detail,
            "Streams group member m1 encountered a fatal error and requested a shutdown for the "
            "entire application.");
}

TEST_F(StreamsGroupHeartbeatTest, MaxSizeAndTombstones) {
  config_.streams.max_size = 1;
  topics_["app-store-changelog"] = 2;
  Run(Join("m1", "p1"));
  auto r = Run(Join("m2", "p2"));
  EXPECT_EQ(r.response.error_code, kafka_error::kGroupMaxSizeReached);
  EXPECT_EQ(r.response.error_message,
            "The streams group has reached its maximum capacity of 1 members.");
  EXPECT_EQ(Types(StreamsGroupTombstones(group_)), (std::vector<int16_t>{22, 21, 20, 19, 17, 23}));
  for (const auto& t : StreamsGroupTombstones(group_)) EXPECT_FALSE(t.value.has_value());
}

TEST_F(StreamsGroupHeartbeatTest, StaticMemberRejoinsWithANewMemberId) {
  topics_["app-store-changelog"] = 2;
  Request j = Join("a", "p1");
  j.instance_id = "i";
  auto r = Run(j);
  ASSERT_EQ(r.response.error_code, 0);
  EXPECT_EQ(Active(r.response), (StreamsTaskSet{{"0", {0, 1}}}));

  // Not left yet: the instance id is taken.
  Request again = Join("b", "p1");
  again.instance_id = "i";
  r = Run(again);
  EXPECT_EQ(r.response.error_code, kafka_error::kUnreleasedInstanceId);
  EXPECT_EQ(r.response.error_message,
            "Static member b with instance id i cannot join the group because the instance id "
            "is owned by a member.");

  // Another member id heartbeating for the instance id is fenced.
  Request wrong = Beat("z", 1);
  wrong.instance_id = "i";
  r = Run(wrong);
  EXPECT_EQ(r.response.error_code, kafka_error::kFencedInstanceId);
  EXPECT_EQ(r.response.error_message, "Static member z with instance id i was fenced by member a.");
  Request unknown = Beat("z", 1);
  unknown.instance_id = "nope";
  r = Run(unknown);
  EXPECT_EQ(r.response.error_code, kafka_error::kUnknownMemberId);
  EXPECT_EQ(r.response.error_message, "Instance id nope is unknown.");

  // Temporary leave, then the restarted instance takes over its tasks without a rebalance.
  Request leave = Beat("a", -2);
  leave.instance_id = "i";
  ASSERT_EQ(Run(leave).response.error_code, 0);
  const int32_t epoch = group_.group_epoch();
  r = Run(again);
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(Active(r.response), (StreamsTaskSet{{"0", {0, 1}}}));
  EXPECT_EQ(group_.group_epoch(), epoch);
  EXPECT_EQ(group_.FindMember("a"), nullptr);
  EXPECT_EQ(group_.StaticMemberId("i"), "b");
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{22, 21, 19, 19, 21, 22, 22}));
}

TEST_F(StreamsGroupHeartbeatTest, TaskOffsetsAreKeptAndDescribed) {
  topics_["app-store-changelog"] = 2;
  Run(Join("m1", "p1"));
  Request b = Beat("m1", 2, {{"0", {0, 1}}});
  b.task_offsets.emplace();
  auto& t = b.task_offsets->emplace_back();
  t.subtopology_id = "0";
  t.partition = 1;
  t.offset = 42;
  b.task_end_offsets.emplace();
  ASSERT_EQ(Run(b).response.error_code, 0);
  EXPECT_EQ(group_.TaskOffsetsOf("m1").task_offsets.at("0").at(1), 42);
  const StreamsDescribedGroup d = DescribeStreamsGroup(group_, "sticky");
  ASSERT_EQ(d.members.size(), 1u);
  ASSERT_EQ(d.members[0].task_offsets.size(), 1u);
  EXPECT_EQ(d.members[0].task_offsets[0].offset, 42);
  EXPECT_TRUE(d.members[0].task_end_offsets.empty());
  Run(Beat("m1", 2, {{"0", {0, 1}}}));  // no offsets this time: the last ones stay
  EXPECT_EQ(group_.TaskOffsetsOf("m1").task_offsets.at("0").at(1), 42);
  Run(Beat("m1", -1));
  EXPECT_TRUE(group_.TaskOffsetsOf("m1").task_offsets.empty());
}

TEST_F(StreamsGroupHeartbeatTest, RecoveryLagByVersion) {
  topics_["app-store-changelog"] = 2;
  auto r = Run(Join("m1", "p1"), 0);
  EXPECT_EQ(r.response.acceptable_recovery_lag_legacy, 10000);
  EXPECT_EQ(r.response.acceptable_recovery_lag, -1);
  r = Run(Beat("m1", 2), 1);
  EXPECT_EQ(r.response.acceptable_recovery_lag_legacy, 0);
  EXPECT_EQ(r.response.acceptable_recovery_lag, 10000);
}

TEST_F(StreamsGroupHeartbeatTest, AssignmentConfigs) {
  EXPECT_EQ(StreamsAssignmentConfigs(config_),
            (std::map<std::string, std::string>{{"num.standby.replicas", "0"}}));
  config_.streams.num_standby_replicas = 1;
  config_.streams.rack_aware_assignment_tags = {"zone", "rack"};
  EXPECT_EQ(StreamsAssignmentConfigs(config_),
            (std::map<std::string, std::string>{{"num.standby.replicas", "1"},
                                                {"rack.aware.assignment.tags", "zone,rack"}}));
}

}  // namespace
}  // namespace seglog
