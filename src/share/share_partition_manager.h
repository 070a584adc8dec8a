// SharePartitionManager: the share partitions this node leads (Kafka 4.4.0's
// kafka.server.share.SharePartitionManager, one node): each SharePartition (group, topic id,
// partition) is loaded on first use from the share coordinator (ShareCoordinator::Read with the
// log's leader epoch), fetched from (read the log, acquire what it returned), acknowledged (the
// new state written to the share coordinator before the answer), and released when a member's
// share session ends or it leaves the group. Design: docs/design/share_groups.md §1.3-1.5, §3.2.
//
// Kafka 4.4.0 rules kept (SharePartition.maybeInitialize / startOffsetDuringInitialization,
// SharePartitionManager, DelayedShareFetch, read from the jars):
//   - A start offset of -1 from the coordinator applies share.auto.offset.reset: "latest" the
//     high watermark, "earliest" the log start offset, "by_duration:<ISO-8601 duration>" the
//     first offset whose timestamp is at or after now - duration (the high watermark when
//     there is none).
//   - One fetch at a time per share partition (Kafka's fetchLock): a second fetch of a
//     partition being fetched gets nothing from it this time.
//   - read_committed groups read up to the last stable offset, and the acquired records of
//     aborted transactions are archived, never delivered.
//   - A group's dead-letter queue (KIP-1191): records a change made ARCHIVING go to
//     on_dlq_archived after the change's write; CompleteArchiving (the DLQ writer's report)
//     makes them ARCHIVED with a second write (SharePartition.initiateDLQAndArchive).
//   - A write to the share coordinator that fails rolls the acknowledgement back (the answer
//     carries the coordinator's error); FENCED_LEADER_EPOCH / FENCED_STATE_EPOCH also drop the
//     SharePartition, so its next use loads it again.
//
// Locking: the share coordinator is never called with a partition's mutex held (its Read and
// Write append to __share_group_state, file I/O). A change that must be written (an
// acknowledgement, a member's release, a lock expiry) is computed under the mutex on a copy of
// the SharePartition; the partition is marked as having a write in flight and the mutex is
// dropped for the write; under the mutex again the change is applied to the live partition
// when the write succeeded, and nothing is applied when it failed (acknowledgements; Kafka
// rolls them back) or the change is applied anyway (releases and lock expiries; Kafka keeps a
// lock expiry in memory after a failed write: the records are delivered again, the safe side).
// While
// a write is in flight:
//   - fetches go on: they acquire AVAILABLE records and read the log, and never touch the
//     ACQUIRED records the write changes (as Kafka's acquire skips records with an ongoing
//     state transition, records a pending release makes AVAILABLE are not acquired before
//     the write succeeded); a moved log start waits for the next fetch after the write;
//   - further writers (acknowledgements, releases) queue behind it on the partition's condition
//     variable (Kafka refuses a second transition of the same records with INVALID_RECORD_STATE
//     and lets other records' transitions run concurrently; queueing keeps one write at a time
//     so a failed write can be undone by not applying it);
//   - the lock timer skips the partition until its next pass.
// A load (the coordinator's Read, which records the leader epoch) is done the same way: the
// mutex is dropped and other requests of that partition wait for the load (Kafka's requests
// wait on the initialization future), none of other partitions.
//
// Differences, on purpose:
//   - The coordinator is called synchronously by the request's thread; Kafka's persister is
//     asynchronous.
//   - Acquisition locks expire by one timer for all partitions: a one-shot scheduler task at
//     the earliest lock deadline (armed when an acquisition sets a deadline earlier than the
//     one armed, re-armed by each pass for the deadlines left) plus a periodic pass every
//     kLockTimerPeriodMs as a backstop. A lock expires when the scheduler runs the task due at
//     its deadline (ms, as Kafka's 1 ms-tick timer), or at the next periodic pass (at most
//     kLockTimerPeriodMs late) when its partition had a write in flight at that moment.
//     Kafka runs one timer task per acquired batch (SharePartition.scheduleAcquisitionLockTimeout).
//   - A moved log start (retention, DeleteRecords) is applied (UpdateLogStart) at the
//     partition's next fetch. Kafka 4.4.0 applies it no sooner: only when a share fetch's log
//     read answers OFFSET_OUT_OF_RANGE (ShareFetchUtils.processFetchResponse calls
//     SharePartition.updateCacheAndOffsets with the log's earliest offset); nothing there
//     reacts to the log start moving by itself. Until then the offsets below it stay in the
//     cache and at the coordinator, and none of them is delivered (the log has none).
//
// Thread safety: thread-safe. mu_ guards the map of partitions; each partition has its own
// mutex guarding its SharePartition and flags, dropped around the share coordinator's calls
// and the log reads; listeners (records available) are called with no lock held. Lock order:
// mu_ is never held while taking a partition's mutex nor the other way round.
#ifndef SEGLOG_SHARE_SHARE_PARTITION_MANAGER_H_
#define SEGLOG_SHARE_SHARE_PARTITION_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "group/share_state_admin.h"
#include "seglog/file_slice.h"
#include "seglog/logger.h"
#include "seglog/scheduler.h"
#include "share/share_partition.h"
#include "share/share_session_cache.h"
#include "sharestate/share_coordinator.h"
#include "sharestate/share_partition_key.h"

