// The append-error mappings; see append_error.h.
#include "coordinator/append_error.h"

#include "protocol/kafka_error.h"

namespace seglog {

namespace ke = kafka_error;

int16_t GroupCoordinatorAppendError(const Status& append) {
  const int16_t code = ke::FromStatus(append);
  switch (code) {
    case ke::kUnknownTopicOrPartition:
    case ke::kRequestTimedOut:
    case ke::kNotEnoughReplicas:
      return ke::kCoordinatorNotAvailable;
    case ke::kNotLeaderOrFollower:
    case ke::kKafkaStorageError:
      return ke::kNotCoordinator;
    case ke::kMessageTooLarge:
    case ke::kRecordListTooLarge:
    case ke::kInvalidFetchSize:
      return ke::kUnknownServerError;
    default:
      return code == ke::kNone ? ke::kUnknownServerError : code;
  }
}

int16_t TransactionCoordinatorAppendError(const Status& append) {
  switch (ke::FromStatus(append)) {
    case ke::kNotLeaderOrFollower:
    case ke::kKafkaStorageError:
      return ke::kNotCoordinator;
    case ke::kMessageTooLarge:
    case ke::kRecordListTooLarge:
      return ke::kUnknownServerError;
    default:
      return ke::kCoordinatorNotAvailable;
  }
}

}  // namespace seglog
