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
// against whole names of the topics that exist, internal topics left out, at every heartbeat,
// so a new matching topic moves the group epoch), or both.
//
// Not done (answered as Kafka would refuse them, see docs/design/group_coordinator.md):
// classic-protocol members in consumer
// groups and the online upgrade of a non-empty classic group (GROUP_ID_NOT_FOUND), rack-aware
// assignment, the assignment throttle (group.consumer.assignment.interval.ms: every new target
// is computed at once).
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

// The member left or timed out: it is removed with tombstones for its current assignment,
// target and metadata, and the group epoch is bumped (Kafka's consumerGroupFenceMember).
// Returns the records; empty when the member is not in the group.
std::vector<OffsetsRecord> FenceConsumerGroupMember(ConsumerGroup* group,
                                                    const std::string& member_id);

// The assignor the group uses: the one most members name, else the first configured.
std::string ConsumerGroupAssignorName(const ConsumerGroup& group,
                                      const GroupCoordinatorConfig& config);

// Every topic some member subscribes to: by name, or by its regular expression among
// `topic_names`.
std::set<std::string> ConsumerGroupSubscribedTopics(const ConsumerGroup& group,
                                                    const std::vector<std::string>& topic_names);

// The records that delete an Empty group (tombstones of its target metadata and epoch).
std::vector<OffsetsRecord> ConsumerGroupTombstones(const ConsumerGroup& group);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_
