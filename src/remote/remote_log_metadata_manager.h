// RemoteLogMetadataManager: which segments of which partitions are in remote storage, and in
// which state - seglog's Kafka TopicBasedRemoteLogMetadataManager (KIP-405). Every event is a
// record of the internal topic `__remote_log_metadata` (Kafka's record schemas and framing,
// protocol/remote_log_metadata_serde.h; docs/format/remote_log_metadata.md), with a null key,
// in the partition RemoteLogMetadataPartitionFor picks for the user partition; the in-memory
// state is what replaying the topic gives (Kafka's RemotePartitionMetadataStore and
// RemoteLogMetadataCache).
//
// The topic: remote.log.metadata.topic.num.partitions partitions (default 50),
// cleanup.policy=delete, retention.ms=remote.log.metadata.topic.retention.ms (default -1,
// unlimited) and remote.storage.enable=false (no min.insync.replicas: one replica), created through
// the LogManager by the first write when missing (Kafka creates it when the manager initialises;
// here a node that tiers nothing never creates it). An existing topic with another partition count
// is refused, as Kafka's isPartitionsCountSameAsConfigured refuses it: the partitioner would send a
// user partition's events elsewhere.
//
// Writes. An event is encoded, appended to its metadata partition (AppendOrigin::kClient: Kafka
// publishes with an ordinary producer) and flushed (fsync) before the call returns OK; the
// in-memory state changes only after that, so a reader never sees an event a crash could
// lose. Every event is checked against the current state first (Kafka checks on consumption
// and drops a bad event; refusing it here keeps it out of the topic). A failed append or flush
// returns its error with the state unchanged - but a record that reached the log before a
// failed fsync may still be replayed after a restart: an error means "outcome unknown", and the
// events are idempotent (a repeated state is a valid transition), so the caller retries.
//
// Replay (Open), as Kafka's consumer applies the topic: COPY_SEGMENT_STARTED adds a segment;
// an update moves it (DELETE_SEGMENT_FINISHED removes it); DELETE_PARTITION_FINISHED forgets
// the partition. An update for an unknown segment (one already DELETE_SEGMENT_FINISHED, or whose
// add is missing), an invalid transition, a value that does not decode, and a snapshot
// record (apiKey 3, not a topic record) are skipped, logged and counted (skipped_records());
// none aborts the load. A log that cannot be read, or a batch that fails its checks, fails
// Open with the log's error.
//
// Crash safety, the remote log manager's protocol with this class:
//
//   copy:    AddRemoteLogSegmentMetadata(COPY_SEGMENT_STARTED)   <- before any upload
//            RemoteStorageManager::CopyLogSegmentData
//            Update(COPY_SEGMENT_FINISHED)                       <- the segment is readable
//   delete:  Update(DELETE_SEGMENT_STARTED)                      <- no longer readable
//            RemoteStorageManager::DeleteLogSegmentData
//            Update(DELETE_SEGMENT_FINISHED)                     <- forgotten
//
// A crash between the steps leaves a segment in COPY_SEGMENT_STARTED (objects maybe partly
// written, never read) or DELETE_SEGMENT_STARTED (objects maybe partly deleted). After a
// restart these are orphans: OrphanedSegments() lists them - only segments already unfinished
// when Open loaded the topic, never a copy this process started - and the remote log manager
// deletes them (DELETE_SEGMENT_STARTED first for a COPY_SEGMENT_STARTED one, then the objects,
// then DELETE_SEGMENT_FINISHED). Object deletion is idempotent, so a crash during it only
// repeats it.
//
// Thread safety: thread-safe. Writers are serialised by write_mu_, held over their append and
// fsync; the state is behind a reader-writer mutex that is never held over file I/O: a writer
// takes it shared to check its event, exclusively only to apply the event after the fsync
// (nothing else changes the state meanwhile: every change is made under write_mu_). Lock
// order: write_mu_, then state_mu_, then the LogManager's and the Log's own locks (never held
// together with state_mu_).
#ifndef SEGLOG_REMOTE_REMOTE_LOG_METADATA_MANAGER_H_
#define SEGLOG_REMOTE_REMOTE_LOG_METADATA_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/uuid.h"
#include "protocol/remote_log_metadata_serde.h"
#include "remote/remote_log_segment_metadata.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

