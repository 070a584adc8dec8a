// Cleaner; see cleaner.h. Kafka's rules: docs/design/cleaner.md ("Kafka's rules").
#include "cleaner/cleaner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <queue>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/coding.h"
#include "base/crc32c.h"
#include "index/offset_index.h"
#include "index/time_index.h"
#include "index/transaction_index.h"
#include "log/file_batch_walker.h"
#include "log/log_cleaner_access.h"
#include "log/log_segment.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

using SegmentPtr = std::shared_ptr<LogSegment>;

// Segments overlapping [from, to): the floor segment of `from` and every later one below `to`.
std::vector<SegmentPtr> SegmentsOverlapping(const std::vector<SegmentPtr>& all, int64_t from,
                                            int64_t to) {
  std::vector<SegmentPtr> out;
  for (size_t i = 0; i < all.size(); ++i) {
    const int64_t next_base = i + 1 < all.size() ? all[i + 1]->base_offset() : INT64_MAX;
    if (all[i]->base_offset() < to && next_base > from) out.push_back(all[i]);
  }
  return out;
}

std::string FormatDate(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm);
  return buf;
}

// The last data batch (and epoch) of each active producer in the whole log: the batch holding
// a producer's last sequence is kept even when every record in it is cleaned away
// (docs/design/cleaner.md, "Which batches and records stay", rule 1). Kafka's
// ProducerStateManager forgets a producer (without an open transaction) whose last batch's max
// timestamp is producer.id.expiration.ms old, and its batches are then cleaned like any other.
struct ProducerLast {
  int64_t last_data_offset = -1;
  int16_t epoch = -1;
  int64_t last_timestamp = -1;
};

Result<std::map<int64_t, ProducerLast>> ActiveProducers(const std::vector<SegmentPtr>& all,
                                                        int64_t now, int64_t expiration_ms) {
  std::map<int64_t, ProducerLast> out;
  std::vector<uint8_t> header;
  for (const SegmentPtr& seg : all) {
    if (seg->size() == 0) continue;
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg->log_file());
    FileBatchWalker w(*file, 0, seg->size());
    while (w.Next()) {
      if (w.current().magic < kMagicV2) continue;
      SEGLOG_RETURN_IF_ERROR(w.ReadCurrentHeader(&header));
      namespace bl = batch_layout;
      const int64_t producer_id = LoadBEInt64(header.data() + bl::kProducerIdOffset);
      if (producer_id < 0) continue;
      ProducerLast& p = out[producer_id];
      p.epoch = LoadBEInt16(header.data() + bl::kProducerEpochOffset);
      const int16_t attributes = LoadBEInt16(header.data() + bl::kAttributesOffset);
      if ((attributes & bl::kControlFlagMask) == 0) p.last_data_offset = w.last_offset();
      p.last_timestamp = w.max_timestamp();
    }
    SEGLOG_RETURN_IF_ERROR(w.status());
  }
  for (auto it = out.begin(); it != out.end();) {
    it = now - it->second.last_timestamp >= expiration_ms ? out.erase(it) : std::next(it);
  }
  return out;
}

// Kafka's writeEmptyHeader: a 61-byte batch without records that keeps the offsets, producer
// and sequence of `v`.
std::vector<uint8_t> EmptyBatchLike(const RecordBatchView& v) {
  namespace bl = batch_layout;
  std::vector<uint8_t> out(bl::kRecordBatchOverhead, 0);
  uint8_t* h = out.data();
  StoreBE64(h + bl::kBaseOffsetOffset, static_cast<uint64_t>(v.base_offset()));
  StoreBE32(h + bl::kLengthOffset, static_cast<uint32_t>(out.size() - bl::kLogOverhead));
  StoreBE32(h + bl::kPartitionLeaderEpochOffset, static_cast<uint32_t>(v.partition_leader_epoch()));
  h[bl::kMagicOffset] = static_cast<uint8_t>(kMagicV2);
  int16_t attributes = 0;
  if (v.timestamp_type() == TimestampType::kLogAppendTime) attributes |= bl::kTimestampTypeMask;
  if (v.is_transactional()) attributes |= bl::kTransactionalFlagMask;
  if (v.is_control()) attributes |= bl::kControlFlagMask;
  StoreBE16(h + bl::kAttributesOffset, static_cast<uint16_t>(attributes));
  StoreBE32(h + bl::kLastOffsetDeltaOffset, static_cast<uint32_t>(v.last_offset_delta()));
  StoreBE64(h + bl::kBaseTimestampOffset, static_cast<uint64_t>(kNoTimestamp));
  StoreBE64(h + bl::kMaxTimestampOffset, static_cast<uint64_t>(v.max_timestamp()));
  StoreBE64(h + bl::kProducerIdOffset, static_cast<uint64_t>(v.producer_id()));
  StoreBE16(h + bl::kProducerEpochOffset, static_cast<uint16_t>(v.producer_epoch()));
  StoreBE32(h + bl::kBaseSequenceOffset, static_cast<uint32_t>(v.base_sequence()));
  StoreBE32(h + bl::kRecordsCountOffset, 0);
  StoreBE32(h + bl::kCrcOffset, Crc32c(Bytes(out).subspan(bl::kAttributesOffset)));
  return out;
}

