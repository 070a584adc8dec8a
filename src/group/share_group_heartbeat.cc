// ShareGroupHeartbeat; see share_group_heartbeat.h. Follows Kafka 4.4.0's GroupMetadataManager
// (shareGroupHeartbeat, shareGroupLeave, shareGroupFenceMember, maybeUpdateTargetAssignment,
// initializedAssignmentPending, subscribedTopicsChangeMap, addInitializingTopicsRecords,
// initializeShareGroupState, uninitializeShareGroupState, shareGroupBuildPartitionDeleteRequest)
// as read with javap.
#include "group/share_group_heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "group/share_group_records.h"
#include "group/simple_assignor.h"
#include "protocol/kafka_error.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
using Req = protocol::ShareGroupHeartbeatRequestData;
using Resp = protocol::ShareGroupHeartbeatResponseData;

constexpr int32_t kJoinMemberEpoch = 0;
constexpr int32_t kLeaveMemberEpoch = -1;

ShareGroupHeartbeatResult Error(int16_t code, std::string message) {
  ShareGroupHeartbeatResult r;
  r.response.error_code = code;
  r.response.error_message = std::move(message);
  return r;
}

// Kafka's Utils.throwIfEmptyString: set and blank once trimmed.
bool Blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ';  // String.trim's whitespace
  });
}

// A hash of the subscribed topics' metadata (name, id, partition count): a topic created,
// deleted or given partitions moves the group epoch. seglog's own 64-bit FNV-1a, as the
// consumer groups' (a Kafka broker given these records recomputes it and bumps the epoch once).
int64_t MetadataHash(const ShareGroup& group, const ShareGroupHeartbeatContext& ctx) {
  uint64_t h = 1469598103934665603ull;
  bool any = false;
  auto mix = [&h](const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  };
  for (const auto& [name, count] : group.subscribed_topic_names()) {
    (void)count;
    std::optional<ConsumerGroupTopic> t = ctx.topic_by_name(name);
    if (!t) continue;
    any = true;
    mix(reinterpret_cast<const uint8_t*>(t->name.data()), t->name.size());
    const uint8_t zero = 0;
    mix(&zero, 1);
    mix(t->id.bytes.data(), t->id.bytes.size());
    const uint8_t parts[4] = {
        static_cast<uint8_t>(t->partitions >> 24), static_cast<uint8_t>(t->partitions >> 16),
        static_cast<uint8_t>(t->partitions >> 8), static_cast<uint8_t>(t->partitions)};
    mix(parts, 4);
  }
  return any ? static_cast<int64_t>(h) : 0;
}

bool MetadataChanged(const ShareGroupMember& a, const ShareGroupMember& b) {
  return a.rack_id != b.rack_id || a.client_id != b.client_id || a.client_host != b.client_host ||
         a.subscribed_topic_names != b.subscribed_topic_names;
}

// GroupMetadataManager.canComputeNextTargetAssignment.
bool CanComputeTargetAssignment(int64_t last_ms, int32_t interval_ms, int64_t now_ms) {
  return last_ms == 0 || interval_ms == 0 || now_ms >= last_ms + interval_ms;
}

// initializedAssignmentPending: some initialized partition of a subscribed topic is not in the
// target assignment (or the target has one no longer initialized).
bool InitializedAssignmentPending(const ShareGroup& group) {
  if (group.members().empty() || !group.state_partitions()) return false;
  const ShareStateTopics& initialized = group.state_partitions()->initialized;
  if (initialized.empty() || group.subscribed_topic_names().empty()) return false;
  TopicPartitions target;
  for (const auto& [member, tps] : group.target_assignment()) {
    (void)member;
    for (const auto& [topic, ps] : tps) target[topic].insert(ps.begin(), ps.end());
  }
  for (const auto& [id, t] : initialized) {
    if (!group.subscribed_topic_names().count(t.name)) continue;
    auto it = target.find(id);
    if (it == target.end() || it->second != t.partitions) return true;
  }
  return false;
}

