// LogSegment: one segment of a partition's log - the .log file of batches, its lazily opened
// offset and time indexes, and Kafka's rules for indexing, rolling, reading and lookups
// (Kafka's LogSegment.java; docs/design/log.md, docs/format/offset_index.md, time_index.md),
// and its index of aborted transactions (<base>.txnindex, index/transaction_index.h).
//
// Lifecycle: Open() creates or reopens the files; the log appends to the active segment,
// calls OnBecomeInactiveSegment() when it rolls past it, and Close() (or Delete via the log)
// at the end. Owned by the Log through shared_ptr, so a reader holding a segment keeps it
// usable after the log drops it.
//
// Thread safety: one appender (externally synchronised: Append, OnBecomeInactiveSegment,
// Flush, Close, ResizeIndexes, DeleteFiles) and any number of concurrent readers (Read,
// TranslateOffset, FindOffsetByTimestamp, size). Appended bytes become visible to readers only
// after the whole append is written (size() is published last).
#ifndef SEGLOG_LOG_LOG_SEGMENT_H_
#define SEGLOG_LOG_LOG_SEGMENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/mutex.h"
#include "index/lazy_index.h"
#include "index/offset_index.h"
#include "index/time_index.h"
#include "index/transaction_index.h"
#include "io/env.h"
#include "io/file.h"
#include "seglog/log.h"

namespace seglog {

// Settings a segment needs, derived from the topic's LogConfig.
struct SegmentOptions {
  int32_t index_interval_bytes = 4096;  // index.interval.bytes
  int64_t max_index_size = 10485760;    // segment.index.bytes
  int64_t roll_jitter_ms = 0;           // drawn from segment.jitter.ms at creation
  bool preallocate = false;             // preallocate
  int32_t segment_bytes = 1073741824;   // for preallocation
  bool writable = true;                 // false: a read-only view (tools on Kafka's dirs)
  // Appended to every file name: "" for a live segment, ".cleaned" for the cleaner's output.
  std::string file_suffix;
  // Where all the segment's I/O goes (its log's Env). Required: Open refuses nullptr.
  Env* env = nullptr;
};

struct RollParams {
  int64_t max_segment_bytes = 0;
  int64_t max_segment_ms = 0;
  int64_t messages_size = 0;
  int64_t max_timestamp_in_messages = -1;
  int64_t max_offset_in_messages = 0;
  int64_t now_ms = 0;
};

class LogSegment {
 public:
  // Opens the segment at `base_offset` in `dir`. `file_already_exists`: an existing .log, whose
  // length (by stat) is the segment's size; it is opened only when first read or written, and
  // its index files likewise, so an idle segment holds neither a descriptor nor a mapping.
  // Otherwise the .log is created (and stays open).
  static Result<std::shared_ptr<LogSegment>> Open(const std::string& dir, int64_t base_offset,
                                                  const SegmentOptions& options,
                                                  bool file_already_exists, int64_t now_ms);
  ~LogSegment();
  LogSegment(const LogSegment&) = delete;
  LogSegment& operator=(const LogSegment&) = delete;

  int64_t base_offset() const { return base_offset_; }
  // Bytes of batches in the .log (readers see only whole appends).
  int64_t size() const { return size_.load(std::memory_order_acquire); }
  // The .log, opened on first use.
  Result<std::shared_ptr<File>> log_file() const EXCLUDES(file_mu_);
  bool log_file_open() const EXCLUDES(file_mu_);
  std::string log_path() const EXCLUDES(file_mu_);
  Result<OffsetIndex*> offset_index() { return offset_index_.Get(); }
  Result<TimeIndex*> time_index() { return time_index_.Get(); }
  bool indexes_loaded() const { return offset_index_.IsLoaded() || time_index_.IsLoaded(); }
  // The aborted transactions whose markers are in this segment (thread-safe on its own).
  TransactionIndex& txn_index() { return txn_index_; }
  const TransactionIndex& txn_index() const { return txn_index_; }

  // The five roll conditions (docs/design/log.md, "When a segment rolls"). Opens the indexes
  // (as Kafka's does).
  Result<bool> ShouldRoll(const RollParams& params);

  // Appends whole v2 batches (already validated, offsets assigned) whose last offset is
  // `largest_offset`, then adds index entries by Kafka's per-batch rule.
  Status Append(int64_t largest_offset, std::span<const uint8_t> batches);

  // The first batch at or after `starting_position` whose last offset >= `offset`.
  Result<std::optional<BatchLocation>> TranslateOffset(int64_t offset,
                                                       int64_t starting_position = 0);

  // Reads from the batch holding `start_offset`, up to `max_size` bytes and not past
  // `max_position` (the readable end). nullopt when this segment has nothing at or after
  // `start_offset`.
  Result<std::optional<FetchDataInfo>> Read(int64_t start_offset, int32_t max_size,
                                            int64_t max_position, bool min_one_message);

