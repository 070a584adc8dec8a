// The __consumer_offsets records of KIP-1071's streams groups, as Kafka 4.4.0's group
// coordinator writes them (StreamsCoordinatorRecordHelpers), and their decoding at load. As
// for every group record, a key is [int16 type][key struct v0, not flexible] and a value
// [int16 0][value struct v0, flexible]; a null value is a tombstone.
//
//   type 17 StreamsGroupMetadata        key {group}          value {epoch, metadataHash,
//             tag0 validatedTopologyEpoch (-1), tag1 lastAssignmentConfigs[{key, value}],
//             tag2 storedDescriptionTopologyEpoch (-1), tag3 failedDescriptionTopologyEpoch (-1)}
//   type 18 StreamsGroupPartitionMetadata  gone in 4.4.0: read and ignored
//   type 19 StreamsGroupMemberMetadata  key {group, member}  value {instanceId?, rackId?,
//             clientId, clientHost, rebalanceTimeoutMs, topologyEpoch, processId,
//             userEndpoint{host, port uint16}?, clientTags[{key, value}] (sorted by key)}
//   type 20 StreamsGroupTargetAssignmentMetadata  key {group}  value {assignmentEpoch,
//             tag0 assignmentTimestamp}
//   type 21 StreamsGroupTargetAssignmentMember    key {group, member}  value {activeTasks,
//             standbyTasks, warmupTasks: [{subtopologyId, partitions[]}]}
//   type 22 StreamsGroupCurrentMemberAssignment   key {group, member}  value {memberEpoch,
//             previousMemberEpoch, state int8, activeTasks, standbyTasks, warmupTasks,
//             activeTasksPendingRevocation, standbyTasksPendingRevocation,
//             warmupTasksPendingRevocation: [{subtopologyId, partitions[],
//             tag0 assignmentEpochs[] (active lists only)}]}
//   type 23 StreamsGroupTopology        key {group}          value {epoch, subtopologies[...]}
//
// Task lists are written in subtopology-id order with sorted partitions, as Kafka's.
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_STREAMS_GROUP_RECORDS_H_
#define SEGLOG_GROUP_STREAMS_GROUP_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "group/offsets_records.h"
#include "group/streams_group.h"
#include "group/streams_topology.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int16_t kStreamsGroupMetadataRecordType = 17;
inline constexpr int16_t kStreamsGroupPartitionMetadataRecordType = 18;
inline constexpr int16_t kStreamsGroupMemberMetadataRecordType = 19;
inline constexpr int16_t kStreamsGroupTargetAssignmentMetadataRecordType = 20;
inline constexpr int16_t kStreamsGroupTargetAssignmentMemberRecordType = 21;
inline constexpr int16_t kStreamsGroupCurrentMemberAssignmentRecordType = 22;
inline constexpr int16_t kStreamsGroupTopologyRecordType = 23;

// Whether `type` is one of the record types above (18 included).
bool IsStreamsGroupRecordType(int16_t type);

// Type 17's value.
struct StreamsGroupMetadata {
  int32_t epoch = 0;
  int64_t metadata_hash = 0;
  int32_t validated_topology_epoch = -1;
  std::map<std::string, std::string> last_assignment_configs;
  int32_t stored_description_topology_epoch = -1;
  int32_t failed_description_topology_epoch = -1;
  bool operator==(const StreamsGroupMetadata&) const = default;
};

OffsetsRecord StreamsGroupMetadataRecord(const std::string& group, const StreamsGroupMetadata& m);
OffsetsRecord StreamsGroupMetadataTombstone(const std::string& group);
// The member's identity and metadata (not its tasks).
OffsetsRecord StreamsGroupMemberMetadataRecord(const std::string& group,
                                               const StreamsGroupMember& member);
OffsetsRecord StreamsGroupMemberMetadataTombstone(const std::string& group,
                                                  const std::string& member_id);
OffsetsRecord StreamsGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                         int32_t assignment_epoch,
                                                         int64_t timestamp_ms);
OffsetsRecord StreamsGroupTargetAssignmentMetadataTombstone(const std::string& group);
OffsetsRecord StreamsGroupTargetAssignmentMemberRecord(const std::string& group,
                                                       const std::string& member_id,
                                                       const StreamsTasks& target);
OffsetsRecord StreamsGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                          const std::string& member_id);
// The member's epochs, state, tasks (active ones with their epochs) and tasks pending
// revocation.
OffsetsRecord StreamsGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                        const StreamsGroupMember& member);
OffsetsRecord StreamsGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                           const std::string& member_id);
OffsetsRecord StreamsGroupTopologyRecord(const std::string& group, const StreamsTopology& t);
OffsetsRecord StreamsGroupTopologyTombstone(const std::string& group);

// A streams-group record read back. `value` nullopt: a tombstone.
struct LoadedStreamsGroupMetadata {
  std::string group;
  std::optional<StreamsGroupMetadata> value;
};
struct LoadedStreamsGroupMemberMetadata {
  std::string group;
  std::string member_id;
  // The metadata fields of a StreamsGroupMember (its epochs and tasks untouched).
  std::optional<StreamsGroupMember> value;
};
struct LoadedStreamsGroupTargetAssignmentMetadata {
  std::string group;
  struct Value {
    int32_t assignment_epoch = 0;
    int64_t timestamp_ms = 0;
  };
  std::optional<Value> value;
};
struct LoadedStreamsGroupTargetAssignmentMember {
  std::string group;
  std::string member_id;
  std::optional<StreamsTasks> value;
};
struct LoadedStreamsGroupCurrentMemberAssignment {
  std::string group;
  std::string member_id;
  struct Value {
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    StreamsMemberState state = StreamsMemberState::kStable;
    StreamsTasksWithEpochs assigned_tasks;
    StreamsTasksWithEpochs tasks_pending_revocation;
  };
  std::optional<Value> value;
};
struct LoadedStreamsGroupTopology {
  std::string group;
  std::optional<StreamsTopology> value;
};
// Type 18: read, not kept.
struct IgnoredStreamsGroupRecord {
  int16_t type = 0;
  std::string group;
};
using LoadedStreamsGroupRecord =
    std::variant<LoadedStreamsGroupMetadata, LoadedStreamsGroupMemberMetadata,
                 LoadedStreamsGroupTargetAssignmentMetadata,
                 LoadedStreamsGroupTargetAssignmentMember,
                 LoadedStreamsGroupCurrentMemberAssignment, LoadedStreamsGroupTopology,
                 IgnoredStreamsGroupRecord>;

// Decodes a record of a type IsStreamsGroupRecordType accepts. Corruption for a key or value
// that does not decode or a value version other than 0. Active tasks without epochs, or with a
// number of epochs other than their number of partitions, take the member epoch, as Kafka's
// TasksTupleWithEpochs.fromCurrentAssignmentRecord (which logs the mismatch).
// REQUIRES: IsStreamsGroupRecordType(the key's type).
Result<LoadedStreamsGroupRecord> DecodeStreamsGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_RECORDS_H_