// A new target assignment at the group epoch over the initialized partitions.
void UpdateTargetAssignment(ShareGroup* group, const ShareGroupHeartbeatContext& ctx,
                            std::vector<OffsetsRecord>* records) {
  SimpleAssignorInput in;
  std::map<Uuid, int32_t, UuidLess> partition_counts;
  for (const auto& [id, m] : group->members()) {
    TopicIdSet& topics = in.members[id];
    for (const std::string& name : m.subscribed_topic_names) {
      std::optional<ConsumerGroupTopic> t = ctx.topic_by_name(name);
      if (!t) continue;
      topics.insert(t->id);
      partition_counts[t->id] = t->partitions;
    }
  }
  for (const auto& [topic, ps] : group->InitializedPartitions()) {
    auto count = partition_counts.find(topic);
    if (count == partition_counts.end()) continue;  // deleted, or nobody subscribes
    for (int32_t p : ps) {
      if (p >= 0 && p < count->second) in.assignable[topic].insert(p);
    }
  }
  in.previous = group->target_assignment();
  std::map<std::string, TopicPartitions> assignment = SimpleAssign(in, group->Homogeneous());
  for (const auto& [id, m] : group->members()) {
    (void)m;
    TopicPartitions target = std::move(assignment[id]);
    if (target != group->TargetOf(id) || !group->target_assignment().count(id)) {
      records->push_back(ShareGroupTargetAssignmentMemberRecord(group->group_id(), id, target));
      group->SetTarget(id, std::move(target));
    }
  }
  group->set_assignment_epoch(group->group_epoch());
  group->set_assignment_timestamp_ms(ctx.now_ms);
  records->push_back(ShareGroupTargetAssignmentMetadataRecord(
      group->group_id(), group->assignment_epoch(), ctx.now_ms));
}

// The partitions of `target` whose topics `m` subscribes to (and that exist).
TopicPartitions SubscribedOnly(const TopicPartitions& target, const ShareGroupMember& m,
                               const ShareGroupHeartbeatContext& ctx) {
  TopicIdSet ids;
  for (const std::string& name : m.subscribed_topic_names) {
    if (std::optional<ConsumerGroupTopic> t = ctx.topic_by_name(name)) ids.insert(t->id);
  }
  TopicPartitions out;
  for (const auto& [topic, ps] : target) {
    if (ids.count(topic) && !ps.empty()) out[topic] = ps;
  }
  return out;
}

Resp::Assignment ResponseAssignment(const TopicPartitions& tps) {
  Resp::Assignment a;
  for (const auto& [topic, partitions] : tps) {
    auto& t = a.topic_partitions.emplace_back();
    t.topic_id = topic;
    t.partitions.assign(partitions.begin(), partitions.end());
  }
  return a;
}

// subscribedTopicsChangeMap + addInitializingTopicsRecords: the subscribed partitions without
// share state (initializing ones only once group.share.initialize.retry.interval.ms passed)
// become initializing.
void MaybeInitializeSharePartitions(ShareGroup* group, const ShareGroupHeartbeatContext& ctx,
                                    ShareGroupHeartbeatResult* r) {
  ShareStateTopics to_init;
  const std::optional<ShareGroupStatePartitions>& sp = group->state_partitions();
  for (const auto& [name, count] : group->subscribed_topic_names()) {
    (void)count;
    std::optional<ConsumerGroupTopic> t = ctx.topic_by_name(name);
    if (!t) continue;
    std::set<int32_t> have;
    if (sp) {
      if (auto i = sp->initialized.find(t->id); i != sp->initialized.end()) {
        have.insert(i->second.partitions.begin(), i->second.partitions.end());
      }
      if (auto i = sp->initializing.find(t->id);
          i != sp->initializing.end() && ctx.now_ms - i->second.timestamp_ms <
                                             ctx.config->group_share_initialize_retry_interval_ms) {
        have.insert(i->second.partitions.begin(), i->second.partitions.end());
      }
    }
    std::set<int32_t> missing;
    for (int32_t p = 0; p < t->partitions; ++p) {
      if (!have.count(p)) missing.insert(p);
    }
    if (!missing.empty()) to_init[t->id] = ShareStateTopic{t->name, std::move(missing), ctx.now_ms};
  }
  if (to_init.empty()) return;
  ShareGroupStatePartitions next = sp.value_or(ShareGroupStatePartitions{});
  for (const auto& [id, t] : to_init) {
    ShareStateTopic& i = next.initializing[id];
    i.name = t.name;
    i.partitions.insert(t.partitions.begin(), t.partitions.end());
    i.timestamp_ms = ctx.now_ms;
    next.deleting.erase(id);
  }
  r->records.push_back(ShareGroupStatePartitionMetadataRecord(group->group_id(), next));
  group->set_state_partitions(std::move(next));
  r->to_initialize = std::move(to_init);
  r->state_epoch = group->group_epoch();
}

