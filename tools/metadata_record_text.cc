// KRaftControlRecordText and ClusterMetadataPayload; see metadata_record_text.h.
#include "tools/metadata_record_text.h"

#include <fmt/format.h>

#include <string_view>

#include "protocol/generated/k_raft_version_record.h"
#include "protocol/generated/leader_change_message.h"
#include "protocol/generated/metadata_records.h"
#include "protocol/generated/snapshot_footer_record.h"
#include "protocol/generated/snapshot_header_record.h"
#include "protocol/generated/voters_record.h"
#include "protocol/json_writer.h"
#include "protocol/protocol_reader.h"

namespace seglog {

namespace {

// ControlRecordUtils.deserialize*: the message at version 0 from the value's bytes (what follows
// it is ignored), then <Message>JsonConverter.write(message, message.version()).
template <typename T>
Result<std::string> ControlMessageJson(std::string_view type_name, NullableBytes value) {
  if (!value) {
    return Status::Corruption(fmt::format("{} control record without a value", type_name));
  }
  T message;
  protocol::ProtocolReader reader(*value);
  Status s = message.Decode(&reader, 0);
  if (!s.ok()) {
    return Status::Corruption(
        fmt::format("{} control record does not decode: {}", type_name, s.message()));
  }
  protocol::JsonWriter writer;
  SEGLOG_RETURN_IF_ERROR(message.WriteJson(&writer, message.version));
  return writer.Release();
}

// AbstractApiMessageSerde.unsignedIntToShort: an unsigned varint read as Java's int (so a
// 5-byte varint may be negative, and is then let through), refused above Short.MAX_VALUE, and
// cut to a short.
Result<int16_t> ReadFrameShort(protocol::ProtocolReader* reader, std::string_view entity) {
  uint32_t raw = 0;
  if (!reader->ReadUnsignedVarint(entity, &raw).ok()) {
    return Status::Corruption(fmt::format("Error while reading {}", entity));
  }
  const auto value = static_cast<int32_t>(raw);
  if (value > 0x7fff) return Status::Corruption(fmt::format("Value for {} was too large.", entity));
  return static_cast<int16_t>(value);
}

// MetadataRecordSerde.read, then the JSON ClusterMetadataLogMessageParser builds of it. Errors
// carry the message of the exception Kafka's parser catches.
Result<std::string> MetadataPayloadJson(NullableBytes value) {
  // A null value: Kafka's reader fails on its first read.
  if (!value) return Status::Corruption("Error while reading frame version");
  protocol::ProtocolReader reader(*value);
  SEGLOG_ASSIGN_OR_RETURN(const int16_t frame, ReadFrameShort(&reader, "frame version"));
  if (frame == 0) {
    return Status::Corruption(
        "Could not deserialize metadata record with frame version 0. Note that upgrades from the "
        "preview release of KRaft in 2.8 to newer versions are not supported.");
  }
  if (frame != 1) {
    return Status::Corruption(fmt::format(
        "Could not deserialize metadata record due to unknown frame version {}(only frame "
        "version 1 is supported)",
        frame));
  }
  SEGLOG_ASSIGN_OR_RETURN(const int16_t api_key, ReadFrameShort(&reader, "type"));
  SEGLOG_ASSIGN_OR_RETURN(const int16_t version, ReadFrameShort(&reader, "version"));
  const protocol::MetadataRecordInfo* info = protocol::FindMetadataRecord(api_key);
  if (info == nullptr) {
    // MetadataRecordType.fromId's exception, wrapped: its toString() is the message.
    return Status::NotFound(fmt::format(
        "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {}",
        api_key));
  }
  const std::span<const uint8_t> body = value->subspan(value->size() - reader.remaining());
  auto record = protocol::MetadataRecordToJson(api_key, version, body);
  if (record.status().IsCorruption()) {
    return Status::Corruption(fmt::format("Failed to deserialize record with type {}", api_key));
  }
  if (!record.ok()) return record.status();
  if (record->bytes_read < body.size()) {
    return Status::Corruption(fmt::format("Found {} byte(s) of garbage after {}",
                                          body.size() - record->bytes_read, api_key));
  }
  return fmt::format(R"({{"type":"{}","version":{},"data":{}}})", info->type_name, version,
                     record->json);
}

}  // namespace

Result<std::optional<std::string>> KRaftControlRecordText(ControlRecordType type,
                                                          NullableBytes value) {
  std::string_view label;
  Result<std::string> json = std::string();
  switch (type) {
    case ControlRecordType::kLeaderChange:
      label = " LeaderChange: ";
      json = ControlMessageJson<protocol::LeaderChangeMessage>("LEADER_CHANGE", value);
      break;
    case ControlRecordType::kSnapshotHeader:
      label = " SnapshotHeader ";
      json = ControlMessageJson<protocol::SnapshotHeaderRecord>("SNAPSHOT_HEADER", value);
      break;
    case ControlRecordType::kSnapshotFooter:
      label = " SnapshotFooter ";
      json = ControlMessageJson<protocol::SnapshotFooterRecord>("SNAPSHOT_FOOTER", value);
      break;
    case ControlRecordType::kKRaftVersion:
      label = " KRaftVersion ";
      json = ControlMessageJson<protocol::KRaftVersionRecord>("KRAFT_VERSION", value);
      break;
    case ControlRecordType::kKRaftVoters:
      label = " KRaftVoters ";
      json = ControlMessageJson<protocol::VotersRecord>("KRAFT_VOTERS", value);
      break;
    default:
      return std::optional<std::string>();
  }
  if (!json.ok()) return json.status();
  return std::optional<std::string>(std::string(label) + *json);
}

std::string ClusterMetadataPayload(int64_t offset, NullableBytes value) {
  auto json = MetadataPayloadJson(value);
  if (!json.ok()) return fmt::format("Error at {}, skipping. {}", offset, json.status().message());
  return *std::move(json);
}

}  // namespace seglog
