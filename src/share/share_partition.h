// SharePartition: the in-flight state of one share partition (group, topic, partition) at its
// leader - which records of the log are AVAILABLE to a share consumer, ACQUIRED by one (under
// an acquisition lock), or finished (ACKNOWLEDGED or ARCHIVED) - as Kafka 4.4.0's
// kafka.server.share.SharePartition keeps it (KIP-932; design: docs/design/share_groups.md §1.3).
//
// It is pure: no I/O, no timers, no clock. The caller (the share partition manager) passes the
// time in, reads the log, writes PersistableState() to the share coordinator, and runs one timer
// for all partitions from NextLockDeadline().
//
// Offsets below StartOffset() (the share-partition start offset, SPSO) are finished. The cache
// holds [StartOffset(), EndOffset()] (EndOffset is the last offset fetched; when nothing is in
// flight it equals StartOffset and is the next offset to fetch), except offsets compaction
// removed between two fetches, which it never held. Like Kafka's cachedState, the
// cache is a sorted map of in-flight batches, each with one state for all its offsets until an
// acquisition or acknowledgement covers part of it, then with a state per offset.
//
// Kafka 4.4.0 rules kept (javap of kafka_2.13-4.4.0.jar, SharePartition and InFlightState):
//   - Acquisition increments the delivery count and starts a lock of record_lock_duration_ms.
//     A release (acknowledge type 2), a lock timeout and a session release do not change the
//     count (DeliveryCountOps.NO_OP); a record whose count reached delivery_count_limit is
//     ARCHIVED instead of AVAILABLE.
//   - At most max_record_locks offsets in flight (EndOffset - StartOffset + 1); at the limit
//     only records inside the in-flight range are acquired again.
//   - Delivery throttling: a record whose count reached max(2, ceil(limit / 2)) is delivered in
//     smaller pieces, and a record on its last attempt is delivered alone.
//   - Acknowledgement errors are Kafka's INVALID_RECORD_STATE / INVALID_REQUEST with Kafka's
//     messages; an acknowledgement that fails changes nothing (Kafka rolls the request back).
//   - With a dead-letter queue (SetDeadLetterQueue) a Reject or a record at the limit is
//     ARCHIVING until CompleteArchiving (Kafka's recordStateWithDlq, InFlightState).
//
// Differences, on purpose:
//   - NextFetchOffset() scans for the first AVAILABLE offset each time; Kafka keeps a flag that
//     says whether to scan (set by every path that makes records AVAILABLE), with the same answer.
//   - UpdateLogStart() forgets every offset below the new start, acquired ones included (Kafka
//     keeps acquired ones until their release archives them; acknowledgements of offsets below
//     the start are ignored in both).
//   - Offsets between persisted batches (Kafka's "gap window" after a load) are cached as
//     AVAILABLE with delivery count 0 instead of being acquired as new batches.
//   - Archiving AVAILABLE records that left the log (a fetch that starts past its fetch offset)
//     moves SPSO at once; Kafka moves it at the next acknowledgement.
//   - No read_committed filtering of aborted transactions yet (the caller's step).
//
// Thread safety: not thread-safe; the owner (the manager) holds one mutex per SharePartition.
#ifndef SEGLOG_SHARE_SHARE_PARTITION_H_
#define SEGLOG_SHARE_SHARE_PARTITION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/result.h"
#include "share/record_state.h"
#include "share/share_error.h"

namespace seglog {

struct SharePartitionConfig {
  // group.share.record.lock.duration.ms (or the group's share.record.lock.duration.ms): how
  // long an acquisition lasts before the records are released. Default 30000.
  int64_t record_lock_duration_ms = 30000;
  // group.share.delivery.count.limit (share.delivery.count.limit): deliveries after which a
  // released or timed-out record is ARCHIVED. Default 5, bounds 2-10.
  int32_t delivery_count_limit = 5;
  // group.share.partition.max.record.locks (share.partition.max.record.locks): offsets in
  // flight at most. Default 2000, bounds 100-4000.
  int32_t max_record_locks = 2000;
  // share.renew.acknowledge.enable: whether acknowledge type 4 (Renew) is allowed. Default true.
  bool renew_acknowledge_enabled = true;
};

// One batch of __share_group_state (Kafka's PersisterStateBatch): offsets [first, last] in one
// state with one delivery count.
struct PersistedStateBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  RecordState state = RecordState::kAvailable;
  int16_t delivery_count = 0;
  bool operator==(const PersistedStateBatch&) const = default;
};

