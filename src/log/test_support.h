// Helpers for the log tests: temporary directories and Kafka-producer-like batches.
#ifndef SEGLOG_LOG_TEST_SUPPORT_H_
#define SEGLOG_LOG_TEST_SUPPORT_H_

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <functional>

#include "io/file.h"
#include "log/file_batch_walker.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog::testing {

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             fmt::format("seglog_test_{}_{}", ::getpid(), counter++))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One batch as a Kafka producer sends it: base offset 0, keys `key_format` % n, values of
// `value_size` copies of 'v', timestamps first_timestamp + n.
inline std::vector<uint8_t> ProducerBatch(int first_record, int count, int value_size,
                                          int64_t first_timestamp,
                                          CompressionType codec = CompressionType::kNone,
                                          const char* key_format = "k-{:06d}") {
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

// Reads `log` from its start to its end, calling `fn` with every batch and its bytes, in order.
// Fails on a read error, a batch that does not parse, or a read that makes no progress.
inline Status ForEachBatch(Log* log, const std::function<void(const RecordBatchView&, Bytes)>& fn) {
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

// One batch as a FileBatchWalker returned it.
struct WalkedBatch {
  int64_t position = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  std::vector<uint8_t> bytes;
  bool operator==(const WalkedBatch&) const = default;
};

// Every batch of [0, end) of `file`, walked with read-ahead windows of `read_ahead` bytes
// (current_bytes()), or with the plain walk when 0 (ReadCurrent). *status: the walk's status,
// or the first failed ReadCurrent (which ends the walk).
inline std::vector<WalkedBatch> WalkFile(const File& file, int64_t end, int64_t read_ahead,
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

// Descriptors this process holds (entries of /proc/self/fd).
inline int CountOpenFileDescriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;  // the iterator's own
}

// Memory mappings of files whose path starts with `dir` (lines of /proc/self/maps).
inline int CountMappingsUnder(const std::string& dir) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find(" " + dir + "/") != std::string::npos) ++n;
  }
  return n;
}

inline int64_t FileSize(const std::string& path) {
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

}  // namespace seglog::testing

#endif  // SEGLOG_LOG_TEST_SUPPORT_H_
