// GroupCoordinator: Kafka's group coordinator for one node - the classic group protocol
// (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), KIP-848's consumer groups
// (ConsumerGroupHeartbeat, ConsumerGroupDescribe; consumer_group_heartbeat.h) beside them,
// KIP-932's share groups (ShareGroupHeartbeat, ShareGroupDescribe; share_group_heartbeat.h), and
// committed offsets (OffsetCommit,
// OffsetFetch, OffsetDelete; TxnOffsetCommit's pending offsets and the transaction markers of
// __consumer_offsets), the groups' listing, description and deletion, all stored in the
// compacted __consumer_offsets topic with Kafka's record schemas (offsets_records.h), so a Kafka
// broker given the same log directory - or Kafka's DumpLogSegments --offsets-decoder - sees the
// same groups and offsets.
//
// Shards: one per __consumer_offsets partition; a group lives in the shard of
// CoordinatorPartitionFor(group id) (Kafka's partitionFor). A shard's mutex serialises the
// operations on its groups and the appends of their records to its partition, in the order the
// operations happened (as Kafka's per-partition coordinator event loop does); requests of other
// shards do not wait for it. Answers that wait for a rebalance (JoinGroup, SyncGroup) are
// callbacks, called after the shard's mutex is released, on the thread of whichever request or
// timer moved the group on.
//
// Records are appended before the operation answers (Kafka answers once the high watermark
// passes them; with one replica that is the append). State changes follow Kafka's
// GroupMetadataManager (docs/design/group_coordinator.md), timers run on the Scheduler:
// the initial-rebalance delay, the join and pending-sync timeouts (the group's rebalance
// timeout) and every member's session timeout; offsets expire every
// offsets.retention.check.interval.ms.
//
// Lifecycle: Open() loads every partition of __consumer_offsets that exists (skipping unknown
// record types with a log line, failing a partition with a corrupt record: its groups then
// answer NOT_COORDINATOR); the topic itself is created at the first request that needs it
// (offsets.topic.num.partitions partitions, cleanup.policy=compact). Shutdown() answers the
// waiting JoinGroups and SyncGroups with NOT_COORDINATOR, as Kafka does when it unloads.
//
// Thread safety: thread-safe.
#ifndef SEGLOG_GROUP_GROUP_COORDINATOR_H_
#define SEGLOG_GROUP_GROUP_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"
#include "group/group_coordinator_config.h"
#include "group/share_state_admin.h"
#include "group/streams_group_describe.h"
#include "group/streams_group_heartbeat.h"
#include "protocol/generated/alter_share_group_offsets_request.h"
#include "protocol/generated/alter_share_group_offsets_response.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"
#include "protocol/generated/delete_share_group_offsets_request.h"
#include "protocol/generated/delete_share_group_offsets_response.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/describe_share_group_offsets_request.h"
#include "protocol/generated/describe_share_group_offsets_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/share_group_describe_response.h"
#include "protocol/generated/share_group_heartbeat_request.h"
#include "protocol/generated/share_group_heartbeat_response.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"
#include "protocol/generated/streams_group_topology_description_update_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/scheduler.h"
#include "seglog/topic_partition.h"

namespace seglog {

class LogManager;

inline constexpr const char* kConsumerOffsetsTopic = "__consumer_offsets";

class GroupCoordinator {
 public:
  // Loads the groups and offsets of every existing __consumer_offsets partition. `logs` and
  // `scheduler` must outlive the coordinator. `logger` gets Kafka-worded lines (may discard).
  static Result<std::unique_ptr<GroupCoordinator>> Open(const GroupCoordinatorConfig& config,
                                                        LogManager* logs, Scheduler* scheduler,
                                                        Logger logger);
  ~GroupCoordinator();  // Shutdown()
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // Answers every waiting JoinGroup and SyncGroup with NOT_COORDINATOR; later calls answer
  // NOT_COORDINATOR too. Idempotent.
  void Shutdown();

  // FindCoordinator's part: creates __consumer_offsets if it does not exist. An error (the
  // disk, a read-only node) leaves it to be tried again by the next request.
  Status EnsureOffsetsTopic();
  // The __consumer_offsets partition of a group.
  int32_t PartitionFor(std::string_view group_id) const;

