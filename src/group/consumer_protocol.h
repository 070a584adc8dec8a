// The bytes of the classic group protocol's "consumer" embedded protocol (Kafka's
// ConsumerProtocol): a JoinGroup member's metadata is a ConsumerProtocolSubscription and a
// SyncGroup assignment a ConsumerProtocolAssignment, each as [int16 version][the struct at that
// version]. A version above the newest this build knows is read as the newest (its extra fields
// follow and are left unread, as Java's ConsumerProtocol does); bytes after the struct are
// ignored.
//
// Thread safety: functions.
#ifndef SEGLOG_GROUP_CONSUMER_PROTOCOL_H_
#define SEGLOG_GROUP_CONSUMER_PROTOCOL_H_

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "protocol/generated/consumer_protocol_assignment.h"
#include "protocol/generated/consumer_protocol_subscription.h"
#include "seglog/result.h"

namespace seglog {

// The version prefix of either structure: Corruption for fewer than 2 bytes or a negative one.
Result<int16_t> ConsumerProtocolVersion(std::span<const uint8_t> bytes);

Result<protocol::ConsumerProtocolSubscription> DecodeConsumerProtocolSubscription(
    std::span<const uint8_t> bytes);
Result<protocol::ConsumerProtocolAssignment> DecodeConsumerProtocolAssignment(
    std::span<const uint8_t> bytes);

// topic name -> partitions, at `version` (capped at the newest this build writes).
std::vector<uint8_t> EncodeConsumerProtocolAssignment(
    const std::map<std::string, std::set<int32_t>>& partitions, int16_t version);

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_PROTOCOL_H_
