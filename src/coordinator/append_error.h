// What a client is told when a coordinator could not append its records: Kafka maps the
// append's error to a coordinator error, so that the client looks for the coordinator again
// (NOT_COORDINATOR), retries (COORDINATOR_NOT_AVAILABLE) or gives up (UNKNOWN_SERVER_ERROR).
// Kafka 4.4.0 has two mappings, one per coordinator generation, and seglog keeps both here:
//
//   append error                          group coordinator           transaction coordinator
//   UNKNOWN_TOPIC_OR_PARTITION,           COORDINATOR_NOT_AVAILABLE   COORDINATOR_NOT_AVAILABLE
//     REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS
//   NOT_LEADER_OR_FOLLOWER,               NOT_COORDINATOR             NOT_COORDINATOR
//     KAFKA_STORAGE_ERROR
//   MESSAGE_TOO_LARGE,                    UNKNOWN_SERVER_ERROR        UNKNOWN_SERVER_ERROR
//     RECORD_LIST_TOO_LARGE
//   INVALID_FETCH_SIZE                    UNKNOWN_SERVER_ERROR        COORDINATOR_NOT_AVAILABLE
//   any other error                       itself (none: UNKNOWN_...)  COORDINATOR_NOT_AVAILABLE
//
// Kafka: coordinator-common's CoordinatorOperationExceptionHelper.mapGroupCoordinatorError
// (the group coordinator, on CoordinatorRuntime) and TransactionStateManager's
// appendTransactionToLog (the transaction coordinator). docs/design/coordinator_runtime.md.
//
// Thread safety: pure functions.
#ifndef SEGLOG_COORDINATOR_APPEND_ERROR_H_
#define SEGLOG_COORDINATOR_APPEND_ERROR_H_

#include <cstdint>

#include "seglog/status.h"

namespace seglog {

int16_t GroupCoordinatorAppendError(const Status& append);
int16_t TransactionCoordinatorAppendError(const Status& append);

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_APPEND_ERROR_H_