  // Who sent a request (for member ids and DescribeGroups).
  struct Client {
    std::string client_id;    // the request header's
    std::string client_host;  // "/127.0.0.1"
  };

  // JoinGroup at `version`: `done` is called once, now or when the join phase completes.
  using JoinGroupDone = std::function<void(protocol::JoinGroupResponseData)>;
  void JoinGroup(int16_t version, const Client& client, const protocol::JoinGroupRequestData& req,
                 JoinGroupDone done);
  using SyncGroupDone = std::function<void(protocol::SyncGroupResponseData)>;
  void SyncGroup(int16_t version, const protocol::SyncGroupRequestData& req, SyncGroupDone done);
  // The Heartbeat's error code.
  int16_t Heartbeat(const std::string& group_id, int32_t generation, const std::string& member_id,
                    const std::optional<std::string>& group_instance_id);
  // LeaveGroup, normalised: v0-2's single member is a one-member list.
  struct LeavingMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
  };
  struct LeaveResult {
    int16_t error_code = 0;  // the group's (COORDINATOR_NOT_AVAILABLE ...)
    std::vector<int16_t> member_errors;
  };
  LeaveResult LeaveGroup(const std::string& group_id, const std::vector<LeavingMember>& members);

  // ConsumerGroupHeartbeat (KIP-848) at `version`: joins, heartbeats, leaves; the answer
  // carries the member's epoch and, when it changed, its assignment.
  protocol::ConsumerGroupHeartbeatResponseData ConsumerGroupHeartbeat(
      int16_t version, const Client& client,
      const protocol::ConsumerGroupHeartbeatRequestData& req);
  // ConsumerGroupDescribe of one group (GROUP_ID_NOT_FOUND for one that is not a consumer
  // group).
  protocol::ConsumerGroupDescribeResponseData::DescribedGroup DescribeConsumerGroup(
      const std::string& group_id);

  // ShareGroupHeartbeat (KIP-932, v1): joins (epoch 0, the client's member id), heartbeats,
  // leaves (-1); the answer carries the member's epoch and, when it changed, its assignment
  // (only partitions whose share state exists). Partitions of the subscribed topics without
  // share state are initialized through the ShareStateAdmin before it answers (then given at
  // a later heartbeat). Errors as Kafka's: INVALID_REQUEST, GROUP_ID_NOT_FOUND ("Group X is not
  // a share group." for another type), UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
  // GROUP_MAX_SIZE_REACHED, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR ... The broker checks
  // authorization and share.version before calling.
  protocol::ShareGroupHeartbeatResponseData ShareGroupHeartbeat(
      const Client& client, const protocol::ShareGroupHeartbeatRequestData& req);
  // ShareGroupDescribe of one group (GROUP_ID_NOT_FOUND "Group X not found." / "Group X is not
  // a share group."; INVALID_GROUP_ID for an empty id).
  protocol::ShareGroupDescribeResponseData::DescribedGroup DescribeShareGroup(
      const std::string& group_id);
  // KIP-932's share group offset admin APIs (group_coordinator_share_offsets.cc), as Kafka
  // 4.4.0's GroupCoordinatorService answers them; the broker checks authorization and
  // share.version before calling.
  //
  // DescribeShareGroupOffsets of one group: `topics` null: every initialized share-partition of
  // the group; else the named ones (an unknown topic: start offset -1, no id). Start offset and
  // leader epoch from the share state summary, lag = high watermark - start offset - delivery
  // complete count, -1 when any of them is unknown.
  protocol::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup
  DescribeShareGroupOffsets(
      const protocol::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup&
          req);
  // AlterShareGroupOffsets: the share group (created if absent) must have no members
  // (NON_EMPTY_GROUP, nothing changed); the partitions become initializing (type 15), their
  // share state is initialized at the given start offsets with the group epoch as state epoch,
  // then they are initialized. Per-partition UNKNOWN_TOPIC_OR_PARTITION for unknown topics and
  // partitions, and the share coordinator's error for partitions it failed.
  protocol::AlterShareGroupOffsetsResponseData AlterShareGroupOffsets(
      const protocol::AlterShareGroupOffsetsRequestData& req);
  // DeleteShareGroupOffsets: the share group must exist (GROUP_ID_NOT_FOUND) and be empty
  // (NON_EMPTY_GROUP); each named topic's share state is deleted (initialized -> deleting,
  // deleted, then forgotten). Topics without share state: UNKNOWN_TOPIC_OR_PARTITION "There is
  // no offset information to delete.".
  protocol::DeleteShareGroupOffsetsResponseData DeleteShareGroupOffsets(
      const protocol::DeleteShareGroupOffsetsRequestData& req);
  // Who creates and deletes share state (the share coordinator) and who hears of members
  // leaving (the broker's share sessions); see share_state_admin.h. Either may be null (the
  // default): share state then needs nothing done, and nobody is told.
  void SetShareStateAdmin(std::shared_ptr<ShareStateAdmin> admin);
  void SetShareGroupListener(std::shared_ptr<ShareGroupListener> listener);

