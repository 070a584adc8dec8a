// ShareCoordinatorConfig: the share coordinator's broker settings, with Kafka's names, defaults
// and bounds (ShareCoordinatorConfig). The other share.coordinator.* keys (the state topic's
// replication factor, min.isr and compression codec, threads, write.timeout.ms,
// load.buffer.size, append.linger.ms, cached.buffer.max.bytes) are the broker's to accept and
// have no effect here: one node holds the only replica, a write is appended uncompressed by
// the caller's thread at once, as seglog's other coordinators do.
//
// Thread safety: a value type.
#ifndef SEGLOG_SHARESTATE_SHARE_COORDINATOR_CONFIG_H_
#define SEGLOG_SHARESTATE_SHARE_COORDINATOR_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>

#include "seglog/status.h"

namespace seglog {

struct ShareCoordinatorConfig {
  int32_t state_topic_num_partitions = 50;        // share.coordinator.state.topic.num.partitions
  int32_t state_topic_segment_bytes = 104857600;  // share.coordinator.state.topic.segment.bytes
  int32_t snapshot_update_records_per_snapshot = 500;  // ...snapshot.update.records.per.snapshot
  int32_t state_topic_prune_interval_ms =
      300000;  // share.coordinator.state.topic.prune.interval.ms
  int32_t cold_partition_snapshot_interval_ms = 300000;  // ...cold.partition.snapshot.interval.ms

  // Sets `key` when it is one of the settings above (the outcome of parsing `value`, in
  // Kafka's words); nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
};

}  // namespace seglog

#endif  // SEGLOG_SHARESTATE_SHARE_COORDINATOR_CONFIG_H_
