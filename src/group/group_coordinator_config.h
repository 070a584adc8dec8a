// GroupCoordinatorConfig: the group coordinator's broker settings, with Kafka's names, defaults
// and validation (GroupCoordinatorConfig). offsets.topic.replication.factor is accepted and
// ignored by the node: one node holds the only replica.
//
// Thread safety: a value type.
#ifndef SEGLOG_GROUP_GROUP_COORDINATOR_CONFIG_H_
#define SEGLOG_GROUP_GROUP_COORDINATOR_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "group/streams_group_config.h"
#include "seglog/status.h"

namespace seglog {

struct GroupCoordinatorConfig {
  int32_t offsets_topic_num_partitions = 50;             // offsets.topic.num.partitions, >= 1
  int32_t offsets_topic_segment_bytes = 104857600;       // offsets.topic.segment.bytes, >= 1
  int32_t group_min_session_timeout_ms = 6000;           // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;        // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000;       // group.initial.rebalance.delay.ms, >= 0
  int32_t group_max_size = INT32_MAX;                    // group.max.size, >= 1
  int32_t offset_metadata_max_bytes = 4096;              // offset.metadata.max.bytes (Java chars)
  int64_t offsets_retention_minutes = 10080;             // offsets.retention.minutes, >= 1
  int64_t offsets_retention_check_interval_ms = 600000;  // offsets.retention.check.interval.ms
  // KIP-848's consumer groups (ConsumerGroupHeartbeat): the members' session timeout and the
  // heartbeat interval the coordinator tells them (the interval must be below the timeout),
  // the most members a group may have, and the server-side assignors (the first is the
  // default; each "uniform" or "range", or the class name of Kafka's).
  int32_t group_consumer_session_timeout_ms = 45000;    // group.consumer.session.timeout.ms
  int32_t group_consumer_heartbeat_interval_ms = 5000;  // group.consumer.heartbeat.interval.ms
  int32_t group_consumer_max_size = INT32_MAX;          // group.consumer.max.size, >= 1
  std::vector<std::string> group_consumer_assignors = {"uniform", "range"};  // ..assignors
  // How often the topics of a group's regular expressions are resolved again even when no
  // topic was created (Kafka's internal group.consumer.regex.refresh.interval.ms, >= 10 s).
  int32_t group_consumer_regex_refresh_interval_ms = 600000;
  // group.consumer.migration.policy (bidirectional, upgrade, downgrade, disabled; any case):
  // whether a live classic group becomes a consumer group when a ConsumerGroupHeartbeat member
  // joins it (upgrade), and a consumer group whose last consumer-protocol member leaves
  // becomes a classic group again (downgrade). Empty groups convert whatever it says.
  bool group_consumer_migration_upgrade = true;
  bool group_consumer_migration_downgrade = true;
  // KIP-932's share groups (ShareGroupHeartbeat): the members' session timeout and the
  // heartbeat interval the coordinator tells them, each within its min/max settings; the most
  // members a group may have; the assignors (only "simple", Kafka's SimpleAssignor); how often
  // a group's target assignment may be computed again (0: at every heartbeat that needs it);
  // whether the assignor runs on a background thread (accepted, ignored: seglog runs it in
  // the heartbeat); how long a share-partition initialization may stay unanswered before a
  // heartbeat asks again.
  int32_t group_share_session_timeout_ms = 45000;         // group.share.session.timeout.ms
  int32_t group_share_min_session_timeout_ms = 45000;     // group.share.min.session.timeout.ms
  int32_t group_share_max_session_timeout_ms = 60000;     // group.share.max.session.timeout.ms
  int32_t group_share_heartbeat_interval_ms = 5000;       // group.share.heartbeat.interval.ms
  int32_t group_share_min_heartbeat_interval_ms = 5000;   // group.share.min.heartbeat.interval.ms
  int32_t group_share_max_heartbeat_interval_ms = 15000;  // ..max.heartbeat.interval.ms
  int32_t group_share_max_size = 200;                     // group.share.max.size, >= 1
  std::vector<std::string> group_share_assignors = {"simple"};  // group.share.assignors
  int32_t group_share_assignment_interval_ms = 1000;   // group.share.assignment.interval.ms
  int32_t group_share_min_assignment_interval_ms = 0;  // group.share.min.assignment.interval.ms
  // group.share.max.assignment.interval.ms
  int32_t group_share_max_assignment_interval_ms = 15000;
  bool group_share_assignor_offload_enable = true;  // group.share.assignor.offload.enable
  // group.share.initialize.retry.interval.ms
  int32_t group_share_initialize_retry_interval_ms = 30000;

  // KIP-1071's streams groups: the group.streams.* settings.
  StreamsGroupConfig streams;

  // The bounds a group's own consumer.* configs (GroupConfig) are validated against and
  // clamped to (GroupConfig.validate and evaluate), its assignment interval, and whether its
  // assignor runs on a background thread (accepted, ignored: seglog assigns in the heartbeat).
  int32_t group_consumer_min_session_timeout_ms = 45000;     // group.consumer.min.session..
  int32_t group_consumer_max_session_timeout_ms = 60000;     // group.consumer.max.session..
  int32_t group_consumer_min_heartbeat_interval_ms = 5000;   // group.consumer.min.heartbeat..
  int32_t group_consumer_max_heartbeat_interval_ms = 15000;  // group.consumer.max.heartbeat..
  int32_t group_consumer_assignment_interval_ms = 1000;   // group.consumer.assignment.interval.ms
  int32_t group_consumer_min_assignment_interval_ms = 0;  // group.consumer.min.assignment..
  int32_t group_consumer_max_assignment_interval_ms = 15000;  // group.consumer.max.assignment..
  bool group_consumer_assignor_offload_enable = true;  // group.consumer.assignor.offload.enable
  // Share groups' record locks (Kafka's ShareGroupConfig): how long a delivered record stays
  // acquired, how often a record is delivered before it is archived, and how many records of
  // one share-partition may be in flight; each with the bounds a group's own
  // share.record.lock.duration.ms, share.delivery.count.limit and
  // share.partition.max.record.locks must keep (and are clamped to).
  int32_t group_share_record_lock_duration_ms = 30000;      // group.share.record.lock.duration.ms
  int32_t group_share_min_record_lock_duration_ms = 15000;  // group.share.min.record.lock..
  int32_t group_share_max_record_lock_duration_ms = 60000;  // group.share.max.record.lock..
  int32_t group_share_delivery_count_limit = 5;             // group.share.delivery.count.limit
  int32_t group_share_min_delivery_count_limit = 2;         // group.share.min.delivery.count.limit
  int32_t group_share_max_delivery_count_limit = 10;        // group.share.max.delivery.count.limit
  int32_t group_share_partition_max_record_locks = 2000;  // group.share.partition.max.record.locks
  int32_t group_share_min_partition_max_record_locks = 100;   // group.share.min.partition.max..
  int32_t group_share_max_partition_max_record_locks = 4000;  // group.share.max.partition.max..
  // group.streams.assignor.offload.enable (accepted, ignored).
  bool group_streams_assignor_offload_enable = true;

  // Sets `key` when it is one of the settings above (the outcome of parsing `value`, in
  // Kafka's words); nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
  // The rules across settings, each broken one appended to `errors`.
  void Validate(std::vector<std::string>* errors) const;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_GROUP_COORDINATOR_CONFIG_H_
