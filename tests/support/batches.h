// Batches for tests: built as a Kafka producer sends them, read back from a Log, or walked
// from a .log file.
// Thread safety: functions, thread-safe as far as the Log or File they are given is.
#ifndef SEGLOG_TESTS_SUPPORT_BATCHES_H_
#define SEGLOG_TESTS_SUPPORT_BATCHES_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "io/file.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog::testing {

// One batch as a Kafka producer sends it: base offset 0, keys `key_format` % n, values of
// `value_size` copies of 'v', timestamps first_timestamp + n.
std::vector<uint8_t> ProducerBatch(int first_record, int count, int value_size,
                                   int64_t first_timestamp,
                                   CompressionType codec = CompressionType::kNone,
                                   const char* key_format = "k-{:06d}");

// Reads `log` from its start to its end, calling `fn` with every batch and its bytes, in order.
// Fails on a read error, a batch that does not parse, or a read that makes no progress.
Status ForEachBatch(Log* log, const std::function<void(const RecordBatchView&, Bytes)>& fn);

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
std::vector<WalkedBatch> WalkFile(const File& file, int64_t end, int64_t read_ahead,
                                  Status* status);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_BATCHES_H_
