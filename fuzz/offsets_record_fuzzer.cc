// libFuzzer target for the records of __consumer_offsets read back at load: every key and value
// decoder Kafka's group coordinator records go through (offsets_records.h for types 0-2,
// consumer_group_records.h for KIP-848's 3-8 and 16). The input is used three ways: as a whole
// key with no value (a tombstone), as a key followed by a value (split at its first byte), and
// as the value of a well-formed key of every record type, so the value decoders are reached
// without the fuzzer having to find a key first. The same input is also a classic member's
// ConsumerProtocol subscription and assignment (consumer_protocol.h) - bytes a client sends in
// JoinGroup/SyncGroup and a group's record keeps - read alone and through an online upgrade of
// a classic group holding them (group_conversion.h). Build with the `fuzz` preset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "group/classic_group.h"
#include "group/consumer_group_records.h"
#include "group/consumer_protocol.h"
#include "group/group_conversion.h"
#include "group/offsets_records.h"

using namespace seglog;

namespace {

void Decode(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value) {
  if (key.size() >= 2) {
    const int16_t type = static_cast<int16_t>(key[0] << 8 | key[1]);
    if (IsConsumerGroupRecordType(type)) {
      (void)DecodeConsumerGroupRecord(key, value);
      return;
    }
  }
  (void)DecodeOffsetsRecord(key, value);
}

// A well-formed key of each record type: the group "g", member "m", topic "t" partition 0.
std::vector<std::vector<uint8_t>> Keys() {
  std::vector<std::vector<uint8_t>> keys;
  keys.push_back(OffsetCommitTombstone("g", "t", 0).key);
  keys.push_back(GroupMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupMemberMetadataTombstone("g", "m").key);
  keys.push_back(ConsumerGroupTargetAssignmentMetadataTombstone("g").key);
  keys.push_back(ConsumerGroupTargetAssignmentMemberTombstone("g", "m").key);
  keys.push_back(ConsumerGroupCurrentMemberAssignmentTombstone("g", "m").key);
  std::vector<uint8_t> legacy = OffsetCommitTombstone("g", "t", 0).key;
  legacy[1] = 0;  // type 0 has the same key layout as type 1
  keys.push_back(legacy);
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::vector<uint8_t>> keys = Keys();
  const std::span<const uint8_t> in(data, size);
  Decode(in, std::nullopt);
  if (size > 0) {
    const size_t split = std::min<size_t>(data[0], size - 1);
    Decode(in.subspan(1, split), in.subspan(1 + split));
  }
  for (const auto& key : keys) Decode(key, in);

  (void)DecodeConsumerProtocolSubscription(in);
  (void)DecodeConsumerProtocolAssignment(in);
  ClassicGroupMember m;
  m.member_id = "m";
  m.protocol_type = "consumer";
  m.protocols.push_back({"range", std::vector<uint8_t>(in.begin(), in.end())});
  m.assignment.assign(in.begin(), in.end());
  ClassicGroup g("g", 0);
  g.RestoreFromRecord(1, "consumer", "range", "m", 0, {m});
  const Uuid topic = Uuid::Random();
  (void)ConsumerGroupFromClassicGroup(g, [&](const std::string& name) {
    return std::optional<ConsumerGroupTopic>(ConsumerGroupTopic{topic, name, 8});
  });
  return 0;
}
