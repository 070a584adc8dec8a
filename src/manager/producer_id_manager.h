// ProducerIdManager: hands out producer ids for InitProducerId on a single node, so that an id
// never repeats, not even across restarts. In a Kafka cluster the controller allocates blocks
// of 1000 ids (ProducerIdManager, PRODUCER_ID_BLOCK_SIZE) and records each block in the
// metadata log; here the start of the next block is kept in a small file in the first log
// directory, written (temp file, fsync, rename, directory fsync) BEFORE any id of the block is
// handed out. A restart therefore continues after the last block reserved: ids are never
// reused, at the cost of skipping the unused rest of a block, as in Kafka.
//
// The file, `seglog-producer-ids` (a plain file in the log directory root: Kafka's LogManager
// and seglog's load only directories there, so both ignore it), 14 bytes, big-endian:
//
//   +---------+-------------------+----------+
//   | version | next block start  | crc      |
//   | int16=0 | int64             | uint32   |
//   +---------+-------------------+----------+
//   0         2                   10         14
//   crc = CRC-32C of bytes [0, 10)
//
// A file that does not parse is Corruption: ids are then refused rather than risk a reuse.
//
// Thread safety: thread-safe. One small mutex serialises NextProducerId; it is held over the
// block file's write (once every 1000 ids), so only other NextProducerId callers ever wait on
// that I/O - no other lock of the storage node is held meanwhile.
#ifndef SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_
#define SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "io/env.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr const char* kProducerIdBlockFile = "seglog-producer-ids";

namespace producer_id_block {
inline constexpr int64_t kBlockSize = 1000;  // Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE
inline constexpr int16_t kVersion = 0;
inline constexpr size_t kVersionOffset = 0;
inline constexpr size_t kVersionLength = 2;
inline constexpr size_t kNextBlockStartOffset = kVersionOffset + kVersionLength;
inline constexpr size_t kNextBlockStartLength = 8;
inline constexpr size_t kCrcOffset = kNextBlockStartOffset + kNextBlockStartLength;
inline constexpr size_t kCrcLength = 4;
inline constexpr size_t kFileSize = kCrcOffset + kCrcLength;
static_assert(kFileSize == 14);
}  // namespace producer_id_block

class ProducerIdManager {
 public:
  // Reads `path` (missing: ids start at 0). `env` must outlive the manager.
  static Result<std::unique_ptr<ProducerIdManager>> Open(Env* env, std::string path);
  ProducerIdManager(const ProducerIdManager&) = delete;
  ProducerIdManager& operator=(const ProducerIdManager&) = delete;

  // The next producer id: above every id handed out before, in this run or an earlier one.
  // Persists the next block first when the current one is used up; an error then (IOError,
  // or a full disk) hands out nothing.
  Result<int64_t> NextProducerId() EXCLUDES(mu_);

 private:
  ProducerIdManager(Env* env, std::string path, int64_t next)
      : env_(env), path_(std::move(path)), next_id_(next), block_end_(next) {}
  Env* const env_;
  const std::string path_;
  Mutex mu_;
  int64_t next_id_ GUARDED_BY(mu_);
  // Ids in [next_id_, block_end_) are reserved on disk; block_end_ is what the file holds.
  int64_t block_end_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_
