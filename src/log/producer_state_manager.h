// ProducerStateManager: one partition's idempotent-producer state - Kafka's ProducerStateManager,
// ProducerStateEntry and ProducerAppendInfo - and the `<offset>.snapshot` files that persist it
// (docs/format/producer_snapshot.md, "The snapshot file").
//
// Per producer id it keeps the producer epoch, the metadata of the last five batches appended
// (so that a retried batch is recognised as a duplicate and answered with the original offsets),
// the coordinator epoch and the first offset of the ongoing transaction. An append as leader is
// checked against it (epoch fencing, sequence order) before anything is written, and the state
// changes only once the write succeeded: Prepare() computes the change, Commit() applies it.
//
// The snapshot file (Kafka's ProducerSnapshot schema, version 1; big-endian):
//
//   +---------+----------+---------+------------------------------+
//   | version | crc      | count N | N entries                    |
//   | int16=1 | uint32   | int32   | kEntrySize bytes each        |
//   +---------+----------+---------+------------------------------+
//   0         2          6         10                    10 + 46 * N
//   crc = CRC-32C of bytes [6, end of file)
//
//   entry (kEntrySize = 46 bytes):
//   +-------------+-------+---------------+-------------+--------------+
//   | producer id | epoch | last sequence | last offset | offset delta |
//   | int64       | int16 | int32         | int64       | int32        |
//   +-------------+-------+---------------+-------------+--------------+
//   0             8       10              14            22
//   +-----------+-------------------+----------------------------+
//   | timestamp | coordinator epoch | current txn first offset   |
//   | int64     | int32             | int64 (-1: none)           |
//   +-----------+-------------------+----------------------------+
//   26          34                  38                           46
//
// Only the newest batch of a producer is stored; a load restores it as the single retained
// batch (first sequence = last sequence - offset delta, wrapping) when its last offset is >= 0.
// The file is named by the producer state's map end offset (the first offset it does not cover).
//
// Thread safety: not thread-safe; the log serialises every call with its append lock.
#ifndef SEGLOG_LOG_PRODUCER_STATE_MANAGER_H_
#define SEGLOG_LOG_PRODUCER_STATE_MANAGER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/env.h"
#include "log/log_segment.h"
#include "seglog/log.h"
#include "seglog/logger.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

namespace producer_snapshot {
inline constexpr int16_t kVersion = 1;
inline constexpr size_t kVersionOffset = 0;
inline constexpr size_t kVersionLength = 2;
inline constexpr size_t kCrcOffset = kVersionOffset + kVersionLength;
inline constexpr size_t kCrcLength = 4;
inline constexpr size_t kCountOffset = kCrcOffset + kCrcLength;  // the CRC covers from here
inline constexpr size_t kCountLength = 4;
inline constexpr size_t kEntriesOffset = kCountOffset + kCountLength;
inline constexpr size_t kHeaderSize = kEntriesOffset;
static_assert(kHeaderSize == 10);

// Within an entry.
inline constexpr size_t kProducerIdOffset = 0;
inline constexpr size_t kProducerIdLength = 8;
inline constexpr size_t kEpochOffset = kProducerIdOffset + kProducerIdLength;
inline constexpr size_t kEpochLength = 2;
inline constexpr size_t kLastSequenceOffset = kEpochOffset + kEpochLength;
inline constexpr size_t kLastSequenceLength = 4;
inline constexpr size_t kLastOffsetOffset = kLastSequenceOffset + kLastSequenceLength;
inline constexpr size_t kLastOffsetLength = 8;
inline constexpr size_t kOffsetDeltaOffset = kLastOffsetOffset + kLastOffsetLength;
inline constexpr size_t kOffsetDeltaLength = 4;
inline constexpr size_t kTimestampOffset = kOffsetDeltaOffset + kOffsetDeltaLength;
inline constexpr size_t kTimestampLength = 8;
inline constexpr size_t kCoordinatorEpochOffset = kTimestampOffset + kTimestampLength;
inline constexpr size_t kCoordinatorEpochLength = 4;
inline constexpr size_t kCurrentTxnFirstOffsetOffset =
    kCoordinatorEpochOffset + kCoordinatorEpochLength;
inline constexpr size_t kCurrentTxnFirstOffsetLength = 8;
inline constexpr size_t kEntrySize = kCurrentTxnFirstOffsetOffset + kCurrentTxnFirstOffsetLength;
static_assert(kEntrySize == 46);
}  // namespace producer_snapshot

// Kafka keeps the last five batches of each producer (ProducerStateEntry.NUM_BATCHES_TO_RETAIN).
inline constexpr size_t kNumBatchesToRetain = 5;

// One retained batch (Kafka's BatchMetadata).
struct BatchMetadata {
  int32_t last_seq = kNoSequence;
  int64_t last_offset = -1;
  int32_t offset_delta = 0;  // last offset - first offset
  int64_t timestamp = kNoTimestamp;
  // last_seq - offset_delta, wrapping below 0 to INT32_MAX as Kafka's sequences do.
  int32_t FirstSeq() const;
  int64_t FirstOffset() const { return last_offset - offset_delta; }
  bool operator==(const BatchMetadata&) const = default;
};

