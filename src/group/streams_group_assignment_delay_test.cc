// Tests for the two waits of a streams group's target assignment (Kafka 4.4.0's
// GroupMetadataManager.maybeUpdateStreamsTargetAssignment): group.streams.initial.rebalance
// .delay.ms, which holds back the first target of a group that was empty (ASSIGNMENT_DELAYED,
// members at the initial assignment epoch 1 without tasks) until the coordinator's timer computes
// it, and group.streams.assignment.interval.ms, which spaces the later targets. Both as functions
// (StreamsGroupHeartbeat, StreamsDelayedTargetAssignment) and in the GroupCoordinator on the
// manual clock, across a restart.
#include <gtest/gtest.h>

#include "base/coding.h"
#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "group/streams_group_heartbeat.h"
#include "group/streams_join_request_test_util.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"

namespace seglog {
namespace {

using Request = protocol::StreamsGroupHeartbeatRequestData;
using Response = protocol::StreamsGroupHeartbeatResponseData;

Request Join(const std::string& member, const std::string& group = "app") {
  return StreamsJoinRequest(member, group);
}

Request Beat(const std::string& member, int32_t epoch) {
  Request r;
  r.group_id = "app";
  r.member_id = member;
  r.member_epoch = epoch;
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

std::vector<int16_t> Types(const std::vector<OffsetsRecord>& records) {
  std::vector<int16_t> out;
  for (const auto& r : records) out.push_back(LoadBEInt16(r.key.data()));
  return out;
}

// The ASSIGNMENT_DELAYED details of a response, in order.
std::vector<std::string> Delayed(const Response& r) {
  std::vector<std::string> out;
  if (!r.status) return out;
  for (const auto& s : *r.status) {
    if (s.status_code == static_cast<int8_t>(StreamsGroupStatus::kAssignmentDelayed)) {
      out.push_back(s.status_detail);
    }
  }
  return out;
}

size_t ActiveCount(const std::optional<std::vector<Response::TaskIds>>& tasks) {
  size_t n = 0;
  if (tasks) {
    for (const auto& t : *tasks) n += t.partitions.size();
  }
  return n;
}

const char kInitialDelay[] = "Assignment delayed due to the configured initial rebalance delay.";
const char kInterval[] = "Assignment delayed due to the configured assignment interval.";

class StreamsAssignmentDelayTest : public ::testing::Test {
 protected:
  StreamsAssignmentDelayTest() : group_("app") {
    ctx_.config = &config_;
    ctx_.client_id = "client";
    ctx_.client_host = "/127.0.0.1";
    ctx_.topics = &topics_;
    ctx_.now_ms = 10000;
    // The topology is ready at once: its changelog exists.
    topics_["in"] = 2;
    topics_["app-store-changelog"] = 2;
  }

  StreamsGroupHeartbeatResult Run(const Request& r) {
    auto result = StreamsGroupHeartbeat(&group_, exists_, 1, r, ctx_);
    if (result.response.error_code == 0) exists_ = true;
    return result;
  }

  GroupCoordinatorConfig config_;
  TopicPartitionCounts topics_;
  StreamsGroupHeartbeatContext ctx_;
  StreamsGroup group_;
  bool exists_ = false;
};

TEST_F(StreamsAssignmentDelayTest, InitialDelayHoldsTheFirstTargetUntilItEnds) {
  ASSERT_EQ(config_.streams.initial_rebalance_delay_ms, 3000);  // Kafka's default
  auto r = Run(Join("m1"));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  // The group was empty: the caller starts the delay; no target, the member reconciles to the
  // group's initial assignment epoch (1) with no tasks. The records Kafka 4.4.0 writes for
  // such a join: 19, 23, 17 (epoch 2), 22 (member epoch 1).
  EXPECT_EQ(r.start_initial_delay_ms, 3000);
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{19, 23, 17, 22}));
  EXPECT_EQ(r.response.member_epoch, 1);
  EXPECT_EQ(ActiveCount(r.response.active_tasks), 0u);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
  EXPECT_EQ(group_.group_epoch(), 2);
  EXPECT_EQ(group_.assignment_epoch(), 1);

