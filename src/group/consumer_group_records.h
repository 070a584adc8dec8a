// The __consumer_offsets records of KIP-848's consumer groups, as Kafka 4.4.0's group
// coordinator writes them (GroupCoordinatorRecordHelpers), and their decoding at load. Every
// key is [int16 type][key struct v0] and every value [int16 0][value struct v0] (all
// flexible); a null value is a tombstone.
//
//   type 3  ConsumerGroupMetadata          key {group}             value {epoch, tag0 metadataHash}
//   type 5  ConsumerGroupMemberMetadata    key {group, member}     value {instanceId?, rackId?,
//             clientId, clientHost, subscribedTopicNames (sorted), subscribedTopicRegex?,
//             rebalanceTimeoutMs, serverAssignor?, tag0 classicMemberMetadata? (null here)}
//   type 6  ConsumerGroupTargetAssignmentMetadata  key {group}     value {assignmentEpoch,
//             tag0 assignmentTimestamp}
//   type 7  ConsumerGroupTargetAssignmentMember    key {group, member}  value {topicPartitions
//             [{topicId, partitions[]}]}
//   type 8  ConsumerGroupCurrentMemberAssignment   key {group, member}  value {memberEpoch,
//             previousMemberEpoch, state, assignedPartitions[{topicId, partitions[],
//             tag0 assignmentEpochs[]}], partitionsPendingRevocation[same]}
//   type 16 ConsumerGroupRegularExpression key {group, regularExpression}  value {topics[]
//             (sorted), version, timestamp}
//
// Specified in docs/format/consumer_offsets.md. Type 4 (the partition metadata of Kafka
// before KIP-1101) is read and ignored: seglog writes only its tombstone (a converted
// group's).
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_CONSUMER_GROUP_RECORDS_H_
#define SEGLOG_GROUP_CONSUMER_GROUP_RECORDS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "group/consumer_group.h"
#include "group/offsets_records.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int16_t kConsumerGroupMetadataRecordType = 3;
inline constexpr int16_t kConsumerGroupPartitionMetadataRecordType = 4;
inline constexpr int16_t kConsumerGroupMemberMetadataRecordType = 5;
inline constexpr int16_t kConsumerGroupTargetAssignmentMetadataRecordType = 6;
inline constexpr int16_t kConsumerGroupTargetAssignmentMemberRecordType = 7;
inline constexpr int16_t kConsumerGroupCurrentMemberAssignmentRecordType = 8;
inline constexpr int16_t kConsumerGroupRegularExpressionRecordType = 16;

// Whether `type` is one of the record types above.
bool IsConsumerGroupRecordType(int16_t type);

OffsetsRecord ConsumerGroupMetadataRecord(const std::string& group, int32_t epoch,
                                          int64_t metadata_hash);
OffsetsRecord ConsumerGroupMetadataTombstone(const std::string& group);
// Type 4 (ConsumerGroupPartitionMetadata, before KIP-1101): seglog writes only its tombstone,
// as Kafka does when a group is converted.
OffsetsRecord ConsumerGroupPartitionMetadataTombstone(const std::string& group);
// The member's subscription and identity (not its assignment).
OffsetsRecord ConsumerGroupMemberMetadataRecord(const std::string& group,
                                                const ConsumerGroupMember& member);
OffsetsRecord ConsumerGroupMemberMetadataTombstone(const std::string& group,
                                                   const std::string& member_id);
OffsetsRecord ConsumerGroupTargetAssignmentMetadataRecord(const std::string& group,
                                                          int32_t assignment_epoch,
                                                          int64_t timestamp_ms);
OffsetsRecord ConsumerGroupTargetAssignmentMetadataTombstone(const std::string& group);
OffsetsRecord ConsumerGroupTargetAssignmentMemberRecord(const std::string& group,
                                                        const std::string& member_id,
                                                        const TopicPartitions& target);
OffsetsRecord ConsumerGroupTargetAssignmentMemberTombstone(const std::string& group,
                                                           const std::string& member_id);
// The member's epochs, state, assigned partitions (with their assignment epochs) and
// partitions pending revocation.
OffsetsRecord ConsumerGroupCurrentMemberAssignmentRecord(const std::string& group,
                                                         const ConsumerGroupMember& member);
OffsetsRecord ConsumerGroupCurrentMemberAssignmentTombstone(const std::string& group,
                                                            const std::string& member_id);

// A regular expression's resolution, and its tombstone (no member subscribes with it).
OffsetsRecord ConsumerGroupRegularExpressionRecord(const std::string& group,
                                                   const std::string& regex,
                                                   const ResolvedRegularExpression& resolved);
OffsetsRecord ConsumerGroupRegularExpressionTombstone(const std::string& group,
                                                      const std::string& regex);

// A consumer-group record read back. `value` nullopt: a tombstone.
struct LoadedConsumerGroupMetadata {
  std::string group;
  struct Value {
    int32_t epoch = 0;
    int64_t metadata_hash = 0;
  };
  std::optional<Value> value;
};
struct LoadedConsumerGroupMemberMetadata {
  std::string group;
  std::string member_id;
  // The subscription fields of a ConsumerGroupMember (its epochs and partitions untouched).
  std::optional<ConsumerGroupMember> value;
};
struct LoadedConsumerGroupTargetAssignmentMetadata {
  std::string group;
  struct Value {
    int32_t assignment_epoch = 0;
    int64_t timestamp_ms = 0;
  };
  std::optional<Value> value;
};
struct LoadedConsumerGroupTargetAssignmentMember {
  std::string group;
  std::string member_id;
  std::optional<TopicPartitions> value;
};
struct LoadedConsumerGroupCurrentMemberAssignment {
  std::string group;
  std::string member_id;
  struct Value {
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    ConsumerMemberState state = ConsumerMemberState::kStable;
    EpochPartitions assigned_partitions;
    EpochPartitions partitions_pending_revocation;
  };
  std::optional<Value> value;
};
struct LoadedConsumerGroupRegularExpression {
  std::string group;
  std::string regex;
  std::optional<ResolvedRegularExpression> value;
};
// Type 4: read, not kept.
struct IgnoredConsumerGroupRecord {
  int16_t type = 0;
  std::string group;
};
using LoadedConsumerGroupRecord =
    std::variant<LoadedConsumerGroupMetadata, LoadedConsumerGroupMemberMetadata,
                 LoadedConsumerGroupTargetAssignmentMetadata,
                 LoadedConsumerGroupTargetAssignmentMember,
                 LoadedConsumerGroupCurrentMemberAssignment, LoadedConsumerGroupRegularExpression,
                 IgnoredConsumerGroupRecord>;

// Decodes a record of a type IsConsumerGroupRecordType accepts. Corruption for a key or value
// that does not decode, has a version Kafka 4.4.0 does not write, or a current assignment
// whose AssignmentEpochs do not match its Partitions.
// REQUIRES: IsConsumerGroupRecordType(the key's type).
Result<LoadedConsumerGroupRecord> DecodeConsumerGroupRecord(
    std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_RECORDS_H_