// Kafka's collectAbortedTransactions, with whole entries (the cleaner re-writes them): the
// aborted transactions overlapping [start, upper) - last offset >= start, first offset <
// upper - from the transaction index of the segment holding `start` and of every later one,
// until an entry's last stable offset reaches `upper` (no later abort can belong to a
// transaction that began below it). A transaction's marker, and so its entry, may be in a
// segment past `upper`.
Result<std::vector<AbortedTxn>> CollectAborted(const std::vector<SegmentPtr>& all, int64_t start,
                                               int64_t upper) {
  std::vector<AbortedTxn> out;
  auto it = std::upper_bound(all.begin(), all.end(), start,
                             [](int64_t o, const SegmentPtr& s) { return o < s->base_offset(); });
  if (it != all.begin()) --it;
  for (; it != all.end(); ++it) {
    SEGLOG_ASSIGN_OR_RETURN(TransactionIndex::Collected c,
                            (*it)->txn_index().CollectAbortedTxns(start, upper));
    out.insert(out.end(), c.txns.begin(), c.txns.end());
    if (c.complete) break;
  }
  return out;
}

// Kafka's CleanedTransactionMetadata: the transactions a walk through the log (the offset map's
// or the copy's) is inside of, batch by batch in offset order.
// - An aborted transaction (from the transaction indexes) becomes active when the walk reaches
//   its first offset; the data batches of its producer's transaction while it is active are
//   aborted data - discardable, and remembered as seen.
// - Any other transactional data batch puts its producer in a transaction with data seen in
//   this walk (a committed one: aborted ones are all in the indexes).
// - An ABORT marker ends the producer's active aborted transaction: it must stay (and its entry
//   is written to the output's transaction index) when the walk saw data of that transaction,
//   else it is discardable; a COMMIT marker is discardable when the walk saw no data of its
//   transaction; an empty control batch (an emptied marker) is discardable; other control
//   types are not.
// Not thread-safe.
class TxnTracker {
 public:
  // Adds aborted transactions to activate (in first-offset order, whatever the order given).
  void AddAborted(const std::vector<AbortedTxn>& txns) {
    for (const AbortedTxn& t : txns) pending_.push(t);
  }
  // Where the entries of the ABORT markers that stay go (the cleaned segment's index); none
  // while building the map.
  void set_output(TransactionIndex* index) { output_ = index; }

  // A data batch ending at `last_offset`: whether it is aborted data.
  bool OnDataBatch(bool transactional, int64_t producer_id, int64_t last_offset) {
    Activate(last_offset);
    if (!transactional) return false;
    auto it = aborted_.find(producer_id);
    if (it != aborted_.end()) {
      it->second.seen_data = true;
      return true;
    }
    committed_.insert(producer_id);
    return false;
  }

  // A control batch: whether it is discardable. Corruption for a control record whose key is
  // not one (Kafka's InvalidRecordException).
  Result<bool> OnControlBatch(const RecordBatchView& v, const std::string& path) {
    Activate(v.last_offset());
    RecordIterator it(v);
    if (!it.Next()) {
      SEGLOG_RETURN_IF_ERROR(it.status().WithContext(path));
      return true;  // already emptied by an earlier cleaning
    }
    Result<ControlRecordKey> key = ParseControlRecordKey(it.record().key);
    if (!key.ok()) {
      return key.status().WithContext(
          fmt::format("{}: the control batch at offset {}", path, v.base_offset()));
    }
    switch (key->type()) {
      case ControlRecordType::kAbort: {
        auto a = aborted_.find(v.producer_id());
        if (a == aborted_.end()) return true;
        const Ongoing ended = a->second;
        aborted_.erase(a);
        if (!ended.seen_data) return true;
        // Its data is still in the log: the marker stays, and so does the index entry that
        // tells read_committed readers to drop that data.
        if (output_ != nullptr) SEGLOG_RETURN_IF_ERROR(output_->Append(ended.txn));
        return false;
      }
      case ControlRecordType::kCommit:
        return committed_.erase(v.producer_id()) == 0;
      default:
        return false;
    }
  }

 private:
  // Activates the aborted transactions beginning at or before `offset`.
  void Activate(int64_t offset) {
    while (!pending_.empty() && pending_.top().first_offset <= offset) {
      const AbortedTxn t = pending_.top();
      pending_.pop();
      aborted_.try_emplace(t.producer_id, Ongoing{t, false});
    }
  }