ShareGroupHeartbeatResult Leave(ShareGroup* group, bool exists, const Req& req,
                                const ShareGroupHeartbeatContext& ctx) {
  if (!exists) {
    return Error(ke::kGroupIdNotFound, fmt::format("Group {} not found.", group->group_id()));
  }
  if (group->FindMember(req.member_id) == nullptr) {
    return Error(ke::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.",
                                                   req.member_id, group->group_id()));
  }
  ShareGroupHeartbeatResult r;
  r.records = FenceShareGroupMember(group, req.member_id, ctx);
  r.member_id = req.member_id;
  r.member_removed = true;
  r.response.member_id = req.member_id;
  r.response.member_epoch = kLeaveMemberEpoch;
  return r;
}

}  // namespace

std::optional<Resp> ValidateShareGroupHeartbeat(const Req& req) {
  auto invalid = [](const char* message) {
    Resp r;
    r.error_code = ke::kInvalidRequest;
    r.error_message = message;
    return r;
  };
  if (Blank(req.member_id)) return invalid("MemberId can't be empty.");
  if (Blank(req.group_id)) return invalid("GroupId can't be empty.");
  if (req.rack_id && Blank(*req.rack_id)) return invalid("RackId can't be empty.");
  if (req.member_epoch == kJoinMemberEpoch) {
    if (!req.subscribed_topic_names || req.subscribed_topic_names->empty()) {
      return invalid("SubscribedTopicNames must be set in first request.");
    }
  } else if (req.member_epoch < kLeaveMemberEpoch) {
    return invalid("MemberEpoch is invalid.");
  }
  return std::nullopt;
}

