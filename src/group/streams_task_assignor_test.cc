// Tests for `sticky`, the streams task assignor: fixed cases, then bounded randomized property
// checks (fixed seed): every task active exactly once, active tasks balanced within one per
// member when processes are alike, standbys never beside a copy of their task and as many as
// the processes allow, assignments stable when members do not change, and remaining members
// keeping their tasks when one leaves.
#include "group/streams_task_assignor.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace seglog {
namespace {

StreamsAssignmentSpec Spec(std::map<std::string, int32_t> tasks, std::set<std::string> stateful,
                           int32_t standbys) {
  StreamsAssignmentSpec s;
  s.subtopology_tasks = std::move(tasks);
  s.stateful_subtopologies = std::move(stateful);
  s.num_standby_replicas = standbys;
  return s;
}

void AddMember(StreamsAssignmentSpec* s, const std::string& id, const std::string& process,
               StreamsTasks tasks = {}) {
  s->members[id] = StreamsAssignmentMember{process, std::move(tasks), {}};
}

int Count(const StreamsTaskSet& t) {
  int n = 0;
  for (const auto& [sub, parts] : t) n += static_cast<int>(parts.size());
  return n;
}

// Checks the invariants every assignment has; returns a message naming the first breach.
std::string CheckInvariants(const StreamsAssignmentSpec& spec, const StreamsGroupAssignment& a) {
  if (a.size() != spec.members.size()) return "not every member has an assignment";
  std::map<std::pair<std::string, int32_t>, int> active;
  std::map<std::pair<std::string, int32_t>, std::map<std::string, int>> copies;  // by process
  for (const auto& [member, tasks] : a) {
    const std::string& process = spec.members.at(member).process_id;
    if (!tasks.warmup.empty()) return "4.4.0's sticky assigns no warm-up";
    for (const auto& [sub, parts] : tasks.active) {
      for (int32_t p : parts) {
        ++active[{sub, p}];
        ++copies[{sub, p}][process];
      }
    }
    for (const auto& [sub, parts] : tasks.standby) {
      if (!spec.stateful_subtopologies.contains(sub)) return "standby of a stateless task";
      for (int32_t p : parts) ++copies[{sub, p}][process];
    }
  }
  std::set<std::string> processes;
  for (const auto& [id, m] : spec.members) processes.insert(m.process_id);
  for (const auto& [sub, n] : spec.subtopology_tasks) {
    for (int32_t p = 0; p < n; ++p) {
      if (active[{sub, p}] != 1) return fmt::format("task {}_{} not once", sub, p);
      int total = 0;
      for (const auto& [process, c] : copies[{sub, p}]) {
        if (c != 1) return fmt::format("two copies of task {}_{} on process {}", sub, p, process);
        total += c;
      }
      if (spec.stateful_subtopologies.contains(sub)) {
        const int want =
            1 + std::min<int>(spec.num_standby_replicas, static_cast<int>(processes.size()) - 1);
        if (total != want) {
          return fmt::format("task {}_{} has {} copies, want {}", sub, p, total, want);
        }
      }
    }
  }
  return "";
}

TEST(StreamsTaskAssignorTest, FreshGroupIsRangeLikeAndBalanced) {
  StreamsAssignmentSpec s = Spec({{"0", 4}, {"1", 2}}, {}, 0);
  AddMember(&s, "a", "p1");
  AddMember(&s, "b", "p2");
  auto r = AssignStreamsTasksSticky(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckInvariants(s, *r), "");
  EXPECT_EQ(Count(r->at("a").active), 3);
  EXPECT_EQ(Count(r->at("b").active), 3);
}

TEST(StreamsTaskAssignorTest, PreviousOwnersKeepTheirTasksUpToTheQuota) {
  StreamsAssignmentSpec s = Spec({{"0", 4}}, {}, 0);
  StreamsTasks all;
  all.active["0"] = {0, 1, 2, 3};
  AddMember(&s, "a", "p1", all);
  AddMember(&s, "b", "p2");
  auto r = AssignStreamsTasksSticky(s);
  ASSERT_TRUE(r.ok());
  // a keeps its first two by partition order; b gets the rest.
  EXPECT_EQ(r->at("a").active.at("0"), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(r->at("b").active.at("0"), (std::set<int32_t>{2, 3}));
}

TEST(StreamsTaskAssignorTest, APreviousStandbyTakesOverAnActiveTask) {
  StreamsAssignmentSpec s = Spec({{"0", 2}}, {"0"}, 1);
  StreamsTasks a_tasks;
  a_tasks.active["0"] = {0, 1};
  StreamsTasks c_tasks;
  c_tasks.standby["0"] = {0, 1};
  AddMember(&s, "a", "p1", a_tasks);
  AddMember(&s, "a2", "p1");
  AddMember(&s, "b", "p2");
  AddMember(&s, "c", "p3", c_tasks);
  auto r = AssignStreamsTasksSticky(s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(CheckInvariants(s, *r), "");
  // a keeps task 0 (quota: one task per member); task 1 goes to c, its previous standby.
  EXPECT_EQ(r->at("a").active.at("0"), (std::set<int32_t>{0}));
  EXPECT_EQ(r->at("c").active.at("0"), (std::set<int32_t>{1}));
  // Their standbys go to the least-loaded processes without the task: b (p2) takes both.
  EXPECT_EQ(r->at("b").standby.at("0"), (std::set<int32_t>{0, 1}));
}

TEST(StreamsTaskAssignorTest, TooFewProcessesForTheStandbys) {
  StreamsAssignmentSpec s = Spec({{"0", 3}}, {"0"}, 2);
  AddMember(&s, "a", "p1");
  AddMember(&s, "b", "p2");
  auto r = AssignStreamsTasksSticky(s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(CheckInvariants(s, *r), "");  // one standby per task: two processes
}

TEST(StreamsTaskAssignorTest, NoMembers) {
  StreamsAssignmentSpec s = Spec({{"0", 1}}, {}, 0);
  auto r = AssignStreamsTasksSticky(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "No process available to assign active task TaskId[subtopologyId=0, partition=0].");
  s.subtopology_tasks.clear();
  r = AssignStreamsTasksSticky(s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST(StreamsTaskAssignorTest, RandomizedProperties) {
  std::mt19937 rng(20261205);
  for (int round = 0; round < 300; ++round) {
    const int subtopologies = 1 + static_cast<int>(rng() % 4);
    const int processes = 1 + static_cast<int>(rng() % 5);
    const int per_process = 1 + static_cast<int>(rng() % 3);
    const int standbys = static_cast<int>(rng() % 3);
    StreamsAssignmentSpec s = Spec({}, {}, standbys);
    for (int i = 0; i < subtopologies; ++i) {
      const std::string id = std::to_string(i);
      s.subtopology_tasks[id] = 1 + static_cast<int32_t>(rng() % 12);
      if (rng() % 2 == 0) s.stateful_subtopologies.insert(id);
    }
    for (int p = 0; p < processes; ++p) {
      for (int m = 0; m < per_process; ++m) {
        AddMember(&s, fmt::format("m{}-{}", p, m), fmt::format("p{}", p));
      }
    }
    auto r = AssignStreamsTasksSticky(s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(CheckInvariants(s, *r), "") << "round " << round;

    // Alike processes and no standbys: active tasks within one per member.
    if (standbys == 0) {
      int lo = INT32_MAX;
      int hi = 0;
      for (const auto& [m, t] : *r) {
        lo = std::min(lo, Count(t.active));
        hi = std::max(hi, Count(t.active));
      }
      EXPECT_LE(hi - lo, 1) << "round " << round;
    }

    // The same members with their assignment as the previous one: nothing moves.
    StreamsAssignmentSpec again = s;
    for (auto& [id, m] : again.members) m.tasks = r->at(id);
    auto r2 = AssignStreamsTasksSticky(again);
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(*r2, *r) << "round " << round;

    // One member leaves: the others keep all their active tasks.
    if (again.members.size() > 1) {
      StreamsAssignmentSpec fewer = again;
      auto gone = fewer.members.begin();
      std::advance(gone, rng() % fewer.members.size());
      fewer.members.erase(gone);
      auto r3 = AssignStreamsTasksSticky(fewer);
      ASSERT_TRUE(r3.ok());
      ASSERT_EQ(CheckInvariants(fewer, *r3), "") << "round " << round;
      for (const auto& [id, m] : fewer.members) {
        for (const auto& [sub, parts] : m.tasks.active) {
          for (int32_t p : parts) {
            EXPECT_TRUE(r3->at(id).active.contains(sub) && r3->at(id).active.at(sub).contains(p))
                << "round " << round << ": " << id << " lost " << sub << "_" << p;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace seglog
