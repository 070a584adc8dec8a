// Tests for KIP-848's server assignors (uniform and range) and TopicPartitions' helpers: exact
// answers worked out by hand from Kafka's algorithms, and properties (every partition to
// exactly one subscriber, balance, stickiness, determinism) over many random small groups.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "group/range_assignor.h"
#include "group/server_assignor.h"
#include "group/uniform_assignor.h"

namespace seglog {
namespace {

// Topic ids that sort by `n`.
Uuid T(uint8_t n) {
  Uuid id;
  id.bytes[0] = 0x80;  // a high first byte: ids order as unsigned bytes, as Kafka's do
  id.bytes[15] = n;
  return id;
}

AssignmentMemberSpec Member(std::string id, TopicIdSet topics, TopicPartitions assigned = {},
                            std::optional<std::string> instance_id = std::nullopt) {
  AssignmentMemberSpec member;
  member.member_id = std::move(id);
  member.instance_id = std::move(instance_id);
  member.subscribed_topic_ids = std::move(topics);
  member.assigned = std::move(assigned);
  return member;
}

// `partitions`: topic id -> partition count.
AssignmentSpec Spec(std::vector<AssignmentMemberSpec> members,
                    const std::map<Uuid, int32_t, UuidLess>& partitions) {
  AssignmentSpec spec;
  spec.members = std::move(members);
  std::sort(spec.members.begin(), spec.members.end(),
            [](const auto& a, const auto& b) { return a.member_id < b.member_id; });
  for (const auto& [id, count] : partitions) {
    AssignmentTopic topic;
    topic.name = fmt::format("topic-{}", id.bytes[15]);
    topic.num_partitions = count;
    spec.topics.emplace(id, std::move(topic));
  }
  return spec;
}

const ServerAssignor& Uniform() { return *FindServerAssignor("uniform"); }
const ServerAssignor& Range() { return *FindServerAssignor("range"); }

GroupAssignment MustAssign(const ServerAssignor& assignor, const AssignmentSpec& spec) {
  Result<GroupAssignment> result = assignor.Assign(spec);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : GroupAssignment{};
}

std::string Describe(const GroupAssignment& assignment) {
  std::string out;
  for (const auto& [member, partitions] : assignment) {
    out += member + ":";
    for (const auto& [topic, ps] : partitions) {
      out += fmt::format(" t{}[{}]", topic.bytes[15], fmt::join(ps, ","));
    }
    out += "\n";
  }
  return out;
}

// What every assignment must be: one entry per member; only subscribed topics' partitions that
// exist; each partition of a topic somebody subscribes to given to exactly one member.
testing::AssertionResult IsComplete(const AssignmentSpec& spec, const GroupAssignment& result) {
  if (result.size() != spec.members.size()) {
    return testing::AssertionFailure()
           << result.size() << " entries for " << spec.members.size() << " members\n"
           << Describe(result);
  }
  std::map<Uuid, std::vector<int>, UuidLess> times_given;
  for (const AssignmentMemberSpec& member : spec.members) {
    for (const Uuid& topic : member.subscribed_topic_ids) {
      times_given[topic].assign(spec.topics.at(topic).num_partitions, 0);
    }
  }
  for (const AssignmentMemberSpec& member : spec.members) {
    auto it = result.find(member.member_id);
    if (it == result.end()) {
      return testing::AssertionFailure() << "no entry for " << member.member_id;
    }
    for (const auto& [topic, partitions] : it->second) {
      if (member.subscribed_topic_ids.count(topic) == 0) {
        return testing::AssertionFailure()
               << member.member_id << " got unsubscribed topic " << topic.ToString() << "\n"
               << Describe(result);
      }
      if (partitions.empty()) {
        return testing::AssertionFailure() << member.member_id << " has an empty topic entry";
      }
      for (int32_t partition : partitions) {
        if (partition < 0 || partition >= spec.topics.at(topic).num_partitions) {
          return testing::AssertionFailure() << member.member_id << " got partition " << partition;
        }
        ++times_given[topic][partition];
      }
    }
  }
  for (const auto& [topic, counts] : times_given) {
    for (size_t p = 0; p < counts.size(); ++p) {
      if (counts[p] != 1) {
        return testing::AssertionFailure() << "partition " << p << " of " << topic.ToString()
                                           << " given " << counts[p] << " times\n"
                                           << Describe(result);
      }
    }
  }
  return testing::AssertionSuccess();
}

size_t MinCount(const GroupAssignment& a) {
  size_t n = SIZE_MAX;
  for (const auto& [member, partitions] : a) n = std::min(n, PartitionCount(partitions));
  return n;
}
size_t MaxCount(const GroupAssignment& a) {
  size_t n = 0;
  for (const auto& [member, partitions] : a) n = std::max(n, PartitionCount(partitions));
  return n;
}

bool IsHomogeneous(const AssignmentSpec& spec) {
  return std::all_of(spec.members.begin(), spec.members.end(), [&](const auto& m) {
    return m.subscribed_topic_ids == spec.members.front().subscribed_topic_ids;
  });
}

// A member's current partitions as the uniform assignor counts them: of topics it subscribes
// to, that exist, and that no member before it (in member id order) claims.
std::map<std::string, TopicPartitions> UsableCurrent(const AssignmentSpec& spec) {
  std::map<std::string, TopicPartitions> usable;
  TopicPartitions claimed;
  for (const AssignmentMemberSpec& member : spec.members) {  // sorted by Spec()
    TopicPartitions& mine = usable[member.member_id];
    for (const auto& [topic, partitions] : member.assigned) {
      if (member.subscribed_topic_ids.count(topic) == 0) continue;
      for (int32_t p : partitions) {
        if (p < 0 || p >= spec.topics.at(topic).num_partitions) continue;
        if (Contains(claimed, topic, p)) continue;
        claimed[topic].insert(p);
        mine[topic].insert(p);
      }
    }
  }
  return usable;
}

// Homogeneous uniform stickiness: member i (in member id order) keeps min(current, quota_i) of
// its usable current partitions, where the first total % M members have the larger quota.
testing::AssertionResult KeepsUpToQuota(const AssignmentSpec& spec, const GroupAssignment& result) {
  int64_t total = 0;
  for (const Uuid& topic : spec.members.front().subscribed_topic_ids) {
    total += spec.topics.at(topic).num_partitions;
  }
  const auto num_members = static_cast<int64_t>(spec.members.size());
  const std::map<std::string, TopicPartitions> usable = UsableCurrent(spec);
  for (int64_t i = 0; i < num_members; ++i) {
    const std::string& id = spec.members[i].member_id;
    const auto quota = static_cast<size_t>(total / num_members + (i < total % num_members));
    const size_t current = PartitionCount(usable.at(id));
    const size_t kept = PartitionCount(Intersect(usable.at(id), result.at(id)));
    if (PartitionCount(result.at(id)) != quota) {
      return testing::AssertionFailure() << id << " has " << PartitionCount(result.at(id))
                                         << " partitions, its quota is " << quota;
    }
    if (kept != std::min(current, quota)) {
      return testing::AssertionFailure()
             << id << " kept " << kept << " of " << current << " with quota " << quota << "\n"
             << Describe(result);
    }
  }
  return testing::AssertionSuccess();
}

// Heterogeneous uniform balance, the guarantee Kafka's final balancing pass gives once it
// converges: for each topic with two or more subscribers, no subscriber that holds one of its
// partitions has more than one partition over the least-loaded subscriber of the topic.
testing::AssertionResult TopicsBalanced(const AssignmentSpec& spec, const GroupAssignment& result) {
  std::map<Uuid, std::vector<const AssignmentMemberSpec*>, UuidLess> subscribers;
  for (const AssignmentMemberSpec& m : spec.members) {
    for (const Uuid& topic : m.subscribed_topic_ids) subscribers[topic].push_back(&m);
  }
  for (const auto& [topic, members] : subscribers) {
    if (members.size() < 2) continue;
    size_t least = SIZE_MAX;
    size_t most_holding = 0;
    for (const AssignmentMemberSpec* m : members) {
      const TopicPartitions& partitions = result.at(m->member_id);
      least = std::min(least, PartitionCount(partitions));
      if (partitions.count(topic) != 0) {
        most_holding = std::max(most_holding, PartitionCount(partitions));
      }
    }
    if (most_holding > least + 1) {
      return testing::AssertionFailure() << "topic t" << int{topic.bytes[15]} << ": a holder has "
                                         << most_holding << ", a subscriber " << least << "\n"
                                         << Describe(result);
    }
  }
  return testing::AssertionSuccess();
}

TEST(TopicPartitionsTest, SetOperations) {
  const TopicPartitions a = {{T(1), {0, 1, 2}}, {T(2), {5}}, {T(3), {7}}};
  const TopicPartitions b = {{T(1), {1}}, {T(2), {5}}, {T(4), {0}}};
  EXPECT_EQ(Subtract(a, b), (TopicPartitions{{T(1), {0, 2}}, {T(3), {7}}}));  // T(2) emptied
  EXPECT_EQ(Subtract(b, a), (TopicPartitions{{T(4), {0}}}));
  EXPECT_EQ(Intersect(a, b), (TopicPartitions{{T(1), {1}}, {T(2), {5}}}));
  EXPECT_TRUE(Intersect(a, TopicPartitions{{T(3), {8}}}).empty());
  EXPECT_EQ(Subtract(a, {}), a);
  EXPECT_TRUE(Subtract(a, a).empty());
  EXPECT_TRUE(Contains(a, T(1), 2));
  EXPECT_FALSE(Contains(a, T(1), 3));
  EXPECT_FALSE(Contains(a, T(4), 0));
  EXPECT_EQ(PartitionCount(a), 5u);
  EXPECT_EQ(PartitionCount({}), 0u);
}

TEST(ServerAssignorTest, FindsAssignorsByName) {
  ASSERT_NE(FindServerAssignor("uniform"), nullptr);
  ASSERT_NE(FindServerAssignor("range"), nullptr);
  EXPECT_EQ(FindServerAssignor("uniform")->name(), "uniform");
  EXPECT_EQ(FindServerAssignor("range")->name(), "range");
  EXPECT_EQ(FindServerAssignor("sticky"), nullptr);
  EXPECT_EQ(FindServerAssignor(""), nullptr);
  EXPECT_EQ(FindServerAssignor("Uniform"), nullptr);
  EXPECT_EQ(&DefaultServerAssignor(), FindServerAssignor("uniform"));
}

TEST(ServerAssignorTest, SubscribedTopicMissingFromMetadataIsInvalidArgument) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1)}), Member("b", {T(1), T(2)})}, {{T(1), 3}});  // T(2) unknown
  for (const ServerAssignor* assignor : {&Uniform(), &Range()}) {
    Result<GroupAssignment> result = assignor->Assign(spec);
    ASSERT_FALSE(result.ok()) << assignor->name();
    EXPECT_TRUE(result.status().IsInvalidArgument()) << result.status().ToString();
    EXPECT_NE(result.status().message().find(T(2).ToString()), std::string_view::npos)
        << result.status().ToString();
  }
  // An assigned partition of an unknown topic is not an error: it is simply not kept.
  const AssignmentSpec stale = Spec({Member("a", {T(1)}, {{T(9), {0}}})}, {{T(1), 1}});
  for (const ServerAssignor* assignor : {&Uniform(), &Range()}) {
    EXPECT_EQ(MustAssign(*assignor, stale), (GroupAssignment{{"a", {{T(1), {0}}}}}));
  }
}

