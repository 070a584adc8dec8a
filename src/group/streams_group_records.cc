// The streams-group records of __consumer_offsets; see streams_group_records.h.
#include "group/streams_group_records.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/generated/streams_group_current_member_assignment_key.h"
#include "protocol/generated/streams_group_current_member_assignment_value.h"
#include "protocol/generated/streams_group_member_metadata_key.h"
#include "protocol/generated/streams_group_member_metadata_value.h"
#include "protocol/generated/streams_group_metadata_key.h"
#include "protocol/generated/streams_group_metadata_value.h"
#include "protocol/generated/streams_group_target_assignment_member_key.h"
#include "protocol/generated/streams_group_target_assignment_member_value.h"
#include "protocol/generated/streams_group_target_assignment_metadata_key.h"
#include "protocol/generated/streams_group_target_assignment_metadata_value.h"
#include "protocol/generated/streams_group_topology_key.h"
#include "protocol/generated/streams_group_topology_value.h"

namespace seglog {

namespace {

using offsets_record::GroupKey;
using offsets_record::KeyOnly;
using offsets_record::KeyValue;
using offsets_record::MemberKey;

using TargetValue = protocol::StreamsGroupTargetAssignmentMemberValue;
using CurrentValue = protocol::StreamsGroupCurrentMemberAssignmentValue;

template <typename TaskIds>
std::vector<TaskIds> ToRecord(const StreamsTaskSet& tasks) {
  std::vector<TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    t.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

std::vector<CurrentValue::TaskIds> ToRecordWithEpochs(const StreamsEpochTasks& tasks) {
  std::vector<CurrentValue::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    std::vector<int32_t> epochs;
    for (const auto& [p, epoch] : parts) {
      t.partitions.push_back(p);
      epochs.push_back(epoch);
    }
    t.assignment_epochs = std::move(epochs);
  }
  return out;
}

template <typename TaskIds>
StreamsTaskSet FromRecord(const std::vector<TaskIds>& in) {
  StreamsTaskSet out;
  for (const auto& t : in) {
    if (t.partitions.empty()) continue;
    out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
  }
  return out;
}

StreamsEpochTasks FromRecordWithEpochs(const std::vector<CurrentValue::TaskIds>& in,
                                       int32_t member_epoch) {
  StreamsEpochTasks out;
  for (const auto& t : in) {
    if (t.partitions.empty()) continue;
    const bool has_epochs =
        t.assignment_epochs && t.assignment_epochs->size() == t.partitions.size();
    auto& m = out[t.subtopology_id];
    for (size_t i = 0; i < t.partitions.size(); ++i) {
      m[t.partitions[i]] = has_epochs ? (*t.assignment_epochs)[i] : member_epoch;
    }
  }
  return out;
}

Status Corrupt(std::string_view what, const Status& s) {
  return Status::Corruption(fmt::format("{}: {}", what, s.ToString()));
}

}  // namespace

bool IsStreamsGroupRecordType(int16_t type) {
  return type >= kStreamsGroupMetadataRecordType && type <= kStreamsGroupTopologyRecordType;
}

OffsetsRecord StreamsGroupMetadataRecord(const std::string& group, const StreamsGroupMetadata& m) {
  protocol::StreamsGroupMetadataValue v;
  v.epoch = m.epoch;
  v.metadata_hash = m.metadata_hash;
  v.validated_topology_epoch = m.validated_topology_epoch;
  std::vector<protocol::StreamsGroupMetadataValue::LastAssignmentConfig> configs;
  for (const auto& [key, value] : m.last_assignment_configs) {
    auto& c = configs.emplace_back();
    c.key = key;
    c.value = value;
  }
  v.last_assignment_configs = std::move(configs);
  v.stored_description_topology_epoch = m.stored_description_topology_epoch;
  v.failed_description_topology_epoch = m.failed_description_topology_epoch;
  return KeyValue(kStreamsGroupMetadataRecordType,
                  GroupKey<protocol::StreamsGroupMetadataKey>(group), v);
}

OffsetsRecord StreamsGroupMetadataTombstone(const std::string& group) {
  return KeyOnly(kStreamsGroupMetadataRecordType,
                 GroupKey<protocol::StreamsGroupMetadataKey>(group));
}

OffsetsRecord StreamsGroupMemberMetadataRecord(const std::string& group,
                                               const StreamsGroupMember& member) {
  protocol::StreamsGroupMemberMetadataValue v;
  v.instance_id = member.instance_id;
  v.rack_id = member.rack_id;
  v.client_id = member.client_id;
  v.client_host = member.client_host;
  v.rebalance_timeout_ms = member.rebalance_timeout_ms;
  v.topology_epoch = member.topology_epoch;
  v.process_id = member.process_id;
  if (member.user_endpoint) {
    auto& e = v.user_endpoint.emplace();
    e.host = member.user_endpoint->host;
    e.port = member.user_endpoint->port;
  } else {
    v.user_endpoint = std::nullopt;
  }
  for (const auto& [key, value] : member.client_tags) {
    auto& t = v.client_tags.emplace_back();
    t.key = key;
    t.value = value;
  }
  return KeyValue(kStreamsGroupMemberMetadataRecordType,
                  MemberKey<protocol::StreamsGroupMemberMetadataKey>(group, member.member_id), v);
}

OffsetsRecord StreamsGroupMemberMetadataTombstone(const std::string& group,
                                                  const std::string& member_id) {
  return KeyOnly(kStreamsGroupMemberMetadataRecordType,
                 MemberKey<protocol::StreamsGroupMemberMetadataKey>(group, member_id));
}

OffsetsRecord StreamsGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                         int32_t assignment_epoch,
                                                         int64_t timestamp_ms) {
  protocol::StreamsGroupTargetAssignmentMetadataValue v;
  v.assignment_epoch = assignment_epoch;
  v.assignment_timestamp = timestamp_ms;
  return KeyValue(kStreamsGroupTargetAssignmentMetadataRecordType,
                  GroupKey<protocol::StreamsGroupTargetAssignmentMetadataKey>(group), v);
}

