// Tests for KIP-848's reconciliation (ReconcileMember, Kafka's CurrentAssignmentBuilder) and
// ConsumerGroup's bookkeeping: the partition epochs, static members, subscription counts, the
// group states, the preferred assignor, the subscription type; and a short scenario of two
// members reconciled to a reshuffled target without a partition ever owned twice.
#include "group/consumer_group.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace seglog {
namespace {

using MS = ConsumerMemberState;
using GS = ConsumerGroupState;

Uuid Topic(uint8_t n) {
  Uuid id;
  id.bytes[15] = n;
  return id;
}

const Uuid kFoo = Topic(1);
const Uuid kBar = Topic(2);

// The partition epoch a test reconciles against: nothing is owned by anyone else.
int32_t AllFree(const Uuid&, int32_t) { return -1; }

ConsumerGroupMember Member(const std::string& id, int32_t epoch, MS state = MS::kStable) {
  ConsumerGroupMember m;
  m.member_id = id;
  m.member_epoch = epoch;
  m.previous_member_epoch = epoch > 0 ? epoch - 1 : 0;
  m.state = state;
  m.client_id = "client-" + id;
  m.client_host = "/127.0.0.1";
  m.subscribed_topic_names = {"bar", "foo"};
  m.rebalance_timeout_ms = 30000;
  return m;
}

ReconcileInput Input(int32_t target_epoch, TopicPartitions target,
                     std::optional<TopicPartitions> owned, TopicIdSet subscribed = {kFoo, kBar}) {
  ReconcileInput in;
  in.target_epoch = target_epoch;
  in.target = std::move(target);
  in.subscribed_topic_ids = std::move(subscribed);
  in.owned = std::move(owned);
  return in;
}

TEST(ReconcileMemberTest, NewMemberGetsItsTargetAtTheTargetEpoch) {
  ConsumerGroupMember m = Member("m", 0);
  Result<ConsumerGroupMember> next =
      ReconcileMember(m, Input(10, {{kFoo, {0, 1}}, {kBar, {3}}}, TopicPartitions{}), AllFree);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->state, MS::kStable);
  EXPECT_EQ(next->member_epoch, 10);
  EXPECT_EQ(next->previous_member_epoch, 0);
  EXPECT_EQ(next->assigned_partitions,
            (EpochPartitions{{kFoo, {{0, 10}, {1, 10}}}, {kBar, {{3, 10}}}}));
  EXPECT_TRUE(next->partitions_pending_revocation.empty());
  EXPECT_EQ(next->client_id, "client-m");  // the rest of the member stays

  // At its epoch with nothing changed, the member stays exactly as it is.
  Result<ConsumerGroupMember> again =
      ReconcileMember(*next, Input(10, {{kFoo, {0, 1}}, {kBar, {3}}}, std::nullopt), AllFree);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *next);
}

TEST(ReconcileMemberTest, EmptyTargetMakesAStableMemberWithNothing) {
  Result<ConsumerGroupMember> next =
      ReconcileMember(Member("m", 0), Input(4, {}, TopicPartitions{}), AllFree);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MS::kStable);
  EXPECT_EQ(next->member_epoch, 4);
  EXPECT_TRUE(next->assigned_partitions.empty());
}

TEST(ReconcileMemberTest, MovedPartitionIsPendingRevocationUntilTheHeartbeatDropsIt) {
  ConsumerGroupMember m = Member("m", 10);
  m.assigned_partitions = {{kFoo, {{0, 9}, {1, 10}}}};
  const TopicPartitions target = {{kFoo, {0}}};

  Result<ConsumerGroupMember> step =
      ReconcileMember(m, Input(11, target, TopicPartitions{{kFoo, {0, 1}}}), AllFree);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnrevokedPartitions);
  EXPECT_EQ(step->member_epoch, 10);           // it stays at its epoch
  EXPECT_EQ(step->previous_member_epoch, 10);  // Kafka's updateMemberEpoch(same epoch)
  EXPECT_EQ(step->assigned_partitions, (EpochPartitions{{kFoo, {{0, 9}}}}));
  EXPECT_EQ(step->partitions_pending_revocation, (EpochPartitions{{kFoo, {{1, 10}}}}));

  // Still listed: no progress.
  Result<ConsumerGroupMember> waiting =
      ReconcileMember(*step, Input(11, target, TopicPartitions{{kFoo, {0, 1}}}), AllFree);
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(*waiting, *step);

  // Not listed any more: the member moves to the target epoch; the partition it kept keeps
  // the epoch it was assigned at.
  Result<ConsumerGroupMember> done =
      ReconcileMember(*step, Input(11, target, TopicPartitions{{kFoo, {0}}}), AllFree);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, MS::kStable);
  EXPECT_EQ(done->member_epoch, 11);
  EXPECT_EQ(done->previous_member_epoch, 10);
  EXPECT_EQ(done->assigned_partitions, (EpochPartitions{{kFoo, {{0, 9}}}}));
  EXPECT_TRUE(done->partitions_pending_revocation.empty());
}