TEST(ServerAssignorTest, RejectsDuplicateMembersAndNegativePartitionCounts) {
  AssignmentSpec twice = Spec({Member("a", {T(1)}), Member("a", {T(1)})}, {{T(1), 2}});
  EXPECT_TRUE(Uniform().Assign(twice).status().IsInvalidArgument());
  EXPECT_TRUE(Range().Assign(twice).status().IsInvalidArgument());
  AssignmentSpec negative = Spec({Member("a", {T(1)})}, {{T(1), -1}});
  EXPECT_TRUE(Uniform().Assign(negative).status().IsInvalidArgument());
  EXPECT_TRUE(Range().Assign(negative).status().IsInvalidArgument());
}

TEST(ServerAssignorTest, EmptyGroupsAndMembersWithoutTopics) {
  for (const ServerAssignor* assignor : {&Uniform(), &Range()}) {
    EXPECT_TRUE(MustAssign(*assignor, AssignmentSpec{}).empty());
    // Nobody subscribes: everybody gets an empty entry, and loses what it had.
    const AssignmentSpec none =
        Spec({Member("a", {}, {{T(1), {0}}}), Member("b", {})}, {{T(1), 2}});
    EXPECT_EQ(MustAssign(*assignor, none), (GroupAssignment{{"a", {}}, {"b", {}}}));
    // One member without topics beside subscribers.
    const AssignmentSpec some = Spec(
        {Member("a", {T(1)}), Member("b", {}, {{T(1), {1}}}), Member("c", {T(1)})}, {{T(1), 4}});
    const GroupAssignment result = MustAssign(*assignor, some);
    EXPECT_TRUE(IsComplete(some, result));
    EXPECT_TRUE(result.at("b").empty());
    EXPECT_EQ(PartitionCount(result.at("a")), 2u) << assignor->name();
    EXPECT_EQ(PartitionCount(result.at("c")), 2u) << assignor->name();
  }
}

