// Tests for the share groups' simple assignor: the shapes of Kafka's SimpleAssignor (one
// partition to several members when members outnumber partitions), stickiness, and a
// randomized property check on a fixed seed: every assignable partition of a subscribed topic
// is assigned, only to subscribers, balanced within one per pool, the same output for the same
// input.
#include "group/simple_assignor.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

Uuid Id(uint8_t first) { return testing::TestUuid(first); }

size_t Count(const TopicPartitions& tps) { return PartitionCount(tps); }

TEST(SimpleAssignorTest, PartitionsAreSpreadAndShared) {
  SimpleAssignorInput in;
  in.assignable[Id(1)] = {0, 1, 2, 3};
  for (const char* m : {"a", "b"}) in.members[m] = {Id(1)};
  auto out = SimpleAssign(in, true);
  EXPECT_EQ(Count(out["a"]), 2u);
  EXPECT_EQ(Count(out["b"]), 2u);
  EXPECT_TRUE(Intersect(out["a"], out["b"]).empty());

  // Five members, two partitions: each partition to three members (ceil(5/2)), six
  // assignments over five members.
  in.assignable[Id(1)] = {0, 1};
  in.members.clear();
  for (const char* m : {"a", "b", "c", "d", "e"}) in.members[m] = {Id(1)};
  out = SimpleAssign(in, true);
  std::map<int32_t, int> holders;
  for (const auto& [m, tps] : out) {
    EXPECT_GE(Count(tps), 1u) << m;
    EXPECT_LE(Count(tps), 2u) << m;
    for (int32_t p : tps.at(Id(1))) ++holders[p];
  }
  EXPECT_EQ(holders[0], 3);
  EXPECT_EQ(holders[1], 3);
}

TEST(SimpleAssignorTest, KeepsWhatMembersHadWhenBalanced) {
  SimpleAssignorInput in;
  in.assignable[Id(1)] = {0, 1, 2, 3};
  in.members["a"] = {Id(1)};
  in.members["b"] = {Id(1)};
  in.previous["a"][Id(1)] = {3, 1};
  in.previous["b"][Id(1)] = {0, 2};
  auto out = SimpleAssign(in, true);
  EXPECT_EQ(out["a"], in.previous["a"]);
  EXPECT_EQ(out["b"], in.previous["b"]);
  // A third member takes one from the member over its count; the others keep the rest.
  in.members["c"] = {Id(1)};
  out = SimpleAssign(in, true);
  EXPECT_EQ(Count(out["a"]) + Count(out["b"]) + Count(out["c"]), 4u);
  EXPECT_EQ(Count(Intersect(out["a"], in.previous["a"])), Count(out["a"]));
  EXPECT_EQ(Count(Intersect(out["b"], in.previous["b"])), Count(out["b"]));
}

TEST(SimpleAssignorTest, HeterogeneousSharesEachTopicAmongItsSubscribers) {
  SimpleAssignorInput in;
  in.assignable[Id(1)] = {0, 1};
  in.assignable[Id(2)] = {0};
  in.members["a"] = {Id(1)};
  in.members["b"] = {Id(1), Id(2)};
  auto out = SimpleAssign(in, false);
  EXPECT_FALSE(out["a"].count(Id(2)));
  EXPECT_EQ(out["b"].at(Id(2)), (std::set<int32_t>{0}));
  EXPECT_EQ(out["a"].at(Id(1)).size(), 1u);
  EXPECT_EQ(out["b"].at(Id(1)).size(), 1u);
}

TEST(SimpleAssignorTest, RandomizedPropertiesHold) {
  std::mt19937 rng(20261205);
  for (int round = 0; round < 400; ++round) {
    const int topics = 1 + static_cast<int>(rng() % 4);
    const int members = 1 + static_cast<int>(rng() % 12);
    SimpleAssignorInput in;
    for (int t = 0; t < topics; ++t) {
      const int partitions = static_cast<int>(rng() % 7);  // 0: nothing assignable
      for (int p = 0; p < partitions; ++p) in.assignable[Id(static_cast<uint8_t>(t + 1))].insert(p);
    }
    const bool homogeneous = rng() % 2 == 0;
    TopicIdSet all;
    for (int t = 0; t < topics; ++t) all.insert(Id(static_cast<uint8_t>(t + 1)));
    for (int m = 0; m < members; ++m) {
      TopicIdSet subscribed;
      if (homogeneous) {
        subscribed = all;
      } else {
        for (const Uuid& t : all) {
          if (rng() % 2) subscribed.insert(t);
        }
      }
      char name[16];
      std::snprintf(name, sizeof(name), "m%d", m);
      in.members[name] = subscribed;
    }
    // Some previous target, partly stale, for stickiness.
    for (const auto& [m, subscribed] : in.members) {
      if (rng() % 3 == 0) continue;
      for (const Uuid& t : all) {
        for (int p = 0; p < 8; ++p) {
          if (rng() % 4 == 0) in.previous[m][t].insert(p);
        }
      }
    }
    const auto out = SimpleAssign(in, homogeneous);
    ASSERT_EQ(out, SimpleAssign(in, homogeneous)) << "round " << round;  // deterministic
    ASSERT_EQ(out.size(), in.members.size());
    // Only subscribed, assignable partitions; every subscribed partition assigned.
    std::map<Uuid, std::set<int32_t>, UuidLess> assigned;
    for (const auto& [m, tps] : out) {
      for (const auto& [t, ps] : tps) {
        ASSERT_TRUE(in.members.at(m).count(t)) << "round " << round;
        for (int32_t p : ps) {
          ASSERT_TRUE(Contains(in.assignable, t, p)) << "round " << round;
          assigned[t].insert(p);
        }
      }
    }
    for (const auto& [t, ps] : in.assignable) {
      bool subscribed = false;
      for (const auto& [m, topics_of] : in.members) subscribed |= topics_of.count(t) > 0;
      if (subscribed) {
        ASSERT_EQ(assigned[t], ps) << "round " << round;
      }
    }
    // Balance within one: over all partitions (homogeneous), per topic among its subscribers
    // (heterogeneous).
    if (homogeneous) {
      size_t lo = SIZE_MAX, hi = 0;
      for (const auto& [m, tps] : out) {
        lo = std::min(lo, Count(tps));
        hi = std::max(hi, Count(tps));
      }
      if (!in.assignable.empty()) {
        ASSERT_LE(hi - lo, 1u) << "round " << round;
      }
    } else {
      for (const auto& [t, ps] : in.assignable) {
        size_t lo = SIZE_MAX, hi = 0;
        for (const auto& [m, tps] : out) {
          if (!in.members.at(m).count(t)) continue;
          auto it = tps.find(t);
          const size_t n = it == tps.end() ? 0 : it->second.size();
          lo = std::min(lo, n);
          hi = std::max(hi, n);
        }
        if (hi > 0) {
          ASSERT_LE(hi - lo, 1u) << "round " << round;
        }
      }
    }
  }
}

}  // namespace
}  // namespace seglog
