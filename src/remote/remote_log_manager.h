// RemoteLogManager: tiered storage's tasks and reads (Kafka's RemoteLogManager, KIP-405;
// docs/design/tiered_storage.md). For every tiered log (Log::remote_log_enabled) of the node,
// every remote.log.manager.task.interval.ms, one pass (RunOnce) does in order:
//
//   1. cleanup   segments left COPY_SEGMENT_STARTED (a copy that failed, or a crash between
//                upload and metadata) or DELETE_SEGMENT_STARTED are deleted from the store and
//                marked DELETE_SEGMENT_FINISHED: an orphan object never outlives a pass, and a
//                segment is never neither local nor remote (the local copy stays until the
//                copy is FINISHED);
//   2. state     the log's highest offset in remote storage (the newest FINISHED segment's end)
//                and, at the first pass, its log start offset raised to the earliest remote
//                segment's start (or to the local log start when nothing is remote);
//   3. copy      each rolled segment below the last stable offset after the highest remote
//                offset, oldest first, once its KIP-1241 copy lag allows:
//                  COPY_SEGMENT_STARTED -> RemoteStorageManager::CopyLogSegmentData ->
//                  COPY_SEGMENT_FINISHED -> Log::UpdateHighestOffsetInRemoteStorage
//                (local retention then deletes the local copy, by local.retention.*);
//   4. expire    retention.ms / retention.bytes over the whole log (remote + local-only
//                bytes) and the log start offset: the log start offset is raised first, then
//                each expired segment goes DELETE_SEGMENT_STARTED -> delete -> FINISHED;
//   5. topics    the remote data of deleted partitions, and of topics whose remote storage
//                was turned off with remote.log.delete.on.disable=true, is deleted.
//
// Reads: a fetch below the local log start offset (Log::Read says
// OffsetMovedToTieredStorageException) is served by Read from the remote segment holding the
// offset, through the remote index cache; read_committed fetches get their aborted
// transactions from the remote transaction indexes, then the local ones; ListOffsets by
// timestamp looks in remote segments first. Fetches run their reads on readers() (Kafka's
// asyncRead: remote.log.reader.threads threads, remote.log.reader.max.pending.tasks queued)
// and wait for them at most fetch_max_wait_ms() (remote.fetch.max.wait.ms;
// src/server/delayed_remote_fetch.h).
//
// Thread safety: thread-safe. Passes are serialised by run_mu_ (held over the store's I/O,
// which only the next pass waits for); reads take no lock of the manager's and may run
// concurrently with a pass and with each other.
#ifndef SEGLOG_REMOTE_REMOTE_LOG_MANAGER_H_
#define SEGLOG_REMOTE_REMOTE_LOG_MANAGER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "manager/log_manager.h"
#include "remote/remote_index_cache.h"
#include "remote/remote_log_metadata_manager.h"
#include "remote/remote_reader_pool.h"
#include "remote/remote_storage_manager.h"
#include "seglog/log.h"
#include "seglog/logger.h"
#include "seglog/scheduler.h"

namespace seglog {

struct RemoteLogManagerOptions {
  int32_t broker_id = 1;                    // written in every metadata event
  int64_t task_interval_ms = 30000;         // remote.log.manager.task.interval.ms
  int32_t custom_metadata_max_bytes = 128;  // remote.log.metadata.custom.metadata.max.bytes
  int32_t reader_threads = 10;              // remote.log.reader.threads
  int32_t reader_max_pending_tasks = 100;   // remote.log.reader.max.pending.tasks
  int64_t fetch_max_wait_ms = 500;          // remote.fetch.max.wait.ms
  std::function<int64_t()> clock;           // ms since the epoch; default: the scheduler's
  Logger logger;
};

// What a remote read returns: whole batches of one remote segment, as the store holds them.
struct RemoteFetchData {
  std::vector<uint8_t> records;
  int64_t first_offset = -1;  // of the first batch returned
  int64_t next_offset = -1;   // after the last batch returned
};

// Counters, for tests and metrics.
struct RemoteLogManagerStats {
  int64_t segments_copied = 0;
  int64_t bytes_copied = 0;
  int64_t copy_failures = 0;
  int64_t segments_deleted = 0;  // expired, or of deleted partitions
  int64_t orphans_deleted = 0;   // left COPY_SEGMENT_STARTED / DELETE_SEGMENT_STARTED
  int64_t delete_failures = 0;
  int64_t remote_reads = 0;
  int64_t remote_read_failures = 0;
};

class RemoteLogManager {
 public:
  // Nothing is owned: `logs`, `rsm`, `rlmm`, `cache` and `scheduler` must outlive the manager.
  RemoteLogManager(LogManager* logs, RemoteStorageManager* rsm, RemoteLogMetadataManager* rlmm,
                   RemoteIndexCache* cache, Scheduler* scheduler, RemoteLogManagerOptions options);
  ~RemoteLogManager();
  RemoteLogManager(const RemoteLogManager&) = delete;
  RemoteLogManager& operator=(const RemoteLogManager&) = delete;

  // Schedules RunOnce every task_interval_ms (the first after one interval).
  void Start();
  // Stops scheduling passes and waits for a running one; later passes do nothing. The reader
  // pool's queued reads are cancelled and its running ones waited for.
  void Shutdown();

