// ClassicGroup; see classic_group.h.
#include "group/classic_group.h"

#include <algorithm>

namespace seglog {

std::string_view ClassicGroupStateName(ClassicGroupState state) {
  switch (state) {
    case ClassicGroupState::kEmpty:
      return "Empty";
    case ClassicGroupState::kPreparingRebalance:
      return "PreparingRebalance";
    case ClassicGroupState::kCompletingRebalance:
      return "CompletingRebalance";
    case ClassicGroupState::kStable:
      return "Stable";
    case ClassicGroupState::kDead:
      return "Dead";
  }
  return "Dead";
}

const std::vector<uint8_t>* ClassicGroupMember::MetadataFor(std::string_view protocol) const {
  for (const Protocol& p : protocols) {
    if (p.name == protocol) return &p.metadata;
  }
  return nullptr;
}

ClassicGroup::ClassicGroup(std::string group_id, int64_t now_ms)
    : group_id_(std::move(group_id)), state_timestamp_(now_ms) {}

bool ClassicGroup::CanTransitionTo(ClassicGroupState next) const {
  using S = ClassicGroupState;
  switch (next) {
    case S::kEmpty:
      return state_ == S::kPreparingRebalance;
    case S::kPreparingRebalance:
      return state_ == S::kStable || state_ == S::kCompletingRebalance || state_ == S::kEmpty;
    case S::kCompletingRebalance:
      return state_ == S::kPreparingRebalance;
    case S::kStable:
      return state_ == S::kCompletingRebalance;
    case S::kDead:
      return true;
  }
  return false;
}

bool ClassicGroup::TransitionTo(ClassicGroupState next, int64_t now_ms) {
  if (!CanTransitionTo(next)) return false;
  previous_state_ = state_;
  state_ = next;
  state_timestamp_ = now_ms;
  return true;
}

ClassicGroupMember* ClassicGroup::FindMember(std::string_view member_id) {
  auto it = members_.find(std::string(member_id));
  return it == members_.end() ? nullptr : &it->second;
}

void ClassicGroup::Add(ClassicGroupMember member) {
  if (members_.empty()) protocol_type_ = member.protocol_type;
  if (!leader_id_) leader_id_ = member.member_id;
  if (member.group_instance_id) static_members_[*member.group_instance_id] = member.member_id;
  const std::string id = member.member_id;
  members_[id] = std::move(member);
}

std::optional<ClassicGroupMember> ClassicGroup::Remove(std::string_view member_id) {
  auto it = members_.find(std::string(member_id));
  if (it == members_.end()) return std::nullopt;
  ClassicGroupMember removed = std::move(it->second);
  members_.erase(it);
  if (removed.group_instance_id) {
    auto s = static_members_.find(*removed.group_instance_id);
    if (s != static_members_.end() && s->second == removed.member_id) static_members_.erase(s);
  }
  pending_sync_.erase(removed.member_id);
  if (leader_id_ == removed.member_id) {
    leader_id_ =
        members_.empty() ? std::nullopt : std::optional<std::string>(members_.begin()->first);
  }
  return removed;
}

std::optional<std::string> ClassicGroup::StaticMemberId(std::string_view instance_id) const {
  auto it = static_members_.find(std::string(instance_id));
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

ClassicGroup::Replaced ClassicGroup::ReplaceStaticMember(std::string_view instance_id,
                                                         std::string_view old_member_id,
                                                         const std::string& new_member_id) {
  Replaced out;
  auto it = members_.find(std::string(old_member_id));
  if (it == members_.end()) return out;
  ClassicGroupMember m = std::move(it->second);
  members_.erase(it);
  out.awaiting_join = std::move(m.awaiting_join);
  out.awaiting_sync = std::move(m.awaiting_sync);
  m.awaiting_join = nullptr;
  m.awaiting_sync = nullptr;
  m.member_id = new_member_id;
  pending_sync_.erase(std::string(old_member_id));
  if (leader_id_ == old_member_id) leader_id_ = new_member_id;
  static_members_[std::string(instance_id)] = new_member_id;
  members_[new_member_id] = std::move(m);
  return out;
}

int ClassicGroup::NumAwaitingJoinResponse() const {
  int n = 0;
  for (const auto& [id, m] : members_) n += m.awaiting_join_response() ? 1 : 0;
  return n;
}

int32_t ClassicGroup::RebalanceTimeoutMs() const {
  int32_t t = 0;
  for (const auto& [id, m] : members_) t = std::max(t, m.rebalance_timeout_ms);
  return t;
}

bool ClassicGroup::SupportsProtocols(std::string_view protocol_type,
                                     const std::vector<std::string>& protocol_names) const {
  if (members_.empty()) return !protocol_type.empty() && !protocol_names.empty();
  if (protocol_type_.value_or("") != protocol_type) return false;
  for (const std::string& name : protocol_names) {
    bool everyone = true;
    for (const auto& [id, m] : members_) {
      if (m.MetadataFor(name) == nullptr) {
        everyone = false;
        break;
      }
    }
    if (everyone) return true;
  }
  return false;
}

std::string ClassicGroup::SelectProtocol() const {
  // The candidates: supported by every member, in the order the first member lists them.
  std::vector<std::string> candidates;
  if (members_.empty()) return "";
  for (const auto& p : members_.begin()->second.protocols) {
    bool everyone = true;
    for (const auto& [id, m] : members_) everyone = everyone && m.MetadataFor(p.name) != nullptr;
    if (everyone) candidates.push_back(p.name);
  }
  // Each member votes for the first candidate in its own preference order.
  std::map<std::string, int> votes;
  for (const auto& [id, m] : members_) {
    for (const auto& p : m.protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best;
  int most = -1;
  for (const std::string& c : candidates) {  // ties: the first member's preference
    if (votes[c] > most) {
      most = votes[c];
      best = c;
    }
  }
  return best;
}

void ClassicGroup::InitNextGeneration(int64_t now_ms) {
  ++generation_;
  if (!members_.empty()) {
    protocol_name_ = SelectProtocol();
    TransitionTo(ClassicGroupState::kCompletingRebalance, now_ms);
  } else {
    protocol_name_ = std::nullopt;
    TransitionTo(ClassicGroupState::kEmpty, now_ms);
  }
}

bool ClassicGroup::MaybeElectNewJoinedLeader() {
  if (leader_id_) {
    const ClassicGroupMember* leader = FindMember(*leader_id_);
    if (leader != nullptr && leader->awaiting_join_response()) return true;
  }
  for (const auto& [id, m] : members_) {
    if (m.awaiting_join_response()) {
      leader_id_ = id;
      return true;
    }
  }
  return false;
}

void ClassicGroup::RestoreFromRecord(int32_t generation, std::optional<std::string> protocol_type,
                                     std::optional<std::string> protocol_name,
                                     std::optional<std::string> leader_id, int64_t state_timestamp,
                                     std::vector<ClassicGroupMember> members) {
  generation_ = generation;
  protocol_type_ = std::move(protocol_type);
  protocol_name_ = std::move(protocol_name);
  leader_id_ = std::move(leader_id);
  members_.clear();
  static_members_.clear();
  pending_members_.clear();
  pending_sync_.clear();
  for (ClassicGroupMember& m : members) {
    if (m.group_instance_id) static_members_[*m.group_instance_id] = m.member_id;
    const std::string id = m.member_id;
    members_[id] = std::move(m);
  }
  previous_state_ = ClassicGroupState::kEmpty;
  state_ = members_.empty() ? ClassicGroupState::kEmpty : ClassicGroupState::kStable;
  state_timestamp_ = state_timestamp;
}

}  // namespace seglog
