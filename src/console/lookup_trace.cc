// Lookup traces; see lookup_trace.h.
#include "console/lookup_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <filesystem>

#include "index/mapped_index.h"
#include "io/file_names.h"
#include "log/file_batch_walker.h"
#include "log/log_cleaner_access.h"
#include "log/log_segment.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

const char* Compare(int64_t key, int64_t target) {
  return key > target ? "above" : key < target ? "below" : "equal";
}

// Kafka's AbstractIndex.largestLowerBoundSlotFor with its warm section (the search of
// MappedIndex::SearchSlot, step for step), recording every entry read. `entry_at(slot)`
// returns (key, value).
template <typename EntryAt>
void TracedLargestLowerBound(int n, size_t entry_size, int64_t target, EntryAt entry_at,
                             IndexSearch* out) {
  out->entries = n;
  const int warm = kWarmSectionBytes / static_cast<int>(entry_size);
  const int first_hot = std::max(0, n - 1 - warm);
  out->warm_first_slot = first_hot;
  auto read = [&](int slot, int lo, int hi, const char* phase) {
    const auto [key, value] = entry_at(slot);
    if (static_cast<int>(out->probes.size()) < kMaxProbes) {
      out->probes.push_back(IndexProbe{slot, key, value, lo, hi, phase, Compare(key, target)});
    } else {
      ++out->probes_omitted;
    }
    return key;
  };
  auto search = [&](int lo, int hi) {
    while (lo < hi) {
      const int mid =
          static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi) + 1) >> 1);
      const int64_t k = read(mid, lo, hi, "probe");
      if (k > target) {
        hi = mid - 1;
      } else if (k < target) {
        lo = mid;
      } else {
        return mid;
      }
    }
    return lo;
  };
  int slot = -1;
  if (n > 0) {
    if (read(first_hot, first_hot, n - 1, "warm-check") < target) {
      slot = search(first_hot, n - 1);
    } else if (read(0, 0, first_hot, "first-check") > target) {
      slot = -1;
    } else {
      slot = search(0, first_hot);
    }
  }
  out->slot = slot;
  if (slot >= 0) {
    const auto [key, value] = entry_at(slot);
    out->key = key;
    out->value = value;
  }
}

Status SearchOffsetIndex(LogSegment& seg, int64_t target, IndexSearch* out) {
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, seg.offset_index());
  out->file = BaseName(oi->path());
  TracedLargestLowerBound(
      oi->entries(), OffsetIndex::kEntrySize, target,
      [oi](int slot) {
        const OffsetPosition e = oi->EntryAt(slot);
        return std::pair<int64_t, int64_t>(e.offset, e.position);
      },
      out);
  if (out->slot < 0) {  // OffsetIndex::Lookup's (base offset, 0)
    out->key = seg.base_offset();
    out->value = 0;
  }
  return Status::OK();
}

Status SearchTimeIndex(LogSegment& seg, int64_t target, IndexSearch* out) {
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, seg.time_index());
  out->file = BaseName(ti->path());
  TracedLargestLowerBound(
      ti->entries(), TimeIndex::kEntrySize, target,
      [ti](int slot) {
        const TimestampOffset e = ti->EntryAt(slot);
        return std::pair<int64_t, int64_t>(e.timestamp, e.offset);
      },
      out);
  if (out->slot < 0) {  // TimeIndex::Lookup's (-1, base offset)
    out->key = -1;
    out->value = seg.base_offset();
  }
  return Status::OK();
}

// The steps of a walk as it goes, bounded: the first and the last ones of a long walk are
// kept, the middle only counted, so a walk over a whole segment holds kMaxScanSteps at most.
class BoundedSteps {
 public:
  void Add(const ScanStep& step) {
    if (head_.size() < kHead) {
      head_.push_back(step);
      return;
    }
    tail_.push_back(step);
    if (tail_.size() > kTail) {
      tail_.pop_front();
      ++omitted_;
    }
  }
  ScanStep& Last() { return tail_.empty() ? head_.back() : tail_.back(); }
  void TakeInto(std::vector<ScanStep>* steps, int* omitted) {
    *steps = std::move(head_);
    steps->insert(steps->end(), tail_.begin(), tail_.end());
    *omitted = omitted_;
  }

 private:
  static constexpr size_t kHead = kMaxScanSteps * 3 / 4;
  static constexpr size_t kTail = kMaxScanSteps - kHead;
  std::vector<ScanStep> head_;
  std::deque<ScanStep> tail_;
  int omitted_ = 0;
};

SegmentVisit VisitOf(LogSegment& seg) {
  SegmentVisit v;
  v.base_offset = seg.base_offset();
  v.size = seg.size();
  v.log_file = BaseName(seg.log_path());
  return v;
}

}  // namespace

