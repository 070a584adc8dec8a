// The consumer-group records of __consumer_offsets; see consumer_group_records.h.
#include "group/consumer_group_records.h"

#include <fmt/format.h>

#include <set>

#include "base/coding.h"
#include "protocol/generated/consumer_group_current_member_assignment_key.h"
#include "protocol/generated/consumer_group_current_member_assignment_value.h"
#include "protocol/generated/consumer_group_member_metadata_key.h"
#include "protocol/generated/consumer_group_member_metadata_value.h"
#include "protocol/generated/consumer_group_metadata_key.h"
#include "protocol/generated/consumer_group_metadata_value.h"
#include "protocol/generated/consumer_group_partition_metadata_key.h"
#include "protocol/generated/consumer_group_regular_expression_key.h"
#include "protocol/generated/consumer_group_regular_expression_value.h"
#include "protocol/generated/consumer_group_target_assignment_member_key.h"
#include "protocol/generated/consumer_group_target_assignment_member_value.h"
#include "protocol/generated/consumer_group_target_assignment_metadata_key.h"
#include "protocol/generated/consumer_group_target_assignment_metadata_value.h"

namespace seglog {

namespace {

using offsets_record::GroupKey;
using offsets_record::KeyOnly;
using offsets_record::KeyValue;
using offsets_record::MemberKey;

using CurrentValue = protocol::ConsumerGroupCurrentMemberAssignmentValue;

std::vector<CurrentValue::TopicPartitions> ToRecord(const EpochPartitions& p) {
  std::vector<CurrentValue::TopicPartitions> out;
  for (const auto& [topic, partitions] : p) {
    auto& t = out.emplace_back();
    t.topic_id = topic;
    std::vector<int32_t> epochs;
    for (const auto& [partition, epoch] : partitions) {
      t.partitions.push_back(partition);
      epochs.push_back(epoch);
    }
    t.assignment_epochs = std::move(epochs);
  }
  return out;
}

Status FromRecord(const std::vector<CurrentValue::TopicPartitions>& in, int32_t member_epoch,
                  EpochPartitions* out) {
  for (const auto& t : in) {
    // A record without epochs (written before they existed) means the member's epoch.
    const bool has_epochs = t.assignment_epochs && !t.assignment_epochs->empty();
    if (has_epochs && t.assignment_epochs->size() != t.partitions.size()) {
      return Status::Corruption(fmt::format(
          "ConsumerGroupCurrentMemberAssignmentValue: {} assignment epochs for {} partitions",
          t.assignment_epochs->size(), t.partitions.size()));
    }
    if (t.partitions.empty()) continue;
    auto& m = (*out)[t.topic_id];
    for (size_t i = 0; i < t.partitions.size(); ++i) {
      m[t.partitions[i]] = has_epochs ? (*t.assignment_epochs)[i] : member_epoch;
    }
  }
  return Status::OK();
}

Status Corrupt(std::string_view what, const Status& s) {
  return Status::Corruption(fmt::format("{}: {}", what, s.ToString()));
}

}  // namespace

bool IsConsumerGroupRecordType(int16_t type) {
  return (type >= kConsumerGroupMetadataRecordType &&
          type <= kConsumerGroupCurrentMemberAssignmentRecordType) ||
         type == kConsumerGroupRegularExpressionRecordType;
}

OffsetsRecord ConsumerGroupMetadataRecord(const std::string& group, int32_t epoch,
                                          int64_t metadata_hash) {
  protocol::ConsumerGroupMetadataValue v;
  v.epoch = epoch;
  v.metadata_hash = metadata_hash;
  return KeyValue(kConsumerGroupMetadataRecordType,
                  GroupKey<protocol::ConsumerGroupMetadataKey>(group), v);
}

OffsetsRecord ConsumerGroupMetadataTombstone(const std::string& group) {
  return KeyOnly(kConsumerGroupMetadataRecordType,
                 GroupKey<protocol::ConsumerGroupMetadataKey>(group));
}

OffsetsRecord ConsumerGroupPartitionMetadataTombstone(const std::string& group) {
  return KeyOnly(kConsumerGroupPartitionMetadataRecordType,
                 GroupKey<protocol::ConsumerGroupPartitionMetadataKey>(group));
}

OffsetsRecord ConsumerGroupMemberMetadataRecord(const std::string& group,
                                                const ConsumerGroupMember& member) {
  protocol::ConsumerGroupMemberMetadataValue v;
  v.instance_id = member.instance_id;
  v.rack_id = member.rack_id;
  v.client_id = member.client_id;
  v.client_host = member.client_host;
  v.subscribed_topic_names = member.subscribed_topic_names;
  v.subscribed_topic_regex = member.subscribed_topic_regex;
  v.rebalance_timeout_ms = member.rebalance_timeout_ms;
  v.server_assignor = member.server_assignor;
  if (member.classic) {
    auto& c = v.classic_member_metadata.emplace();
    c.session_timeout_ms = member.classic->session_timeout_ms;
    for (const auto& p : member.classic->supported_protocols) {
      auto& sp = c.supported_protocols.emplace_back();
      sp.name = p.name;
      sp.metadata = p.metadata;
    }
  } else {
    v.classic_member_metadata = std::nullopt;  // a member of the consumer protocol
  }
  return KeyValue(kConsumerGroupMemberMetadataRecordType,
                  MemberKey<protocol::ConsumerGroupMemberMetadataKey>(group, member.member_id), v);
}

OffsetsRecord ConsumerGroupMemberMetadataTombstone(const std::string& group,
                                                   const std::string& member_id) {
  return KeyOnly(kConsumerGroupMemberMetadataRecordType,
                 MemberKey<protocol::ConsumerGroupMemberMetadataKey>(group, member_id));
}

OffsetsRecord ConsumerGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                          int32_t assignment_epoch,
                                                          int64_t timestamp_ms) {
  protocol::ConsumerGroupTargetAssignmentMetadataValue v;
  v.assignment_epoch = assignment_epoch;
  v.assignment_timestamp = timestamp_ms;
  return KeyValue(kConsumerGroupTargetAssignmentMetadataRecordType,
                  GroupKey<protocol::ConsumerGroupTargetAssignmentMetadataKey>(group), v);
}

