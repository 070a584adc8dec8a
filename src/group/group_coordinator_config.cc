// GroupCoordinatorConfig; see group_coordinator_config.h.
#include "group/group_coordinator_config.h"

#include <fmt/format.h>

#include <cctype>

#include "base/config_values.h"

namespace seglog {

namespace {

using C = GroupCoordinatorConfig;

// "uniform, range" (or Kafka's class names for them) -> the assignor names.
Status SetAssignors(C* c, const std::string&, const std::string& v) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string name = v.substr(start, comma - start);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
      name.pop_back();
    }
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front()))) {
      name.erase(name.begin());
    }
    // Kafka takes class names too: its two built-in assignors by theirs.
    if (name == "org.apache.kafka.coordinator.group.assignor.UniformAssignor") name = "uniform";
    if (name == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") name = "range";
    if (name != "uniform" && name != "range") {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration group.consumer.assignors: seglog has the "
                      "assignors uniform and range",
                      v));
    }
    names.push_back(name);
    start = comma + 1;
  }
  c->group_consumer_assignors = std::move(names);
  return Status::OK();
}

// "simple" (or Kafka's class name for it): the only share-group assignor.
Status SetShareAssignors(C* c, const std::string&, const std::string& v) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string name = v.substr(start, comma - start);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
      name.pop_back();
    }
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front()))) {
      name.erase(name.begin());
    }
    if (name == "org.apache.kafka.coordinator.group.assignor.SimpleAssignor") name = "simple";
    if (name != "simple") {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration group.share.assignors: seglog has the "
                      "assignor simple",
                      v));
    }
    names.push_back(name);
    start = comma + 1;
  }
  c->group_share_assignors = std::move(names);
  return Status::OK();
}

