// ConsumerGroup and ReconcileMember; see consumer_group.h. The reconciliation follows Kafka
// 4.4.0's CurrentAssignmentBuilder, the bookkeeping its ConsumerGroup and ModernGroup.
#include "group/consumer_group.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

namespace seglog {

std::string_view ConsumerMemberStateName(ConsumerMemberState state) {
  switch (state) {
    case ConsumerMemberState::kStable:
      return "STABLE";
    case ConsumerMemberState::kUnrevokedPartitions:
      return "UNREVOKED_PARTITIONS";
    case ConsumerMemberState::kUnreleasedPartitions:
      return "UNRELEASED_PARTITIONS";
    case ConsumerMemberState::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

ConsumerMemberState ConsumerMemberStateFromValue(int8_t value) {
  switch (value) {
    case 0:
      return ConsumerMemberState::kStable;
    case 1:
      return ConsumerMemberState::kUnrevokedPartitions;
    case 2:
      return ConsumerMemberState::kUnreleasedPartitions;
    default:
      return ConsumerMemberState::kUnknown;  // MemberState.fromValue: any other byte
  }
}

TopicPartitions PartitionsOf(const EpochPartitions& p) {
  TopicPartitions out;
  for (const auto& [topic, partitions] : p) {
    if (partitions.empty()) continue;
    std::set<int32_t>& s = out[topic];
    for (const auto& entry : partitions) s.insert(entry.first);
  }
  return out;
}

std::string_view ConsumerGroupStateName(ConsumerGroupState state) {
  switch (state) {
    case ConsumerGroupState::kEmpty:
      return "Empty";
    case ConsumerGroupState::kAssigning:
      return "Assigning";
    case ConsumerGroupState::kReconciling:
      return "Reconciling";
    case ConsumerGroupState::kStable:
      return "Stable";
    case ConsumerGroupState::kDead:
      return "Dead";
  }
  return "Dead";
}

bool IsFencedMemberEpoch(const Status& s) {
  return s.IsInvalidArgument() && s.message().starts_with(kFencedMemberEpochPrefix);
}

namespace {

// One run of CurrentAssignmentBuilder.build over `member`.
class Reconciler {
 public:
  Reconciler(const ConsumerGroupMember& member, const ReconcileInput& in,
             const std::function<int32_t(const Uuid&, int32_t)>& current_partition_epoch)
      : member_(member), in_(in), current_partition_epoch_(current_partition_epoch) {}

  Result<ConsumerGroupMember> Build() const {
    switch (member_.state) {
      case ConsumerMemberState::kStable:
        // A newer target: reconcile towards it. Otherwise keep the assignment consistent with
        // the subscription when it changed.
        if (member_.member_epoch != in_.target_epoch) {
          return ComputeNextAssignment(member_.member_epoch);
        }
        if (in_.enforce_subscription_consistency) {
          return UpdateCurrentAssignment(member_.member_epoch);
        }
        return member_;

      case ConsumerMemberState::kUnrevokedPartitions:
        // Wait until the heartbeat no longer lists the partitions pending revocation; more may
        // join them when the subscription changed.
        if (OwnsRevokedPartitions(member_.partitions_pending_revocation)) {
          if (in_.enforce_subscription_consistency) {
            return UpdateCurrentAssignment(member_.member_epoch);
          }
          return member_;
        }
        return ComputeNextAssignment(member_.member_epoch);

      case ConsumerMemberState::kUnreleasedPartitions:
        // Hands over any of the unreleased partitions that are free now.
        return ComputeNextAssignment(member_.member_epoch);

      case ConsumerMemberState::kUnknown:
        // A state a newer build wrote (then the coordinator was downgraded): fence the member
        // unless it has let everything go, so that it rejoins and is reconciled from scratch.
        if (!in_.owned.has_value() || !in_.owned->empty()) {
          return Status::InvalidArgument(fmt::format(
              "{}The consumer group member is in a unknown state. The member must abandon all "
              "its partitions and rejoin.",
              kFencedMemberEpochPrefix));
        }
        return ComputeNextAssignment(in_.target_epoch);
    }
    return member_;
  }

 private:
  // Kafka's ownsRevokedPartitions: whether the heartbeat's owned partitions include any of
  // `revoked`. A heartbeat that did not say (nullopt) still owns them all.
  bool OwnsRevokedPartitions(const EpochPartitions& revoked) const {
    if (!in_.owned.has_value()) return true;
    for (const auto& [topic, partitions] : *in_.owned) {
      auto it = revoked.find(topic);
      if (it == revoked.end()) continue;
      for (int32_t partition : partitions) {
        if (it->second.count(partition) != 0) return true;
      }
    }
    return false;
  }

  bool Subscribed(const Uuid& topic) const { return in_.subscribed_topic_ids.count(topic) != 0; }

  // The member with its epoch moved to `epoch` the way Kafka's Builder.updateMemberEpoch does:
  // the previous epoch becomes the current one, even when `epoch` is the same.
  ConsumerGroupMember WithEpoch(int32_t epoch) const {
    ConsumerGroupMember next = member_;
    next.previous_member_epoch = member_.member_epoch;
    next.member_epoch = epoch;
    return next;
  }

  // Kafka's updateCurrentAssignment: moves the assigned partitions of topics the member no
  // longer subscribes to into pending revocation, without looking at the target.
  ConsumerGroupMember UpdateCurrentAssignment(int32_t member_epoch) const {
    EpochPartitions assigned = member_.assigned_partitions;
    EpochPartitions pending = member_.partitions_pending_revocation;
    bool removed = false;
    for (auto it = assigned.begin(); it != assigned.end();) {
      if (Subscribed(it->first)) {
        ++it;
        continue;
      }
      std::map<int32_t, int32_t>& to = pending[it->first];
      for (const auto& [partition, epoch] : it->second) to[partition] = epoch;
      it = assigned.erase(it);
      removed = true;
    }
    if (!removed) return member_;

    ConsumerGroupMember next = WithEpoch(member_epoch);
    next.assigned_partitions = std::move(assigned);
    if (!pending.empty() && OwnsRevokedPartitions(pending)) {
      next.state = ConsumerMemberState::kUnrevokedPartitions;
      next.partitions_pending_revocation = std::move(pending);
    }
    // Otherwise the member had already let them go: it keeps its state and its partitions
    // pending revocation, with a smaller assignment.
    return next;
  }

  // Kafka's computeNextAssignment, from the member's assigned partitions: keeps what is in the
  // target, revokes the rest, and adds the target's partitions that are free.
  ConsumerGroupMember ComputeNextAssignment(int32_t member_epoch) const {
    TopicIdSet topics;
    for (const auto& entry : in_.target) topics.insert(entry.first);
    for (const auto& entry : member_.assigned_partitions) topics.insert(entry.first);

    static const std::set<int32_t> kNone;
    static const std::map<int32_t, int32_t> kNoEpochs;
    bool has_unreleased = false;
    EpochPartitions assigned;
    EpochPartitions pending_revocation;
    TopicPartitions pending_assignment;
    for (const Uuid& topic : topics) {
      // A topic the member no longer subscribes to has an empty target.
      const std::set<int32_t>* target = &kNone;
      if (Subscribed(topic)) {
        auto t = in_.target.find(topic);
        if (t != in_.target.end()) target = &t->second;
      }
      const std::map<int32_t, int32_t>* current = &kNoEpochs;
      auto c = member_.assigned_partitions.find(topic);
      if (c != member_.assigned_partitions.end()) current = &c->second;
      const std::map<int32_t, int32_t>* own_revoking = &kNoEpochs;
      auto r = member_.partitions_pending_revocation.find(topic);
      if (r != member_.partitions_pending_revocation.end()) own_revoking = &r->second;

      // Assigned = current ∩ target (with their epochs); pending revocation = current - that.
      std::map<int32_t, int32_t> keep;
      std::map<int32_t, int32_t> revoke;
      for (const auto& [partition, epoch] : *current) {
        if (target->count(partition) != 0) {
          keep[partition] = epoch;
        } else {
          revoke[partition] = epoch;
        }
      }
      // Pending assignment = target - assigned - unreleased. A partition is unreleased while
      // another member has it; one this member itself is revoking is not (only one member
      // can have a partition at a time).
      std::set<int32_t> add;
      for (int32_t partition : *target) {
        if (keep.count(partition) != 0) continue;
        if (current_partition_epoch_(topic, partition) != -1 &&
            own_revoking->count(partition) == 0) {
          has_unreleased = true;
          continue;
        }
        add.insert(partition);
      }
      if (!keep.empty()) assigned[topic] = std::move(keep);
      if (!revoke.empty()) pending_revocation[topic] = std::move(revoke);
      if (!add.empty()) pending_assignment[topic] = std::move(add);
    }

    if (!pending_revocation.empty() && OwnsRevokedPartitions(pending_revocation)) {
      // Revocations first: the member stays at its epoch until it has let them go; nothing new
      // is given meanwhile.
      ConsumerGroupMember next = WithEpoch(member_epoch);
      next.state = ConsumerMemberState::kUnrevokedPartitions;
      next.assigned_partitions = std::move(assigned);
      next.partitions_pending_revocation = std::move(pending_revocation);
      return next;
    }
    // The member moves to the target epoch with the free partitions of its target, each
    // assigned at that epoch; it waits in UNRELEASED_PARTITIONS for the others.
    for (const auto& [topic, partitions] : pending_assignment) {
      std::map<int32_t, int32_t>& epochs = assigned[topic];
      for (int32_t partition : partitions) epochs[partition] = in_.target_epoch;
    }
    ConsumerGroupMember next = WithEpoch(in_.target_epoch);
    next.state =
        has_unreleased ? ConsumerMemberState::kUnreleasedPartitions : ConsumerMemberState::kStable;
    next.assigned_partitions = std::move(assigned);
    next.partitions_pending_revocation.clear();
    return next;
  }

  const ConsumerGroupMember& member_;
  const ReconcileInput& in_;
  const std::function<int32_t(const Uuid&, int32_t)>& current_partition_epoch_;
};

}  // namespace

Result<ConsumerGroupMember> ReconcileMember(
    const ConsumerGroupMember& member, const ReconcileInput& in,
    const std::function<int32_t(const Uuid&, int32_t)>& current_partition_epoch) {
  return Reconciler(member, in, current_partition_epoch).Build();
}

ConsumerGroupState ConsumerGroup::state() const {
  if (dead_) return ConsumerGroupState::kDead;
  if (members_.empty()) return ConsumerGroupState::kEmpty;
  if (group_epoch_ > assignment_epoch_) return ConsumerGroupState::kAssigning;
  for (const auto& entry : members_) {
    const ConsumerGroupMember& m = entry.second;
    // Kafka's isReconciledTo.
    if (m.state != ConsumerMemberState::kStable || m.member_epoch != assignment_epoch_) {
      return ConsumerGroupState::kReconciling;
    }
  }
  return ConsumerGroupState::kStable;
}

const ConsumerGroupMember* ConsumerGroup::FindMember(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

std::optional<std::string> ConsumerGroup::StaticMemberId(const std::string& instance_id) const {
  auto it = static_members_.find(instance_id);
  if (it == static_members_.end()) return std::nullopt;
  return it->second;
}

namespace {

void CountNames(std::map<std::string, int>* counts, const std::vector<std::string>& names,
                int delta) {
  for (const std::string& name : names) {
    int& n = (*counts)[name];
    n += delta;
    if (n <= 0) counts->erase(name);
  }
}

void CountRegex(std::map<std::string, int>* counts, const std::optional<std::string>& regex,
                int delta) {
  if (regex && !regex->empty()) CountNames(counts, {*regex}, delta);
}

}  // namespace

void ConsumerGroup::UpdateMember(ConsumerGroupMember member) {
  auto it = members_.find(member.member_id);
  if (it != members_.end()) {
    const ConsumerGroupMember& old = it->second;
    CountNames(&subscribed_names_, old.subscribed_topic_names, -1);
    CountRegex(&subscribed_regexes_, old.subscribed_topic_regex, -1);
    RemoveOwners(old);
    // An instance id that changed (or went away) no longer leads to this member.
    if (old.instance_id && old.instance_id != member.instance_id) {
      auto s = static_members_.find(*old.instance_id);
      if (s != static_members_.end() && s->second == old.member_id) static_members_.erase(s);
    }
  }
  CountNames(&subscribed_names_, member.subscribed_topic_names, +1);
  CountRegex(&subscribed_regexes_, member.subscribed_topic_regex, +1);
  AddOwners(member);
  if (member.instance_id) static_members_[*member.instance_id] = member.member_id;
  const std::string id = member.member_id;
  members_[id] = std::move(member);
}

void ConsumerGroup::RemoveMember(const std::string& member_id) {
  auto it = members_.find(member_id);
  if (it == members_.end()) return;
  const ConsumerGroupMember& old = it->second;
  CountNames(&subscribed_names_, old.subscribed_topic_names, -1);
  CountRegex(&subscribed_regexes_, old.subscribed_topic_regex, -1);
  RemoveOwners(old);
  if (old.instance_id) {
    // Only while the instance id still leads here: a static member that replaced this one
    // keeps its entry.
    auto s = static_members_.find(*old.instance_id);
    if (s != static_members_.end() && s->second == member_id) static_members_.erase(s);
  }
  members_.erase(it);
}

const TopicPartitions& ConsumerGroup::TargetOf(const std::string& member_id) const {
  static const TopicPartitions kEmpty;
  auto it = targets_.find(member_id);
  return it == targets_.end() ? kEmpty : it->second;
}

void ConsumerGroup::SetTarget(const std::string& member_id, TopicPartitions target) {
  targets_[member_id] = std::move(target);
}

void ConsumerGroup::RemoveTarget(const std::string& member_id) { targets_.erase(member_id); }

int32_t ConsumerGroup::CurrentPartitionEpoch(const Uuid& topic, int32_t partition) const {
  auto t = partition_epochs_.find(topic);
  if (t == partition_epochs_.end()) return -1;
  auto p = t->second.find(partition);
  return p == t->second.end() ? -1 : p->second;
}

std::optional<std::string> ConsumerGroup::PreferredServerAssignor() const {
  std::map<std::string, int> counts;
  for (const auto& entry : members_) {
    if (entry.second.server_assignor) ++counts[*entry.second.server_assignor];
  }
  std::optional<std::string> best;
  int best_count = 0;
  for (const auto& [name, count] : counts) {
    if (count > best_count) {  // strictly more: a tie keeps the smaller name
      best = name;
      best_count = count;
    }
  }
  return best;
}

int ConsumerGroup::NumSubscribedMembers(const std::string& regex) const {
  auto it = subscribed_regexes_.find(regex);
  return it == subscribed_regexes_.end() ? 0 : it->second;
}

const ResolvedRegularExpression* ConsumerGroup::FindResolvedRegularExpression(
    const std::string& regex) const {
  auto it = resolved_regexes_.find(regex);
  return it == resolved_regexes_.end() ? nullptr : &it->second;
}

void ConsumerGroup::SetResolvedRegularExpression(const std::string& regex,
                                                 ResolvedRegularExpression r) {
  resolved_regexes_[regex] = std::move(r);
}

void ConsumerGroup::RemoveResolvedRegularExpression(const std::string& regex) {
  resolved_regexes_.erase(regex);
}

int64_t ConsumerGroup::LastRegularExpressionRefreshMs() const {
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const auto& entry : resolved_regexes_) last = std::max(last, entry.second.timestamp_ms);
  return last;
}

int64_t ConsumerGroup::LastResolvedRegularExpressionVersion() const {
  if (resolved_regexes_.empty()) return 0;
  int64_t oldest = std::numeric_limits<int64_t>::max();
  for (const auto& entry : resolved_regexes_) oldest = std::min(oldest, entry.second.version);
  return oldest;
}

std::set<std::string> ConsumerGroup::MemberTopics(const ConsumerGroupMember& member) const {
  std::set<std::string> topics(member.subscribed_topic_names.begin(),
                               member.subscribed_topic_names.end());
  if (member.subscribed_topic_regex) {
    if (const ResolvedRegularExpression* r =
            FindResolvedRegularExpression(*member.subscribed_topic_regex)) {
      topics.insert(r->topics.begin(), r->topics.end());
    }
  }
  return topics;
}

std::set<std::string> ConsumerGroup::SubscribedTopics() const {
  std::set<std::string> topics;
  for (const auto& entry : subscribed_names_) topics.insert(entry.first);
  for (const auto& [regex, resolved] : resolved_regexes_) {
    if (NumSubscribedMembers(regex) > 0)
      topics.insert(resolved.topics.begin(), resolved.topics.end());
  }
  return topics;
}

bool ConsumerGroup::Homogeneous() const {
  const int n = static_cast<int>(members_.size());
  std::optional<std::string> regex;
  int regex_members = 0;
  for (const auto& entry : members_) {
    const std::optional<std::string>& r = entry.second.subscribed_topic_regex;
    if (!r || r->empty()) continue;
    if (regex && *regex != *r) return false;  // two regexes
    regex = *r;
    ++regex_members;
  }
  if (!regex) {
    for (const auto& entry : subscribed_names_) {
      if (entry.second != n) return false;
    }
    return true;
  }
  return regex_members == n && subscribed_names_.empty();
}

namespace {

[[noreturn]] void OwnerIndexBroken(const std::string& what) {
  std::fprintf(stderr, "seglog: consumer group partition epochs: %s\n", what.c_str());
  std::abort();
}

}  // namespace

void ConsumerGroup::AddOwners(const ConsumerGroupMember& m) {
  for (const EpochPartitions* set : {&m.assigned_partitions, &m.partitions_pending_revocation}) {
    for (const auto& [topic, partitions] : *set) {
      std::map<int32_t, int32_t>& epochs = partition_epochs_[topic];
      for (const auto& entry : partitions) {
        // Invariant: a partition has at most one owner (Kafka's addPartitionEpochs).
        auto [it, inserted] = epochs.emplace(entry.first, m.member_epoch);
        if (!inserted) {
          OwnerIndexBroken(fmt::format(
              "cannot set the epoch of {}-{} to {} for member {}: it is still owned at epoch {}",
              topic.ToString(), entry.first, m.member_epoch, m.member_id, it->second));
        }
      }
      if (epochs.empty()) partition_epochs_.erase(topic);
    }
  }
}

void ConsumerGroup::RemoveOwners(const ConsumerGroupMember& m) {
  for (const EpochPartitions* set : {&m.assigned_partitions, &m.partitions_pending_revocation}) {
    for (const auto& [topic, partitions] : *set) {
      if (partitions.empty()) continue;
      auto t = partition_epochs_.find(topic);
      if (t == partition_epochs_.end()) {
        OwnerIndexBroken(fmt::format("cannot remove the epoch {} of member {} from {}: it has none",
                                     m.member_epoch, m.member_id, topic.ToString()));
      }
      for (const auto& entry : partitions) {
        // Invariant: the member's partitions are indexed at its epoch (Kafka's
        // removePartitionEpochs).
        auto p = t->second.find(entry.first);
        if (p == t->second.end() || p->second != m.member_epoch) {
          OwnerIndexBroken(fmt::format(
              "cannot remove the epoch {} of member {} from {}-{}: it is owned at epoch {}",
              m.member_epoch, m.member_id, topic.ToString(), entry.first,
              p == t->second.end() ? -1 : p->second));
        }
        t->second.erase(p);
      }
      if (t->second.empty()) partition_epochs_.erase(t);
    }
  }
}

}  // namespace seglog
