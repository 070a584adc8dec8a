// ProducerIdManager: hands out producer ids for InitProducerId on a single node, so that an id
// never repeats, not even across restarts. As Kafka's controller does, ids come in blocks of
// 1000 (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE), each recorded in the metadata log (a
// ProducerIdsRecord, manager/metadata_store.h) BEFORE any id of it is handed out. A restart
// continues after the last block reserved: ids are never reused, at the cost of skipping the
// unused rest of a block, as in Kafka.
//
// Before the metadata log, seglog kept the next block's start in `seglog-producer-ids` in the
// first log directory; ReadLegacyProducerIdFile reads it once, when that directory is migrated.
// Its 14 bytes, big-endian:
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
// block's reservation (once every 1000 ids), so only other NextProducerId callers ever wait on
// that I/O - no other lock of the storage node is held meanwhile.
#ifndef SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_
#define SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_

#include <cstdint>
#include <functional>
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

// The next block start kept in a legacy seglog-producer-ids file.
Result<int64_t> ReadLegacyProducerIdFile(Env* env, const std::string& path);
// The file's bytes for `next_block_start` (tests make legacy directories with it).
std::string EncodeLegacyProducerIdFile(int64_t next_block_start);

class ProducerIdManager {
 public:
  // `reserve_block` durably reserves the next block and returns its first id.
  using ReserveBlock = std::function<Result<int64_t>()>;
  explicit ProducerIdManager(ReserveBlock reserve_block)
      : reserve_block_(std::move(reserve_block)) {}
  ProducerIdManager(const ProducerIdManager&) = delete;
  ProducerIdManager& operator=(const ProducerIdManager&) = delete;

  // The next producer id: above every id handed out before, in this run or an earlier one.
  // Reserves the next block first when the current one is used up; an error then (IOError,
  // or a full disk) hands out nothing.
  Result<int64_t> NextProducerId() EXCLUDES(mu_);

 private:
  const ReserveBlock reserve_block_;
  Mutex mu_;
  // Ids in [next_id_, block_end_) are reserved; none before the first reservation.
  int64_t next_id_ GUARDED_BY(mu_) = 0;
  int64_t block_end_ GUARDED_BY(mu_) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_PRODUCER_ID_MANAGER_H_
