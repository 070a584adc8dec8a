// InternalTopic: the compacted topic a coordinator keeps its state in (__consumer_offsets,
// __transaction_state), created when the first request needs it, as Kafka's brokers create
// them through auto topic creation: with the configured partition count (an existing topic
// keeps its own) and the coordinator's topic configs (cleanup.policy=compact and its segment
// size, compression). Its partitions are the coordinator's shards: a key (a group id, a
// transactional id) belongs to partition CoordinatorPartitionFor(key) (Kafka's partitionFor).
//
// Thread safety: thread-safe; Ensure may be called from any thread, concurrently.
#ifndef SEGLOG_COORDINATOR_INTERNAL_TOPIC_H_
#define SEGLOG_COORDINATOR_INTERNAL_TOPIC_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/logger.h"
#include "seglog/status.h"

namespace seglog {

class InternalTopic {
 public:
  struct Options {
    std::string name;
    int32_t partitions = 1;                      // when the topic does not exist yet
    std::map<std::string, std::string> configs;  // the topic's configs when created
  };
  // Looks the topic up: an existing topic keeps its partition count. `logger` gets a line when
  // the topic is created.
  InternalTopic(LogManager* logs, Options options, Logger logger);

  const std::string& name() const { return options_.name; }
  int32_t partitions() const { return partitions_; }
  // Whether the topic existed at construction or Ensure made it.
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  // The partition that owns `key`.
  int32_t PartitionFor(std::string_view key) const;

  // Creates the topic when it does not exist yet, then hands each partition's log to
  // `attach(partition, log)`. Once it succeeded, later calls return OK at once.
  Status Ensure(const std::function<void(int32_t, std::shared_ptr<Log>)>& attach) EXCLUDES(mu_);

 private:
  LogManager* const logs_;
  const Options options_;
  const Logger logger_;
  int32_t partitions_ = 0;  // fixed at construction
  Mutex mu_;                // serialises the creation
  std::atomic<bool> ready_{false};
};

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_INTERNAL_TOPIC_H_
