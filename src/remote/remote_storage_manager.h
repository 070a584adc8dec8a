// RemoteStorageManager: where copies of rolled segments live - Kafka's RemoteStorageManager
// plugin interface (storage-api, KIP-405) in seglog's terms. The remote log manager calls it
// to copy a segment with its indexes, read a byte range of a copied segment, read one of its
// indexes, and delete a copy. What the store is (S3: s3_remote_storage_manager.h) and how it
// names objects (docs/format/remote_storage.md) is the implementation's business; callers know
// a segment only by its RemoteLogSegmentMetadata.
//
// Errors: NotFound when an object (or a segment) is missing, Corruption when a fetched object
// is not what was copied (wrong size, wrong checksum), IOError for a store that refuses or
// cannot be reached after the retries, InvalidArgument for a bad configuration. Every message
// names the object (bucket and key) and, for fetches, the position asked for.
//
// Thread safety: implementations are thread-safe; calls may run concurrently from the remote
// log manager's copy, expiration and reader threads, each blocking for the transfer's time.
#ifndef SEGLOG_REMOTE_REMOTE_STORAGE_MANAGER_H_
#define SEGLOG_REMOTE_REMOTE_STORAGE_MANAGER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remote/remote_log_segment_metadata.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

// Kafka's LogSegmentData: the files of one rolled segment, by path, and its slice of the
// leader-epoch checkpoint (the checkpoint file's text, epochs up to the segment's end).
struct LogSegmentData {
  std::string log_segment;                       // <base>.log
  std::string offset_index;                      // <base>.index
  std::string time_index;                        // <base>.timeindex
  std::optional<std::string> transaction_index;  // <base>.txnindex, when it exists
  std::string producer_snapshot;                 // <end offset + 1>.snapshot; empty: none
  std::vector<uint8_t> leader_epoch_index;       // leader-epoch-checkpoint text
};

// Kafka's RemoteStorageManager.IndexType.
enum class IndexType : int8_t {
  kOffset,
  kTimestamp,
  kProducerSnapshot,
  kTransaction,
  kLeaderEpoch,
};
// "OFFSET", "TIMESTAMP", "PRODUCER_SNAPSHOT", "TRANSACTION", "LEADER_EPOCH".
std::string_view IndexTypeName(IndexType type);

class RemoteStorageManager {
 public:
  virtual ~RemoteStorageManager() = default;

  // Copies the segment's files. On success the copy is whole (every object written and
  // readable); the result is the custom metadata to keep with the segment (Kafka's
  // Optional<CustomMetadata>), passed back in `metadata.custom_metadata` to later calls. On
  // failure some objects may exist: the caller deletes the copy (DeleteLogSegmentData) before
  // it tries again under a new segment id.
  virtual Result<std::optional<std::vector<uint8_t>>> CopyLogSegmentData(
      const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) = 0;

  // Bytes of the copied .log from `position`: at most `max_bytes` (fewer at its end).
  // OutOfRange when `position` is past the segment's size.
  virtual Result<std::vector<uint8_t>> FetchLogSegment(const RemoteLogSegmentMetadata& metadata,
                                                       int64_t position, int64_t max_bytes) = 0;

  // One whole index of the copy. NotFound for kTransaction when the segment had none.
  virtual Result<std::vector<uint8_t>> FetchIndex(const RemoteLogSegmentMetadata& metadata,
                                                  IndexType type) = 0;

  // Deletes every object of the copy; OK if some or all are already gone (a retried delete).
  virtual Status DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_STORAGE_MANAGER_H_
