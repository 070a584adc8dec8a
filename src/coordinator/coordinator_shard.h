// CoordinatorShard: what every coordinator keeps per partition of its internal topic (a shard,
// Kafka's CoordinatorShard): the partition, the mutex that serialises the shard's requests,
// loads and timers, its log once the topic exists, and whether its load failed. A coordinator's
// own shard derives from it and adds its state, guarded by the same mutex.
//
// Write-then-apply: a coordinator changes a copy of the state it is about to change, appends
// the records that make the change durable (AppendCoordinatorRecords), and keeps the copy only
// once the append succeeded, all under `mu`; a failed append changes nothing.
//
// Thread safety: `mu` guards the fields; partition is fixed at construction.
#ifndef SEGLOG_COORDINATOR_COORDINATOR_SHARD_H_
#define SEGLOG_COORDINATOR_COORDINATOR_SHARD_H_

#include <cstdint>
#include <memory>

#include "base/mutex.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"

namespace seglog {

struct CoordinatorShard {
  int32_t partition = 0;
  Mutex mu;
  std::shared_ptr<Log> log GUARDED_BY(mu);  // null until the topic exists
  bool failed GUARDED_BY(mu) = false;       // its load failed: answers NOT_COORDINATOR

  // Whether the shard may serve a request (0), else the error to answer: NOT_COORDINATOR when
  // the coordinator shut down or the load failed, COORDINATOR_NOT_AVAILABLE before the topic
  // exists.
  int16_t Unavailable(bool shut_down) const REQUIRES(mu) {
    if (shut_down) return kafka_error::kNotCoordinator;
    if (log == nullptr) return kafka_error::kCoordinatorNotAvailable;
    if (failed) return kafka_error::kNotCoordinator;
    return kafka_error::kNone;
  }
};

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_COORDINATOR_SHARD_H_