// What ReadShareGroupState returns and WriteShareGroupState takes for one partition.
struct PersistedShareState {
  int32_t state_epoch = 0;
  int64_t start_offset = 0;
  std::vector<PersistedStateBatch> batches;  // sorted, not overlapping
  bool operator==(const PersistedShareState&) const = default;
};

// A log batch the fetch returned: its base and last offsets.
struct FetchedBatch {
  int64_t base_offset = 0;
  int64_t last_offset = 0;
};

// ShareFetchResponse AcquiredRecords: offsets [first, last] now held by the member.
struct AcquiredRecords {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int16_t delivery_count = 0;
  bool operator==(const AcquiredRecords&) const = default;
};

struct ShareAcquiredRecords {
  std::vector<AcquiredRecords> records;
  int32_t count = 0;  // offsets acquired
};

struct AcquireRequest {
  std::string member_id;
  ShareAcquireMode mode = ShareAcquireMode::kBatchOptimized;
  int32_t batch_size = 500;         // ShareFetch BatchSize
  int32_t max_fetch_records = 500;  // ShareFetch MaxRecords
  int64_t fetch_offset = 0;         // the offset the log was read from (NextFetchOffset())
  // The log batches read from fetch_offset, in order, none past the read bound (HWM or LSO).
  std::vector<FetchedBatch> batches;
};

// ShareFetch/ShareAcknowledge AcknowledgementBatches: one type for the range, or one per
// offset (AcknowledgeType ids 0-4).
struct AcknowledgementBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  std::vector<int8_t> acknowledge_types;
};

// What a release or lock expiry did: records that became AVAILABLE (a share fetch may now
// acquire them) and records that changed state at all (the state to persist changed).
struct ReleaseResult {
  int32_t released = 0;
  bool became_available = false;
};

// Why a record was archived toward the share group's dead-letter queue (KIP-1191; Kafka 4.4.0's
// ShareGroupDLQManager.CLIENT_REJECT and DELIVERY_COUNT_EXCEEDED).
enum class DlqCause : int8_t {
  kClientReject = 0,           // acknowledged with Reject
  kDeliveryCountExceeded = 1,  // released, or its lock expired, at the delivery count limit
};

// Offsets [first, last] archived for one cause with one delivery count: what the share
// partition hands to the dead-letter-queue writer (Kafka's ShareGroupDLQRecordParameter).
struct DlqArchive {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int16_t delivery_count = 0;
  DlqCause cause = DlqCause::kClientReject;
  bool operator==(const DlqArchive&) const = default;
};

// One offset's state, for tests and describe.
struct OffsetSnapshot {
  RecordState state = RecordState::kAvailable;
  int32_t delivery_count = 0;
  std::string member_id;  // empty unless ACQUIRED
  std::optional<int64_t> lock_deadline_ms;
  bool operator==(const OffsetSnapshot&) const = default;
};

class SharePartition {
 public:
  // The share partition as the share coordinator has it. REQUIRES nothing of the batches beyond
  // what the coordinator writes; refuses (InvalidArgument) a negative start offset, a batch
  // with first > last, overlapping or unsorted batches, and states other than 0, 2, 3 and 4.
  // ARCHIVING (3, a pending dead-letter-queue write) loads as ARCHIVING and is listed by
  // TakeDlqArchives, so that the write is resumed (Kafka's maybeResumeDlqArchiving).
  // Batches below the start offset are dropped; records the state calls ACQUIRED cannot be
  // (Kafka never writes acquisitions).
  static Result<SharePartition> Create(const SharePartitionConfig& config,
                                       const PersistedShareState& state);

  // Acquires for `request.member_id` the AVAILABLE records among the fetched batches, as
  // Kafka's SharePartition.acquire: in-flight batches overlapping the fetch are acquired whole
  // when the fetch covers them, else offset by offset; offsets past EndOffset become new
  // in-flight batches. Never more than the in-flight limit allows. Returns what was acquired
  // (empty when nothing was).
  ShareAcquiredRecords Acquire(const AcquireRequest& request, int64_t now_ms);

