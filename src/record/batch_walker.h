// LogBatchWalker: the shallow walk over a .log file's bytes that Kafka's FileLogInputStream
// makes. It reads only the first 17 bytes of each batch (offset, length, magic) and skips by
// the length, never touching records, so it runs at memory speed.
//
// Rules (docs/format/record_batch.md, "7. Walking a `.log` file (shallow iteration)"):
//   - 17 bytes or fewer left              -> end (no more batches)
//   - length field < 14                   -> Corruption naming the position and the length
//   - batch reaches past the end          -> end, silently (a partial trailing batch)
//
// Thread safety: not thread-safe; a cursor owned by one caller.
#ifndef SEGLOG_RECORD_BATCH_WALKER_H_
#define SEGLOG_RECORD_BATCH_WALKER_H_

#include <cstdint>
#include <span>

#include "seglog/status.h"

namespace seglog {

// The 17-byte prefix every batch, of any magic, begins with.
struct BatchPrefix {
  int64_t position = 0;     // of the batch's first byte, absolute
  int64_t base_offset = 0;  // v2: base offset; v0/v1: offset of the (last inner) message
  int32_t length = 0;       // bytes after the length field
  int8_t magic = 0;
  int64_t size_in_bytes() const { return int64_t{length} + 12; }
};

class LogBatchWalker {
 public:
  // `base_position` is the file position of bytes[0].
  explicit LogBatchWalker(std::span<const uint8_t> bytes, int64_t base_position = 0)
      : bytes_(bytes), base_position_(base_position) {}

  // Moves to the next whole batch. False at the end or on corruption (see status()).
  bool Next();
  const BatchPrefix& current() const { return current_; }
  // The whole batch's bytes. REQUIRES: Next() returned true.
  std::span<const uint8_t> current_bytes() const {
    return bytes_.subspan(static_cast<size_t>(current_.position - base_position_),
                          static_cast<size_t>(current_.size_in_bytes()));
  }
  Status status() const { return status_; }
  // Absolute position just past the last whole batch returned.
  int64_t end_of_batches() const { return base_position_ + static_cast<int64_t>(next_); }
  // Bytes after the last whole batch (a partial batch, or the rest after corruption).
  size_t trailing_bytes() const { return bytes_.size() - next_; }

 private:
  std::span<const uint8_t> bytes_;
  int64_t base_position_;
  size_t next_ = 0;
  BatchPrefix current_;
  Status status_;
};

}  // namespace seglog

#endif  // SEGLOG_RECORD_BATCH_WALKER_H_