// One producer id's state (Kafka's ProducerStateEntry).
struct ProducerStateEntry {
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t coordinator_epoch = -1;
  int64_t last_timestamp = kNoTimestamp;
  // First offset of the ongoing transaction, or -1 (transactions arrive later; kept in the file).
  int64_t current_txn_first_offset = -1;
  std::deque<BatchMetadata> batches;  // oldest first, at most kNumBatchesToRetain

  bool empty() const { return batches.empty(); }
  int32_t FirstSeq() const { return empty() ? kNoSequence : batches.front().FirstSeq(); }
  int32_t LastSeq() const { return empty() ? kNoSequence : batches.back().last_seq; }
  int64_t LastDataOffset() const { return empty() ? -1 : batches.back().last_offset; }
  int32_t LastOffsetDelta() const { return empty() ? 0 : batches.back().offset_delta; }
  // A new epoch drops the batches of the old one.
  void MaybeUpdateProducerEpoch(int16_t epoch);
  void AddBatch(int16_t epoch, int32_t last_seq, int64_t last_offset, int32_t offset_delta,
                int64_t timestamp);
  // The retained batch with exactly this epoch and sequence range, if any.
  std::optional<BatchMetadata> FindDuplicate(int16_t epoch, int32_t first_seq,
                                             int32_t last_seq) const;
};

// Snapshot bytes for `entries` (in producer id order), and back. Parse fails with Corruption
// ("CorruptSnapshotException: ...", Kafka's words) naming `path`: a file shorter than its
// header or its entries, a version other than 1, or a CRC mismatch.
std::vector<uint8_t> SerializeProducerSnapshot(
    const std::map<int64_t, ProducerStateEntry>& entries);
Result<std::vector<ProducerStateEntry>> ParseProducerSnapshot(std::span<const uint8_t> bytes,
                                                              const std::string& path);

// A transaction whose COMMIT or ABORT marker is being appended (Kafka's CompletedTxn): its
// first offset in the partition (the marker's own when the producer had no data in it) and
// the marker's offset.
struct CompletedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  bool is_aborted = false;
  bool operator==(const CompletedTxn&) const = default;
};

class ProducerStateManager {
 public:
  // `topic_partition` names the partition in messages; `producer_id_expiration_ms` is the
  // broker's producer.id.expiration.ms; `logger` receives WARN lines (a corrupt snapshot, a
  // replica's fenced epoch) - Kafka's INFO lines of its ProducerStateManager logger are not
  // sent, so a log's lines stay those of UnifiedLog. Nothing is read until LoadSnapshotFiles().
  ProducerStateManager(Env* env, std::string dir, std::string topic_partition,
                       int64_t producer_id_expiration_ms, Logger logger = {});

  // The changes one append makes, computed by Prepare and applied by Commit.
  struct PendingUpdate {
    std::map<int64_t, ProducerStateEntry> updated;     // only the new batches in each
    std::vector<std::pair<int64_t, int64_t>> started;  // (first offset, producer id)
    // Transactions the append's markers end; Commit leaves them ongoing: the log writes the
    // aborted ones to the transaction index (with LastStableOffset), then CompleteTxn.
    std::vector<CompletedTxn> completed;
  };
  // Kafka's checks of one batch about to be written at its (assigned) offsets, by `origin`:
  // for a client, a batch equal to one of the producer's last five (epoch and sequence range)
  // is a duplicate - *duplicate is set and nothing else is checked; otherwise an epoch older
  // than the producer's is InvalidProducerEpochException (a replica's batch is only noted), and
  // for a client a new epoch must start at sequence 0 and a known epoch continue its sequence
  // (OutOfOrderSequenceException); a non-transactional batch during a transaction is
  // InvalidTxnStateException; a coordinator's older transaction marker is
  // TransactionCoordinatorFencedException. Batches without a producer id pass untouched.
  Status Prepare(const RecordBatchView& batch, AppendOrigin origin, PendingUpdate* pending,
                 std::optional<BatchMetadata>* duplicate) const;
  void Commit(PendingUpdate&& pending);
  // Kafka's lastStableOffset(completedTxn): the first offset of the earliest ongoing
  // transaction of another producer, else the marker's offset + 1 - the LSO an aborted
  // transaction's index entry records.
  int64_t LastStableOffset(const CompletedTxn& txn) const;
  // The transaction is no longer ongoing (its marker is written).
  void CompleteTxn(const CompletedTxn& txn);
  // The first offset of the earliest ongoing transaction (Kafka's firstUnstableOffset), if
  // any: the last stable offset cannot pass it.
  std::optional<int64_t> FirstUnstableOffset() const;
  // Ongoing transactions: first offset -> producer id.
  const std::map<int64_t, int64_t>& ongoing_txns() const { return ongoing_txns_; }
  // The first offset not covered by the state (the log end offset after an append).
  void UpdateMapEndOffset(int64_t offset) { map_end_offset_ = offset; }
  int64_t map_end_offset() const { return map_end_offset_; }