  struct Ongoing {
    AbortedTxn txn;
    bool seen_data = false;
  };
  struct LaterFirstOffset {
    bool operator()(const AbortedTxn& a, const AbortedTxn& b) const {
      return a.first_offset > b.first_offset;
    }
  };
  std::priority_queue<AbortedTxn, std::vector<AbortedTxn>, LaterFirstOffset> pending_;
  std::map<int64_t, Ongoing> aborted_;  // by producer id
  std::set<int64_t> committed_;         // producers in a transaction with data seen
  TransactionIndex* output_ = nullptr;
};

struct GroupLimits {
  int64_t max_size;
  int64_t max_index_size;
  int64_t first_uncleanable;
};

// Kafka's groupSegmentsBySize (docs/design/cleaner.md, "Grouping segments").
Result<std::vector<std::vector<SegmentPtr>>> GroupBySize(const std::vector<SegmentPtr>& segs,
                                                         const std::vector<SegmentPtr>& all,
                                                         const GroupLimits& limits) {
  // The base offset of the segment after each one (a map built once: a log of many small
  // segments made the search per segment quadratic).
  std::unordered_map<const LogSegment*, int64_t> next_bases;
  for (size_t i = 0; i + 1 < all.size(); ++i) next_bases[all[i].get()] = all[i + 1]->base_offset();
  auto next_base = [&](const SegmentPtr& s) -> int64_t {
    auto it = next_bases.find(s.get());
    return it == next_bases.end() ? limits.first_uncleanable : it->second;
  };
  std::vector<std::vector<SegmentPtr>> groups;
  size_t i = 0;
  while (i < segs.size()) {
    std::vector<SegmentPtr> group{segs[i]};
    int64_t log_size = segs[i]->size();
    SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, segs[i]->offset_index());
    SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, segs[i]->time_index());
    int64_t index_size = oi->entries() * 8;
    int64_t time_index_size = ti->entries() * 12;
    ++i;
    while (i < segs.size()) {
      const SegmentPtr& s = segs[i];
      SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * soi, s->offset_index());
      SEGLOG_ASSIGN_OR_RETURN(TimeIndex * sti, s->time_index());
      const bool fits =
          log_size + s->size() <= limits.max_size &&
          index_size + soi->entries() * 8 <= limits.max_index_size &&
          time_index_size + sti->entries() * 12 <= limits.max_index_size &&
          (s->size() == 0 || next_base(s) - 1 - group.front()->base_offset() <= INT32_MAX);
      if (!fits) break;
      group.push_back(s);
      log_size += s->size();
      index_size += soi->entries() * 8;
      time_index_size += sti->entries() * 12;
      ++i;
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

bool LogToClean::Eligible(double min_cleanable_ratio) const {
  if (clean_bytes + cleanable_bytes <= 0) return false;
  return (needs_compaction_now && cleanable_bytes > 0) || cleanable_ratio() > min_cleanable_ratio;
}

Result<LogToClean> CleanableRange(Log& log, std::optional<int64_t> checkpointed_dirty,
                                  int64_t now) {
  const std::vector<SegmentPtr> all = LogCleanerAccess::Segments(log);
  const LogConfig config = log.config();
  LogToClean r;
  const int64_t start = log.log_start_offset();
  const int64_t end = log.log_end_offset();
  r.first_dirty_offset = checkpointed_dirty.value_or(start);
  if (!checkpointed_dirty || r.first_dirty_offset < start || r.first_dirty_offset > end) {
    r.checkpoint_reset = checkpointed_dirty.has_value();
    r.first_dirty_offset = start;
  }
  const SegmentPtr active = all.back();
  // The last stable offset (at most the high watermark: no open transaction, nor anything
  // after its first offset, is cleaned), the active segment, and min.compaction.lag.ms bound
  // what may be cleaned.
  int64_t uncleanable = std::min(log.last_stable_offset(), active->base_offset());
  if (config.min_compaction_lag_ms > 0) {
    for (const SegmentPtr& seg :
         SegmentsOverlapping(all, r.first_dirty_offset, active->base_offset())) {
      SEGLOG_ASSIGN_OR_RETURN(const int64_t largest, seg->LargestTimestamp());
      if (largest > now - config.min_compaction_lag_ms) {
        uncleanable = std::min(uncleanable, seg->base_offset());
        break;
      }
    }
  }
  uncleanable = std::max(r.first_dirty_offset, uncleanable);
  // The segment holding it (the first non-active segment from it, else the active one).
  r.first_uncleanable_offset = active->base_offset();
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    if (all[i]->base_offset() <= uncleanable && all[i + 1]->base_offset() > uncleanable) {
      r.first_uncleanable_offset = all[i]->base_offset();
      break;
    }
  }
  for (const SegmentPtr& seg : all) {
    if (seg->base_offset() < r.first_dirty_offset) r.clean_bytes += seg->size();
  }
  for (const SegmentPtr& seg :
       SegmentsOverlapping(all, std::min(r.first_dirty_offset, r.first_uncleanable_offset),
                           r.first_uncleanable_offset)) {
    r.cleanable_bytes += seg->size();
  }
  if (config.max_compaction_lag_ms < INT64_MAX) {
    int64_t earliest = INT64_MAX;
    for (const SegmentPtr& seg :
         SegmentsOverlapping(all, r.first_dirty_offset, active->base_offset())) {
      SEGLOG_ASSIGN_OR_RETURN(const int64_t first, seg->FirstBatchTimestamp());
      if (first > 0) earliest = std::min(earliest, first);
    }
    r.needs_compaction_now = earliest != INT64_MAX &&
                             earliest < now - std::max<int64_t>(config.max_compaction_lag_ms, 0);
  }
  return r;
}

