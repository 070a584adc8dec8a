// The online migration between the two group protocols, as Kafka's group coordinator does it
// (group.consumer.migration.policy; docs/design/group_migration_facts.md):
//
//   upgrade    a live classic group of the "consumer" protocol type becomes a consumer group
//              when a ConsumerGroupHeartbeat member joins it: every classic member keeps its
//              id, gets member epoch = the generation and the partitions its SyncGroup
//              assignment gave it (as current and target assignment), and stays a classic
//              member (ClassicMemberMetadata) that JoinGroup/SyncGroup/Heartbeat serve
//              inside the consumer group (consumer_group_classic.h).
//   downgrade  a consumer group whose remaining members all speak the classic protocol
//              becomes a classic group again when its last consumer-protocol member leaves:
//              Stable at generation = the group epoch, each member assigned its target
//              assignment, and then a rebalance so the members rejoin and a leader assigns.
//
// Records (the caller appends them, then replaces the group):
//   upgrade    GroupMetadata tombstone (type 2), then per ConsumerGroupRecords below
//   downgrade  ConsumerGroupTombstones (8, 7, 6, 5, 4, 3), then the classic group's
//              GroupMetadata (type 2)
//
// Thread safety: functions.
#ifndef SEGLOG_GROUP_GROUP_CONVERSION_H_
#define SEGLOG_GROUP_GROUP_CONVERSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "group/classic_group.h"
#include "group/consumer_group.h"
#include "group/consumer_group_heartbeat.h"
#include "group/offsets_records.h"
#include "seglog/result.h"

namespace seglog {

// Kafka's ConsumerGroup.fromClassicGroup. `topic_by_name` resolves the assignments' topics
// (partitions of topics that do not exist are dropped). InvalidArgument with Kafka's reason
// (the embedded protocol is malformed; a custom assignor's userData would be lost; two
// members were given one partition) when the group cannot be converted.
Result<ConsumerGroup> ConsumerGroupFromClassicGroup(
    const ClassicGroup& classic,
    const std::function<std::optional<ConsumerGroupTopic>(const std::string&)>& topic_by_name);

// The records that write a whole consumer group (Kafka's createConsumerGroupRecords): member
// metadata (5) of every member, the group epoch (3), every target member (7), the target
// metadata (6), every current assignment (8).
std::vector<OffsetsRecord> ConsumerGroupRecords(const ConsumerGroup& group, int64_t now_ms);

// Kafka's ClassicGroup.fromConsumerGroup: the classic group of `group`'s members other than
// `leaving` (REQUIRES: all of them classic members). `topic_name` names a topic id (nullopt:
// the topic is gone, its partitions are left out). InvalidArgument when a member's protocol
// metadata cannot be read.
Result<std::unique_ptr<ClassicGroup>> ClassicGroupFromConsumerGroup(
    const ConsumerGroup& group, const std::set<std::string>& leaving,
    const std::function<std::optional<std::string>(const Uuid&)>& topic_name, int64_t now_ms);

// The downgrade's records: `group`'s tombstones (leaving members included), then `classic`'s
// GroupMetadata.
std::vector<OffsetsRecord> ConsumerGroupDowngradeRecords(const ConsumerGroup& group,
                                                         const ClassicGroup& classic);

// Whether removing `leaving` from `group` downgrades it (Kafka's
// validateOnlineDowngradeWithFencedMembers): members remain, all of them classic, the policy
// allows it and they fit group.max.size.
bool ShouldDowngrade(const ConsumerGroup& group, const std::set<std::string>& leaving,
                     const GroupCoordinatorConfig& config);

}  // namespace seglog

#endif  // SEGLOG_GROUP_GROUP_CONVERSION_H_
