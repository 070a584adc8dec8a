// SharePartitionKey: which share-partition a piece of share state belongs to - a share group,
// a topic (by id) and a partition (Kafka's SharePartitionKey). Its coordinator key,
// "<group id>:<topic id>:<partition>" with the topic id in Kafka's base64 text, is what
// FindCoordinator key type 2 (SHARE) names and what picks its partition of
// __share_group_state: Utils.abs(key.hashCode()) % share.coordinator.state.topic.num.partitions
// (ShareCoordinatorService.partitionFor; docs/format/share_group_state.md).
//
// Thread safety: a value type.
#ifndef SEGLOG_SHARESTATE_SHARE_PARTITION_KEY_H_
#define SEGLOG_SHARESTATE_SHARE_PARTITION_KEY_H_

#include <compare>
#include <cstdint>
#include <string>

#include "base/uuid.h"

namespace seglog {

struct SharePartitionKey {
  std::string group_id;
  Uuid topic_id;
  int32_t partition = 0;

  // "<group id>:<topic id>:<partition>" (SharePartitionKey.asCoordinatorKey).
  std::string CoordinatorKey() const {
    return group_id + ":" + topic_id.ToString() + ":" + std::to_string(partition);
  }
  bool operator==(const SharePartitionKey&) const = default;
  auto operator<=>(const SharePartitionKey&) const = default;
};

}  // namespace seglog

#endif  // SEGLOG_SHARESTATE_SHARE_PARTITION_KEY_H_
