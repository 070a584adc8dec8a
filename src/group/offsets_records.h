// The records of __consumer_offsets, byte for byte as Kafka 4.4.0's group coordinator writes
// them (CoordinatorRecordSerde): the key is an int16 record type (the key schema's apiKey)
// followed by the key struct at version 0; the value is an int16 version followed by the value
// struct at that version; a null value is a tombstone (the compacted topic then drops the key).
//
//   key    [int16 type][OffsetCommitKey v0: group, topic, partition]              type 1
//          [int16 type][GroupMetadataKey v0: group]                               type 2
//   value  [int16 4][OffsetCommitValue v4: offset, leaderEpoch, metadata,
//                    commitTimestamp, tag 0 = topicId when set]     (v1 when an expire time is set)
//          [int16 3][GroupMetadataValue v3: protocolType, generation, protocol, leader,
//                    currentStateTimestamp, members[memberId, groupInstanceId, clientId,
//                    clientHost, rebalanceTimeout, sessionTimeout, subscription, assignment]]
//
// Specified in docs/format/consumer_offsets.md. Reading accepts every version Kafka 4.4.0
// reads (type 0: the legacy offset commit key; values OffsetCommitValue v0-4 and
// GroupMetadataValue v0-4) and reports any other type as unknown, to be skipped.
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_OFFSETS_RECORDS_H_
#define SEGLOG_GROUP_OFFSETS_RECORDS_H_

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/uuid.h"
#include "coordinator/coordinator_record.h"
#include "group/classic_group.h"
#include "protocol/protocol_writer.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr int16_t kLegacyOffsetCommitRecordType = 0;
inline constexpr int16_t kOffsetCommitRecordType = 1;
inline constexpr int16_t kGroupMetadataRecordType = 2;

// A committed offset as the coordinator keeps it (Kafka's OffsetAndMetadata).
struct CommittedOffset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp_ms = -1;
  std::optional<int64_t> expire_timestamp_ms;  // only from a v2-4 commit's retention time
  Uuid topic_id;                               // zero when unknown
  bool operator==(const CommittedOffset&) const = default;
};

// [int16 prefix][message at `version`]: a key (prefix = the record type, version 0) or a
// value (prefix = version) as the coordinators write them.
// REQUIRES: `m` is valid at `version` (the coordinator builds its own records; a failure to
// encode is a programming error and aborts).
template <typename Message>
std::vector<uint8_t> PrefixedRecordBytes(int16_t prefix, const Message& m, int16_t version) {
  protocol::ProtocolWriter w;
  w.WriteInt16(prefix);
  if (!m.Encode(&w, version).ok()) std::abort();
  return w.bytes();
}

// A record of __consumer_offsets (every coordinator's record has this shape).
using OffsetsRecord = CoordinatorRecord;

// Building blocks of the group records (consumer, share and streams groups): keys that name a
// group, or a group and a member, and records of a key alone (a tombstone) or a key and a value
// at version 0.
namespace offsets_record {
template <typename Key>
Key GroupKey(const std::string& group) {
  Key k;
  k.group_id = group;
  return k;
}
template <typename Key>
Key MemberKey(const std::string& group, const std::string& member_id) {
  Key k;
  k.group_id = group;
  k.member_id = member_id;
  return k;
}
template <typename Key>
OffsetsRecord KeyOnly(int16_t type, const Key& key) {
  return {PrefixedRecordBytes(type, key, 0), std::nullopt};
}
template <typename Key, typename Value>
OffsetsRecord KeyValue(int16_t type, const Key& key, const Value& value) {
  return {PrefixedRecordBytes(type, key, 0), PrefixedRecordBytes(0, value, 0)};
}
}  // namespace offsets_record

OffsetsRecord OffsetCommitRecord(const std::string& group, const std::string& topic,
                                 int32_t partition, const CommittedOffset& offset);
OffsetsRecord OffsetCommitTombstone(const std::string& group, const std::string& topic,
                                    int32_t partition);
// The group as it stands: generation, protocol, leader, state timestamp and, for each member,
// the metadata of the chosen protocol and its assignment.
OffsetsRecord GroupMetadataRecord(const ClassicGroup& group);
// What Kafka writes when a group is created: no protocol type, generation 0, no protocol or
// leader, no members, the creation time as its state timestamp.
OffsetsRecord EmptyGroupMetadataRecord(const std::string& group, int64_t created_ms);
OffsetsRecord GroupMetadataTombstone(const std::string& group);

// A record read back from __consumer_offsets.
struct LoadedOffsetCommit {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  std::optional<CommittedOffset> offset;  // nullopt: tombstone
};
struct LoadedGroupMetadata {
  std::string group;
  struct Value {
    std::string protocol_type;
    int32_t generation = 0;
    std::optional<std::string> protocol;
    std::optional<std::string> leader;
    int64_t current_state_timestamp_ms = -1;
    std::vector<ClassicGroupMember> members;  // protocols: the chosen one only
  };
  std::optional<Value> value;  // nullopt: tombstone
};
struct UnknownOffsetsRecord {
  int16_t type = 0;
};
using LoadedOffsetsRecord =
    std::variant<LoadedOffsetCommit, LoadedGroupMetadata, UnknownOffsetsRecord>;

// Decodes one record's key and value (value nullopt: a tombstone). Corruption for a key or
// value that does not decode at its version (a truncated struct, a version out of range).
Result<LoadedOffsetsRecord> DecodeOffsetsRecord(std::span<const uint8_t> key,
                                                std::optional<std::span<const uint8_t>> value);

}  // namespace seglog

#endif  // SEGLOG_GROUP_OFFSETS_RECORDS_H_
