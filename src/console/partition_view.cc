// PartitionView; see partition_view.h.
#include "console/partition_view.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "log/log_cleaner_access.h"
#include "log/log_segment.h"

namespace seglog {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Slots to show of an index of `n` entries: all, or an even sample keeping the first and last.
std::vector<int> SampleSlots(int n) {
  std::vector<int> slots;
  if (n <= kMaxEntriesPerSegment) {
    for (int i = 0; i < n; ++i) slots.push_back(i);
    return slots;
  }
  for (int k = 0; k < kMaxEntriesPerSegment; ++k) {
    slots.push_back(static_cast<int>(int64_t{k} * (n - 1) / (kMaxEntriesPerSegment - 1)));
  }
  return slots;
}

}  // namespace

Result<PartitionView> BuildPartitionView(Log& log, const std::string& topic, int32_t partition,
                                         int64_t now_ms) {
  PartitionView v;
  v.topic = topic;
  v.partition = partition;
  v.dir = log.dir();
  v.now_ms = now_ms;
  const std::vector<std::shared_ptr<LogSegment>> segments = LogCleanerAccess::Segments(log);
  v.log_start_offset = log.log_start_offset();
  v.log_end_offset = log.log_end_offset();
  v.high_watermark = log.high_watermark();
  v.last_stable_offset = log.last_stable_offset();
  v.recovery_point = log.recovery_point();
  const LogConfig config = log.config();
  v.segment_bytes = config.SegmentSize();
  v.segment_ms = config.segment_ms;
  v.index_interval_bytes = config.index_interval_bytes;
  v.retention_ms = config.retention_ms;
  v.retention_bytes = config.retention_bytes;
  v.cleanup_policy = config.cleanup_delete && config.cleanup_compact ? "compact,delete"
                     : config.cleanup_compact                        ? "compact"
                                                                     : "delete";
  const size_t n = segments.size();
  const size_t first = n > static_cast<size_t>(kMaxViewSegments) ? n - kMaxViewSegments : 0;
  v.segments_omitted = static_cast<int>(first);
  for (size_t i = 0; i < n; ++i) v.size_bytes += segments[i]->size();
  for (size_t i = first; i < n; ++i) {
    LogSegment& seg = *segments[i];
    SegmentView s;
    s.base_offset = seg.base_offset();
    s.size = seg.size();
    s.active = i + 1 == n;
    s.next_offset = s.active ? v.log_end_offset : segments[i + 1]->base_offset();
    s.entries_included = n - i <= static_cast<size_t>(kMaxIndexedSegments);
    if (s.entries_included) {
      SEGLOG_ASSIGN_OR_RETURN(s.largest_timestamp, seg.LargestTimestamp());
      SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, seg.offset_index());
      SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, seg.time_index());
      s.offset_index_entries = oi->entries();
      s.time_index_entries = ti->entries();
      for (int slot : SampleSlots(s.offset_index_entries))
        s.offset_entries.emplace_back(slot, oi->EntryAt(slot));
      for (int slot : SampleSlots(s.time_index_entries))
        s.time_entries.emplace_back(slot, ti->EntryAt(slot));
    }
    v.segments.push_back(std::move(s));
  }
  std::error_code ec;
  for (std::filesystem::directory_iterator it(v.dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (EndsWith(name, ".deleted") || EndsWith(name, ".cleaned") || EndsWith(name, ".swap")) {
      v.leaving_files.push_back(name);
    }
  }
  std::sort(v.leaving_files.begin(), v.leaving_files.end());
  if (v.leaving_files.size() > 100) v.leaving_files.resize(100);
  return v;
}

}  // namespace seglog
