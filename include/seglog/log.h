// Log: one partition's log, as Kafka lays it out on disk - a directory of segments, each a .log
// file with its sparse offset and time indexes - with append, read, offset and timestamp
// lookups, and roll (Kafka's UnifiedLog/LocalLog; docs/design/log.md).
//
// On a single node the high watermark is the log end offset: everything appended is readable.
//
// Thread safety: thread-safe. Appends (and roll, retention, close) are serialised by the log's
// append lock; a flush syncs without it and only publishes the new recovery point under it;
// reads and lookups take no append lock: they work on a snapshot of the segment list and on
// bytes the appender has published (docs/design/threading.md). Shared by whoever holds it
// (std::shared_ptr from Storage::GetLog, LogDirectory and the internal LogManager): after
// Close every call fails cleanly, with NotFound once the partition was deleted.
#ifndef SEGLOG_LOG_H_
#define SEGLOG_LOG_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/file_slice.h"
#include "seglog/log_config.h"
#include "seglog/logger.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"
#include "seglog/scheduler.h"

namespace seglog {

class Env;
class File;
class LogSegment;

// Where a batch is: the segment, the byte position in its .log, and its offsets.
struct BatchLocation {
  int64_t segment_base_offset = 0;
  int64_t position = 0;
  int32_t size = 0;
  int64_t base_offset = 0;  // of the batch
  int64_t last_offset = 0;
};

struct FetchDataInfo {
  BatchLocation first_batch;            // where the read started
  FileSlice slice;                      // whole batches, except possibly a partial last one
  bool first_entry_incomplete = false;  // max bytes smaller than the first batch
};

struct TimestampAndOffset {
  int64_t timestamp = kNoTimestamp;
  int64_t offset = -1;
  std::optional<int32_t> leader_epoch;
  bool operator==(const TimestampAndOffset&) const = default;
};

// ListOffsets' special timestamps (docs/design/log.md, "ListOffsets' special timestamps").
inline constexpr int64_t kLatestTimestamp = -1;
inline constexpr int64_t kEarliestTimestamp = -2;
inline constexpr int64_t kMaxTimestamp = -3;
// KIP-1005: the local log start offset, and the highest offset copied to remote storage.
inline constexpr int64_t kEarliestLocalTimestamp = -4;
inline constexpr int64_t kLatestTieredTimestamp = -5;

// Read's refusal of an offset that only remote storage holds (at or above the log start
// offset, below the local log start offset): Kafka's OffsetMovedToTieredStorageException. The
// broker then reads from remote storage (remote/remote_log_manager.h).
bool IsOffsetMovedToTieredStorage(const Status& status);

// A rolled segment the remote log manager may copy (Kafka's candidate segments): its files,
// by path, and what the remote segment metadata records of it.
struct RemoteCopyCandidate {
  int64_t base_offset = 0;
  int64_t end_offset = 0;  // inclusive: the next segment's base offset - 1
  int64_t size_bytes = 0;  // of the .log
  int64_t max_timestamp = kNoTimestamp;
  std::string log_path;
  std::string offset_index_path;
  std::string time_index_path;
  std::string txn_index_path;  // empty: the segment has no aborted transactions
  // The producer snapshot at the next segment's base offset; empty when there is none.
  std::string producer_snapshot_path;
};

// Who is appending, as Kafka's AppendOrigin: it decides which checks apply. Clients (produce
// requests) get every check; the coordinators (group, transaction) may write control batches
// such as transaction markers; kReplication is a follower copying the leader.
enum class AppendOrigin : int8_t { kClient, kCoordinator, kReplication };
// "CLIENT", "COORDINATOR", "REPLICATION", as Kafka prints them.
std::string_view AppendOriginName(AppendOrigin origin);

struct LogAppendInfo {
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t max_timestamp = kNoTimestamp;
  int64_t log_append_time = kNoTimestamp;  // when message.timestamp.type is LogAppendTime
  int32_t batch_count = 0;
  int32_t record_count = 0;
  int64_t valid_bytes = 0;
  // An idempotent producer's retry of one of its last five batches (same producer id, epoch,
  // first and last sequence): nothing was written, and first_offset, last_offset, and both
  // max_timestamp and log_append_time (as Kafka's LogAppendInfo, whatever the timestamp type)
  // are the ORIGINAL batch's; batch_count, record_count and valid_bytes are 0. A
  // ProduceResponse answers it with error NONE and these offsets.
  bool duplicate = false;
};

// One producer id's state in a partition (Kafka's ProducerStateEntry), for inspection.
struct ActiveProducer {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t first_sequence = -1;  // of the oldest retained batch
  int32_t last_sequence = -1;   // of the newest batch
  int64_t last_offset = -1;     // of the newest batch
  int64_t last_timestamp = kNoTimestamp;
  int32_t coordinator_epoch = -1;
  int64_t current_txn_first_offset = -1;
  int32_t retained_batches = 0;  // at most 5
};

// An aborted transaction a read_committed fetch reports (FetchResponse's AbortedTransactions):
// the client drops that producer's records from `first_offset` to its ABORT marker.
struct AbortedTransaction {
  int64_t producer_id = -1;
  int64_t first_offset = 0;
  bool operator==(const AbortedTransaction&) const = default;
};

struct LogOptions {
  // Milliseconds since the epoch; injectable so tests move time instead of sleeping.
  std::function<int64_t()> clock;
  // Open an existing directory read-only (tools over a Kafka log dir): no writes at all.
  bool read_only = false;
  // Every file and directory operation of the log goes through it (io/env.h; a test passes a
  // FaultInjectionEnv). nullptr: Env::Default(), the POSIX one. Must outlive the log.
  Env* env = nullptr;