  // Applies a member's acknowledgements, all or none. Errors: INVALID_REQUEST for a bad range,
  // bad types or offsets past the in-flight records; INVALID_RECORD_STATE (121) for records not
  // acquired by the member or not in the cache. Acknowledgements of offsets below StartOffset()
  // are ignored. Accept/Reject/Gap finish records; Release makes them AVAILABLE (ARCHIVED at the
  // delivery limit); Renew restarts their lock at now_ms. `transitioned`, when given, says
  // whether a record changed state (Kafka writes the share state only then: not for batches
  // wholly below the start offset, nor for Renew alone).
  ShareError Acknowledge(std::string_view member_id, std::span<const AcknowledgementBatch> batches,
                         int64_t now_ms, bool* transitioned = nullptr);

  // The member's share session ended: every record it holds goes back to AVAILABLE (ARCHIVED at
  // the delivery limit), its delivery count unchanged.
  ReleaseResult ReleaseMember(std::string_view member_id);

  // Releases every record whose lock deadline is at or before now_ms, as ReleaseMember does.
  ReleaseResult ExpireLocks(int64_t now_ms);

  // The earliest lock deadline of an ACQUIRED record; none when nothing is acquired.
  std::optional<int64_t> NextLockDeadline() const;

  // The log start offset moved to `log_start_offset` (retention, DeleteRecords): offsets below
  // it are gone, SPSO moves up to it. No effect when it is not above StartOffset().
  void UpdateLogStart(int64_t log_start_offset);

  // The offset the next share fetch reads from.
  int64_t NextFetchOffset() const;
  int64_t StartOffset() const { return start_offset_; }
  int64_t EndOffset() const { return end_offset_; }
  int32_t StateEpoch() const { return state_epoch_; }
  // Offsets counted against max_record_locks.
  int64_t InFlightRecords() const;

  // The state to write to the share coordinator: SPSO and the batches from it, merged by state
  // and count. ACQUIRED records are written as AVAILABLE with the count they had before this
  // acquisition, what Kafka's coordinator holds for them (Kafka never writes an acquisition;
  // after a restart they come back AVAILABLE with that count). AVAILABLE records never
  // delivered (count 0) are left out, as Kafka leaves them out.
  PersistedShareState PersistableState() const;

  // Whether the group has a dead-letter queue now (Kafka's isDLQEnabledForGroup: share.version
  // 2 and a DLQ topic named); the owner sets it before each change, as Kafka reads it at each
  // transition. Off (the default): a Reject, or a record at the delivery count limit, is
  // ARCHIVED. On: it is ARCHIVING (3; persisted, neither delivered nor finished, the start
  // offset stops at it) and listed by TakeDlqArchives until CompleteArchiving.
  void SetDeadLetterQueue(bool enabled) { dlq_enabled_ = enabled; }

  // The records that entered ARCHIVING since the last call (a Reject, or a release, lock expiry
  // or member's release at the delivery count limit; and, at Create, the ARCHIVING batches of
  // the state), in order, adjacent ones with the same cause and count merged; the list is
  // emptied. A refused acknowledgement adds nothing. Gap acknowledgements, aborted
  // transactions and offsets that left the log never enter ARCHIVING.
  std::vector<DlqArchive> TakeDlqArchives();

  // The DLQ write of [first, last] ended (written or not): its ARCHIVING records become
  // ARCHIVED and the start offset moves past them if it can. True when a record changed.
  bool CompleteArchiving(int64_t first, int64_t last);

  // The state of one offset; none when it is not in the cache.
  std::optional<OffsetSnapshot> StateOf(int64_t offset) const;
  // Number of cached in-flight batches (Kafka's cachedState size).
  size_t CachedBatchCount() const { return cache_.size(); }

  // For tests: FailedPrecondition naming the first broken invariant of the cache (batches sorted
  // and apart, the first at StartOffset(), none past EndOffset(), per-offset states sized to
  // their batch, a member and a lock exactly on ACQUIRED records, ARCHIVING only with a dead-
  // letter queue or from a loaded state).
  Status CheckInvariants() const;