class Log;
class LogManager;

using protocol::RemotePartitionDeleteState;

// "DELETE_PARTITION_MARKED", ... as Kafka prints them.
std::string_view RemotePartitionDeleteStateName(RemotePartitionDeleteState state);

// Kafka's RemoteLogSegmentMetadataUpdate: a later state of a segment, with the custom metadata
// that replaces the segment's (Kafka's createWithUpdates takes the update's, even when empty).
struct RemoteLogSegmentMetadataUpdate {
  RemoteLogSegmentId segment_id;
  int64_t event_timestamp_ms = 0;
  std::optional<std::vector<uint8_t>> custom_metadata;
  RemoteLogSegmentState state = RemoteLogSegmentState::kCopySegmentFinished;
  int32_t broker_id = 0;
};

// Kafka's RemotePartitionDeleteMetadata: the state of a partition's remote data being deleted
// (the topic was deleted).
struct RemotePartitionDeleteMetadata {
  TopicIdPartition partition;
  RemotePartitionDeleteState state = RemotePartitionDeleteState::kDeletePartitionMarked;
  int64_t event_timestamp_ms = 0;
  int32_t broker_id = 0;
  bool operator==(const RemotePartitionDeleteMetadata&) const = default;
};

struct RemoteLogMetadataManagerOptions {
  // rlmm.config.remote.log.metadata.topic.num.partitions: the topic's partition count when it
  // is created, and the partitioner's. Default 50 (Kafka's). Must be > 0.
  int32_t num_partitions = protocol::kDefaultRemoteLogMetadataTopicPartitions;
  // rlmm.config.remote.log.metadata.topic.retention.ms: the topic's retention.ms. Default -1
  // (unlimited, Kafka's: an event lost to retention loses a segment).
  int64_t retention_ms = -1;
  // Load lines and (WARN) skipped records; may discard.
  Logger logger;
};

// What Open's replay did.
struct RemoteLogMetadataLoadStats {
  int64_t records = 0;                  // records read, skipped ones included
  int64_t undecodable = 0;              // values that do not decode (null ones included)
  int64_t unknown_segment_updates = 0;  // updates of a segment not in the state
  int64_t invalid_events = 0;           // invalid transitions, snapshot records, a non-STARTED add
};

class RemoteLogMetadataManager {
 public:
  using Options = RemoteLogMetadataManagerOptions;

  // Loads every partition of __remote_log_metadata from `logs` (which must outlive the
  // manager), replaying every event. InvalidArgument for bad options; FailedPrecondition when
  // the topic exists with another partition count; the log's error when one cannot be read.
  static Result<std::unique_ptr<RemoteLogMetadataManager>> Open(LogManager* logs,
                                                                Options options = {});
  ~RemoteLogMetadataManager();
  RemoteLogMetadataManager(const RemoteLogMetadataManager&) = delete;
  RemoteLogMetadataManager& operator=(const RemoteLogMetadataManager&) = delete;