  // Loader inputs (docs/design/recovery.md, "The order"), normally from the log directory:
  // whether it had a clean-shutdown marker, and this partition's recovery point and log start
  // offset from the checkpoint files. Without a clean shutdown, every segment from the recovery
  // point on is validated batch by batch, its indexes rebuilt, and the log cut at the first bad
  // batch.
  bool had_clean_shutdown = true;
  int64_t recovery_point = 0;
  int64_t log_start_offset = 0;
  // Where recovery keeps the bytes it cuts (Kafka drops them). Default:
  // <log dir>/.quarantine/<partition dir name>, beside the partition directory.
  std::string quarantine_dir;

  // Runs the flush of a rolled segment off the append path (Kafka's `flush-log` task) and the
  // delayed removal of deleted segments (`delete-file`); seglog/scheduler.h makes one. Without
  // one, both run inline. Must outlive the log's open life (until Close).
  Scheduler* scheduler = nullptr;
  // Called once when an fsync/msync of this log fails: the log is then offline - every later
  // append, flush, roll and read fails - and the owner takes the whole log directory offline
  // (an fsync failure is never retried: the page cache may have dropped the data).
  std::function<void(const Status&)> on_storage_failure;
  // Called after each flush that synced something, with how long the syncs took in
  // nanoseconds (Kafka's LogFlushStats timer), with only the log's flush lock held (not the
  // append lock); must return promptly. Optional.
  std::function<void(int64_t flush_ns)> on_flush;
  // Shared by the logs of one log directory: a failed sync in any of them sets it, and then
  // all of them refuse work (Kafka takes the whole directory offline). Optional.
  std::shared_ptr<std::atomic<bool>> directory_offline;
  // Receives the log's INFO/WARN lines in Kafka's words ("Rolled new log segment at offset 3830
  // in 8 ms.", "Incremented log start offset to 3830 due to segment deletion", ...). Optional
  // (seglog/logger.h: a lambda taking the line converts); called with the append lock held or
  // from a scheduler task.
  Logger logger;
  // The topic's id (Kafka Uuid text). When set, partition.metadata is written (or checked
  // against it) at open, as Kafka does before a partition's first append.
  std::string topic_id;
  // producer.id.expiration.ms (a broker config, Kafka's default): a producer without an
  // ongoing transaction whose last batch timestamp is at least this old is forgotten by
  // RemoveExpiredProducers, and left out when a snapshot is loaded.
  int64_t producer_id_expiration_ms = 86400000;
  // The broker's remote.log.storage.system.enable: with it and the topic's
  // remote.storage.enable, the log is tiered (remote_log_enabled()).
  bool remote_storage_system_enable = false;
};

// What the loader did (docs/design/recovery.md, "The quarantine"): one line per file it
// removed, renamed, rebuilt or cut, naming the file, positions and reason.
struct LoadReport {
  std::vector<std::string> actions;
  int segments_recovered = 0;
  int64_t bytes_quarantined = 0;
};

class Log {
 public:
  // Opens the partition directory `dir` (created if missing unless read-only), loading the
  // segments it holds. Files that are neither Kafka's nor seglog's are reported by name.
  // Without options.had_clean_shutdown the segments from the recovery point on are recovered
  // (see LogOptions); a clean directory loads as is.
  static Result<std::unique_ptr<Log>> Open(const std::string& dir, const LogConfig& config,
                                           LogOptions options = {});
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  const std::string& dir() const { return dir_; }
  // The topic config in force. UpdateConfig replaces it (an altered topic config); it applies
  // from the next append, roll and retention pass, as in Kafka.
  LogConfig config() const;
  void UpdateConfig(const LogConfig& config);

