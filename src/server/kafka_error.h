// Kafka's error codes (org.apache.kafka.common.protocol.Errors) that seglog's broker answers
// with, and the mapping from an engine Status to them (the codes an append can end in are in
// seglog/validation_error.h).
//
// Thread safety: constants and pure functions.
#ifndef SEGLOG_SERVER_KAFKA_ERROR_H_
#define SEGLOG_SERVER_KAFKA_ERROR_H_

#include <cstdint>
#include <string>

#include "seglog/status.h"
#include "seglog/validation_error.h"

namespace seglog::kafka_error {

inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kLeaderNotAvailable = 5;
inline constexpr int16_t kNotLeaderOrFollower = 6;
inline constexpr int16_t kRequestTimedOut = 7;
inline constexpr int16_t kCoordinatorNotAvailable = 15;
inline constexpr int16_t kInvalidTopic = 17;
inline constexpr int16_t kInvalidRequiredAcks = 21;
inline constexpr int16_t kUnsupportedVersion = 35;
inline constexpr int16_t kTopicAlreadyExists = 36;
inline constexpr int16_t kInvalidPartitions = 37;
inline constexpr int16_t kInvalidReplicationFactor = 38;
inline constexpr int16_t kInvalidReplicaAssignment = 39;
inline constexpr int16_t kInvalidConfig = 40;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kInvalidTransactionTimeout = 50;
inline constexpr int16_t kFetchSessionIdNotFound = 70;
inline constexpr int16_t kInvalidFetchSessionEpoch = 71;
inline constexpr int16_t kFencedLeaderEpoch = 74;
inline constexpr int16_t kUnknownLeaderEpoch = 75;
inline constexpr int16_t kUnknownTopicId = 100;

// The code for a failed engine call: the Kafka exception its message starts with (the engine
// words its refusals that way), else by the Status code (NotFound: unknown topic or partition,
// InvalidArgument: invalid request, others: unknown server error).
int16_t FromStatus(const Status& status);

// The message without a leading "<SomethingException>: ".
std::string MessageOf(const Status& status);

}  // namespace seglog::kafka_error

#endif  // SEGLOG_SERVER_KAFKA_ERROR_H_
