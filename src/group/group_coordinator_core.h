// GroupCoordinator::Core: the group coordinator's state and logic behind the GroupCoordinator
// facade (group_coordinator.h), one class whose member functions are defined by concept, as
// Kafka splits its group coordinator:
//
//   group_coordinator.cc          the facade, opening, appends, timers, shutdown, offsets expiry
//   group_coordinator_load.cc     loading a shard: replaying __consumer_offsets
//   group_coordinator_classic.cc  the classic protocol (JoinGroup, SyncGroup, Heartbeat,
//                                 LeaveGroup)
//   group_coordinator_consumer.cc KIP-848's consumer groups (ConsumerGroupHeartbeat, classic
//                                 members inside them, conversions, regular expressions)
//   group_coordinator_share.cc    KIP-932's share groups (ShareGroupHeartbeat,
//                                 ShareGroupDescribe, share-partition initialization)
//   group_coordinator_share_offsets.cc  KIP-932's Describe/Alter/DeleteShareGroupOffsets
//   group_coordinator_streams.cc  KIP-1071's streams groups (StreamsGroupHeartbeat,
//                                 StreamsGroupDescribe, internal topics, offset checks)
//   group_coordinator_offsets.cc  OffsetCommit, TxnOffsetCommit and its markers, OffsetFetch
//   group_coordinator_admin.cc    ListGroups, DescribeGroups, DeleteGroups, OffsetDelete
//
// Internal to src/group: only those files include it.
//
// Thread safety: thread-safe. Each shard's mutex guards its groups, offsets and timers; the
// topic and the shards are fixed once open. share_hooks_mu_ guards the share-state admin and
// listener pointers only: a leaf lock (it may be taken under a shard's mutex; nothing is taken
// under it), never held while they are called - and they are called without any shard's
// mutex held.
#ifndef SEGLOG_GROUP_GROUP_COORDINATOR_CORE_H_
#define SEGLOG_GROUP_GROUP_COORDINATOR_CORE_H_

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <random>
#include <set>

#include "base/coding.h"
#include "base/mutex.h"
#include "coordinator/append_error.h"
#include "coordinator/coordinator_log.h"
#include "coordinator/coordinator_shard.h"
#include "coordinator/coordinator_timer.h"
#include "coordinator/internal_topic.h"
#include "group/classic_group.h"
#include "group/consumer_group.h"
#include "group/consumer_group_classic.h"
#include "group/consumer_group_heartbeat.h"
#include "group/consumer_group_records.h"
#include "group/group_conversion.h"
#include "group/group_coordinator.h"
#include "group/group_partitioner.h"
#include "group/offsets_records.h"
#include "group/share_group.h"
#include "group/share_group_heartbeat.h"
#include "group/share_group_records.h"
#include "group/share_state_admin.h"
#include "group/streams_group.h"
#include "group/streams_group_describe.h"
#include "group/streams_group_heartbeat.h"
#include "group/streams_group_load.h"
#include "group/streams_group_records.h"
#include "group/transactional_offsets.h"
#include "manager/log_manager.h"
#include "protocol/generated/consumer_protocol_subscription.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {

class GroupCoordinator::Core : public std::enable_shared_from_this<Core> {
 public:
  using JoinGroupResponseData = protocol::JoinGroupResponseData;
  using SyncGroupResponseData = protocol::SyncGroupResponseData;

  // A member that joined but has not completed a join yet is given this long to do so
  // (Kafka's CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS).
  static constexpr int32_t kNewMemberJoinTimeoutMs = 300000;

