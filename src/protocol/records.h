// Records: the value of a `records` field (Produce's and Fetch's record batches, ...).
//
// The protocol layer never copies record bytes on their way to or from the log. A decoded
// `records` field is a view of the frame it came from; an encoded one is a list of chunks,
// bytes the caller keeps alive or regions of files that the server sends with sendfile(2).
//
// Thread safety: a value type; distinct objects may be used from any thread.
#ifndef SEGLOG_PROTOCOL_RECORDS_H_
#define SEGLOG_PROTOCOL_RECORDS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "io/file.h"
#include "seglog/file_slice.h"

namespace seglog::protocol {

class Records {
 public:
  // One piece of a records field: borrowed bytes, or a file region.
  struct Chunk {
    std::span<const uint8_t> bytes;  // used when region.file is null
    FileSlice region;
    bool is_file() const { return region.file != nullptr; }
    int64_t size() const { return is_file() ? region.length : static_cast<int64_t>(bytes.size()); }
  };

  Records() = default;
  // A view of `bytes`, which must outlive the Records (a decoded request keeps its frame).
  static Records View(std::span<const uint8_t> bytes) {
    Records r;
    r.AppendBytes(bytes);
    return r;
  }

  void AppendBytes(std::span<const uint8_t> bytes) {
    if (!bytes.empty()) chunks_.push_back(Chunk{bytes, {}});
  }
  void AppendFile(FileSlice region) {
    if (region.length > 0) chunks_.push_back(Chunk{{}, std::move(region)});
  }

  const std::vector<Chunk>& chunks() const { return chunks_; }
  int64_t size_bytes() const {
    int64_t n = 0;
    for (const Chunk& c : chunks_) n += c.size();
    return n;
  }
  bool empty() const { return chunks_.empty(); }
  // The bytes when they are one borrowed chunk (always so after decoding); empty otherwise.
  std::span<const uint8_t> contiguous() const {
    if (chunks_.size() == 1 && !chunks_[0].is_file()) return chunks_[0].bytes;
    return {};
  }

  // Equal when both hold the same bytes in memory chunks (file chunks compare by region).
  bool operator==(const Records& other) const;

 private:
  std::vector<Chunk> chunks_;
};

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_RECORDS_H_
