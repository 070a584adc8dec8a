// MetadataLog: __cluster_metadata-0 of one node - KRaft's metadata log as the leader of a
// single-voter quorum keeps it (docs/format/metadata_log.md; docs/design/metadata.md).
//
//   <log dir>/__cluster_metadata-0/
//     00000000000000000000.log ...            v2 batches (metadata_batch.h), one per operation
//     <end offset>-<epoch>.checkpoint         snapshots (snapshot_file.h); 0-0 is the bootstrap
//     quorum-state                            the election state (quorum_state.h)
//     partition.metadata                      topic id AAAAAAAAAAAAAAAAAAAAAQ (Uuid 0,1)
//
// Open loads the newest snapshot that reads cleanly (a corrupt one is logged and an older one
// used), recovers the whole log as Kafka does for its metadata log (every batch's CRC checked,
// a bad tail cut), and replays the records after the snapshot into the MetadataImage. A record
// that cannot be replayed stops the open with an error naming its offset.
//
// BecomeLeader starts a new epoch as Kafka's new leader does: the epoch is one above both the
// quorum-state's and the last batch's, quorum-state is written first, then a LeaderChange
// control batch is appended; on an empty log the bootstrap snapshot's records follow as one
// metadata transaction, as Kafka appends them.
//
// Append writes one batch at the end of the log in the current epoch, fsyncs it, and only then
// applies it to the image: a caller that gets OK has a durable change, and a change that failed
// is in neither the image nor (after the next open's recovery, for a torn write) the log.
//
// Snapshots: MaybeSnapshot writes one when metadata.log.max.record.bytes.between.snapshots bytes
// were appended since the last, or metadata.log.max.snapshot.interval.ms passed with new records
// (0: never by time); then, with at least two snapshots, the oldest goes (with the segments
// wholly below the next) while the log and snapshots exceed metadata.max.retention.bytes or the
// oldest snapshot is older than metadata.max.retention.ms, as Kafka's metadata log cleaner does.
//
// Thread safety: not thread-safe; the owner serialises every call (LogManager holds its admin
// lock) and copies what readers need.
#ifndef SEGLOG_METADATA_METADATA_LOG_H_
#define SEGLOG_METADATA_METADATA_LOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/env.h"
#include "metadata/metadata_batch.h"
#include "metadata/metadata_image.h"
#include "metadata/quorum_state.h"
#include "metadata/snapshot_file.h"
#include "seglog/log.h"
#include "seglog/logger.h"

namespace seglog {

inline constexpr const char* kMetadataTopic = "__cluster_metadata";
inline constexpr const char* kMetadataPartitionDir = "__cluster_metadata-0";
// Kafka's reserved id of the metadata topic, Uuid(0, 1).
inline constexpr const char* kMetadataTopicId = "AAAAAAAAAAAAAAAAAAAAAQ";

struct MetadataLogOptions {
  int32_t node_id = 1;
  bool read_only = false;
  int64_t segment_bytes = 1073741824;  // metadata.log.segment.bytes
  int64_t segment_ms = 604800000;      // metadata.log.segment.ms
  int64_t max_record_bytes_between_snapshots =
      20971520;                                // metadata.log.max.record.bytes.between.snapshots
  int64_t max_snapshot_interval_ms = 3600000;  // metadata.log.max.snapshot.interval.ms
  int64_t max_retention_bytes = 104857600;     // metadata.max.retention.bytes
  int64_t max_retention_ms = 604800000;        // metadata.max.retention.ms
  Env* env = nullptr;                          // nullptr: Env::Default()
  std::function<int64_t()> clock;              // ms; default: the system clock
  Logger logger;
};

class MetadataLog {
 public:
  // NotFound (saying the directory is not formatted) when there is neither a snapshot nor a
  // record.
  static Result<std::unique_ptr<MetadataLog>> Open(const std::string& log_dir,
                                                   MetadataLogOptions options);
  ~MetadataLog();
  MetadataLog(const MetadataLog&) = delete;
  MetadataLog& operator=(const MetadataLog&) = delete;

  Status BecomeLeader();
  Status Append(std::span<const MetadataRecordValue> records);

  const MetadataImage& image() const { return image_; }
  int32_t epoch() const { return epoch_; }
  int64_t end_offset() const;
  int64_t start_offset() const;
  const std::string& dir() const { return dir_; }
  // The snapshots on disk, oldest first.
  const std::vector<SnapshotId>& snapshots() const { return snapshots_; }
  // kraft.version: 1 when the quorum's voters are recorded (a dynamic quorum), else 0.
  int16_t kraft_version() const { return kraft_version_; }

  Status MaybeSnapshot();
  // A snapshot at the log end offset now (nothing when one exists there).
  Status Snapshot();
  // Flushes and closes the log; nothing works after.
  Status Close();

 private:
  MetadataLog(std::string dir, MetadataLogOptions options);
  int64_t Now() const;
  Status LoadSnapshots();
  Status ReplayLog(int64_t from);
  Status AppendBatch(const std::vector<uint8_t>& batch);
  Status CleanSnapshots();

  const std::string dir_;
  MetadataLogOptions options_;
  Env* const env_;
  std::unique_ptr<Log> log_;
  MetadataImage image_;
  std::vector<SnapshotId> snapshots_;
  std::vector<ControlRecordValue> kraft_control_;  // KRaftVersion + Voters of a dynamic quorum
  int16_t kraft_version_ = 0;
  int16_t quorum_data_version_ = 0;
  int32_t epoch_ = 0;             // the current epoch (as leader) or the last seen
  int32_t last_batch_epoch_ = 0;  // the epoch of the last batch in the log
  int64_t last_record_timestamp_ = 0;
  int64_t bytes_since_snapshot_ = 0;
  int64_t last_snapshot_ms_ = 0;
  bool leader_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_METADATA_METADATA_LOG_H_
