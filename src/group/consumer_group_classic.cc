// Classic members inside a consumer group; see consumer_group_classic.h.
#include "group/consumer_group_classic.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "group/consumer_group_records.h"
#include "group/consumer_protocol.h"
#include "protocol/kafka_error.h"

namespace seglog {

namespace {

namespace ke = kafka_error;

ClassicJoinResult JoinError(int16_t code, std::string member_id) {
  ClassicJoinResult r;
  r.response.error_code = code;
  r.response.generation_id = -1;
  r.response.member_id = std::move(member_id);
  return r;
}

// Kafka's throwIfClassicProtocolIsNotSupported: the "consumer" type, and one of the requested
// protocols supported by every classic member (any, when there is none).
bool ClassicProtocolSupported(const ConsumerGroup& group,
                              const protocol::JoinGroupRequestData& req) {
  if (req.protocol_type != "consumer" || req.protocols.empty()) return false;
  size_t classic = 0;
  std::map<std::string, size_t> supported;
  for (const auto& [id, m] : group.members()) {
    (void)id;
    if (!m.classic) continue;
    ++classic;
    std::set<std::string> names;
    for (const auto& p : m.classic->supported_protocols) names.insert(p.name);
    for (const std::string& n : names) ++supported[n];
  }
  if (classic == 0) return true;
  return std::any_of(req.protocols.begin(), req.protocols.end(), [&](const auto& p) {
    auto it = supported.find(p.name);
    return it != supported.end() && it->second == classic;
  });
}

// Whether some partition of the member's target that it does not have yet is still owned by
// another member (Kafka's waitingOnUnreleasedPartition).
bool WaitingOnUnreleasedPartition(const ConsumerGroup& group, const ConsumerGroupMember& m) {
  for (const auto& [topic, partitions] : group.TargetOf(m.member_id)) {
    auto mine = m.assigned_partitions.find(topic);
    for (int32_t p : partitions) {
      if (mine != m.assigned_partitions.end() && mine->second.count(p)) continue;
      if (group.CurrentPartitionEpoch(topic, p) != -1) return true;
    }
  }
  return false;
}

// Whether the member has a reconciliation step to take (and so must join again).
bool MustRejoin(const ConsumerGroup& group, const ConsumerGroupMember& m) {
  return m.member_epoch < group.group_epoch() ||
         m.state == ConsumerMemberState::kUnrevokedPartitions ||
         (m.state == ConsumerMemberState::kUnreleasedPartitions &&
          !WaitingOnUnreleasedPartition(group, m));
}

}  // namespace

int16_t ValidateClassicMemberOfConsumerGroup(const ConsumerGroup& group,
                                             const std::string& member_id,
                                             const std::optional<std::string>& instance_id) {
  if (instance_id) {
    std::optional<std::string> mapped = group.StaticMemberId(*instance_id);
    if (!mapped) return ke::kUnknownMemberId;
    if (*mapped != member_id) return ke::kFencedInstanceId;
  }
  if (group.FindMember(member_id) == nullptr) return ke::kUnknownMemberId;
  return ke::kNone;
}

ClassicJoinResult ClassicGroupJoinToConsumerGroup(ConsumerGroup* group, int16_t version,
                                                  const protocol::JoinGroupRequestData& req,
                                                  int32_t rebalance_timeout_ms,
                                                  const ConsumerGroupHeartbeatContext& ctx) {
  const GroupCoordinatorConfig& config = *ctx.config;
  const std::string member_id = req.member_id.empty() ? ctx.new_member_id() : req.member_id;
  if (group->FindMember(member_id) == nullptr &&
      static_cast<int64_t>(group->members().size()) >= config.group_consumer_max_size) {
    return JoinError(ke::kGroupMaxSizeReached, req.member_id);
  }
  if (!ClassicProtocolSupported(*group, req)) {
    return JoinError(ke::kInconsistentGroupProtocol, req.member_id);
  }
  if (!req.group_instance_id && req.member_id.empty() && version >= 4) {
    // KIP-394: nothing is kept; the member comes back with this id.
    return JoinError(ke::kMemberIdRequired, member_id);
  }
  Result<protocol::ConsumerProtocolSubscription> sub =
      DecodeConsumerProtocolSubscription(req.protocols.front().metadata);
  if (!sub.ok()) return JoinError(ke::kUnknownServerError, req.member_id);

  ClassicJoinResult r;
  ConsumerGroupMember member;
  member.member_id = member_id;
  bool is_new = true;
  if (req.group_instance_id) {
    std::optional<std::string> existing = group->StaticMemberId(*req.group_instance_id);
    if (req.member_id.empty()) {
      if (existing) {
        // A restarted static member: the new id takes the old one's place, assignment and
        // target (Kafka's replaceMember: the old id's tombstones, the new id's 5, 7, 8), so
        // the group epoch moves only if the subscription changes.
        const ConsumerGroupMember old = *group->FindMember(*existing);
        member = old;
        member.member_id = member_id;
        member.member_epoch = 0;
        member.previous_member_epoch = 0;
        member.partitions_pending_revocation.clear();
        TopicPartitions target = group->TargetOf(old.member_id);
        const std::string& g = group->group_id();
        r.records.push_back(ConsumerGroupCurrentMemberAssignmentTombstone(g, old.member_id));
        r.records.push_back(ConsumerGroupTargetAssignmentMemberTombstone(g, old.member_id));
        r.records.push_back(ConsumerGroupMemberMetadataTombstone(g, old.member_id));
        group->RemoveMember(old.member_id);
        group->RemoveTarget(old.member_id);
        group->UpdateMember(member);
        r.records.push_back(ConsumerGroupMemberMetadataRecord(g, member));
        r.records.push_back(ConsumerGroupTargetAssignmentMemberRecord(g, member_id, target));
        r.records.push_back(ConsumerGroupCurrentMemberAssignmentRecord(g, member));
        group->SetTarget(member_id, std::move(target));
        r.replaced_member_id = old.member_id;
        r.replaced_consumer_member = !old.uses_classic_protocol();
        is_new = false;
      }
    } else {
      if (!existing) return JoinError(ke::kUnknownMemberId, req.member_id);
      if (*existing != member_id) return JoinError(ke::kFencedInstanceId, req.member_id);
      member = *group->FindMember(member_id);
      is_new = false;
    }
  } else if (const ConsumerGroupMember* m = group->FindMember(member_id)) {
    member = *m;
    is_new = false;
  }

  ConsumerGroupMember updated = member;
  updated.instance_id = req.group_instance_id;
  updated.rack_id = sub->rack_id;
  updated.rebalance_timeout_ms = rebalance_timeout_ms;
  updated.server_assignor.reset();
  updated.subscribed_topic_regex.reset();  // classic members subscribe by name only
  std::vector<std::string> names = sub->topics;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  updated.subscribed_topic_names = std::move(names);
  updated.client_id = ctx.client_id;
  updated.client_host = ctx.client_host;
  ClassicMemberMetadata& c = updated.classic.emplace();
  c.session_timeout_ms = req.session_timeout_ms;
  for (const auto& p : req.protocols) c.supported_protocols.push_back({p.name, p.metadata});
  r.subscription_changed =
      is_new || updated.subscribed_topic_names != member.subscribed_topic_names;

  TopicPartitions owned;
  for (const auto& t : sub->owned_partitions) {
    std::optional<ConsumerGroupTopic> topic = ctx.topic_by_name(t.topic);
    if (!topic) continue;
    for (int32_t p : t.partitions) owned[topic->id].insert(p);
  }
  MemberUpdate u =
      ApplyConsumerGroupMemberUpdate(group, member, updated, is_new, owned, ctx, &r.records);
  if (u.error_code != ke::kNone) return JoinError(u.error_code, member_id);
  r.member_id = member_id;
  r.response.member_id = member_id;
  r.response.generation_id = u.member.member_epoch;
  r.response.protocol_type = "consumer";
  r.response.protocol_name = req.protocols.front().name;
  r.response.leader = "";
  return r;
}

protocol::SyncGroupResponseData ClassicGroupSyncToConsumerGroup(
    const ConsumerGroup& group, const protocol::SyncGroupRequestData& req,
    const std::function<std::optional<std::string>(const Uuid&)>& topic_name, bool* rebalancing) {
  *rebalancing = false;
  protocol::SyncGroupResponseData r;
  auto fail = [&r](int16_t code) {
    r.error_code = code;
    return r;
  };
  if (int16_t e = ValidateClassicMemberOfConsumerGroup(group, req.member_id, req.group_instance_id);
      e != ke::kNone) {
    return fail(e);
  }
  const ConsumerGroupMember& m = *group.FindMember(req.member_id);
  if (!m.classic || m.classic->supported_protocols.empty()) return fail(ke::kUnknownMemberId);
  if (req.generation_id != m.member_epoch) return fail(ke::kIllegalGeneration);
  const ClassicMemberMetadata::Protocol& first = m.classic->supported_protocols.front();
  if ((req.protocol_type && *req.protocol_type != "consumer") ||
      (req.protocol_name && *req.protocol_name != first.name)) {
    return fail(ke::kInconsistentGroupProtocol);
  }
  if (group.group_epoch() > m.member_epoch &&
      m.state != ConsumerMemberState::kUnrevokedPartitions) {
    *rebalancing = true;
    return fail(ke::kRebalanceInProgress);
  }
  std::map<std::string, std::set<int32_t>> named;
  for (const auto& [topic, partitions] : PartitionsOf(m.assigned_partitions)) {
    std::optional<std::string> name = topic_name(topic);
    if (name) named[*name].insert(partitions.begin(), partitions.end());
  }
  r.protocol_type = req.protocol_type;
  r.protocol_name = req.protocol_name;
  Result<int16_t> version = ConsumerProtocolVersion(first.metadata);
  r.assignment = EncodeConsumerProtocolAssignment(named, version.ok() ? *version : 0);
  return r;
}

int16_t ClassicGroupHeartbeatToConsumerGroup(const ConsumerGroup& group, int32_t generation,
                                             const std::string& member_id,
                                             const std::optional<std::string>& instance_id,
                                             bool* valid, bool* rebalancing) {
  *valid = false;
  *rebalancing = false;
  if (int16_t e = ValidateClassicMemberOfConsumerGroup(group, member_id, instance_id);
      e != ke::kNone) {
    return e;
  }
  const ConsumerGroupMember& m = *group.FindMember(member_id);
  if (!m.classic) return ke::kUnknownMemberId;
  if (generation != m.member_epoch) return ke::kIllegalGeneration;
  *valid = true;
  if (MustRejoin(group, m)) {
    *rebalancing = true;
    return ke::kRebalanceInProgress;
  }
  return ke::kNone;
}

}  // namespace seglog
