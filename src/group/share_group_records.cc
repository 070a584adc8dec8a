// The share-group records of __consumer_offsets; see share_group_records.h.
#include "group/share_group_records.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/generated/share_group_current_member_assignment_key.h"
#include "protocol/generated/share_group_current_member_assignment_value.h"
#include "protocol/generated/share_group_member_metadata_key.h"
#include "protocol/generated/share_group_member_metadata_value.h"
#include "protocol/generated/share_group_metadata_key.h"
#include "protocol/generated/share_group_metadata_value.h"
#include "protocol/generated/share_group_state_partition_metadata_key.h"
#include "protocol/generated/share_group_state_partition_metadata_value.h"
#include "protocol/generated/share_group_target_assignment_member_key.h"
#include "protocol/generated/share_group_target_assignment_member_value.h"
#include "protocol/generated/share_group_target_assignment_metadata_key.h"
#include "protocol/generated/share_group_target_assignment_metadata_value.h"

namespace seglog {

namespace {

namespace p = protocol;

using offsets_record::GroupKey;
using offsets_record::KeyOnly;
using offsets_record::KeyValue;
using offsets_record::MemberKey;

// TopicPartitions -> [{topicId, partitions[]}] of a generated struct with those two fields.
template <typename T>
std::vector<T> ToRecord(const TopicPartitions& tps) {
  std::vector<T> out;
  for (const auto& [topic, partitions] : tps) {
    if (partitions.empty()) continue;
    T& t = out.emplace_back();
    t.topic_id = topic;
    t.partitions.assign(partitions.begin(), partitions.end());
  }
  return out;
}

template <typename T>
TopicPartitions FromRecord(const std::vector<T>& in) {
  TopicPartitions out;
  for (const T& t : in) {
    if (!t.partitions.empty()) out[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  }
  return out;
}

Status Corrupt(std::string_view what, const Status& s) {
  return Status::Corruption(fmt::format("{}: {}", what, s.ToString()));
}

}  // namespace

bool IsShareGroupRecordType(int16_t type) {
  return type >= kShareGroupMemberMetadataRecordType &&
         type <= kShareGroupStatePartitionMetadataRecordType;
}

OffsetsRecord ShareGroupMemberMetadataRecord(const std::string& group,
                                             const ShareGroupMember& member) {
  p::ShareGroupMemberMetadataValue v;
  v.rack_id = member.rack_id;
  v.client_id = member.client_id;
  v.client_host = member.client_host;
  v.subscribed_topic_names = member.subscribed_topic_names;
  return KeyValue(kShareGroupMemberMetadataRecordType,
                  MemberKey<p::ShareGroupMemberMetadataKey>(group, member.member_id), v);
}

OffsetsRecord ShareGroupMemberMetadataTombstone(const std::string& group,
                                                const std::string& member_id) {
  return KeyOnly(kShareGroupMemberMetadataRecordType,
                 MemberKey<p::ShareGroupMemberMetadataKey>(group, member_id));
}

OffsetsRecord ShareGroupMetadataRecord(const std::string& group, int32_t epoch,
                                       int64_t metadata_hash) {
  p::ShareGroupMetadataValue v;
  v.epoch = epoch;
  v.metadata_hash = metadata_hash;
  return KeyValue(kShareGroupMetadataRecordType, GroupKey<p::ShareGroupMetadataKey>(group), v);
}

OffsetsRecord ShareGroupMetadataTombstone(const std::string& group) {
  return KeyOnly(kShareGroupMetadataRecordType, GroupKey<p::ShareGroupMetadataKey>(group));
}

OffsetsRecord ShareGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                       int32_t assignment_epoch,
                                                       int64_t timestamp_ms) {
  p::ShareGroupTargetAssignmentMetadataValue v;
  v.assignment_epoch = assignment_epoch;
  v.assignment_timestamp = timestamp_ms;
  return KeyValue(kShareGroupTargetAssignmentMetadataRecordType,
                  GroupKey<p::ShareGroupTargetAssignmentMetadataKey>(group), v);
}

OffsetsRecord ShareGroupTargetAssignmentMetadataTombstone(const std::string& group) {
  return KeyOnly(kShareGroupTargetAssignmentMetadataRecordType,
                 GroupKey<p::ShareGroupTargetAssignmentMetadataKey>(group));
}

OffsetsRecord ShareGroupTargetAssignmentMemberRecord(const std::string& group,
                                                     const std::string& member_id,
                                                     const TopicPartitions& target) {
  p::ShareGroupTargetAssignmentMemberValue v;
  v.topic_partitions = ToRecord<p::ShareGroupTargetAssignmentMemberValue::TopicPartition>(target);
  return KeyValue(kShareGroupTargetAssignmentMemberRecordType,
                  MemberKey<p::ShareGroupTargetAssignmentMemberKey>(group, member_id), v);
}

OffsetsRecord ShareGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                        const std::string& member_id) {
  return KeyOnly(kShareGroupTargetAssignmentMemberRecordType,
                 MemberKey<p::ShareGroupTargetAssignmentMemberKey>(group, member_id));
}

OffsetsRecord ShareGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                      const ShareGroupMember& member) {
  p::ShareGroupCurrentMemberAssignmentValue v;
  v.member_epoch = member.member_epoch;
  v.previous_member_epoch = member.previous_member_epoch;
  v.state = member.state;
  v.assigned_partitions = ToRecord<p::ShareGroupCurrentMemberAssignmentValue::TopicPartitions>(
      member.assigned_partitions);
  return KeyValue(kShareGroupCurrentMemberAssignmentRecordType,
                  MemberKey<p::ShareGroupCurrentMemberAssignmentKey>(group, member.member_id), v);
}

