// FileBatchWalker; see file_batch_walker.h.
#include "log/file_batch_walker.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/coding.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

namespace {
// The window starts small (a lookup usually needs one or two batch headers) and doubles with each
// refill up to 16 KiB (a walk over many small batches needs few reads).
constexpr int64_t kFirstWindowBytes = 128;
constexpr int64_t kMaxWindowBytes = 16 * 1024;
}  // namespace

bool FileBatchWalker::Fill(int64_t want) {
  if (read_ahead_ > 0) {
    window_bytes_ = read_ahead_;
  } else {
    window_bytes_ =
        window_.empty() ? kFirstWindowBytes : std::min(window_bytes_ * 2, kMaxWindowBytes);
  }
  const int64_t n = std::min(std::max<int64_t>(window_bytes_, want), end_ - next_);
  window_.resize(static_cast<size_t>(n));
  auto got = file_.ReadAtMost(next_, window_);
  if (!got.ok()) {
    status_ = got.status();
    return false;
  }
  window_.resize(*got);
  window_start_ = next_;
  return true;
}

bool FileBatchWalker::Next() {
  if (!status_.ok()) return false;
  if (end_ - next_ <= static_cast<int64_t>(bl::kHeaderSizeUpToMagic)) return false;
  // The window must hold the v2 header (61 bytes), or what is left of the range.
  const int64_t want = std::min<int64_t>(bl::kRecordBatchOverhead, end_ - next_);
  if (next_ < window_start_ ||
      next_ + want > window_start_ + static_cast<int64_t>(window_.size())) {
    if (!Fill(want)) return false;
    if (window_.size() < bl::kHeaderSizeUpToMagic) return false;
  }
  const uint8_t* p = window_.data() + (next_ - window_start_);
  const int32_t length = LoadBEInt32(p + bl::kLengthOffset);
  if (length < bl::kMinLengthField) {
    status_ = Status::Corruption(
        fmt::format("{}: batch at position {}: length field: found {}, the minimum is {}",
                    file_.path(), next_, length, bl::kMinLengthField));
    return false;
  }
  const int64_t size = int64_t{length} + static_cast<int64_t>(bl::kLogOverhead);
  if (size > end_ - next_) return false;  // partial trailing batch
  if (read_ahead_ > 0 && next_ + size > window_start_ + static_cast<int64_t>(window_.size())) {
    // Read-ahead walks keep each whole batch in the window.
    if (!Fill(size)) return false;
    if (static_cast<int64_t>(window_.size()) < size) return false;  // the file shrank
    p = window_.data();
  }
  current_.position = next_;
  current_.base_offset = LoadBEInt64(p + bl::kBaseOffsetOffset);
  current_.length = length;
  current_.magic = static_cast<int8_t>(p[bl::kMagicOffset]);
  const int64_t in_window = window_start_ + static_cast<int64_t>(window_.size()) - next_;
  if (current_.magic >= kMagicV2) {
    if (size < static_cast<int64_t>(bl::kRecordBatchOverhead) ||
        in_window < static_cast<int64_t>(bl::kRecordBatchOverhead)) {
      status_ = Status::Corruption(
          fmt::format("{}: batch at position {}: {} bytes, smaller than the {}-byte v2 header",
                      file_.path(), next_, size, bl::kRecordBatchOverhead));
      return false;
    }
    last_offset_ = WrappingAdd(current_.base_offset, LoadBEInt32(p + bl::kLastOffsetDeltaOffset));
    max_timestamp_ = LoadBEInt64(p + bl::kMaxTimestampOffset);
    leader_epoch_ = LoadBEInt32(p + bl::kPartitionLeaderEpochOffset);
  } else {
    last_offset_ = current_.base_offset;
    // v1: int64 timestamp after crc(4), magic(1), attributes(1) = byte 18.
    max_timestamp_ =
        (current_.magic == kMagicV1 && in_window >= 26 && size >= 26) ? LoadBEInt64(p + 18) : -1;
    leader_epoch_ = -1;
  }
  next_ += size;
  return true;
}

Status FileBatchWalker::ReadCurrent(std::vector<uint8_t>* out) const {
  out->resize(static_cast<size_t>(current_.size_in_bytes()));
  return file_.ReadAt(current_.position, *out);
}

Status FileBatchWalker::ReadCurrentHeader(std::vector<uint8_t>* out) const {
  const size_t n =
      std::min<size_t>(bl::kRecordBatchOverhead, static_cast<size_t>(current_.size_in_bytes()));
  out->resize(n);
  return file_.ReadAt(current_.position, *out);
}

}  // namespace seglog
