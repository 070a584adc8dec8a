// KRaft metadata record framing (see the header).
#include "metadata/metadata_record_serde.h"

#include <fmt/format.h>

#include "protocol/generated/metadata_records.h"
#include "protocol/protocol_reader.h"

namespace seglog {

namespace {

// AbstractApiMessageSerde.unsignedIntToShort: the varints must fit a Java short.
constexpr uint32_t kMaxShort = 0x7fff;

Status ReadShort(protocol::ProtocolReader* reader, std::string_view field, uint32_t* out) {
  const size_t at = reader->position();
  Status s = reader->ReadUnsignedVarint(field, out);
  if (!s.ok()) return Status::Corruption(fmt::format("metadata record: {}", s.message()));
  if (*out > kMaxShort) {
    return Status::Corruption(fmt::format(
        "metadata record: value {} of {} at position {} is larger than 32767", *out, field, at));
  }
  return Status::OK();
}

void PutUvarint(std::vector<uint8_t>* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

}  // namespace

Result<MetadataRecordFrame> ParseMetadataRecordFrame(std::span<const uint8_t> value) {
  protocol::ProtocolReader reader(value);
  uint32_t frame = 0, api_key = 0, version = 0;
  SEGLOG_RETURN_IF_ERROR(ReadShort(&reader, "frame version", &frame));
  if (frame == 0) {
    return Status::Corruption(
        "metadata record: frame version 0 is from the preview release of KRaft in Apache Kafka "
        "2.8, which cannot be read");
  }
  if (frame != kMetadataFrameVersion) {
    return Status::Corruption(
        fmt::format("metadata record: frame version {} is not supported (expected {})", frame,
                    kMetadataFrameVersion));
  }
  SEGLOG_RETURN_IF_ERROR(ReadShort(&reader, "apiKey", &api_key));
  SEGLOG_RETURN_IF_ERROR(ReadShort(&reader, "version", &version));
  MetadataRecordFrame out;
  out.api_key = static_cast<int16_t>(api_key);
  out.version = static_cast<int16_t>(version);
  out.body = value.subspan(reader.position());
  return out;
}

std::vector<uint8_t> FrameMetadataRecord(int16_t api_key, int16_t version,
                                         std::span<const uint8_t> body) {
  std::vector<uint8_t> out;
  out.reserve(body.size() + 6);
  PutUvarint(&out, kMetadataFrameVersion);
  PutUvarint(&out, static_cast<uint16_t>(api_key));
  PutUvarint(&out, static_cast<uint16_t>(version));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::string MetadataRecordTypeName(int16_t api_key) {
  const protocol::MetadataRecordInfo* info = protocol::FindMetadataRecord(api_key);
  if (info == nullptr) return fmt::format("UNKNOWN({})", api_key);
  return std::string(info->type_name);
}

}  // namespace seglog