TEST(ReconcileMemberTest, OwnedNulloptCountsAsStillOwning) {
  ConsumerGroupMember m = Member("m", 10);
  m.assigned_partitions = {{kFoo, {{0, 10}, {1, 10}}}};
  const TopicPartitions target = {{kFoo, {0}}};

  // A heartbeat that does not say what it owns cannot have revoked anything.
  Result<ConsumerGroupMember> step = ReconcileMember(m, Input(11, target, std::nullopt), AllFree);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnrevokedPartitions);
  EXPECT_EQ(step->member_epoch, 10);

  Result<ConsumerGroupMember> waiting =
      ReconcileMember(*step, Input(11, target, std::nullopt), AllFree);
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(*waiting, *step);

  // Whereas an owned set without the moved partition skips the wait altogether.
  Result<ConsumerGroupMember> direct =
      ReconcileMember(m, Input(11, target, TopicPartitions{{kFoo, {0}}}), AllFree);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->state, MS::kStable);
  EXPECT_EQ(direct->member_epoch, 11);
}

TEST(ReconcileMemberTest, NewPartitionsWaitForRevocationsFirst) {
  // Revoking foo-1 and gaining bar-0: bar-0 is only given once foo-1 is gone.
  ConsumerGroupMember m = Member("m", 3);
  m.assigned_partitions = {{kFoo, {{0, 3}, {1, 3}}}};
  const TopicPartitions target = {{kFoo, {0}}, {kBar, {0}}};
  Result<ConsumerGroupMember> step =
      ReconcileMember(m, Input(4, target, TopicPartitions{{kFoo, {0, 1}}}), AllFree);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnrevokedPartitions);
  EXPECT_EQ(step->assigned_partitions, (EpochPartitions{{kFoo, {{0, 3}}}}));

  Result<ConsumerGroupMember> done =
      ReconcileMember(*step, Input(4, target, TopicPartitions{{kFoo, {0}}}), AllFree);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, MS::kStable);
  EXPECT_EQ(done->member_epoch, 4);
  EXPECT_EQ(done->assigned_partitions, (EpochPartitions{{kFoo, {{0, 3}}}, {kBar, {{0, 4}}}}));
}

TEST(ReconcileMemberTest, ReceiverWaitsInUnreleasedPartitionsUntilThePartitionIsFree) {
  ConsumerGroupMember m = Member("b", 10);
  m.assigned_partitions = {{kFoo, {{2, 10}}}};
  const TopicPartitions target = {{kFoo, {1, 2, 3}}};
  int32_t foo1_epoch = 10;  // foo-1 is still another member's, at its epoch 10
  auto epochs = [&foo1_epoch](const Uuid& topic, int32_t partition) {
    return topic == kFoo && partition == 1 ? foo1_epoch : -1;
  };

  Result<ConsumerGroupMember> step =
      ReconcileMember(m, Input(11, target, TopicPartitions{{kFoo, {2}}}), epochs);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnreleasedPartitions);
  EXPECT_EQ(step->member_epoch, 11);  // at the target epoch already
  EXPECT_EQ(step->previous_member_epoch, 10);
  // foo-3 is free and given now; foo-1 is held back.
  EXPECT_EQ(step->assigned_partitions, (EpochPartitions{{kFoo, {{2, 10}, {3, 11}}}}));

  Result<ConsumerGroupMember> waiting =
      ReconcileMember(*step, Input(11, target, TopicPartitions{{kFoo, {2, 3}}}), epochs);
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(waiting->state, MS::kUnreleasedPartitions);
  EXPECT_EQ(waiting->assigned_partitions, step->assigned_partitions);
  EXPECT_EQ(waiting->previous_member_epoch, 11);  // Kafka rebuilds it: previous = current

  foo1_epoch = -1;  // its owner let it go
  Result<ConsumerGroupMember> done =
      ReconcileMember(*waiting, Input(11, target, TopicPartitions{{kFoo, {2, 3}}}), epochs);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, MS::kStable);
  EXPECT_EQ(done->member_epoch, 11);
  EXPECT_EQ(done->assigned_partitions, (EpochPartitions{{kFoo, {{1, 11}, {2, 10}, {3, 11}}}}));
}

