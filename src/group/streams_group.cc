// One streams group and its members' reconciliation; see streams_group.h.
#include "group/streams_group.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace seglog {

namespace {

StreamsTaskSet KeysOf(const StreamsEpochTasks& tasks) {
  StreamsTaskSet out;
  for (const auto& [sub, parts] : tasks) {
    for (const auto& [p, epoch] : parts) out[sub].insert(p);
  }
  return out;
}

bool ContainsAny(const StreamsTaskSet& owned, const StreamsTaskSet& tasks) {
  for (const auto& [sub, parts] : tasks) {
    auto it = owned.find(sub);
    if (it == owned.end()) continue;
    for (int32_t p : parts) {
      if (it->second.contains(p)) return true;
    }
  }
  return false;
}

// TasksTuple.containsAny: any active task of `b` in `a`'s active tasks, and so on per role.
bool ContainsAny(const StreamsTasks& owned, const StreamsTasksWithEpochs& tasks) {
  return ContainsAny(owned.active, KeysOf(tasks.active)) ||
         ContainsAny(owned.standby, tasks.standby) || ContainsAny(owned.warmup, tasks.warmup);
}

// One role's difference (computeAssignmentDifference): `kept` = current ∩ target,
// `revoke` = current - target, `assign` = target - current - unreleased. Returns whether some
// task was unreleased.
template <typename Unreleased>
bool Difference(const StreamsTaskSet& current, const StreamsTaskSet& target, StreamsTaskSet* kept,
                StreamsTaskSet* revoke, StreamsTaskSet* assign, const Unreleased& unreleased) {
  bool has_unreleased = false;
  std::set<std::string> subs;
  for (const auto& [s, p] : current) subs.insert(s);
  for (const auto& [s, p] : target) subs.insert(s);
  static const std::set<int32_t> kNone;
  for (const auto& sub : subs) {
    auto c = current.find(sub);
    auto t = target.find(sub);
    const std::set<int32_t>& cur = c == current.end() ? kNone : c->second;
    const std::set<int32_t>& tgt = t == target.end() ? kNone : t->second;
    for (int32_t p : cur) {
      if (tgt.contains(p)) {
        (*kept)[sub].insert(p);
      } else {
        (*revoke)[sub].insert(p);
      }
    }
    for (int32_t p : tgt) {
      if (cur.contains(p)) continue;
      if (unreleased(sub, p)) {
        has_unreleased = true;
      } else {
        (*assign)[sub].insert(p);
      }
    }
  }
  return has_unreleased;
}

// The active tasks of `tasks` with their epochs from `epochs`, `epoch` for new ones.
StreamsEpochTasks WithEpochs(const StreamsTaskSet& tasks, const StreamsEpochTasks& epochs,
                             int32_t epoch) {
  StreamsEpochTasks out;
  for (const auto& [sub, parts] : tasks) {
    auto s = epochs.find(sub);
    for (int32_t p : parts) {
      int32_t e = epoch;
      if (s != epochs.end()) {
        auto it = s->second.find(p);
        if (it != s->second.end()) e = it->second;
      }
      out[sub][p] = e;
    }
  }
  return out;
}

void Merge(StreamsTaskSet* into, const StreamsTaskSet& from) {
  for (const auto& [sub, parts] : from) (*into)[sub].insert(parts.begin(), parts.end());
}

}  // namespace

StreamsTasks StreamsTasksWithEpochs::Tasks() const {
  return StreamsTasks{KeysOf(active), standby, warmup};
}

std::string_view StreamsMemberStateName(StreamsMemberState state) {
  switch (state) {
    case StreamsMemberState::kStable:
      return "STABLE";
    case StreamsMemberState::kUnrevokedTasks:
      return "UNREVOKED_TASKS";
    case StreamsMemberState::kUnreleasedTasks:
      return "UNRELEASED_TASKS";
    case StreamsMemberState::kUnknown:
      break;
  }
  return "UNKNOWN";
}

StreamsMemberState StreamsMemberStateFromValue(int8_t value) {
  switch (value) {
    case 0:
      return StreamsMemberState::kStable;
    case 1:
      return StreamsMemberState::kUnrevokedTasks;
    case 2:
      return StreamsMemberState::kUnreleasedTasks;
    default:
      return StreamsMemberState::kUnknown;
  }
}

std::string_view StreamsGroupStateName(StreamsGroupState state) {
  switch (state) {
    case StreamsGroupState::kEmpty:
      return "Empty";
    case StreamsGroupState::kNotReady:
      return "NotReady";
    case StreamsGroupState::kAssigning:
      return "Assigning";
    case StreamsGroupState::kReconciling:
      return "Reconciling";
    case StreamsGroupState::kStable:
      return "Stable";
    case StreamsGroupState::kDead:
      break;
  }
  return "Dead";
}

