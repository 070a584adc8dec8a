// RemoteIndexes: the offset, time and transaction indexes of one remote segment, as the remote
// index cache (remote_index_cache.h) holds them on local disk - Kafka's RemoteIndexCache.Entry.
// The files are Kafka's own index formats (index/offset_index.h, index/time_index.h,
// index/transaction_index.h), opened read-only; a segment without aborted transactions has an
// empty .txnindex. Opening checks them (Kafka's sanityCheck, plus seglog's checks below), so a
// RemoteIndexes that exists answers lookups without further errors.
//
// Checks, each a Corruption naming the file (and the byte position where there is one):
//   .index      length a multiple of 8; offsets strictly increasing, positions never
//               decreasing; every offset in [start offset, end offset], every position below
//               the segment's size (when known)
//   .timeindex  length a multiple of 12; timestamps and offsets never decreasing; offsets in
//               [start offset, end offset]
//   .txnindex   length a multiple of 34; version 0 entries whose last offsets increase and lie
//               in [start offset, end offset]
// The end offset and size are unknown for files found in the cache directory at startup; the
// cache compares them with the segment metadata at the first Get instead (Matches).
//
// Lifecycle: made by RemoteIndexCache (Open, then RenameTo from the temporary names); shared
// with readers by std::shared_ptr. Its mappings and the open .txnindex descriptor stay valid
// after the cache evicts the entry and unlinks the files, until the last reader lets go.
//
// Thread safety: thread-safe; after Open it is immutable (every method is const).
#ifndef SEGLOG_REMOTE_REMOTE_INDEXES_H_
#define SEGLOG_REMOTE_REMOTE_INDEXES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/uuid.h"
#include "index/offset_index.h"
#include "index/time_index.h"
#include "index/transaction_index.h"
#include "io/env.h"
#include "remote/remote_log_segment_metadata.h"
#include "seglog/result.h"

namespace seglog {

// Where one segment's three index files are.
struct RemoteIndexPaths {
  std::string offset_index;  // ...index
  std::string time_index;    // ...timeindex
  std::string txn_index;     // ...txnindex
};

class RemoteIndexes {
 public:
  // What is known of the segment when its files are opened.
  struct SegmentBounds {
    Uuid segment_id;
    int64_t start_offset = 0;
    std::optional<int64_t> end_offset;    // inclusive; unknown for files found at startup
    std::optional<int64_t> segment_size;  // of the .log; unknown at startup, or 0 in metadata
  };

  // Opens the three files read-only and checks them (see the file comment). All three must
  // exist. Corruption names the segment and the file.
  static Result<std::shared_ptr<RemoteIndexes>> Open(Env* env, const RemoteIndexPaths& paths,
                                                     const SegmentBounds& bounds);
  ~RemoteIndexes();
  RemoteIndexes(const RemoteIndexes&) = delete;
  RemoteIndexes& operator=(const RemoteIndexes&) = delete;

  // Moves the three files (the cache's temporary names to the final ones). The open indexes
  // stay usable. REQUIRES: no other thread uses this object yet.
  Status RenameTo(const RemoteIndexPaths& paths);

  const Uuid& segment_id() const { return bounds_.segment_id; }
  int64_t start_offset() const { return bounds_.start_offset; }
  // The paths of the files, as last opened or renamed.
  const RemoteIndexPaths& paths() const { return paths_; }
  // Bytes of the three files (Kafka's entrySizeBytes), the cache's weight of this entry.
  int64_t size_bytes() const { return size_bytes_; }
  // The largest offset any of the indexes names (the start offset when all are empty), and the
  // largest .log position the offset index names.
  int64_t max_offset() const { return max_offset_; }
  int32_t max_position() const { return max_position_; }

  // Whether these are the indexes of the segment `metadata` describes: same id and start
  // offset, no offset past its end offset, no position past its size (when it is set).
  bool Matches(const RemoteLogSegmentMetadata& metadata) const;

  // The offset index's floor entry: the position in the remote .log of the batch to start
  // reading at for `target_offset` ((start offset, 0) when no entry is at or below it).
  OffsetPosition LookupOffset(int64_t target_offset) const;
  // Kafka's Entry.lookupTimestamp: the time index's floor entry for `timestamp` gives an
  // offset; the offset index's floor entry for max(that, starting_offset) is where a search
  // for the first record with a timestamp >= `timestamp` starts.
  OffsetPosition LookupTimestamp(int64_t timestamp, int64_t starting_offset) const;
  // The time index's floor entry for `timestamp` ((-1, start offset) when none).
  TimestampOffset LookupTimeIndex(int64_t timestamp) const;
  // The aborted transactions a read_committed fetch of [fetch_offset, upper_bound_offset)
  // overlaps (TransactionIndex::CollectAbortedTxns).
  Result<TransactionIndex::Collected> CollectAbortedTxns(int64_t fetch_offset,
                                                         int64_t upper_bound_offset) const;

  const OffsetIndex& offset_index() const { return *offset_index_; }
  const TimeIndex& time_index() const { return *time_index_; }
  const TransactionIndex& txn_index() const { return *txn_index_; }

 private:
  RemoteIndexes(Env* env, RemoteIndexPaths paths, SegmentBounds bounds)
      : env_(env), paths_(std::move(paths)), bounds_(std::move(bounds)) {}
  Status CheckOffsetIndex();
  Status CheckTimeIndex();
  Status CheckTxnIndex();
  // Opens (and so pins) the .txnindex at paths_.txn_index and reads its entries.
  Result<std::vector<AbortedTxn>> PinTxnIndex();
  Status CheckInRange(int64_t offset, const std::string& path, int64_t position,
                      const char* what) const;

  Env* const env_;
  RemoteIndexPaths paths_;
  const SegmentBounds bounds_;
  std::unique_ptr<OffsetIndex> offset_index_;
  std::unique_ptr<TimeIndex> time_index_;
  std::unique_ptr<TransactionIndex> txn_index_;
  int64_t size_bytes_ = 0;
  int64_t max_offset_ = 0;
  int32_t max_position_ = 0;
};

// "remote segment <id> at offset <start offset>", how errors name a segment.
std::string RemoteSegmentName(const Uuid& segment_id, int64_t start_offset);

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_INDEXES_H_