Status SetMigrationPolicy(C* c, const std::string&, const std::string& v) {
  std::string p = v;
  for (char& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (p != "bidirectional" && p != "upgrade" && p != "downgrade" && p != "disabled") {
    return Status::InvalidArgument(fmt::format(
        "Invalid value {} for configuration group.consumer.migration.policy: String must "
        "be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL",
        v));
  }
  c->group_consumer_migration_upgrade = p == "bidirectional" || p == "upgrade";
  c->group_consumer_migration_downgrade = p == "bidirectional" || p == "downgrade";
  return Status::OK();
}

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"offsets.topic.num.partitions",
       SetConfigInt<C, int32_t, &C::offsets_topic_num_partitions, 1>},
      {"offsets.topic.segment.bytes", SetConfigInt<C, int32_t, &C::offsets_topic_segment_bytes, 1>},
      {"group.min.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_min_session_timeout_ms, INT32_MIN>},
      {"group.max.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_max_session_timeout_ms, INT32_MIN>},
      {"group.initial.rebalance.delay.ms",
       SetConfigInt<C, int32_t, &C::group_initial_rebalance_delay_ms, 0>},
      {"group.max.size", SetConfigInt<C, int32_t, &C::group_max_size, 1>},
      {"group.consumer.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_session_timeout_ms, 1>},
      {"group.consumer.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_heartbeat_interval_ms, 1>},
      {"group.consumer.regex.refresh.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_regex_refresh_interval_ms, 10000>},
      {"group.consumer.max.size", SetConfigInt<C, int32_t, &C::group_consumer_max_size, 1>},
      {"group.consumer.assignors", SetAssignors},
      {"group.consumer.migration.policy", SetMigrationPolicy},
      {"group.share.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_share_session_timeout_ms, 1>},
      {"group.share.min.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_share_min_session_timeout_ms, 1>},
      {"group.share.max.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_share_max_session_timeout_ms, 1>},
      {"group.share.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_heartbeat_interval_ms, 1>},
      {"group.share.min.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_min_heartbeat_interval_ms, 1>},
      {"group.share.max.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_max_heartbeat_interval_ms, 1>},
      {"group.share.max.size", SetConfigInt<C, int32_t, &C::group_share_max_size, 1>},
      {"group.share.assignors", SetShareAssignors},
      {"group.share.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_assignment_interval_ms, 0>},
      {"group.share.min.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_min_assignment_interval_ms, 0>},
      {"group.share.max.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_max_assignment_interval_ms, 0>},
      {"group.share.assignor.offload.enable",
       [](C* c, const std::string&, const std::string& v) {
         std::string b = v;
         for (char& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
         if (b != "true" && b != "false") {
           return Status::InvalidArgument(fmt::format(
               "Invalid value {} for configuration group.share.assignor.offload.enable: Expected "
               "value to be either true or false",
               v));
         }
         c->group_share_assignor_offload_enable = b == "true";
         return Status::OK();
       }},
      {"group.share.initialize.retry.interval.ms",
       SetConfigInt<C, int32_t, &C::group_share_initialize_retry_interval_ms, 1>},
      {"offset.metadata.max.bytes",
       SetConfigInt<C, int32_t, &C::offset_metadata_max_bytes, INT32_MIN>},
      {"offsets.retention.minutes",
       [](C* c, const std::string&, const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("offsets.retention.minutes", v, 1, &x);
         if (s.ok()) c->offsets_retention_minutes = x;
         return s;
       }},
      {"offsets.retention.check.interval.ms",
       SetConfigInt<C, int64_t, &C::offsets_retention_check_interval_ms, 1>},
      {"group.consumer.min.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_min_session_timeout_ms, 1>},
      {"group.consumer.max.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_max_session_timeout_ms, 1>},
      {"group.consumer.min.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_min_heartbeat_interval_ms, 1>},
      {"group.consumer.max.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_max_heartbeat_interval_ms, 1>},
      {"group.consumer.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_assignment_interval_ms, 0>},
      {"group.consumer.min.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_min_assignment_interval_ms, 0>},
      {"group.consumer.max.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::group_consumer_max_assignment_interval_ms, 0>},
      {"group.share.record.lock.duration.ms",
       SetConfigInt<C, int32_t, &C::group_share_record_lock_duration_ms, 1000>},
      {"group.share.min.record.lock.duration.ms",
       SetConfigInt<C, int32_t, &C::group_share_min_record_lock_duration_ms, 1000>},
      {"group.share.max.record.lock.duration.ms",
       SetConfigInt<C, int32_t, &C::group_share_max_record_lock_duration_ms, 30000>},
      {"group.share.delivery.count.limit",
       SetConfigInt<C, int32_t, &C::group_share_delivery_count_limit, 2>},
      {"group.share.min.delivery.count.limit",
       SetConfigInt<C, int32_t, &C::group_share_min_delivery_count_limit, 2>},
      {"group.share.max.delivery.count.limit",
       SetConfigInt<C, int32_t, &C::group_share_max_delivery_count_limit, 2>},
      {"group.share.partition.max.record.locks",
       SetConfigInt<C, int32_t, &C::group_share_partition_max_record_locks, 100>},
      {"group.share.min.partition.max.record.locks",
       SetConfigInt<C, int32_t, &C::group_share_min_partition_max_record_locks, 100>},
      {"group.share.max.partition.max.record.locks",
       SetConfigInt<C, int32_t, &C::group_share_max_partition_max_record_locks, 100>},
      {"group.consumer.assignor.offload.enable",
       SetConfigBool<C, &C::group_consumer_assignor_offload_enable>},
      {"group.streams.assignor.offload.enable",
       SetConfigBool<C, &C::group_streams_assignor_offload_enable>},
  };
  return setters;
}

}  // namespace

std::optional<Status> GroupCoordinatorConfig::Set(const std::string& key,
                                                  const std::string& value) {
  if (auto s = streams.Set(key, value)) return s;
  return SetConfigKey(Setters(), this, key, value);
}

void GroupCoordinatorConfig::Validate(std::vector<std::string>* errors) const {
  if (group_consumer_heartbeat_interval_ms >= group_consumer_session_timeout_ms) {
    errors->push_back(
        "group.consumer.heartbeat.interval.ms must be less than "
        "group.consumer.session.timeout.ms");
  }
  // GroupCoordinatorConfig.verifyShareGroupConfigs (4.4.0), in its order and words.
  auto check = [errors](bool ok, const char* format, const char* a, const char* b) {
    if (!ok) errors->push_back(fmt::format(fmt::runtime(format), a, b));
  };
  constexpr const char* kAtLeast = "{} must be greater than or equal to {}";
  constexpr const char* kAtMost = "{} must be less than or equal to {}";
  check(group_share_max_heartbeat_interval_ms >= group_share_min_heartbeat_interval_ms, kAtLeast,
        "group.share.max.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms");
  check(group_share_heartbeat_interval_ms >= group_share_min_heartbeat_interval_ms, kAtLeast,
        "group.share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms");
  check(group_share_heartbeat_interval_ms <= group_share_max_heartbeat_interval_ms, kAtMost,
        "group.share.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms");
  check(group_share_max_session_timeout_ms >= group_share_min_session_timeout_ms, kAtLeast,
        "group.share.max.session.timeout.ms", "group.share.min.session.timeout.ms");
  check(group_share_session_timeout_ms >= group_share_min_session_timeout_ms, kAtLeast,
        "group.share.session.timeout.ms", "group.share.min.session.timeout.ms");
  check(group_share_session_timeout_ms <= group_share_max_session_timeout_ms, kAtMost,
        "group.share.session.timeout.ms", "group.share.max.session.timeout.ms");
  check(group_share_heartbeat_interval_ms < group_share_session_timeout_ms,
        "{} must be less than {}", "group.share.heartbeat.interval.ms",
        "group.share.session.timeout.ms");
  if (group_share_assignors.size() != 1) {
    errors->push_back(
        fmt::format("group.share.assignors must contain exactly one assignor, but found {}",
                    group_share_assignors.size()));
  }
  check(group_share_max_assignment_interval_ms >= group_share_min_assignment_interval_ms, kAtLeast,
        "group.share.max.assignment.interval.ms", "group.share.min.assignment.interval.ms");
  check(group_share_assignment_interval_ms >= group_share_min_assignment_interval_ms, kAtLeast,
        "group.share.assignment.interval.ms", "group.share.min.assignment.interval.ms");
  check(group_share_assignment_interval_ms <= group_share_max_assignment_interval_ms, kAtMost,
        "group.share.assignment.interval.ms", "group.share.max.assignment.interval.ms");
  streams.Validate(errors);
}

}  // namespace seglog