TEST(ReconcileMemberTest, OnlyUnreleasedPartitionsStillMoveTheMemberToTheTargetEpoch) {
  ConsumerGroupMember m = Member("b", 0);
  auto held = [](const Uuid&, int32_t) { return 7; };
  Result<ConsumerGroupMember> step =
      ReconcileMember(m, Input(8, {{kFoo, {0}}}, TopicPartitions{}), held);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnreleasedPartitions);
  EXPECT_EQ(step->member_epoch, 8);
  EXPECT_TRUE(step->assigned_partitions.empty());
}

TEST(ReconcileMemberTest, ItsOwnPartitionPendingRevocationIsNotUnreleased) {
  // The target gave foo-1 back while the member was revoking it; the partition epoch index
  // still shows the member itself, which must not hold foo-1 back.
  ConsumerGroupMember m = Member("m", 10, MS::kUnrevokedPartitions);
  m.assigned_partitions = {{kFoo, {{0, 10}}}};
  m.partitions_pending_revocation = {{kFoo, {{1, 10}}}};
  auto epochs = [](const Uuid& topic, int32_t partition) {
    return topic == kFoo && (partition == 0 || partition == 1) ? 10 : -1;
  };
  Result<ConsumerGroupMember> next =
      ReconcileMember(m, Input(12, {{kFoo, {0, 1}}}, TopicPartitions{{kFoo, {0}}}), epochs);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MS::kStable);
  EXPECT_EQ(next->member_epoch, 12);
  EXPECT_EQ(next->assigned_partitions, (EpochPartitions{{kFoo, {{0, 10}, {1, 12}}}}));
}

TEST(ReconcileMemberTest, SubscriptionChangeRevokesUnsubscribedTopicsWhenEnforced) {
  ConsumerGroupMember m = Member("m", 10);
  m.assigned_partitions = {{kFoo, {{0, 10}}}, {kBar, {{0, 9}, {1, 10}}}};
  // The member dropped bar; the assignor has not run yet (same epoch, old target).
  const TopicPartitions target = {{kFoo, {0}}, {kBar, {0, 1}}};
  const TopicPartitions owned = {{kFoo, {0}}, {kBar, {0, 1}}};

  ReconcileInput lax = Input(10, target, owned, {kFoo});
  Result<ConsumerGroupMember> same = ReconcileMember(m, lax, AllFree);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, m);  // without enforcement nothing happens at the same epoch

  ReconcileInput strict = lax;
  strict.enforce_subscription_consistency = true;
  Result<ConsumerGroupMember> step = ReconcileMember(m, strict, AllFree);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->state, MS::kUnrevokedPartitions);
  EXPECT_EQ(step->member_epoch, 10);
  EXPECT_EQ(step->assigned_partitions, (EpochPartitions{{kFoo, {{0, 10}}}}));
  EXPECT_EQ(step->partitions_pending_revocation, (EpochPartitions{{kBar, {{0, 9}, {1, 10}}}}));

  // Once bar is gone from the heartbeat, the member goes back to STABLE at its epoch.
  Result<ConsumerGroupMember> done =
      ReconcileMember(*step, Input(10, target, TopicPartitions{{kFoo, {0}}}, {kFoo}), AllFree);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, MS::kStable);
  EXPECT_EQ(done->member_epoch, 10);
  EXPECT_EQ(done->assigned_partitions, (EpochPartitions{{kFoo, {{0, 10}}}}));
  EXPECT_TRUE(done->partitions_pending_revocation.empty());
}

TEST(ReconcileMemberTest, EnforcedSubscriptionWithPartitionsAlreadyGone) {
  // The heartbeat no longer lists bar: it is dropped, the member stays STABLE.
  ConsumerGroupMember m = Member("m", 10);
  m.assigned_partitions = {{kFoo, {{0, 10}}}, {kBar, {{0, 10}}}};
  ReconcileInput in = Input(10, {{kFoo, {0}}, {kBar, {0}}}, TopicPartitions{{kFoo, {0}}}, {kFoo});
  in.enforce_subscription_consistency = true;
  Result<ConsumerGroupMember> next = ReconcileMember(m, in, AllFree);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MS::kStable);
  EXPECT_EQ(next->member_epoch, 10);
  EXPECT_EQ(next->previous_member_epoch, 10);
  EXPECT_EQ(next->assigned_partitions, (EpochPartitions{{kFoo, {{0, 10}}}}));
  EXPECT_TRUE(next->partitions_pending_revocation.empty());
}