TEST(ServerAssignorTest, ZeroPartitionTopics) {
  for (const ServerAssignor* assignor : {&Uniform(), &Range()}) {
    // Homogeneous: the empty topic appears nowhere.
    const AssignmentSpec homogeneous =
        Spec({Member("a", {T(1), T(2)}), Member("b", {T(1), T(2)})}, {{T(1), 0}, {T(2), 3}});
    GroupAssignment result = MustAssign(*assignor, homogeneous);
    EXPECT_TRUE(IsComplete(homogeneous, result));
    EXPECT_EQ(PartitionCount(result.at("a")) + PartitionCount(result.at("b")), 3u);
    // Heterogeneous, and only empty topics for one member.
    const AssignmentSpec heterogeneous =
        Spec({Member("a", {T(1)}), Member("b", {T(1), T(2)})}, {{T(1), 0}, {T(2), 2}});
    result = MustAssign(*assignor, heterogeneous);
    EXPECT_TRUE(IsComplete(heterogeneous, result));
    EXPECT_TRUE(result.at("a").empty());
    EXPECT_EQ(result.at("b"), (TopicPartitions{{T(2), {0, 1}}}));
  }
}

// Worked by hand: 7 partitions for 3 members gives quotas 3, 2, 2 (a gets the extra one). From
// scratch the unassigned list is t1p0..3, t2p0..2, handed out in member order.
TEST(UniformAssignorTest, HomogeneousExactAnswerFromScratch) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1), T(2)}), Member("b", {T(1), T(2)}), Member("c", {T(1), T(2)})},
           {{T(1), 4}, {T(2), 3}});
  EXPECT_EQ(MustAssign(Uniform(), spec), (GroupAssignment{
                                             {"a", {{T(1), {0, 1, 2}}}},
                                             {"b", {{T(1), {3}}, {T(2), {0}}}},
                                             {"c", {{T(2), {1, 2}}}},
                                         }));
}

