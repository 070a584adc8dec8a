// Tiered segments for tests: a real partition log written by seglog's Log - small segments,
// an offset index entry per batch, optionally aborted transactions - and its rolled segments
// described as the remote log manager would hand them to a RemoteStorageManager
// (LogSegmentData and RemoteLogSegmentMetadata), so that tests copy real files and compare what
// comes back with what the local indexes say.
// Thread safety: functions; the log is closed before they return.
#ifndef SEGLOG_REMOTE_TESTING_TIERED_SEGMENTS_H_
#define SEGLOG_REMOTE_TESTING_TIERED_SEGMENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "remote/remote_log_segment_metadata.h"
#include "remote/remote_storage_manager.h"
#include "seglog/log.h"
#include "seglog/result.h"

namespace seglog::testing {

inline constexpr int64_t kTieredT0 = 1700000000000;  // first record's timestamp

struct TieredLogSpec {
  int batches = 60;            // data batches
  int records_per_batch = 10;  // record number i has timestamp kTieredT0 + i
  int value_size = 50;
  // Every `abort_every`-th data batch is a transaction of its own that is aborted (an ABORT
  // marker follows it); 0: none.
  int abort_every = 0;
  int32_t segment_bytes = 4096;  // internal.segment.bytes
  int32_t index_interval_bytes = 256;
};

struct TieredSegment {
  RemoteCopyCandidate local;  // the segment's local files
  LogSegmentData data;
  // Metadata of a fresh remote copy (new segment id); custom_metadata is set by CopyAll.
  RemoteLogSegmentMetadata metadata;
};

// Writes the log in `dir` (which must not exist), rolls it, and returns its rolled segments,
// oldest first. Segments without a producer snapshot get a stand-in file.
Result<std::vector<TieredSegment>> WriteTieredLog(const std::string& dir,
                                                  const TieredLogSpec& spec);

// Copies every segment with `rsm`, keeping the custom metadata it returns.
Status CopyAll(RemoteStorageManager* rsm, std::vector<TieredSegment>* segments);

}  // namespace seglog::testing

#endif  // SEGLOG_REMOTE_TESTING_TIERED_SEGMENTS_H_