  // java.util.UUID.randomUUID().toString(): 36 characters, version 4, variant 2.
  static std::string RandomJavaUuid() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    uint64_t hi = rng();
    uint64_t lo = rng();
    hi = (hi & ~0xF000ull) | 0x4000ull;                  // version 4
    lo = (lo & ~(0xC000ull << 48)) | (0x8000ull << 48);  // IETF variant
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                       hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
  }

  static std::string Lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }

  static std::string Trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
  }

  // What a failed append of coordinator records tells the client.
  static int16_t AppendErrorToClient(const Status& s) { return GroupCoordinatorAppendError(s); }

  static JoinGroupResponseData JoinError(int16_t error, std::string member_id) {
    JoinGroupResponseData r;
    r.error_code = error;
    r.generation_id = -1;
    r.member_id = std::move(member_id);
    return r;
  }

  static SyncGroupResponseData SyncError(int16_t error) {
    SyncGroupResponseData r;
    r.error_code = error;
    return r;
  }

  using Completions = CoordinatorTimer::Completions;

  // What a timer does when it expires; see Fire.
  struct Timer {
    // kConsumerSession: a consumer group member's session timeout; kConsumerRevocation: its
    // rebalance timeout while it has partitions to revoke; kConsumerClassicJoin/Sync: a
    // classic member of a consumer group that was told to join again, or joined, and has not
    // joined, or synced, within its rebalance timeout.
    enum class Kind {
      kInitialJoin,
      kJoin,
      kHeartbeat,
      kPendingSync,
      kConsumerSession,
      kConsumerRevocation,
      kConsumerClassicJoin,
      kConsumerClassicSync,
      kShareSession,        // a share group member's session timeout
      kStreamsSession,      // a streams group member's session timeout
      kStreamsInitialDelay  // a streams group's initial rebalance delay ended
    };
    Kind kind;
    std::string group;
    std::string member;      // kHeartbeat, kConsumer*
    int32_t generation = 0;  // kPendingSync; kConsumerRevocation: the member epoch
    int64_t delay_ms = 0;    // kInitialJoin: this wait, and what remains of the rebalance timeout
    int64_t remaining_ms = 0;
  };

  // A partition of __consumer_offsets and the groups it owns.
  struct Shard : CoordinatorShard {
    // `owner`: the Core, which the timer's tasks pin while they run.
    Shard(int32_t p, Scheduler* scheduler, std::weak_ptr<const void> owner)
        : timer(scheduler, &mu, "group-coordinator-timer", std::move(owner)) {
      partition = p;
    }

    std::map<std::string, std::unique_ptr<ClassicGroup>> groups GUARDED_BY(mu);
    // KIP-848's groups; a group id is in `groups` or here, never both.
    std::map<std::string, std::unique_ptr<ConsumerGroup>> consumer_groups GUARDED_BY(mu);
    // KIP-932's share groups. Invariant: a group id is in at most one of `groups`,
    // `consumer_groups` and `share_groups`.
    std::map<std::string, std::unique_ptr<ShareGroup>> share_groups GUARDED_BY(mu);
    // KIP-1071's streams groups. Invariant: a group id is in at most one of `groups`,
    // `consumer_groups`, `share_groups` and `streams_groups`.
    std::map<std::string, std::unique_ptr<StreamsGroup>> streams_groups GUARDED_BY(mu);
    // group -> (topic, partition) -> committed offset
    OffsetsByGroup offsets GUARDED_BY(mu);
    // TxnOffsetCommit's offsets until their transaction's marker (transactional_offsets.h).
    PendingTransactionalOffsets pending GUARDED_BY(mu);
    // The heartbeat, join, sync, session and rebalance timers, keyed as HeartbeatKey etc.; they
    // fire under `mu`.
    CoordinatorTimer timer;
    // Consumer groups whose regular expressions are being resolved (at most one at a time).
    std::set<std::string> regex_refreshes GUARDED_BY(mu);
  };

  Core(const GroupCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
       const Logger& logger)
      : config_(config),
        logs_(logs),
        scheduler_(scheduler),
        logger_(logger.WithPrefix("[GroupCoordinator] ")),
        topic_(logs,
               {kConsumerOffsetsTopic,
                config_.offsets_topic_num_partitions,
                {{"cleanup.policy", "compact"},
                 {"compression.type", "producer"},
                 {"segment.bytes", std::to_string(config_.offsets_topic_segment_bytes)}}},
               logger_) {}

  // Kafka's "[GroupCoordinator] " prefix, after the level.
  void Info(const std::string& line) const { logger_.Info(line); }
  void Warn(const std::string& line) const { logger_.Warn(line); }
  void Error(const std::string& line) const { logger_.Error(line); }

  static void RunAll(Completions* done) {
    for (auto& f : *done) f();
    done->clear();
  }

  Status Open();

  Status EnsureOffsetsTopic();

  int32_t PartitionFor(std::string_view group) const { return topic_.PartitionFor(group); }
  Shard& ShardFor(std::string_view group) { return *shards_[PartitionFor(group)]; }

  // Whether the shard may serve requests: the topic exists, the load succeeded, not shut down.
  // Else the error to answer.
  int16_t Unavailable(Shard& s) REQUIRES(s.mu) { return s.Unavailable(shut_down_); }

  // ---- Records ----

  // Appends `records` in one batch; `*first_offset` (when given) gets the first one's offset,
  // the others follow it. With a producer id the batch is that producer's transactional batch
  // (TxnOffsetCommit), as Kafka's coordinator runtime writes it: its own batch, base sequence 0.
  Status Append(Shard& s, const std::vector<OffsetsRecord>& records,
                int64_t* first_offset = nullptr, int64_t producer_id = kNoProducerId,
                int16_t producer_epoch = kNoProducerEpoch) REQUIRES(s.mu);

  // ---- Loading ----

  void LoadShard(Shard& s) EXCLUDES(s.mu);

  // The consumer group `id` of a record being loaded, created if new (it replaces a classic
  // group of that id, as the records say it became one).
  ConsumerGroup& LoadedConsumerGroup(Shard& s, const std::string& id) REQUIRES(s.mu);
  ConsumerGroup* FindConsumerGroup(Shard& s, const std::string& id) REQUIRES(s.mu) {
    auto it = s.consumer_groups.find(id);
    return it == s.consumer_groups.end() ? nullptr : it->second.get();
  }

  // Whether `m` has a partition (assigned or pending revocation) that another member of `g`
  // has, or one both assigned and pending: ConsumerGroup::UpdateMember's precondition,
  // checked on records read from disk.
  static bool OwnedByAnotherMember(const ConsumerGroup& g, const ConsumerGroupMember& m);

  // A consumer group record at load: applied as Kafka's replay applies it.
  void ReplayConsumerGroup(Shard& s, const LoadedConsumerGroupRecord& rec) REQUIRES(s.mu);

  // A record at load, at `record_offset` in a batch of `producer_id` (Kafka's OMM replay): an
  // offset of a producer's batch is pending until that producer's marker.
  void Replay(Shard& s, const LoadedOffsetsRecord& rec, const std::string& tp,
              int64_t record_offset, int64_t producer_id) REQUIRES(s.mu);

  static bool HasCommittedOffset(Shard& s, const std::string& group, const OffsetPartitionKey& key)
      REQUIRES(s.mu);

  // An OffsetCommit tombstone: the committed offset and every pending one of the partition go.
  void ApplyOffsetTombstone(Shard& s, const std::string& group, const OffsetPartitionKey& key)
      REQUIRES(s.mu);

  // A transaction's end for `producer_id`: COMMIT makes its pending offsets committed (where
  // they are later than the committed ones), ABORT drops them.
  void ReplayEndTransaction(Shard& s, int64_t producer_id, bool commit) REQUIRES(s.mu) {
    OffsetsByGroup taken = s.pending.Take(producer_id);
    if (commit) CommitPendingOffsets(std::move(taken), &s.offsets);
  }

  // A control batch at load: a COMMIT or ABORT marker is applied; other control records (none
  // are written to this topic) are ignored.
  void ReplayControlBatch(Shard& s, const RecordBatchView& batch, const std::string& tp)
      REQUIRES(s.mu);

  // ---- Timers ----

  static std::string HeartbeatKey(const ClassicGroup& g, const std::string& member) {
    return "heartbeat-" + g.group_id() + "-" + member;
  }
  static std::string JoinKey(const ClassicGroup& g) { return "join-" + g.group_id(); }
  static std::string SyncKey(const ClassicGroup& g) { return "sync-" + g.group_id(); }

  // A consumer member that could not be fenced (its removal was not written) is tried again
  // this long after.
  static constexpr int64_t kConsumerFenceRetryBackoffMs = 1000;

  static bool IsConsumerTimer(Timer::Kind kind) {
    return kind == Timer::Kind::kConsumerSession || kind == Timer::Kind::kConsumerRevocation ||
           kind == Timer::Kind::kConsumerClassicJoin || kind == Timer::Kind::kConsumerClassicSync;
  }
  // Timers whose failed write is tried again (the member stays until its removal is written).
  static bool IsRetriedTimer(Timer::Kind kind) {
    return IsConsumerTimer(kind) || kind == Timer::Kind::kShareSession ||
           kind == Timer::Kind::kStreamsSession;
  }

  // Schedules `t` on the shard's timer under `key`, replacing the key's timer. A consumer
  // member's timer is retried while the member's removal fails to be written.
  void StartTimer(Shard& s, const std::string& key, int64_t delay_ms, Timer t) REQUIRES(s.mu);
  void CancelTimer(Shard& s, const std::string& key) REQUIRES(s.mu) { s.timer.Cancel(&s.mu, key); }

  // A timer expired: a non-OK Status when its write failed.
  Status Fire(Shard& s, const Timer& t, Completions* done) REQUIRES(s.mu);

  // ---- The classic protocol ----

  int16_t ValidateMember(ClassicGroup& g, const std::string& member_id,
                         const std::optional<std::string>& instance_id);

  bool AcceptJoiningMember(ClassicGroup& g, const std::string& member_id);

  void ResetHeartbeat(Shard& s, ClassicGroup& g, const ClassicGroupMember& m) REQUIRES(s.mu);

  void PrepareRebalance(Shard& s, ClassicGroup& g, const std::string& reason, Completions* done)
      REQUIRES(s.mu);

  void MaybeCompleteJoin(Shard& s, ClassicGroup& g, Completions* done) REQUIRES(s.mu);

  void CompleteJoin(Shard& s, ClassicGroup& g, Completions* done) REQUIRES(s.mu);

  static std::vector<protocol::JoinGroupResponseData::JoinGroupResponseMember> MemberList(
      const ClassicGroup& g);

  void ExpirePendingSync(Shard& s, ClassicGroup& g, int32_t generation, Completions* done)
      REQUIRES(s.mu);

  void RemoveMemberAndUpdate(Shard& s, ClassicGroup& g, const std::string& member_id,
                             const std::string& reason, Completions* done) REQUIRES(s.mu);

  void ExpireMember(Shard& s, ClassicGroup& g, const std::string& member_id, Completions* done)
      REQUIRES(s.mu);

  void AddMemberThenRebalanceOrCompleteJoin(Shard& s, ClassicGroup& g, ClassicGroupMember member,
                                            Completions* done) REQUIRES(s.mu);

  void UpdateMemberThenRebalanceOrCompleteJoin(Shard& s, ClassicGroup& g, ClassicGroupMember& m,
                                               const protocol::JoinGroupRequestData& req,
                                               int32_t rebalance_timeout, JoinGroupDone cb,
                                               const std::string& reason, Completions* done)
      REQUIRES(s.mu);

  static bool SameProtocols(const ClassicGroupMember& m, const protocol::JoinGroupRequestData& req);

  JoinGroupResponseData CurrentGeneration(const ClassicGroup& g, const std::string& member_id,
                                          bool with_members);

  void JoinGroup(int16_t version, const Client& client, const protocol::JoinGroupRequestData& req,
                 JoinGroupDone cb);

  void JoinLocked(Shard& s, int16_t version, const Client& client,
                  const protocol::JoinGroupRequestData& req, const JoinGroupDone& cb,
                  const std::function<void(JoinGroupResponseData)>& reply, Completions* done)
      REQUIRES(s.mu);

  // The "empty" record of a group this join created (Kafka writes it when that join itself
  // writes nothing).
  void RecordCreation(Shard& s, bool created, const ClassicGroup& g, int64_t created_ms)
      REQUIRES(s.mu) {
    if (created) (void)Append(s, {EmptyGroupMetadataRecord(g.group_id(), created_ms)});
  }

  void ReplaceStaticMember(Shard& s, ClassicGroup& g, const std::string& old_id,
                           const std::string& new_id, const protocol::JoinGroupRequestData& req,
                           int32_t rebalance_timeout, const JoinGroupDone& cb,
                           const std::function<void(JoinGroupResponseData)>& reply,
                           Completions* done) REQUIRES(s.mu);

  // The protocol the group would select if `member_id` offered `probe`'s protocols.
  static std::string SelectWith(const ClassicGroup& g, const std::string& member_id,
                                const ClassicGroupMember& probe);

  void SyncGroup(int16_t version, const protocol::SyncGroupRequestData& req, SyncGroupDone cb);

  void SyncLocked(Shard& s, const protocol::SyncGroupRequestData& req, const SyncGroupDone& cb,
                  const std::function<void(SyncGroupResponseData)>& reply, Completions* done)
      REQUIRES(s.mu);

  int16_t Heartbeat(const std::string& group_id, int32_t generation, const std::string& member_id,
                    const std::optional<std::string>& instance_id);

  LeaveResult LeaveGroup(const std::string& group_id, const std::vector<LeavingMember>& members);

  void LeaveLocked(Shard& s, const std::string& group_id, const std::vector<LeavingMember>& members,
                   LeaveResult* out, Completions* done) REQUIRES(s.mu);

  // ---- Offsets ----

  void CommitOffsets(int16_t version, const std::string& group_id, int32_t generation,
                     const std::string& member_id, const std::optional<std::string>& instance_id,
                     int64_t retention_ms, std::vector<CommitPartition>* partitions);

  // TxnOffsetCommit's group check (Kafka's OMM validateTransactionalOffsetCommit and the
  // groups' validateOffsetCommit with isTransactional): 0, or the error of every partition.
  // An unknown group with a generation < 0 is created as a simple group.
  int16_t ValidateTransactionalCommit(Shard& s, int16_t version, const std::string& group_id,
                                      int32_t generation, const std::string& member_id,
                                      const std::optional<std::string>& instance_id,
                                      const std::vector<CommitPartition>& partitions)
      REQUIRES(s.mu);

  bool MetadataTooLarge(const CommitPartition& p) const {
    return JavaStringLength(p.metadata.value_or("")) >
           static_cast<size_t>(config_.offset_metadata_max_bytes);
  }

  // Whether the partition is `m`'s (assigned or being revoked) since at most `epoch`: a
  // commit at an older epoch than the member's may still commit it (Kafka's assignment epoch
  // validator).
  bool AssignedSince(const ConsumerGroupMember& m, const CommitPartition& p, int32_t epoch);

  void CommitTransactionalOffsets(int16_t version, const std::string& group_id, int64_t producer_id,
                                  int16_t producer_epoch, int32_t generation,
                                  const std::string& member_id,
                                  const std::optional<std::string>& instance_id,
                                  std::vector<CommitPartition>* partitions);

  int16_t CompleteTransaction(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                              int32_t coordinator_epoch, bool commit);

  FetchResult FetchOffsets(const std::string& group_id,
                           const std::optional<std::vector<FetchTopic>>& topics,
                           const std::optional<std::string>& member_id, int32_t member_epoch,
                           bool require_stable);

  // ---- KIP-848 consumer groups ----

  static std::string ConsumerSessionKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-session-{}-{}", group, member);
  }
  static std::string ConsumerRevocationKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-revocation-{}-{}", group, member);
  }
  static std::string ConsumerClassicJoinKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-join-{}-{}", group, member);
  }
  static std::string ConsumerClassicSyncKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-sync-{}-{}", group, member);
  }

  // The member's session timeout: the group's, or a classic member's own.
  int32_t SessionTimeoutMs(const ConsumerGroupMember& m) const {
    return m.classic ? m.classic->session_timeout_ms : config_.group_consumer_session_timeout_ms;
  }
  void StartConsumerSession(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m)
      REQUIRES(s.mu);
  // A classic member told REBALANCE_IN_PROGRESS must join again within its rebalance timeout
  // (started once, not moved by later answers).
  void StartClassicJoinTimeout(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m)
      REQUIRES(s.mu);

  // The member's session timeout and, while it has partitions to revoke, its rebalance
  // timeout (from now: after a load, or when it starts revoking).
  void StartConsumerTimers(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m,
                           bool revoking_since_now) REQUIRES(s.mu);

  void CancelConsumerTimers(Shard& s, const std::string& group, const std::string& member)
      REQUIRES(s.mu);

  std::optional<std::string> TopicName(const Uuid& id) const {
    return logs_->TopicNameForId(id.ToString());
  }

  // Removes `members` from the consumer group `g` (they left or were fenced): with their
  // tombstones and a group epoch bump - or, when only classic members remain and the policy
  // allows it, by turning the group into a classic group (Downgrade). `g` changes only once
  // the records are written.
  Status RemoveConsumerMembers(Shard& s, ConsumerGroup& g, const std::set<std::string>& members,
                               const std::string& reason, Completions* done) REQUIRES(s.mu);

  // The consumer group `g` (the shard's, or a new state of it: `prefix` are the records that
  // make it so, written in the same batch) becomes a classic group of its members other than
  // `leaving` (all classic members), which then rebalances unless `rebalance` is false (Kafka's
  // convertToClassicGroup). InvalidArgument (nothing written) when a member's protocol
  // metadata cannot be read.
  Status Downgrade(Shard& s, const ConsumerGroup& g, const std::set<std::string>& leaving,
                   const std::string& reason, Completions* done,
                   std::vector<OffsetsRecord> prefix = {}, bool rebalance = true) REQUIRES(s.mu);

  // A consumer member's session ran out, it did not revoke its partitions in time, or a
  // classic member did not join or sync in time: it is removed (the others get its partitions
  // at their next heartbeat), which may downgrade the group.
  Status FireConsumer(Shard& s, const Timer& t, Completions* done) REQUIRES(s.mu);

  std::optional<ConsumerGroupTopic> TopicByName(const std::string& name) const;

  ConsumerGroupHeartbeatContext HeartbeatContext(const Client& client);

  // The version of the topics' metadata the coordinator resolves regular expressions at (the
  // Version of record type 16; Kafka's metadata image offset): it moves when a topic is
  // created, and at load above every version on disk.
  int64_t MetadataVersion() const {
    return metadata_version_base_.load(std::memory_order_acquire) + logs_->topics_created();
  }
  void RaiseMetadataVersionAbove(int64_t version);

  // After a write that changed the consumer group `g`: starts a resolution of its regular
  // expressions when one is due (RegularExpressionRefreshDue) and none is running (Kafka's
  // executor task "<group>-regex"). It runs on the scheduler: the topics are listed and
  // matched without the shard's lock, and the result is applied to the group as it is then.
  void MaybeRefreshRegularExpressions(Shard& s, const ConsumerGroup& g, bool required)
      REQUIRES(s.mu);

  void RefreshRegularExpressions(Shard& s, const std::string& group_id,
                                 const std::set<std::string>& regexes) EXCLUDES(s.mu);

  // A classic member's JoinGroup into the non-empty consumer group `g`.
  void JoinToConsumerGroup(Shard& s, ConsumerGroup& g, int16_t version, const Client& client,
                           const protocol::JoinGroupRequestData& req, int32_t rebalance_timeout,
                           const std::function<void(JoinGroupResponseData)>& reply,
                           Completions* done) REQUIRES(s.mu);

  // LeaveGroup of members of a consumer group (classic members, or any by instance id).
  void LeaveConsumerGroup(Shard& s, ConsumerGroup& g, const std::vector<LeavingMember>& members,
                          LeaveResult* out, Completions* done) REQUIRES(s.mu);

  protocol::ConsumerGroupHeartbeatResponseData ConsumerGroupHeartbeat(
      int16_t version, const Client& client,
      const protocol::ConsumerGroupHeartbeatRequestData& req);

  // Kafka's validateOnlineUpgrade: nullopt, or why the live classic group `c` cannot become a
  // consumer group.
  std::optional<std::string> CannotUpgrade(const ClassicGroup& c) const;

  protocol::ConsumerGroupHeartbeatResponseData HeartbeatLocked(
      Shard& s, int16_t version, const Client& client,
      const protocol::ConsumerGroupHeartbeatRequestData& req, Completions* done) REQUIRES(s.mu);

  protocol::ConsumerGroupDescribeResponseData::DescribedGroup DescribeConsumerGroup(
      const std::string& group_id);

  // OffsetCommit's group check for a consumer group (Kafka's ConsumerGroup
  // .validateOffsetCommit): 0, or the error for every partition; per-partition errors go into
  // the partitions.
  int16_t ValidateConsumerCommit(const ConsumerGroup& g, int16_t version, int32_t epoch,
                                 const std::string& member_id,
                                 std::vector<CommitPartition>* partitions);

  // ---- KIP-932 share groups (group_coordinator_share.cc) ----

  static std::string ShareSessionKey(const std::string& group, const std::string& member) {
    return fmt::format("share-session-{}-{}", group, member);
  }
  void StartShareSession(Shard& s, const std::string& group, const std::string& member)
      REQUIRES(s.mu);

  ShareGroup* FindShareGroup(Shard& s, const std::string& id) REQUIRES(s.mu) {
    auto it = s.share_groups.find(id);
    return it == s.share_groups.end() ? nullptr : it->second.get();
  }
  // The share group `id` of a record being loaded, created if new (it replaces a classic or
  // consumer group of that id: the records say it became one).
  ShareGroup& LoadedShareGroup(Shard& s, const std::string& id) REQUIRES(s.mu);
  void ReplayShareGroup(Shard& s, const LoadedShareGroupRecord& rec) REQUIRES(s.mu);

  ShareGroupHeartbeatContext ShareContext(const Client& client);

  void SetShareStateAdmin(std::shared_ptr<ShareStateAdmin> admin) EXCLUDES(share_hooks_mu_) {
    MutexLock l(&share_hooks_mu_);
    share_admin_ = std::move(admin);
  }
  void SetShareGroupListener(std::shared_ptr<ShareGroupListener> listener)
      EXCLUDES(share_hooks_mu_) {
    MutexLock l(&share_hooks_mu_);
    share_listener_ = std::move(listener);
  }
  std::shared_ptr<ShareStateAdmin> ShareAdmin() EXCLUDES(share_hooks_mu_) {
    MutexLock l(&share_hooks_mu_);
    return share_admin_;
  }
  std::shared_ptr<ShareGroupListener> ShareListener() EXCLUDES(share_hooks_mu_) {
    MutexLock l(&share_hooks_mu_);
    return share_listener_;
  }
  // Queues the listener's call for a member that left or was fenced (run after the unlock).
  void NotifyShareMemberLeft(const std::string& group, const std::string& member,
                             Completions* done);

  protocol::ShareGroupHeartbeatResponseData ShareGroupHeartbeat(
      const Client& client, const protocol::ShareGroupHeartbeatRequestData& req);

  // The initialization a heartbeat asked for, run after its shard's mutex is released.
  struct PendingShareInitialization {
    std::string group;
    int32_t state_epoch = 0;
    ShareStateTopics topics;
  };
  protocol::ShareGroupHeartbeatResponseData ShareHeartbeatLocked(
      Shard& s, const Client& client, const protocol::ShareGroupHeartbeatRequestData& req,
      Completions* done, PendingShareInitialization* init) REQUIRES(s.mu);

  // Calls the ShareStateAdmin (without the shard's mutex), then records the outcome: the
  // partitions become initialized, or go back to uninitialized on a failure.
  void InitializeShareState(Shard& s, const PendingShareInitialization& init) EXCLUDES(s.mu);

  // A share member's session ran out: it is fenced.
  Status FireShare(Shard& s, const Timer& t, Completions* done) REQUIRES(s.mu);

  protocol::ShareGroupDescribeResponseData::DescribedGroup DescribeShareGroup(
      const std::string& group_id);

  // ---- KIP-932 share group offsets (group_coordinator_share_offsets.cc) ----
  // Each takes the shard's mutex only around its reads and appends, never around the
  // ShareStateAdmin or the partition logs.
  protocol::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup
  DescribeShareGroupOffsets(
      const protocol::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup&
          req);
  protocol::AlterShareGroupOffsetsResponseData AlterShareGroupOffsets(
      const protocol::AlterShareGroupOffsetsRequestData& req);
  protocol::DeleteShareGroupOffsetsResponseData DeleteShareGroupOffsets(
      const protocol::DeleteShareGroupOffsetsRequestData& req);
  // The summary of `topics` with their lag computed (DescribeShareGroupOffsets' last step).
  protocol::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup
  ShareOffsetsFromSummary(const std::string& group_id,
                          const std::vector<ShareStateAdmin::TopicPartitions>& topics,
                          const std::map<Uuid, std::string, UuidLess>& names);

  // DeleteGroups of a share group (the shard's mutex is released around the share-state
  // deletion, so the group is looked up again).
  int16_t DeleteShareGroup(Shard& s, const std::string& group_id) EXCLUDES(s.mu);

  // ---- KIP-1071 streams groups (group_coordinator_streams.cc) ----

  static std::string StreamsSessionKey(const std::string& group, const std::string& member) {
    return fmt::format("streams-session-{}-{}", group, member);
  }
  void StartStreamsSession(Shard& s, const std::string& group, const std::string& member)
      REQUIRES(s.mu);
  static std::string StreamsInitialDelayKey(const std::string& group) {
    return fmt::format("streams-initial-rebalance-{}", group);
  }
  // The initial rebalance delay ended: the group's first target assignment.
  Status FireStreamsInitialDelay(Shard& s, const Timer& t) REQUIRES(s.mu);
  StreamsGroup* FindStreamsGroup(Shard& s, const std::string& id) REQUIRES(s.mu) {
    auto it = s.streams_groups.find(id);
    return it == s.streams_groups.end() ? nullptr : it->second.get();
  }
  // Whether `id` names a group of a type other than streams.
  static bool OtherThanStreams(Shard& s, const std::string& id) REQUIRES(s.mu) {
    return s.groups.count(id) || s.consumer_groups.count(id) || s.share_groups.count(id);
  }
  // A streams group record at load (types 17-23; 18 is ignored).
  void ReplayStreamsGroup(Shard& s, const LoadedStreamsGroupRecord& rec, const std::string& tp,
                          int64_t offset) REQUIRES(s.mu);
  // Every topic with its partition count (the heartbeat's metadata snapshot).
  TopicPartitionCounts TopicCounts() const;
  StreamsGroupHeartbeatResult StreamsGroupHeartbeat(
      int16_t version, const Client& client, const protocol::StreamsGroupHeartbeatRequestData& req);
  StreamsGroupHeartbeatResult StreamsHeartbeatLocked(
      Shard& s, int16_t version, const Client& client,
      const protocol::StreamsGroupHeartbeatRequestData& req, const TopicPartitionCounts& topics)
      REQUIRES(s.mu);
  std::map<std::string, std::string> CreateStreamsInternalTopics(
      const std::map<std::string, StreamsInternalTopic>& topics);
  Status FireStreams(Shard& s, const Timer& t) REQUIRES(s.mu);
  StreamsDescribedGroup DescribeStreams(const std::string& group_id);
  protocol::StreamsGroupTopologyDescriptionUpdateResponseData StreamsTopologyDescriptionUpdate(
      const protocol::StreamsGroupTopologyDescriptionUpdateRequestData& req);
  // OffsetCommit / TxnOffsetCommit's check for a streams group (Kafka's StreamsGroup
  // .validateOffsetCommit): 0, or the error of every partition; the assignment-epoch check of
  // an older epoch fills per-partition errors.
  int16_t ValidateStreamsCommit(const StreamsGroup& g, int16_t version, bool transactional,
                                int32_t epoch, const std::string& member_id,
                                const std::optional<std::string>& instance_id,
                                std::vector<CommitPartition>* partitions);

  // ---- Listing, describing, deleting ----

  // Committed offsets held, over every group (GroupMetadataManager's NumOffsets).
  int64_t NumOffsets();
  std::vector<ListedGroup> ListGroups(const std::vector<std::string>& states_filter,
                                      const std::vector<std::string>& types_filter);

  std::optional<protocol::DescribeGroupsResponseData::DescribedGroup> DescribeGroup(
      const std::string& group_id, int16_t* error);

  int16_t DeleteGroup(const std::string& group_id);

  // DeleteGroups' offsets part: the tombstones of every committed offset of `group` and of
  // every partition with only a pending transactional one (`*count`: how many); once they are
  // written, DropGroupOffsets forgets them.
  std::vector<OffsetsRecord> GroupOffsetTombstones(Shard& s, const std::string& group,
                                                   size_t* count) REQUIRES(s.mu);
  void DropGroupOffsets(Shard& s, const std::string& group) REQUIRES(s.mu);

  // The topics a "consumer" group's members subscribe to, from their protocol metadata
  // (ConsumerProtocolSubscription); nullopt when some member's cannot be read (then every
  // topic counts as subscribed, as in Kafka).
  static std::optional<std::set<std::string>> SubscribedTopics(const ClassicGroup& g);

  DeleteOffsetsResult DeleteOffsets(const std::string& group_id,
                                    const std::vector<TopicPartition>& partitions);

  // ---- Expiry ----

  void ExpireOffsets();

  void OnTopicDeleted(const std::string& topic);

  void Shutdown();

 private:
  const GroupCoordinatorConfig config_;
  LogManager* const logs_;
  Scheduler* const scheduler_;
  // See MetadataVersion().
  std::atomic<int64_t> metadata_version_base_{0};
  const Logger logger_;  // with the "[GroupCoordinator] " prefix
  // Filled by Open, then never changed (each shard guards itself).
  std::vector<std::unique_ptr<Shard>> shards_;
  InternalTopic topic_;
  std::atomic<bool> shut_down_{false};
  Mutex share_hooks_mu_;
  std::shared_ptr<ShareStateAdmin> share_admin_ GUARDED_BY(share_hooks_mu_);
  std::shared_ptr<ShareGroupListener> share_listener_ GUARDED_BY(share_hooks_mu_);
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_GROUP_COORDINATOR_CORE_H_
