// RemoteLogSegmentMetadata: what seglog knows of one segment copied to remote storage - Kafka's
// org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata (storage-api), the value
// that __remote_log_metadata's records carry and every RemoteStorageManager call receives.
//
// A segment's life is Kafka's RemoteLogSegmentState, with Kafka's ids (they are on disk, in the
// RemoteLogSegmentState field of the records):
//
//   COPY_SEGMENT_STARTED (0) -> COPY_SEGMENT_FINISHED (1) -> DELETE_SEGMENT_STARTED (2)
//        |                                                      -> DELETE_SEGMENT_FINISHED (3)
//        +--(copy failed or crashed: the objects are orphans)--> DELETE_SEGMENT_STARTED (2)
//
// Thread safety: plain values; externally synchronised.
#ifndef SEGLOG_REMOTE_REMOTE_LOG_SEGMENT_METADATA_H_
#define SEGLOG_REMOTE_REMOTE_LOG_SEGMENT_METADATA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"
#include "seglog/topic_partition.h"

namespace seglog {

enum class RemoteLogSegmentState : int8_t {
  kCopySegmentStarted = 0,
  kCopySegmentFinished = 1,
  kDeleteSegmentStarted = 2,
  kDeleteSegmentFinished = 3,
};
// "COPY_SEGMENT_STARTED", ... as Kafka prints them.
std::string_view RemoteLogSegmentStateName(RemoteLogSegmentState state);
// Kafka's RemoteLogSegmentState.isValidTransition: STARTED -> FINISHED or DELETE_STARTED,
// FINISHED -> DELETE_STARTED, DELETE_STARTED -> DELETE_FINISHED, and every state to itself (a
// retried or replayed event).
bool IsValidTransition(RemoteLogSegmentState from, RemoteLogSegmentState to);

// Kafka's TopicIdPartition.
struct TopicIdPartition {
  Uuid topic_id;
  TopicPartition tp;
  bool operator==(const TopicIdPartition&) const = default;
};

// Kafka's RemoteLogSegmentId: the partition and a random id of this copy of the segment (a
// segment copied twice - after a crash - has two ids, and two sets of objects).
struct RemoteLogSegmentId {
  TopicIdPartition partition;
  Uuid id;
  bool operator==(const RemoteLogSegmentId&) const = default;
};

struct RemoteLogSegmentMetadata {
  RemoteLogSegmentId segment_id;
  int64_t start_offset = 0;  // the segment's base offset
  int64_t end_offset = 0;    // its last offset (inclusive)
  int64_t max_timestamp_ms = -1;
  int32_t broker_id = 0;  // who wrote this event
  int64_t event_timestamp_ms = 0;
  // Leader epoch -> its first offset in this segment (at least one entry), ascending.
  std::map<int32_t, int64_t> segment_leader_epochs;
  int32_t segment_size_in_bytes = 0;  // of the .log
  // What the RemoteStorageManager returned from CopyLogSegmentData, kept for its later calls.
  std::optional<std::vector<uint8_t>> custom_metadata;
  RemoteLogSegmentState state = RemoteLogSegmentState::kCopySegmentStarted;
  bool txn_index_empty = true;
};

// "remote segment <id> of <topic>-<partition> (offsets <start>..<end>)", how errors and log
// lines name a remote segment.
std::string DescribeRemoteSegment(const RemoteLogSegmentMetadata& metadata);

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_LOG_SEGMENT_METADATA_H_