  // Appends batches as the leader (Kafka's appendAsLeader): runs every check of Kafka's
  // analyzeAndValidateRecords and LogValidator (src/log/log_validator.h: one v2 batch, size
  // against max.message.bytes, CRC, offset range against the record count, producer fields,
  // control batches only from a coordinator, record timestamps, keys on compacted topics),
  // assigns offsets from the log end offset, stamps `leader_epoch`, applies LogAppendTime and
  // the topic's codec, then checks the batch against the producer state (idempotent
  // producers, src/log/producer_state_manager.h): a retry of one of the producer's last five
  // batches returns the original offsets with LogAppendInfo::duplicate and writes nothing; an
  // older epoch is InvalidProducerEpochException (error 47), a sequence gap or a new epoch not
  // starting at 0 OutOfOrderSequenceException (45; also a retry older than the last five), a
  // plain batch during a transaction InvalidTxnStateException (48); the coordinator origin
  // gets the epoch checks only, replication none. Then it rolls as needed, writes, and only
  // then updates the producer state. All or nothing. A refusal's message begins with Kafka's
  // exception name; ValidationError::FromStatus (seglog/validation_error.h) turns it into
  // what a ProduceResponse carries, record errors included.
  // `leader_epoch` kCurrentLeaderEpoch: the epoch BecomeLeader set (0 until then).
  static constexpr int32_t kCurrentLeaderEpoch = -2;
  Result<LogAppendInfo> AppendAsLeader(std::span<const uint8_t> batches,
                                       int32_t leader_epoch = kCurrentLeaderEpoch,
                                       AppendOrigin origin = AppendOrigin::kClient);
  // This replica leads the partition at `epoch` (Kafka's Partition.makeLeader, from the
  // metadata log's PartitionRecord): appends carry it from now on, and the leader epoch cache
  // gains <epoch> <log end offset> unless its latest entry already has the epoch.
  Status BecomeLeader(int32_t epoch);
  // The epoch of the last BecomeLeader (0 before any): what produce, fetch and metadata
  // answers carry and check clients' current leader epochs against.
  int32_t leader_epoch() const { return leader_epoch_.load(std::memory_order_acquire); }
  // Appends batches whose offsets are already assigned (imports, replication): they must be
  // valid and start at or above the log end offset, increasing.
  Result<LogAppendInfo> AppendWithAssignedOffsets(std::span<const uint8_t> batches);