  const std::map<int64_t, ProducerStateEntry>& producers() const { return producers_; }
  std::optional<ProducerStateEntry> LastEntry(int64_t producer_id) const;
  // Kafka's removeExpiredProducers: drops every producer without an ongoing transaction whose
  // last timestamp is at least producer.id.expiration.ms before `now_ms`. Returns how many.
  int RemoveExpiredProducers(int64_t now_ms);

  // Snapshots. Offsets of the snapshot files known, ascending.
  std::vector<int64_t> snapshot_offsets() const;
  // Lists the directory's *.snapshot files.
  Status LoadSnapshotFiles();
  // Writes a snapshot at the map end offset if it is above the newest one (Kafka's
  // takeSnapshot), as <path>.tmp renamed over <path>; fsynced (file and directory) when `sync`.
  // Returns the offset written, if one was.
  Result<std::optional<int64_t>> TakeSnapshot(bool sync);
  // TakeSnapshot(true) where a failure (a full disk) is only warned about: a missing snapshot
  // costs a longer replay at the next open, never state (the loader's snapshots).
  void TakeSnapshotOrWarn();
  // Kafka's removeStraySnapshots: snapshots that are not at a segment base offset go, except
  // the newest stray one when it is above every base offset (written by a clean shutdown).
  Status RemoveStraySnapshots(const std::vector<int64_t>& segment_base_offsets);
  // Kafka's truncateAndReload: snapshots above `log_end_offset` or at or below
  // `log_start_offset` go; unless the state already ends at `log_end_offset`, it is reset and
  // loaded from the newest valid snapshot (a corrupt one is deleted, with a warning, and the
  // next older tried), producers expired as of `now_ms` left out.
  Status TruncateAndReload(int64_t log_start_offset, int64_t log_end_offset, int64_t now_ms);
  // The log start offset rose (DeleteRecords, retention): the map end follows it up. Snapshots
  // and entries stay (they go with their segments, as in Kafka).
  void OnLogStartOffsetIncremented(int64_t log_start_offset);
  // Renames the snapshot at `offset` to <name>.deleted (its segment was deleted) and returns
  // the new path, for the delayed removal; nullopt if there was none.
  Result<std::optional<std::string>> RenameSnapshotForDeletion(int64_t offset);
  // Applies a batch read back from the log (origin replication: nothing is refused but a
  // transaction conflict), during a rebuild. A marker's transaction is completed; when it was
  // aborted, `on_aborted` (if set) gets it with its last stable offset, for the index.
  Status ReplayBatch(const RecordBatchView& batch,
                     const std::function<Status(const CompletedTxn&, int64_t)>& on_aborted = {});

 private:
  Result<std::optional<std::vector<ProducerStateEntry>>> ReadSnapshot(int64_t offset);
  Status DeleteSnapshot(int64_t offset);
  bool IsExpired(int64_t now_ms, const ProducerStateEntry& entry) const;
  void Warn(const std::string& line) const;

  Env* const env_;
  const std::string dir_;
  const std::string topic_partition_;
  const int64_t producer_id_expiration_ms_;
  const Logger logger_;
  // Rebuilds ongoing_txns_ from the entries' current transactions (after a load).
  void RebuildOngoingTxns();

  std::map<int64_t, ProducerStateEntry> producers_;
  std::map<int64_t, int64_t> ongoing_txns_;   // first offset -> producer id
  std::map<int64_t, std::string> snapshots_;  // offset -> path
  int64_t map_end_offset_ = 0;
  int64_t last_snapshot_offset_ = 0;
};

// fsyncs the snapshot file at `offset` in `dir` and the directory (a roll writes it without);
// OK if it is gone (deleted with its segment). Touches no ProducerStateManager, so a flush
// calls it without the append lock.
Status SyncProducerSnapshot(Env* env, const std::string& dir, int64_t offset);

using SegmentMap = std::map<int64_t, std::shared_ptr<LogSegment>>;

// Kafka's rebuildProducerState at load: snapshot offsets to (re)write are the base offsets of
// the last two segments and the log end offset. With no snapshot at all after a clean shutdown
// (a log from before producer state), empty snapshots are written there and nothing is read;
// otherwise the state is truncated and reloaded (TruncateAndReload) and the batches from its
// map end offset to the log end offset are replayed from the segments, writing those snapshots
// on the way, and a last one at the log end offset. The replay writes the transaction index
// entries of the aborted transactions it passes that a segment's index lacks; with
// `replay_from` (a segment whose index recovery emptied) it starts at or below that offset
// (snapshots above it are dropped first).
Status RebuildProducerState(ProducerStateManager* state, const SegmentMap& segments,
                            int64_t log_start_offset, int64_t log_end_offset,
                            bool had_clean_shutdown, int64_t now_ms,
                            std::optional<int64_t> replay_from = std::nullopt);

}  // namespace seglog

#endif  // SEGLOG_LOG_PRODUCER_STATE_MANAGER_H_