ShareGroupHeartbeatResult ShareGroupHeartbeat(ShareGroup* group, bool exists, const Req& req,
                                              const ShareGroupHeartbeatContext& ctx) {
  const GroupCoordinatorConfig& config = *ctx.config;
  if (req.member_epoch == kLeaveMemberEpoch) return Leave(group, exists, req, ctx);
  const bool joining = req.member_epoch == kJoinMemberEpoch;
  if (!joining && !exists) {
    return Error(ke::kGroupIdNotFound, fmt::format("Share group {} not found.", group->group_id()));
  }
  const ShareGroupMember* old = group->FindMember(req.member_id);
  if (old == nullptr &&
      static_cast<int64_t>(group->members().size()) >= config.group_share_max_size) {
    return Error(ke::kGroupMaxSizeReached,
                 fmt::format("The share group has reached its maximum capacity of {} members.",
                             config.group_share_max_size));
  }
  if (!joining) {
    if (old == nullptr) {
      return Error(ke::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.",
                                                     req.member_id, group->group_id()));
    }
    if (req.member_epoch > old->member_epoch) {
      return Error(ke::kFencedMemberEpoch,
                   fmt::format("The share group member has a greater member epoch ({}) than the "
                               "one known by the group coordinator ({}). The member must abandon "
                               "all its partitions and rejoin.",
                               req.member_epoch, old->member_epoch));
    }
    if (req.member_epoch < old->member_epoch && req.member_epoch != old->previous_member_epoch) {
      return Error(ke::kFencedMemberEpoch,
                   fmt::format("The share group member has a smaller member epoch ({}) than the "
                               "one known by the group coordinator ({}), and it does not match "
                               "the previous member epoch ({}).",
                               req.member_epoch, old->member_epoch, old->previous_member_epoch));
    }
  }
  ShareGroupHeartbeatResult r;
  const bool is_new = old == nullptr;
  ShareGroupMember before;
  if (old != nullptr) {
    before = *old;
  } else {
    before.member_id = req.member_id;
  }
  ShareGroupMember m = before;
  if (req.rack_id) m.rack_id = req.rack_id;
  if (req.subscribed_topic_names) {
    std::vector<std::string> names = *req.subscribed_topic_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    m.subscribed_topic_names = std::move(names);
  }
  m.client_id = ctx.client_id;
  m.client_host = ctx.client_host;
  bool bump = false;
  if (is_new || MetadataChanged(before, m)) {
    r.records.push_back(ShareGroupMemberMetadataRecord(group->group_id(), m));
  }
  if (is_new || before.subscribed_topic_names != m.subscribed_topic_names) bump = true;
  group->UpdateMember(m);
  const int64_t hash = MetadataHash(*group, ctx);
  if (hash != group->metadata_hash()) bump = true;
  if (!bump && group->group_epoch() == group->assignment_epoch() &&
      InitializedAssignmentPending(*group)) {
    bump = true;
  }
  if (bump) {
    group->set_group_epoch(group->group_epoch() + 1);
    group->set_metadata_hash(hash);
    r.records.push_back(
        ShareGroupMetadataRecord(group->group_id(), group->group_epoch(), group->metadata_hash()));
  }
  if (group->group_epoch() > group->assignment_epoch() &&
      CanComputeTargetAssignment(group->assignment_timestamp_ms(),
                                 config.group_share_assignment_interval_ms, ctx.now_ms)) {
    UpdateTargetAssignment(group, ctx, &r.records);
  }
  // The member takes its target at once (maybeReconcile, ShareGroupAssignmentBuilder), unless
  // it is at the target's epoch already and its subscription did not change; only the
  // partitions of topics it subscribes to (filterAssignedPartitions: the target may be older
  // than its subscription).
  ShareGroupMember after = *group->FindMember(m.member_id);
  const ShareGroupMember reconciled_from = after;
  const bool subscription_changed = before.subscribed_topic_names != m.subscribed_topic_names;
  if (after.member_epoch != group->assignment_epoch() || subscription_changed) {
    if (after.member_epoch != group->assignment_epoch()) {
      after.previous_member_epoch = after.member_epoch;
      after.member_epoch = group->assignment_epoch();
    }
    after.state = 0;
    after.assigned_partitions = SubscribedOnly(group->TargetOf(after.member_id), after, ctx);
  }
  if (after != reconciled_from) {
    r.records.push_back(ShareGroupCurrentMemberAssignmentRecord(group->group_id(), after));
    group->UpdateMember(after);
  } else if (is_new) {
    // A member that joins at the target's epoch (0: no target yet) is still recorded.
    r.records.push_back(ShareGroupCurrentMemberAssignmentRecord(group->group_id(), after));
  }
  MaybeInitializeSharePartitions(group, ctx, &r);
  r.member_id = after.member_id;
  r.response.member_id = after.member_id;
  r.response.member_epoch = after.member_epoch;
  r.response.heartbeat_interval_ms = config.group_share_heartbeat_interval_ms;
  // The assignment goes with a join, with a request that names its subscription, and when it
  // changed (shareGroupHeartbeat, 4.4.0).
  if (joining || req.subscribed_topic_names ||
      before.assigned_partitions != after.assigned_partitions) {
    r.response.assignment = ResponseAssignment(after.assigned_partitions);
  }
  return r;
}

std::vector<OffsetsRecord> FenceShareGroupMember(ShareGroup* group, const std::string& member_id,
                                                 const ShareGroupHeartbeatContext& ctx) {
  std::vector<OffsetsRecord> records;
  if (group->FindMember(member_id) == nullptr) return records;
  const std::string& id = group->group_id();
  records.push_back(ShareGroupCurrentMemberAssignmentTombstone(id, member_id));
  records.push_back(ShareGroupTargetAssignmentMemberTombstone(id, member_id));
  records.push_back(ShareGroupMemberMetadataTombstone(id, member_id));
  group->RemoveMember(member_id);
  group->RemoveTarget(member_id);
  group->set_group_epoch(group->group_epoch() + 1);
  group->set_metadata_hash(MetadataHash(*group, ctx));
  records.push_back(ShareGroupMetadataRecord(id, group->group_epoch(), group->metadata_hash()));
  if (group->members().empty()) {
    // The last member: the (empty) target is at the new epoch, with no timestamp, so the
    // next member's target is computed at once.
    group->set_assignment_epoch(group->group_epoch());
    group->set_assignment_timestamp_ms(0);
    records.push_back(ShareGroupTargetAssignmentMetadataRecord(id, group->group_epoch(), 0));
  }
  return records;
}

