// Kafka's text checkpoint files (CheckpointFile.java; docs/format/checkpoints.md, "Offset
// checkpoints"):
//
//   <version>\n          always 0
//   <entry count>\n
//   <entry>\n            count times; fields separated by whitespace
//
// OffsetCheckpoint - "topic partition offset" lines: recovery-point-offset-checkpoint,
// log-start-offset-checkpoint, cleaner-offset-checkpoint and replication-offset-checkpoint at a
// log directory's root. LeaderEpochCheckpoint - "epoch startOffset" lines:
// leader-epoch-checkpoint in a partition directory. Written with WriteFileAtomically, read and
// written through the given Env (the overloads without one use Env::Default()). Read
// strictly: a bad version, a malformed line, or a count that does not match the lines is
// Corruption naming the file, the line number and what was expected and found. An empty file
// reads as no entries, as in Kafka.
// Thread safety: functions only; callers serialise writers of one file.
#ifndef SEGLOG_LOG_CHECKPOINT_FILE_H_
#define SEGLOG_LOG_CHECKPOINT_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/env.h"
#include "io/file_names.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr const char* kRecoveryPointCheckpointFile = "recovery-point-offset-checkpoint";
inline constexpr const char* kLogStartOffsetCheckpointFile = "log-start-offset-checkpoint";
inline constexpr const char* kCleanerOffsetCheckpointFile = "cleaner-offset-checkpoint";
// Each partition's high watermark, which Kafka's replica manager checkpoints and reads back
// when it makes a partition (seglog writes it for a Kafka broker that takes the directory
// over; a tiered log without an entry gets a high watermark below its local log start there).
inline constexpr const char* kReplicationOffsetCheckpointFile = "replication-offset-checkpoint";
inline constexpr const char* kLeaderEpochCheckpointFile = "leader-epoch-checkpoint";

using OffsetMap = std::map<TopicPartition, int64_t, TopicPartitionLess>;

// "topic partition offset" checkpoints. A missing file reads as NotFound.
Result<OffsetMap> ReadOffsetCheckpoint(Env* env, const std::string& path);
Status WriteOffsetCheckpoint(Env* env, const std::string& path, const OffsetMap& offsets);

struct EpochEntry {
  int32_t epoch = 0;
  int64_t start_offset = 0;
  bool operator==(const EpochEntry&) const = default;
};

inline constexpr const char* kPartitionMetadataFile = "partition.metadata";

// partition.metadata (docs/format/checkpoints.md, "partition.metadata"): exactly
// "version: 0\ntopic_id: <Uuid>", no final newline. The reader follows Kafka's: each line split
// at ":" plus at least one space, version an int >= 0, the topic id a non-zero Uuid. Corruption
// naming the file and line otherwise.
Status WritePartitionMetadata(Env* env, const std::string& path, const std::string& topic_id);
Result<std::string> ReadPartitionMetadata(Env* env, const std::string& path);

// "epoch startOffset" checkpoints.
Result<std::vector<EpochEntry>> ReadLeaderEpochCheckpoint(Env* env, const std::string& path);
Status WriteLeaderEpochCheckpoint(Env* env, const std::string& path,
                                  const std::vector<EpochEntry>& entries);

#ifndef SEGLOG_ENGINE_NO_DEFAULT_ENV
// Over Env::Default(), for tools and tests.
inline Result<OffsetMap> ReadOffsetCheckpoint(const std::string& path) {
  return ReadOffsetCheckpoint(Env::Default(), path);
}
inline Status WriteOffsetCheckpoint(const std::string& path, const OffsetMap& offsets) {
  return WriteOffsetCheckpoint(Env::Default(), path, offsets);
}
inline Status WritePartitionMetadata(const std::string& path, const std::string& topic_id) {
  return WritePartitionMetadata(Env::Default(), path, topic_id);
}
inline Result<std::string> ReadPartitionMetadata(const std::string& path) {
  return ReadPartitionMetadata(Env::Default(), path);
}
inline Result<std::vector<EpochEntry>> ReadLeaderEpochCheckpoint(const std::string& path) {
  return ReadLeaderEpochCheckpoint(Env::Default(), path);
}
inline Status WriteLeaderEpochCheckpoint(const std::string& path,
                                         const std::vector<EpochEntry>& entries) {
  return WriteLeaderEpochCheckpoint(Env::Default(), path, entries);
}
#endif  // SEGLOG_ENGINE_NO_DEFAULT_ENV

}  // namespace seglog

#endif  // SEGLOG_LOG_CHECKPOINT_FILE_H_
