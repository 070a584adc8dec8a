// The __consumer_offsets records of KIP-932's share groups, as Kafka 4.4.0's group coordinator
// writes them (GroupCoordinatorRecordHelpers.newShareGroup*), and their decoding at load. Every
// key is [int16 type][key struct v0] and every value [int16 0][value struct v0] (all
// flexible: compact strings and arrays, tagged fields); a null value is a tombstone.
//
//   type 10 ShareGroupMemberMetadata        key {group, member}  value {rackId?, clientId,
//             clientHost, subscribedTopicNames[] (sorted)}
//   type 11 ShareGroupMetadata              key {group}          value {epoch, metadataHash}
//   type 12 ShareGroupTargetAssignmentMetadata  key {group}      value {assignmentEpoch,
//             assignmentTimestamp}
//   type 13 ShareGroupTargetAssignmentMember    key {group, member}  value {topicPartitions
//             [{topicId, partitions[]}]}
//   type 14 ShareGroupCurrentMemberAssignment   key {group, member}  value {memberEpoch,
//             previousMemberEpoch, state (int8), assignedPartitions[{topicId, partitions[]}]}
//   type 15 ShareGroupStatePartitionMetadata    key {group}      value {initializingTopics
//             [{topicId, topicName, partitions[]}], initializedTopics[same],
//             deletingTopics[{topicId, topicName}]}
//
// seglog writes topics ordered by id and partitions ascending (Kafka's order comes from hash
// maps; a reader does not depend on it).
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_SHARE_GROUP_RECORDS_H_
#define SEGLOG_GROUP_SHARE_GROUP_RECORDS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "group/offsets_records.h"
#include "group/share_group.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int16_t kShareGroupMemberMetadataRecordType = 10;
inline constexpr int16_t kShareGroupMetadataRecordType = 11;
inline constexpr int16_t kShareGroupTargetAssignmentMetadataRecordType = 12;
inline constexpr int16_t kShareGroupTargetAssignmentMemberRecordType = 13;
inline constexpr int16_t kShareGroupCurrentMemberAssignmentRecordType = 14;
inline constexpr int16_t kShareGroupStatePartitionMetadataRecordType = 15;

// Whether `type` is one of the record types above.
bool IsShareGroupRecordType(int16_t type);

// Type 10: the member's subscription and identity.
OffsetsRecord ShareGroupMemberMetadataRecord(const std::string& group,
                                             const ShareGroupMember& member);
OffsetsRecord ShareGroupMemberMetadataTombstone(const std::string& group,
                                                const std::string& member_id);
// Type 11.
OffsetsRecord ShareGroupMetadataRecord(const std::string& group, int32_t epoch,
                                       int64_t metadata_hash);
OffsetsRecord ShareGroupMetadataTombstone(const std::string& group);
// Type 12.
OffsetsRecord ShareGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                       int32_t assignment_epoch,
                                                       int64_t timestamp_ms);
OffsetsRecord ShareGroupTargetAssignmentMetadataTombstone(const std::string& group);
// Type 13.
OffsetsRecord ShareGroupTargetAssignmentMemberRecord(const std::string& group,
                                                     const std::string& member_id,
                                                     const TopicPartitions& target);
OffsetsRecord ShareGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                        const std::string& member_id);
// Type 14: the member's epochs, state and assigned partitions.
OffsetsRecord ShareGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                      const ShareGroupMember& member);
OffsetsRecord ShareGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                         const std::string& member_id);
// Type 15.
OffsetsRecord ShareGroupStatePartitionMetadataRecord(const std::string& group,
                                                     const ShareGroupStatePartitions& p);
OffsetsRecord ShareGroupStatePartitionMetadataTombstone(const std::string& group);

// A share-group record read back. `value` nullopt: a tombstone.
struct LoadedShareGroupMemberMetadata {
  std::string group;
  std::string member_id;
  // The subscription fields of a ShareGroupMember (epochs and partitions untouched).
  std::optional<ShareGroupMember> value;
};
struct LoadedShareGroupMetadata {
  std::string group;
  struct Value {
    int32_t epoch = 0;
    int64_t metadata_hash = 0;
  };
  std::optional<Value> value;
};
struct LoadedShareGroupTargetAssignmentMetadata {
  std::string group;
  struct Value {
    int32_t assignment_epoch = 0;
    int64_t timestamp_ms = 0;
  };
  std::optional<Value> value;
};
struct LoadedShareGroupTargetAssignmentMember {
  std::string group;
  std::string member_id;
  std::optional<TopicPartitions> value;
};
struct LoadedShareGroupCurrentMemberAssignment {
  std::string group;
  std::string member_id;
  struct Value {
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    int8_t state = 0;
    TopicPartitions assigned_partitions;
  };
  std::optional<Value> value;
};
struct LoadedShareGroupStatePartitionMetadata {
  std::string group;
  std::optional<ShareGroupStatePartitions> value;
};
using LoadedShareGroupRecord =
    std::variant<LoadedShareGroupMemberMetadata, LoadedShareGroupMetadata,
                 LoadedShareGroupTargetAssignmentMetadata, LoadedShareGroupTargetAssignmentMember,
                 LoadedShareGroupCurrentMemberAssignment, LoadedShareGroupStatePartitionMetadata>;

// Decodes a record of a type IsShareGroupRecordType accepts. Corruption for a key or value
// that does not decode or has a version Kafka 4.4.0 does not write (only 0).
// REQUIRES: IsShareGroupRecordType(the key's type).
Result<LoadedShareGroupRecord> DecodeShareGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace seglog

#endif  // SEGLOG_GROUP_SHARE_GROUP_RECORDS_H_