  // A second member while the delay runs: the group is not empty, nothing more to start.
  ctx_.initial_delay_active = true;
  r = Run(Join("m2"));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(r.start_initial_delay_ms, 0);
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{19, 17, 22}));
  EXPECT_EQ(r.response.member_epoch, 1);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
  // m1 heartbeats on at epoch 1: still delayed, nothing changes.
  r = Run(Beat("m1", 1));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(r.response.member_epoch, 1);
  EXPECT_TRUE(r.records.empty());
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});

  // The delay ends: one target for both members at the group's epoch.
  ctx_.initial_delay_active = false;
  ctx_.now_ms += 3000;
  auto delayed = StreamsDelayedTargetAssignment(&group_, ctx_);
  ASSERT_TRUE(delayed.ok()) << delayed.status().ToString();
  EXPECT_EQ(Types(*delayed), (std::vector<int16_t>{21, 21, 20}));
  EXPECT_EQ(group_.assignment_epoch(), 3);
  EXPECT_EQ(group_.assignment_timestamp_ms(), 13000);
  EXPECT_EQ(
      group_.TargetOf("m1").active.at("0").size() + group_.TargetOf("m2").active.at("0").size(),
      2u);
  // Nothing more to compute for this epoch.
  delayed = StreamsDelayedTargetAssignment(&group_, ctx_);
  ASSERT_TRUE(delayed.ok());
  EXPECT_TRUE(delayed->empty());

  // The members' next heartbeats take their tasks, with no status.
  for (const std::string m : {"m1", "m2"}) {
    r = Run(Beat(m, 1));
    ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
    EXPECT_EQ(r.response.member_epoch, 3) << m;
    EXPECT_EQ(ActiveCount(r.response.active_tasks), 1u) << m;
    EXPECT_TRUE(Delayed(r.response).empty()) << m;
  }
}

TEST_F(StreamsAssignmentDelayTest, DelayedAssignmentSkipsAnEmptyGroup) {
  auto r = Run(Join("m1"));
  ASSERT_EQ(r.start_initial_delay_ms, 3000);
  r = Run(Beat("m1", -1));  // leaves before the delay ends
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  auto delayed = StreamsDelayedTargetAssignment(&group_, ctx_);
  ASSERT_TRUE(delayed.ok());
  EXPECT_TRUE(delayed->empty());
  EXPECT_EQ(group_.assignment_epoch(), 1);
  // The group is empty again: the next join starts a new delay.
  r = Run(Join("m2"));
  EXPECT_EQ(r.start_initial_delay_ms, 3000);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
}

TEST_F(StreamsAssignmentDelayTest, NoInitialDelayWhenZero) {
  config_.streams.initial_rebalance_delay_ms = 0;
  auto r = Run(Join("m1"));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(r.start_initial_delay_ms, 0);
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{19, 23, 17, 21, 20, 22}));
  EXPECT_EQ(r.response.member_epoch, 2);
  EXPECT_EQ(ActiveCount(r.response.active_tasks), 2u);
  EXPECT_TRUE(Delayed(r.response).empty());
}

