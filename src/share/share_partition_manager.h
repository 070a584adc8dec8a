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
//   - A write to the share coordinator that fails rolls the acknowledgement back (the answer
//     carries the coordinator's error); FENCED_LEADER_EPOCH / FENCED_STATE_EPOCH also drop the
//     SharePartition, so its next use loads it again.
//
// Differences, on purpose:
//   - The coordinator is called synchronously and under the SharePartition's own mutex (only
//     that partition's requests wait); Kafka's persister is asynchronous.
//   - One periodic scheduler task (every kLockTimerPeriodMs) expires acquisition locks of every
//     partition whose NextLockDeadline() has passed; Kafka runs one timer task per acquisition.
//   - A moved log start (retention, DeleteRecords) is applied (UpdateLogStart) when the
//     partition is next fetched, not when the log moves.
//
// Thread safety: thread-safe. mu_ guards the map of partitions; each partition has its own
// mutex guarding its SharePartition; the log is read with no lock held; listeners (records
// available) are called with no lock held.
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
#include "sharestate/share_partition_key.h"

namespace seglog {

class LogManager;
class ShareCoordinator;

// A share group's settings that the partition leader uses (the group's configs over the
// broker's group.share.* defaults).
struct ShareGroupSettings {
  SharePartitionConfig partition;
  // share.auto.offset.reset: "latest", "earliest" or "by_duration:<ISO-8601 duration>".
  std::string auto_offset_reset = "latest";
  // share.isolation.level: read_committed reads up to the last stable offset.
  bool read_committed = false;
};

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
    // Unset: ShareGroupSettings{} for every group (the broker's defaults).
    SettingsLookup settings;
    AvailableListener on_available;
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

  // A share session ended: the member's records on its partitions go back to AVAILABLE.
  void ReleaseSession(const ReleasedShareSession& session);

  // The lock timer's pass: releases every acquisition whose lock has passed.
  void ExpireLocks();

  // share.record.lock.duration.ms of the group (the responses' AcquisitionLockTimeoutMs).
  int32_t RecordLockDurationMs(const std::string& group_id) const;

  // ShareGroupListener: the member's session is removed and every record it holds in the
  // group is released; a deleted group's share partitions are forgotten.
  void OnShareGroupMemberLeft(const std::string& group_id, const std::string& member_id) override;
  void OnShareGroupDeleted(const std::string& group_id) override;

  // For tests: the state of one offset of a loaded share partition.
  std::optional<OffsetSnapshot> StateOf(const SharePartitionKey& key, int64_t offset);
  bool IsLoaded(const SharePartitionKey& key);
  // For tests: a loaded share partition's start and end offsets (SPSO, SPEO).
  std::optional<std::pair<int64_t, int64_t>> StartAndEndOffsets(const SharePartitionKey& key);

 private:
  struct Entry {
    explicit Entry(SharePartitionKey k) : key(std::move(k)) {}
    const SharePartitionKey key;
    Mutex mu;
    std::optional<SharePartition> partition GUARDED_BY(mu);
    bool fetch_in_progress GUARDED_BY(mu) = false;
    int32_t leader_epoch GUARDED_BY(mu) = 0;
    bool read_committed GUARDED_BY(mu) = false;
  };

  int64_t NowMs() const;
  ShareGroupSettings SettingsOf(const std::string& group_id) const;
  std::shared_ptr<Entry> EntryFor(const SharePartitionKey& key) EXCLUDES(mu_);
  // The entry of `key` if there is one; never creates it.
  std::shared_ptr<Entry> Find(const SharePartitionKey& key) EXCLUDES(mu_);
  std::vector<std::shared_ptr<Entry>> Entries(const std::string* group_id) EXCLUDES(mu_);
  void Drop(const std::shared_ptr<Entry>& entry) EXCLUDES(mu_);
  // Loads the SharePartition if it is not; an error when it cannot be.
  ShareError EnsureLoaded(Entry& entry, const std::string& topic) REQUIRES(entry.mu);
  // Writes the SharePartition's state to the share coordinator.
  ShareError Persist(Entry& entry) REQUIRES(entry.mu);
  // Releases the member's records on one partition; true when some became AVAILABLE.
  bool ReleaseOn(const std::shared_ptr<Entry>& entry, const std::string& member_id);
  void NotifyAvailable(const std::string& group_id) const;

  Options options_;
  mutable Mutex mu_;
  std::map<SharePartitionKey, std::shared_ptr<Entry>> partitions_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_PARTITION_MANAGER_H_