  // The remote log reader threads fetches run their reads on (Kafka's asyncRead).
  RemoteReaderPool* readers() { return &readers_; }
  // remote.fetch.max.wait.ms: how long a fetch waits for its remote read.
  int64_t fetch_max_wait_ms() const { return options_.fetch_max_wait_ms; }

  // One pass over every tiered log (see above). Returns the first error; a partition's failure
  // does not stop the others', and what failed is retried at the next pass.
  Status RunOnce() EXCLUDES(run_mu_);

  // The batches of the remote segment that holds `offset` (the first returned is the batch
  // holding it): at most `max_bytes` of them, at least one whole batch when
  // `min_one_message`, none at or past `max_offset`. Each batch's CRC is checked. OutOfRange
  // when `offset` is below the log start offset or no remote segment holds it; the store's
  // errors (NotFound, Corruption, IOError) name the object and the offset.
  Result<RemoteFetchData> Read(const TopicPartition& tp, int64_t offset, int32_t max_bytes,
                               bool min_one_message, int64_t max_offset);
  // The aborted transactions a read_committed fetch of [start_offset, upper_bound) overlaps,
  // from the remote segments holding them and then the local log (Kafka's
  // collectAbortedTransactions across tiers).
  Result<std::vector<AbortedTransaction>> CollectAbortedTransactions(const TopicPartition& tp,
                                                                     int64_t start_offset,
                                                                     int64_t upper_bound);
  // ListOffsets by timestamp in the remote segments (Kafka's findOffsetByTimestamp): the first
  // record at or above the log start offset with a timestamp >= `timestamp`; nullopt when no
  // remote segment has one (the caller then asks the local log).
  Result<std::optional<TimestampAndOffset>> FindOffsetByTimestamp(const TopicPartition& tp,
                                                                  int64_t timestamp);

  RemoteLogManagerStats stats() const;

 private:
  struct PartitionRef {
    TopicPartition tp;
    TopicIdPartition id;
    std::shared_ptr<Log> log;
    LogConfig config;
  };
  // Every tiered log, and the partitions with remote data whose remote data must go.
  Status CollectPartitions(std::vector<PartitionRef>* tiered,
                           std::vector<TopicIdPartition>* to_delete);
  Status RunPartition(PartitionRef& p) REQUIRES(run_mu_);
  Status CleanupUnfinished(const PartitionRef& p);
  Status CopySegments(PartitionRef& p) REQUIRES(run_mu_);
  Status CopySegment(PartitionRef& p, const RemoteCopyCandidate& c) REQUIRES(run_mu_);
  Status ExpireSegments(PartitionRef& p);
  Status DeletePartitionData(const TopicIdPartition& id);
  // DELETE_SEGMENT_STARTED (unless it is already), the store's delete, the cache's files,
  // DELETE_SEGMENT_FINISHED.
  Status DeleteRemoteSegment(const RemoteLogSegmentMetadata& segment);
  Result<TopicIdPartition> IdFor(const TopicPartition& tp) const;
  // The COPY_SEGMENT_FINISHED segment holding `offset`.
  Result<RemoteLogSegmentMetadata> SegmentFor(const TopicIdPartition& id, int64_t offset) const;
  // Reads the batches of `segment` from `position` on, calling `fn` with each (whole) batch
  // and its position until it returns false or the segment ends. Fetches in chunks of at
  // least `chunk_bytes`.
  Status ForEachRemoteBatch(const RemoteLogSegmentMetadata& segment, int64_t position,
                            int64_t chunk_bytes,
                            const std::function<Result<bool>(const RecordBatchView&)>& fn);
  int64_t Now() const;
  void Info(const std::string& line) const { options_.logger.Info(line); }
  void Warn(const std::string& line) const { options_.logger.Warn(line); }
  void Error(const std::string& line) const { options_.logger.Error(line); }

  LogManager* const logs_;
  RemoteStorageManager* const rsm_;
  RemoteLogMetadataManager* const rlmm_;
  RemoteIndexCache* const cache_;
  Scheduler* const scheduler_;
  const RemoteLogManagerOptions options_;

  Mutex run_mu_;
  // Partitions whose first pass ran (their log start offset taken from the remote tier).
  std::set<std::string> initialised_ GUARDED_BY(run_mu_);
  // Partitions whose copies stopped: a copy's custom metadata passed
  // remote.log.metadata.custom.metadata.max.bytes (Kafka cancels the partition's copy task
  // until the next leadership change; here, until a restart).
  std::set<std::string> copy_stopped_ GUARDED_BY(run_mu_);
  std::atomic<bool> shut_down_{false};

  struct AtomicStats {
    std::atomic<int64_t> segments_copied{0}, bytes_copied{0}, copy_failures{0}, segments_deleted{0},
        orphans_deleted{0}, delete_failures{0}, remote_reads{0}, remote_read_failures{0};
  };
  mutable AtomicStats stats_;
  // Declared last: destroyed (its threads joined) before anything a running read uses.
  RemoteReaderPool readers_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_LOG_MANAGER_H_
