// KRaft snapshot files in __cluster_metadata-0 (Kafka's Snapshots, FileRawSnapshotWriter and
// RecordsSnapshotReader; docs/format/metadata_log.md, "Snapshots"):
//
//   <end offset, 20 digits>-<epoch, 10 digits>.checkpoint      e.g. 00000000000000000000-0000000000
//
// The end offset is exclusive: the snapshot holds the image of every record below it. The file
// is a sequence of v2 batches with dense offsets from 0, each carrying the snapshot's epoch:
//
//   control batch [SnapshotHeaderRecord{version 0, lastContainedLogTimestamp}]
//                 (+ KRaftVersionRecord, VotersRecord when kraft.version is 1)
//   data batches  [metadata records ...]
//   control batch [SnapshotFooterRecord{version 0}]
//
// Written as <name>-<random>.checkpoint.part, fsynced, renamed, the directory fsynced. A
// `.checkpoint.deleted` file is one Kafka marked for deletion.
//
// Thread safety: functions over values.
#ifndef SEGLOG_METADATA_SNAPSHOT_FILE_H_
#define SEGLOG_METADATA_SNAPSHOT_FILE_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/env.h"
#include "metadata/metadata_batch.h"
#include "seglog/result.h"

namespace seglog {

struct SnapshotId {
  int64_t end_offset = 0;
  int32_t epoch = 0;
  auto operator<=>(const SnapshotId&) const = default;
};

inline constexpr std::string_view kSnapshotSuffix = ".checkpoint";
inline constexpr std::string_view kPartialSnapshotSuffix = ".checkpoint.part";
inline constexpr std::string_view kDeletedSnapshotSuffix = ".checkpoint.deleted";

// "00000000000000000123-0000000002"
std::string SnapshotName(const SnapshotId& id);
// The id of "<20 digits>-<10 digits>" + `suffix`; nullopt for any other name.
std::optional<SnapshotId> ParseSnapshotFileName(std::string_view file_name,
                                                std::string_view suffix = kSnapshotSuffix);

struct SnapshotContents {
  int64_t last_contained_log_timestamp = 0;
  std::vector<std::vector<uint8_t>> records;  // the data records' values, in order
  // Control records after the header (KRaftVersionRecord, VotersRecord), type and value.
  std::vector<ControlRecordValue> control;
  int32_t batch_epoch = -1;  // the batches' partitionLeaderEpoch
};

// Reads and checks a whole snapshot: every batch's CRC, dense offsets, the header first and
// the footer last. Corruption naming the file for anything else.
Result<SnapshotContents> ReadSnapshot(Env* env, const std::string& path);

// Writes <dir>/<SnapshotName(id)>.checkpoint durably: header (with `control_after_header`),
// `records` in batches of at most `max_batch_bytes`, footer; batch timestamps `now_ms`.
Status WriteSnapshot(Env* env, const std::string& dir, const SnapshotId& id,
                     int64_t last_contained_log_timestamp, int64_t now_ms,
                     std::span<const ControlRecordValue> control_after_header,
                     std::span<const MetadataRecordValue> records,
                     size_t max_batch_bytes = kMaxMetadataBatchBytes);

}  // namespace seglog

#endif  // SEGLOG_METADATA_SNAPSHOT_FILE_H_
