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
// A subscription is topic names, a regular expression (RE2 syntax, as Kafka's RE2/J), or both.
// Expressions are resolved as Kafka 4.4.0 resolves them (GroupMetadataManager's
// maybeUpdateRegularExpressions and handleRegularExpressionsResult): apart from the heartbeat,
// at most one resolution per group at a time, at most one per 10 s, when an expression is not
// resolved yet, topics were created since, or group.consumer.regex.refresh.interval.ms passed
// (RegularExpressionRefreshDue); the caller lists the topics, matches every expression
// (ResolveRegularExpressions) and applies the result (ApplyRegularExpressionResolution), which
// moves the group epoch when an expression's topics changed. Until then an expression matches
// nothing for its members. Resolutions are records (type 16), so they survive a restart.
//
// Not done (see docs/design/group_coordinator.md): rack-aware assignment, the assignment throttle
// (group.consumer.assignment.interval.ms: every new target is computed at once).
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_
#define SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "group/consumer_group.h"
#include "group/group_coordinator_config.h"
#include "group/offsets_records.h"
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
};

struct ConsumerGroupHeartbeatResult {
  protocol::ConsumerGroupHeartbeatResponseData response;
  std::vector<OffsetsRecord> records;
  // For the timers, once the records are written:
  std::string member_id;                // the member it was for (empty on an error)
  bool member_removed = false;          // it left (epoch -1) or let go (-2): stop its session timer
  std::string replaced_member_id;       // a static member's old id it took over from
  int32_t rebalance_timeout_ms = -1;    // >= 0: start the revocation timer (it must revoke)
  int32_t revocation_epoch = 0;         //   ... at this member epoch
  bool revocation_done = false;         // nothing left to revoke: stop that timer
  bool regex_refresh_required = false;  // a new expression: see RegularExpressionRefreshDue
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
  // The member took up an expression no other member uses: it needs a resolution.
  bool regex_refresh_required = false;
};
MemberUpdate ApplyConsumerGroupMemberUpdate(ConsumerGroup* group, const ConsumerGroupMember& before,
                                            const ConsumerGroupMember& updated, bool is_new,
                                            const std::optional<TopicPartitions>& owned,
                                            const ConsumerGroupHeartbeatContext& ctx,
                                            std::vector<OffsetsRecord>* records);

// The member left or timed out: it is removed with tombstones for its current assignment,
// target and metadata (and for its regular expression when nobody else uses it), and the
// group epoch is bumped (Kafka's consumerGroupFenceMember), with the metadata hash of what the
// others subscribe to (topics looked up through `ctx`). Returns the records; empty when the
// member is not in the group.
std::vector<OffsetsRecord> FenceConsumerGroupMember(ConsumerGroup* group,
                                                    const std::string& member_id,
                                                    const ConsumerGroupHeartbeatContext& ctx);
// Several members at once (a LeaveGroup of many): their tombstones (8, 7, 5 each), the
// tombstones of the expressions nobody uses any more (16), then one epoch bump.
std::vector<OffsetsRecord> FenceConsumerGroupMembers(ConsumerGroup* group,
                                                     const std::set<std::string>& member_ids,
                                                     const ConsumerGroupHeartbeatContext& ctx);

// Whether a resolution of the group's regular expressions is due at `now_ms` (the caller
// checks that none is running for the group), as Kafka 4.4.0 decides it: the group has
// expressions; the last resolution is more than 10 s old; and an expression is not resolved
// (or `required`, a member just took one up), topics were created since (the last resolution's
// version is below `last_version_with_new_topics`), or `refresh_interval_ms`
// (group.consumer.regex.refresh.interval.ms) passed since the last one.
inline constexpr int64_t kRegexBatchRefreshMinIntervalMs = 10000;
bool RegularExpressionRefreshDue(const ConsumerGroup& group, int64_t now_ms,
                                 int64_t last_version_with_new_topics, int64_t refresh_interval_ms,
                                 bool required);

// Resolves `regexes` against `topic_names` (every topic, internal ones too: Kafka 4.4.0's
// TopicRegexResolver matches the metadata image's every name and filters only by the
// authorizer): an expression matches a topic when it matches its whole name. An expression
// that does not compile matches nothing. Each result carries `version` and `now_ms`.
std::map<std::string, ResolvedRegularExpression> ResolveRegularExpressions(
    const std::set<std::string>& regexes, const std::vector<std::string>& topic_names,
    int64_t version, int64_t now_ms);

// Applies a resolution to `group` (Kafka's handleRegularExpressionsResult): a record (16) for
// every expression some member still uses, even an unchanged one (its version and time move);
// the group epoch moves (a record, 3) when an expression's topics changed or the subscribed
// topics' metadata hash did. The new target assignment is computed at the next heartbeat.
std::vector<OffsetsRecord> ApplyRegularExpressionResolution(
    ConsumerGroup* group, const std::map<std::string, ResolvedRegularExpression>& resolved,
    const ConsumerGroupHeartbeatContext& ctx);

// The assignor the group uses: the one most members name, else the first configured.
std::string ConsumerGroupAssignorName(const ConsumerGroup& group,
                                      const GroupCoordinatorConfig& config);

// The records that delete a group (Kafka's createGroupTombstoneRecords): tombstones of every
// member's current assignment (8) and target (7), the target metadata (6), every member's
// metadata (5), every resolved expression (16), the partition metadata (4) and the group
// epoch (3).
std::vector<OffsetsRecord> ConsumerGroupTombstones(const ConsumerGroup& group);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_HEARTBEAT_H_