Result<OffsetLookupTrace> TraceOffsetLookup(Log& log, int64_t target) {
  OffsetLookupTrace t;
  t.target = target;
  const std::vector<std::shared_ptr<LogSegment>> segments = LogCleanerAccess::Segments(log);
  t.log_start_offset = log.log_start_offset();
  t.log_end_offset = log.log_end_offset();
  for (const auto& s : segments) {
    if (t.segment_bases.size() < static_cast<size_t>(kMaxSegmentsListed)) {
      t.segment_bases.push_back(s->base_offset());
    } else {
      ++t.segment_bases_omitted;
    }
  }
  if (target < t.log_start_offset || target >= t.log_end_offset) {
    t.note = fmt::format("offset {} is outside the log: [{}, {})", target, t.log_start_offset,
                         t.log_end_offset);
    return t;
  }
  // The floor lookup: the last segment whose base offset <= target.
  auto it = std::upper_bound(
      segments.begin(), segments.end(), target,
      [](int64_t o, const std::shared_ptr<LogSegment>& s) { return o < s->base_offset(); });
  if (it == segments.begin()) {
    t.note = fmt::format("no segment has a base offset <= {}", target);
    return t;
  }
  --it;
  t.floor_base_offset = (*it)->base_offset();
  for (; it != segments.end(); ++it) {
    LogSegment& seg = **it;
    SegmentVisit v = VisitOf(seg);
    SEGLOG_RETURN_IF_ERROR(SearchOffsetIndex(seg, target, &v.offset_index));
    v.scan_from = v.offset_index.value;
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg.log_file());
    FileBatchWalker w(*file, v.scan_from, seg.size());
    BoundedSteps steps;
    while (w.Next()) {
      ScanStep step{w.current().position,    static_cast<int32_t>(w.current().size_in_bytes()),
                    w.current().base_offset, w.last_offset(),
                    w.max_timestamp(),       false};
      if (w.last_offset() >= target) {
        step.match = true;
        steps.Add(step);
        t.found = BatchLocation{seg.base_offset(), step.position, step.size, step.base_offset,
                                step.last_offset};
        break;
      }
      steps.Add(step);
    }
    if (!w.status().ok()) return w.status();
    steps.TakeInto(&v.scan, &v.scan_omitted);
    t.visits.push_back(std::move(v));
    if (t.found) break;
  }
  if (!t.found) t.note = fmt::format("no batch at or after offset {}", target);
  return t;
}

Result<TimestampLookupTrace> TraceTimestampLookup(Log& log, int64_t target) {
  if (target < 0) {
    return Status::InvalidArgument(
        fmt::format("timestamp {}: a lookup trace needs a timestamp >= 0", target));
  }
  TimestampLookupTrace t;
  t.target = target;
  const std::vector<std::shared_ptr<LogSegment>> segments = LogCleanerAccess::Segments(log);
  t.log_start_offset = log.log_start_offset();
  std::shared_ptr<LogSegment> chosen;
  for (const auto& s : segments) {
    SEGLOG_ASSIGN_OR_RETURN(const int64_t largest, s->LargestTimestamp());
    const bool found = largest >= target;
    if (t.checks.size() < static_cast<size_t>(kMaxSegmentsListed) || found) {
      t.checks.push_back({s->base_offset(), largest, found});
    } else {
      ++t.checks_omitted;
    }
    if (found) {
      chosen = s;
      break;
    }
  }
  if (!chosen) {
    t.note = fmt::format("no segment has a timestamp >= {}", target);
    return t;
  }
  LogSegment& seg = *chosen;
  SegmentVisit v = VisitOf(seg);
  v.time_index.emplace();
  SEGLOG_RETURN_IF_ERROR(SearchTimeIndex(seg, target, &*v.time_index));
  t.offset_searched = std::max(v.time_index->value, t.log_start_offset);
  SEGLOG_RETURN_IF_ERROR(SearchOffsetIndex(seg, t.offset_searched, &v.offset_index));
  v.scan_from = v.offset_index.value;
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg.log_file());
  FileBatchWalker w(*file, v.scan_from, seg.size());
  BoundedSteps steps;
  std::vector<uint8_t> bytes;
  while (!t.found && w.Next()) {
    ScanStep step{w.current().position,    static_cast<int32_t>(w.current().size_in_bytes()),
                  w.current().base_offset, w.last_offset(),
                  w.max_timestamp(),       false};
    if (w.max_timestamp() < target) {
      steps.Add(step);
      continue;
    }
    step.match = true;
    steps.Add(step);
    SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes));
    if (w.current().magic != kMagicV2) {
      return Status::Corruption(
          fmt::format("{}: timestamp lookup over legacy batches (magic {}) at position {}",
                      v.log_file, w.current().magic, w.current().position));
    }
    SEGLOG_ASSIGN_OR_RETURN(RecordBatchView view,
                            RecordBatchView::Parse(bytes, w.current().position));
    RecordIterator records(view);
    while (records.Next()) {
      const Record& r = records.record();
      RecordStep rs{r.offset, r.timestamp, false};
      if (r.timestamp >= target && r.offset >= t.log_start_offset) {
        rs.match = true;
        t.found = TimestampAndOffset{r.timestamp, r.offset, std::nullopt};
        if (view.partition_leader_epoch() >= 0)
          t.found->leader_epoch = view.partition_leader_epoch();
      }
      if (t.records.size() < static_cast<size_t>(kMaxScanSteps) || rs.match) {
        t.records.push_back(rs);
      } else {
        ++t.records_omitted;
      }
      if (rs.match) break;
    }
    SEGLOG_RETURN_IF_ERROR(records.status());
    // No record of this batch qualified (all below the log start offset): the walk goes on,
    // as the segment's lookup does.
    if (!t.found) steps.Last().match = false;
  }
  if (!w.status().ok()) return w.status();
  steps.TakeInto(&v.scan, &v.scan_omitted);
  t.visit = std::move(v);
  if (!t.found) t.note = fmt::format("no record with a timestamp >= {}", target);
  return t;
}

}  // namespace seglog