TEST(ReconcileMemberTest, EnforcedSubscriptionAddsToPartitionsAlreadyPendingRevocation) {
  ConsumerGroupMember m = Member("m", 10, MS::kUnrevokedPartitions);
  m.assigned_partitions = {{kBar, {{0, 10}}}};
  m.partitions_pending_revocation = {{kFoo, {{1, 10}}}};
  ReconcileInput in =
      Input(11, {{kFoo, {0}}, {kBar, {0}}}, TopicPartitions{{kFoo, {1}}, {kBar, {0}}}, {kFoo});
  in.enforce_subscription_consistency = true;
  Result<ConsumerGroupMember> next = ReconcileMember(m, in, AllFree);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MS::kUnrevokedPartitions);
  EXPECT_EQ(next->member_epoch, 10);
  EXPECT_TRUE(next->assigned_partitions.empty());
  EXPECT_EQ(next->partitions_pending_revocation,
            (EpochPartitions{{kFoo, {{1, 10}}}, {kBar, {{0, 10}}}}));
}

TEST(ReconcileMemberTest, UnsubscribedTopicsOfTheTargetAreNotAssigned) {
  // A new epoch whose target still names bar, which the member dropped: bar is revoked, not
  // kept.
  ConsumerGroupMember m = Member("m", 10);
  m.assigned_partitions = {{kFoo, {{0, 10}}}, {kBar, {{0, 10}}}};
  Result<ConsumerGroupMember> next = ReconcileMember(
      m, Input(11, {{kFoo, {0, 1}}, {kBar, {0, 1}}}, TopicPartitions{{kFoo, {0}}}, {kFoo}),
      AllFree);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MS::kStable);
  EXPECT_EQ(next->member_epoch, 11);
  EXPECT_EQ(next->assigned_partitions, (EpochPartitions{{kFoo, {{0, 10}, {1, 11}}}}));
}

TEST(ReconcileMemberTest, UnknownStateWithPartitionsIsFenced) {
  ConsumerGroupMember m = Member("m", 5, MS::kUnknown);
  m.assigned_partitions = {{kFoo, {{0, 5}}}};

  Result<ConsumerGroupMember> owns =
      ReconcileMember(m, Input(6, {{kFoo, {0}}}, TopicPartitions{{kFoo, {0}}}), AllFree);
  ASSERT_FALSE(owns.ok());
  EXPECT_TRUE(owns.status().IsInvalidArgument());
  EXPECT_TRUE(IsFencedMemberEpoch(owns.status())) << owns.status().ToString();
  EXPECT_TRUE(owns.status().message().starts_with("FENCED_MEMBER_EPOCH"));

  Result<ConsumerGroupMember> unsaid =
      ReconcileMember(m, Input(6, {{kFoo, {0}}}, std::nullopt), AllFree);
  ASSERT_FALSE(unsaid.ok());
  EXPECT_TRUE(IsFencedMemberEpoch(unsaid.status()));

  // Having let everything go, it is reconciled from scratch towards the target.
  Result<ConsumerGroupMember> clean =
      ReconcileMember(m, Input(6, {{kFoo, {0, 1}}}, TopicPartitions{}), AllFree);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  EXPECT_EQ(clean->state, MS::kStable);
  EXPECT_EQ(clean->member_epoch, 6);
  EXPECT_EQ(clean->assigned_partitions, (EpochPartitions{{kFoo, {{0, 5}, {1, 6}}}}));

  EXPECT_FALSE(IsFencedMemberEpoch(Status::InvalidArgument("something else")));
  EXPECT_FALSE(IsFencedMemberEpoch(Status::NotFound("FENCED_MEMBER_EPOCH: but not ours")));
  EXPECT_FALSE(IsFencedMemberEpoch(Status::OK()));
}