  // Writes a segment's first event. InvalidArgument unless its state is COPY_SEGMENT_STARTED
  // or when it has no leader epochs or end_offset < start_offset; FailedPrecondition when the
  // segment id is known in a later state (a known COPY_SEGMENT_STARTED one is a retry: its
  // metadata is replaced). The write's error (IOError, ...) otherwise, with nothing applied.
  Status AddRemoteLogSegmentMetadata(const RemoteLogSegmentMetadata& metadata)
      EXCLUDES(write_mu_, state_mu_);
  // Writes a later state of a known segment. NotFound for an unknown segment id;
  // InvalidArgument for COPY_SEGMENT_STARTED (that is an add); FailedPrecondition when
  // IsValidTransition(current, update.state) is false.
  Status UpdateRemoteLogSegmentMetadata(const RemoteLogSegmentMetadataUpdate& update)
      EXCLUDES(write_mu_, state_mu_);
  // The same, taking the update from `updated`: its segment id, state, custom metadata, broker
  // id and event time (the rest of a segment's metadata never changes).
  Status UpdateRemoteLogSegmentMetadata(const RemoteLogSegmentMetadata& updated)
      EXCLUDES(write_mu_, state_mu_);
  // Writes a partition's delete state. DELETE_PARTITION_FINISHED forgets the partition: its
  // segments and its delete state.
  Status PutRemotePartitionDeleteMetadata(const RemotePartitionDeleteMetadata& metadata)
      EXCLUDES(write_mu_, state_mu_);
  Status PutRemotePartitionDeleteMetadata(const TopicIdPartition& partition,
                                          RemotePartitionDeleteState state,
                                          int64_t event_timestamp_ms = 0, int32_t broker_id = 0)
      EXCLUDES(write_mu_, state_mu_);

  // Every segment of the partition in every state (DELETE_SEGMENT_FINISHED ones are gone),
  // ascending start offset (then segment id). Empty for an unknown partition.
  std::vector<RemoteLogSegmentMetadata> ListRemoteLogSegments(
      const TopicIdPartition& partition) const EXCLUDES(state_mu_);
  // The segments holding offsets of `leader_epoch`, in every state, ascending start offset
  // (Kafka's listRemoteLogSegments(partition, leaderEpoch): remote retention walks them).
  std::vector<RemoteLogSegmentMetadata> ListRemoteLogSegments(const TopicIdPartition& partition,
                                                              int32_t leader_epoch) const
      EXCLUDES(state_mu_);
  // The COPY_SEGMENT_FINISHED segment holding `offset` in `leader_epoch`, as Kafka's
  // remoteLogSegmentMetadata(partition, epochForOffset, offset): the segment of the epoch whose
  // epoch start offset is the greatest at or below `offset`, when the epoch's offsets in it
  // reach `offset`. Of two copies of the same offsets (a new leader re-copied them) the later
  // COPY_SEGMENT_FINISHED one.
  std::optional<RemoteLogSegmentMetadata> RemoteLogSegmentMetadataFor(
      const TopicIdPartition& partition, int32_t leader_epoch, int64_t offset) const
      EXCLUDES(state_mu_);
  // The highest offset of `leader_epoch` in a segment that reached COPY_SEGMENT_FINISHED, as
  // Kafka's highestOffsetForEpoch (kept after those segments are deleted, as Kafka keeps it).
  std::optional<int64_t> HighestOffsetForEpoch(const TopicIdPartition& partition,
                                               int32_t leader_epoch) const EXCLUDES(state_mu_);

  // The partitions the topic has events for (until their DELETE_PARTITION_FINISHED), in
  // (topic id, partition, name) order.
  std::vector<TopicIdPartition> Partitions() const EXCLUDES(state_mu_);
  // The partitions with a delete state (MARKED or STARTED; FINISHED ones are forgotten).
  std::vector<RemotePartitionDeleteMetadata> PartitionsWithDeleteState() const EXCLUDES(state_mu_);
  std::optional<RemotePartitionDeleteMetadata> PartitionDeleteMetadata(
      const TopicIdPartition& partition) const EXCLUDES(state_mu_);
  // The orphans of a previous run (see above): segments of `partition` (of every partition
  // without one) in COPY_SEGMENT_STARTED or DELETE_SEGMENT_STARTED that were already in one of
  // them when Open loaded the topic, with their current metadata, ascending start offset.
  std::vector<RemoteLogSegmentMetadata> OrphanedSegments() const EXCLUDES(state_mu_);
  std::vector<RemoteLogSegmentMetadata> OrphanedSegments(const TopicIdPartition& partition) const
      EXCLUDES(state_mu_);

