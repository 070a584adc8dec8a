// The value of a KRaft metadata record in __cluster_metadata (Kafka's MetadataRecordSerde over
// AbstractApiMessageSerde; docs/format/metadata_log.md, "Records"):
//
//   +-----------------------+-----------------+-----------------+--------------------------+
//   | frame version uvarint | apiKey uvarint  | version uvarint | the record at `version`  |
//   | (always 1)            | (record type)   |                 | (protocol/generated/...) |
//   +-----------------------+-----------------+-----------------+--------------------------+
//
// The batch record's key is null and it has no headers. Kafka refuses frame version 0 (the
// preview KRaft of 2.8), any other frame version but 1, varints above 32767, and bytes left
// after the record; so does ParseMetadataRecordFrame.
//
// Thread safety: functions over values; no shared state.
#ifndef SEGLOG_METADATA_METADATA_RECORD_SERDE_H_
#define SEGLOG_METADATA_METADATA_RECORD_SERDE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/protocol_writer.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr uint32_t kMetadataFrameVersion = 1;

// A record's frame, with a view of its body.
struct MetadataRecordFrame {
  int16_t api_key = 0;
  int16_t version = 0;
  std::span<const uint8_t> body;
};

// Splits a value into frame and body. Corruption in Kafka's words for a bad frame; the body is
// not decoded (the caller picks the schema by api_key).
Result<MetadataRecordFrame> ParseMetadataRecordFrame(std::span<const uint8_t> value);

// The frame of (api_key, version) followed by `body`.
std::vector<uint8_t> FrameMetadataRecord(int16_t api_key, int16_t version,
                                         std::span<const uint8_t> body);

// A record ready to append: its framed value.
struct MetadataRecordValue {
  int16_t api_key = 0;
  std::vector<uint8_t> bytes;
};

// Encodes `record` (a protocol/generated metadata record) at `version` with its frame.
template <typename T>
Result<MetadataRecordValue> EncodeMetadataRecord(const T& record,
                                                 int16_t version = T::kHighestSupportedVersion) {
  protocol::ProtocolWriter writer;
  SEGLOG_RETURN_IF_ERROR(record.Encode(&writer, version));
  std::vector<uint8_t> body;
  SEGLOG_RETURN_IF_ERROR(writer.Flatten(&body));
  return MetadataRecordValue{T::kApiKey, FrameMetadataRecord(T::kApiKey, version, body)};
}

// "TOPIC_RECORD" for a known api key, else "UNKNOWN(<key>)".
std::string MetadataRecordTypeName(int16_t api_key);

}  // namespace seglog

#endif  // SEGLOG_METADATA_METADATA_RECORD_SERDE_H_
