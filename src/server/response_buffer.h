// ResponseBuffer: the bytes of one response as the socket server will send them - chunks of
// bytes and FileSlices (ranges of files, sent with sendfile(2) from the page cache, so a
// fetch never copies record bytes). The frame's 4-byte size prefix is not part of it: the
// server writes it from size().
//
// Thread safety: a value type; externally synchronised. The files a FileSlice names are only
// read, so one file may be in many responses at once.
#ifndef SEGLOG_SERVER_RESPONSE_BUFFER_H_
#define SEGLOG_SERVER_RESPONSE_BUFFER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <variant>
#include <vector>

#include "seglog/file_slice.h"

namespace seglog {

class ResponseBuffer {
 public:
  using Chunk = std::variant<std::vector<uint8_t>, FileSlice>;

  ResponseBuffer() = default;
  ResponseBuffer(ResponseBuffer&&) noexcept = default;
  ResponseBuffer& operator=(ResponseBuffer&&) noexcept = default;
  ResponseBuffer(const ResponseBuffer&) = delete;
  ResponseBuffer& operator=(const ResponseBuffer&) = delete;

  // Copies `bytes` to the end (into the last bytes chunk when there is one).
  void Append(std::span<const uint8_t> bytes);
  // Takes `bytes` as the next chunk without copying (small ones are merged into the last bytes
  // chunk instead).
  void Append(std::vector<uint8_t>&& bytes);
  // Appends a file range. REQUIRES: region.file is open, position >= 0, length >= 0. A region
  // of length 0 adds nothing.
  void AppendFileSlice(FileSlice region);

  // The response's size in bytes, without the size prefix. The server closes the connection
  // (and logs) when it does not fit Kafka's int32 frame size.
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<Chunk>& chunks() const { return chunks_; }

  // Every byte, file regions read with pread: for tests and handlers' unit tests.
  std::vector<uint8_t> Flatten() const;

 private:
  std::vector<Chunk> chunks_;
  int64_t size_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_RESPONSE_BUFFER_H_
