// FileSlice: a byte range of an open file - a Log read's result, a Fetch response's records,
// a queued response's file chunk - handed from the log to sendfile(2) as it is, never copied
// field by field. Holding it keeps the file open, so a segment deleted meanwhile is still read
// (or sent) whole.
//
// Thread safety: a value type; reading is thread-safe (pread).
#ifndef SEGLOG_FILE_SLICE_H_
#define SEGLOG_FILE_SLICE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

class File;

struct FileSlice {
  std::shared_ptr<const File> file;
  int64_t position = 0;
  int64_t length = 0;

  // Copies the bytes.
  Result<std::vector<uint8_t>> ReadAll() const;
  // Copies the bytes into *out, resized to `length`: a buffer reused from fetch to fetch costs
  // no allocation (Kafka's FileRecords.readInto).
  Status ReadInto(std::vector<uint8_t>* out) const;

  bool operator==(const FileSlice&) const = default;
};

}  // namespace seglog

#endif  // SEGLOG_FILE_SLICE_H_