OffsetsRecord StreamsGroupTargetAssignmentMetadataTombstone(const std::string& group) {
  return KeyOnly(kStreamsGroupTargetAssignmentMetadataRecordType,
                 GroupKey<protocol::StreamsGroupTargetAssignmentMetadataKey>(group));
}

OffsetsRecord StreamsGroupTargetAssignmentMemberRecord(const std::string& group,
                                                       const std::string& member_id,
                                                       const StreamsTasks& target) {
  TargetValue v;
  v.active_tasks = ToRecord<TargetValue::TaskIds>(target.active);
  v.standby_tasks = ToRecord<TargetValue::TaskIds>(target.standby);
  v.warmup_tasks = ToRecord<TargetValue::TaskIds>(target.warmup);
  return KeyValue(kStreamsGroupTargetAssignmentMemberRecordType,
                  MemberKey<protocol::StreamsGroupTargetAssignmentMemberKey>(group, member_id), v);
}

OffsetsRecord StreamsGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                          const std::string& member_id) {
  return KeyOnly(kStreamsGroupTargetAssignmentMemberRecordType,
                 MemberKey<protocol::StreamsGroupTargetAssignmentMemberKey>(group, member_id));
}

OffsetsRecord StreamsGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                        const StreamsGroupMember& member) {
  CurrentValue v;
  v.member_epoch = member.member_epoch;
  v.previous_member_epoch = member.previous_member_epoch;
  v.state = static_cast<int8_t>(member.state);
  v.active_tasks = ToRecordWithEpochs(member.assigned_tasks.active);
  v.standby_tasks = ToRecord<CurrentValue::TaskIds>(member.assigned_tasks.standby);
  v.warmup_tasks = ToRecord<CurrentValue::TaskIds>(member.assigned_tasks.warmup);
  v.active_tasks_pending_revocation = ToRecordWithEpochs(member.tasks_pending_revocation.active);
  v.standby_tasks_pending_revocation =
      ToRecord<CurrentValue::TaskIds>(member.tasks_pending_revocation.standby);
  v.warmup_tasks_pending_revocation =
      ToRecord<CurrentValue::TaskIds>(member.tasks_pending_revocation.warmup);
  return KeyValue(
      kStreamsGroupCurrentMemberAssignmentRecordType,
      MemberKey<protocol::StreamsGroupCurrentMemberAssignmentKey>(group, member.member_id), v);
}

OffsetsRecord StreamsGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                           const std::string& member_id) {
  return KeyOnly(kStreamsGroupCurrentMemberAssignmentRecordType,
                 MemberKey<protocol::StreamsGroupCurrentMemberAssignmentKey>(group, member_id));
}

OffsetsRecord StreamsGroupTopologyRecord(const std::string& group, const StreamsTopology& t) {
  return KeyValue(kStreamsGroupTopologyRecordType,
                  GroupKey<protocol::StreamsGroupTopologyKey>(group), t.ToRecord());
}

OffsetsRecord StreamsGroupTopologyTombstone(const std::string& group) {
  return KeyOnly(kStreamsGroupTopologyRecordType,
                 GroupKey<protocol::StreamsGroupTopologyKey>(group));
}