 private:
  struct InFlightState {
    RecordState state = RecordState::kAvailable;
    int32_t delivery_count = 0;
    std::string member_id;          // empty unless ACQUIRED
    int64_t lock_deadline_ms = -1;  // -1 unless ACQUIRED
  };
  // Offsets [first_offset, last_offset]: one state (whole) or one per offset (offsets).
  struct InFlightBatch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    InFlightState whole;
    std::vector<InFlightState> offsets;  // empty: `whole` applies to every offset

    bool split() const { return !offsets.empty(); }
    int64_t size() const { return last_offset - first_offset + 1; }
    InFlightState& At(int64_t offset) { return offsets[offset - first_offset]; }
    const InFlightState& At(int64_t offset) const { return offsets[offset - first_offset]; }
    void Split() { offsets.assign(static_cast<size_t>(size()), whole); }
  };
  using Cache = std::map<int64_t, InFlightBatch>;

  SharePartition(const SharePartitionConfig& config, int32_t state_epoch, int64_t start_offset)
      : config_(config),
        state_epoch_(state_epoch),
        start_offset_(start_offset),
        end_offset_(start_offset) {}

  struct LastOffsetAndMaxRecords {
    int64_t last_offset;
    int32_t max_records;
  };
  LastOffsetAndMaxRecords LastOffsetAndMaxRecordsToAcquire(int64_t fetch_offset,
                                                           int32_t max_fetch_records,
                                                           int64_t last_offset) const;
  ShareAcquiredRecords AcquireNewBatchRecords(const AcquireRequest& request, int64_t first_offset,
                                              int64_t last_offset, int32_t max_records,
                                              int64_t now_ms);
  int32_t AcquireSubsetBatchRecords(const AcquireRequest& request, int32_t max_records,
                                    int64_t request_first, int64_t request_last,
                                    InFlightBatch& batch, std::vector<AcquiredRecords>& out,
                                    int64_t now_ms);
  bool ShouldThrottle(const InFlightBatch& batch, int64_t request_first,
                      int64_t request_last) const;
  void ArchiveStaleBatches(int64_t fetch_offset, int64_t base_offset);

  ShareError AcknowledgeOne(std::string_view member_id, const AcknowledgementBatch& batch,
                            int64_t now_ms);
  ShareError AcknowledgeOffsets(std::string_view member_id, const AcknowledgementBatch& ack,
                                InFlightBatch& batch, int64_t now_ms);
  // REQUIRES: `state` (offsets [first, last]) is ACQUIRED by the acknowledging member; `type`
  // is 0-4.
  ShareError ApplyType(int8_t type, InFlightState& state, int64_t first, int64_t last,
                       int64_t now_ms);

  // ACQUIRED -> AVAILABLE, or at the delivery limit ARCHIVED (ARCHIVING with a dead-letter
  // queue); count unchanged. `state` holds offsets [first, last].
  void Release(InFlightState& state, int64_t first, int64_t last, ReleaseResult& result);
  // A Reject or a record at the limit: ARCHIVED, or ARCHIVING and listed with a DLQ.
  void Archive(InFlightState& state, int64_t first, int64_t last, DlqCause cause);
  void AddDlqArchive(int64_t first, int64_t last, int32_t delivery_count, DlqCause cause);
  template <typename Pred>
  ReleaseResult ReleaseIf(Pred pred);

  // Moves SPSO over the finished prefix and drops what is below it.
  void MaybeAdvanceStartOffset();
  // Drops every offset below start_offset_.
  void TrimBelowStart();

  Cache::iterator FloorEntry(int64_t offset);
  void AddBatch(int64_t first, int64_t last, const InFlightState& state);

  SharePartitionConfig config_;
  int32_t state_epoch_ = 0;
  int64_t start_offset_ = 0;
  int64_t end_offset_ = 0;
  Cache cache_;
  // State transitions made by the Acknowledge in progress.
  int64_t acknowledge_transitions_ = 0;
  // Records that entered ARCHIVING, not yet taken by TakeDlqArchives.
  std::vector<DlqArchive> dlq_archives_;
  bool dlq_enabled_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_PARTITION_H_
