// ConsumerGroupHeartbeat; see consumer_group_heartbeat.h.
#include "group/consumer_group_heartbeat.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "group/consumer_group_records.h"
#include "group/server_assignor.h"
#include "protocol/kafka_error.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
using Req = protocol::ConsumerGroupHeartbeatRequestData;
using Resp = protocol::ConsumerGroupHeartbeatResponseData;

constexpr int32_t kJoinGroupMemberEpoch = 0;
constexpr int32_t kLeaveGroupMemberEpoch = -1;
constexpr int32_t kLeaveGroupStaticMemberEpoch = -2;

ConsumerGroupHeartbeatResult Error(int16_t code, std::string message) {
  ConsumerGroupHeartbeatResult r;
  r.response.error_code = code;
  r.response.error_message = std::move(message);
  return r;
}

// Java's String.isBlank for the ASCII a client sends: empty or only whitespace.
bool Blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

std::string AssignorList(const GroupCoordinatorConfig& config) {
  std::string all;
  for (const std::string& a : config.group_consumer_assignors) {
    all += (all.empty() ? "" : ", ") + a;
  }
  return all;
}

// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid, and what seglog does not support.
std::optional<ConsumerGroupHeartbeatResult> Validate(int16_t version, const Req& req,
                                                     const GroupCoordinatorConfig& config) {
  const bool needs_member_id =
      version >= 1 || req.member_epoch > 0 || req.member_epoch == kLeaveGroupMemberEpoch;
  if (needs_member_id && Blank(req.member_id)) {
    return Error(ke::kInvalidRequest, "MemberId can't be empty.");
  }
  if (Blank(req.group_id)) return Error(ke::kInvalidRequest, "GroupId can't be empty.");
  if (req.instance_id && Blank(*req.instance_id)) {
    return Error(ke::kInvalidRequest, "InstanceId can't be empty.");
  }
  if (req.rack_id && Blank(*req.rack_id)) {
    return Error(ke::kInvalidRequest, "RackId can't be empty.");
  }
  if (req.member_epoch == kJoinGroupMemberEpoch) {
    if (req.rebalance_timeout_ms == -1) {
      return Error(ke::kInvalidRequest, "RebalanceTimeoutMs must be provided in first request.");
    }
    if (!req.topic_partitions || !req.topic_partitions->empty()) {
      return Error(ke::kInvalidRequest, "TopicPartitions must be empty when (re-)joining.");
    }
    if (!req.subscribed_topic_names && !req.subscribed_topic_regex) {
      return Error(ke::kInvalidRequest,
                   "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
    }
  } else if (req.member_epoch == kLeaveGroupStaticMemberEpoch) {
    if (!req.instance_id) return Error(ke::kInvalidRequest, "InstanceId can't be null.");
  } else if (req.member_epoch < kLeaveGroupStaticMemberEpoch) {
    return Error(ke::kInvalidRequest, fmt::format("MemberEpoch {} is invalid.", req.member_epoch));
  }
  if (req.server_assignor) {
    const auto& names = config.group_consumer_assignors;
    if (std::find(names.begin(), names.end(), *req.server_assignor) == names.end()) {
      return Error(ke::kUnsupportedAssignor,
                   fmt::format("ServerAssignor {} is not supported. Supported assignors: {}.",
                               *req.server_assignor, AssignorList(config)));
    }
  }
  if (req.subscribed_topic_regex && !req.subscribed_topic_regex->empty()) {
    RE2 re(*req.subscribed_topic_regex, RE2::Quiet);
    if (!re.ok()) {
      return Error(ke::kInvalidRegularExpression,
                   fmt::format("SubscribedTopicRegex `{}` is not a valid regular expression: {}.",
                               *req.subscribed_topic_regex, re.error()));
    }
  }
  return std::nullopt;
}

// Kafka's throwIfMemberEpochIsInvalid.
std::optional<ConsumerGroupHeartbeatResult> CheckEpoch(const ConsumerGroupMember& member,
                                                       const Req& req) {
  if (req.member_epoch > member.member_epoch) {
    return Error(ke::kFencedMemberEpoch,
                 fmt::format("The consumer group member has a greater member epoch ({}) than the "
                             "one known by the group coordinator ({}). The member must abandon "
                             "all its partitions and rejoin.",
                             req.member_epoch, member.member_epoch));
  }
  if (req.member_epoch < member.member_epoch) {
    // A lost response: the member may heartbeat with its previous epoch as long as it owns
    // nothing it was not assigned.
    bool subset = req.topic_partitions.has_value();
    if (subset) {
      const TopicPartitions assigned = PartitionsOf(member.assigned_partitions);
      for (const auto& t : *req.topic_partitions) {
        for (int32_t p : t.partitions) subset = subset && Contains(assigned, t.topic_id, p);
      }
    }
    if (req.member_epoch != member.previous_member_epoch || !subset) {
      return Error(ke::kFencedMemberEpoch,
                   fmt::format("The consumer group member has a smaller member epoch ({}) than "
                               "the one known by the group coordinator ({}). The member must "
                               "abandon all its partitions and rejoin.",
                               req.member_epoch, member.member_epoch));
    }
  }
  return std::nullopt;
}

std::optional<TopicPartitions> Owned(const Req& req) {
  if (!req.topic_partitions) return std::nullopt;
  TopicPartitions owned;
  for (const auto& t : *req.topic_partitions) {
    if (!t.partitions.empty()) owned[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  }
  return owned;
}

// The member's topics that exist, as ids: its names and what its regular expression resolved
// to (nothing while unresolved).
TopicIdSet SubscribedIds(const ConsumerGroup& group, const ConsumerGroupMember& m,
                         const ConsumerGroupHeartbeatContext& ctx,
                         std::map<Uuid, AssignmentTopic, UuidLess>* topics) {
  TopicIdSet ids;
  for (const std::string& name : group.MemberTopics(m)) {
    std::optional<ConsumerGroupTopic> t = ctx.topic_by_name(name);
    if (!t) continue;
    ids.insert(t->id);
    if (topics) (*topics)[t->id] = AssignmentTopic{t->name, t->partitions};
  }
  return ids;
}

// A hash of the subscribed topics' metadata (name, id, partition count), so that a topic
// created, deleted or given partitions moves the group epoch (KIP-1101's idea; seglog's own
// 64-bit FNV-1a, not Kafka's function: a Kafka broker given these records recomputes it and
// bumps the epoch once).
int64_t MetadataHash(const ConsumerGroup& group, const ConsumerGroupHeartbeatContext& ctx) {
  uint64_t h = 1469598103934665603ull;
  bool any = false;
  auto mix = [&h](const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  };
  for (const std::string& name : group.SubscribedTopics()) {
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

// Whether the fields of member metadata (type 5) differ.
bool MetadataChanged(const ConsumerGroupMember& a, const ConsumerGroupMember& b) {
  return a.instance_id != b.instance_id || a.rack_id != b.rack_id || a.client_id != b.client_id ||
         a.client_host != b.client_host || a.subscribed_topic_names != b.subscribed_topic_names ||
         a.subscribed_topic_regex != b.subscribed_topic_regex ||
         a.rebalance_timeout_ms != b.rebalance_timeout_ms ||
         a.server_assignor != b.server_assignor || a.classic != b.classic;
}

void RemoveMemberRecords(const ConsumerGroup& group, const std::string& member_id,
                         std::vector<OffsetsRecord>* records) {
  records->push_back(ConsumerGroupCurrentMemberAssignmentTombstone(group.group_id(), member_id));
  records->push_back(ConsumerGroupTargetAssignmentMemberTombstone(group.group_id(), member_id));
  records->push_back(ConsumerGroupMemberMetadataTombstone(group.group_id(), member_id));
}

// Computes the group's new target assignment at its group epoch: the records of the members
// whose target changed, then the target metadata. An assignor failure is an error response.
std::optional<ConsumerGroupHeartbeatResult> UpdateTargetAssignment(
    ConsumerGroup* group, const ConsumerGroupHeartbeatContext& ctx,
    std::vector<OffsetsRecord>* records) {
  AssignmentSpec spec;
  for (const auto& [id, m] : group->members()) {
    AssignmentMemberSpec ms;
    ms.member_id = id;
    ms.instance_id = m.instance_id;
    ms.rack_id = m.rack_id;
    ms.subscribed_topic_ids = SubscribedIds(*group, m, ctx, &spec.topics);
    ms.assigned = group->TargetOf(id);
    spec.members.push_back(std::move(ms));
  }
  const std::string name = ConsumerGroupAssignorName(*group, *ctx.config);
  const ServerAssignor* assignor = FindServerAssignor(name);
  if (assignor == nullptr) assignor = &DefaultServerAssignor();
  Result<GroupAssignment> assignment = assignor->Assign(spec);
  if (!assignment.ok()) {
    return Error(ke::kUnknownServerError,
                 fmt::format("Failed to compute a new target assignment for epoch {}: {}",
                             group->group_epoch(), assignment.status().ToString()));
  }
  for (const auto& [id, m] : group->members()) {
    (void)m;
    auto it = assignment->find(id);
    TopicPartitions target = it == assignment->end() ? TopicPartitions{} : it->second;
    if (target != group->TargetOf(id) || !group->target_assignment().count(id)) {
      records->push_back(ConsumerGroupTargetAssignmentMemberRecord(group->group_id(), id, target));
      group->SetTarget(id, std::move(target));
    }
  }
  group->set_assignment_epoch(group->group_epoch());
  records->push_back(ConsumerGroupTargetAssignmentMetadataRecord(
      group->group_id(), group->assignment_epoch(), ctx.now_ms));
  return std::nullopt;
}

Resp::Assignment ResponseAssignment(const ConsumerGroupMember& m) {
  Resp::Assignment a;
  for (const auto& [topic, partitions] : m.assigned_partitions) {
    auto& t = a.topic_partitions.emplace_back();
    t.topic_id = topic;
    for (const auto& [p, epoch] : partitions) {
      (void)epoch;
      t.partitions.push_back(p);
    }
  }
  return a;
}

bool GroupExists(const ConsumerGroup& group) {
  return group.group_epoch() > 0 || !group.members().empty();
}

ConsumerGroupHeartbeatResult Leave(ConsumerGroup* group, const Req& req,
                                   const ConsumerGroupHeartbeatContext& ctx) {
  if (!GroupExists(*group)) {
    return Error(ke::kGroupIdNotFound,
                 fmt::format("Consumer group {} not found.", group->group_id()));
  }
  ConsumerGroupHeartbeatResult r;
  if (req.instance_id) {
    std::optional<std::string> id = group->StaticMemberId(*req.instance_id);
    if (!id) {
      return Error(ke::kUnknownMemberId,
                   fmt::format("Instance id {} is unknown.", *req.instance_id));
    }
    if (*id != req.member_id) {
      return Error(ke::kFencedInstanceId,
                   fmt::format("Static member {} with instance id {} is fenced by existing "
                               "member {}.",
                               req.member_id, *req.instance_id, *id));
    }
    if (req.member_epoch == kLeaveGroupStaticMemberEpoch) {
      // A temporary leave: the member keeps its assignment for a while (its session timeout)
      // so that the same instance can take it over when it comes back.
      ConsumerGroupMember m = *group->FindMember(*id);
      m.member_epoch = kLeaveGroupStaticMemberEpoch;
      for (auto& [topic, partitions] : m.assigned_partitions) {
        (void)topic;
        for (auto& [p, epoch] : partitions) {
          (void)p;
          epoch = 0;
        }
      }
      group->UpdateMember(m);
      r.records.push_back(ConsumerGroupCurrentMemberAssignmentRecord(group->group_id(), m));
      r.member_id = m.member_id;
      r.response.member_id = m.member_id;
      r.response.member_epoch = kLeaveGroupStaticMemberEpoch;
      r.revocation_done = true;
      return r;
    }
  } else if (group->FindMember(req.member_id) == nullptr) {
    return Error(ke::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.",
                                                   req.member_id, group->group_id()));
  }
  r.records = FenceConsumerGroupMember(group, req.member_id, ctx);
  r.member_id = req.member_id;
  r.member_removed = true;
  r.response.member_id = req.member_id;
  r.response.member_epoch = kLeaveGroupMemberEpoch;
  return r;
}

}  // namespace

ConsumerGroupHeartbeatResult ConsumerGroupHeartbeat(ConsumerGroup* group, int16_t version,
                                                    const Req& req,
                                                    const ConsumerGroupHeartbeatContext& ctx) {
  const GroupCoordinatorConfig& config = *ctx.config;
  if (auto err = Validate(version, req, config)) return *err;
  if (req.member_epoch == kLeaveGroupMemberEpoch ||
      req.member_epoch == kLeaveGroupStaticMemberEpoch) {
    return Leave(group, req, ctx);
  }
  const bool joining = req.member_epoch == kJoinGroupMemberEpoch;
  if (!joining && !GroupExists(*group)) {
    return Error(ke::kGroupIdNotFound,
                 fmt::format("Consumer group {} not found.", group->group_id()));
  }
  const std::string member_id = req.member_id.empty() ? ctx.new_member_id() : req.member_id;
  if (group->FindMember(member_id) == nullptr &&
      static_cast<int64_t>(group->members().size()) >= config.group_consumer_max_size) {
    return Error(ke::kGroupMaxSizeReached,
                 fmt::format("The consumer group has reached its maximum capacity of {} members.",
                             config.group_consumer_max_size));
  }

  ConsumerGroupHeartbeatResult r;
  // The member as it was (a new one: epoch 0, nothing assigned).
  ConsumerGroupMember member;
  member.member_id = member_id;
  bool is_new = true;
  std::string replaced;
  if (!req.instance_id) {
    if (const ConsumerGroupMember* m = group->FindMember(member_id)) {
      if (!joining) {
        if (auto err = CheckEpoch(*m, req)) return *err;
      }
      member = *m;
      is_new = false;
    } else if (!joining) {
      return Error(ke::kUnknownMemberId, fmt::format("Member {} is not a member of group {}.",
                                                     member_id, group->group_id()));
    }
  } else {
    std::optional<std::string> existing = group->StaticMemberId(*req.instance_id);
    if (joining) {
      if (existing && *existing == member_id) {
        member = *group->FindMember(member_id);
        is_new = false;
      } else if (existing) {
        const ConsumerGroupMember& old = *group->FindMember(*existing);
        // A classic member (an online upgrade) is replaced whatever its epoch: it sends no
        // leave of its own (Kafka checks only between consumer-protocol members).
        if (old.member_epoch != kLeaveGroupStaticMemberEpoch && !old.uses_classic_protocol()) {
          return Error(ke::kUnreleasedInstanceId,
                       fmt::format("Static member {} with instance id {} cannot join the group "
                                   "because the instance id is owned by member {}.",
                                   member_id, *req.instance_id, *existing));
        }
        // The instance comes back under a new member id: it takes over the old member's
        // assignment and target.
        replaced = *existing;
        member.instance_id = old.instance_id;
        member.assigned_partitions = old.assigned_partitions;
        TopicPartitions target = group->TargetOf(replaced);
        RemoveMemberRecords(*group, replaced, &r.records);
        group->RemoveMember(replaced);
        group->RemoveTarget(replaced);
        r.records.push_back(
            ConsumerGroupTargetAssignmentMemberRecord(group->group_id(), member_id, target));
        group->SetTarget(member_id, std::move(target));
      }
    } else {
      if (!existing) {
        return Error(ke::kUnknownMemberId,
                     fmt::format("Instance id {} is unknown.", *req.instance_id));
      }
      if (*existing != member_id) {
        return Error(ke::kFencedInstanceId,
                     fmt::format("Static member {} with instance id {} is fenced by existing "
                                 "member {}.",
                                 member_id, *req.instance_id, *existing));
      }
      member = *group->FindMember(member_id);
      is_new = false;
      if (auto err = CheckEpoch(member, req)) return *err;
    }
  }

  // 1. The member's subscription and identity.
  ConsumerGroupMember updated = member;
  if (req.instance_id) updated.instance_id = req.instance_id;
  if (req.rack_id) updated.rack_id = req.rack_id;
  if (req.rebalance_timeout_ms != -1) updated.rebalance_timeout_ms = req.rebalance_timeout_ms;
  if (req.server_assignor) updated.server_assignor = req.server_assignor;
  if (req.subscribed_topic_regex) {
    // An empty expression is no regular expression subscription.
    updated.subscribed_topic_regex =
        req.subscribed_topic_regex->empty() ? std::nullopt : req.subscribed_topic_regex;
  }
  if (req.subscribed_topic_names) {
    std::vector<std::string> names = *req.subscribed_topic_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    updated.subscribed_topic_names = std::move(names);
  }
  updated.client_id = ctx.client_id;
  updated.client_host = ctx.client_host;
  updated.classic.reset();  // a ConsumerGroupHeartbeat comes from the consumer protocol
  MemberUpdate u =
      ApplyConsumerGroupMemberUpdate(group, member, updated, is_new, Owned(req), ctx, &r.records);
  if (u.error_code != ke::kNone) return Error(u.error_code, std::move(u.error_message));
  const ConsumerGroupMember* next = &u.member;
  if (next->state == ConsumerMemberState::kUnrevokedPartitions && u.changed) {
    r.rebalance_timeout_ms = next->rebalance_timeout_ms;
    r.revocation_epoch = next->member_epoch;
  }
  if (next->state != ConsumerMemberState::kUnrevokedPartitions) r.revocation_done = true;
  r.regex_refresh_required = u.regex_refresh_required;

  r.member_id = member_id;
  r.replaced_member_id = replaced;
  r.response.member_id = member_id;
  r.response.member_epoch = next->member_epoch;
  r.response.heartbeat_interval_ms = config.group_consumer_heartbeat_interval_ms;
  // The assignment goes out on a full request (a join, or a member that lost track and sends
  // everything) and whenever it changed.
  const bool full_request = joining || (req.rebalance_timeout_ms != -1 &&
                                        req.subscribed_topic_names && req.topic_partitions);
  if (full_request ||
      PartitionsOf(member.assigned_partitions) != PartitionsOf(next->assigned_partitions)) {
    r.response.assignment = ResponseAssignment(*next);
  }
  return r;
}

MemberUpdate ApplyConsumerGroupMemberUpdate(ConsumerGroup* group, const ConsumerGroupMember& member,
                                            const ConsumerGroupMember& updated, bool is_new,
                                            const std::optional<TopicPartitions>& owned,
                                            const ConsumerGroupHeartbeatContext& ctx,
                                            std::vector<OffsetsRecord>* records) {
  const GroupCoordinatorConfig& config = *ctx.config;
  MemberUpdate out;
  const std::string& member_id = updated.member_id;
  const bool names_changed = updated.subscribed_topic_names != member.subscribed_topic_names;
  const bool regex_changed = updated.subscribed_topic_regex != member.subscribed_topic_regex;
  const bool subscription_changed = is_new || names_changed || regex_changed;
  const std::string assignor_before = ConsumerGroupAssignorName(*group, config);
  if (is_new || MetadataChanged(member, updated)) {
    records->push_back(ConsumerGroupMemberMetadataRecord(group->group_id(), updated));
  }

  // A changed regular expression (Kafka's maybeUpdateRegularExpressions): one nobody else
  // uses yet waits for a resolution (the member sees it match nothing until then, and the
  // group epoch does not move for it); one already resolved moves the group epoch now; giving
  // one up moves it too.
  bool regex_bump = false;
  if (regex_changed) {
    if (updated.subscribed_topic_regex) {
      if (group->NumSubscribedMembers(*updated.subscribed_topic_regex) == 0) {
        out.regex_refresh_required = true;
      } else {
        regex_bump = group->FindResolvedRegularExpression(*updated.subscribed_topic_regex);
      }
    } else {
      regex_bump = true;
    }
  }
  group->UpdateMember(updated);
  // The expression the member gave up, when it was the last to use it, goes with a tombstone
  // (and any resolution nobody uses any more: a static member replaced under a new id).
  std::set<std::string> unused;
  if (regex_changed && member.subscribed_topic_regex) unused.insert(*member.subscribed_topic_regex);
  for (const auto& entry : group->resolved_regular_expressions()) unused.insert(entry.first);
  for (const std::string& regex : unused) {
    if (group->NumSubscribedMembers(regex) > 0) continue;
    records->push_back(ConsumerGroupRegularExpressionTombstone(group->group_id(), regex));
    group->RemoveResolvedRegularExpression(regex);
  }

  // The group epoch moves when the member's topic names changed, an expression it took up is
  // resolved or one was given up, the subscribed topics' metadata or the assignor the group
  // uses changed, and when the group is new.
  bool bump = group->group_epoch() == 0 || names_changed || regex_bump ||
              ConsumerGroupAssignorName(*group, config) != assignor_before;
  const int64_t hash = MetadataHash(*group, ctx);
  bump = bump || hash != group->metadata_hash();
  if (bump) {
    group->set_group_epoch(group->group_epoch() + 1);
    group->set_metadata_hash(hash);
    records->push_back(ConsumerGroupMetadataRecord(group->group_id(), group->group_epoch(), hash));
  }

  // A new target assignment when the group epoch is ahead of it.
  if (group->group_epoch() > group->assignment_epoch()) {
    if (auto err = UpdateTargetAssignment(group, ctx, records)) {
      out.error_code = err->response.error_code;
      out.error_message = err->response.error_message.value_or("");
      return out;
    }
  }

  // One reconciliation step of the member towards its target.
  ReconcileInput in;
  in.target_epoch = group->assignment_epoch();
  in.target = group->TargetOf(member_id);
  in.subscribed_topic_ids = SubscribedIds(*group, updated, ctx, nullptr);
  in.enforce_subscription_consistency = subscription_changed && !is_new;
  in.owned = owned;
  const ConsumerGroupMember current = *group->FindMember(member_id);
  Result<ConsumerGroupMember> next =
      ReconcileMember(current, in, [group](const Uuid& topic, int32_t partition) {
        return group->CurrentPartitionEpoch(topic, partition);
      });
  if (!next.ok()) {
    std::string_view message = next.status().message();
    if (!IsFencedMemberEpoch(next.status())) {
      out.error_code = ke::kUnknownServerError;
      out.error_message = std::string(message);
      return out;
    }
    message.remove_prefix(std::min(message.size(), kFencedMemberEpochPrefix.size()));
    out.error_code = ke::kFencedMemberEpoch;
    out.error_message = std::string(message);
    return out;
  }
  if (*next != current) {
    group->UpdateMember(*next);
    records->push_back(ConsumerGroupCurrentMemberAssignmentRecord(group->group_id(), *next));
    out.changed = true;
  }
  out.member = std::move(*next);
  return out;
}

std::vector<OffsetsRecord> FenceConsumerGroupMember(ConsumerGroup* group,
                                                    const std::string& member_id,
                                                    const ConsumerGroupHeartbeatContext& ctx) {
  return FenceConsumerGroupMembers(group, {member_id}, ctx);
}

std::vector<OffsetsRecord> FenceConsumerGroupMembers(ConsumerGroup* group,
                                                     const std::set<std::string>& member_ids,
                                                     const ConsumerGroupHeartbeatContext& ctx) {
  std::vector<OffsetsRecord> records;
  std::set<std::string> gone;
  for (const std::string& member_id : member_ids) {
    if (group->FindMember(member_id) == nullptr) continue;
    RemoveMemberRecords(*group, member_id, &records);
    const std::optional<std::string> regex = group->FindMember(member_id)->subscribed_topic_regex;
    group->RemoveMember(member_id);
    group->RemoveTarget(member_id);
    if (regex) gone.insert(*regex);
  }
  if (records.empty()) return records;
  // The expressions nobody uses any more (Kafka's maybeDeleteResolvedRegularExpressions).
  for (const std::string& regex : gone) {
    if (group->NumSubscribedMembers(regex) > 0) continue;
    records.push_back(ConsumerGroupRegularExpressionTombstone(group->group_id(), regex));
    group->RemoveResolvedRegularExpression(regex);
  }
  group->set_group_epoch(group->group_epoch() + 1);
  // The hash of what the members left subscribe to.
  group->set_metadata_hash(MetadataHash(*group, ctx));
  records.push_back(
      ConsumerGroupMetadataRecord(group->group_id(), group->group_epoch(), group->metadata_hash()));
  if (group->members().empty()) {
    // Nobody left to assign to: the (empty) target is current at the new epoch.
    group->set_assignment_epoch(group->group_epoch());
    records.push_back(
        ConsumerGroupTargetAssignmentMetadataRecord(group->group_id(), group->group_epoch(), 0));
  }
  return records;
}

bool RegularExpressionRefreshDue(const ConsumerGroup& group, int64_t now_ms,
                                 int64_t last_version_with_new_topics, int64_t refresh_interval_ms,
                                 bool required) {
  const std::map<std::string, int>& subscribed = group.subscribed_regular_expressions();
  if (subscribed.empty()) return false;
  const int64_t last = group.LastRegularExpressionRefreshMs();
  // Kafka compares `now <= last + 10 s` with `last` Long.MIN_VALUE when nothing is resolved.
  if (last != std::numeric_limits<int64_t>::min() &&
      now_ms <= last + kRegexBatchRefreshMinIntervalMs) {
    return false;
  }
  if (required) return true;
  if (subscribed.size() != group.resolved_regular_expressions().size()) return true;
  if (group.LastResolvedRegularExpressionVersion() < last_version_with_new_topics) return true;
  return last == std::numeric_limits<int64_t>::min() || now_ms > last + refresh_interval_ms;
}

std::map<std::string, ResolvedRegularExpression> ResolveRegularExpressions(
    const std::set<std::string>& regexes, const std::vector<std::string>& topic_names,
    int64_t version, int64_t now_ms) {
  std::map<std::string, ResolvedRegularExpression> out;
  for (const std::string& regex : regexes) {
    ResolvedRegularExpression& r = out[regex];
    r.version = version;
    r.timestamp_ms = now_ms;
    RE2 re(regex, RE2::Quiet);
    if (!re.ok()) continue;  // Kafka logs it and resolves it to nothing
    for (const std::string& topic : topic_names) {
      if (RE2::FullMatch(topic, re)) r.topics.insert(topic);
    }
  }
  return out;
}

std::vector<OffsetsRecord> ApplyRegularExpressionResolution(
    ConsumerGroup* group, const std::map<std::string, ResolvedRegularExpression>& resolved,
    const ConsumerGroupHeartbeatContext& ctx) {
  std::vector<OffsetsRecord> records;
  bool bump = false;
  for (const auto& [regex, r] : resolved) {
    if (group->NumSubscribedMembers(regex) == 0) continue;  // given up meanwhile
    const ResolvedRegularExpression* old = group->FindResolvedRegularExpression(regex);
    if ((old == nullptr ? std::set<std::string>{} : old->topics) != r.topics) bump = true;
    records.push_back(ConsumerGroupRegularExpressionRecord(group->group_id(), regex, r));
    group->SetResolvedRegularExpression(regex, r);
  }
  const int64_t hash = MetadataHash(*group, ctx);
  if (hash != group->metadata_hash()) bump = true;
  if (bump) {
    group->set_group_epoch(group->group_epoch() + 1);
    group->set_metadata_hash(hash);
    records.push_back(ConsumerGroupMetadataRecord(group->group_id(), group->group_epoch(), hash));
  }
  return records;
}

std::string ConsumerGroupAssignorName(const ConsumerGroup& group,
                                      const GroupCoordinatorConfig& config) {
  if (std::optional<std::string> p = group.PreferredServerAssignor()) return *p;
  return config.group_consumer_assignors.empty() ? std::string(DefaultServerAssignor().name())
                                                 : config.group_consumer_assignors.front();
}

std::vector<OffsetsRecord> ConsumerGroupTombstones(const ConsumerGroup& group) {
  std::vector<OffsetsRecord> records;
  const std::string& id = group.group_id();
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ConsumerGroupCurrentMemberAssignmentTombstone(id, m));
  }
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ConsumerGroupTargetAssignmentMemberTombstone(id, m));
  }
  records.push_back(ConsumerGroupTargetAssignmentMetadataTombstone(id));
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ConsumerGroupMemberMetadataTombstone(id, m));
  }
  for (const auto& entry : group.resolved_regular_expressions()) {
    records.push_back(ConsumerGroupRegularExpressionTombstone(id, entry.first));
  }
  records.push_back(ConsumerGroupPartitionMetadataTombstone(id));
  records.push_back(ConsumerGroupMetadataTombstone(id));
  return records;
}

}  // namespace seglog