  // Reads from `start_offset`: at most `max_bytes` (at least one whole batch when
  // `min_one_message`), never past `max_offset` (exclusive; default and at most the high
  // watermark; a replica reader or a read_committed consumer passes its own bound). OutOfRange
  // (with both bounds) below the log start offset or above the log end offset; an empty slice
  // at or past the bound.
  Result<FetchDataInfo> Read(int64_t start_offset, int32_t max_bytes, bool min_one_message = true,
                             std::optional<int64_t> max_offset = std::nullopt);
  // Where the batch holding `offset` is: floor segment, index, header-only walk.
  Result<std::optional<BatchLocation>> LookupOffset(int64_t offset);
  // ListOffsets: a timestamp >= 0, or kLatestTimestamp, kEarliestTimestamp, kMaxTimestamp.
  Result<std::optional<TimestampAndOffset>> FetchOffsetByTimestamp(int64_t timestamp);

  // What opening this log did to its files (empty for a clean directory).
  const LoadReport& load_report() const;
  int64_t recovery_point() const;

  int64_t log_start_offset() const;
  // The first offset held on local disk (Kafka's localLogStartOffset): the first segment's
  // base offset, or the log start offset when that is higher. Equal to the log start offset
  // unless the log is tiered and its oldest data lives only in remote storage.
  int64_t local_log_start_offset() const;
  int64_t log_end_offset() const;
  int64_t high_watermark() const { return log_end_offset(); }
  // The last stable offset (Kafka's LSO): the first offset of the earliest open transaction
  // (never below the log start offset), else the high watermark. A read_committed consumer
  // reads below it.
  int64_t last_stable_offset() const;
  // The aborted transactions a read_committed fetch of [start_offset, upper_bound) overlaps,
  // from the transaction indexes of the segment holding `start_offset` and the ones after it
  // (Kafka's collectAbortedTransactions), in marker order.
  Result<std::vector<AbortedTransaction>> CollectAbortedTransactions(int64_t start_offset,
                                                                     int64_t upper_bound) const;
  int64_t size_in_bytes() const;
  int num_segments() const;
  // Segments whose index files are open (mapped); the others are only names until used.
  int num_segments_with_open_indexes() const;
  std::vector<int64_t> segment_base_offsets() const;

  // Retention (Kafka's deleteOldSegments; docs/design/log_manager.md, "Retention, step by step").
  // For a log whose cleanup.policy includes delete, three passes in order: segments wholly below
  // the log start offset, then retention.bytes (the oldest segment goes while the log stays at or
  // above the cap without it), then retention.ms (a segment goes when now - its largest record
  // timestamp > retention.ms). A compact-only log gets the first pass only. Each pass deletes a
  // prefix of the log, oldest first, stopping at the first segment kept, never one holding offsets
  // at or above the high watermark and never an empty last segment; if every segment goes, an empty
  // one is rolled first. The log start offset then rises to the first surviving segment, the
  // segments leave the map, their files are renamed *.deleted and removed file.delete.delay.ms
  // later (a `delete-file` task; at once without a scheduler) - readers that hold them keep
  // reading. Returns the number of segments deleted.
  Result<int> DeleteOldSegments();
  // DeleteRecords (docs/design/log_manager.md, "Retention, step by step"): raises the log start
  // offset to `offset`, or to the high watermark when `offset` is -1. Refused on a log without the
  // delete policy (PolicyViolationException) and above the high watermark
  // (OffsetOutOfRangeException). The data below goes with the next retention pass. Returns the new
  // log start offset.
  Result<int64_t> DeleteRecords(int64_t offset);

