// Cleaner: one round of compaction of one log - Kafka's Cleaner.doClean (docs/design/cleaner.md,
// "Kafka's rules"): which part of the log is cleanable, the offset map of its dirty part,
// and the copy of every segment below the map's end into cleaned segments that keep the latest
// record of each key, tombstones until their delete horizon, and every surviving record's
// offset, swapped in through the .cleaned/.swap/.deleted protocol.
//
// Transactions (Kafka's CleanedTransactionMetadata): nothing at or above the last stable
// offset is cleaned; the records of aborted transactions (known from the segments' .txnindex)
// never enter the offset map and are dropped by the copy; an ABORT marker stays - and keeps
// its entry in the cleaned segment's .txnindex - while the pass still met data of its
// transaction, a COMMIT marker likewise; a marker without data left goes after its delete
// horizon, as a tombstone does.
//
// Not yet: legacy (v0/v1) batches are copied unchanged.
//
// Thread safety: a Cleaner is used by one thread; the log it cleans is thread-safe, and
// appends continue meanwhile (the active segment is never cleaned).
#ifndef SEGLOG_CLEANER_CLEANER_H_
#define SEGLOG_CLEANER_CLEANER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/progress.h"
#include "cleaner/skimpy_offset_map.h"
#include "seglog/log.h"
#include "seglog/logger.h"

namespace seglog {

// Kafka's LogToClean: the cleanable part of a log.
struct LogToClean {
  int64_t first_dirty_offset = 0;
  // Base offset of the first segment that must not be cleaned (the one holding the last
  // stable offset, the active one, or the first inside min.compaction.lag.ms).
  int64_t first_uncleanable_offset = 0;
  int64_t clean_bytes = 0;
  int64_t cleanable_bytes = 0;
  bool needs_compaction_now = false;  // max.compaction.lag.ms passed
  bool checkpoint_reset = false;      // the checkpoint was missing or out of range
  double cleanable_ratio() const {
    const int64_t total = clean_bytes + cleanable_bytes;
    return total == 0 ? 0.0 : static_cast<double>(cleanable_bytes) / static_cast<double>(total);
  }
  // Kafka's rule: something to clean and a ratio above min.cleanable.dirty.ratio, or overdue.
  bool Eligible(double min_cleanable_ratio) const;
};

// The cleanable range of `log` given its checkpointed first dirty offset (Kafka's rule:
// docs/design/cleaner.md, "Choosing a log").
Result<LogToClean> CleanableRange(Log& log, std::optional<int64_t> checkpointed_dirty,
                                  int64_t now_ms);

struct CleanerStats {
  int64_t map_messages_read = 0;
  int64_t map_bytes_read = 0;
  int64_t messages_read = 0;
  int64_t bytes_read = 0;
  int64_t messages_written = 0;
  int64_t bytes_written = 0;
  int64_t invalid_messages = 0;  // records without a key: dropped
  double map_utilization = 0;
  double map_seconds = 0;
  double total_seconds = 0;
  int segments_swapped = 0;
};

class Cleaner {
 public:
  // `map` is this cleaner's offset map (log.cleaner.dedupe.buffer.size / threads).
  // `producer_id_expiration_ms`: producer.id.expiration.ms - the last batch of a producer
  // active more recently than that is kept even when emptied.
  Cleaner(int id, SkimpyOffsetMap* map, Logger logger = {},
          int64_t producer_id_expiration_ms = 86400000)
      : id_(id),
        map_(map),
        logger_(std::move(logger)),
        producer_id_expiration_ms_(producer_id_expiration_ms) {}

  // log.cleaner.io.max.bytes.per.second: reads and writes of a round are paced to this rate by
  // sleeping (`sleep_ms` is injectable for tests). Default: unlimited.
  void SetIoLimit(double bytes_per_second, std::function<void(int64_t)> sleep_ms = {});
  // Told the bytes and segments a round reads (the dirty section for the map, then the
  // segments it copies) as it learns them, and each segment and its bytes as they are read.
  void SetProgress(ProgressCallback progress) { progress_ = std::move(progress); }

  struct Result_ {
    int64_t end_offset = 0;  // the new first dirty offset (cleaner-offset-checkpoint)
    CleanerStats stats;
  };
  // One round: builds the map over [first dirty, first uncleanable) - fewer offsets if it
  // fills - and cleans every segment below the map's end.
  Result<Result_> Clean(Log& log, const std::string& name, const LogToClean& range, int64_t now_ms);

 private:
  const int id_;
  SkimpyOffsetMap* const map_;
  const Logger logger_;
  const int64_t producer_id_expiration_ms_;
  double io_limit_ = 0;  // bytes per second; 0: none
  std::function<void(int64_t)> sleep_ms_;
  ProgressCallback progress_;
};

}  // namespace seglog

#endif  // SEGLOG_CLEANER_CLEANER_H_
