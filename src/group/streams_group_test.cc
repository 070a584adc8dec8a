// Tests for the streams group model: its states with Kafka's names, the task-owner indexes,
// and the reconciliation of members (revoke before assign, per task; unreleased active tasks
// and standbys on the process of a current owner; the unknown state fenced).
#include "group/streams_group.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

StreamsGroupMember Member(std::string id, std::string process, int32_t epoch = 0) {
  StreamsGroupMember m;
  m.member_id = std::move(id);
  m.process_id = std::move(process);
  m.member_epoch = epoch;
  return m;
}

StreamsTasks Active(StreamsTaskSet active) {
  StreamsTasks t;
  t.active = std::move(active);
  return t;
}

ConfiguredStreamsTopology Ready() {
  ConfiguredStreamsTopology c;
  c.subtopologies.emplace();
  return c;
}

TEST(StreamsGroupTest, StateNames) {
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kEmpty), "Empty");
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kNotReady), "NotReady");
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kAssigning), "Assigning");
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kReconciling), "Reconciling");
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kStable), "Stable");
  EXPECT_EQ(StreamsGroupStateName(StreamsGroupState::kDead), "Dead");
  EXPECT_EQ(StreamsMemberStateName(StreamsMemberState::kUnrevokedTasks), "UNREVOKED_TASKS");
  EXPECT_EQ(StreamsMemberStateName(StreamsMemberStateFromValue(2)), "UNRELEASED_TASKS");
  EXPECT_EQ(StreamsMemberStateFromValue(9), StreamsMemberState::kUnknown);
}

TEST(StreamsGroupTest, GroupStates) {
  StreamsGroup g("app");
  EXPECT_EQ(g.state(), StreamsGroupState::kEmpty);
  g.UpdateMember(Member("m", "p"));
  EXPECT_EQ(g.state(), StreamsGroupState::kNotReady);  // no topology
  StreamsTopology topology;
  topology.epoch = 2;
  g.SetTopology(topology);
  EXPECT_EQ(g.state(), StreamsGroupState::kNotReady);  // not validated (-1)
  g.set_validated_topology_epoch(1);
  EXPECT_EQ(g.state(), StreamsGroupState::kNotReady);  // an older epoch was
  g.set_validated_topology_epoch(2);
  g.SetConfiguredTopology(Ready());
  EXPECT_EQ(g.group_epoch(), 1);       // Kafka's StreamsGroup starts at 1 ...
  EXPECT_EQ(g.assignment_epoch(), 1);  // ... and TargetAssignmentMetadata.INITIAL
  g.set_group_epoch(2);
  EXPECT_EQ(g.state(), StreamsGroupState::kAssigning);
  g.set_assignment_epoch(2);
  EXPECT_EQ(g.state(), StreamsGroupState::kReconciling);  // the member is at epoch 0
  g.UpdateMember(Member("m", "p", 2));
  EXPECT_EQ(g.state(), StreamsGroupState::kStable);
  g.set_shutdown_request_member_id("m");
  g.RemoveMember("m");
  EXPECT_EQ(g.state(), StreamsGroupState::kEmpty);
  EXPECT_FALSE(g.shutdown_request_member_id().has_value());
  g.MarkDead();
  EXPECT_EQ(g.state(), StreamsGroupState::kDead);
}

TEST(StreamsGroupTest, JoiningMemberGetsFreeTasksAtTheTargetEpoch) {
  StreamsGroup g("app");
  const StreamsGroupMember m = Member("m", "p");
  g.UpdateMember(m);
  StreamsTasks target = Active({{"0", {0, 1}}});
  target.standby["1"] = {0};
  auto r = ReconcileStreamsMember(m, 3, target, StreamsTasks{}, g.Owners());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, StreamsMemberState::kStable);
  EXPECT_EQ(r->member_epoch, 3);
  EXPECT_EQ(r->previous_member_epoch, 0);
  EXPECT_EQ(r->assigned_tasks.active, (StreamsEpochTasks{{"0", {{0, 3}, {1, 3}}}}));
  EXPECT_EQ(r->assigned_tasks.standby, (StreamsTaskSet{{"1", {0}}}));
  // At its target already: unchanged.
  auto again = ReconcileStreamsMember(*r, 3, target, std::nullopt, g.Owners());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *r);
}