  // Tiered storage (KIP-405). A tiered log: the broker's remote.log.storage.system.enable and
  // the topic's remote.storage.enable, and not an internal topic (Kafka's remoteLogEnabled).
  // Its retention deletes a local segment only once remote storage holds it (its last offset
  // at most highest_offset_in_remote_storage()), by local.retention.ms/.bytes, without raising
  // the log start offset: remote storage still serves those offsets. The remote log manager
  // applies retention.ms/.bytes to the whole log and raises the log start offset.
  bool remote_log_enabled() const;
  // Tiered and remote.log.copy.disable=false (Kafka's remoteLogEnabledAndRemoteCopyEnabled).
  bool remote_copy_enabled() const;
  // The last offset copied to remote storage, -1 before any (Kafka's
  // highestOffsetInRemoteStorage; in memory, set by the remote log manager after each copy and
  // at its first pass from the remote log metadata).
  int64_t highest_offset_in_remote_storage() const;
  void UpdateHighestOffsetInRemoteStorage(int64_t offset);
  // Raises the log start offset to `offset` (the remote log manager: remote retention, or the
  // earliest remote segment at its first pass); never lowers it, never above the local log
  // start offset of a log whose local segments it would leave uncovered. FailedPrecondition
  // unless the log is tiered.
  Status UpdateLogStartOffsetFromRemoteTier(int64_t offset);
  // The rolled segments whose offsets are all below the last stable offset and that end at or
  // after `from_offset`, oldest first (Kafka's candidateLogSegments).
  Result<std::vector<RemoteCopyCandidate>> RemoteCopyCandidates(int64_t from_offset) const;

  // Rolls a new active segment now (Kafka's roll()).
  Status Roll();
  // fsyncs every segment below `offset` (exclusive) and the active one if it holds offsets
  // below it, then raises the recovery point to `offset` (at most the log end).
  Status Flush(int64_t offset);
  // The flusher's check (Kafka's kafka-log-flusher task): flush to the log end when the last
  // flush was at least flush.ms ago.
  Status FlushIfDue();
  // Messages above the recovery point (Kafka's unflushedMessages).
  int64_t unflushed_messages() const;
  // Set once an fsync failed; the reason.
  bool offline() const;
  Status offline_reason() const;
  // The leader-epoch cache (leader-epoch-checkpoint): epoch and its first offset.
  std::vector<std::pair<int32_t, int64_t>> leader_epochs() const;
  // The producer state (ascending producer id), and the offsets of the <offset>.snapshot files
  // that persist it: one per roll (at the new segment's base offset), one at Close (at the log
  // end offset); they go with their segments. Loaded at open from the newest valid snapshot at
  // or below the log end offset, then the batches after it.
  std::vector<ActiveProducer> active_producers() const;
  std::vector<int64_t> producer_snapshot_offsets() const;
  // Kafka's removeExpiredProducers (the broker's producer.id.expiration.check.interval.ms
  // task): forgets every producer without an ongoing transaction whose last batch timestamp is
  // producer.id.expiration.ms or more before now. Returns how many.
  Result<int> RemoveExpiredProducers();
  // Clean close: final time-index entry and trimmed indexes on the active segment, flush.
  // Waits for a flush that is running. Afterwards appends, reads and lookups fail with
  // FailedPrecondition ("log is closed"), or NotFound after MarkDeleted.
  Status Close();
  // The partition is being deleted (its directory is about to be renamed): from now on every
  // call fails with NotFound (UnknownTopicOrPartitionException).
  void MarkDeleted();
  // While `blocked`, every append is refused with NotLeaderOrFollowerException (clients retry
  // it): the last step of a move to another log directory. Returns once no append is in
  // progress; reads go on.
  void BlockAppends(bool blocked);

 private:
  // The log cleaner's hooks, reached through LogCleanerAccess (src/log/log_cleaner_access.h):
  // the segments, oldest first (a snapshot); a new empty segment at `base_offset` whose files
  // carry the ".cleaned" suffix, outside the log; and Kafka's replaceSegments
  // (docs/design/cleaner.md, "The swap and its crash points"): `cleaned` (.cleaned -> .swap)
  // replaces `old` in the segment map, the old segments go through the .deleted path, and the .swap
  // suffix is dropped - each step recoverable by the loader after a crash. Aborted (and `cleaned`
  // deleted) if `old` are no longer all in the log.
  friend class LogCleanerAccess;
  std::vector<std::shared_ptr<LogSegment>> segments() const;
  Result<std::shared_ptr<LogSegment>> CreateCleanedSegment(int64_t base_offset);
  Status ReplaceSegments(const std::shared_ptr<LogSegment>& cleaned,
                         const std::vector<std::shared_ptr<LogSegment>>& old);

