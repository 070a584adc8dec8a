// StreamsGroupConfig: the broker settings of KIP-1071's streams groups (group.streams.*), with
// Kafka 4.4.0's names and defaults (GroupCoordinatorConfig). GroupCoordinatorConfig holds one
// and hands it the group.streams.* keys.
//
// Thread safety: a value type.
#ifndef SEGLOG_GROUP_STREAMS_GROUP_CONFIG_H_
#define SEGLOG_GROUP_STREAMS_GROUP_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seglog/status.h"

namespace seglog {

struct StreamsGroupConfig {
  // The members' session timeout, and the bounds a group's streams.session.timeout.ms may
  // take.
  int32_t session_timeout_ms = 45000;      // group.streams.session.timeout.ms, >= 1
  int32_t min_session_timeout_ms = 45000;  // group.streams.min.session.timeout.ms, >= 1
  int32_t max_session_timeout_ms = 60000;  // group.streams.max.session.timeout.ms, >= 1
  // The heartbeat interval told to the members, and its bounds for the group-level config.
  int32_t heartbeat_interval_ms = 5000;       // group.streams.heartbeat.interval.ms, >= 1
  int32_t min_heartbeat_interval_ms = 5000;   // group.streams.min.heartbeat.interval.ms, >= 1
  int32_t max_heartbeat_interval_ms = 15000;  // group.streams.max.heartbeat.interval.ms, >= 1
  int32_t max_size = INT32_MAX;               // group.streams.max.size, >= 1
  // Standby replicas per stateful task (the sticky assignor's num.standby.replicas), and the
  // most a group-level streams.num.standby.replicas may ask.
  int32_t num_standby_replicas = 0;  // group.streams.num.standby.replicas, >= 0
  int32_t max_standby_replicas = 2;  // group.streams.max.standby.replicas, >= 0
  // Warm-up replicas (4.4.0's sticky assignor assigns none) and their group-level bound.
  int32_t num_warmup_replicas = 2;   // group.streams.num.warmup.replicas, >= 0
  int32_t max_warmup_replicas = 20;  // group.streams.max.warmup.replicas, >= 0
  // How long a new group waits for more members before its first assignment.
  int32_t initial_rebalance_delay_ms = 3000;  // group.streams.initial.rebalance.delay.ms, >= 0
  // The least time between two assignments of a group, and its group-level bounds.
  int32_t assignment_interval_ms = 1000;       // group.streams.assignment.interval.ms, >= 0
  int32_t min_assignment_interval_ms = 0;      // group.streams.min.assignment.interval.ms, >= 0
  int32_t max_assignment_interval_ms = 15000;  // group.streams.max.assignment.interval.ms, >= 0
  // How often members report their task offsets, and its group-level lower bound.
  int32_t task_offset_interval_ms = 60000;      // group.streams.task.offset.interval.ms, >= 1
  int32_t min_task_offset_interval_ms = 15000;  // group.streams.min.task.offset.interval.ms
  // The lag under which a warm-up is caught up (group.streams.acceptable.recovery.lag, >= 0).
  int64_t acceptable_recovery_lag = 10000;
  // group.streams.assignors: exactly one; seglog has "sticky" only.
  std::string assignor = "sticky";
  // group.streams.rack.aware.assignment.tags: client tag keys for rack-aware standbys
  // (accepted and kept; 4.4.0's sticky assignor ignores them), no duplicates.
  std::vector<std::string> rack_aware_assignment_tags;

  // Sets `key` when it is one of the settings above (the outcome of parsing `value`, in
  // Kafka's words); nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
  // The rules across settings, each broken one appended to `errors` in Kafka's words.
  void Validate(std::vector<std::string>* errors) const;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_CONFIG_H_
