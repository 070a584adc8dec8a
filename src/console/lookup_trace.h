// Lookup traces: a partition's offset and timestamp lookups done step by step on its real
// files, every step recorded, so the console can draw them (seed 001's "find offset N" and
// "find by timestamp T"). The steps are the ones Log::LookupOffset and
// Log::FetchOffsetByTimestamp take (Kafka's UnifiedLog / LogSegment / AbstractIndex):
//
//   offset N:     floor segment (largest base offset <= N) -> binary search of its .index for the
//                 largest entry <= N (Kafka's warm-section search, probe by probe) -> a forward
//                 walk of batch headers in the .log from that position to the batch whose last
//                 offset >= N (the next segment when this one has none).
//   timestamp T:  the first segment whose largest timestamp >= T -> binary search of its
//                 .timeindex for the largest entry <= T -> the .index lookup of that offset
//                 (at least the log start offset) -> a walk to the first batch whose max
//                 timestamp >= T -> the records of that batch to the first with timestamp >= T.
//
// The result of each trace equals the log's own lookup (lookup_trace_test.cc checks it on
// written logs). Read-only: the traces read index entries and batch headers only (an index
// not yet used is opened, as any read opens it). The step lists are bounded (kMaxProbes,
// kMaxScanSteps); what is left out is counted.
//
// Thread safety: thread-safe (the log is; a trace reads one snapshot of the segment list and
// the entries published when each step runs, so a trace of a live log may straddle appends).
#ifndef SEGLOG_CONSOLE_LOOKUP_TRACE_H_
#define SEGLOG_CONSOLE_LOOKUP_TRACE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seglog/log.h"
#include "seglog/result.h"

namespace seglog {

// One probe of an index's binary search: slot `slot` was read and its key compared with the
// target. `lo`/`hi`: the search range before the probe.
struct IndexProbe {
  int slot = 0;
  int64_t key = 0;    // offset (.index) or timestamp (.timeindex)
  int64_t value = 0;  // position (.index) or offset (.timeindex)
  int lo = 0;
  int hi = 0;
  // "warm-check" (Kafka's first look at the warm section's first entry), "first-check" (the
  // first entry), "probe" (a binary search step).
  std::string phase;
  // "above", "below" or "equal": the key against the target.
  std::string comparison;
};

// A binary search of one index for the largest entry whose key <= target.
struct IndexSearch {
  std::string file;         // the index file's name, e.g. 00000000000000000000.index
  int entries = 0;          // entries in the index when the search ran
  int warm_first_slot = 0;  // first slot of the warm section (last 8 KiB of entries)
  std::vector<IndexProbe> probes;
  int probes_omitted = 0;
  // The entry found (slot -1: none, the search starts at the segment's beginning).
  int slot = -1;
  int64_t key = 0;
  int64_t value = 0;
};

// One batch header read by a forward walk of a .log.
struct ScanStep {
  int64_t position = 0;
  int32_t size = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t max_timestamp = -1;
  bool match = false;  // the walk stops here
};

// One segment a lookup went through.
struct SegmentVisit {
  int64_t base_offset = 0;
  int64_t size = 0;
  std::string log_file;  // the .log's name
  IndexSearch offset_index;
  std::optional<IndexSearch> time_index;  // timestamp lookups only
  int64_t scan_from = 0;                  // the position the walk started at
  std::vector<ScanStep> scan;
  int scan_omitted = 0;  // batch headers read but left out of `scan` (the middle of a long walk)
};

struct OffsetLookupTrace {
  int64_t target = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  std::vector<int64_t> segment_bases;  // the sorted map the floor lookup ran on (capped)
  int segment_bases_omitted = 0;
  int64_t floor_base_offset = -1;  // -1: no segment (out of range)
  std::vector<SegmentVisit> visits;
  std::optional<BatchLocation> found;
  std::string note;  // why nothing was found, when nothing was
};

// A record of the matching batch, read to find the first record with timestamp >= target.
struct RecordStep {
  int64_t offset = 0;
  int64_t timestamp = 0;
  bool match = false;
};

struct TimestampLookupTrace {
  int64_t target = 0;
  int64_t log_start_offset = 0;
  // Each segment checked for "largest timestamp >= target", oldest first (capped).
  struct SegmentCheck {
    int64_t base_offset = 0;
    int64_t largest_timestamp = -1;
    bool chosen = false;
  };
  std::vector<SegmentCheck> checks;
  int checks_omitted = 0;
  std::optional<SegmentVisit> visit;  // the chosen segment's searches and walk
  int64_t offset_searched = 0;        // max(time index entry's offset, log start offset)
  std::vector<RecordStep> records;
  int records_omitted = 0;
  std::optional<TimestampAndOffset> found;
  std::string note;
};

inline constexpr int kMaxProbes = 64;
inline constexpr int kMaxScanSteps = 64;
inline constexpr int kMaxSegmentsListed = 256;

// Traces Log::LookupOffset(target).
Result<OffsetLookupTrace> TraceOffsetLookup(Log& log, int64_t target);
// Traces Log::FetchOffsetByTimestamp(target) for a timestamp >= 0 (InvalidArgument for the
// special negative ones, which search nothing).
Result<TimestampLookupTrace> TraceTimestampLookup(Log& log, int64_t target);

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_LOOKUP_TRACE_H_
