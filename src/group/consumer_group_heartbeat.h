// ConsumerGroupHeartbeat (KIP-848) as Kafka's GroupMetadataManager runs it, as a function of a
// consumer group, the request and the topics that exist: it validates the request, joins,
// updates, fences or lets go of the member, bumps the group epoch when a subscription or the
// subscribed topics' metadata changed, computes a new target assignment with the server-side
// assignor when the group epoch is ahead of the assignment epoch, moves the member one
// reconciliation step towards its target, and returns the answer with the records that make it
// durable, in the order Kafka writes them: member metadata (type 5), group epoch (3), target
// members (7) and target metadata (6), the member's current assignment (8).
//
// The caller (GroupCoordinator) applies it to a copy of the group and keeps the copy only once
// the records are written, so a failed append changes nothing. It also runs the member's timers
// as the result says: the session timeout after every heartbeat, the rebalance timeout while the
// member has partitions to revoke; when one fires, FenceConsumerGroupMember.
//
// A subscription is topic names, a regular expression (RE2 syntax, as Kafka's RE2/J; matched
// against whole names of every topic that exists, internal ones too, at every heartbeat,
// so a new matching topic moves the group epoch), or both.
//
// Not done (see docs/design/group_coordinator.md): rack-aware assignment, the assignment throttle
// (group.consumer.assignment.interval.ms: every new target is computed at once).
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_
#define SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "group/consumer_group.h"
#include "group/offsets_records.h"
#include "manager/server_config.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"

namespace seglog {

// A topic as the metadata has it.
struct ConsumerGroupTopic {
  Uuid id;
  std::string name;
  int32_t partitions = 0;
};

struct ConsumerGroupHeartbeatContext {
  int64_t now_ms = 0;
  const GroupCoordinatorConfig* config = nullptr;
  std::string client_id;
  std::string client_host;  // "/127.0.0.1"
  // The topic of that name, if it exists.
  std::function<std::optional<ConsumerGroupTopic>(const std::string& name)> topic_by_name;
  // A new member id (Kafka's Uuid in base64, for a v0 request without one).
  std::function<std::string()> new_member_id;
  // The names of every topic (for regular expression subscriptions).
  std::function<std::vector<std::string>()> topic_names;
};

struct ConsumerGroupHeartbeatResult {
  protocol::ConsumerGroupHeartbeatResponseData response;
  std::vector<OffsetsRecord> records;
  // For the timers, once the records are written:
  std::string member_id;              // the member it was for (empty on an error)
  bool member_removed = false;        // it left (epoch -1) or let go (-2): stop its session timer
  std::string replaced_member_id;     // a static member's old id it took over from
  int32_t rebalance_timeout_ms = -1;  // >= 0: start the revocation timer (it must revoke)
  int32_t revocation_epoch = 0;       //   ... at this member epoch
  bool revocation_done = false;       // nothing left to revoke: stop that timer
};

// Validates the request (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR ...) and applies it to `group`
// (a new group: group_epoch() 0 and no members). On an error the response carries the error
// code and message, and `group` may be half-updated: the caller drops its copy.
ConsumerGroupHeartbeatResult ConsumerGroupHeartbeat(
    ConsumerGroup* group, int16_t version, const protocol::ConsumerGroupHeartbeatRequestData& req,
    const ConsumerGroupHeartbeatContext& ctx);

// The common part of a member's heartbeat (ConsumerGroupHeartbeat, or a classic member's
// JoinGroup, consumer_group_classic.h): `updated` (the member with its new subscription and
// identity; `before` as it was, `is_new` for a member not in the group yet) goes into the
// group - a member metadata record when a field changed -, the group epoch moves when a
// subscription, the subscribed topics' metadata or the group's assignor changed (a group
// metadata record), a new target assignment is computed when the group epoch is ahead of it,
// and the member moves one reconciliation step towards its target (`owned`: the partitions it
// says it owns; a current assignment record when it moved). On an error (an assignor failure
// or FENCED_MEMBER_EPOCH) the group may be half-updated: the caller drops its copy.
struct MemberUpdate {
  int16_t error_code = 0;
  std::string error_message;
  ConsumerGroupMember member;  // after the reconciliation step
  bool changed = false;        // the step changed the member (a record was written)
};
MemberUpdate ApplyConsumerGroupMemberUpdate(ConsumerGroup* group, const ConsumerGroupMember& before,
                                            const ConsumerGroupMember& updated, bool is_new,
                                            const std::optional<TopicPartitions>& owned,
                                            const ConsumerGroupHeartbeatContext& ctx,
                                            std::vector<OffsetsRecord>* records);

// The member left or timed out: it is removed with tombstones for its current assignment,
// target and metadata, and the group epoch is bumped (Kafka's consumerGroupFenceMember).
// Returns the records; empty when the member is not in the group.
std::vector<OffsetsRecord> FenceConsumerGroupMember(ConsumerGroup* group,
                                                    const std::string& member_id);
// Several members at once (a LeaveGroup of many): their tombstones (8, 7, 5 each), then one
// epoch bump.
std::vector<OffsetsRecord> FenceConsumerGroupMembers(ConsumerGroup* group,
                                                     const std::set<std::string>& member_ids);

// The assignor the group uses: the one most members name, else the first configured.
std::string ConsumerGroupAssignorName(const ConsumerGroup& group,
                                      const GroupCoordinatorConfig& config);

// Every topic some member subscribes to: by name, or by its regular expression among
// `topic_names`.
std::set<std::string> ConsumerGroupSubscribedTopics(const ConsumerGroup& group,
                                                    const std::vector<std::string>& topic_names);

// The records that delete a group (Kafka's createGroupTombstoneRecords): tombstones of every
// member's current assignment (8) and target (7), the target metadata (6), every member's
// metadata (5), the partition metadata (4) and the group epoch (3).
std::vector<OffsetsRecord> ConsumerGroupTombstones(const ConsumerGroup& group);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_