Result<StreamsGroupMember> ReconcileStreamsMember(const StreamsGroupMember& member,
                                                  int32_t target_epoch, const StreamsTasks& target,
                                                  const std::optional<StreamsTasks>& owned,
                                                  const StreamsTaskOwners& owners) {
  auto next = [&](int32_t member_epoch) -> StreamsGroupMember {
    const StreamsTasks current = member.assigned_tasks.Tasks();
    const std::string& process = member.process_id;
    StreamsTasks kept;
    StreamsTasks revoke;
    StreamsTasks assign;
    auto held_on_process = [&](const std::string& sub, int32_t p) {
      return owners.standby_processes(sub, p).contains(process) ||
             owners.warmup_processes(sub, p).contains(process);
    };
    bool unreleased =
        Difference(current.active, target.active, &kept.active, &revoke.active, &assign.active,
                   [&](const std::string& sub, int32_t p) {
                     return owners.active_process(sub, p).has_value() || held_on_process(sub, p);
                   });
    auto same_process = [&](const std::string& sub, int32_t p) {
      return owners.active_process(sub, p) == process || held_on_process(sub, p);
    };
    unreleased |= Difference(current.standby, target.standby, &kept.standby, &revoke.standby,
                             &assign.standby, same_process);
    unreleased |= Difference(current.warmup, target.warmup, &kept.warmup, &revoke.warmup,
                             &assign.warmup, same_process);

    StreamsGroupMember out = member;
    auto set_epoch = [&](int32_t epoch) {
      out.previous_member_epoch = member.member_epoch;
      out.member_epoch = epoch;
    };
    const bool to_revoke =
        !revoke.empty() &&
        (!owned || ContainsAny(*owned, StreamsTasksWithEpochs{
                                           WithEpochs(revoke.active, member.assigned_tasks.active,
                                                      member_epoch),
                                           revoke.standby, revoke.warmup}));
    if (to_revoke) {
      out.state = StreamsMemberState::kUnrevokedTasks;
      set_epoch(member_epoch);
      out.assigned_tasks = StreamsTasksWithEpochs{
          WithEpochs(kept.active, member.assigned_tasks.active, member_epoch), kept.standby,
          kept.warmup};
      out.tasks_pending_revocation = StreamsTasksWithEpochs{
          WithEpochs(revoke.active, member.assigned_tasks.active, member_epoch), revoke.standby,
          revoke.warmup};
      return out;
    }
    if (!assign.empty()) {
      out.state = unreleased ? StreamsMemberState::kUnreleasedTasks : StreamsMemberState::kStable;
      set_epoch(target_epoch);
      StreamsTasks all = kept;
      Merge(&all.active, assign.active);
      Merge(&all.standby, assign.standby);
      Merge(&all.warmup, assign.warmup);
      out.assigned_tasks =
          StreamsTasksWithEpochs{WithEpochs(all.active, member.assigned_tasks.active, target_epoch),
                                 all.standby, all.warmup};
      out.tasks_pending_revocation = {};
      return out;
    }
    out.state = unreleased ? StreamsMemberState::kUnreleasedTasks : StreamsMemberState::kStable;
    set_epoch(target_epoch);
    out.assigned_tasks =
        StreamsTasksWithEpochs{WithEpochs(kept.active, member.assigned_tasks.active, target_epoch),
                               kept.standby, kept.warmup};
    out.tasks_pending_revocation = {};
    return out;
  };

  switch (member.state) {
    case StreamsMemberState::kStable:
      if (member.member_epoch != target_epoch) return next(member.member_epoch);
      return member;
    case StreamsMemberState::kUnrevokedTasks:
      if (!owned || ContainsAny(*owned, member.tasks_pending_revocation)) return member;
      return next(member.member_epoch + 1);
    case StreamsMemberState::kUnreleasedTasks:
      return next(member.member_epoch);
    case StreamsMemberState::kUnknown:
      if (!owned || !owned->empty()) {
        return Status::InvalidArgument(
            "FENCED_MEMBER_EPOCH: The streams group member is in a unknown state. The member "
            "must abandon all its tasks and rejoin.");
      }
      return next(target_epoch);
  }
  return member;
}

StreamsGroupState StreamsGroup::state() const {
  if (dead_) return StreamsGroupState::kDead;
  if (members_.empty()) return StreamsGroupState::kEmpty;
  if (!topology_ || topology_->epoch != validated_topology_epoch_) {
    return StreamsGroupState::kNotReady;
  }
  if (group_epoch_ > assignment_epoch_) return StreamsGroupState::kAssigning;
  for (const auto& [id, m] : members_) {
    if (m.member_epoch != assignment_epoch_ || m.state != StreamsMemberState::kStable) {
      return StreamsGroupState::kReconciling;
    }
  }
  return StreamsGroupState::kStable;
}