namespace seglog {

class LogManager;

// A share group's settings that the partition leader uses (the group's configs over the
// broker's group.share.* defaults).
struct ShareGroupSettings {
  SharePartitionConfig partition;
  // share.auto.offset.reset: "latest", "earliest" or "by_duration:<ISO-8601 duration>".
  std::string auto_offset_reset = "latest";
  // share.isolation.level: read_committed reads up to the last stable offset.
  bool read_committed = false;
};

using ShareCoordinatorOutcome = ShareCoordinator::Outcome;
using ShareCoordinatorWriteData = ShareCoordinator::WriteData;

class SharePartitionManager : public ShareGroupListener {
 public:
  static constexpr int64_t kLockTimerPeriodMs = 100;

  using SettingsLookup = std::function<ShareGroupSettings(const std::string& group_id)>;
  // Records became AVAILABLE for the group (a release, a lock expiry, a session ended).
  using AvailableListener = std::function<void(const std::string& group_id)>;

  struct Options {
    ShareCoordinator* coordinator = nullptr;
    LogManager* logs = nullptr;
    // Runs the lock timer; null: the owner calls ExpireLocks().
    Scheduler* scheduler = nullptr;
    // The share sessions a leaving member's session is removed from; may be null.
    ShareSessionCache* sessions = nullptr;
    // The persister's write; unset: coordinator->Write. Tests give one that blocks or fails.
    std::function<ShareCoordinatorOutcome(const SharePartitionKey&,
                                          const ShareCoordinatorWriteData&)>
        write_state;
    // Unset: ShareGroupSettings{} for every group (the broker's defaults).
    SettingsLookup settings;
    AvailableListener on_available;
    // Whether a group has a dead-letter queue now (share.version 2 and a DLQ topic named);
    // asked before each change. Unset, or on_dlq_archived unset: no group has one.
    std::function<bool(const std::string& group_id)> dlq_enabled;
    // Records a change made ARCHIVING (a Reject, or the delivery count limit), once the change
    // is applied (after its state write), and those a load found ARCHIVING: the dead-letter-
    // queue writer's queue (ShareDlqWriter::Enqueue), which calls CompleteArchiving when each
    // write ends. Called with the partition's mutex held; must not block. May be unset.
    std::function<void(const SharePartitionKey&, std::vector<DlqArchive>)> on_dlq_archived;
    // ms since the epoch; unset: the scheduler's clock, else the system clock.
    std::function<int64_t()> clock;
    Logger logger;
  };

  struct FetchParams {
    std::string group_id;
    std::string member_id;
    ShareAcquireMode mode = ShareAcquireMode::kBatchOptimized;
    int32_t max_records = 500;
    int32_t batch_size = 500;
  };

  // One partition's share fetch: the log batches that hold the acquired records.
  struct PartitionFetch {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    FileSlice records;  // length 0: none
    std::vector<AcquiredRecords> acquired;
  };

  explicit SharePartitionManager(Options options);
  ~SharePartitionManager() override = default;
  SharePartitionManager(const SharePartitionManager&) = delete;
  SharePartitionManager& operator=(const SharePartitionManager&) = delete;

  // Schedules the lock timer.
  void Start();

  // Reads `topic`'s partition from the share partition's next fetch offset (at most
  // `max_bytes`, at least one batch) and acquires its AVAILABLE records for the member.
  PartitionFetch Fetch(const FetchParams& params, const ShareTopicIdPartition& partition,
                       const std::string& topic, int32_t max_bytes);

  // Applies the member's acknowledgements to one partition and writes the new state to the
  // share coordinator before returning; a refused acknowledgement or a failed write changes
  // nothing. A share partition no fetch has loaded is UNKNOWN_TOPIC_OR_PARTITION and is
  // neither created nor read.
  ShareError Acknowledge(const std::string& group_id, const std::string& member_id,
                         const ShareTopicIdPartition& partition,
                         std::span<const AcknowledgementBatch> batches);

  // The DLQ write of [first, last] of a share partition ended (written or not): its ARCHIVING
  // records become ARCHIVED, written to the share coordinator (kept in memory when that write
  // fails), as Kafka's initiateDLQAndArchive does. Nothing when the partition is not loaded.
  void CompleteArchiving(const SharePartitionKey& key, int64_t first, int64_t last);

  // A share session ended: the member's records on its partitions go back to AVAILABLE.
  void ReleaseSession(const ReleasedShareSession& session);

