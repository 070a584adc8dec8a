// `sticky`, the streams task assignor; see streams_task_assignor.h.
#include "group/streams_task_assignor.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace seglog {

namespace {

struct TaskId {
  std::string subtopology;
  int32_t partition = 0;
  bool operator<(const TaskId& o) const {
    return subtopology != o.subtopology ? subtopology < o.subtopology : partition < o.partition;
  }
  bool operator==(const TaskId&) const = default;
};

struct Member {
  std::string process_id;
  std::string member_id;
};

// Kafka's ProcessState: the members of one process and the tasks given to them so far.
class Process {
 public:
  explicit Process(std::string id) : id_(std::move(id)) {}

  const std::string& id() const { return id_; }
  // Tasks per member of the process; -1 before it has members, as Kafka's.
  double load() const {
    return capacity_ <= 0 ? -1.0 : static_cast<double>(task_count_) / capacity_;
  }
  int capacity() const { return capacity_; }
  int MemberTaskCount(const std::string& member) const { return member_tasks_.at(member); }
  bool HasTask(const TaskId& t) const { return tasks_.contains(t); }

  void AddMember(const std::string& member) {
    member_tasks_[member] = 0;
    ++capacity_;
  }

  // Gives `task` to `member`; returns the member's new task count (active and standby).
  int AddTask(const std::string& member, const TaskId& task, bool active) {
    ++task_count_;
    tasks_.insert(task);
    (active ? active_ : standby_)[member].insert(task);
    return ++member_tasks_[member];
  }

  // Gives `task` to the member with the fewest tasks (ties: the smallest member id); -1 when
  // the process has no members.
  int AddTaskToLeastLoadedMember(const TaskId& task, bool active) {
    if (member_tasks_.empty()) return -1;
    auto best = member_tasks_.begin();
    for (auto it = member_tasks_.begin(); it != member_tasks_.end(); ++it) {
      if (it->second < best->second) best = it;
    }
    return AddTask(best->first, task, active);
  }

  const std::map<std::string, std::set<TaskId>>& active() const { return active_; }
  const std::map<std::string, std::set<TaskId>>& standby() const { return standby_; }