TEST(StreamsGroupTest, RevokeBeforeAssign) {
  StreamsGroup g("app");
  StreamsGroupMember a = Member("a", "p1", 1);
  a.assigned_tasks.active["0"] = {{0, 1}, {1, 1}};
  StreamsGroupMember b = Member("b", "p2", 1);
  g.UpdateMember(a);
  g.UpdateMember(b);

  // Epoch 2 moves task 0_1 from a to b.
  auto a2 = ReconcileStreamsMember(a, 2, Active({{"0", {0}}}), std::nullopt, g.Owners());
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(a2->state, StreamsMemberState::kUnrevokedTasks);
  EXPECT_EQ(a2->member_epoch, 1);
  EXPECT_EQ(a2->assigned_tasks.active, (StreamsEpochTasks{{"0", {{0, 1}}}}));
  EXPECT_EQ(a2->tasks_pending_revocation.active, (StreamsEpochTasks{{"0", {{1, 1}}}}));
  g.UpdateMember(*a2);

  // b cannot have it yet: it is pending revocation on a.
  auto b2 = ReconcileStreamsMember(b, 2, Active({{"0", {1}}}), std::nullopt, g.Owners());
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(b2->state, StreamsMemberState::kUnreleasedTasks);
  EXPECT_EQ(b2->member_epoch, 2);
  EXPECT_TRUE(b2->assigned_tasks.empty());
  g.UpdateMember(*b2);

  // a still reports 0_1: it waits.
  auto a3 =
      ReconcileStreamsMember(*a2, 2, Active({{"0", {0}}}), Active({{"0", {0, 1}}}), g.Owners());
  ASSERT_TRUE(a3.ok());
  EXPECT_EQ(*a3, *a2);
  // a no longer owns it: epoch 2, stable.
  a3 = ReconcileStreamsMember(*a2, 2, Active({{"0", {0}}}), Active({{"0", {0}}}), g.Owners());
  ASSERT_TRUE(a3.ok());
  EXPECT_EQ(a3->state, StreamsMemberState::kStable);
  EXPECT_EQ(a3->member_epoch, 2);
  EXPECT_EQ(a3->previous_member_epoch, 1);
  EXPECT_TRUE(a3->tasks_pending_revocation.empty());
  g.UpdateMember(*a3);

  // Now b gets it.
  auto b3 = ReconcileStreamsMember(*b2, 2, Active({{"0", {1}}}), std::nullopt, g.Owners());
  ASSERT_TRUE(b3.ok());
  EXPECT_EQ(b3->state, StreamsMemberState::kStable);
  EXPECT_EQ(b3->assigned_tasks.active, (StreamsEpochTasks{{"0", {{1, 2}}}}));
  g.UpdateMember(*b3);
}

TEST(StreamsGroupTest, StandbyWaitsOnlyForACopyOnItsOwnProcess) {
  StreamsGroup g("app");
  StreamsGroupMember owner = Member("a", "p1", 1);
  owner.assigned_tasks.active["0"] = {{0, 1}};
  g.UpdateMember(owner);
  StreamsTasks standby;
  standby.standby["0"] = {0};
  // Another process: the standby is free to assign.
  auto other = ReconcileStreamsMember(Member("b", "p2"), 2, standby, std::nullopt, g.Owners());
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->state, StreamsMemberState::kStable);
  EXPECT_EQ(other->assigned_tasks.standby, (StreamsTaskSet{{"0", {0}}}));
  // The owner's process: unreleased until the active copy leaves it.
  auto same = ReconcileStreamsMember(Member("c", "p1"), 2, standby, std::nullopt, g.Owners());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->state, StreamsMemberState::kUnreleasedTasks);
  EXPECT_TRUE(same->assigned_tasks.empty());
}

TEST(StreamsGroupTest, UnknownStateIsFencedUnlessTheMemberOwnsNothing) {
  StreamsGroup g("app");
  StreamsGroupMember m = Member("m", "p", 4);
  m.state = StreamsMemberState::kUnknown;
  auto r = ReconcileStreamsMember(m, 5, Active({{"0", {0}}}), std::nullopt, g.Owners());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "FENCED_MEMBER_EPOCH: The streams group member is in a unknown state. The member "
            "must abandon all its tasks and rejoin.");
  r = ReconcileStreamsMember(m, 5, Active({{"0", {0}}}), StreamsTasks{}, g.Owners());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, StreamsMemberState::kStable);
  EXPECT_EQ(r->member_epoch, 5);
}

TEST(StreamsGroupTest, OwnerIndexesFollowMembers) {
  StreamsGroup g("app");
  StreamsGroupMember a = Member("a", "p1", 1);
  a.instance_id = "i";
  a.assigned_tasks.active["0"] = {{0, 1}};
  a.assigned_tasks.warmup["0"] = {1};
  g.UpdateMember(a);
  EXPECT_EQ(g.StaticMemberId("i"), "a");
  StreamsTaskOwners o = g.Owners();
  EXPECT_EQ(o.active_process("0", 0), "p1");
  EXPECT_EQ(o.warmup_processes("0", 1), (std::set<std::string>{"p1"}));
  EXPECT_TRUE(o.standby_processes("0", 1).empty());
  g.RemoveMember("a");
  EXPECT_FALSE(g.StaticMemberId("i").has_value());
  EXPECT_FALSE(o.active_process("0", 0).has_value());
  EXPECT_TRUE(o.warmup_processes("0", 1).empty());
  g.SetTarget("a", Active({{"0", {0}}}));
  EXPECT_EQ(g.TargetOf("a").active.at("0"), (std::set<int32_t>{0}));
  g.RemoveTarget("a");
  EXPECT_TRUE(g.TargetOf("a").empty());
}

TEST(StreamsGroupDeathTest, TwoActiveOwnersAbort) {
  StreamsGroup g("app");
  StreamsGroupMember a = Member("a", "p1", 1);
  a.assigned_tasks.active["0"] = {{0, 1}};
  StreamsGroupMember b = Member("b", "p2", 1);
  b.assigned_tasks.active["0"] = {{0, 1}};
  g.UpdateMember(a);
  EXPECT_DEATH(g.UpdateMember(b), "already owned by process p1");
}

}  // namespace
}  // namespace seglog
