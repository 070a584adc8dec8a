// Replaying streams-group records; see streams_group_load.h.
#include "group/streams_group_load.h"

#include <fmt/format.h>

#include <utility>

namespace seglog {

namespace {

// Whether `m` names an active task that another member of `g` holds (the member's own
// previous tasks excepted): UpdateMember would refuse it.
bool ActiveTaskHeldByAnother(const StreamsGroup& g, const StreamsGroupMember& m) {
  const StreamsGroupMember* old = g.FindMember(m.member_id);
  auto had = [old](const std::string& sub, int32_t p) {
    if (old == nullptr) return false;
    for (const StreamsEpochTasks* set :
         {&old->assigned_tasks.active, &old->tasks_pending_revocation.active}) {
      auto s = set->find(sub);
      if (s != set->end() && s->second.contains(p)) return true;
    }
    return false;
  };
  const StreamsTaskOwners owners = g.Owners();
  for (const StreamsEpochTasks* set :
       {&m.assigned_tasks.active, &m.tasks_pending_revocation.active}) {
    for (const auto& [sub, parts] : *set) {
      for (const auto& [p, epoch] : parts) {
        if (owners.active_process(sub, p).has_value() && !had(sub, p)) return true;
      }
    }
  }
  // The same task both assigned and pending revocation.
  for (const auto& [sub, parts] : m.tasks_pending_revocation.active) {
    auto s = m.assigned_tasks.active.find(sub);
    if (s == m.assigned_tasks.active.end()) continue;
    for (const auto& [p, epoch] : parts) {
      if (s->second.contains(p)) return true;
    }
  }
  return false;
}

}  // namespace

std::string ReplayStreamsGroupRecord(const LoadedStreamsGroupRecord& record,
                                     const StreamsGroupReplayTarget& target) {
  if (const auto* md = std::get_if<LoadedStreamsGroupMetadata>(&record)) {
    if (!md->value) {
      target.remove_group(md->group);
      return "";
    }
    StreamsGroup* g = target.group(md->group, true);
    g->set_group_epoch(md->value->epoch);
    g->set_metadata_hash(md->value->metadata_hash);
    g->set_validated_topology_epoch(md->value->validated_topology_epoch);
    g->set_last_assignment_configs(md->value->last_assignment_configs);
  } else if (const auto* mm = std::get_if<LoadedStreamsGroupMemberMetadata>(&record)) {
    if (!mm->value) {
      if (StreamsGroup* g = target.group(mm->group, false)) g->RemoveMember(mm->member_id);
      return "";
    }
    StreamsGroup* g = target.group(mm->group, true);
    StreamsGroupMember m = *mm->value;
    if (const StreamsGroupMember* old = g->FindMember(mm->member_id)) {
      m.member_epoch = old->member_epoch;
      m.previous_member_epoch = old->previous_member_epoch;
      m.state = old->state;
      m.assigned_tasks = old->assigned_tasks;
      m.tasks_pending_revocation = old->tasks_pending_revocation;
    }
    g->UpdateMember(std::move(m));
  } else if (const auto* tm = std::get_if<LoadedStreamsGroupTargetAssignmentMetadata>(&record)) {
    if (!tm->value) return "";
    StreamsGroup* g = target.group(tm->group, true);
    g->set_assignment_epoch(tm->value->assignment_epoch);
    g->set_assignment_timestamp_ms(tm->value->timestamp_ms);
  } else if (const auto* tmm = std::get_if<LoadedStreamsGroupTargetAssignmentMember>(&record)) {
    if (!tmm->value) {
      if (StreamsGroup* g = target.group(tmm->group, false)) g->RemoveTarget(tmm->member_id);
      return "";
    }
    target.group(tmm->group, true)->SetTarget(tmm->member_id, *tmm->value);
  } else if (const auto* ca = std::get_if<LoadedStreamsGroupCurrentMemberAssignment>(&record)) {
    StreamsGroup* g = target.group(ca->group, ca->value.has_value());
    if (g == nullptr) return "";
    StreamsGroupMember m;
    if (const StreamsGroupMember* old = g->FindMember(ca->member_id)) {
      m = *old;
    } else if (!ca->value) {
      return "";
    }
    m.member_id = ca->member_id;
    if (ca->value) {
      m.member_epoch = ca->value->member_epoch;
      m.previous_member_epoch = ca->value->previous_member_epoch;
      m.state = ca->value->state;
      m.assigned_tasks = ca->value->assigned_tasks;
      m.tasks_pending_revocation = ca->value->tasks_pending_revocation;
    } else {
      // The member is on its way out (its metadata tombstone follows): nothing assigned.
      m.member_epoch = -1;
      m.previous_member_epoch = -1;
      m.state = StreamsMemberState::kStable;
      m.assigned_tasks = {};
      m.tasks_pending_revocation = {};
    }
    if (ActiveTaskHeldByAnother(*g, m)) {
      return fmt::format(
          "Skipping the current assignment of member {} of streams group {}: it names active "
          "tasks another member has",
          m.member_id, g->group_id());
    }
    g->UpdateMember(std::move(m));
  } else if (const auto* tp = std::get_if<LoadedStreamsGroupTopology>(&record)) {
    if (!tp->value) {
      if (StreamsGroup* g = target.group(tp->group, false)) {
        g->SetTopology(std::nullopt);
        g->SetConfiguredTopology(std::nullopt);
      }
      return "";
    }
    StreamsGroup* g = target.group(tp->group, true);
    g->SetTopology(*tp->value);
    g->SetConfiguredTopology(std::nullopt);
  }
  // IgnoredStreamsGroupRecord (type 18): nothing.
  return "";
}

}  // namespace seglog
