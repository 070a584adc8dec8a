// StreamsGroupHeartbeat (KIP-1071, v0-1) as Kafka 4.4.0's group coordinator runs it
// (GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid, GroupMetadataManager
// .streamsGroupHeartbeat), as a function of a streams group, the request and a topic-metadata
// snapshot:
//
//   1. the request is validated (INVALID_REQUEST, STREAMS_INVALID_TOPOLOGY with Kafka's
//      messages); the topology comes only with a join (epoch 0);
//   2. epoch -1 removes the member (tombstones 22, 21, 19 and an epoch bump, 17); epoch -2, a
//      static member's temporary leave, keeps it at epoch -2 (22);
//   3. the member is created (epoch 0) or found (UNKNOWN_MEMBER_ID) and its epoch checked
//      (FENCED_MEMBER_EPOCH); its metadata written when it changed (19);
//   4. the first topology of the group is stored (23); a later one must equal it ("Topology
//      updates are not supported yet."); a member behind it gets STALE_TOPOLOGY;
//   5. the topology is validated against the topics (streams_topology.h) when the group has
//      none validated or the topics' hash moved; the statuses it gives are returned, with the
//      internal topics the caller must create;
//   6. the group epoch moves (17) when the member's metadata, the topics' hash, the validated
//      topology epoch or the assignment configs changed; then a new target assignment is
//      computed with `sticky` (21 for each changed member, then 20);
//   7. the member moves one reconciliation step towards its target (22 when it changed).
//
// Records come in Kafka's order: 19, 23, 17, 21..., 20, 22. The caller (the coordinator)
// applies the call to a copy of the group and keeps it once the records are written; it
// creates `internal_topics_to_create` (outside the shard mutex) and runs the session timer.
//
// A static member (InstanceId) that left with -2 and rejoins with a new member id takes over
// the old member's tasks and target (tombstones of the old member, records of the new one);
// while the old one has not left, UNRELEASED_INSTANCE_ID; a heartbeat whose member id is not
// the instance id's, FENCED_INSTANCE_ID.
//
// A group that was empty when a member joins waits group.streams.initial.rebalance.delay.ms
// before its first target assignment: the call asks the caller to start the delay
// (`start_initial_delay_ms`), every heartbeat while it runs (`initial_delay_active`) gets
// ASSIGNMENT_DELAYED and keeps the member at the old assignment epoch, and the caller computes
// the target when the delay ends (StreamsDelayedTargetAssignment). After that, a new target is
// computed at most once per group.streams.assignment.interval.ms (ASSIGNMENT_DELAYED until a
// heartbeat comes after it).
//
// Not done: the group-level streams.* configs (the broker's group.streams.* apply), rack-aware
// standbys
// (MISSING_CLIENT_TAGS), PartitionsByUserEndpoint, warm-up tasks (4.4.0's sticky assigns
// none; the reported task offsets only rank standby candidates), KIP-1331's topology
// descriptions.
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_STREAMS_GROUP_HEARTBEAT_H_
#define SEGLOG_GROUP_STREAMS_GROUP_HEARTBEAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "group/group_coordinator_config.h"
#include "group/offsets_records.h"
#include "group/streams_group.h"
#include "group/streams_topology.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"

namespace seglog {

struct StreamsGroupHeartbeatContext {
  int64_t now_ms = 0;
  const GroupCoordinatorConfig* config = nullptr;
  std::string client_id;
  std::string client_host;  // "/127.0.0.1"
  // The topics that exist: name -> partition count.
  const TopicPartitionCounts* topics = nullptr;
  // The group's initial rebalance delay is running (the caller's timer).
  bool initial_delay_active = false;
};

struct StreamsGroupHeartbeatResult {
  protocol::StreamsGroupHeartbeatResponseData response;
  std::vector<OffsetsRecord> records;
  // Internal topics the caller creates (MISSING_INTERNAL_TOPICS), once the records are
  // written; the member keeps heartbeating until they exist.
  std::map<std::string, StreamsInternalTopic> internal_topics_to_create;
  // For the timers, once the records are written:
  std::string member_id;        // the member it was for (empty on an error)
  bool member_removed = false;  // it left (-1): stop its session timer
  // > 0: the group was empty; unless its initial rebalance delay runs already, the caller
  // starts it for this long and then calls StreamsDelayedTargetAssignment.
  int32_t start_initial_delay_ms = 0;
};

// The end of a group's initial rebalance delay (GroupMetadataManager
// .computeDelayedTargetAssignment): the target assignment of the group's epoch, with its
// records (21 for each changed member, then 20); none when the group is empty, has a target
// for its epoch already or no configured topology. FailedPrecondition when the assignor fails.
Result<std::vector<OffsetsRecord>> StreamsDelayedTargetAssignment(
    StreamsGroup* group, const StreamsGroupHeartbeatContext& ctx);

// Kafka's message for a StreamsGroupHeartbeat (or StreamsGroupDescribe) naming a group of
// another type: GROUP_ID_NOT_FOUND "Group <id> is not a streams group.".
std::string NotAStreamsGroupMessage(const std::string& group_id);

// Validates the request and applies it to `group`; `group_exists` false for a group id that
// has no group yet (`group` then is a new, empty one). The caller checks the group type first
// (NotAStreamsGroupMessage). On an error the response carries the code and message, and
// `group` may be half-updated: the caller drops its copy.
StreamsGroupHeartbeatResult StreamsGroupHeartbeat(
    StreamsGroup* group, bool group_exists, int16_t version,
    const protocol::StreamsGroupHeartbeatRequestData& req, const StreamsGroupHeartbeatContext& ctx);

// The member left (-1) or its session expired: it is removed with tombstones for its current
// assignment (22), target (21) and metadata (19), and the group epoch is bumped (17). Empty
// when the member is not in the group.
std::vector<OffsetsRecord> FenceStreamsGroupMember(StreamsGroup* group,
                                                   const std::string& member_id,
                                                   const StreamsGroupHeartbeatContext& ctx);

// The assignment configs a target is computed with (StreamsGroupMetadataValue's
// LastAssignmentConfigs): num.standby.replicas, and rack.aware.assignment.tags (joined by
// ",") when set.
std::map<std::string, std::string> StreamsAssignmentConfigs(const GroupCoordinatorConfig& c);

// The records that delete a group, in Kafka's order (StreamsGroup.createGroupTombstoneRecords):
// every member's current assignment (22), every member's target (21), the target metadata
// (20), every member's metadata (19), the group metadata (17), the topology (23).
std::vector<OffsetsRecord> StreamsGroupTombstones(const StreamsGroup& group);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_HEARTBEAT_H_
