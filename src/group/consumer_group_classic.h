// Classic-protocol members inside a consumer group (Kafka's classicGroupJoinToConsumerGroup,
// classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup), as they are during an
// online upgrade or downgrade (group_conversion.h): a KafkaConsumer with group.protocol=classic
// keeps speaking JoinGroup/SyncGroup/Heartbeat while the group is a consumer group.
//
//   JoinGroup  is the member's heartbeat with its subscription (its first protocol's
//              ConsumerProtocolSubscription: topics, owned partitions, rack): the group epoch
//              moves and the server-side assignor runs as for ConsumerGroupHeartbeat, the
//              member moves one reconciliation step, and the answer is at once - generation =
//              the member's epoch, protocol = its first, no leader (the member never assigns).
//   SyncGroup  hands out the member's current assignment as a ConsumerProtocolAssignment.
//   Heartbeat  answers REBALANCE_IN_PROGRESS while the member has a step to take (the group
//              epoch is ahead of its epoch, it must revoke, or partitions it waits for are
//              free), so that it joins again.
//
// The caller (GroupCoordinator) applies a join to a copy of the group and keeps it once the
// records are written; it runs the member's timers: the session (the member's own session
// timeout, reset on each of the three), the sync timeout after a join and the join timeout
// after a REBALANCE_IN_PROGRESS (both its rebalance timeout; either fences the member).
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_CONSUMER_GROUP_CLASSIC_H_
#define SEGLOG_GROUP_CONSUMER_GROUP_CLASSIC_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "group/consumer_group.h"
#include "group/consumer_group_heartbeat.h"
#include "group/offsets_records.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"

namespace seglog {

struct ClassicJoinResult {
  protocol::JoinGroupResponseData response;
  std::vector<OffsetsRecord> records;
  std::string member_id;                  // the member it was for (empty on an error)
  std::string replaced_member_id;         // a static member's old id it took over from
  bool replaced_consumer_member = false;  // ... which was a consumer-protocol member
  bool subscription_changed = false;      // the member is new or its topics changed
};

// A JoinGroup at `version` into the non-empty consumer group `group` (`rebalance_timeout_ms`:
// the request's, or its session timeout below v1). On an error the response carries it and
// `group` may be half-updated: the caller drops its copy. MEMBER_ID_REQUIRED (v4+, a dynamic
// member without an id) changes nothing: the member comes back with the id it is given.
ClassicJoinResult ClassicGroupJoinToConsumerGroup(ConsumerGroup* group, int16_t version,
                                                  const protocol::JoinGroupRequestData& req,
                                                  int32_t rebalance_timeout_ms,
                                                  const ConsumerGroupHeartbeatContext& ctx);

// A SyncGroup of a classic member of `group`. `topic_name` names a topic id (nullopt: gone).
// *rebalancing is set when the answer is REBALANCE_IN_PROGRESS (start the join timeout).
protocol::SyncGroupResponseData ClassicGroupSyncToConsumerGroup(
    const ConsumerGroup& group, const protocol::SyncGroupRequestData& req,
    const std::function<std::optional<std::string>(const Uuid&)>& topic_name, bool* rebalancing);

// A Heartbeat of a classic member of `group`: its error code. *valid is set when the member
// is known at its generation (reset its session: NONE or REBALANCE_IN_PROGRESS), and
// *rebalancing as for SyncGroup.
int16_t ClassicGroupHeartbeatToConsumerGroup(const ConsumerGroup& group, int32_t generation,
                                             const std::string& member_id,
                                             const std::optional<std::string>& instance_id,
                                             bool* valid, bool* rebalancing);

// The classic member check shared by SyncGroup, Heartbeat and LeaveGroup (Kafka's
// validateConsumerGroupMember): UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID or NONE.
int16_t ValidateClassicMemberOfConsumerGroup(const ConsumerGroup& group,
                                             const std::string& member_id,
                                             const std::optional<std::string>& instance_id);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_CLASSIC_H_
