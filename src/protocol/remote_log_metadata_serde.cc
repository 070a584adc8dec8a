// __remote_log_metadata values (Kafka's RemoteLogMetadataSerde over AbstractApiMessageSerde)
// and the topic's partitioner (RemoteLogMetadataTopicPartitioner).
#include "protocol/remote_log_metadata_serde.h"

#include <fmt/format.h>

#include <string>
#include <type_traits>
#include <utility>

#include "base/coding.h"
#include "base/murmur2.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"

namespace seglog::protocol {

namespace {

constexpr std::string_view kWhat = "__remote_log_metadata value";
// AbstractApiMessageSerde.unsignedIntToShort: the frame's varints must fit a Java short.
constexpr uint32_t kMaxShort = 0x7fff;

// Invariant: each alternative sits at the index of its apiKey, so Decode can build the
// alternative an apiKey names with std::in_place_index.
static_assert(RemoteLogSegmentMetadataRecord::kApiKey == 0);
static_assert(RemoteLogSegmentMetadataUpdateRecord::kApiKey == 1);
static_assert(RemotePartitionDeleteMetadataRecord::kApiKey == 2);
static_assert(RemoteLogSegmentMetadataSnapshotRecord::kApiKey == 3);
static_assert(std::variant_size_v<RemoteLogMetadataRecord> == 4);

constexpr std::string_view kNames[] = {
    "RemoteLogSegmentMetadataRecord",
    "RemoteLogSegmentMetadataUpdateRecord",
    "RemotePartitionDeleteMetadataRecord",
    "RemoteLogSegmentMetadataSnapshotRecord",
};

bool KnownSegmentState(int8_t id) {
  return id >= static_cast<int8_t>(RemoteLogSegmentState::kCopySegmentStarted) &&
         id <= static_cast<int8_t>(RemoteLogSegmentState::kDeleteSegmentFinished);
}

bool KnownPartitionDeleteState(int8_t id) {
  return id >= static_cast<int8_t>(RemotePartitionDeleteState::kDeletePartitionMarked) &&
         id <= static_cast<int8_t>(RemotePartitionDeleteState::kDeletePartitionFinished);
}

// Empty when `record`'s state id is one Kafka's RemoteLogSegmentState.forId /
// RemotePartitionDeleteState.forId knows; else the field and the id (Kafka's deserialize fails
// on the null state those return).
std::string UnknownState(const RemoteLogMetadataRecord& record) {
  return std::visit(
      [](const auto& r) -> std::string {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, RemotePartitionDeleteMetadataRecord>) {
          if (KnownPartitionDeleteState(r.remote_partition_delete_state)) return "";
          return fmt::format("RemotePartitionDeleteState {} (known: 0..2)",
                             r.remote_partition_delete_state);
        } else {
          if (KnownSegmentState(r.remote_log_segment_state)) return "";
          return fmt::format("RemoteLogSegmentState {} (known: 0..3)", r.remote_log_segment_state);
        }
      },
      record);
}

// A frame varint (frame version, apiKey, version): a Java short, as Kafka reads them.
Status ReadFrameShort(ProtocolReader* reader, std::string_view field, uint32_t* out) {
  const size_t at = reader->position();
  Status s = reader->ReadUnsignedVarint(field, out);
  if (!s.ok()) return Status::Corruption(fmt::format("{}: {}", kWhat, s.message()));
  if (*out > kMaxShort) {
    return Status::Corruption(fmt::format("{}: {} {} at position {} is too large (more than 32767)",
                                          kWhat, field, *out, at));
  }
  return Status::OK();
}

template <size_t I>
Result<RemoteLogMetadataRecord> DecodeMessage(ProtocolReader* reader, uint32_t version,
                                              size_t version_at) {
  using T = std::variant_alternative_t<I, RemoteLogMetadataRecord>;
  if (version < static_cast<uint32_t>(T::kLowestSupportedVersion) ||
      version > static_cast<uint32_t>(T::kHighestSupportedVersion)) {
    return Status::Corruption(fmt::format(
        "{}: version {} of {} at position {} is not supported (versions {}..{})", kWhat, version,
        kNames[I], version_at, T::kLowestSupportedVersion, T::kHighestSupportedVersion));
  }
  RemoteLogMetadataRecord record(std::in_place_index<I>);
  Status s = std::get<I>(record).Decode(reader, static_cast<int16_t>(version));
  if (!s.ok()) return Status::Corruption(fmt::format("{}: {}: {}", kWhat, kNames[I], s.message()));
  return record;
}

}  // namespace