const StreamsGroupMember* StreamsGroup::FindMember(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

std::optional<std::string> StreamsGroup::StaticMemberId(const std::string& instance_id) const {
  auto it = static_members_.find(instance_id);
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

void StreamsGroup::AddOwners(const StreamsGroupMember& m) {
  auto add_active = [&](const StreamsEpochTasks& tasks) {
    for (const auto& [sub, parts] : tasks) {
      for (const auto& [p, epoch] : parts) {
        auto [it, inserted] = active_owner_.try_emplace({sub, p}, m.process_id);
        if (!inserted) {
          // Invariant: an active task has one owner (Kafka: IllegalStateException).
          std::fprintf(stderr,
                       "StreamsGroup %s: active task %s-%d of member %s is already owned by "
                       "process %s\n",
                       group_id_.c_str(), sub.c_str(), p, m.member_id.c_str(), it->second.c_str());
          std::abort();
        }
      }
    }
  };
  auto add_set = [&](const StreamsTaskSet& tasks,
                     std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>* idx) {
    for (const auto& [sub, parts] : tasks) {
      for (int32_t p : parts) ++(*idx)[{sub, p}][m.process_id];
    }
  };
  add_active(m.assigned_tasks.active);
  add_active(m.tasks_pending_revocation.active);
  add_set(m.assigned_tasks.standby, &standby_owners_);
  add_set(m.tasks_pending_revocation.standby, &standby_owners_);
  add_set(m.assigned_tasks.warmup, &warmup_owners_);
  add_set(m.tasks_pending_revocation.warmup, &warmup_owners_);
}

void StreamsGroup::RemoveOwners(const StreamsGroupMember& m) {
  auto remove_active = [&](const StreamsEpochTasks& tasks) {
    for (const auto& [sub, parts] : tasks) {
      for (const auto& [p, epoch] : parts) active_owner_.erase({sub, p});
    }
  };
  auto remove_set =
      [&](const StreamsTaskSet& tasks,
          std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>* idx) {
        for (const auto& [sub, parts] : tasks) {
          for (int32_t p : parts) {
            auto it = idx->find({sub, p});
            if (it == idx->end()) continue;
            auto pit = it->second.find(m.process_id);
            if (pit != it->second.end() && --pit->second <= 0) it->second.erase(pit);
            if (it->second.empty()) idx->erase(it);
          }
        }
      };
  remove_active(m.assigned_tasks.active);
  remove_active(m.tasks_pending_revocation.active);
  remove_set(m.assigned_tasks.standby, &standby_owners_);
  remove_set(m.tasks_pending_revocation.standby, &standby_owners_);
  remove_set(m.assigned_tasks.warmup, &warmup_owners_);
  remove_set(m.tasks_pending_revocation.warmup, &warmup_owners_);
}

void StreamsGroup::UpdateMember(StreamsGroupMember member) {
  auto it = members_.find(member.member_id);
  if (it != members_.end()) {
    RemoveOwners(it->second);
    if (it->second.instance_id) static_members_.erase(*it->second.instance_id);
  }
  AddOwners(member);
  if (member.instance_id) static_members_[*member.instance_id] = member.member_id;
  std::string id = member.member_id;
  members_.insert_or_assign(std::move(id), std::move(member));
}

void StreamsGroup::RemoveMember(const std::string& member_id) {
  auto it = members_.find(member_id);
  if (it == members_.end()) return;
  RemoveOwners(it->second);
  if (it->second.instance_id) {
    auto s = static_members_.find(*it->second.instance_id);
    if (s != static_members_.end() && s->second == member_id) static_members_.erase(s);
  }
  members_.erase(it);
  task_offsets_.erase(member_id);
  // As Kafka's maybeUpdateGroupState: an empty group forgets the shutdown request.
  if (members_.empty()) shutdown_request_member_id_.reset();
}

const StreamsMemberTaskOffsets& StreamsGroup::TaskOffsetsOf(const std::string& member_id) const {
  static const StreamsMemberTaskOffsets kNone;
  auto it = task_offsets_.find(member_id);
  return it == task_offsets_.end() ? kNone : it->second;
}

void StreamsGroup::SetTaskOffsets(const std::string& member_id, StreamsMemberTaskOffsets offsets) {
  task_offsets_[member_id] = std::move(offsets);
}

const StreamsTasks& StreamsGroup::TargetOf(const std::string& member_id) const {
  static const StreamsTasks kEmpty;
  auto it = targets_.find(member_id);
  return it == targets_.end() ? kEmpty : it->second;
}

void StreamsGroup::SetTarget(const std::string& member_id, StreamsTasks target) {
  targets_[member_id] = std::move(target);
}

void StreamsGroup::RemoveTarget(const std::string& member_id) { targets_.erase(member_id); }

StreamsTaskOwners StreamsGroup::Owners() const {
  StreamsTaskOwners o;
  o.active_process = [this](const std::string& sub, int32_t p) -> std::optional<std::string> {
    auto it = active_owner_.find({sub, p});
    if (it == active_owner_.end()) return std::nullopt;
    return it->second;
  };
  auto processes =
      [](const std::map<std::pair<std::string, int32_t>, std::map<std::string, int>>& idx,
         const std::string& sub, int32_t p) {
        std::set<std::string> out;
        auto it = idx.find({sub, p});
        if (it != idx.end()) {
          for (const auto& [process, n] : it->second) out.insert(process);
        }
        return out;
      };
  o.standby_processes = [this, processes](const std::string& sub, int32_t p) {
    return processes(standby_owners_, sub, p);
  };
  o.warmup_processes = [this, processes](const std::string& sub, int32_t p) {
    return processes(warmup_owners_, sub, p);
  };
  return o;
}

}  // namespace seglog