  // The lock timer's pass: releases every acquisition whose lock has passed, and arms the
  // one-shot timer for the earliest lock left.
  void ExpireLocks();

  // share.record.lock.duration.ms of the group (the responses' AcquisitionLockTimeoutMs).
  int32_t RecordLockDurationMs(const std::string& group_id) const;

  // ShareGroupListener: the member's session is removed and every record it holds in the
  // group is released; a deleted group's share partitions are forgotten.
  void OnShareGroupMemberLeft(const std::string& group_id, const std::string& member_id) override;
  void OnShareGroupDeleted(const std::string& group_id) override;

  // share.version finalized below 1: every share partition is forgotten, as Kafka's
  // onShareVersionToggle drops its cache; one used again after an upgrade loads anew from the
  // share coordinator.
  void ForgetAll() EXCLUDES(mu_);

  // For tests: the state of one offset of a loaded share partition.
  std::optional<OffsetSnapshot> StateOf(const SharePartitionKey& key, int64_t offset);
  bool IsLoaded(const SharePartitionKey& key);
  // For tests: a loaded share partition's start and end offsets (SPSO, SPEO).
  std::optional<std::pair<int64_t, int64_t>> StartAndEndOffsets(const SharePartitionKey& key);

 private:
  struct Entry {
    explicit Entry(SharePartitionKey k) : key(std::move(k)), changed(&mu) {}
    const SharePartitionKey key;
    Mutex mu;
    // Signalled when a load or a write of this partition ends.
    CondVar changed;
    std::optional<SharePartition> partition GUARDED_BY(mu);
    bool loading GUARDED_BY(mu) = false;
    // Invariant: at most one write per partition; while set, the live partition changes only
    // by acquisitions of AVAILABLE records (and the archiving of aborted ones just acquired).
    bool write_in_flight GUARDED_BY(mu) = false;
    bool fetch_in_progress GUARDED_BY(mu) = false;
    int32_t leader_epoch GUARDED_BY(mu) = 0;
    bool read_committed GUARDED_BY(mu) = false;
  };

  // What a change to a partition did (see WriteChange).
  struct Change {
    ShareError error;
    bool write = false;  // the state must be written
    bool became_available = false;
  };
  using ChangeFn = std::function<Change(SharePartition&)>;
  struct WriteOutcome {
    ShareError error;  // the change's, or the failed write's
    bool applied = false;
    bool fenced = false;
    bool became_available = false;
  };

  int64_t NowMs() const;
  ShareGroupSettings SettingsOf(const std::string& group_id) const;
  std::shared_ptr<Entry> EntryFor(const SharePartitionKey& key) EXCLUDES(mu_);
  // The entry of `key` if there is one; never creates it.
  std::shared_ptr<Entry> Find(const SharePartitionKey& key) EXCLUDES(mu_);
  std::vector<std::shared_ptr<Entry>> Entries(const std::string* group_id) EXCLUDES(mu_);
  void Drop(const std::shared_ptr<Entry>& entry) EXCLUDES(mu_);
  // Loads the SharePartition if it is not; an error when it cannot be. Drops entry.mu around
  // the coordinator's Read; waits for a load another request started.
  ShareError EnsureLoaded(Entry& entry, const std::string& topic) REQUIRES(entry.mu);
  // Runs `change` on a copy of the partition; when it asks for a write, writes the copy's
  // state to the share coordinator with entry.mu dropped, then runs `change` on the partition
  // when the write succeeded, or also when it failed if `apply_on_failure`. With no write,
  // the copy replaces the partition. Waits for a write in flight first.
  // REQUIRES: the partition is loaded.
  WriteOutcome WriteChange(Entry& entry, const ChangeFn& change, bool apply_on_failure)
      REQUIRES(entry.mu);
  // Hands what the partition archived for the dead-letter queue to on_dlq_archived.
  void HandOffDlq(Entry& entry) REQUIRES(entry.mu);
  // The state to write for `partition`.
  ShareCoordinatorWriteData WriteDataOf(const SharePartition& partition,
                                        int32_t leader_epoch) const;
  // Releases the member's records on one partition; true when some became AVAILABLE.
  bool ReleaseOn(const std::shared_ptr<Entry>& entry, const std::string& member_id);
  void NotifyAvailable(const std::string& group_id) const;

  // Arms the one-shot lock timer for `deadline_ms` unless one fires at or before it.
  void ArmLockTimer(int64_t deadline_ms) EXCLUDES(timer_mu_);

  Options options_;
  // Expires with the manager; the one-shot timer tasks do nothing after that.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  Mutex timer_mu_;
  // When the armed one-shot lock timer fires; INT64_MAX: none armed.
  int64_t next_timer_ms_ GUARDED_BY(timer_mu_) = INT64_MAX;
  mutable Mutex mu_;
  std::map<SharePartitionKey, std::shared_ptr<Entry>> partitions_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_PARTITION_MANAGER_H_
