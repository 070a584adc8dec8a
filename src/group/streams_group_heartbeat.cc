// StreamsGroupHeartbeat; see streams_group_heartbeat.h.
#include "group/streams_group_heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "group/streams_group_records.h"
#include "group/streams_task_assignor.h"
#include "protocol/kafka_error.h"

namespace seglog {

namespace {

using Request = protocol::StreamsGroupHeartbeatRequestData;
using Response = protocol::StreamsGroupHeartbeatResponseData;

constexpr int16_t kUnknownServerErrorCode = -1;

struct HeartbeatError {
  int16_t code;
  std::string message;
};

// Utils.throwIfEmptyString: a present string that is blank.
bool Blank(const std::optional<std::string>& s) {
  if (!s) return false;
  return std::all_of(s->begin(), s->end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// GroupCoordinatorService's checks, in its order.
std::optional<HeartbeatError> ValidateRequest(const Request& req) {
  auto invalid = [](std::string m) {
    return HeartbeatError{kafka_error::kInvalidRequest, std::move(m)};
  };
  if (req.topology) {
    for (const auto& s : req.topology->subtopologies) {
      if (!s.source_topic_regex.empty()) {
        return invalid("Regular expressions for source topics are not supported yet.");
      }
    }
  }
  if (Blank(req.member_id)) return invalid("MemberId can't be empty.");
  if (Blank(req.group_id)) return invalid("GroupId can't be empty.");
  if (Blank(req.instance_id)) return invalid("InstanceId can't be empty.");
  if (Blank(req.rack_id)) return invalid("RackId can't be empty.");
  if (req.member_epoch == 0) {
    if (req.rebalance_timeout_ms == -1) {
      return invalid("RebalanceTimeoutMs must be provided in first request.");
    }
    if (req.active_tasks && !req.active_tasks->empty()) {
      return invalid("ActiveTasks must be empty when (re-)joining.");
    }
    if (req.standby_tasks && !req.standby_tasks->empty()) {
      return invalid("StandbyTasks must be empty when (re-)joining.");
    }
    if (req.warmup_tasks && !req.warmup_tasks->empty()) {
      return invalid("WarmupTasks must be empty when (re-)joining.");
    }
    if (!req.topology) return invalid("Topology must be non-null when (re-)joining.");
    for (const auto& s : req.topology->subtopologies) {
      for (const auto& t : s.state_changelog_topics) {
        if (t.partitions != 0) {
          return HeartbeatError{
              kStreamsInvalidTopologyCode,
              fmt::format("Changelog topic {} must have an undefined partition count, but it is "
                          "set to {}.",
                          t.name, t.partitions)};
        }
      }
    }
  } else if (req.member_epoch == -2) {
    if (!req.instance_id) return invalid("InstanceId can't be null.");
  } else if (req.member_epoch < -2) {
    return invalid(fmt::format("MemberEpoch is {}, but must be greater than or equal to -2.",
                               req.member_epoch));
  }
  if ((req.active_tasks || req.standby_tasks || req.warmup_tasks) &&
      (!req.active_tasks || !req.standby_tasks || !req.warmup_tasks)) {
    return invalid("If one task-type is non-null, all must be non-null.");
  }
  if (req.member_epoch != 0 && req.topology) {
    return invalid("Topology can only be provided when (re-)joining.");
  }
  return std::nullopt;
}

StreamsTaskSet TaskSetOf(const std::vector<Request::TaskIds>& tasks) {
  StreamsTaskSet out;
  for (const auto& t : tasks) {
    if (t.partitions.empty()) continue;
    out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  }
  return out;
}

bool Contained(const std::vector<Request::TaskIds>& owned, const StreamsTaskSet& assigned) {
  for (const auto& t : owned) {
    auto it = assigned.find(t.subtopology_id);
    for (int32_t p : t.partitions) {
      if (it == assigned.end() || !it->second.contains(p)) return false;
    }
  }
  return true;
}

// throwIfStreamsGroupMemberEpochIsInvalid.
std::optional<HeartbeatError> CheckMemberEpoch(const StreamsGroupMember& m, const Request& req) {
  if (req.member_epoch > m.member_epoch) {
    return HeartbeatError{
        kafka_error::kFencedMemberEpoch,
        fmt::format("The streams group member has a greater member epoch ({}) than the one known "
                    "by the group coordinator ({}). The member must abandon all its partitions "
                    "and rejoin.",
                    req.member_epoch, m.member_epoch)};
  }
  if (req.member_epoch < m.member_epoch) {
    const StreamsTasks assigned = m.assigned_tasks.Tasks();
    auto contained = [](const std::optional<std::vector<Request::TaskIds>>& owned,
                        const StreamsTaskSet& tasks) { return !owned || Contained(*owned, tasks); };
    if (req.member_epoch != m.previous_member_epoch ||
        !contained(req.active_tasks, assigned.active) ||
        !contained(req.standby_tasks, assigned.standby) ||
        !contained(req.warmup_tasks, assigned.warmup)) {
      return HeartbeatError{
          kafka_error::kFencedMemberEpoch,
          fmt::format("The streams group member has a smaller member epoch ({}) than the one "
                      "known by the group coordinator ({}). The member must abandon all its "
                      "partitions and rejoin.",
                      req.member_epoch, m.member_epoch)};
    }
  }
  return std::nullopt;
}

// throwIfStaticMemberIsUnknown and throwIfInstanceIdIsFenced.
std::optional<HeartbeatError> CheckStaticMember(const StreamsGroupMember* m, const Request& req) {
  if (m == nullptr) {
    return HeartbeatError{kafka_error::kUnknownMemberId,
                          fmt::format("Instance id {} is unknown.", *req.instance_id)};
  }
  if (m->member_id != req.member_id) {
    return HeartbeatError{
        kafka_error::kFencedInstanceId,
        fmt::format("Static member {} with instance id {} was fenced by member {}.", req.member_id,
                    *req.instance_id, m->member_id)};
  }
  return std::nullopt;
}

// throwIfRequestContainsInvalidTasks.
std::optional<HeartbeatError> CheckTasks(
    const std::map<std::string, ConfiguredStreamsSubtopology>& subtopologies,
    const std::optional<std::vector<Request::TaskIds>>& tasks) {
  if (!tasks) return std::nullopt;
  for (const auto& t : *tasks) {
    auto s = subtopologies.find(t.subtopology_id);
    if (s == subtopologies.end()) {
      return HeartbeatError{
          kafka_error::kInvalidRequest,
          fmt::format("Subtopology {} does not exist in the topology.", t.subtopology_id)};
    }
    for (int32_t p : t.partitions) {
      if (p < 0 || p >= s->second.number_of_tasks) {
        return HeartbeatError{
            kafka_error::kInvalidRequest,
            fmt::format("Task {} for subtopology {} is invalid. Number of tasks for this "
                        "subtopology: {}",
                        p, t.subtopology_id, s->second.number_of_tasks)};
      }
    }
  }
  return std::nullopt;
}

// A hash of the topology's topics as they exist (name, partition count): seglog's own 64-bit
// FNV-1a as for consumer groups, not Kafka's KIP-1101 function (a Kafka broker recomputes it
// and bumps the epoch once). 0 when none exists.
int64_t TopicsHash(const StreamsTopology& topology, const TopicPartitionCounts& topics) {
  uint64_t h = 1469598103934665603ull;
  bool any = false;
  auto mix = [&h](const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  };
  for (const auto& name : topology.RequiredTopics()) {
    auto it = topics.find(name);
    if (it == topics.end()) continue;
    any = true;
    mix(name.data(), name.size());
    const uint8_t parts[5] = {
        0, static_cast<uint8_t>(it->second >> 24), static_cast<uint8_t>(it->second >> 16),
        static_cast<uint8_t>(it->second >> 8), static_cast<uint8_t>(it->second)};
    mix(parts, sizeof(parts));
  }
  return any ? static_cast<int64_t>(h) : 0;
}

bool MetadataChanged(const StreamsGroupMember& a, const StreamsGroupMember& b) {
  return a.instance_id != b.instance_id || a.rack_id != b.rack_id || a.client_id != b.client_id ||
         a.client_host != b.client_host || a.rebalance_timeout_ms != b.rebalance_timeout_ms ||
         a.topology_epoch != b.topology_epoch || a.process_id != b.process_id ||
         a.user_endpoint != b.user_endpoint || a.client_tags != b.client_tags;
}

std::vector<Response::TaskIds> ResponseTasks(const StreamsTaskSet& tasks) {
  std::vector<Response::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    t.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

StreamsGroupMetadata GroupMetadata(const StreamsGroup& g) {
  StreamsGroupMetadata m;
  m.epoch = g.group_epoch();
  m.metadata_hash = g.metadata_hash();
  m.validated_topology_epoch = g.validated_topology_epoch();
  m.last_assignment_configs = g.last_assignment_configs();
  return m;
}

// Kafka's updateStreamsTargetAssignment: `sticky` over every member (with `updated`, when
// given, as it is now), each member's previous target as its tasks; records for the targets
// that changed, then the target metadata.
Status UpdateTargetAssignment(StreamsGroup* group, int32_t epoch, const StreamsGroupMember* updated,
                              const StreamsGroupHeartbeatContext& ctx,
                              std::vector<OffsetsRecord>* records) {
  StreamsAssignmentSpec spec;
  spec.num_standby_replicas = ctx.config->streams.num_standby_replicas;
  if (group->configured_topology() && group->configured_topology()->ready()) {
    SetStreamsAssignmentTopology(*group->configured_topology(), &spec);
  }
  auto add = [&](const StreamsGroupMember& m) {
    StreamsAssignmentMember a;
    a.process_id = m.process_id;
    a.tasks = group->TargetOf(m.member_id);
    a.tasks.warmup.clear();
    a.task_offsets = group->TaskOffsetsOf(m.member_id).task_offsets;
    spec.members[m.member_id] = std::move(a);
  };
  for (const auto& [id, m] : group->members()) {
    if (updated == nullptr || id != updated->member_id) add(m);
  }
  if (updated != nullptr) add(*updated);
  auto assignment = AssignStreamsTasksSticky(spec);
  if (!assignment.ok()) {
    return Status::FailedPrecondition(
        fmt::format("Failed to compute a new target assignment for epoch {}: {}", epoch,
                    assignment.status().message()));
  }
  for (auto& [id, tasks] : *assignment) {
    if (group->TargetOf(id) == tasks && group->target_assignment().contains(id)) continue;
    records->push_back(StreamsGroupTargetAssignmentMemberRecord(group->group_id(), id, tasks));
    group->SetTarget(id, std::move(tasks));
  }
  records->push_back(
      StreamsGroupTargetAssignmentMetadataRecord(group->group_id(), epoch, ctx.now_ms));
  group->set_assignment_epoch(epoch);
  group->set_assignment_timestamp_ms(ctx.now_ms);
  return Status::OK();
}

// GroupMetadataManager.canComputeNextTargetAssignment.
bool CanComputeTargetAssignment(int64_t last_ms, int32_t interval_ms, int64_t now_ms) {
  return last_ms == 0 || interval_ms == 0 || now_ms >= last_ms + interval_ms;
}

Response ErrorResponse(int16_t code, std::string message) {
  Response r;
  r.error_code = code;
  r.error_message = std::move(message);
  return r;
}

}  // namespace

std::string NotAStreamsGroupMessage(const std::string& group_id) {
  return fmt::format("Group {} is not a streams group.", group_id);
}

std::map<std::string, std::string> StreamsAssignmentConfigs(const GroupCoordinatorConfig& c) {
  std::map<std::string, std::string> out{
      {"num.standby.replicas", std::to_string(c.streams.num_standby_replicas)}};
  if (!c.streams.rack_aware_assignment_tags.empty()) {
    std::string tags;
    for (const auto& t : c.streams.rack_aware_assignment_tags) {
      if (!tags.empty()) tags += ",";
      tags += t;
    }
    out["rack.aware.assignment.tags"] = tags;
  }
  return out;
}

Result<std::vector<OffsetsRecord>> StreamsDelayedTargetAssignment(
    StreamsGroup* group, const StreamsGroupHeartbeatContext& ctx) {
  std::vector<OffsetsRecord> records;
  // Kafka skips an empty group and one without a configured topology, and fails on a group
  // whose epoch has a target already (which cannot be while the delay holds the target back).
  if (group->members().empty() || group->group_epoch() <= group->assignment_epoch() ||
      !group->configured_topology()) {
    return records;
  }
  SEGLOG_RETURN_IF_ERROR(
      UpdateTargetAssignment(group, group->group_epoch(), nullptr, ctx, &records));
  return records;
}

std::vector<OffsetsRecord> FenceStreamsGroupMember(StreamsGroup* group,
                                                   const std::string& member_id,
                                                   const StreamsGroupHeartbeatContext& ctx) {
  std::vector<OffsetsRecord> records;
  if (group->FindMember(member_id) == nullptr) return records;
  const std::string& g = group->group_id();
  records.push_back(StreamsGroupCurrentMemberAssignmentTombstone(g, member_id));
  records.push_back(StreamsGroupTargetAssignmentMemberTombstone(g, member_id));
  records.push_back(StreamsGroupMemberMetadataTombstone(g, member_id));
  group->RemoveMember(member_id);
  group->RemoveTarget(member_id);
  group->set_group_epoch(group->group_epoch() + 1);
  group->set_last_assignment_configs(StreamsAssignmentConfigs(*ctx.config));
  records.push_back(StreamsGroupMetadataRecord(g, GroupMetadata(*group)));
  return records;
}

std::vector<OffsetsRecord> StreamsGroupTombstones(const StreamsGroup& group) {
  std::vector<OffsetsRecord> records;
  const std::string& g = group.group_id();
  for (const auto& [id, m] : group.members()) {
    records.push_back(StreamsGroupCurrentMemberAssignmentTombstone(g, id));
  }
  for (const auto& [id, m] : group.members()) {
    records.push_back(StreamsGroupTargetAssignmentMemberTombstone(g, id));
  }
  records.push_back(StreamsGroupTargetAssignmentMetadataTombstone(g));
  for (const auto& [id, m] : group.members()) {
    records.push_back(StreamsGroupMemberMetadataTombstone(g, id));
  }
  records.push_back(StreamsGroupMetadataTombstone(g));
  records.push_back(StreamsGroupTopologyTombstone(g));
  return records;
}

StreamsGroupHeartbeatResult StreamsGroupHeartbeat(StreamsGroup* group, bool group_exists,
                                                  int16_t version, const Request& req,
                                                  const StreamsGroupHeartbeatContext& ctx) {
  StreamsGroupHeartbeatResult result;
  auto fail = [&](int16_t code, std::string message) {
    result.response = ErrorResponse(code, std::move(message));
    // CoordinatorOperationExceptionHelper answers an unexpected exception (Kafka's
    // IllegalStateException and the like) as UNKNOWN_SERVER_ERROR without its message.
    if (code == kUnknownServerErrorCode) result.response.error_message.reset();
    result.records.clear();
    result.internal_topics_to_create.clear();
    result.member_id.clear();
    return result;
  };
  if (auto e = ValidateRequest(req)) return fail(e->code, e->message);
  const std::string& group_id = group->group_id();
  const StreamsGroupConfig& config = ctx.config->streams;

  // Leaving.
  if (req.member_epoch == -1 || req.member_epoch == -2) {
    if (!group_exists) {
      return fail(kafka_error::kGroupIdNotFound,
                  fmt::format("Streams group {} not found.", group_id));
    }
    const StreamsGroupMember* m = nullptr;
    if (req.instance_id) {
      std::optional<std::string> id = group->StaticMemberId(*req.instance_id);
      m = id ? group->FindMember(*id) : nullptr;
      if (auto e = CheckStaticMember(m, req)) return fail(e->code, e->message);
    } else {
      m = group->FindMember(req.member_id);
    }
    if (m == nullptr) {
      return fail(kafka_error::kUnknownMemberId,
                  fmt::format("Member {} is not a member of group {}.", req.member_id, group_id));
    }
    result.member_id = req.member_id;
    if (req.member_epoch == -1) {
      result.records = FenceStreamsGroupMember(group, req.member_id, ctx);
      result.member_removed = true;
    } else {
      StreamsGroupMember left = *m;
      left.previous_member_epoch = left.member_epoch;
      left.member_epoch = -2;
      result.records.push_back(StreamsGroupCurrentMemberAssignmentRecord(group_id, left));
      group->UpdateMember(std::move(left));
    }
    result.response.member_id = req.member_id;
    result.response.member_epoch = req.member_epoch;
    result.response.heartbeat_interval_ms = 0;
    return result;
  }

  // The group and the member. A group without members (Kafka's isEmpty) starts its initial
  // rebalance delay.
  const bool was_empty = group->members().empty();
  const bool joining = req.member_epoch == 0;
  if (!joining && !group_exists) {
    return fail(kafka_error::kGroupIdNotFound,
                fmt::format("Streams group {} not found.", group_id));
  }
  const StreamsGroupMember* existing = group->FindMember(req.member_id);
  const StreamsGroupMember* static_member = nullptr;
  if (req.instance_id) {
    std::optional<std::string> id = group->StaticMemberId(*req.instance_id);
    if (id) static_member = group->FindMember(*id);
  }
  if (joining && existing == nullptr && static_member == nullptr &&
      static_cast<int64_t>(group->members().size()) >= config.max_size) {
    return fail(kafka_error::kGroupMaxSizeReached,
                fmt::format("The streams group has reached its maximum capacity of {} members.",
                            config.max_size));
  }
  StreamsGroupMember member;
  bool is_new = false;
  if (req.instance_id && !joining) {
    // getOrMaybeCreateStaticStreamsGroupMember, not joining: the instance id's member.
    if (auto e = CheckStaticMember(static_member, req)) return fail(e->code, e->message);
    member = *static_member;
  } else if (req.instance_id && static_member != nullptr &&
             static_member->member_id != req.member_id) {
    // A static member rejoins with a new member id: it takes over the old member's tasks
    // once the old one has left temporarily (epoch -2).
    if (static_member->member_epoch != -2) {
      return fail(kafka_error::kUnreleasedInstanceId,
                  fmt::format("Static member {} with instance id {} cannot join the group because "
                              "the instance id is owned by {} member.",
                              req.member_id, *req.instance_id, static_member->member_id));
    }
    const StreamsGroupMember old = *static_member;
    StreamsGroupMember replacement = old;
    replacement.member_id = req.member_id;
    replacement.member_epoch = 0;
    replacement.previous_member_epoch = 0;
    const StreamsTasks target = group->TargetOf(old.member_id);
    result.records.push_back(StreamsGroupCurrentMemberAssignmentTombstone(group_id, old.member_id));
    result.records.push_back(StreamsGroupTargetAssignmentMemberTombstone(group_id, old.member_id));
    result.records.push_back(StreamsGroupMemberMetadataTombstone(group_id, old.member_id));
    result.records.push_back(StreamsGroupMemberMetadataRecord(group_id, replacement));
    result.records.push_back(
        StreamsGroupTargetAssignmentMemberRecord(group_id, replacement.member_id, target));
    result.records.push_back(StreamsGroupCurrentMemberAssignmentRecord(group_id, replacement));
    group->RemoveMember(old.member_id);
    group->RemoveTarget(old.member_id);
    group->SetTarget(replacement.member_id, target);
    group->UpdateMember(replacement);
    member = std::move(replacement);
  } else if (existing != nullptr) {
    member = *existing;
  } else if (joining) {
    member.member_id = req.member_id;
    is_new = true;
  } else {
    return fail(kafka_error::kUnknownMemberId,
                fmt::format("Member {} is not a member of group {}.", req.member_id, group_id));
  }
  if (!joining) {
    if (auto e = CheckMemberEpoch(member, req)) return fail(e->code, e->message);
  }

  // 1. The member's metadata.
  StreamsGroupMember updated = member;
  if (req.instance_id) updated.instance_id = req.instance_id;
  if (req.rack_id) updated.rack_id = req.rack_id;
  if (req.rebalance_timeout_ms != -1) updated.rebalance_timeout_ms = req.rebalance_timeout_ms;
  if (req.topology) updated.topology_epoch = req.topology->epoch;
  updated.client_id = ctx.client_id;
  updated.client_host = ctx.client_host;
  if (req.process_id) updated.process_id = *req.process_id;
  if (req.client_tags) {
    updated.client_tags.clear();
    for (const auto& kv : *req.client_tags) updated.client_tags[kv.key] = kv.value;
  }
  if (req.user_endpoint) {
    updated.user_endpoint = StreamsEndpoint{req.user_endpoint->host, req.user_endpoint->port};
  }
  bool bump = false;
  if (is_new || MetadataChanged(member, updated)) {
    result.records.push_back(StreamsGroupMemberMetadataRecord(group_id, updated));
    bump = true;
  }

  // 2. The topology.
  std::vector<Response::Status> statuses;
  if (req.topology) {
    // StreamsTopology.fromHeartbeatRequest collects the subtopologies by id with
    // Collectors.toMap: a repeated id throws IllegalStateException (UNKNOWN_SERVER_ERROR), for
    // a new group's first topology as for any later one.
    std::set<std::string> ids;
    for (const auto& sub : req.topology->subtopologies) {
      if (!ids.insert(sub.subtopology_id).second) {
        return fail(kUnknownServerErrorCode, "Duplicate key " + sub.subtopology_id);
      }
    }
    StreamsTopology requested = StreamsTopology::FromHeartbeat(*req.topology);
    if (!group->topology()) {
      result.records.push_back(StreamsGroupTopologyRecord(group_id, requested));
      group->SetTopology(std::move(requested));
      group->SetConfiguredTopology(std::nullopt);
    } else if (group->topology()->epoch > requested.epoch) {
      // A member with a stale topology: it gets STALE_TOPOLOGY below.
    } else if (!(*group->topology() == requested)) {
      return fail(kafka_error::kInvalidRequest, "Topology updates are not supported yet.");
    }
  } else if (!group->topology()) {
    return fail(kUnknownServerErrorCode,
                "The topology is null and the group topology is also null.");
  }
  const StreamsTopology& topology = *group->topology();
  if (updated.topology_epoch < topology.epoch) {
    auto& s = statuses.emplace_back();
    s.status_code = static_cast<int8_t>(StreamsGroupStatus::kStaleTopology);
    s.status_detail =
        fmt::format("The member's topology epoch {} is behind the group's topology epoch {}.",
                    updated.topology_epoch, topology.epoch);
  }

  // 3. The topology against the topics.
  static const TopicPartitionCounts kNoTopics;
  const TopicPartitionCounts& topics = ctx.topics != nullptr ? *ctx.topics : kNoTopics;
  const int64_t hash = TopicsHash(topology, topics);
  if (hash != group->metadata_hash()) bump = true;
  if (hash != group->metadata_hash() || !group->configured_topology()) {
    auto configured = ConfigureStreamsTopology(topology, hash, topics);
    if (!configured.ok()) {
      return fail(configured.status().IsInvalidArgument() ? kStreamsInvalidTopologyCode
                                                          : kUnknownServerErrorCode,
                  std::string(configured.status().message()));
    }
    group->SetConfiguredTopology(std::move(*configured));
  }
  const ConfiguredStreamsTopology& configured = *group->configured_topology();
  int32_t validated_epoch = -1;
  if (configured.ready()) {
    validated_epoch = topology.epoch;
    for (const auto* tasks : {&req.active_tasks, &req.standby_tasks, &req.warmup_tasks}) {
      if (auto e = CheckTasks(*configured.subtopologies, *tasks)) return fail(e->code, e->message);
    }
  }
  if (validated_epoch != group->validated_topology_epoch()) bump = true;
  const std::map<std::string, std::string> configs = StreamsAssignmentConfigs(*ctx.config);
  if (!bump && configs != group->last_assignment_configs()) bump = true;

  // The task offsets the member reports (every group.streams.task.offset.interval.ms): they
  // rank standby candidates in the next assignment.
  if (req.task_offsets || req.task_end_offsets) {
    StreamsMemberTaskOffsets offsets = group->TaskOffsetsOf(updated.member_id);
    auto fill = [](const std::vector<Request::TaskOffset>& in,
                   std::map<std::string, std::map<int32_t, int64_t>>* out) {
      out->clear();
      for (const auto& t : in) (*out)[t.subtopology_id][t.partition] = t.offset;
    };
    if (req.task_offsets) fill(*req.task_offsets, &offsets.task_offsets);
    if (req.task_end_offsets) fill(*req.task_end_offsets, &offsets.task_end_offsets);
    group->SetTaskOffsets(updated.member_id, std::move(offsets));
  }

  // 4. The group epoch and the target assignment.
  if (bump) {
    group->set_group_epoch(group->group_epoch() + 1);
    group->set_metadata_hash(hash);
    group->set_validated_topology_epoch(validated_epoch);
    group->set_last_assignment_configs(configs);
    result.records.push_back(StreamsGroupMetadataRecord(group_id, GroupMetadata(*group)));
  }
  // maybeUpdateStreamsTargetAssignment: while the initial delay runs, no target (the member
  // stays at the assignment epoch, with no tasks); after it, at most one new target per
  // assignment interval.
  const bool delay_starts = was_empty && config.initial_rebalance_delay_ms > 0;
  if (delay_starts) result.start_initial_delay_ms = config.initial_rebalance_delay_ms;
  const bool delayed = ctx.initial_delay_active || delay_starts;
  auto assignment_delayed = [&statuses](const char* why) {
    auto& s = statuses.emplace_back();
    s.status_code = static_cast<int8_t>(StreamsGroupStatus::kAssignmentDelayed);
    s.status_detail = fmt::format("Assignment delayed due to the configured {}.", why);
  };
  if (delayed) {
    assignment_delayed("initial rebalance delay");
  } else if (group->group_epoch() > group->assignment_epoch()) {
    if (CanComputeTargetAssignment(group->assignment_timestamp_ms(), config.assignment_interval_ms,
                                   ctx.now_ms)) {
      Status s =
          UpdateTargetAssignment(group, group->group_epoch(), &updated, ctx, &result.records);
      if (!s.ok()) return fail(kUnknownServerErrorCode, std::string(s.message()));
    } else {
      assignment_delayed("assignment interval");
    }
  }

  // 5. Reconciliation.
  std::optional<StreamsTasks> owned;
  if (req.active_tasks && req.standby_tasks && req.warmup_tasks) {
    owned = StreamsTasks{TaskSetOf(*req.active_tasks), TaskSetOf(*req.standby_tasks),
                         TaskSetOf(*req.warmup_tasks)};
  }
  auto reconciled = ReconcileStreamsMember(
      updated, group->assignment_epoch(),
      delayed ? StreamsTasks{} : group->TargetOf(updated.member_id), owned, group->Owners());
  if (!reconciled.ok()) {
    std::string m(reconciled.status().message());
    const std::string prefix = "FENCED_MEMBER_EPOCH: ";
    if (m.rfind(prefix, 0) == 0)
      return fail(kafka_error::kFencedMemberEpoch, m.substr(prefix.size()));
    return fail(kUnknownServerErrorCode, m);
  }
  const bool tasks_changed = !(reconciled->assigned_tasks == member.assigned_tasks);
  // A new member kept at epoch 0 by the initial delay is unchanged (Kafka's maybeReconcile
  // writes no assignment for it).
  if (!(*reconciled == updated) || (is_new && !delayed)) {
    result.records.push_back(StreamsGroupCurrentMemberAssignmentRecord(group_id, *reconciled));
  }
  group->UpdateMember(*reconciled);
  if (req.shutdown_application) group->set_shutdown_request_member_id(req.member_id);

  // The response.
  Response& r = result.response;
  r.member_id = reconciled->member_id;
  r.member_epoch = reconciled->member_epoch;
  r.heartbeat_interval_ms = config.heartbeat_interval_ms;
  // v0 carries the lag as an int32 (AcceptableRecoveryLagLegacy), v1 as an int64; each
  // version refuses the other's field.
  if (version == 0) {
    r.acceptable_recovery_lag_legacy =
        static_cast<int32_t>(std::min<int64_t>(config.acceptable_recovery_lag, INT32_MAX));
  } else {
    r.acceptable_recovery_lag = config.acceptable_recovery_lag;
  }
  r.task_offset_interval_ms = config.task_offset_interval_ms;
  if (joining || tasks_changed) {
    const StreamsTasks tasks = reconciled->assigned_tasks.Tasks();
    r.active_tasks = ResponseTasks(tasks.active);
    r.standby_tasks = ResponseTasks(tasks.standby);
    r.warmup_tasks = ResponseTasks(tasks.warmup);
    if (reconciled->user_endpoint) {
      group->set_endpoint_information_epoch(group->endpoint_information_epoch() + 1);
    }
  }
  r.endpoint_information_epoch = group_exists ? group->endpoint_information_epoch() : 0;
  if (configured.status) {
    auto& s = statuses.emplace_back();
    s.status_code = static_cast<int8_t>(*configured.status);
    s.status_detail = configured.status_detail;
    result.internal_topics_to_create = configured.internal_topics_to_create;
  }
  if (group->shutdown_request_member_id()) {
    auto& s = statuses.emplace_back();
    s.status_code = static_cast<int8_t>(StreamsGroupStatus::kShutdownApplication);
    s.status_detail = fmt::format(
        "Streams group member {} encountered a fatal error and requested a shutdown for the "
        "entire application.",
        *group->shutdown_request_member_id());
  }
  r.status = std::move(statuses);
  result.member_id = reconciled->member_id;
  return result;
}

}  // namespace seglog