  // StreamsGroupHeartbeat (KIP-1071, v0-1) at `version` (streams_group_heartbeat.h): the
  // answer, and the internal topics the broker then creates (CreateStreamsInternalTopics)
  // once it checked CREATE. GROUP_ID_NOT_FOUND "Group X is not a streams group." for another
  // type. The broker checks authorization and streams.version before calling.
  StreamsGroupHeartbeatResult StreamsGroupHeartbeat(
      int16_t version, const Client& client, const protocol::StreamsGroupHeartbeatRequestData& req);
  // Creates the internal topics a heartbeat asked for, with their partition counts and
  // configs (the replication factor is ignored on one node); the next heartbeat sees them.
  // Returns topic -> error message for those that failed (an existing topic is no failure).
  std::map<std::string, std::string> CreateStreamsInternalTopics(
      const std::map<std::string, StreamsInternalTopic>& topics);
  // StreamsGroupDescribe of one group (GROUP_ID_NOT_FOUND "Group X not found." / "Group X is
  // not a streams group."; INVALID_GROUP_ID for an empty id).
  StreamsDescribedGroup DescribeStreamsGroup(const std::string& group_id);
  // StreamsGroupTopologyDescriptionUpdate (API 93), as far as seglog goes: the request and
  // the member are checked as Kafka's validateStreamsGroupTopologyDescriptionUpdate does; the
  // description itself is not stored (KIP-1331's plugin is not there).
  protocol::StreamsGroupTopologyDescriptionUpdateResponseData StreamsGroupTopologyDescriptionUpdate(
      const protocol::StreamsGroupTopologyDescriptionUpdateRequestData& req);

  // OffsetCommit of partitions whose topics the broker has checked exist. Each partition's
  // error_code is filled in (the group's error, OFFSET_METADATA_TOO_LARGE, or 0: committed).
  struct CommitPartition {
    std::string topic;
    Uuid topic_id;
    int32_t partition = 0;
    int64_t offset = 0;
    int32_t leader_epoch = -1;
    std::optional<std::string> metadata;
    int16_t error_code = 0;
  };
  void CommitOffsets(int16_t version, const std::string& group_id, int32_t generation,
                     const std::string& member_id,
                     const std::optional<std::string>& group_instance_id, int64_t retention_ms,
                     std::vector<CommitPartition>* partitions);