TEST(ConsumerGroupTest, NamesValuesAndPartitionsOf) {
  EXPECT_EQ(ConsumerMemberStateName(MS::kStable), "STABLE");
  EXPECT_EQ(ConsumerMemberStateName(MS::kUnrevokedPartitions), "UNREVOKED_PARTITIONS");
  EXPECT_EQ(ConsumerMemberStateName(MS::kUnreleasedPartitions), "UNRELEASED_PARTITIONS");
  EXPECT_EQ(ConsumerMemberStateName(MS::kUnknown), "UNKNOWN");
  EXPECT_EQ(ConsumerMemberStateFromValue(0), MS::kStable);
  EXPECT_EQ(ConsumerMemberStateFromValue(1), MS::kUnrevokedPartitions);
  EXPECT_EQ(ConsumerMemberStateFromValue(2), MS::kUnreleasedPartitions);
  EXPECT_EQ(ConsumerMemberStateFromValue(3), MS::kUnknown);
  EXPECT_EQ(ConsumerMemberStateFromValue(127), MS::kUnknown);
  EXPECT_EQ(ConsumerMemberStateFromValue(-1), MS::kUnknown);
  EXPECT_EQ(ConsumerGroupStateName(GS::kEmpty), "Empty");
  EXPECT_EQ(ConsumerGroupStateName(GS::kAssigning), "Assigning");
  EXPECT_EQ(ConsumerGroupStateName(GS::kReconciling), "Reconciling");
  EXPECT_EQ(ConsumerGroupStateName(GS::kStable), "Stable");
  EXPECT_EQ(ConsumerGroupStateName(GS::kDead), "Dead");
  EXPECT_EQ(PartitionsOf({{kFoo, {{0, 1}, {2, 3}}}, {kBar, {}}}),
            (TopicPartitions{{kFoo, {0, 2}}}));
}

TEST(ConsumerGroupTest, PartitionEpochsFollowAssignedAndPendingPartitions) {
  ConsumerGroup g("g");
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 0), -1);

  ConsumerGroupMember a = Member("a", 3, MS::kUnrevokedPartitions);
  a.assigned_partitions = {{kFoo, {{0, 2}}}};  // the owner's epoch counts, not the partition's
  a.partitions_pending_revocation = {{kFoo, {{1, 3}}}, {kBar, {{0, 1}}}};
  g.UpdateMember(a);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 0), 3);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 1), 3);
  EXPECT_EQ(g.CurrentPartitionEpoch(kBar, 0), 3);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 2), -1);

  // a revokes foo-1 and bar-0 and moves to epoch 4: they are free, foo-0 is at 4.
  ConsumerGroupMember a2 = a;
  a2.state = MS::kStable;
  a2.member_epoch = 4;
  a2.previous_member_epoch = 3;
  a2.partitions_pending_revocation.clear();
  g.UpdateMember(a2);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 0), 4);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 1), -1);
  EXPECT_EQ(g.CurrentPartitionEpoch(kBar, 0), -1);

  ConsumerGroupMember b = Member("b", 4);
  b.assigned_partitions = {{kFoo, {{1, 4}}}, {kBar, {{0, 4}}}};
  g.UpdateMember(b);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 1), 4);
  EXPECT_EQ(g.members().size(), 2u);
  ASSERT_NE(g.FindMember("b"), nullptr);
  EXPECT_EQ(*g.FindMember("b"), b);
  EXPECT_EQ(g.FindMember("c"), nullptr);

  g.RemoveMember("a");
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 0), -1);
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 1), 4);
  g.RemoveMember("a");  // unknown: nothing happens
  g.RemoveMember("b");
  EXPECT_EQ(g.CurrentPartitionEpoch(kFoo, 1), -1);
  EXPECT_EQ(g.CurrentPartitionEpoch(kBar, 0), -1);
  EXPECT_TRUE(g.members().empty());
}

TEST(ConsumerGroupDeathTest, TwoOwnersOfOnePartitionAbort) {
  ConsumerGroup g("g");
  ConsumerGroupMember a = Member("a", 3);
  a.assigned_partitions = {{kFoo, {{0, 3}}}};
  g.UpdateMember(a);
  ConsumerGroupMember b = Member("b", 3);
  b.partitions_pending_revocation = {{kFoo, {{0, 3}}}};
  EXPECT_DEATH(g.UpdateMember(b), "still owned at epoch 3");
}

