// BoundedOutput: the output buffer of a decompressor that must not trust the input's claims.
// It grows geometrically as bytes are really produced, never beyond limit + 1 bytes; producing
// that one extra byte is how a decoder learns the stream inflates past the limit.
//
// Thread safety: not thread-safe; owned by one decompression call.
#ifndef SEGLOG_RECORD_BOUNDED_OUTPUT_H_
#define SEGLOG_RECORD_BOUNDED_OUTPUT_H_

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "seglog/status.h"

namespace seglog {

class BoundedOutput {
 public:
  // Writes from the start of *out. Bytes already there are overwritten, not cleared first: a
  // buffer reused across batches then costs neither an allocation nor zero-filling per batch.
  BoundedOutput(std::vector<uint8_t>* out, size_t limit, size_t size_hint)
      : out_(out), limit_(limit) {
    const size_t want = std::min(Cap(), std::max<size_t>(size_hint, 256));
    if (out_->size() < want || out_->size() > Cap()) out_->resize(want);
  }

  // Makes sure room() > 0. False only when limit + 1 bytes were already produced.
  bool EnsureRoom() {
    if (used_ < out_->size()) return true;
    if (out_->size() >= Cap()) return false;
    out_->resize(std::min(Cap(), std::max<size_t>(out_->size() * 2, 4096)));
    return true;
  }
  // Makes sure room() >= n. False when that would pass limit + 1 bytes in all.
  bool Reserve(size_t n) {
    if (n > Cap() - used_) return false;
    if (room() >= n) return true;
    out_->resize(std::min(Cap(), std::max(used_ + n, out_->size() * 2)));
    return true;
  }
  uint8_t* ptr() { return out_->data() + used_; }
  size_t room() const { return out_->size() - used_; }
  void Commit(size_t n) { used_ += n; }
  size_t used() const { return used_; }
  bool over_limit() const { return used_ > limit_; }
  Status OverLimit(std::string_view codec) const {
    return Status::Corruption(
        fmt::format("{}: decompressed size exceeds the limit of {} bytes", codec, limit_));
  }
  void Finish() { out_->resize(used_); }

 private:
  size_t Cap() const { return limit_ == SIZE_MAX ? limit_ : limit_ + 1; }

  std::vector<uint8_t>* out_;
  size_t limit_;
  size_t used_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_RECORD_BOUNDED_OUTPUT_H_