TEST_F(StreamsAssignmentDelayTest, AssignmentIntervalSpacesTheTargets) {
  config_.streams.initial_rebalance_delay_ms = 0;
  ASSERT_EQ(config_.streams.assignment_interval_ms, 1000);  // Kafka's default
  auto r = Run(Join("m1"));
  ASSERT_EQ(r.response.member_epoch, 2);
  ASSERT_EQ(group_.assignment_timestamp_ms(), 10000);
  // 999 ms later a second member bumps the group epoch, but the target waits: the new member
  // reconciles to the old target (epoch 2, no tasks of its own).
  ctx_.now_ms = 10999;
  r = Run(Join("m2"));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_EQ(Types(r.records), (std::vector<int16_t>{19, 17, 22}));
  EXPECT_EQ(group_.group_epoch(), 3);
  EXPECT_EQ(group_.assignment_epoch(), 2);
  EXPECT_EQ(r.response.member_epoch, 2);
  EXPECT_EQ(ActiveCount(r.response.active_tasks), 0u);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInterval});
  // At the interval's end the next heartbeat computes it.
  ctx_.now_ms = 11000;
  r = Run(Beat("m2", 2));
  ASSERT_EQ(r.response.error_code, 0) << r.response.error_message.value_or("");
  EXPECT_TRUE(Delayed(r.response).empty());
  EXPECT_EQ(group_.assignment_epoch(), 3);
  EXPECT_EQ(group_.assignment_timestamp_ms(), 11000);
  EXPECT_EQ(group_.TargetOf("m2").active.at("0").size(), 1u);
}

// In the coordinator: the delay is a timer of the group's shard; a restart loads the target.
class StreamsAssignmentDelayCoordinatorTest : public CoordinatorTestBase {
 protected:
  void SetUp() override {
    Open({{"group.streams.assignment.interval.ms", "0"}});
    ASSERT_TRUE(logs_->CreateTopic("in", 2, {}).ok());
    ASSERT_TRUE(logs_->CreateTopic("app-store-changelog", 2, {}).ok());
  }
  StreamsGroupHeartbeatResult Heartbeat(const Request& r) {
    return coordinator_->StreamsGroupHeartbeat(1, {"client", "/127.0.0.1"}, r);
  }
};

TEST_F(StreamsAssignmentDelayCoordinatorTest, TimerComputesTheTargetAfterTheDelay) {
  auto r = Heartbeat(Join("m1"));
  ASSERT_EQ(r.response.error_code, kafka_error::kNone) << r.response.error_message.value_or("");
  EXPECT_EQ(r.response.member_epoch, 1);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
  scheduler_->Advance(1000);
  r = Heartbeat(Join("m2"));
  EXPECT_EQ(r.response.member_epoch, 1);
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
  // The delay counts from the first join, not the second.
  scheduler_->Advance(1999);
  auto d = coordinator_->DescribeStreamsGroup("app");
  EXPECT_EQ(d.group_epoch, 3);
  EXPECT_EQ(d.assignment_epoch, 1);
  r = Heartbeat(Beat("m1", 1));
  EXPECT_EQ(Delayed(r.response), std::vector<std::string>{kInitialDelay});
  scheduler_->Advance(1);
  d = coordinator_->DescribeStreamsGroup("app");
  EXPECT_EQ(d.assignment_epoch, 3);
  ASSERT_EQ(d.members.size(), 2u);
  for (const auto& m : d.members) {
    EXPECT_EQ(m.member_epoch, 1) << m.member_id;  // they learn at their next heartbeat
    size_t n = 0;
    for (const auto& t : m.target_assignment.active_tasks) n += t.partitions.size();
    EXPECT_EQ(n, 1u) << m.member_id;
  }
  r = Heartbeat(Beat("m1", 1));
  EXPECT_EQ(r.response.member_epoch, 3);
  EXPECT_EQ(ActiveCount(r.response.active_tasks), 1u);
  EXPECT_TRUE(Delayed(r.response).empty());

  // The target is in __consumer_offsets: after a restart the group is not empty and nothing
  // is delayed.
  Close();
  Open({{"group.streams.assignment.interval.ms", "0"}});
  d = coordinator_->DescribeStreamsGroup("app");
  EXPECT_EQ(d.assignment_epoch, 3);
  r = Heartbeat(Beat("m2", 1));
  ASSERT_EQ(r.response.error_code, kafka_error::kNone) << r.response.error_message.value_or("");
  EXPECT_EQ(r.response.member_epoch, 3);
  EXPECT_EQ(ActiveCount(r.response.active_tasks), 1u);
  EXPECT_TRUE(Delayed(r.response).empty());
}

}  // namespace
}  // namespace seglog