  // The metadata partition of a user partition (RemoteLogMetadataPartitionFor).
  int32_t MetadataPartitionFor(const TopicIdPartition& partition) const;
  int32_t num_partitions() const { return options_.num_partitions; }
  // Records Open skipped (the sum of load_stats()' skip counters).
  int64_t skipped_records() const;
  const RemoteLogMetadataLoadStats& load_stats() const { return load_stats_; }

  // Orders partitions by topic id, partition number, then topic name (Kafka's TopicIdPartition
  // equality includes the name).
  struct PartitionLess {
    bool operator()(const TopicIdPartition& a, const TopicIdPartition& b) const;
  };
  struct UuidLess {
    bool operator()(const Uuid& a, const Uuid& b) const { return a.bytes < b.bytes; }
  };

 private:
  // One leader epoch's segments of a partition (Kafka's RemoteLogLeaderEpochState).
  struct EpochState {
    // The COPY_SEGMENT_FINISHED segments, by the epoch's first offset in them.
    std::map<int64_t, Uuid> offset_to_id;
    // The epoch's other segments: not yet copied, being deleted, or replaced by a later copy.
    std::set<Uuid, UuidLess> unreferenced;
    std::optional<int64_t> highest_log_offset;
  };
  struct PartitionState {
    std::map<Uuid, RemoteLogSegmentMetadata, UuidLess> segments;
    std::map<int32_t, EpochState> epochs;
    std::optional<RemotePartitionDeleteMetadata> delete_metadata;
    // Segments in COPY_SEGMENT_STARTED or DELETE_SEGMENT_STARTED when Open finished loading.
    std::set<Uuid, UuidLess> unfinished_at_open;
  };
  // Kafka's RemotePartitionMetadataStore: the checks and changes of every event, shared by
  // the replay and the live writes. Not thread-safe (the manager guards it).
  struct State {
    std::map<TopicIdPartition, PartitionState, PartitionLess> partitions;

    Status CheckAdd(const RemoteLogSegmentMetadata& metadata) const;
    Status CheckUpdate(const RemoteLogSegmentMetadataUpdate& update) const;
    // REQUIRES: the Check of the event passed.
    void Add(const RemoteLogSegmentMetadata& metadata);
    void Update(const RemoteLogSegmentMetadataUpdate& update);
    void PutDelete(const RemotePartitionDeleteMetadata& metadata);
    const PartitionState* Find(const TopicIdPartition& partition) const;
  };

  RemoteLogMetadataManager(LogManager* logs, Options options);
  // Replays partition `p` of the topic into *state.
  Status LoadPartition(int32_t p, const std::shared_ptr<Log>& log, State* state);
  // Applies one decoded record during the load; counts and logs what it skips.
  void Replay(const protocol::RemoteLogMetadataRecord& record, int32_t p, int64_t offset,
              State* state);
  // Creates the topic if missing and returns the log of metadata partition `p`.
  Result<std::shared_ptr<Log>> LogFor(int32_t p) REQUIRES(write_mu_);
  // Appends `record` (the event of `partition`) to its metadata partition and fsyncs it.
  Status Write(const TopicIdPartition& partition, const protocol::RemoteLogMetadataRecord& record,
               int64_t timestamp_ms) REQUIRES(write_mu_);
  void LogLine(LogLevel level, const std::string& line) const;
  static std::vector<RemoteLogSegmentMetadata> SortedSegments(
      std::vector<RemoteLogSegmentMetadata> segments);

  LogManager* const logs_;
  const Options options_;
  RemoteLogMetadataLoadStats load_stats_;  // set by Open, then never changed

  Mutex write_mu_ ACQUIRED_BEFORE(state_mu_);
  // The topic's logs, by metadata partition; empty until the topic exists.
  std::vector<std::shared_ptr<Log>> logs_by_partition_ GUARDED_BY(write_mu_);

  mutable SharedMutex state_mu_;
  State state_ GUARDED_BY(state_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_LOG_METADATA_MANAGER_H_