// Worked by hand: a has t1p0..3 over its quota of 3, so it keeps t1p0..2 and gives up t1p3,
// which joins the list after the unowned t2p1 and t2p2. b keeps t2p0 and takes t2p1; c takes
// the rest.
TEST(UniformAssignorTest, HomogeneousExactAnswerSticky) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1), T(2)}, {{T(1), {0, 1, 2, 3}}}),
            Member("b", {T(1), T(2)}, {{T(2), {0}}}), Member("c", {T(1), T(2)})},
           {{T(1), 4}, {T(2), 3}});
  EXPECT_EQ(MustAssign(Uniform(), spec), (GroupAssignment{
                                             {"a", {{T(1), {0, 1, 2}}}},
                                             {"b", {{T(2), {0, 1}}}},
                                             {"c", {{T(1), {3}}, {T(2), {2}}}},
                                         }));
}

TEST(UniformAssignorTest, HomogeneousNewMemberTakesOnlyWhatItMust) {
  const AssignmentSpec two = Spec({Member("a", {T(1)}), Member("b", {T(1)})}, {{T(1), 7}});
  const GroupAssignment before = MustAssign(Uniform(), two);
  ASSERT_EQ(before, (GroupAssignment{{"a", {{T(1), {0, 1, 2, 3}}}}, {"b", {{T(1), {4, 5, 6}}}}}));

  // c joins: quotas 3, 2, 2. a gives up t1p3, b gives up t1p6, and c gets exactly those.
  const AssignmentSpec three = Spec({Member("a", {T(1)}, before.at("a")),
                                     Member("b", {T(1)}, before.at("b")), Member("c", {T(1)})},
                                    {{T(1), 7}});
  const GroupAssignment after = MustAssign(Uniform(), three);
  EXPECT_EQ(after,
            (GroupAssignment{
                {"a", {{T(1), {0, 1, 2}}}}, {"b", {{T(1), {4, 5}}}}, {"c", {{T(1), {3, 6}}}}}));
  EXPECT_TRUE(KeepsUpToQuota(three, after));

  // A joiner that sorts first gets the extra quota slot: a and b drop to 2 each.
  const AssignmentSpec first = Spec({Member("0", {T(1)}), Member("a", {T(1)}, before.at("a")),
                                     Member("b", {T(1)}, before.at("b"))},
                                    {{T(1), 7}});
  const GroupAssignment result = MustAssign(Uniform(), first);
  EXPECT_EQ(result,
            (GroupAssignment{
                {"0", {{T(1), {2, 3, 6}}}}, {"a", {{T(1), {0, 1}}}}, {"b", {{T(1), {4, 5}}}}}));
  EXPECT_TRUE(KeepsUpToQuota(first, result));
}

