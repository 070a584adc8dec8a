// LogBatchWalker; see batch_walker.h.
#include "record/batch_walker.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

bool LogBatchWalker::Next() {
  if (!status_.ok()) return false;
  const size_t left = bytes_.size() - next_;
  // Kafka (FileLogInputStream) stops when 17 bytes or fewer remain.
  if (left <= bl::kHeaderSizeUpToMagic) return false;
  const uint8_t* p = bytes_.data() + next_;
  const int32_t length = LoadBEInt32(p + bl::kLengthOffset);
  const int64_t position = base_position_ + static_cast<int64_t>(next_);
  if (length < bl::kMinLengthField) {
    status_ = Status::Corruption(
        fmt::format("batch at position {}: length field: found {}, the minimum is {}", position,
                    length, bl::kMinLengthField));
    return false;
  }
  const int64_t size = int64_t{length} + static_cast<int64_t>(bl::kLogOverhead);
  if (size > static_cast<int64_t>(left)) return false;  // partial trailing batch
  current_.position = position;
  current_.base_offset = LoadBEInt64(p + bl::kBaseOffsetOffset);
  current_.length = length;
  current_.magic = static_cast<int8_t>(p[bl::kMagicOffset]);
  next_ += static_cast<size_t>(size);
  return true;
}

}  // namespace seglog
