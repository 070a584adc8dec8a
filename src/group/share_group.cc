// ShareGroup; see share_group.h. The bookkeeping follows Kafka 4.4.0's ShareGroup and
// ModernGroup.
#include "group/share_group.h"

namespace seglog {

std::string_view ShareGroupStateName(ShareGroupState state) {
  switch (state) {
    case ShareGroupState::kEmpty:
      return "Empty";
    case ShareGroupState::kStable:
      return "Stable";
    case ShareGroupState::kDead:
      return "Dead";
  }
  return "Unknown";
}

ShareGroupState ShareGroup::state() const {
  if (dead_) return ShareGroupState::kDead;
  return members_.empty() ? ShareGroupState::kEmpty : ShareGroupState::kStable;
}

const ShareGroupMember* ShareGroup::FindMember(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

void ShareGroup::UpdateMember(ShareGroupMember member) {
  RemoveMember(member.member_id);
  for (const std::string& t : member.subscribed_topic_names) ++subscribed_names_[t];
  std::string id = member.member_id;
  members_.emplace(std::move(id), std::move(member));
}

void ShareGroup::RemoveMember(const std::string& member_id) {
  auto it = members_.find(member_id);
  if (it == members_.end()) return;
  for (const std::string& t : it->second.subscribed_topic_names) {
    auto c = subscribed_names_.find(t);
    if (c != subscribed_names_.end() && --c->second <= 0) subscribed_names_.erase(c);
  }
  members_.erase(it);
}

const TopicPartitions& ShareGroup::TargetOf(const std::string& member_id) const {
  static const TopicPartitions kNone;
  auto it = targets_.find(member_id);
  return it == targets_.end() ? kNone : it->second;
}

void ShareGroup::SetTarget(const std::string& member_id, TopicPartitions target) {
  targets_[member_id] = std::move(target);
}

void ShareGroup::RemoveTarget(const std::string& member_id) { targets_.erase(member_id); }

bool ShareGroup::Homogeneous() const {
  for (const auto& [name, count] : subscribed_names_) {
    if (count != static_cast<int>(members_.size())) return false;
  }
  return true;
}

TopicPartitions ShareGroup::InitializedPartitions() const {
  TopicPartitions out;
  if (!state_partitions_) return out;
  for (const auto& [id, t] : state_partitions_->initialized) {
    if (!t.partitions.empty()) out[id] = t.partitions;
  }
  return out;
}

}  // namespace seglog