TEST(UniformAssignorTest, HomogeneousLeavingMemberSpreadsItsPartitions) {
  const AssignmentSpec spec = Spec({Member("a", {T(1)}, {{T(1), {0, 1}}}),
                                    Member("c", {T(1)}, {{T(1), {4, 5}}})},  // b (2, 3) left
                                   {{T(1), 6}});
  EXPECT_EQ(MustAssign(Uniform(), spec),
            (GroupAssignment{{"a", {{T(1), {0, 1, 2}}}}, {"c", {{T(1), {3, 4, 5}}}}}));
}

// Worked by hand: t2 (2 partitions per subscriber) is visited before t1 (1.5): b gets t2p0 and
// t2p1, then a (load 0) gets t1p0, t1p1 and - tied with b at 2 but first - t1p2. Loads 3 and 2
// differ by one, so balancing moves nothing.
TEST(UniformAssignorTest, HeterogeneousExactAnswerFromScratch) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1)}), Member("b", {T(1), T(2)})}, {{T(1), 3}, {T(2), 2}});
  EXPECT_EQ(MustAssign(Uniform(), spec),
            (GroupAssignment{{"a", {{T(1), {0, 1, 2}}}}, {"b", {{T(2), {0, 1}}}}}));
}

// Worked by hand: b keeps t1p0..3 and gets the unowned t2p0 and t2p1 (its only subscriber):
// loads a 0, b 6. Balancing t1 moves b's highest t1 partitions to a, one at a time, until the
// loads are 3 and 3.
TEST(UniformAssignorTest, HeterogeneousExactAnswerBalancing) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1)}), Member("b", {T(1), T(2)}, {{T(1), {0, 1, 2, 3}}})},
           {{T(1), 4}, {T(2), 2}});
  EXPECT_EQ(MustAssign(Uniform(), spec),
            (GroupAssignment{{"a", {{T(1), {1, 2, 3}}}}, {"b", {{T(1), {0}}, {T(2), {0, 1}}}}}));
}