OffsetsRecord ConsumerGroupTargetAssignmentMetadataTombstone(const std::string& group) {
  return KeyOnly(kConsumerGroupTargetAssignmentMetadataRecordType,
                 GroupKey<protocol::ConsumerGroupTargetAssignmentMetadataKey>(group));
}

OffsetsRecord ConsumerGroupTargetAssignmentMemberRecord(const std::string& group,
                                                        const std::string& member_id,
                                                        const TopicPartitions& target) {
  protocol::ConsumerGroupTargetAssignmentMemberValue v;
  for (const auto& [topic, partitions] : target) {
    auto& t = v.topic_partitions.emplace_back();
    t.topic_id = topic;
    t.partitions.assign(partitions.begin(), partitions.end());
  }
  return KeyValue(kConsumerGroupTargetAssignmentMemberRecordType,
                  MemberKey<protocol::ConsumerGroupTargetAssignmentMemberKey>(group, member_id), v);
}

OffsetsRecord ConsumerGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                           const std::string& member_id) {
  return KeyOnly(kConsumerGroupTargetAssignmentMemberRecordType,
                 MemberKey<protocol::ConsumerGroupTargetAssignmentMemberKey>(group, member_id));
}

OffsetsRecord ConsumerGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                         const ConsumerGroupMember& member) {
  CurrentValue v;
  v.member_epoch = member.member_epoch;
  v.previous_member_epoch = member.previous_member_epoch;
  v.state = static_cast<int8_t>(member.state);
  v.assigned_partitions = ToRecord(member.assigned_partitions);
  v.partitions_pending_revocation = ToRecord(member.partitions_pending_revocation);
  return KeyValue(
      kConsumerGroupCurrentMemberAssignmentRecordType,
      MemberKey<protocol::ConsumerGroupCurrentMemberAssignmentKey>(group, member.member_id), v);
}

OffsetsRecord ConsumerGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                            const std::string& member_id) {
  return KeyOnly(kConsumerGroupCurrentMemberAssignmentRecordType,
                 MemberKey<protocol::ConsumerGroupCurrentMemberAssignmentKey>(group, member_id));
}

OffsetsRecord ConsumerGroupRegularExpressionRecord(const std::string& group,
                                                   const std::string& regex,
                                                   const ResolvedRegularExpression& resolved) {
  protocol::ConsumerGroupRegularExpressionKey k;
  k.group_id = group;
  k.regular_expression = regex;
  protocol::ConsumerGroupRegularExpressionValue v;
  v.topics.assign(resolved.topics.begin(), resolved.topics.end());  // sorted, as Kafka's
  v.version = resolved.version;
  v.timestamp = resolved.timestamp_ms;
  return KeyValue(kConsumerGroupRegularExpressionRecordType, k, v);
}

OffsetsRecord ConsumerGroupRegularExpressionTombstone(const std::string& group,
                                                      const std::string& regex) {
  protocol::ConsumerGroupRegularExpressionKey k;
  k.group_id = group;
  k.regular_expression = regex;
  return KeyOnly(kConsumerGroupRegularExpressionRecordType, k);
}

