// FileBatchWalker: the shallow batch walk of record/batch_walker.h over a .log *file*, reading
// only each batch's 17-byte prefix through a buffered window of preads (Kafka's
// FileLogInputStream). Used by offset lookups, which scan at most index.interval.bytes or so.
//
// Thread safety: not thread-safe; a cursor owned by one caller. Many walkers may read one File.
#ifndef SEGLOG_LOG_FILE_BATCH_WALKER_H_
#define SEGLOG_LOG_FILE_BATCH_WALKER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "io/file.h"
#include "record/batch_walker.h"

namespace seglog {

class FileBatchWalker {
 public:
  // Walks [start, end) of `file`. With `read_ahead` > 0 the walk reads the file sequentially
  // in windows of that many bytes, each holding whole batches (grown for a larger batch), so
  // that current_bytes() gives every batch without another read: for recovery and other
  // walks over whole segments, one copy out of the page cache and one pread per window instead
  // of two per batch.
  FileBatchWalker(const File& file, int64_t start, int64_t end, int64_t read_ahead = 0)
      : file_(file), next_(start), end_(end), read_ahead_(read_ahead) {}

  // Moves to the next whole batch. False at the end (a partial trailing batch ends silently)
  // or on an error (status()).
  bool Next();
  const BatchPrefix& current() const { return current_; }
  // From the current batch's header: its last offset and max timestamp (v2: header fields;
  // v0/v1: the message offset, and the v1 timestamp or -1).
  int64_t last_offset() const { return last_offset_; }
  int64_t max_timestamp() const { return max_timestamp_; }
  int32_t partition_leader_epoch() const { return leader_epoch_; }
  Status status() const { return status_; }
  // Reads the whole current batch into `out`.
  Status ReadCurrent(std::vector<uint8_t>* out) const;
  // The whole current batch, in the walker's window (valid until the next call to Next()).
  // REQUIRES: read_ahead > 0 and Next() returned true.
  std::span<const uint8_t> current_bytes() const {
    return std::span<const uint8_t>(window_).subspan(
        static_cast<size_t>(current_.position - window_start_),
        static_cast<size_t>(current_.size_in_bytes()));
  }
  // Reads the v2 header fields of the current batch (61 bytes) into `out`; false for legacy.
  Status ReadCurrentHeader(std::vector<uint8_t>* out) const;

 private:
  // Reads the window at next_: at least `want` bytes when the range has them.
  bool Fill(int64_t want);

  const File& file_;
  int64_t next_;
  int64_t end_;
  int64_t read_ahead_;
  std::vector<uint8_t> window_;
  int64_t window_bytes_ = 0;
  int64_t window_start_ = 0;
  BatchPrefix current_;
  int64_t last_offset_ = -1;
  int64_t max_timestamp_ = -1;
  int32_t leader_epoch_ = -1;
  Status status_;
};

}  // namespace seglog

#endif  // SEGLOG_LOG_FILE_BATCH_WALKER_H_