Result<LoadedStreamsGroupRecord> DecodeStreamsGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  if (key.size() < 2) return Status::Corruption("Could not read the record type from the key.");
  const int16_t type = LoadBEInt16(key.data());
  const std::span<const uint8_t> key_body = key.subspan(2);
  std::span<const uint8_t> value_body;
  if (value) {
    if (value->size() < 2) return Status::Corruption("Could not read version from value's buffer.");
    const int16_t version = LoadBEInt16(value->data());
    if (version != 0 && type != kStreamsGroupPartitionMetadataRecordType) {
      return Status::Corruption(
          fmt::format("Unknown record version {} for streams group record type {}", version, type));
    }
    value_body = value->subspan(2);
  }
  switch (type) {
    case kStreamsGroupMetadataRecordType: {
      auto k = protocol::StreamsGroupMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupMetadataKey", k.status());
      LoadedStreamsGroupMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = protocol::StreamsGroupMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupMetadataValue", v.status());
        StreamsGroupMetadata m;
        m.epoch = v->epoch;
        m.metadata_hash = v->metadata_hash;
        m.validated_topology_epoch = v->validated_topology_epoch;
        if (v->last_assignment_configs) {
          for (const auto& c : *v->last_assignment_configs) {
            m.last_assignment_configs[c.key] = c.value;
          }
        }
        m.stored_description_topology_epoch = v->stored_description_topology_epoch;
        m.failed_description_topology_epoch = v->failed_description_topology_epoch;
        out.value = std::move(m);
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    case kStreamsGroupPartitionMetadataRecordType: {
      // Same key layout as type 17: {GroupId}.
      auto k = protocol::StreamsGroupMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupPartitionMetadataKey", k.status());
      return LoadedStreamsGroupRecord(IgnoredStreamsGroupRecord{type, k->group_id});
    }
    case kStreamsGroupMemberMetadataRecordType: {
      auto k = protocol::StreamsGroupMemberMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupMemberMetadataKey", k.status());
      LoadedStreamsGroupMemberMetadata out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = protocol::StreamsGroupMemberMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupMemberMetadataValue", v.status());
        StreamsGroupMember m;
        m.member_id = k->member_id;
        m.instance_id = v->instance_id;
        m.rack_id = v->rack_id;
        m.client_id = v->client_id;
        m.client_host = v->client_host;
        m.rebalance_timeout_ms = v->rebalance_timeout_ms;
        m.topology_epoch = v->topology_epoch;
        m.process_id = v->process_id;
        if (v->user_endpoint) {
          m.user_endpoint = StreamsEndpoint{v->user_endpoint->host, v->user_endpoint->port};
        }
        for (const auto& t : v->client_tags) m.client_tags[t.key] = t.value;
        out.value = std::move(m);
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    case kStreamsGroupTargetAssignmentMetadataRecordType: {
      auto k = protocol::StreamsGroupTargetAssignmentMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupTargetAssignmentMetadataKey", k.status());
      LoadedStreamsGroupTargetAssignmentMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = protocol::StreamsGroupTargetAssignmentMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupTargetAssignmentMetadataValue", v.status());
        out.value = LoadedStreamsGroupTargetAssignmentMetadata::Value{v->assignment_epoch,
                                                                      v->assignment_timestamp};
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    case kStreamsGroupTargetAssignmentMemberRecordType: {
      auto k = protocol::StreamsGroupTargetAssignmentMemberKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupTargetAssignmentMemberKey", k.status());
      LoadedStreamsGroupTargetAssignmentMember out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = TargetValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupTargetAssignmentMemberValue", v.status());
        out.value = StreamsTasks{FromRecord(v->active_tasks), FromRecord(v->standby_tasks),
                                 FromRecord(v->warmup_tasks)};
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    case kStreamsGroupCurrentMemberAssignmentRecordType: {
      auto k = protocol::StreamsGroupCurrentMemberAssignmentKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupCurrentMemberAssignmentKey", k.status());
      LoadedStreamsGroupCurrentMemberAssignment out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = CurrentValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupCurrentMemberAssignmentValue", v.status());
        LoadedStreamsGroupCurrentMemberAssignment::Value c;
        c.member_epoch = v->member_epoch;
        c.previous_member_epoch = v->previous_member_epoch;
        c.state = StreamsMemberStateFromValue(v->state);
        c.assigned_tasks =
            StreamsTasksWithEpochs{FromRecordWithEpochs(v->active_tasks, v->member_epoch),
                                   FromRecord(v->standby_tasks), FromRecord(v->warmup_tasks)};
        c.tasks_pending_revocation = StreamsTasksWithEpochs{
            FromRecordWithEpochs(v->active_tasks_pending_revocation, v->member_epoch),
            FromRecord(v->standby_tasks_pending_revocation),
            FromRecord(v->warmup_tasks_pending_revocation)};
        out.value = std::move(c);
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    case kStreamsGroupTopologyRecordType: {
      auto k = protocol::StreamsGroupTopologyKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("StreamsGroupTopologyKey", k.status());
      LoadedStreamsGroupTopology out{k->group_id, std::nullopt};
      if (value) {
        auto v = protocol::StreamsGroupTopologyValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("StreamsGroupTopologyValue", v.status());
        out.value = StreamsTopology::FromRecord(*v);
      }
      return LoadedStreamsGroupRecord(std::move(out));
    }
    default:
      return Status::InvalidArgument(
          fmt::format("record type {} is not a streams group record", type));
  }
}

}  // namespace seglog