  struct State;
  Log(std::string dir, LogConfig config, LogOptions options);
  int64_t Now() const;
  // REQUIRES: the append lock is held.
  Status RollLocked(int64_t expected_next_offset);
  // The public calls that may have to flush: they do their work under the append lock, and
  // then RunPendingFlush runs the flush it asked for (flush.messages, or the flush of a
  // rolled segment without a scheduler) once that lock is released.
  Result<LogAppendInfo> AppendAsLeaderUnflushed(std::span<const uint8_t> batches,
                                                int32_t leader_epoch, AppendOrigin origin);
  Result<LogAppendInfo> AppendWithAssignedOffsetsUnflushed(std::span<const uint8_t> batches);
  Result<int> DeleteOldSegmentsUnflushed();
  Status RunPendingFlush();
  // OK while the log is open and online; else NotFound (deleted), FailedPrecondition (closed)
  // or IOError (offline).
  Status CheckOpen() const;
  // After a write: flush when flush.messages are unflushed; a new leader epoch is recorded.
  // NotLeaderOrFollowerException while BlockAppends holds.
  Status CheckAppendsAllowedLocked() const;
  Status AfterAppendLocked(int32_t leader_epoch, int64_t first_offset);
  Status AssignEpochLocked(int32_t epoch, int64_t start_offset);
  // Marks the log offline after a failed sync, or a failed rename that left the segment files
  // and the published segment map apart, and tells the owner; returns the failure.
  Status SyncFailed(const Status& failure);
  Status CheckOnline() const;
  Status LoadEpochsAndTopicId();
  // Creates the producer state and, for a writable log, rebuilds it (stray snapshots removed,
  // newest valid snapshot loaded, later batches replayed).
  // `replay_transactions_from`: the lowest segment whose transaction index recovery emptied;
  // the producer state is replayed from at most there, to write its entries again.
  Status LoadProducerState(std::optional<int64_t> replay_transactions_from);
  Status WriteLeaderEpochs();
  Status WriteLeaderEpochsLocked();
  // REQUIRES: the append lock is held.
  Status MaybeIncrementLogStartOffsetLocked(int64_t offset, const std::string& reason);
  using DeletablePredicate = std::function<Result<bool>(LogSegment& segment, LogSegment* next)>;
  Result<int> DeletePrefixLocked(const DeletablePredicate& predicate,
                                 const std::function<void(LogSegment&)>& log_reason);
  // The leader epoch of `offset` (Kafka's epochForOffset): the newest epoch starting at or
  // below it; nullopt below the first one.
  std::optional<int32_t> EpochForOffset(int64_t offset) const;
  // Removes the segments' (already renamed) files file.delete.delay.ms later (a delete-file
  // task), or now without a scheduler.
  // `files`: other files (renamed producer snapshots) removed with them.
  void ScheduleDeletion(std::vector<std::shared_ptr<LogSegment>> segments,
                        std::vector<std::string> files = {});
  // Renames the producer snapshots of deleted segments to *.deleted; returns the new paths.
  std::vector<std::string> MarkSnapshotsForDeletionLocked(
      const std::vector<std::shared_ptr<LogSegment>>& segments, int64_t keep_base_offset);

  std::string dir_;
  LogConfig config_;  // read and replaced only under the append lock
  LogOptions options_;
  LoadReport report_;
  std::unique_ptr<State> state_;
  std::atomic<int32_t> leader_epoch_{0};
};

}  // namespace seglog

#endif  // SEGLOG_LOG_H_
