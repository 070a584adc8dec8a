// Tests for ClassicGroup's bookkeeping: Kafka's state transitions, the protocol vote, leaders,
// static members.
#include "group/classic_group.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

using S = ClassicGroupState;

ClassicGroupMember Member(const std::string& id, std::vector<std::string> protocols,
                          std::optional<std::string> instance = std::nullopt) {
  ClassicGroupMember m;
  m.member_id = id;
  m.group_instance_id = instance;
  m.protocol_type = "consumer";
  m.rebalance_timeout_ms = static_cast<int32_t>(1000 * id.size());
  for (const std::string& p : protocols) m.protocols.push_back({p, {}});
  return m;
}

TEST(ClassicGroupTest, TransitionsFollowKafkasRules) {
  ClassicGroup g("g", 5);
  EXPECT_EQ(g.state(), S::kEmpty);
  EXPECT_EQ(g.current_state_timestamp(), 5);
  EXPECT_FALSE(g.TransitionTo(S::kStable, 6));
  EXPECT_FALSE(g.TransitionTo(S::kCompletingRebalance, 6));
  EXPECT_TRUE(g.TransitionTo(S::kPreparingRebalance, 7));
  EXPECT_EQ(g.previous_state(), S::kEmpty);
  EXPECT_FALSE(g.TransitionTo(S::kStable, 8));
  EXPECT_TRUE(g.TransitionTo(S::kCompletingRebalance, 8));
  EXPECT_FALSE(g.TransitionTo(S::kEmpty, 9));
  EXPECT_TRUE(g.TransitionTo(S::kStable, 9));
  EXPECT_TRUE(g.TransitionTo(S::kPreparingRebalance, 10));
  EXPECT_TRUE(g.TransitionTo(S::kEmpty, 11));
  EXPECT_EQ(g.current_state_timestamp(), 11);
  EXPECT_TRUE(g.TransitionTo(S::kDead, 12));
  EXPECT_TRUE(g.TransitionTo(S::kDead, 13));
  EXPECT_EQ(ClassicGroupStateName(S::kCompletingRebalance), "CompletingRebalance");
}

TEST(ClassicGroupTest, ProtocolsLeadersAndVotes) {
  ClassicGroup g("g", 0);
  EXPECT_TRUE(g.SupportsProtocols("consumer", {"range"}));
  EXPECT_FALSE(g.SupportsProtocols("", {"range"}));
  EXPECT_FALSE(g.SupportsProtocols("consumer", {}));
  g.Add(Member("b", {"sticky", "range"}));
  EXPECT_EQ(g.leader_id(), "b");  // the first member leads
  EXPECT_EQ(g.protocol_type(), "consumer");
  g.Add(Member("aa", {"range", "sticky"}));
  g.Add(Member("ccc", {"range", "roundrobin"}));
  EXPECT_TRUE(g.SupportsProtocols("consumer", {"range"}));
  EXPECT_FALSE(g.SupportsProtocols("consumer", {"sticky"}));  // ccc lacks it
  EXPECT_FALSE(g.SupportsProtocols("connect", {"range"}));
  // Candidates every member supports: range only, whatever the preferences.
  EXPECT_EQ(g.SelectProtocol(), "range");
  EXPECT_EQ(g.RebalanceTimeoutMs(), 3000);
  g.Remove("ccc");
  // Now both sticky and range are common; b prefers sticky, aa range: a tie, broken by the
  // first member's preference (aa, in member id order).
  EXPECT_EQ(g.SelectProtocol(), "range");
  g.Add(Member("d", {"sticky"}));
  EXPECT_EQ(g.SelectProtocol(), "sticky");
  // The leader leaving hands over to the first remaining member.
  g.Remove("b");
  EXPECT_EQ(g.leader_id(), "aa");
  EXPECT_FALSE(g.AllMembersJoined());
  g.FindMember("aa")->awaiting_join = [](protocol::JoinGroupResponseData) {};
  g.FindMember("d")->awaiting_join = [](protocol::JoinGroupResponseData) {};
  EXPECT_TRUE(g.AllMembersJoined());
  g.AddPendingMember("pending");
  EXPECT_FALSE(g.AllMembersJoined());  // a member told to rejoin with its id is still due
  g.RemovePendingMember("pending");
  g.FindMember("aa")->awaiting_join = nullptr;
  EXPECT_TRUE(g.MaybeElectNewJoinedLeader());
  EXPECT_EQ(g.leader_id(), "d");  // the leader did not rejoin: the first who did leads
  g.InitNextGeneration(50);
  EXPECT_EQ(g.generation(), 1);
  EXPECT_EQ(g.state(), S::kEmpty);  // Empty cannot go to CompletingRebalance directly
}

TEST(ClassicGroupTest, StaticMembers) {
  ClassicGroup g("g", 0);
  g.Add(Member("old", {"range"}, "i1"));
  g.FindMember("old")->assignment = {1, 2, 3};
  g.FindMember("old")->awaiting_sync = [](protocol::SyncGroupResponseData) {};
  EXPECT_EQ(g.StaticMemberId("i1"), "old");
  auto replaced = g.ReplaceStaticMember("i1", "old", "new");
  EXPECT_TRUE(static_cast<bool>(replaced.awaiting_sync));
  EXPECT_EQ(g.StaticMemberId("i1"), "new");
  EXPECT_EQ(g.leader_id(), "new");
  EXPECT_FALSE(g.HasMember("old"));
  EXPECT_EQ(g.FindMember("new")->assignment, (std::vector<uint8_t>{1, 2, 3}));
  g.Remove("new");
  EXPECT_EQ(g.StaticMemberId("i1"), std::nullopt);
  EXPECT_FALSE(g.leader_id().has_value());
}

}  // namespace
}  // namespace seglog