TEST(UniformAssignorTest, HeterogeneousKeepsCurrentAndDropsUnsubscribed) {
  // c no longer subscribes to t1: its t1p0 is reassigned; everything else stays.
  const AssignmentSpec spec = Spec({Member("a", {T(1), T(2)}, {{T(1), {1, 2}}, {T(2), {0}}}),
                                    Member("b", {T(1), T(2)}, {{T(1), {3}}, {T(2), {1, 2}}}),
                                    Member("c", {T(3)}, {{T(1), {0}}, {T(3), {0, 1}}})},
                                   {{T(1), 4}, {T(2), 3}, {T(3), 2}});
  const GroupAssignment result = MustAssign(Uniform(), spec);
  EXPECT_TRUE(IsComplete(spec, result));
  EXPECT_EQ(result.at("c"), (TopicPartitions{{T(3), {0, 1}}}));
  // a (load 3) and b (load 3): t1p0 goes to a, the first of the least loaded.
  EXPECT_EQ(result.at("a"), (TopicPartitions{{T(1), {0, 1, 2}}, {T(2), {0}}}));
  EXPECT_EQ(result.at("b"), (TopicPartitions{{T(1), {3}}, {T(2), {1, 2}}}));
}

TEST(UniformAssignorTest, HeterogeneousSoleSubscriberGetsWholeTopic) {
  const AssignmentSpec spec =
      Spec({Member("a", {T(1)}), Member("b", {T(1), T(2)}), Member("c", {T(3)})},
           {{T(1), 4}, {T(2), 5}, {T(3), 1}});
  const GroupAssignment result = MustAssign(Uniform(), spec);
  EXPECT_TRUE(IsComplete(spec, result));
  EXPECT_TRUE(TopicsBalanced(spec, result));
  EXPECT_EQ(result.at("c"), (TopicPartitions{{T(3), {0}}}));
  EXPECT_EQ(result.at("b").at(T(2)).size(), 5u);
  EXPECT_EQ(result.at("a"), (TopicPartitions{{T(1), {0, 1, 2, 3}}}));  // b already has 5
}

TEST(UniformAssignorTest, BadCurrentAssignmentsAreCleanedUp) {
  // Out of range, negative and doubly claimed partitions: the first claimer (by member id)
  // keeps a shared one; the others are dropped.
  const AssignmentSpec spec =
      Spec({Member("a", {T(1)}, {{T(1), {0, 7, -1}}}), Member("b", {T(1)}, {{T(1), {0, 1}}})},
           {{T(1), 4}});
  const GroupAssignment result = MustAssign(Uniform(), spec);
  EXPECT_TRUE(IsComplete(spec, result));
  EXPECT_EQ(result, (GroupAssignment{{"a", {{T(1), {0, 2}}}}, {"b", {{T(1), {1, 3}}}}}));
}

// Worked by hand: order m-c (i-1), m-b (i-2), then the dynamic m-0, m-a. t1's 7 partitions for
// 4 members: 2, 2, 2, 1. t2's 3 partitions for its subscribers m-b, m-a: 2, 1.
TEST(RangeAssignorTest, ExactRangesStaticMembersFirst) {
  const AssignmentSpec spec =
      Spec({Member("m-b", {T(1), T(2)}, {}, "i-2"), Member("m-a", {T(1), T(2)}),
            Member("m-c", {T(1)}, {}, "i-1"), Member("m-0", {T(1)})},
           {{T(1), 7}, {T(2), 3}});
  EXPECT_EQ(MustAssign(Range(), spec), (GroupAssignment{
                                           {"m-c", {{T(1), {0, 1}}}},
                                           {"m-b", {{T(1), {2, 3}}, {T(2), {0, 1}}}},
                                           {"m-0", {{T(1), {4, 5}}}},
                                           {"m-a", {{T(1), {6}}, {T(2), {2}}}},
                                       }));
}