int16_t RemoteLogMetadataApiKey(const RemoteLogMetadataRecord& record) {
  return static_cast<int16_t>(record.index());
}

Result<std::vector<uint8_t>> EncodeRemoteLogMetadata(const RemoteLogMetadataRecord& record) {
  const std::string unknown = UnknownState(record);
  if (!unknown.empty()) {
    return Status::InvalidArgument(fmt::format("{}: {} has {}, which Kafka cannot read", kWhat,
                                               kNames[record.index()], unknown));
  }
  ProtocolWriter writer;
  writer.WriteUnsignedVarint(kRemoteLogMetadataFrameVersion);
  writer.WriteUnsignedVarint(static_cast<uint32_t>(record.index()));
  Status s = std::visit(
      [&writer](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        // The transforms write the schema's highest version (record.highestSupportedVersion()).
        writer.WriteUnsignedVarint(static_cast<uint32_t>(T::kHighestSupportedVersion));
        return r.Encode(&writer, T::kHighestSupportedVersion);
      },
      record);
  if (!s.ok()) return s;
  std::vector<uint8_t> out;
  SEGLOG_RETURN_IF_ERROR(writer.Flatten(&out));
  return out;
}

Result<RemoteLogMetadataRecord> DecodeRemoteLogMetadata(std::span<const uint8_t> value) {
  ProtocolReader reader(value);
  uint32_t frame_version = 0;
  SEGLOG_RETURN_IF_ERROR(ReadFrameShort(&reader, "frame version", &frame_version));
  if (frame_version != kRemoteLogMetadataFrameVersion) {
    return Status::Corruption(
        fmt::format("{}: frame version {} at position 0 (only frame version {} is supported{})",
                    kWhat, frame_version, kRemoteLogMetadataFrameVersion,
                    frame_version == 0 ? "; 0 is KRaft's 2.8 preview" : ""));
  }
  const size_t api_key_at = reader.position();
  uint32_t api_key = 0;
  SEGLOG_RETURN_IF_ERROR(ReadFrameShort(&reader, "apiKey", &api_key));
  const size_t version_at = reader.position();
  uint32_t version = 0;
  SEGLOG_RETURN_IF_ERROR(ReadFrameShort(&reader, "version", &version));
  Result<RemoteLogMetadataRecord> record = [&]() -> Result<RemoteLogMetadataRecord> {
    switch (api_key) {
      case 0:
        return DecodeMessage<0>(&reader, version, version_at);
      case 1:
        return DecodeMessage<1>(&reader, version, version_at);
      case 2:
        return DecodeMessage<2>(&reader, version, version_at);
      case 3:
        return DecodeMessage<3>(&reader, version, version_at);
      default:
        return Status::Corruption(
            fmt::format("{}: unknown apiKey {} at position {} (known: 0..3, MetadataRecordType)",
                        kWhat, api_key, api_key_at));
    }
  }();
  if (!record.ok()) return record.status();
  if (reader.remaining() != 0) {
    return Status::Corruption(fmt::format("{}: {} byte(s) after the {} ending at position {}",
                                          kWhat, reader.remaining(), kNames[api_key],
                                          reader.position()));
  }
  const std::string unknown = UnknownState(*record);
  if (!unknown.empty()) {
    return Status::Corruption(fmt::format("{}: {} has {}", kWhat, kNames[api_key], unknown));
  }
  return record;
}

int32_t RemoteLogMetadataPartitionFor(const Uuid& topic_id, int32_t partition,
                                      int32_t num_partitions) {
  // Java's Long.hashCode and Objects.hash(lsb, msb, partition), in wrapping 32-bit arithmetic.
  const auto long_hash = [](uint64_t v) { return static_cast<uint32_t>(v ^ (v >> 32)); };
  const uint64_t msb = LoadBE64(topic_id.bytes.data());
  const uint64_t lsb = LoadBE64(topic_id.bytes.data() + 8);
  uint32_t h = 1;
  h = 31 * h + long_hash(lsb);
  h = 31 * h + long_hash(msb);
  h = 31 * h + static_cast<uint32_t>(partition);
  uint8_t key[4];
  StoreBE32(key, h);
  return PartitionForKey(key, num_partitions);
}

}  // namespace seglog::protocol