OffsetsRecord ShareGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                         const std::string& member_id) {
  return KeyOnly(kShareGroupCurrentMemberAssignmentRecordType,
                 MemberKey<p::ShareGroupCurrentMemberAssignmentKey>(group, member_id));
}

OffsetsRecord ShareGroupStatePartitionMetadataRecord(const std::string& group,
                                                     const ShareGroupStatePartitions& sp) {
  using V = p::ShareGroupStatePartitionMetadataValue;
  V v;
  auto topics = [](const ShareStateTopics& in) {
    std::vector<V::TopicPartitionsInfo> out;
    for (const auto& [id, t] : in) {
      V::TopicPartitionsInfo& o = out.emplace_back();
      o.topic_id = id;
      o.topic_name = t.name;
      o.partitions.assign(t.partitions.begin(), t.partitions.end());
    }
    return out;
  };
  v.initializing_topics = topics(sp.initializing);
  v.initialized_topics = topics(sp.initialized);
  for (const auto& [id, name] : sp.deleting) {
    V::TopicInfo& o = v.deleting_topics.emplace_back();
    o.topic_id = id;
    o.topic_name = name;
  }
  return KeyValue(kShareGroupStatePartitionMetadataRecordType,
                  GroupKey<p::ShareGroupStatePartitionMetadataKey>(group), v);
}

OffsetsRecord ShareGroupStatePartitionMetadataTombstone(const std::string& group) {
  return KeyOnly(kShareGroupStatePartitionMetadataRecordType,
                 GroupKey<p::ShareGroupStatePartitionMetadataKey>(group));
}

Result<LoadedShareGroupRecord> DecodeShareGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  if (key.size() < 2) return Status::Corruption("Could not read the record type from the key.");
  const int16_t type = LoadBEInt16(key.data());
  const std::span<const uint8_t> key_body = key.subspan(2);
  std::span<const uint8_t> value_body;
  if (value) {
    if (value->size() < 2) return Status::Corruption("Could not read version from value's buffer.");
    const int16_t version = LoadBEInt16(value->data());
    if (version != 0) {
      return Status::Corruption(
          fmt::format("Unknown record version {} for share group record type {}", version, type));
    }
    value_body = value->subspan(2);
  }
  switch (type) {
    case kShareGroupMemberMetadataRecordType: {
      auto k = p::ShareGroupMemberMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupMemberMetadataKey", k.status());
      LoadedShareGroupMemberMetadata out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupMemberMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupMemberMetadataValue", v.status());
        ShareGroupMember m;
        m.member_id = k->member_id;
        m.rack_id = v->rack_id;
        m.client_id = v->client_id;
        m.client_host = v->client_host;
        m.subscribed_topic_names = v->subscribed_topic_names;
        out.value = std::move(m);
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    case kShareGroupMetadataRecordType: {
      auto k = p::ShareGroupMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupMetadataKey", k.status());
      LoadedShareGroupMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupMetadataValue", v.status());
        out.value = LoadedShareGroupMetadata::Value{v->epoch, v->metadata_hash};
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    case kShareGroupTargetAssignmentMetadataRecordType: {
      auto k = p::ShareGroupTargetAssignmentMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupTargetAssignmentMetadataKey", k.status());
      LoadedShareGroupTargetAssignmentMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupTargetAssignmentMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupTargetAssignmentMetadataValue", v.status());
        out.value = LoadedShareGroupTargetAssignmentMetadata::Value{v->assignment_epoch,
                                                                    v->assignment_timestamp};
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    case kShareGroupTargetAssignmentMemberRecordType: {
      auto k = p::ShareGroupTargetAssignmentMemberKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupTargetAssignmentMemberKey", k.status());
      LoadedShareGroupTargetAssignmentMember out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupTargetAssignmentMemberValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupTargetAssignmentMemberValue", v.status());
        out.value = FromRecord(v->topic_partitions);
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    case kShareGroupCurrentMemberAssignmentRecordType: {
      auto k = p::ShareGroupCurrentMemberAssignmentKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupCurrentMemberAssignmentKey", k.status());
      LoadedShareGroupCurrentMemberAssignment out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupCurrentMemberAssignmentValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupCurrentMemberAssignmentValue", v.status());
        out.value = LoadedShareGroupCurrentMemberAssignment::Value{
            v->member_epoch, v->previous_member_epoch, v->state,
            FromRecord(v->assigned_partitions)};
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    case kShareGroupStatePartitionMetadataRecordType: {
      auto k = p::ShareGroupStatePartitionMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ShareGroupStatePartitionMetadataKey", k.status());
      LoadedShareGroupStatePartitionMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = p::ShareGroupStatePartitionMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ShareGroupStatePartitionMetadataValue", v.status());
        ShareGroupStatePartitions sp;
        for (const auto& t : v->initializing_topics) {
          ShareStateTopic& st = sp.initializing[t.topic_id];
          st.name = t.topic_name;
          st.partitions.insert(t.partitions.begin(), t.partitions.end());
        }
        for (const auto& t : v->initialized_topics) {
          ShareStateTopic& st = sp.initialized[t.topic_id];
          st.name = t.topic_name;
          st.partitions.insert(t.partitions.begin(), t.partitions.end());
        }
        for (const auto& t : v->deleting_topics) sp.deleting[t.topic_id] = t.topic_name;
        out.value = std::move(sp);
      }
      return LoadedShareGroupRecord(std::move(out));
    }
    default:
      return Status::Corruption(fmt::format("{} is not a share group record type", type));
  }
}

}  // namespace seglog