TEST(RangeAssignorTest, CoPartitionsAndIgnoresCurrentAssignment) {
  // Kafka's example: M0 [T1P0, T1P1, T2P0, T2P1], M1 [T1P2, T2P2].
  const AssignmentSpec spec = Spec({Member("M0", {T(1), T(2)}, {{T(1), {2}}}),
                                    Member("M1", {T(1), T(2)}, {{T(1), {0, 1}}, {T(2), {0}}})},
                                   {{T(1), 3}, {T(2), 3}});
  EXPECT_EQ(MustAssign(Range(), spec), (GroupAssignment{{"M0", {{T(1), {0, 1}}, {T(2), {0, 1}}}},
                                                        {"M1", {{T(1), {2}}, {T(2), {2}}}}}));
  // More subscribers than partitions: the last ones get none.
  const AssignmentSpec few =
      Spec({Member("a", {T(1)}), Member("b", {T(1)}), Member("c", {T(1)})}, {{T(1), 2}});
  EXPECT_EQ(MustAssign(Range(), few),
            (GroupAssignment{{"a", {{T(1), {0}}}}, {"b", {{T(1), {1}}}}, {"c", {}}}));
  // Renaming a static member's member id does not move its range.
  const AssignmentSpec renamed =
      Spec({Member("z", {T(1)}, {}, "i-0"), Member("b", {T(1)}), Member("y", {T(1)}, {}, "i-1")},
           {{T(1), 3}});
  EXPECT_EQ(MustAssign(Range(), renamed),
            (GroupAssignment{{"z", {{T(1), {0}}}}, {"y", {{T(1), {1}}}}, {"b", {{T(1), {2}}}}}));
}

TEST(ServerAssignorTest, Deterministic) {
  std::vector<AssignmentMemberSpec> members = {
      Member("d", {T(1), T(3)}, {{T(1), {4}}}), Member("a", {T(1), T(2)}, {{T(2), {0, 1, 2}}}),
      Member("c", {T(2)}), Member("b", {T(1), T(2), T(3)}, {{T(3), {1}}}, "s")};
  const AssignmentSpec spec = Spec(members, {{T(1), 5}, {T(2), 4}, {T(3), 3}});
  for (const ServerAssignor* assignor : {&Uniform(), &Range()}) {
    const GroupAssignment first = MustAssign(*assignor, spec);
    EXPECT_TRUE(IsComplete(spec, first));
    EXPECT_EQ(MustAssign(*assignor, spec), first);
    // The members' order in the spec does not matter either.
    AssignmentSpec shuffled = spec;
    std::reverse(shuffled.members.begin(), shuffled.members.end());
    EXPECT_EQ(MustAssign(*assignor, shuffled), first) << assignor->name();
  }
}

// A random small group: up to 6 members and 4 topics of up to 7 partitions each; homogeneous
// or not; current assignments empty, left by an earlier run on a different group, or garbage.
class RandomGroups {
 public:
  explicit RandomGroups(uint32_t seed) : rng_(seed) {}

  int Between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  AssignmentSpec Next() {
    const int num_topics = Between(1, 4);
    std::map<Uuid, int32_t, UuidLess> partitions;
    for (int t = 1; t <= num_topics; ++t) partitions[T(static_cast<uint8_t>(t))] = Between(0, 7);
    const bool homogeneous = Between(0, 1) == 0;
    const TopicIdSet shared = RandomTopics(num_topics);
    std::vector<AssignmentMemberSpec> members;
    const int num_members = Between(1, 6);
    for (int i = 0; i < num_members; ++i) {
      std::optional<std::string> instance;
      if (Between(0, 2) == 0) instance = fmt::format("instance-{}", Between(0, 9));
      // One draw per statement: the order in which arguments are evaluated is unspecified.
      std::string id = fmt::format("member-{}", Between(0, 99) * 10 + i);
      TopicIdSet topics = homogeneous ? shared : RandomTopics(num_topics);
      members.push_back(Member(std::move(id), std::move(topics), {}, instance));
    }
    AssignmentSpec spec = Spec(std::move(members), partitions);
    switch (Between(0, 2)) {
      case 0:
        break;
      case 1: {
        // An earlier group: the same members but one, some with other subscriptions.
        AssignmentSpec earlier = spec;
        if (earlier.members.size() > 1 && Between(0, 1) == 0) {
          earlier.members.erase(earlier.members.begin() +
                                Between(0, static_cast<int>(earlier.members.size()) - 1));
        }
        for (AssignmentMemberSpec& m : earlier.members) {
          if (Between(0, 3) == 0) m.subscribed_topic_ids = RandomTopics(num_topics);
        }
        for (auto& [id, topic] : earlier.topics) topic.num_partitions = Between(0, 7);
        Result<GroupAssignment> result = Uniform().Assign(earlier);
        if (!result.ok()) break;
        for (AssignmentMemberSpec& m : spec.members) {
          auto it = result->find(m.member_id);
          if (it != result->end()) m.assigned = it->second;
        }
        break;
      }
      default:
        for (AssignmentMemberSpec& m : spec.members) {
          for (int k = Between(0, 5); k > 0; --k) {
            const Uuid topic = T(static_cast<uint8_t>(Between(1, num_topics + 1)));
            m.assigned[topic].insert(Between(-1, 8));
          }
        }
    }
    return spec;
  }