std::optional<OffsetsRecord> CompleteShareStateInitialization(ShareGroup* group,
                                                              const ShareStateTopics& topics,
                                                              bool success) {
  if (!group->state_partitions()) return std::nullopt;
  ShareGroupStatePartitions next = *group->state_partitions();
  bool changed = false;
  for (const auto& [id, t] : topics) {
    auto i = next.initializing.find(id);
    if (i == next.initializing.end()) continue;
    for (int32_t p : t.partitions) {
      if (i->second.partitions.erase(p) == 0) continue;
      changed = true;
      if (success) {
        ShareStateTopic& done = next.initialized[id];
        done.name = i->second.name;
        done.partitions.insert(p);
      }
    }
    if (i->second.partitions.empty()) next.initializing.erase(i);
  }
  if (!changed) return std::nullopt;
  OffsetsRecord record = ShareGroupStatePartitionMetadataRecord(group->group_id(), next);
  group->set_state_partitions(std::move(next));
  return record;
}

ShareStateDeletion PrepareShareStateDeletion(
    ShareGroup* group,
    const std::function<std::optional<ConsumerGroupTopic>(const Uuid&)>& topic_by_id) {
  ShareStateDeletion out;
  if (!group->state_partitions()) return out;
  const ShareGroupStatePartitions& sp = *group->state_partitions();
  ShareGroupStatePartitions next;
  next.deleting = sp.deleting;
  TopicIdSet ids;
  for (const auto& [id, t] : sp.initialized) ids.insert(id);
  for (const auto& [id, t] : sp.initializing) ids.insert(id);
  for (const auto& [id, name] : sp.deleting) ids.insert(id);
  for (const Uuid& id : ids) {
    std::optional<ConsumerGroupTopic> t = topic_by_id(id);
    if (!t) continue;  // deleted: its share state went with it
    ShareStateTopic& d = out.topics[id];
    d.name = t->name;
    for (int32_t p = 0; p < t->partitions; ++p) d.partitions.insert(p);
    next.deleting[id] = t->name;
  }
  out.record = ShareGroupStatePartitionMetadataRecord(group->group_id(), next);
  group->set_state_partitions(std::move(next));
  return out;
}

std::optional<OffsetsRecord> ForgetDeletedShareTopic(ShareGroup* group, const std::string& topic) {
  if (!group->state_partitions()) return std::nullopt;
  ShareGroupStatePartitions next = *group->state_partitions();
  bool changed = false;
  for (ShareStateTopics* topics : {&next.initializing, &next.initialized}) {
    for (auto it = topics->begin(); it != topics->end();) {
      if (it->second.name == topic) {
        it = topics->erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  for (auto it = next.deleting.begin(); it != next.deleting.end();) {
    if (it->second == topic) {
      it = next.deleting.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  if (!changed) return std::nullopt;
  OffsetsRecord record = ShareGroupStatePartitionMetadataRecord(group->group_id(), next);
  group->set_state_partitions(std::move(next));
  return record;
}

std::vector<OffsetsRecord> ShareGroupTombstones(const ShareGroup& group) {
  std::vector<OffsetsRecord> records;
  const std::string& id = group.group_id();
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ShareGroupCurrentMemberAssignmentTombstone(id, m));
  }
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ShareGroupTargetAssignmentMemberTombstone(id, m));
  }
  records.push_back(ShareGroupTargetAssignmentMetadataTombstone(id));
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ShareGroupMemberMetadataTombstone(id, m));
  }
  records.push_back(ShareGroupStatePartitionMetadataTombstone(id));
  records.push_back(ShareGroupMetadataTombstone(id));
  return records;
}

protocol::ShareGroupDescribeResponseData::DescribedGroup DescribeShareGroupData(
    const ShareGroup& group, const std::function<std::string(const Uuid&)>& topic_name) {
  protocol::ShareGroupDescribeResponseData::DescribedGroup d;
  d.group_id = group.group_id();
  d.group_state = std::string(ShareGroupStateName(group.state()));
  d.group_epoch = group.group_epoch();
  d.assignment_epoch = group.assignment_epoch();
  d.assignor_name = kSimpleAssignorName;
  for (const auto& [id, m] : group.members()) {
    auto& dm = d.members.emplace_back();
    dm.member_id = id;
    dm.rack_id = m.rack_id;
    dm.member_epoch = m.member_epoch;
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    dm.subscribed_topic_names = m.subscribed_topic_names;
    for (const auto& [topic, partitions] : m.assigned_partitions) {
      auto& t = dm.assignment.topic_partitions.emplace_back();
      t.topic_id = topic;
      t.topic_name = topic_name(topic);
      t.partitions.assign(partitions.begin(), partitions.end());
    }
  }
  return d;
}

}  // namespace seglog