TEST(ConsumerGroupTest, StaticMembersAndSubscribedNameCounts) {
  ConsumerGroup g("g");
  ConsumerGroupMember a = Member("a", 1);
  a.instance_id = "i1";
  a.subscribed_topic_names = {"foo"};
  g.UpdateMember(a);
  ConsumerGroupMember b = Member("b", 1);
  b.subscribed_topic_names = {"bar", "foo"};
  g.UpdateMember(b);
  EXPECT_EQ(g.StaticMemberId("i1"), "a");
  EXPECT_EQ(g.StaticMemberId("i2"), std::nullopt);
  EXPECT_EQ(g.subscribed_topic_names(), (std::map<std::string, int>{{"bar", 1}, {"foo", 2}}));

  // a changes its subscription: the counts follow.
  a.subscribed_topic_names = {"baz"};
  g.UpdateMember(a);
  EXPECT_EQ(g.subscribed_topic_names(),
            (std::map<std::string, int>{{"bar", 1}, {"baz", 1}, {"foo", 1}}));

  // A new member id takes over instance i1 (the old one is removed after it is added):
  // the instance keeps leading to the new one.
  ConsumerGroupMember a2 = Member("a2", 0);
  a2.instance_id = "i1";
  a2.subscribed_topic_names = {"baz"};
  g.UpdateMember(a2);
  EXPECT_EQ(g.StaticMemberId("i1"), "a2");
  g.RemoveMember("a");
  EXPECT_EQ(g.StaticMemberId("i1"), "a2");
  EXPECT_EQ(g.subscribed_topic_names(),
            (std::map<std::string, int>{{"bar", 1}, {"baz", 1}, {"foo", 1}}));

  g.RemoveMember("a2");
  EXPECT_EQ(g.StaticMemberId("i1"), std::nullopt);
  g.RemoveMember("b");
  EXPECT_TRUE(g.subscribed_topic_names().empty());
}

TEST(ConsumerGroupTest, StatesFollowKafkasRules) {
  ConsumerGroup g("g");
  EXPECT_EQ(g.state(), GS::kEmpty);
  g.set_group_epoch(2);  // epochs alone do not leave Empty
  EXPECT_EQ(g.state(), GS::kEmpty);

  g.UpdateMember(Member("a", 0));
  EXPECT_EQ(g.state(), GS::kAssigning);  // group epoch 2 > assignment epoch 0
  g.set_assignment_epoch(2);
  EXPECT_EQ(g.state(), GS::kReconciling);  // a is at epoch 0
  g.UpdateMember(Member("a", 2));
  EXPECT_EQ(g.state(), GS::kStable);
  g.UpdateMember(Member("b", 2, MS::kUnreleasedPartitions));
  EXPECT_EQ(g.state(), GS::kReconciling);  // at the epoch but not STABLE
  g.UpdateMember(Member("b", 2));
  EXPECT_EQ(g.state(), GS::kStable);
  g.set_group_epoch(3);
  EXPECT_EQ(g.state(), GS::kAssigning);
  g.set_assignment_epoch(3);
  EXPECT_EQ(g.state(), GS::kReconciling);
  g.RemoveMember("a");
  g.RemoveMember("b");
  EXPECT_EQ(g.state(), GS::kEmpty);
  EXPECT_FALSE(g.dead());
  g.MarkDead();
  EXPECT_TRUE(g.dead());
  EXPECT_EQ(g.state(), GS::kDead);
}

TEST(ConsumerGroupTest, PreferredServerAssignorIsTheMostNamedSmallerOnTies) {
  ConsumerGroup g("g");
  EXPECT_EQ(g.PreferredServerAssignor(), std::nullopt);
  g.UpdateMember(Member("none", 1));  // a member that names none does not vote
  EXPECT_EQ(g.PreferredServerAssignor(), std::nullopt);

  ConsumerGroupMember u = Member("u", 1);
  u.server_assignor = "uniform";
  g.UpdateMember(u);
  EXPECT_EQ(g.PreferredServerAssignor(), "uniform");
  ConsumerGroupMember r = Member("r", 1);
  r.server_assignor = "range";
  g.UpdateMember(r);
  EXPECT_EQ(g.PreferredServerAssignor(), "range");  // 1-1: the smaller name
  ConsumerGroupMember u2 = Member("u2", 1);
  u2.server_assignor = "uniform";
  g.UpdateMember(u2);
  EXPECT_EQ(g.PreferredServerAssignor(), "uniform");  // 2-1
  u2.server_assignor.reset();
  g.UpdateMember(u2);
  EXPECT_EQ(g.PreferredServerAssignor(), "range");
  g.RemoveMember("r");
  EXPECT_EQ(g.PreferredServerAssignor(), "uniform");
}