  // First record with timestamp >= `timestamp` and offset >= `starting_offset`.
  Result<std::optional<TimestampAndOffset>> FindOffsetByTimestamp(int64_t timestamp,
                                                                  int64_t starting_offset);

  // The offset after the last batch (base offset when empty), found from the last index entry.
  // An unopened segment is read with transient descriptors: its index is not mapped and its
  // .log not kept open.
  Result<int64_t> ReadNextOffset();

  // Largest record timestamp so far and the last offset of the batch that has it; loaded from
  // the time index's last entry for a reopened segment.
  Result<TimestampOffset> MaxTimestampAndOffsetSoFar();
  // largestTimestamp(): the max record timestamp, or the .log's mtime when there is none.
  Result<int64_t> LargestTimestamp();

  // The log rolled past this segment: final time-index entry, trim the indexes and the .log.
  Status OnBecomeInactiveSegment();
  // fsync the .log, msync the indexes (opening them, as Kafka does).
  Status Flush();
  // Final time-index entry if known, trim and close everything.
  Status Close();
  // Grows the indexes back to their maximum size (the active segment after a load); an index
  // not yet opened is resized when it is first opened.
  Status ResizeIndexes(int64_t size);
  // Renames every file of the segment from <name><old_suffix> to <name><new_suffix> (Kafka's
  // changeFileSuffixes, e.g. "" -> ".deleted"); open files stay usable by their readers.
  Status ChangeFileSuffixes(const std::string& old_suffix, const std::string& new_suffix)
      EXCLUDES(file_mu_);
  // Removes the segment's files (missing files are fine). Returns the .log's name if it existed.
  Status DeleteFiles();
  // Sets the modification time of the .log and both index files (the cleaner keeps the
  // original segments' time, which retention may judge by).
  Status SetLastModified(int64_t ms) EXCLUDES(file_mu_);
  Result<int64_t> LastModified() const EXCLUDES(file_mu_);
  // Kafka's LogSegment.toString: LogSegment(baseOffset=, size=, lastModifiedTime=,
  // largestRecordTimestamp=).
  std::string Describe();

  // Called by Recover with the bytes it is about to cut from the .log, before it cuts them.
  using CutHandler = std::function<Status(const File& log, int64_t from, int64_t to)>;
  struct RecoveryResult {
    int64_t valid_bytes = 0;
    int64_t truncated_bytes = 0;
    int32_t batches = 0;
    Status stop_reason;            // why the scan stopped early (OK when it read to the end)
    bool txn_index_reset = false;  // the transaction index failed its check and was emptied
  };
  // Kafka's LogSegment.recover (docs/design/recovery.md, "The order", step 5): empties both
  // indexes, validates every batch from the start (size and CRC; offsets representable
  // relative to the base), rebuilds the indexes by the append rule, and cuts the .log at the
  // first invalid or partial batch - after handing the cut bytes to `on_cut` (seglog
  // quarantines them; Kafka just drops them).
  Result<RecoveryResult> Recover(const CutHandler& on_cut);

 private:
  LogSegment(std::string dir, int64_t base_offset, const SegmentOptions& options,
             std::shared_ptr<File> log, int64_t size, int64_t now_ms);
  // The .log if it is open, else a descriptor that is not kept (load-time reads).
  Result<std::shared_ptr<File>> OpenOrTransientLogFile() const EXCLUDES(file_mu_);

  Status EnsureOffsetInRange(int64_t offset) const;
  Status TrimLogFile(File& log) const;
  Result<int64_t> RollingBasedTimestamp() EXCLUDES(state_mu_);

 public:
  // The max timestamp of the first batch, or -1 (Kafka's getFirstBatchTimestamp; the cleaner's
  // max.compaction.lag.ms check).
  Result<int64_t> FirstBatchTimestamp() { return RollingBasedTimestamp(); }

 private:
  const std::string dir_;
  const int64_t base_offset_;
  const SegmentOptions options_;
  mutable Mutex file_mu_;
  std::string log_path_ GUARDED_BY(file_mu_);
  mutable std::shared_ptr<File> log_ GUARDED_BY(file_mu_);
  LazyIndex<OffsetIndex> offset_index_;
  LazyIndex<TimeIndex> time_index_;
  TransactionIndex txn_index_;
  std::atomic<int64_t> size_;
  // Timestamps the roll and retention rules read; written by the appender, read by anyone.
  mutable Mutex state_mu_;
  int64_t created_ms_ GUARDED_BY(state_mu_);
  std::optional<int64_t> rolling_based_timestamp_ GUARDED_BY(state_mu_);
  std::optional<TimestampOffset> max_timestamp_so_far_ GUARDED_BY(state_mu_);
  // Appender-only.
  int64_t bytes_since_last_index_entry_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_LOG_LOG_SEGMENT_H_