 private:
  TopicIdSet RandomTopics(int num_topics) {
    TopicIdSet topics;
    for (int t = 1; t <= num_topics; ++t) {
      if (Between(0, 1) == 0) topics.insert(T(static_cast<uint8_t>(t)));
    }
    return topics;
  }

  std::mt19937 rng_;
};

TEST(UniformAssignorTest, RandomGroupsProperties) {
  RandomGroups groups(20240848);
  int homogeneous_groups = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const AssignmentSpec spec = groups.Next();
    SCOPED_TRACE(iteration);
    const GroupAssignment result = MustAssign(Uniform(), spec);
    ASSERT_TRUE(IsComplete(spec, result));
    ASSERT_EQ(MustAssign(Uniform(), spec), result);
    if (IsHomogeneous(spec)) {
      ++homogeneous_groups;
      ASSERT_LE(MaxCount(result) - MinCount(result), 1u) << Describe(result);
      ASSERT_TRUE(KeepsUpToQuota(spec, result));
    } else {
      ASSERT_TRUE(TopicsBalanced(spec, result));
    }
    // Run again on its own output: nothing moves.
    AssignmentSpec again = spec;
    for (AssignmentMemberSpec& m : again.members) m.assigned = result.at(m.member_id);
    ASSERT_EQ(MustAssign(Uniform(), again), result);
  }
  EXPECT_GT(homogeneous_groups, 300);
}

TEST(RangeAssignorTest, RandomGroupsProperties) {
  RandomGroups groups(848);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const AssignmentSpec spec = groups.Next();
    SCOPED_TRACE(iteration);
    const GroupAssignment result = MustAssign(Range(), spec);
    ASSERT_TRUE(IsComplete(spec, result));
    AssignmentSpec fresh = spec;
    for (AssignmentMemberSpec& m : fresh.members) m.assigned.clear();
    ASSERT_EQ(MustAssign(Range(), fresh), result);  // not sticky
    // Per topic: each subscriber gets a contiguous range of floor or ceil(P / M), the larger
    // ones first, in the order the ranges run.
    for (const auto& [topic_id, topic] : spec.topics) {
      std::vector<std::pair<int32_t, size_t>> ranges;  // (first partition, size)
      size_t subscribers = 0;
      for (const AssignmentMemberSpec& m : spec.members) {
        if (m.subscribed_topic_ids.count(topic_id) == 0) continue;
        ++subscribers;
        auto it = result.at(m.member_id).find(topic_id);
        if (it == result.at(m.member_id).end()) continue;
        const std::set<int32_t>& ps = it->second;
        ASSERT_EQ(*ps.rbegin() - *ps.begin() + 1, static_cast<int32_t>(ps.size()));
        ranges.emplace_back(*ps.begin(), ps.size());
      }
      if (subscribers == 0) continue;
      std::sort(ranges.begin(), ranges.end());
      const size_t min_quota = topic.num_partitions / subscribers;
      for (size_t i = 1; i < ranges.size(); ++i) ASSERT_LE(ranges[i].second, ranges[i - 1].second);
      for (const auto& range : ranges) {
        ASSERT_TRUE(range.second == min_quota || range.second == min_quota + 1);
      }
    }
  }
}

}  // namespace
}  // namespace seglog
