// ShareGroupHeartbeat (KIP-932, v1) as Kafka 4.4.0's GroupMetadataManager runs it, as a
// function of a share group, the request and the topics that exist: it validates the request
// (GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid), joins (epoch 0, with
// the client's own member id), heartbeats or lets go of the member (-1), bumps the group epoch
// when a subscription or the subscribed topics' metadata changed or newly initialized
// partitions are not in the target yet (initializedAssignmentPending), computes a new target
// assignment with the simple assignor when the group epoch is ahead of the assignment epoch
// and group.share.assignment.interval.ms allows it (canComputeNextTargetAssignment), over the
// partitions whose share state exists only, and gives the member its target at once (no
// revocation: ShareGroupAssignmentBuilder). Then, as maybeCreateInitializeShareGroupStateRequest,
// the subscribed partitions without share state - not initialized, and not initializing
// since less than group.share.initialize.retry.interval.ms - are recorded as initializing
// (type 15) and returned for the caller to initialize.
//
// Records, in Kafka's order: member metadata (10), group epoch (11), target members (13) and
// target metadata (12), the member's current assignment (14), share-partition metadata (15).
// The caller (GroupCoordinator) applies the result to a copy of the group and keeps the copy
// only once the records are written.
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_SHARE_GROUP_HEARTBEAT_H_
#define SEGLOG_GROUP_SHARE_GROUP_HEARTBEAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "group/consumer_group_heartbeat.h"  // ConsumerGroupTopic
#include "group/group_coordinator_config.h"
#include "group/offsets_records.h"
#include "group/share_group.h"
#include "protocol/generated/share_group_describe_response.h"
#include "protocol/generated/share_group_heartbeat_request.h"
#include "protocol/generated/share_group_heartbeat_response.h"

namespace seglog {

struct ShareGroupHeartbeatContext {
  int64_t now_ms = 0;
  const GroupCoordinatorConfig* config = nullptr;
  std::string client_id;
  std::string client_host;  // "/127.0.0.1"
  // The topic of that name, if it exists.
  std::function<std::optional<ConsumerGroupTopic>(const std::string& name)> topic_by_name;
};

struct ShareGroupHeartbeatResult {
  protocol::ShareGroupHeartbeatResponseData response;
  std::vector<OffsetsRecord> records;
  std::string member_id;        // the member it was for (empty on an error)
  bool member_removed = false;  // it left: stop its session timer, tell the listener
  // Partitions whose share state is to be created, already recorded as initializing in
  // `records` (the caller initializes them once the records are written), at `state_epoch`.
  ShareStateTopics to_initialize;
  int32_t state_epoch = 0;
};

// The request's checks (INVALID_REQUEST with Kafka's messages), or nullopt.
std::optional<protocol::ShareGroupHeartbeatResponseData> ValidateShareGroupHeartbeat(
    const protocol::ShareGroupHeartbeatRequestData& req);

// Applies the request to `group` (a new group: group_epoch() 0, no members; `exists` false
// when the coordinator has no such group). On an error the response carries the error code and
// message, and `group` may be half-updated: the caller drops its copy.
// REQUIRES: ValidateShareGroupHeartbeat(req) is nullopt.
ShareGroupHeartbeatResult ShareGroupHeartbeat(ShareGroup* group, bool exists,
                                              const protocol::ShareGroupHeartbeatRequestData& req,
                                              const ShareGroupHeartbeatContext& ctx);

// The member left or timed out (Kafka's shareGroupFenceMember): its tombstones (14, 13, 10)
// and a group epoch bump (11); when it was the last member, the target metadata (12) at the
// new epoch with timestamp 0. Empty when the member is not in the group.
std::vector<OffsetsRecord> FenceShareGroupMember(ShareGroup* group, const std::string& member_id,
                                                 const ShareGroupHeartbeatContext& ctx);

// The outcome of initializing `topics` (a ShareGroupHeartbeatResult's to_initialize):
// success moves the partitions still initializing to initialized (Kafka's
// initializeShareGroupState), failure drops them from initializing so the next heartbeat asks
// again (uninitializeShareGroupState). The type-15 record, or nullopt when nothing changed.
std::optional<OffsetsRecord> CompleteShareStateInitialization(ShareGroup* group,
                                                              const ShareStateTopics& topics,
                                                              bool success);

// DeleteGroups' first step (shareGroupBuildPartitionDeleteRequest): every initializing and
// initialized topic moves to deleting; the type-15 record and the partitions whose share
// state to delete (each topic that exists: all its partitions). nullopt record: the group
// has no share-partition metadata.
struct ShareStateDeletion {
  std::optional<OffsetsRecord> record;
  ShareStateTopics topics;
};
ShareStateDeletion PrepareShareStateDeletion(
    ShareGroup* group,
    const std::function<std::optional<ConsumerGroupTopic>(const Uuid&)>& topic_by_id);

// A topic was deleted (GroupMetadataManager.maybeCleanupShareGroupState): it leaves the
// group's initializing, initialized and deleting topics (matched by name: the topic is gone;
// its share state goes with it). The type-15 record, or nullopt when the group had none of it.
std::optional<OffsetsRecord> ForgetDeletedShareTopic(ShareGroup* group, const std::string& topic);

// The records that delete a group (ShareGroup.createGroupTombstoneRecords, 4.4.0): every
// member's current assignment (14), every member's target (13), the target metadata (12),
// every member's metadata (10), the share-partition metadata (15), the group epoch (11).
std::vector<OffsetsRecord> ShareGroupTombstones(const ShareGroup& group);

// ShareGroupDescribe's view of a group (found, not dead). `topic_name` names topic ids.
protocol::ShareGroupDescribeResponseData::DescribedGroup DescribeShareGroupData(
    const ShareGroup& group, const std::function<std::string(const Uuid&)>& topic_name);

}  // namespace seglog

#endif  // SEGLOG_GROUP_SHARE_GROUP_HEARTBEAT_H_
