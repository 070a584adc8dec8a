// GroupConfig: the configs one group may have of its own (Kafka's GroupConfig, the GROUP config
// resource, type 32): every key of Kafka 4.4.0's GroupConfig.CONFIG_DEF with its type, default,
// broker synonym and documentation; the validation Kafka's controller runs on a group's new
// configs (GroupConfig.validate, with its messages); and the values a group's members get
// (GroupConfig.evaluate: a stored value clamped to the broker's bounds, else the broker's).
//
// A group's configs are kept as ConfigRecords of resource type 32 in the metadata log
// (MetadataStore::AlterGroupConfig); the broker's group.* settings are GroupCoordinatorConfig.
//
// Thread safety: value types and pure functions.
#ifndef SEGLOG_GROUP_GROUP_CONFIG_H_
#define SEGLOG_GROUP_GROUP_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "group/group_coordinator_config.h"
#include "seglog/status.h"

namespace seglog {

// ConfigDef.Type of a group config; the values are DescribeConfigsResponse's ConfigType ids.
enum class GroupConfigType : int8_t {
  kBoolean = 1,
  kString = 2,
  kInt = 3,
  kLong = 5,
  kList = 7,
};

// One key of GroupConfig.CONFIG_DEF.
struct GroupConfigDef {
  const char* name;
  GroupConfigType type;
  const char* default_value;   // CONFIG_DEF's default as Kafka prints it; nullptr: none
  const char* broker_synonym;  // the broker config that defaults it; nullptr: none
  bool internal;               // defineInternal: described only when set
  const char* documentation;
};

// Every key, in CONFIG_DEF's order.
std::span<const GroupConfigDef> GroupConfigDefs();
// nullptr when GroupConfig has no key `name`.
const GroupConfigDef* FindGroupConfigDef(std::string_view name);

// Checks a group's configs as they would be after a change (every key the group would have,
// not only the changed ones) as Kafka's controller does (GroupConfig.validate against the
// broker's bounds): InvalidArgument with Kafka's InvalidConfigurationException or
// ConfigException message (both INVALID_CONFIG on the wire) for the first problem.
Status ValidateGroupConfig(const std::map<std::string, std::string>& configs,
                           const GroupCoordinatorConfig& broker);

// share.auto.offset.reset: where a share-partition without state starts.
struct ShareAutoOffsetReset {
  enum class Type : int8_t { kLatest, kEarliest, kByDuration };
  Type type = Type::kLatest;
  int64_t duration_ms = 0;  // kByDuration: how far back from now, >= 0
};
// "latest", "earliest" or "by_duration:<ISO-8601 duration, not negative>" (Kafka's
// ShareGroupAutoOffsetResetStrategy.fromString); nullopt for anything else.
std::optional<ShareAutoOffsetReset> ParseShareAutoOffsetReset(std::string_view value);

enum class ShareIsolationLevel : int8_t { kReadUncommitted, kReadCommitted };

// What a group runs with: its own configs where it has them (clamped to the broker's bounds
// as GroupConfig.evaluate does, so a broker whose bounds changed after a group's config was
// set still enforces them), else the broker's group.* settings
// (KafkaConfig.extractGroupConfigMap).
struct GroupConfig {
  int32_t consumer_session_timeout_ms = 45000;
  int32_t consumer_heartbeat_interval_ms = 5000;
  int32_t consumer_assignment_interval_ms = 1000;
  bool consumer_assignor_offload_enable = true;
  int32_t share_session_timeout_ms = 45000;
  int32_t share_heartbeat_interval_ms = 5000;
  int32_t share_record_lock_duration_ms = 30000;
  int32_t share_delivery_count_limit = 5;
  int32_t share_partition_max_record_locks = 2000;
  ShareAutoOffsetReset share_auto_offset_reset = {ShareAutoOffsetReset::Type::kLatest, 0};
  ShareIsolationLevel share_isolation_level = ShareIsolationLevel::kReadUncommitted;
  bool share_renew_acknowledge_enable = true;
  int32_t share_assignment_interval_ms = 1000;
  bool share_assignor_offload_enable = true;
  int32_t streams_session_timeout_ms = 45000;
  int32_t streams_heartbeat_interval_ms = 5000;
  int32_t streams_num_standby_replicas = 0;
  int32_t streams_initial_rebalance_delay_ms = 3000;
  int32_t streams_assignment_interval_ms = 1000;
  std::vector<std::string> streams_rack_aware_assignment_tags;
  bool streams_assignor_offload_enable = true;
  int32_t streams_task_offset_interval_ms = 60000;
  int32_t streams_num_warmup_replicas = 2;
  int64_t streams_acceptable_recovery_lag = 10000;
  std::string streams_assignor_name = "sticky";
  std::string errors_deadletterqueue_topic_name;  // "": the group has no DLQ topic
  bool errors_deadletterqueue_copy_record_enable = false;
};

// The group config of a group whose stored configs are `stored` (MetadataStore::GroupConfigs;
// empty: a group without configs of its own). A stored value that does not parse (one the
// broker's rules would refuse now) counts as not set.
GroupConfig EffectiveGroupConfig(const GroupCoordinatorConfig& broker,
                                 const std::map<std::string, std::string>& stored);

}  // namespace seglog

#endif  // SEGLOG_GROUP_GROUP_CONFIG_H_
