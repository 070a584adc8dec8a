// Kafka's error codes (org.apache.kafka.common.protocol.Errors) that seglog's broker and its
// coordinators answer with, and the mapping from an engine Status to them (the codes an append can
// end in are in seglog/validation_error.h).
//
// Thread safety: constants and pure functions.
#ifndef SEGLOG_PROTOCOL_KAFKA_ERROR_H_
#define SEGLOG_PROTOCOL_KAFKA_ERROR_H_

#include <cstdint>
#include <string>

#include "seglog/status.h"
#include "seglog/validation_error.h"

namespace seglog::kafka_error {

inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kInvalidFetchSize = 4;
inline constexpr int16_t kLeaderNotAvailable = 5;
inline constexpr int16_t kRequestTimedOut = 7;
inline constexpr int16_t kOffsetMetadataTooLarge = 12;
inline constexpr int16_t kCoordinatorLoadInProgress = 14;
inline constexpr int16_t kCoordinatorNotAvailable = 15;
inline constexpr int16_t kNotCoordinator = 16;
inline constexpr int16_t kInvalidTopic = 17;
inline constexpr int16_t kInvalidRequiredAcks = 21;
inline constexpr int16_t kIllegalGeneration = 22;
inline constexpr int16_t kInconsistentGroupProtocol = 23;
inline constexpr int16_t kInvalidGroupId = 24;
inline constexpr int16_t kUnknownMemberId = 25;
inline constexpr int16_t kInvalidSessionTimeout = 26;
inline constexpr int16_t kRebalanceInProgress = 27;
inline constexpr int16_t kGroupAuthorizationFailed = 30;
inline constexpr int16_t kClusterAuthorizationFailed = 31;
inline constexpr int16_t kSecurityDisabled = 54;
inline constexpr int16_t kUnsupportedVersion = 35;
inline constexpr int16_t kTopicAlreadyExists = 36;
inline constexpr int16_t kInvalidPartitions = 37;
inline constexpr int16_t kInvalidReplicationFactor = 38;
inline constexpr int16_t kInvalidReplicaAssignment = 39;
inline constexpr int16_t kInvalidConfig = 40;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kTopicDeletionDisabled = 73;
inline constexpr int16_t kThrottlingQuotaExceeded = 89;
inline constexpr int16_t kNotEnoughReplicas = 19;
inline constexpr int16_t kInvalidProducerIdMapping = 49;
inline constexpr int16_t kInvalidTransactionTimeout = 50;
inline constexpr int16_t kConcurrentTransactions = 51;
inline constexpr int16_t kTransactionalIdAuthorizationFailed = 53;
inline constexpr int16_t kOperationNotAttempted = 55;
inline constexpr int16_t kTopicAuthorizationFailed = 29;
inline constexpr int16_t kProducerFenced = 90;
inline constexpr int16_t kTransactionalIdNotFound = 105;
inline constexpr int16_t kTransactionAbortable = 120;
inline constexpr int16_t kNonEmptyGroup = 68;
inline constexpr int16_t kGroupIdNotFound = 69;
inline constexpr int16_t kFetchSessionIdNotFound = 70;
inline constexpr int16_t kInvalidFetchSessionEpoch = 71;
inline constexpr int16_t kFencedLeaderEpoch = 74;
inline constexpr int16_t kUnknownLeaderEpoch = 75;
inline constexpr int16_t kMemberIdRequired = 79;
inline constexpr int16_t kGroupMaxSizeReached = 81;
inline constexpr int16_t kFencedInstanceId = 82;
inline constexpr int16_t kGroupSubscribedToTopic = 86;
inline constexpr int16_t kUnstableOffsetCommit = 88;
inline constexpr int16_t kUnknownTopicId = 100;
inline constexpr int16_t kFencedMemberEpoch = 110;
inline constexpr int16_t kUnreleasedInstanceId = 111;
inline constexpr int16_t kUnsupportedAssignor = 112;
inline constexpr int16_t kStaleMemberEpoch = 113;
inline constexpr int16_t kInvalidRegularExpression = 128;
inline constexpr int16_t kReplicaNotAvailable = 9;
inline constexpr int16_t kLogDirNotFound = 57;
inline constexpr int16_t kElectionNotNeeded = 84;
inline constexpr int16_t kNoReassignmentInProgress = 85;
inline constexpr int16_t kInvalidUpdateVersion = 95;

// The code for a failed engine call: the Kafka exception its message starts with (the engine
// words its refusals that way), else by the Status code (NotFound: unknown topic or partition,
// InvalidArgument: invalid request, others: unknown server error).
int16_t FromStatus(const Status& status);

// The message without a leading "<SomethingException>: ".
std::string MessageOf(const Status& status);

}  // namespace seglog::kafka_error

#endif  // SEGLOG_PROTOCOL_KAFKA_ERROR_H_
