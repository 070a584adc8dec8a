// The records of `__remote_log_metadata`, the internal topic in which Kafka's
// TopicBasedRemoteLogMetadataManager keeps tiered storage's remote log segment metadata, framed
// as Kafka's RemoteLogMetadataSerde frames them, and the topic's partitioner.
//
// A record's key is null; its value is (Kafka's AbstractApiMessageSerde):
//
//   +---------------------+-----------------+-----------------+----------------------------+
//   | frame version       | apiKey          | version         | message (flexible: compact |
//   | unsigned varint = 1 | unsigned varint | unsigned varint | fields, tagged fields)     |
//   +---------------------+-----------------+-----------------+----------------------------+
//
//   apiKey 0 RemoteLogSegmentMetadataRecord        (a segment's copy started)
//          1 RemoteLogSegmentMetadataUpdateRecord  (a state change of a segment)
//          2 RemotePartitionDeleteMetadataRecord   (a partition's remote data being deleted)
//          3 RemoteLogSegmentMetadataSnapshotRecord (only in the manager's snapshot files)
//   version 0 for all four (their schemas' only version); nothing may follow the message.
//
// The messages are generated from kafka-storage 4.4.0's message/*.json (protocol/generated/).
// The partition of a user topic's metadata is toPositive(murmur2(be32(h))) % num_partitions,
// h = Java's Objects.hash(topicId.lsb, topicId.msb, partition). Specified, with the Kafka
// source of each fact, in docs/format/remote_log_metadata.md.
//
// Thread safety: pure functions of their arguments.
#ifndef SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_SERDE_H_
#define SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_SERDE_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "base/uuid.h"
#include "protocol/generated/remote_log_segment_metadata_record.h"
#include "protocol/generated/remote_log_segment_metadata_snapshot_record.h"
#include "protocol/generated/remote_log_segment_metadata_update_record.h"
#include "protocol/generated/remote_partition_delete_metadata_record.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog::protocol {

// TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME.
inline constexpr std::string_view kRemoteLogMetadataTopic = "__remote_log_metadata";
// remote.log.metadata.topic.num.partitions' default
// (DEFAULT_REMOTE_LOG_METADATA_TOPIC_PARTITIONS).
inline constexpr int32_t kDefaultRemoteLogMetadataTopicPartitions = 50;
// AbstractApiMessageSerde.DEFAULT_FRAME_VERSION: the only frame version Kafka reads (0, KRaft's
// 2.8 preview, is refused).
inline constexpr uint32_t kRemoteLogMetadataFrameVersion = 1;

// RemoteLogSegmentState.id(): the state of a remote segment (RemoteLogSegmentMetadataRecord,
// ...UpdateRecord and ...SnapshotRecord's RemoteLogSegmentState).
enum class RemoteLogSegmentState : int8_t {
  kCopySegmentStarted = 0,
  kCopySegmentFinished = 1,
  kDeleteSegmentStarted = 2,
  kDeleteSegmentFinished = 3,
};
// RemotePartitionDeleteState.id() (RemotePartitionDeleteMetadataRecord's
// RemotePartitionDeleteState).
enum class RemotePartitionDeleteState : int8_t {
  kDeletePartitionMarked = 0,
  kDeletePartitionStarted = 1,
  kDeletePartitionFinished = 2,
};

// One value of __remote_log_metadata: the alternative's index is its apiKey.
using RemoteLogMetadataRecord =
    std::variant<RemoteLogSegmentMetadataRecord, RemoteLogSegmentMetadataUpdateRecord,
                 RemotePartitionDeleteMetadataRecord, RemoteLogSegmentMetadataSnapshotRecord>;

// The apiKey of `record`'s schema (0..3).
int16_t RemoteLogMetadataApiKey(const RemoteLogMetadataRecord& record);

// The value bytes of `record`, as Kafka's RemoteLogMetadataSerde.serialize writes them.
// InvalidArgument (writing nothing) when a state id is not one Kafka knows, since Kafka could
// not read the record back.
Result<std::vector<uint8_t>> EncodeRemoteLogMetadata(const RemoteLogMetadataRecord& record);

// Reads a value that EncodeRemoteLogMetadata (or Kafka) wrote. Corruption naming the field and
// byte position for: a truncated frame or message, a frame version other than 1, an unknown
// apiKey, an unsupported version, a length that runs past the end, a state id Kafka does not
// know, and bytes left after the message.
Result<RemoteLogMetadataRecord> DecodeRemoteLogMetadata(std::span<const uint8_t> value);

// The partition of __remote_log_metadata that holds the metadata of user partition
// (topic_id, partition): Kafka's RemoteLogMetadataTopicPartitioner.metadataPartition.
// REQUIRES: num_partitions > 0.
int32_t RemoteLogMetadataPartitionFor(const Uuid& topic_id, int32_t partition,
                                      int32_t num_partitions);

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_SERDE_H_
