// Cleaner; see cleaner.h. Section numbers refer to kafka-format.md.
#include "cleaner/cleaner.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/coding.h"
#include "base/crc32c.h"
#include "index/offset_index.h"
#include "index/time_index.h"
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
// a producer's last sequence is kept even when every record in it is cleaned away (11.7).
// Kafka's ProducerStateManager forgets a producer (without an open transaction) whose last
// batch's max timestamp is producer.id.expiration.ms old, and its batches are then cleaned
// like any other.
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

struct GroupLimits {
  int64_t max_size;
  int64_t max_index_size;
  int64_t first_uncleanable;
};

// Kafka's groupSegmentsBySize (11.6).
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
  // The last stable offset (the high watermark without transactions), the active segment, and
  // min.compaction.lag.ms bound what may be cleaned.
  int64_t uncleanable = std::min(log.high_watermark(), active->base_offset());
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

void Cleaner::Info(const std::string& line) const {
  if (logger_) logger_(fmt::format("Cleaner {}: {}", id_, line));
}

Result<Cleaner::Result_> Cleaner::Clean(Log& log, const std::string& name, const LogToClean& range,
                                        int64_t now) {
  const int64_t t0 = MonotonicMs();
  Result_ out;
  CleanerStats& stats = out.stats;
  // Kafka's Throttler: after each chunk, sleep until the bytes so far fit the rate.
  int64_t throttled_ms = 0;
  auto throttle = [&] {
    if (io_limit_ <= 0) return;
    const int64_t io = stats.map_bytes_read + stats.bytes_read + stats.bytes_written;
    const int64_t due_ms = static_cast<int64_t>(static_cast<double>(io) * 1000.0 / io_limit_);
    const int64_t elapsed = MonotonicMs() - t0 + throttled_ms;
    if (due_ms > elapsed) {
      sleep_ms_(due_ms - elapsed);
      throttled_ms += due_ms - elapsed;
    }
  };
  const LogConfig config = log.config();
  const std::vector<SegmentPtr> all = LogCleanerAccess::Segments(log);
  Info(fmt::format("Beginning cleaning of log {}", name));

  // 1. The offset map over the dirty part (11.5).
  map_->Clear();
  const std::vector<SegmentPtr> dirty =
      SegmentsOverlapping(all, range.first_dirty_offset, range.first_uncleanable_offset);
  Info(fmt::format("Building offset map for log {} for {} segments in offset range [{}, {}).", name,
                   dirty.size(), range.first_dirty_offset, range.first_uncleanable_offset));
  bool full = false;
  std::vector<uint8_t> bytes;
  struct KeyedOffset {
    SkimpyOffsetMap::HashedKey key;
    int64_t offset;
  };
  std::vector<KeyedOffset> keyed;
  std::vector<uint8_t> scratch;
  ReadOptions read_options;
  read_options.scratch = &scratch;
  for (size_t i = 0; i < dirty.size() && !full; ++i) {
    const SegmentPtr& seg = dirty[i];
    SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, seg->offset_index());
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg->log_file());
    const int64_t start = oi->Lookup(range.first_dirty_offset).position;
    FileBatchWalker w(*file, start, seg->size());
    while (!full && w.Next()) {
      SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes));
      stats.map_bytes_read += static_cast<int64_t>(bytes.size());
      throttle();
      if (w.current().magic < kMagicV2) continue;
      SEGLOG_ASSIGN_OR_RETURN(RecordBatchView v,
                              RecordBatchView::Parse(bytes, w.current().position));
      if (!v.is_control()) {
        // Hash the batch's keys and prefetch their slots first, then put them in order: the
        // slots' cache misses overlap instead of stalling one record at a time.
        keyed.clear();
        RecordIterator it(v, read_options);
        while (it.Next()) {
          ++stats.map_messages_read;
          const Record& r = it.record();
          if (!r.key || r.offset < range.first_dirty_offset) continue;
          keyed.push_back({map_->HashKey(*r.key), r.offset});
          map_->Prefetch(keyed.back().key);
        }
        SEGLOG_RETURN_IF_ERROR(it.status().WithContext(seg->log_path()));
        for (const KeyedOffset& k : keyed) {
          if (map_->full()) {
            full = true;
            break;
          }
          SEGLOG_RETURN_IF_ERROR(map_->Put(k.key, k.offset));
        }
      }
      if (!full && v.last_offset() >= range.first_dirty_offset) {
        map_->UpdateLatestOffset(v.last_offset());
      }
    }
    SEGLOG_RETURN_IF_ERROR(w.status());
    if (!full) {
      const int64_t next =
          i + 1 < dirty.size() ? dirty[i + 1]->base_offset() : range.first_uncleanable_offset;
      map_->UpdateLatestOffset(next - 1);
    }
  }
  out.end_offset = map_->latest_offset() + 1;
  stats.map_utilization = map_->utilization();
  stats.map_seconds = static_cast<double>(MonotonicMs() - t0) / 1000.0;

  // 2. Copy every segment below the map's end, in groups, into cleaned segments (11.6-11.8).
  std::vector<SegmentPtr> to_clean;
  for (const SegmentPtr& seg : all) {
    if (seg->base_offset() < out.end_offset && seg != all.back()) to_clean.push_back(seg);
  }
  SEGLOG_ASSIGN_OR_RETURN(const auto producers,
                          ActiveProducers(all, now, producer_id_expiration_ms_));
  Info(fmt::format(
      "Cleaning log {} (cleaning prior to {}, discarding tombstones prior to upper "
      "bound deletion horizon {})...",
      name, FormatDate(to_clean.empty() ? 0 : *to_clean.back()->LastModified()), FormatDate(0)));
  SEGLOG_ASSIGN_OR_RETURN(const auto groups,
                          GroupBySize(to_clean, all,
                                      GroupLimits{config.SegmentSize(), config.segment_index_bytes,
                                                  range.first_uncleanable_offset}));
  const int64_t upper_bound = range.first_uncleanable_offset;
  for (const std::vector<SegmentPtr>& group : groups) {
    SEGLOG_ASSIGN_OR_RETURN(SegmentPtr cleaned, LogCleanerAccess::CreateCleanedSegment(
                                                    log, group.front()->base_offset()));
    std::vector<uint8_t> chunk;
    int64_t chunk_last_offset = -1;
    auto flush_chunk = [&]() -> Status {
      if (chunk.empty()) return Status::OK();
      SEGLOG_RETURN_IF_ERROR(cleaned->Append(chunk_last_offset, chunk));
      stats.bytes_written += static_cast<int64_t>(chunk.size());
      chunk.clear();
      throttle();
      return Status::OK();
    };
    // COMMIT markers may go once no data of their transaction is left in this pass.
    std::map<int64_t, bool> producer_has_txn_data;
    std::vector<Record> batch_records;  // one batch's records, reused from batch to batch
    std::vector<std::vector<Header>> batch_headers;
    std::vector<SkimpyOffsetMap::HashedKey> batch_keys;
    for (const SegmentPtr& seg : group) {
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg->log_file());
      FileBatchWalker w(*file, 0, seg->size());
      while (w.Next()) {
        SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes));
        stats.bytes_read += static_cast<int64_t>(bytes.size());
        throttle();
        if (w.current().magic < kMagicV2) {  // legacy: copied as it is
          chunk.insert(chunk.end(), bytes.begin(), bytes.end());
          chunk_last_offset = w.last_offset();
          continue;
        }
        SEGLOG_ASSIGN_OR_RETURN(RecordBatchView v,
                                RecordBatchView::Parse(bytes, w.current().position));
        // Batch retention (11.7).
        bool can_discard = false;
        if (v.is_control()) {
          // Without transactions: an ABORT marker is kept; a COMMIT marker (or an empty control
          // batch) can go when its transaction left no data in this pass.
          bool is_abort = false;
          RecordIterator cit(v);
          if (cit.Next() && cit.record().key && cit.record().key->size() >= 4) {
            is_abort = LoadBEInt16(cit.record().key->data() + 2) ==
                       static_cast<int16_t>(ControlRecordType::kAbort);
          }
          const bool had_data = producer_has_txn_data[v.producer_id()];
          producer_has_txn_data[v.producer_id()] = false;
          can_discard = v.records_count() == 0 || (!is_abort && !had_data);
        } else if (v.is_transactional()) {
          producer_has_txn_data[v.producer_id()] = true;
        }
        const bool discard_records =
            v.is_control() ? can_discard && v.delete_horizon_ms() && *v.delete_horizon_ms() <= now
                           : can_discard;
        bool last_of_producer = false;
        if (v.producer_id() >= 0) {
          auto p = producers.find(v.producer_id());
          if (p != producers.end()) {
            last_of_producer = p->second.last_data_offset >= 0
                                   ? v.last_offset() == p->second.last_data_offset
                                   : v.is_control() && v.producer_epoch() == p->second.epoch;
          }
        }
        enum class Retention { kRetainEmpty, kDelete, kDeleteEmpty };
        const Retention retention = last_of_producer                 ? Retention::kRetainEmpty
                                    : v.next_offset() == upper_bound ? Retention::kRetainEmpty
                                    : discard_records                ? Retention::kDelete
                                                                     : Retention::kDeleteEmpty;
        // Record retention.
        const bool retain_deletes = !v.delete_horizon_ms() || now < *v.delete_horizon_ms();
        std::vector<Record> kept;
        std::vector<std::vector<Header>> kept_headers;
        int32_t read = 0;
        bool kept_tombstone = false;
        RecordIterator it(v);
        if (retention != Retention::kDelete) {
          // First the batch's records, with the keys to look up hashed and their slots
          // prefetched; then the decisions, whose map lookups then mostly hit the cache.
          const bool lookups = !discard_records && !v.is_control();
          batch_records.clear();
          batch_headers.clear();
          batch_keys.clear();
          while (it.Next()) {
            const Record& r = it.record();
            batch_records.push_back(r);
            batch_headers.emplace_back(r.headers.begin(), r.headers.end());
            SkimpyOffsetMap::HashedKey h{};
            if (lookups && r.key && r.offset <= map_->latest_offset()) {
              h = map_->HashKey(*r.key);
              map_->Prefetch(h);
            }
            batch_keys.push_back(h);
          }
          SEGLOG_RETURN_IF_ERROR(it.status().WithContext(seg->log_path()));
          for (size_t k = 0; k < batch_records.size(); ++k) {
            ++read;
            const Record& r = batch_records[k];
            bool keep;
            if (discard_records) {
              keep = false;
            } else if (v.is_control()) {
              keep = true;
            } else if (r.offset > map_->latest_offset()) {
              keep = true;
            } else if (!r.key) {
              ++stats.invalid_messages;
              keep = false;
            } else {
              keep = r.offset >= map_->Get(batch_keys[k]) && (r.value || retain_deletes);
            }
            if (keep) {
              kept.push_back(r);
              kept_headers.push_back(std::move(batch_headers[k]));
              kept_tombstone |= !r.value && !v.is_control();
            }
          }
        } else {
          read = v.records_count();
        }
        stats.messages_read += read;
        const bool set_horizon =
            (kept_tombstone || (can_discard && v.is_control())) && !v.delete_horizon_ms();
        if (!kept.empty() && static_cast<int32_t>(kept.size()) == read && !set_horizon) {
          chunk.insert(chunk.end(), bytes.begin(), bytes.end());  // unchanged
          chunk_last_offset = v.last_offset();
          stats.messages_written += read;
        } else if (!kept.empty()) {
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
          o.delete_horizon_ms = set_horizon
                                    ? std::optional<int64_t>(now + config.delete_retention_ms)
                                    : v.delete_horizon_ms();
          o.last_offset_delta = v.last_offset_delta();
          RecordBatchBuilder b(o);
          for (size_t k = 0; k < kept.size(); ++k) {
            SEGLOG_RETURN_IF_ERROR(b.AppendWithOffset(kept[k].offset, kept[k].timestamp,
                                                      kept[k].key, kept[k].value, kept_headers[k]));
          }
          SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> rebuilt, b.Build());
          chunk.insert(chunk.end(), rebuilt.begin(), rebuilt.end());
          chunk_last_offset = v.last_offset();
          stats.messages_written += static_cast<int64_t>(kept.size());
        } else if (retention == Retention::kRetainEmpty) {
          const std::vector<uint8_t> empty = EmptyBatchLike(v);
          chunk.insert(chunk.end(), empty.begin(), empty.end());
          chunk_last_offset = v.last_offset();
        }
        if (chunk.size() >= (1u << 20)) SEGLOG_RETURN_IF_ERROR(flush_chunk());
      }
      SEGLOG_RETURN_IF_ERROR(w.status());
    }
    SEGLOG_RETURN_IF_ERROR(flush_chunk());
    SEGLOG_RETURN_IF_ERROR(cleaned->OnBecomeInactiveSegment());
    SEGLOG_RETURN_IF_ERROR(cleaned->Flush());
    SEGLOG_ASSIGN_OR_RETURN(const int64_t mtime, group.back()->LastModified());
    SEGLOG_RETURN_IF_ERROR(cleaned->SetLastModified(mtime));
    std::string olds;
    for (const SegmentPtr& s : group) olds += (olds.empty() ? "" : ", ") + s->Describe();
    Info(fmt::format("Swapping in cleaned segment(s) [{}] for segment(s) [{}] in log {}",
                     cleaned->Describe(), olds, name));
    SEGLOG_RETURN_IF_ERROR(LogCleanerAccess::ReplaceSegments(log, cleaned, group));
    ++stats.segments_swapped;
  }
  stats.total_seconds = static_cast<double>(MonotonicMs() - t0) / 1000.0;
  const double mb = static_cast<double>(stats.bytes_read) / (1024.0 * 1024.0);
  Info(fmt::format(
      "Log cleaner thread {} cleaned log {} (dirty section = [{}, {}])\n"
      "\t{:.1f} MB of log processed in {:.1f} seconds ({:.1f} MB/sec).\n"
      "\tIndexed {:.1f} MB in {:.1f} seconds ({:.1f} Mb/sec, {:.1f}% of total time)\n"
      "\tBuffer utilization: {:.1f}%\n"
      "\tCleaned {:.1f} MB in {:.1f} seconds ({:.1f} Mb/sec, {:.1f}% of total time)\n"
      "\tStart size: {:.1f} MB ({} messages)\n"
      "\tEnd size: {:.1f} MB ({} messages)\n"
      "\t{:.1f}% size reduction ({:.1f}% fewer messages)",
      id_, name, range.first_dirty_offset, out.end_offset, mb, stats.total_seconds,
      stats.total_seconds > 0 ? mb / stats.total_seconds : 0.0,
      static_cast<double>(stats.map_bytes_read) / (1024.0 * 1024.0), stats.map_seconds,
      stats.map_seconds > 0
          ? static_cast<double>(stats.map_bytes_read) / (1024.0 * 1024.0) / stats.map_seconds
          : 0.0,
      stats.total_seconds > 0 ? 100.0 * stats.map_seconds / stats.total_seconds : 0.0,
      100.0 * stats.map_utilization, mb, stats.total_seconds - stats.map_seconds,
      stats.total_seconds - stats.map_seconds > 0 ? mb / (stats.total_seconds - stats.map_seconds)
                                                  : 0.0,
      stats.total_seconds > 0
          ? 100.0 * (stats.total_seconds - stats.map_seconds) / stats.total_seconds
          : 0.0,
      mb, stats.messages_read, static_cast<double>(stats.bytes_written) / (1024.0 * 1024.0),
      stats.messages_written,
      stats.bytes_read > 0 ? 100.0 * (1.0 - static_cast<double>(stats.bytes_written) /
                                                static_cast<double>(stats.bytes_read))
                           : 0.0,
      stats.messages_read > 0 ? 100.0 * (1.0 - static_cast<double>(stats.messages_written) /
                                                   static_cast<double>(stats.messages_read))
                              : 0.0));
  return out;
}

}  // namespace seglog