void Cleaner::SetIoLimit(double bytes_per_second, std::function<void(int64_t)> sleep_ms) {
  io_limit_ = bytes_per_second > 0 && bytes_per_second < 1e300 ? bytes_per_second : 0;
  sleep_ms_ = sleep_ms ? std::move(sleep_ms) : [](int64_t ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
}

namespace {

// One cleaning of one log, as named phases (docs/design/cleaner.md, "Kafka's rules"):
// BuildOffsetMap over the dirty section, then CleanGroup for each group of segments below the
// map's end - each segment's batches through FilterBatch into a cleaned segment that is swapped
// in - and Report. Lives for one Cleaner::Clean call. Thread safety: not thread-safe.
class CleaningRound {
 public:
  CleaningRound(int id, SkimpyOffsetMap* map, const Logger& info, double io_limit,
                const std::function<void(int64_t)>& sleep_ms, Log& log, std::string name,
                const LogToClean& range, int64_t now)
      : id_(id),
        map_(map),
        info_(info),
        io_limit_(io_limit),
        sleep_ms_(sleep_ms),
        log_(log),
        name_(std::move(name)),
        range_(range),
        now_(now),
        t0_(MonotonicMs()),
        config_(log.config()),
        all_(LogCleanerAccess::Segments(log)) {
    read_options_.scratch = &scratch_;
  }

  Result<Cleaner::Result_> Run() {
    Info(fmt::format("Beginning cleaning of log {}", name_));
    SEGLOG_RETURN_IF_ERROR(BuildOffsetMap());
    std::vector<SegmentPtr> to_clean;
    for (const SegmentPtr& seg : all_) {
      if (seg->base_offset() < out_.end_offset && seg != all_.back()) to_clean.push_back(seg);
    }
    SEGLOG_ASSIGN_OR_RETURN(producers_, ActiveProducers(all_, now_, producer_id_expiration_ms));
    // The copy walks every segment below the map's end, group after group, with one view of
    // the transactions (a transaction's data and its marker may be in different groups). Its
    // aborted transactions are collected once for the whole walk: Kafka collects them segment
    // by segment, which adds each one before the walk reaches its first offset all the same.
    if (!to_clean.empty()) {
      const auto next =
          std::upper_bound(all_.begin(), all_.end(), to_clean.back()->base_offset(),
                           [](int64_t o, const SegmentPtr& s) { return o < s->base_offset(); });
      const int64_t upper =
          next == all_.end() ? range_.first_uncleanable_offset : (*next)->base_offset();
      SEGLOG_ASSIGN_OR_RETURN(const std::vector<AbortedTxn> aborted,
                              CollectAborted(all_, to_clean.front()->base_offset(), upper));
      copy_txns_.AddAborted(aborted);
    }
    Info(fmt::format(
        "Cleaning log {} (cleaning prior to {}, discarding tombstones prior to upper "
        "bound deletion horizon {})...",
        name_, FormatDate(to_clean.empty() ? 0 : *to_clean.back()->LastModified()), FormatDate(0)));
    SEGLOG_ASSIGN_OR_RETURN(
        const auto groups,
        GroupBySize(to_clean, all_,
                    GroupLimits{config_.SegmentSize(), config_.segment_index_bytes,
                                range_.first_uncleanable_offset}));
    if (progress) {
      ProgressStep total{.add_segments_total = static_cast<int64_t>(to_clean.size())};
      for (const SegmentPtr& seg : to_clean) total.add_bytes_total += seg->size();
      progress(total);
    }
    for (const std::vector<SegmentPtr>& group : groups) SEGLOG_RETURN_IF_ERROR(CleanGroup(group));
    out_.stats.total_seconds = static_cast<double>(MonotonicMs() - t0_) / 1000.0;
    Report();
    return out_;
  }

  int64_t producer_id_expiration_ms = 86400000;
  ProgressCallback progress;

 private:
  // Reports the bytes read since the last report, and `segments` done.
  void Progress(int64_t segments) {
    if (!progress) return;
    const int64_t read = out_.stats.map_bytes_read + out_.stats.bytes_read;
    progress({.bytes = read - reported_bytes_, .segments = segments});
    reported_bytes_ = read;
  }

  void Info(const std::string& line) const {
    if (info_) info_.Info(fmt::format("Cleaner {}: {}", id_, line));
  }

  // Kafka's Throttler: after each chunk, sleep until the bytes so far fit the rate.
  void Throttle() {
    if (io_limit_ <= 0) return;
    const CleanerStats& stats = out_.stats;
    const int64_t io = stats.map_bytes_read + stats.bytes_read + stats.bytes_written;
    const int64_t due_ms = static_cast<int64_t>(static_cast<double>(io) * 1000.0 / io_limit_);
    const int64_t elapsed = MonotonicMs() - t0_ + throttled_ms_;
    if (due_ms > elapsed) {
      sleep_ms_(due_ms - elapsed);
      throttled_ms_ += due_ms - elapsed;
    }
  }

  // Phase 1 (cleaner.md, "The offset map"): the offset map over [first dirty, first
  // uncleanable), fewer offsets if it fills; sets the round's end offset (the next first dirty
  // offset).
  Status BuildOffsetMap() {
    CleanerStats& stats = out_.stats;
    map_->Clear();
    const std::vector<SegmentPtr> dirty =
        SegmentsOverlapping(all_, range_.first_dirty_offset, range_.first_uncleanable_offset);
    Info(fmt::format("Building offset map for log {} for {} segments in offset range [{}, {}).",
                     name_, dirty.size(), range_.first_dirty_offset,
                     range_.first_uncleanable_offset));
    // The aborted transactions of the range first: their batches' keys never enter the map
    // (a key an aborted transaction wrote must not shadow its committed value).
    TxnTracker txns;
    SEGLOG_ASSIGN_OR_RETURN(
        const std::vector<AbortedTxn> aborted,
        CollectAborted(all_, range_.first_dirty_offset, range_.first_uncleanable_offset));
    txns.AddAborted(aborted);
    if (progress) {
      ProgressStep total{.add_segments_total = static_cast<int64_t>(dirty.size())};
      for (const SegmentPtr& seg : dirty) total.add_bytes_total += seg->size();
      progress(total);
    }
    bool full = false;
    for (size_t i = 0; i < dirty.size() && !full; ++i) {
      const SegmentPtr& seg = dirty[i];
      SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, seg->offset_index());
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg->log_file());
      const int64_t start = oi->Lookup(range_.first_dirty_offset).position;
      FileBatchWalker w(*file, start, seg->size());
      while (!full && w.Next()) {
        SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes_));
        stats.map_bytes_read += static_cast<int64_t>(bytes_.size());
        Throttle();
        if (w.current().magic < kMagicV2) continue;
        SEGLOG_ASSIGN_OR_RETURN(RecordBatchView v,
                                RecordBatchView::Parse(bytes_, w.current().position));
        if (v.is_control()) {
          SEGLOG_RETURN_IF_ERROR(txns.OnControlBatch(v, seg->log_path()).status());
          ++stats.map_messages_read;
        } else if (txns.OnDataBatch(v.is_transactional(), v.producer_id(), v.last_offset())) {
          stats.map_messages_read += v.records_count();  // aborted: not mapped
        } else {
          SEGLOG_ASSIGN_OR_RETURN(full, PutKeys(v, *seg));
        }
        if (!full && v.last_offset() >= range_.first_dirty_offset) {
          map_->UpdateLatestOffset(v.last_offset());
        }
      }
      SEGLOG_RETURN_IF_ERROR(w.status());
      Progress(1);
      if (!full) {
        const int64_t next =
            i + 1 < dirty.size() ? dirty[i + 1]->base_offset() : range_.first_uncleanable_offset;
        map_->UpdateLatestOffset(next - 1);
      }
    }
    out_.end_offset = map_->latest_offset() + 1;
    stats.map_utilization = map_->utilization();
    stats.map_seconds = static_cast<double>(MonotonicMs() - t0_) / 1000.0;
    return Status::OK();
  }

  // Puts one batch's keyed records (at or past the first dirty offset) into the map. The keys
  // are hashed and their slots prefetched first, then put in order: the slots' cache misses
  // overlap instead of stalling one record at a time. Returns whether the map filled.
  Result<bool> PutKeys(const RecordBatchView& v, const LogSegment& seg) {
    keyed_.clear();
    RecordIterator it(v, read_options_);
    while (it.Next()) {
      ++out_.stats.map_messages_read;
      const Record& r = it.record();
      if (!r.key || r.offset < range_.first_dirty_offset) continue;
      keyed_.push_back({map_->HashKey(*r.key), r.offset});
      map_->Prefetch(keyed_.back().key);
    }
    SEGLOG_RETURN_IF_ERROR(it.status().WithContext(seg.log_path()));
    for (const KeyedOffset& k : keyed_) {
      if (map_->full()) return true;
      SEGLOG_RETURN_IF_ERROR(map_->Put(k.key, k.offset));
    }
    return false;
  }

  // Phase 2 (cleaner.md, "Grouping segments" to "How a kept batch is written"): copies a group
  // of segments into one cleaned segment, keeping what FilterBatch keeps, and swaps it in for
  // them.
  Status CleanGroup(const std::vector<SegmentPtr>& group) {
    SEGLOG_ASSIGN_OR_RETURN(SegmentPtr cleaned, LogCleanerAccess::CreateCleanedSegment(
                                                    log_, group.front()->base_offset()));
    cleaned_ = cleaned.get();
    // The ABORT markers kept in this group keep their entries in its transaction index.
    copy_txns_.set_output(&cleaned->txn_index());
    for (const SegmentPtr& seg : group) {
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg->log_file());
      FileBatchWalker w(*file, 0, seg->size());
      while (w.Next()) {
        SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes_));
        out_.stats.bytes_read += static_cast<int64_t>(bytes_.size());
        Throttle();
        if (w.current().magic < kMagicV2) {  // legacy: copied as it is
          copy_txns_.OnDataBatch(false, -1, w.last_offset());
          Keep(bytes_, w.last_offset());
        } else {
          SEGLOG_ASSIGN_OR_RETURN(RecordBatchView v,
                                  RecordBatchView::Parse(bytes_, w.current().position));
          SEGLOG_RETURN_IF_ERROR(FilterBatch(v, *seg));
        }
        if (chunk_.size() >= (1u << 20)) SEGLOG_RETURN_IF_ERROR(WriteChunk());
      }
      SEGLOG_RETURN_IF_ERROR(w.status());
      Progress(1);
    }
    SEGLOG_RETURN_IF_ERROR(WriteChunk());
    copy_txns_.set_output(nullptr);
    SEGLOG_RETURN_IF_ERROR(cleaned->OnBecomeInactiveSegment());
    SEGLOG_RETURN_IF_ERROR(cleaned->Flush());
    SEGLOG_ASSIGN_OR_RETURN(const int64_t mtime, group.back()->LastModified());
    SEGLOG_RETURN_IF_ERROR(cleaned->SetLastModified(mtime));
    std::string olds;
    for (const SegmentPtr& seg : group) olds += (olds.empty() ? "" : ", ") + seg->Describe();
    Info(fmt::format("Swapping in cleaned segment(s) [{}] for segment(s) [{}] in log {}",
                     cleaned->Describe(), olds, name_));
    SEGLOG_RETURN_IF_ERROR(LogCleanerAccess::ReplaceSegments(log_, cleaned, group));
    ++out_.stats.segments_swapped;
    return Status::OK();
  }

  void Keep(std::span<const uint8_t> batch, int64_t last_offset) {
    chunk_.insert(chunk_.end(), batch.begin(), batch.end());
    chunk_last_offset_ = last_offset;
  }

  // Appends the chunk of kept batches to the cleaned segment.
  Status WriteChunk() {
    if (chunk_.empty()) return Status::OK();
    SEGLOG_RETURN_IF_ERROR(cleaned_->Append(chunk_last_offset_, chunk_));
    out_.stats.bytes_written += static_cast<int64_t>(chunk_.size());
    chunk_.clear();
    Throttle();
    return Status::OK();
  }

  enum class Retention { kRetainEmpty, kDelete, kDeleteEmpty };

  // Batch retention (cleaner.md, "Which batches and records stay"): whether a batch may go,
  // and what becomes of a batch left empty.
  // The transaction state decides what is discardable (TxnTracker): aborted data, a marker
  // whose transaction left no data in this pass, an emptied control batch. Discardable data
  // goes at once, a discardable marker once its delete horizon has passed (the first pass
  // stamps it). The last batch of an active producer, and the batch ending at the upper bound,
  // stay as empty batches.
  struct BatchDecision {
    bool can_discard = false;
    bool discard_records = false;
    Retention retention = Retention::kDeleteEmpty;
  };
  Result<BatchDecision> DecideBatch(const RecordBatchView& v, const LogSegment& seg) {
    BatchDecision d;
    if (v.is_control()) {
      SEGLOG_ASSIGN_OR_RETURN(d.can_discard, copy_txns_.OnControlBatch(v, seg.log_path()));
    } else {
      d.can_discard =
          copy_txns_.OnDataBatch(v.is_transactional(), v.producer_id(), v.last_offset());
    }
    d.discard_records =
        v.is_control() ? d.can_discard && v.delete_horizon_ms() && *v.delete_horizon_ms() <= now_
                       : d.can_discard;
    bool last_of_producer = false;
    if (v.producer_id() >= 0) {
      auto p = producers_.find(v.producer_id());
      if (p != producers_.end()) {
        last_of_producer = p->second.last_data_offset >= 0
                               ? v.last_offset() == p->second.last_data_offset
                               : v.is_control() && v.producer_epoch() == p->second.epoch;
      }
    }
    d.retention = last_of_producer                                     ? Retention::kRetainEmpty
                  : v.next_offset() == range_.first_uncleanable_offset ? Retention::kRetainEmpty
                  : d.discard_records                                  ? Retention::kDelete
                                                                       : Retention::kDeleteEmpty;
    return d;
  }

  // Record retention (cleaner.md, "Which batches and records stay") for one batch, then what
  // is written for it ("How a kept batch is written"): the batch unchanged, rebuilt with the
  // records kept (offsets, codec and producer kept; a delete horizon set when it keeps a
  // tombstone or is a discardable marker), an empty batch, or nothing.
  Status FilterBatch(const RecordBatchView& v, const LogSegment& seg) {
    CleanerStats& stats = out_.stats;
    SEGLOG_ASSIGN_OR_RETURN(const BatchDecision d, DecideBatch(v, seg));
    const bool retain_deletes = !v.delete_horizon_ms() || now_ < *v.delete_horizon_ms();
    kept_.clear();
    kept_headers_.clear();
    int32_t read = 0;
    bool kept_tombstone = false;
    // Owns the decompressed records that kept_ points into, until the batch is written.
    RecordIterator it(v);
    if (d.retention != Retention::kDelete) {
      // First the batch's records, with the keys to look up hashed and their slots
      // prefetched; then the decisions, whose map lookups then mostly hit the cache.
      const bool lookups = !d.discard_records && !v.is_control();
      batch_records_.clear();
      batch_headers_.clear();
      batch_keys_.clear();
      while (it.Next()) {
        const Record& r = it.record();
        batch_records_.push_back(r);
        batch_headers_.emplace_back(r.headers.begin(), r.headers.end());
        SkimpyOffsetMap::HashedKey h{};
        if (lookups && r.key && r.offset <= map_->latest_offset()) {
          h = map_->HashKey(*r.key);
          map_->Prefetch(h);
        }
        batch_keys_.push_back(h);
      }
      SEGLOG_RETURN_IF_ERROR(it.status().WithContext(seg.log_path()));
      for (size_t k = 0; k < batch_records_.size(); ++k) {
        ++read;
        const Record& r = batch_records_[k];
        bool keep;
        if (d.discard_records) {
          keep = false;
        } else if (v.is_control()) {
          keep = true;
        } else if (r.offset > map_->latest_offset()) {
          keep = true;
        } else if (!r.key) {
          ++stats.invalid_messages;
          keep = false;
        } else {
          keep = r.offset >= map_->Get(batch_keys_[k]) && (r.value || retain_deletes);
        }
        if (keep) {
          kept_.push_back(r);
          kept_headers_.push_back(std::move(batch_headers_[k]));
          kept_tombstone |= !r.value && !v.is_control();
        }
      }
    } else {
      read = v.records_count();
    }
    stats.messages_read += read;
    const bool set_horizon =
        (kept_tombstone || (d.can_discard && v.is_control())) && !v.delete_horizon_ms();
    if (!kept_.empty() && static_cast<int32_t>(kept_.size()) == read && !set_horizon) {
      Keep(v.bytes(), v.last_offset());  // unchanged
      stats.messages_written += read;
    } else if (!kept_.empty()) {
      SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> rebuilt, Rebuild(v, set_horizon));
      Keep(rebuilt, v.last_offset());
      stats.messages_written += static_cast<int64_t>(kept_.size());
    } else if (d.retention == Retention::kRetainEmpty) {
      Keep(EmptyBatchLike(v), v.last_offset());
    }
    return Status::OK();
  }

  // The batch `v` with only the records kept.
  Result<std::vector<uint8_t>> Rebuild(const RecordBatchView& v, bool set_horizon) {
    BatchOptions o;
    o.base_offset = v.base_offset();
    o.partition_leader_epoch = v.partition_leader_epoch();
    SEGLOG_ASSIGN_OR_RETURN(o.compression, v.compression());
    o.timestamp_type = v.timestamp_type();
    o.log_append_time = v.max_timestamp();
    o.producer_id = v.producer_id();
    o.producer_epoch = v.producer_epoch();
    o.base_sequence = v.base_sequence();
    o.is_transactional = v.is_transactional();
    o.is_control = v.is_control();
    o.delete_horizon_ms = set_horizon ? std::optional<int64_t>(now_ + config_.delete_retention_ms)
                                      : v.delete_horizon_ms();
    o.last_offset_delta = v.last_offset_delta();
    RecordBatchBuilder b(o);
    for (size_t k = 0; k < kept_.size(); ++k) {
      SEGLOG_RETURN_IF_ERROR(b.AppendWithOffset(kept_[k].offset, kept_[k].timestamp, kept_[k].key,
                                                kept_[k].value, kept_headers_[k]));
    }
    return b.Build();
  }

  // Phase 3: Kafka's end-of-cleaning statistics, in its words.
  void Report() const {
    const CleanerStats& stats = out_.stats;
    const double mb = static_cast<double>(stats.bytes_read) / (1024.0 * 1024.0);
    const double map_mb = static_cast<double>(stats.map_bytes_read) / (1024.0 * 1024.0);
    const double total = stats.total_seconds;
    const double cleaning = total - stats.map_seconds;
    Info(fmt::format(
        "Log cleaner thread {} cleaned log {} (dirty section = [{}, {}])\n"
        "\t{:.1f} MB of log processed in {:.1f} seconds ({:.1f} MB/sec).\n"
        "\tIndexed {:.1f} MB in {:.1f} seconds ({:.1f} Mb/sec, {:.1f}% of total time)\n"
        "\tBuffer utilization: {:.1f}%\n"
        "\tCleaned {:.1f} MB in {:.1f} seconds ({:.1f} Mb/sec, {:.1f}% of total time)\n"
        "\tStart size: {:.1f} MB ({} messages)\n"
        "\tEnd size: {:.1f} MB ({} messages)\n"
        "\t{:.1f}% size reduction ({:.1f}% fewer messages)",
        id_, name_, range_.first_dirty_offset, out_.end_offset, mb, total,
        total > 0 ? mb / total : 0.0, map_mb, stats.map_seconds,
        stats.map_seconds > 0 ? map_mb / stats.map_seconds : 0.0,
        total > 0 ? 100.0 * stats.map_seconds / total : 0.0, 100.0 * stats.map_utilization, mb,
        cleaning, cleaning > 0 ? mb / cleaning : 0.0, total > 0 ? 100.0 * cleaning / total : 0.0,
        mb, stats.messages_read, static_cast<double>(stats.bytes_written) / (1024.0 * 1024.0),
        stats.messages_written,
        stats.bytes_read > 0 ? 100.0 * (1.0 - static_cast<double>(stats.bytes_written) /
                                                  static_cast<double>(stats.bytes_read))
                             : 0.0,
        stats.messages_read > 0 ? 100.0 * (1.0 - static_cast<double>(stats.messages_written) /
                                                     static_cast<double>(stats.messages_read))
                                : 0.0));
  }

  struct KeyedOffset {
    SkimpyOffsetMap::HashedKey key;
    int64_t offset;
  };

  const int id_;
  SkimpyOffsetMap* const map_;
  const Logger& info_;
  int64_t reported_bytes_ = 0;  // map and copy bytes read, as last reported to `progress`
  const double io_limit_;
  const std::function<void(int64_t)>& sleep_ms_;
  Log& log_;
  const std::string name_;
  const LogToClean range_;
  const int64_t now_;
  const int64_t t0_;
  const LogConfig config_;
  const std::vector<SegmentPtr> all_;
  Cleaner::Result_ out_;
  int64_t throttled_ms_ = 0;
  std::map<int64_t, ProducerLast> producers_;
  // Buffers reused from batch to batch.
  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> scratch_;
  ReadOptions read_options_;
  std::vector<KeyedOffset> keyed_;
  // The transactions the copy is inside of, across all groups of the round.
  TxnTracker copy_txns_;
  // The group being cleaned: its output, and the chunk of kept batches not yet written.
  LogSegment* cleaned_ = nullptr;
  std::vector<uint8_t> chunk_;
  int64_t chunk_last_offset_ = -1;
  std::vector<Record> batch_records_;
  std::vector<std::vector<Header>> batch_headers_;
  std::vector<SkimpyOffsetMap::HashedKey> batch_keys_;
  std::vector<Record> kept_;
  std::vector<std::vector<Header>> kept_headers_;
};

}  // namespace

Result<Cleaner::Result_> Cleaner::Clean(Log& log, const std::string& name, const LogToClean& range,
                                        int64_t now) {
  CleaningRound round(id_, map_, logger_, io_limit_, sleep_ms_, log, name, range, now);
  round.producer_id_expiration_ms = producer_id_expiration_ms_;
  round.progress = progress_;
  return round.Run();
}

}  // namespace seglog