TEST(ConsumerGroupTest, HomogeneousWhenEveryMemberSubscribesToTheSameTopics) {
  ConsumerGroup g("g");
  EXPECT_TRUE(g.Homogeneous());
  ConsumerGroupMember a = Member("a", 1);
  a.subscribed_topic_names = {"bar", "foo"};
  g.UpdateMember(a);
  ConsumerGroupMember b = Member("b", 1);
  b.subscribed_topic_names = {"bar", "foo"};
  g.UpdateMember(b);
  EXPECT_TRUE(g.Homogeneous());
  b.subscribed_topic_names = {"foo"};
  g.UpdateMember(b);
  EXPECT_FALSE(g.Homogeneous());
  b.subscribed_topic_names = {};
  g.UpdateMember(b);
  EXPECT_FALSE(g.Homogeneous());
  g.RemoveMember("b");
  EXPECT_TRUE(g.Homogeneous());

  // Regexes: all the same one and no names is homogeneous; a mix is not.
  ConsumerGroup r("r");
  ConsumerGroupMember x = Member("x", 1);
  x.subscribed_topic_names = {};
  x.subscribed_topic_regex = "fo.*";
  r.UpdateMember(x);
  ConsumerGroupMember y = x;
  y.member_id = "y";
  r.UpdateMember(y);
  EXPECT_TRUE(r.Homogeneous());
  y.subscribed_topic_regex = "ba.*";
  r.UpdateMember(y);
  EXPECT_FALSE(r.Homogeneous());
  y.subscribed_topic_regex.reset();
  y.subscribed_topic_names = {"foo"};
  r.UpdateMember(y);
  EXPECT_FALSE(r.Homogeneous());
}

TEST(ConsumerGroupTest, TargetsAreKeptApartFromMembers) {
  ConsumerGroup g("g");
  EXPECT_TRUE(g.TargetOf("a").empty());
  g.SetTarget("a", {{kFoo, {0, 1}}});
  g.SetTarget("b", {});
  EXPECT_EQ(g.TargetOf("a"), (TopicPartitions{{kFoo, {0, 1}}}));
  EXPECT_EQ(g.target_assignment().size(), 2u);
  g.UpdateMember(Member("a", 1));
  g.RemoveMember("a");
  EXPECT_EQ(g.TargetOf("a"), (TopicPartitions{{kFoo, {0, 1}}}));  // a record of its own
  g.RemoveTarget("a");
  EXPECT_TRUE(g.TargetOf("a").empty());
  EXPECT_EQ(g.target_assignment().size(), 1u);
  g.set_metadata_hash(42);
  EXPECT_EQ(g.metadata_hash(), 42);
  EXPECT_EQ(g.group_id(), "g");
}

// A client of the scenario: what it owns, as it last learnt from its heartbeat's response.
struct Client {
  std::string member_id;
  TopicPartitions owned;
};

// One heartbeat of `c`: the coordinator's reconciliation step, the group updated, and the
// client adopting the assignment of the response (revoking what it lost, taking what it got).
void Heartbeat(ConsumerGroup* g, Client* c) {
  const ConsumerGroupMember* m = g->FindMember(c->member_id);
  ASSERT_NE(m, nullptr);
  ReconcileInput in = Input(g->assignment_epoch(), g->TargetOf(c->member_id), c->owned, {kFoo});
  Result<ConsumerGroupMember> next =
      ReconcileMember(*m, in, [g](const Uuid& topic, int32_t partition) {
        return g->CurrentPartitionEpoch(topic, partition);
      });
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ConsumerGroupMember member = std::move(next).value();
  c->owned = PartitionsOf(member.assigned_partitions);
  g->UpdateMember(std::move(member));
}

struct PartitionLess {
  bool operator()(const std::pair<Uuid, int32_t>& a, const std::pair<Uuid, int32_t>& b) const {
    if (a.first.bytes != b.first.bytes) return a.first.bytes < b.first.bytes;
    return a.second < b.second;
  }
};

// No partition is owned by two clients, or had by two members; what a client owns, its member
// has (assigned or pending revocation) at the coordinator.
void CheckNoPartitionOwnedTwice(const ConsumerGroup& g, const std::vector<Client>& clients) {
  for (size_t i = 0; i < clients.size(); ++i) {
    for (size_t j = i + 1; j < clients.size(); ++j) {
      EXPECT_TRUE(Intersect(clients[i].owned, clients[j].owned).empty())
          << clients[i].member_id << " and " << clients[j].member_id << " both own a partition";
    }
    const ConsumerGroupMember* m = g.FindMember(clients[i].member_id);
    ASSERT_NE(m, nullptr);
    TopicPartitions has = PartitionsOf(m->assigned_partitions);
    for (const auto& [topic, partitions] : PartitionsOf(m->partitions_pending_revocation)) {
      has[topic].insert(partitions.begin(), partitions.end());
    }
    EXPECT_TRUE(Subtract(clients[i].owned, has).empty())
        << clients[i].member_id << " owns a partition its member does not have";
  }
  std::map<std::pair<Uuid, int32_t>, int, PartitionLess> had;  // -> how many members
  for (const auto& [id, m] : g.members()) {
    for (const EpochPartitions* set : {&m.assigned_partitions, &m.partitions_pending_revocation}) {
      for (const auto& [topic, partitions] : *set) {
        for (const auto& entry : partitions) {
          const int n = ++had[std::make_pair(topic, entry.first)];
          EXPECT_EQ(n, 1) << "a partition had by two members";
          EXPECT_EQ(g.CurrentPartitionEpoch(topic, entry.first), m.member_epoch);
        }
      }
    }
  }
}