  // TxnOffsetCommit (the broker has checked the topics exist and that __consumer_offsets-
  // PartitionFor(group) is in the producer's transaction). Writes each offset as an ordinary
  // OffsetCommit record in a *transactional* batch of the producer (pid/epoch, base sequence 0
  // as Kafka's coordinator writes it), kept pending - invisible to OffsetFetch - until the
  // marker. Each partition's error_code is filled in (the group's error,
  // OFFSET_METADATA_TOO_LARGE, or 0: pending). The group check is Kafka's for TxnOffsetCommit:
  // an unknown group with a generation < 0 becomes a simple group (else GROUP_ID_NOT_FOUND
  // from v6, ILLEGAL_GENERATION before); a classic group checks the member and generation when
  // any member field is given; a consumer group checks the member epoch (UNKNOWN_MEMBER_ID,
  // STALE_MEMBER_EPOCH from v6, ILLEGAL_GENERATION before). A partition whose error_code is
  // already set is left alone.
  void CommitTransactionalOffsets(int16_t version, const std::string& group_id, int64_t producer_id,
                                  int16_t producer_epoch, int32_t generation_or_member_epoch,
                                  const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id,
                                  std::vector<CommitPartition>* partitions);
  // A transaction marker for __consumer_offsets-`partition` from the transaction coordinator:
  // appends the COMMIT/ABORT control batch (AppendOrigin::kCoordinator; the log's producer
  // state checks the epochs) and applies it: COMMIT makes the producer's pending offsets
  // committed (only where the pending record's offset is above the committed one's), ABORT
  // drops them. Returns Kafka's error code for the marker: 0; NOT_LEADER_OR_FOLLOWER for an
  // unavailable shard (Kafka maps COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS and
  // NOT_COORDINATOR to it); INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED from the
  // log's producer state; UNKNOWN_TOPIC_OR_PARTITION for a partition the topic does not have;
  // another append failure's code (KAFKA_STORAGE_ERROR ...).
  // REQUIRES: the broker has checked the partition is online (this does not create the topic
  // unless it is missing).
  int16_t CompleteTransaction(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                              int32_t coordinator_epoch, bool commit);

  // OffsetFetch of one group: the requested partitions (nullopt: every committed one).
  struct FetchTopic {
    std::string topic;
    std::vector<int32_t> partitions;
  };
  struct FetchedOffset {
    std::string topic;
    Uuid topic_id;  // as recorded with the commit (zero if unknown)
    int32_t partition = 0;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::string metadata;
    int16_t error_code = 0;
  };
  struct FetchResult {
    int16_t error_code = 0;  // the group's
    std::vector<FetchedOffset> offsets;
  };
  // `member_id` and `member_epoch` (OffsetFetch v9+) are checked against a consumer group's
  // member (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH) unless the id is null and the epoch < 0.
  // Pending transactional offsets are never answered: with `require_stable` (OffsetFetch v7+)
  // a partition that has one answers UNSTABLE_OFFSET_COMMIT with offset -1; without it, the
  // last committed offset.
  FetchResult FetchOffsets(const std::string& group_id,
                           const std::optional<std::vector<FetchTopic>>& topics,
                           const std::optional<std::string>& member_id = std::nullopt,
                           int32_t member_epoch = -1, bool require_stable = false);

  // ListGroups: states and types filters as the request's (empty: all; compared ignoring
  // case).
  struct ListedGroup {
    std::string group_id;
    std::string protocol_type;
    std::string state;
    std::string type;  // "classic", "consumer", "share" or "streams"
  };
  std::vector<ListedGroup> ListGroups(const std::vector<std::string>& states_filter,
                                      const std::vector<std::string>& types_filter);
  // Committed offsets held, over every group (GroupMetadataManager's NumOffsets).
  int64_t NumOffsets();
  // DescribeGroups of one group: found (its state and members) or not (nullopt; *error is then
  // 0 for an unknown group, or the coordinator's error).
  std::optional<protocol::DescribeGroupsResponseData::DescribedGroup> DescribeGroup(
      const std::string& group_id, int16_t* error);
  // DeleteGroups of one group: the error code (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, or 0 with
  // its offsets and metadata tombstoned). A share group's share state is deleted first
  // (ShareStateAdmin::DeleteShareState; its failure is the group's error, nothing else goes).
  int16_t DeleteGroup(const std::string& group_id);
  // OffsetDelete: the group's error, or per partition 0 / GROUP_SUBSCRIBED_TO_TOPIC.
  struct DeleteOffsetsResult {
    int16_t error_code = 0;
    std::vector<std::pair<TopicPartition, int16_t>> partitions;
  };
  DeleteOffsetsResult DeleteOffsets(const std::string& group_id,
                                    const std::vector<TopicPartition>& partitions);

  // Runs the offsets' expiry now (the periodic task's work), as of the scheduler's clock.
  void ExpireOffsets();
  // Topics were deleted: their committed offsets go (tombstones), as Kafka's onTopicsDeleted.
  void OnTopicDeleted(const std::string& topic);

 private:
  class Core;
  explicit GroupCoordinator(std::shared_ptr<Core> core);
  std::shared_ptr<Core> core_;  // shared with the timers, which hold it weakly
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_GROUP_COORDINATOR_H_
