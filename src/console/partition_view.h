// PartitionView: what the console's partition page draws of one partition, read from its log
// at one moment - the offsets (log start, high watermark, last stable, log end, recovery
// point), the topic settings that shape the drawing (segment.bytes, segment.ms,
// index.interval.bytes, retention, cleanup.policy), each segment with its size, offsets,
// largest timestamp and its sparse offset-index and time-index entries, and the files of the
// partition directory that are on their way out (*.deleted, *.cleaned, *.swap).
//
// Bounded: at most kMaxViewSegments segments (the newest; the older ones counted), entries of
// at most kMaxIndexedSegments segments (the newest), at most kMaxEntriesPerSegment entries per
// index (evenly sampled, the first and last kept), each omission counted.
//
// Thread safety: BuildPartitionView is thread-safe (it reads one snapshot of the segment
// list, as a lookup does); a PartitionView is a plain value.
#ifndef SEGLOG_CONSOLE_PARTITION_VIEW_H_
#define SEGLOG_CONSOLE_PARTITION_VIEW_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "index/offset_index.h"
#include "index/time_index.h"
#include "seglog/log.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int kMaxViewSegments = 200;
inline constexpr int kMaxIndexedSegments = 64;
inline constexpr int kMaxEntriesPerSegment = 256;

struct SegmentView {
  int64_t base_offset = 0;
  int64_t size = 0;         // bytes of the .log
  int64_t next_offset = 0;  // the next segment's base offset, or the log end offset (active)
  bool active = false;
  int64_t largest_timestamp = -1;
  bool entries_included = false;  // false: a segment older than the newest kMaxIndexedSegments
  int offset_index_entries = 0;   // in the index (entries below may be a sample)
  int time_index_entries = 0;
  // (slot, entry): all of an index's entries, or an even sample of them.
  std::vector<std::pair<int, OffsetPosition>> offset_entries;
  std::vector<std::pair<int, TimestampOffset>> time_entries;
};

struct PartitionView {
  std::string topic;
  int32_t partition = 0;
  std::string dir;
  int64_t now_ms = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t high_watermark = 0;
  int64_t last_stable_offset = 0;
  int64_t recovery_point = 0;
  int64_t size_bytes = 0;
  // Topic settings.
  int64_t segment_bytes = 0;
  int64_t segment_ms = 0;
  int64_t index_interval_bytes = 0;
  int64_t retention_ms = 0;
  int64_t retention_bytes = 0;
  std::string cleanup_policy;
  std::vector<SegmentView> segments;       // oldest first
  int segments_omitted = 0;                // older segments not listed
  std::vector<std::string> leaving_files;  // *.deleted, *.cleaned, *.swap in the directory
};

// Reads `log`'s view. `now_ms`: the broker's clock, for the page's ages.
Result<PartitionView> BuildPartitionView(Log& log, const std::string& topic, int32_t partition,
                                         int64_t now_ms);

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_PARTITION_VIEW_H_