bool AllStableAt(const ConsumerGroup& g, int32_t epoch) {
  for (const auto& entry : g.members()) {
    if (entry.second.state != MS::kStable || entry.second.member_epoch != epoch) return false;
  }
  return true;
}

// Heartbeats the clients in turn, `order` giving which goes first, until every member is STABLE
// at the assignment epoch; checks the invariant after every step and adds the member states
// it passed through to `seen`. Returns the steps taken.
int ReconcileAll(ConsumerGroup* g, std::vector<Client>* clients, const std::vector<int>& order,
                 std::set<MS>* seen) {
  int steps = 0;
  while (!AllStableAt(*g, g->assignment_epoch()) && steps < 40) {
    for (int i : order) {
      Heartbeat(g, &(*clients)[i]);
      ++steps;
      seen->insert(g->FindMember((*clients)[i].member_id)->state);
      CheckNoPartitionOwnedTwice(*g, *clients);
    }
  }
  return steps;
}

TEST(ConsumerGroupScenarioTest, TwoMembersReconcileAReshuffleWithoutDoubleOwnership) {
  for (const std::vector<int>& order : {std::vector<int>{0, 1}, std::vector<int>{1, 0}}) {
    SCOPED_TRACE(order[0] == 0 ? "m1 first" : "m2 first");
    ConsumerGroup g("g");
    std::vector<Client> clients = {{"m1", {}}, {"m2", {}}};

    // m1 joins alone and gets all four partitions at epoch 1.
    g.UpdateMember(Member("m1", 0));
    g.set_group_epoch(1);
    g.SetTarget("m1", {{kFoo, {0, 1, 2, 3}}});
    g.set_assignment_epoch(1);
    Heartbeat(&g, &clients[0]);
    EXPECT_EQ(g.state(), GS::kStable);
    EXPECT_EQ(clients[0].owned, (TopicPartitions{{kFoo, {0, 1, 2, 3}}}));

    // m2 joins: epoch 2 splits the partitions.
    g.UpdateMember(Member("m2", 0));
    g.set_group_epoch(2);
    EXPECT_EQ(g.state(), GS::kAssigning);
    g.SetTarget("m1", {{kFoo, {0, 1}}});
    g.SetTarget("m2", {{kFoo, {2, 3}}});
    g.set_assignment_epoch(2);
    EXPECT_EQ(g.state(), GS::kReconciling);
    std::set<MS> seen;
    int steps = ReconcileAll(&g, &clients, order, &seen);
    EXPECT_TRUE(AllStableAt(g, 2)) << "after " << steps << " steps";
    EXPECT_EQ(g.state(), GS::kStable);
    EXPECT_EQ(clients[0].owned, (TopicPartitions{{kFoo, {0, 1}}}));
    EXPECT_EQ(clients[1].owned, (TopicPartitions{{kFoo, {2, 3}}}));

    // Epoch 3 swaps them: each must revoke before the other may take.
    g.set_group_epoch(3);
    g.SetTarget("m1", {{kFoo, {2, 3}}});
    g.SetTarget("m2", {{kFoo, {0, 1}}});
    g.set_assignment_epoch(3);
    seen.clear();
    steps = ReconcileAll(&g, &clients, order, &seen);
    EXPECT_TRUE(AllStableAt(g, 3)) << "after " << steps << " steps";
    EXPECT_EQ(g.state(), GS::kStable);
    EXPECT_EQ(clients[0].owned, (TopicPartitions{{kFoo, {2, 3}}}));
    EXPECT_EQ(clients[1].owned, (TopicPartitions{{kFoo, {0, 1}}}));
    EXPECT_EQ(g.FindMember("m1")->assigned_partitions, (EpochPartitions{{kFoo, {{2, 3}, {3, 3}}}}));
    // The swap went through both waits.
    EXPECT_EQ(seen,
              (std::set<MS>{MS::kStable, MS::kUnrevokedPartitions, MS::kUnreleasedPartitions}));
    EXPECT_EQ(PartitionCount(clients[0].owned) + PartitionCount(clients[1].owned), 4u);
  }
}

}  // namespace
}  // namespace seglog