 private:
  std::string id_;
  int capacity_ = 0;
  int task_count_ = 0;
  std::map<std::string, int> member_tasks_;
  std::map<std::string, std::set<TaskId>> active_;
  std::map<std::string, std::set<TaskId>> standby_;
  std::set<TaskId> tasks_;
};

int TasksPerMember(int tasks, int members) {
  if (members == 0) return 0;
  return tasks / members + (tasks % members > 0 ? 1 : 0);
}

class Sticky {
 public:
  explicit Sticky(const StreamsAssignmentSpec& spec) : spec_(spec) {
    num_standby_ = spec.num_standby_replicas;
    for (const auto& [sub, n] : spec.subtopology_tasks) {
      total_tasks_ += n;
      total_active_ += n;
      if (spec.stateful_subtopologies.contains(sub)) total_tasks_ += n * num_standby_;
    }
    members_with_active_capacity_ = static_cast<int>(spec.members.size());
    members_with_capacity_ = static_cast<int>(spec.members.size());
    active_per_member_ = TasksPerMember(total_active_, members_with_active_capacity_);
    total_per_member_ = TasksPerMember(total_tasks_, members_with_capacity_);

    struct Candidate {
      Member member;
      bool prev_standby;
      int64_t offset_sum;
    };
    std::map<TaskId, std::vector<Candidate>> candidates;
    for (const auto& [id, m] : spec.members) {
      processes_.try_emplace(m.process_id, m.process_id);
      processes_.at(m.process_id).AddMember(id);
      const Member member{m.process_id, id};
      for (const auto& [sub, parts] : m.tasks.active) {
        for (int32_t p : parts) prev_active_.insert_or_assign(TaskId{sub, p}, member);
      }
      const auto& offsets_of_member = m.task_offsets;
      auto offset_of = [&offsets_of_member](const std::string& sub, int32_t p) -> int64_t {
        auto s = offsets_of_member.find(sub);
        if (s == offsets_of_member.end()) return 0;
        auto o = s->second.find(p);
        return o == s->second.end() ? 0 : o->second;
      };
      for (const auto& [sub, parts] : m.tasks.standby) {
        for (int32_t p : parts) {
          candidates[TaskId{sub, p}].push_back({member, true, offset_of(sub, p)});
        }
      }
      for (const auto& [sub, offsets] : m.task_offsets) {
        auto standby = m.tasks.standby.find(sub);
        for (const auto& [p, offset] : offsets) {
          if (standby != m.tasks.standby.end() && standby->second.contains(p)) continue;
          candidates[TaskId{sub, p}].push_back({member, false, offset});
        }
      }
    }
    for (auto& [task, list] : candidates) {
      std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
        if (a.prev_standby != b.prev_standby) return a.prev_standby;
        return a.offset_sum > b.offset_sum;
      });
      auto& out = prev_standby_[task];
      for (const auto& c : list) out.push_back(c.member);
    }
  }

  Status AssignActive() {
    std::vector<TaskId> tasks;
    for (const auto& [sub, n] : spec_.subtopology_tasks) {
      for (int32_t p = 0; p < n; ++p) tasks.push_back({sub, p});
    }
    // Steps 1 and 2 go by partition, then subtopology.
    std::sort(tasks.begin(), tasks.end(), [](const TaskId& a, const TaskId& b) {
      return a.partition != b.partition ? a.partition < b.partition : a.subtopology < b.subtopology;
    });
    std::vector<TaskId> left;
    for (const auto& t : tasks) {
      auto prev = prev_active_.find(t);
      if (prev != prev_active_.end()) {
        Process& process = processes_.at(prev->second.process_id);
        if (process.MemberTaskCount(prev->second.member_id) < active_per_member_) {
          ActiveAdded(process.AddTask(prev->second.member_id, t, true));
          continue;
        }
      }
      left.push_back(t);
    }
    tasks = std::move(left);
    left.clear();
    for (const auto& t : tasks) {
      auto prev = prev_standby_.find(t);
      std::optional<Member> m;
      if (prev != prev_standby_.end()) m = PrevMemberWithLeastLoad(prev->second, std::nullopt);
      if (m) {
        Process& process = processes_.at(m->process_id);
        if (process.MemberTaskCount(m->member_id) < active_per_member_) {
          ActiveAdded(process.AddTask(m->member_id, t, true));
          continue;
        }
      }
      left.push_back(t);
    }
    // Step 3 goes by subtopology, then partition (a range-like first assignment).
    std::sort(left.begin(), left.end());
    for (const auto& t : left) {
      Process* process = LeastLoaded(std::nullopt);
      if (process == nullptr) {
        return Status::FailedPrecondition(fmt::format(
            "No process available to assign active task {}_{}.", t.subtopology, t.partition));
      }
      const int count = process->AddTaskToLeastLoadedMember(t, true);
      if (count == -1) {
        return Status::FailedPrecondition(fmt::format(
            "No member available to assign active task {}_{}.", t.subtopology, t.partition));
      }
      ActiveAdded(count);
    }
    return Status::OK();
  }

  void AssignStandby() {
    if (num_standby_ <= 0) return;
    std::vector<TaskId> tasks;
    for (const auto& [sub, n] : spec_.subtopology_tasks) {
      if (!spec_.stateful_subtopologies.contains(sub)) continue;
      for (int32_t p = 0; p < n; ++p) tasks.push_back({sub, p});
    }
    // By partition then subtopology, reversed.
    std::sort(tasks.begin(), tasks.end(), [](const TaskId& a, const TaskId& b) {
      return a.partition != b.partition ? a.partition > b.partition : a.subtopology > b.subtopology;
    });
    struct ToAssign {
      TaskId task;
      int remaining;
    };
    std::vector<ToAssign> to_least_loaded;
    for (const auto& t : tasks) {
      for (int i = 0; i < num_standby_; ++i) {
        auto prev = prev_active_.find(t);
        if (prev != prev_active_.end()) {
          Process& process = processes_.at(prev->second.process_id);
          if (!process.HasTask(t) &&
              process.MemberTaskCount(prev->second.member_id) < total_per_member_) {
            TotalAdded(process.AddTask(prev->second.member_id, t, false));
            continue;
          }
        }
        auto standbys = prev_standby_.find(t);
        if (standbys != prev_standby_.end() && !standbys->second.empty()) {
          auto m = PrevMemberWithLeastLoad(standbys->second, t);
          if (m) {
            Process& process = processes_.at(m->process_id);
            if (process.MemberTaskCount(m->member_id) < total_per_member_) {
              TotalAdded(process.AddTask(m->member_id, t, false));
              continue;
            }
          }
        }
        to_least_loaded.push_back({t, num_standby_ - i});
        break;
      }
    }
    // By subtopology then partition, reversed.
    std::sort(to_least_loaded.begin(), to_least_loaded.end(),
              [](const ToAssign& a, const ToAssign& b) { return b.task < a.task; });
    for (const auto& a : to_least_loaded) {
      for (int i = 0; i < a.remaining; ++i) {
        Process* process = LeastLoaded(a.task);
        if (process == nullptr) break;  // not enough capacity (Kafka logs a warning)
        const int count = process->AddTaskToLeastLoadedMember(a.task, false);
        if (count == -1) break;
        TotalAdded(count);
      }
    }
  }

  StreamsGroupAssignment Build() const {
    StreamsGroupAssignment out;
    for (const auto& [id, m] : spec_.members) out[id];
    for (const auto& [pid, process] : processes_) {
      for (const auto& [member, tasks] : process.active()) {
        for (const auto& t : tasks) out[member].active[t.subtopology].insert(t.partition);
      }
      for (const auto& [member, tasks] : process.standby()) {
        for (const auto& t : tasks) out[member].standby[t.subtopology].insert(t.partition);
      }
    }
    return out;
  }

 private:
  void ActiveAdded(int count) {
    if (count == active_per_member_) {
      --members_with_active_capacity_;
      total_active_ -= count;
      active_per_member_ = TasksPerMember(total_active_, members_with_active_capacity_);
    }
    TotalAdded(count);
  }

  void TotalAdded(int count) {
    if (count == total_per_member_) {
      --members_with_capacity_;
      total_tasks_ -= count;
      total_per_member_ = TasksPerMember(total_tasks_, members_with_capacity_);
    }
  }

  // The least-loaded process (ties: the smallest id), skipping those that already have
  // `without` (Kafka's priority queue, polled until one lacks the task).
  Process* LeastLoaded(const std::optional<TaskId>& without) {
    Process* best = nullptr;
    for (auto& [id, p] : processes_) {
      if (without && p.HasTask(*without)) continue;
      if (best == nullptr || p.load() < best->load()) best = &p;
    }
    return best;
  }

  // Kafka's findPrevMemberWithLeastLoad: the first candidate, replaced only by one whose
  // process load and member load are both lower; with `standby_task`, processes that already
  // have it are skipped.
  std::optional<Member> PrevMemberWithLeastLoad(const std::vector<Member>& members,
                                                const std::optional<TaskId>& standby_task) {
    std::optional<Member> candidate;
    double process_load = std::numeric_limits<double>::max();
    double member_load = std::numeric_limits<double>::max();
    for (const auto& m : members) {
      const Process& process = processes_.at(m.process_id);
      if (standby_task && process.HasTask(*standby_task)) continue;
      const double pl = process.load();
      const double ml = process.MemberTaskCount(m.member_id);
      if (!candidate || (pl < process_load && ml < member_load)) {
        process_load = pl;
        member_load = ml;
        candidate = m;
      }
    }
    return candidate;
  }

  const StreamsAssignmentSpec& spec_;
  int num_standby_ = 0;
  int total_active_ = 0;
  int total_tasks_ = 0;
  int members_with_active_capacity_ = 0;
  int members_with_capacity_ = 0;
  int active_per_member_ = 0;
  int total_per_member_ = 0;
  std::map<std::string, Process> processes_;
  std::map<TaskId, Member> prev_active_;
  std::map<TaskId, std::vector<Member>> prev_standby_;
};

}  // namespace

Result<StreamsGroupAssignment> AssignStreamsTasksSticky(const StreamsAssignmentSpec& spec) {
  Sticky sticky(spec);
  SEGLOG_RETURN_IF_ERROR(sticky.AssignActive());
  sticky.AssignStandby();
  return sticky.Build();
}

void SetStreamsAssignmentTopology(const ConfiguredStreamsTopology& topology,
                                  StreamsAssignmentSpec* spec) {
  spec->subtopology_tasks.clear();
  spec->stateful_subtopologies.clear();
  if (!topology.subtopologies) return;
  for (const auto& [id, s] : *topology.subtopologies) {
    spec->subtopology_tasks[id] = s.number_of_tasks;
    if (s.stateful()) spec->stateful_subtopologies.insert(id);
  }
}

}  // namespace seglog
