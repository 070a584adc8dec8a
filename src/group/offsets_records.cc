// __consumer_offsets records; see offsets_records.h.
#include "group/offsets_records.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/generated/group_metadata_key.h"
#include "protocol/generated/group_metadata_value.h"
#include "protocol/generated/legacy_offset_commit_key.h"
#include "protocol/generated/legacy_offset_commit_value.h"
#include "protocol/generated/offset_commit_key.h"
#include "protocol/generated/offset_commit_value.h"
#include "protocol/protocol_writer.h"

namespace seglog {

namespace {

// The versions Kafka 4.4.0 writes (GroupCoordinatorRecordHelpers).
constexpr int16_t kOffsetCommitValueVersion = 4;
constexpr int16_t kOffsetCommitValueVersionWithExpiry = 1;
constexpr int16_t kGroupMetadataValueVersion = 3;

Status Corrupt(std::string_view what, const Status& s) {
  return Status::Corruption(fmt::format("{}: {}", what, s.ToString()));
}

}  // namespace

OffsetsRecord OffsetCommitRecord(const std::string& group, const std::string& topic,
                                 int32_t partition, const CommittedOffset& offset) {
  protocol::OffsetCommitKey key;
  key.group = group;
  key.topic = topic;
  key.partition = partition;
  protocol::OffsetCommitValue value;
  value.offset = offset.offset;
  value.leader_epoch = offset.leader_epoch;
  value.metadata = offset.metadata;
  value.commit_timestamp = offset.commit_timestamp_ms;
  value.topic_id = offset.topic_id;
  int16_t version = kOffsetCommitValueVersion;
  if (offset.expire_timestamp_ms) {
    version = kOffsetCommitValueVersionWithExpiry;
    value.expire_timestamp = *offset.expire_timestamp_ms;
  }
  return {PrefixedRecordBytes(kOffsetCommitRecordType, key, 0),
          PrefixedRecordBytes(version, value, version)};
}

OffsetsRecord OffsetCommitTombstone(const std::string& group, const std::string& topic,
                                    int32_t partition) {
  protocol::OffsetCommitKey key;
  key.group = group;
  key.topic = topic;
  key.partition = partition;
  return {PrefixedRecordBytes(kOffsetCommitRecordType, key, 0), std::nullopt};
}

OffsetsRecord GroupMetadataRecord(const ClassicGroup& group) {
  protocol::GroupMetadataKey key;
  key.group = group.group_id();
  protocol::GroupMetadataValue value;
  value.protocol_type = group.protocol_type().value_or("");
  value.generation = group.generation();
  value.protocol = group.protocol_name();
  value.leader = group.leader_id();
  value.current_state_timestamp = group.current_state_timestamp();
  const std::string chosen = group.protocol_name().value_or("");
  for (const auto& [id, m] : group.members()) {
    auto& out = value.members.emplace_back();
    out.member_id = m.member_id;
    out.group_instance_id = m.group_instance_id;
    out.client_id = m.client_id;
    out.client_host = m.client_host;
    out.rebalance_timeout = m.rebalance_timeout_ms;
    out.session_timeout = m.session_timeout_ms;
    if (const std::vector<uint8_t>* meta = m.MetadataFor(chosen)) out.subscription = *meta;
    out.assignment = m.assignment;
  }
  return {PrefixedRecordBytes(kGroupMetadataRecordType, key, 0),
          PrefixedRecordBytes(kGroupMetadataValueVersion, value, kGroupMetadataValueVersion)};
}

OffsetsRecord EmptyGroupMetadataRecord(const std::string& group, int64_t created_ms) {
  protocol::GroupMetadataKey key;
  key.group = group;
  protocol::GroupMetadataValue value;
  value.protocol_type = "";
  value.generation = 0;
  value.protocol = std::nullopt;
  value.leader = std::nullopt;
  value.current_state_timestamp = created_ms;
  return {PrefixedRecordBytes(kGroupMetadataRecordType, key, 0),
          PrefixedRecordBytes(kGroupMetadataValueVersion, value, kGroupMetadataValueVersion)};
}

OffsetsRecord GroupMetadataTombstone(const std::string& group) {
  protocol::GroupMetadataKey key;
  key.group = group;
  return {PrefixedRecordBytes(kGroupMetadataRecordType, key, 0), std::nullopt};
}

Result<LoadedOffsetsRecord> DecodeOffsetsRecord(std::span<const uint8_t> key,
                                                std::optional<std::span<const uint8_t>> value) {
  if (key.size() < 2) return Status::Corruption("Could not read version from key's buffer.");
  const int16_t type = LoadBEInt16(key.data());
  const std::span<const uint8_t> key_body = key.subspan(2);
  int16_t value_version = 0;
  std::span<const uint8_t> value_body;
  if (value) {
    if (value->size() < 2) {
      return Status::Corruption("Could not read version from value's buffer.");
    }
    value_version = LoadBEInt16(value->data());
    value_body = value->subspan(2);
  }
  auto check_version = [&](int16_t lo, int16_t hi, std::string_view schema) -> Status {
    if (value_version < lo || value_version > hi) {
      return Status::Corruption(fmt::format("Unknown record version {} for {} (versions {}-{})",
                                            value_version, schema, lo, hi));
    }
    return Status::OK();
  };
  switch (type) {
    case kLegacyOffsetCommitRecordType:
    case kOffsetCommitRecordType: {
      LoadedOffsetCommit out;
      if (type == kLegacyOffsetCommitRecordType) {
        auto k = protocol::LegacyOffsetCommitKey::Parse(key_body, 0);
        if (!k.ok()) return Corrupt("LegacyOffsetCommitKey", k.status());
        out.group = k->group;
        out.topic = k->topic;
        out.partition = k->partition;
      } else {
        auto k = protocol::OffsetCommitKey::Parse(key_body, 0);
        if (!k.ok()) return Corrupt("OffsetCommitKey", k.status());
        out.group = k->group;
        out.topic = k->topic;
        out.partition = k->partition;
      }
      if (!value) return LoadedOffsetsRecord(std::move(out));
      CommittedOffset c;
      if (type == kLegacyOffsetCommitRecordType) {
        SEGLOG_RETURN_IF_ERROR(check_version(0, 0, "LegacyOffsetCommitValue"));
        auto v = protocol::LegacyOffsetCommitValue::Parse(value_body, value_version);
        if (!v.ok()) return Corrupt("LegacyOffsetCommitValue", v.status());
        c.offset = v->offset;
        c.metadata = v->metadata;
        c.commit_timestamp_ms = v->commit_timestamp;
      } else {
        SEGLOG_RETURN_IF_ERROR(check_version(protocol::OffsetCommitValue::kLowestSupportedVersion,
                                             protocol::OffsetCommitValue::kHighestSupportedVersion,
                                             "OffsetCommitValue"));
        auto v = protocol::OffsetCommitValue::Parse(value_body, value_version);
        if (!v.ok()) return Corrupt("OffsetCommitValue", v.status());
        c.offset = v->offset;
        c.leader_epoch = v->leader_epoch;
        c.metadata = v->metadata;
        c.commit_timestamp_ms = v->commit_timestamp;
        if (value_version == 1 && v->expire_timestamp != -1) {
          c.expire_timestamp_ms = v->expire_timestamp;
        }
        c.topic_id = v->topic_id;
      }
      out.offset = std::move(c);
      return LoadedOffsetsRecord(std::move(out));
    }
    case kGroupMetadataRecordType: {
      auto k = protocol::GroupMetadataKey::Parse(key_body, 0);
      if (!k.ok()) return Corrupt("GroupMetadataKey", k.status());
      LoadedGroupMetadata out;
      out.group = k->group;
      if (!value) return LoadedOffsetsRecord(std::move(out));
      SEGLOG_RETURN_IF_ERROR(check_version(protocol::GroupMetadataValue::kLowestSupportedVersion,
                                           protocol::GroupMetadataValue::kHighestSupportedVersion,
                                           "GroupMetadataValue"));
      auto v = protocol::GroupMetadataValue::Parse(value_body, value_version);
      if (!v.ok()) return Corrupt("GroupMetadataValue", v.status());
      LoadedGroupMetadata::Value g;
      g.protocol_type = v->protocol_type;
      g.generation = v->generation;
      g.protocol = v->protocol;
      g.leader = v->leader;
      g.current_state_timestamp_ms = v->current_state_timestamp;
      for (const auto& m : v->members) {
        ClassicGroupMember member;
        member.member_id = m.member_id;
        member.group_instance_id = m.group_instance_id;
        member.client_id = m.client_id;
        member.client_host = m.client_host;
        member.session_timeout_ms = m.session_timeout;
        // A record without a rebalance timeout (v0) means the session timeout (Kafka's replay).
        member.rebalance_timeout_ms =
            m.rebalance_timeout == -1 ? m.session_timeout : m.rebalance_timeout;
        member.protocol_type = v->protocol_type;
        if (v->protocol) member.protocols.push_back({*v->protocol, m.subscription});
        member.assignment = m.assignment;
        g.members.push_back(std::move(member));
      }
      out.value = std::move(g);
      return LoadedOffsetsRecord(std::move(out));
    }
    default:
      return LoadedOffsetsRecord(UnknownOffsetsRecord{type});
  }
}

}  // namespace seglog
