// LocalRemoteStorage: a RemoteStorageManager over a local directory, for tests of what sits
// above the store (the remote index cache, the remote log manager) - Kafka's LocalTieredStorage
// in spirit. A copy puts each file of the segment into a directory of its own:
//
//   <root>/<segment id>/
//       00000000000000003830.log
//       00000000000000003830.index
//       00000000000000003830.timeindex
//       00000000000000003830.txnindex                 only when the segment has one
//       00000000000000003830.snapshot                 only when the segment has one
//       00000000000000003830.leader-epoch-checkpoint
//
// and returns the same custom metadata as S3RemoteStorageManager (segment_objects.h: each
// object's size and CRC-32C), against which every fetch is checked. The interface's contract
// holds (remote_storage_manager.h): NotFound for a missing object or segment, Corruption for an
// object whose size or CRC-32C is not what was copied, OutOfRange past the .log's end, a delete
// of a missing copy is OK, and objects are never overwritten.
//
// Test hooks: fail the next N copies, fetches (optionally of one index type only) or deletes
// with IOError; truncate, corrupt or delete a stored object; count the calls. A failed copy
// writes its first object before failing, as a store that breaks halfway would.
//
// Thread safety: thread-safe (a mutex guards the hooks and counters; file I/O happens outside
// it).
#ifndef SEGLOG_REMOTE_TESTING_LOCAL_REMOTE_STORAGE_H_
#define SEGLOG_REMOTE_TESTING_LOCAL_REMOTE_STORAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "io/env.h"
#include "remote/remote_storage_manager.h"
#include "remote/segment_objects.h"

namespace seglog {

class LocalRemoteStorage final : public RemoteStorageManager {
 public:
  // Calls made, failed ones included.
  struct Counts {
    int64_t copies = 0;
    int64_t log_fetches = 0;
    int64_t index_fetches = 0;  // every IndexType
    int64_t offset_index_fetches = 0;
    int64_t time_index_fetches = 0;
    int64_t txn_index_fetches = 0;
    int64_t deletes = 0;
  };

  // Objects live under `root` (created at the first copy). nullptr env: Env::Default().
  explicit LocalRemoteStorage(std::string root, Env* env = nullptr);

  Result<std::optional<std::vector<uint8_t>>> CopyLogSegmentData(
      const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) override;
  Result<std::vector<uint8_t>> FetchLogSegment(const RemoteLogSegmentMetadata& metadata,
                                               int64_t position, int64_t max_bytes) override;
  Result<std::vector<uint8_t>> FetchIndex(const RemoteLogSegmentMetadata& metadata,
                                          IndexType type) override;
  Status DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) override;

  // --- Fault injection. ---
  // The next `n` copies fail with IOError (after writing their .log object).
  void FailNextCopies(int n);
  // The next `n` fetches fail with IOError: every fetch (log and index) when `only` is unset,
  // else only FetchIndex calls of that type (the others pass and do not count down).
  void FailNextFetches(int n, std::optional<IndexType> only = std::nullopt);
  // The next `n` deletes fail with IOError (deleting nothing).
  void FailNextDeletes(int n);
  // Cuts a stored object to `size` bytes (at most its size).
  Status TruncateObject(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind,
                        int64_t size);
  // Flips the bits of the byte at `position` of a stored object.
  Status CorruptObject(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind,
                       int64_t position);
  // Replaces a stored object's bytes (sizes and checksums recorded at copy time stay).
  Status OverwriteObject(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind,
                         std::span<const uint8_t> bytes);
  // Deletes one stored object.
  Status DeleteObject(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind);

  // Where an object of the segment is (or would be) stored.
  std::string ObjectPath(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind) const;
  std::string SegmentDir(const RemoteLogSegmentMetadata& metadata) const;
  const std::string& root() const { return root_; }
  Counts counts() const EXCLUDES(mu_);

 private:
  // Counts the call and consumes one armed failure of its kind, if any: whether it fails.
  bool CountCopy() EXCLUDES(mu_);
  bool CountDelete() EXCLUDES(mu_);
  // `type` unset: a FetchLogSegment.
  bool CountFetch(std::optional<IndexType> type) EXCLUDES(mu_);
  // The stored object of `kind`, checked whole against the custom metadata.
  Result<std::vector<uint8_t>> ReadChecked(const RemoteLogSegmentMetadata& metadata,
                                           RemoteObjectKind kind, SegmentObject* expected);

  const std::string root_;
  Env* const env_;
  mutable Mutex mu_;
  Counts counts_ GUARDED_BY(mu_);
  int fail_copies_ GUARDED_BY(mu_) = 0;
  int fail_fetches_ GUARDED_BY(mu_) = 0;
  std::optional<IndexType> fail_fetch_type_ GUARDED_BY(mu_);
  int fail_deletes_ GUARDED_BY(mu_) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_LOCAL_REMOTE_STORAGE_H_
