// Test batches; see batches.h.
#include "tests/support/batches.h"

#include <fmt/format.h>

#include <string>

#include "log/file_batch_walker.h"
#include "record/batch_walker.h"

namespace seglog::testing {

std::vector<uint8_t> ProducerBatch(int first_record, int count, int value_size,
                                   int64_t first_timestamp, CompressionType codec,
                                   const char* key_format) {
  BatchOptions o;
  o.compression = codec;
  RecordBatchBuilder b(o);
  const std::string value(static_cast<size_t>(value_size), 'v');
  for (int i = 0; i < count; ++i) {
    const int n = first_record + i;
    const std::string key = fmt::format(fmt::runtime(key_format), n);
    (void)b.Append(first_timestamp + n,
                   Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return *b.Build();
}

Status ForEachBatch(Log* log, const std::function<void(const RecordBatchView&, Bytes)>& fn) {
  int64_t next = log->log_start_offset();
  while (next < log->log_end_offset()) {
    SEGLOG_ASSIGN_OR_RETURN(FetchDataInfo r, log->Read(next, 1 << 20));
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, r.slice.ReadAll());
    const int64_t before = next;
    LogBatchWalker w(bytes, r.slice.position);
    while (w.Next()) {
      SEGLOG_ASSIGN_OR_RETURN(RecordBatchView v,
                              RecordBatchView::Parse(w.current_bytes(), w.current().position));
      fn(v, w.current_bytes());
      next = v.next_offset();
    }
    if (next == before) return Status::Corruption(fmt::format("no progress at offset {}", next));
  }
  return Status::OK();
}

std::vector<WalkedBatch> WalkFile(const File& file, int64_t end, int64_t read_ahead,
                                  Status* status) {
  FileBatchWalker w(file, 0, end, read_ahead);
  std::vector<WalkedBatch> out;
  while (w.Next()) {
    WalkedBatch b{w.current().position, w.current().base_offset, w.last_offset(), {}};
    if (read_ahead > 0) {
      const auto bytes = w.current_bytes();
      b.bytes.assign(bytes.begin(), bytes.end());
    } else if (Status s = w.ReadCurrent(&b.bytes); !s.ok()) {
      *status = s;
      return out;
    }
    out.push_back(std::move(b));
  }
  *status = w.status();
  return out;
}

}  // namespace seglog::testing