Result<LoadedConsumerGroupRecord> DecodeConsumerGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  if (key.size() < 2) return Status::Corruption("Could not read the record type from the key.");
  const int16_t type = LoadBEInt16(key.data());
  const std::span<const uint8_t> key_body = key.subspan(2);
  std::span<const uint8_t> value_body;
  if (value) {
    if (value->size() < 2) return Status::Corruption("Could not read version from value's buffer.");
    const int16_t version = LoadBEInt16(value->data());
    if (version != 0) {
      return Status::Corruption(fmt::format(
          "Unknown record version {} for consumer group record type {}", version, type));
    }
    value_body = value->subspan(2);
  }
  switch (type) {
    case kConsumerGroupMetadataRecordType: {
      auto k = protocol::ConsumerGroupMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupMetadataKey", k.status());
      LoadedConsumerGroupMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = protocol::ConsumerGroupMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupMetadataValue", v.status());
        out.value = LoadedConsumerGroupMetadata::Value{v->epoch, v->metadata_hash};
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    case kConsumerGroupMemberMetadataRecordType: {
      auto k = protocol::ConsumerGroupMemberMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupMemberMetadataKey", k.status());
      LoadedConsumerGroupMemberMetadata out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = protocol::ConsumerGroupMemberMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupMemberMetadataValue", v.status());
        ConsumerGroupMember m;
        m.member_id = k->member_id;
        m.instance_id = v->instance_id;
        m.rack_id = v->rack_id;
        m.client_id = v->client_id;
        m.client_host = v->client_host;
        m.subscribed_topic_names = v->subscribed_topic_names;
        m.subscribed_topic_regex = v->subscribed_topic_regex;
        m.rebalance_timeout_ms = v->rebalance_timeout_ms;
        m.server_assignor = v->server_assignor;
        // Kafka writes the tag as null for a consumer-protocol member; an empty struct (the
        // schema's default, a record without the tag) is taken as none too.
        if (v->classic_member_metadata &&
            (v->classic_member_metadata->session_timeout_ms != 0 ||
             !v->classic_member_metadata->supported_protocols.empty())) {
          auto& c = m.classic.emplace();
          c.session_timeout_ms = v->classic_member_metadata->session_timeout_ms;
          for (const auto& p : v->classic_member_metadata->supported_protocols) {
            c.supported_protocols.push_back({p.name, p.metadata});
          }
        }
        out.value = std::move(m);
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    case kConsumerGroupTargetAssignmentMetadataRecordType: {
      auto k = protocol::ConsumerGroupTargetAssignmentMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupTargetAssignmentMetadataKey", k.status());
      LoadedConsumerGroupTargetAssignmentMetadata out{k->group_id, std::nullopt};
      if (value) {
        auto v = protocol::ConsumerGroupTargetAssignmentMetadataValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupTargetAssignmentMetadataValue", v.status());
        out.value = LoadedConsumerGroupTargetAssignmentMetadata::Value{v->assignment_epoch,
                                                                       v->assignment_timestamp};
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    case kConsumerGroupTargetAssignmentMemberRecordType: {
      auto k = protocol::ConsumerGroupTargetAssignmentMemberKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupTargetAssignmentMemberKey", k.status());
      LoadedConsumerGroupTargetAssignmentMember out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = protocol::ConsumerGroupTargetAssignmentMemberValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupTargetAssignmentMemberValue", v.status());
        TopicPartitions target;
        for (const auto& t : v->topic_partitions) {
          if (t.partitions.empty()) continue;
          target[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
        }
        out.value = std::move(target);
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    case kConsumerGroupCurrentMemberAssignmentRecordType: {
      auto k = protocol::ConsumerGroupCurrentMemberAssignmentKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupCurrentMemberAssignmentKey", k.status());
      LoadedConsumerGroupCurrentMemberAssignment out{k->group_id, k->member_id, std::nullopt};
      if (value) {
        auto v = CurrentValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupCurrentMemberAssignmentValue", v.status());
        LoadedConsumerGroupCurrentMemberAssignment::Value c;
        c.member_epoch = v->member_epoch;
        c.previous_member_epoch = v->previous_member_epoch;
        c.state = ConsumerMemberStateFromValue(v->state);
        SEGLOG_RETURN_IF_ERROR(
            FromRecord(v->assigned_partitions, v->member_epoch, &c.assigned_partitions));
        SEGLOG_RETURN_IF_ERROR(FromRecord(v->partitions_pending_revocation, v->member_epoch,
                                          &c.partitions_pending_revocation));
        out.value = std::move(c);
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    case kConsumerGroupPartitionMetadataRecordType: {
      auto k = protocol::ConsumerGroupPartitionMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupPartitionMetadataKey", k.status());
      return LoadedConsumerGroupRecord(IgnoredConsumerGroupRecord{type, k->group_id});
    }
    case kConsumerGroupRegularExpressionRecordType: {
      auto k = protocol::ConsumerGroupRegularExpressionKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("ConsumerGroupRegularExpressionKey", k.status());
      LoadedConsumerGroupRegularExpression out{k->group_id, k->regular_expression, std::nullopt};
      if (value) {
        auto v = protocol::ConsumerGroupRegularExpressionValue::Parse(value_body, 0);
        if (!v.ok()) return Corrupt("ConsumerGroupRegularExpressionValue", v.status());
        out.value = ResolvedRegularExpression{
            std::set<std::string>(v->topics.begin(), v->topics.end()), v->version, v->timestamp};
      }
      return LoadedConsumerGroupRecord(std::move(out));
    }
    default:
      return Status::InvalidArgument(
          fmt::format("record type {} is not a consumer group record", type));
  }
}

}  // namespace seglog
