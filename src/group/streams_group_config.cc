// StreamsGroupConfig; see streams_group_config.h.
#include "group/streams_group_config.h"

#include <fmt/format.h>

#include <set>

#include "base/config_values.h"

namespace seglog {

namespace {

using C = StreamsGroupConfig;

Status SetAssignors(C* c, const std::string& key, const std::string& v) {
  std::vector<std::string> names = SplitConfigList(v);
  if (names.size() != 1) {
    return ConfigInvalid(
        key, v,
        fmt::format("{} must contain exactly one assignor, but found {}", key, names.size()));
  }
  std::string name = names[0];
  if (name == "org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor") {
    name = "sticky";
  }
  if (name != "sticky") return ConfigInvalid(key, v, "seglog has the assignor sticky only");
  c->assignor = name;
  return Status::OK();
}

Status SetTags(C* c, const std::string& key, const std::string& v) {
  std::vector<std::string> tags = SplitConfigList(v);
  if (std::set<std::string>(tags.begin(), tags.end()).size() != tags.size()) {
    return ConfigInvalid(key, v, fmt::format("{} must not contain duplicate tag keys.", key));
  }
  c->rack_aware_assignment_tags = std::move(tags);
  return Status::OK();
}

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"group.streams.session.timeout.ms", SetConfigInt<C, int32_t, &C::session_timeout_ms, 1>},
      {"group.streams.min.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::min_session_timeout_ms, 1>},
      {"group.streams.max.session.timeout.ms",
       SetConfigInt<C, int32_t, &C::max_session_timeout_ms, 1>},
      {"group.streams.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::heartbeat_interval_ms, 1>},
      {"group.streams.min.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::min_heartbeat_interval_ms, 1>},
      {"group.streams.max.heartbeat.interval.ms",
       SetConfigInt<C, int32_t, &C::max_heartbeat_interval_ms, 1>},
      {"group.streams.max.size", SetConfigInt<C, int32_t, &C::max_size, 1>},
      {"group.streams.num.standby.replicas", SetConfigInt<C, int32_t, &C::num_standby_replicas, 0>},
      {"group.streams.max.standby.replicas", SetConfigInt<C, int32_t, &C::max_standby_replicas, 0>},
      {"group.streams.num.warmup.replicas", SetConfigInt<C, int32_t, &C::num_warmup_replicas, 0>},
      {"group.streams.max.warmup.replicas", SetConfigInt<C, int32_t, &C::max_warmup_replicas, 0>},
      {"group.streams.initial.rebalance.delay.ms",
       SetConfigInt<C, int32_t, &C::initial_rebalance_delay_ms, 0>},
      {"group.streams.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::assignment_interval_ms, 0>},
      {"group.streams.min.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::min_assignment_interval_ms, 0>},
      {"group.streams.max.assignment.interval.ms",
       SetConfigInt<C, int32_t, &C::max_assignment_interval_ms, 0>},
      {"group.streams.task.offset.interval.ms",
       SetConfigInt<C, int32_t, &C::task_offset_interval_ms, 1>},
      {"group.streams.min.task.offset.interval.ms",
       SetConfigInt<C, int32_t, &C::min_task_offset_interval_ms, 1>},
      {"group.streams.acceptable.recovery.lag",
       SetConfigInt<C, int64_t, &C::acceptable_recovery_lag, 0>},
      {"group.streams.assignors", SetAssignors},
      {"group.streams.rack.aware.assignment.tags", SetTags},
  };
  return setters;
}

void AtLeast(std::vector<std::string>* errors, const char* a, int64_t av, const char* b,
             int64_t bv) {
  if (av < bv) errors->push_back(fmt::format("{} must be greater than or equal to {}", a, b));
}

void AtMost(std::vector<std::string>* errors, const char* a, int64_t av, const char* b,
            int64_t bv) {
  if (av > bv) errors->push_back(fmt::format("{} must be less than or equal to {}", a, b));
}

}  // namespace

std::optional<Status> StreamsGroupConfig::Set(const std::string& key, const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

// Kafka's checks (GroupCoordinatorConfig's constructor), in its order; Kafka stops at the
// first, seglog reports them all.
void StreamsGroupConfig::Validate(std::vector<std::string>* errors) const {
  AtLeast(errors, "group.streams.max.heartbeat.interval.ms", max_heartbeat_interval_ms,
          "group.streams.min.heartbeat.interval.ms", min_heartbeat_interval_ms);
  AtLeast(errors, "group.streams.heartbeat.interval.ms", heartbeat_interval_ms,
          "group.streams.min.heartbeat.interval.ms", min_heartbeat_interval_ms);
  AtMost(errors, "group.streams.heartbeat.interval.ms", heartbeat_interval_ms,
         "group.streams.max.heartbeat.interval.ms", max_heartbeat_interval_ms);
  AtLeast(errors, "group.streams.max.session.timeout.ms", max_session_timeout_ms,
          "group.streams.min.session.timeout.ms", min_session_timeout_ms);
  AtLeast(errors, "group.streams.session.timeout.ms", session_timeout_ms,
          "group.streams.min.session.timeout.ms", min_session_timeout_ms);
  AtMost(errors, "group.streams.session.timeout.ms", session_timeout_ms,
         "group.streams.max.session.timeout.ms", max_session_timeout_ms);
  if (heartbeat_interval_ms >= session_timeout_ms) {
    errors->push_back(
        "group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms");
  }
  AtLeast(errors, "group.streams.max.assignment.interval.ms", max_assignment_interval_ms,
          "group.streams.min.assignment.interval.ms", min_assignment_interval_ms);
  AtLeast(errors, "group.streams.assignment.interval.ms", assignment_interval_ms,
          "group.streams.min.assignment.interval.ms", min_assignment_interval_ms);
  AtMost(errors, "group.streams.assignment.interval.ms", assignment_interval_ms,
         "group.streams.max.assignment.interval.ms", max_assignment_interval_ms);
  AtMost(errors, "group.streams.num.standby.replicas", num_standby_replicas,
         "group.streams.max.standby.replicas", max_standby_replicas);
  AtLeast(errors, "group.streams.task.offset.interval.ms", task_offset_interval_ms,
          "group.streams.min.task.offset.interval.ms", min_task_offset_interval_ms);
  AtMost(errors, "group.streams.num.warmup.replicas", num_warmup_replicas,
         "group.streams.max.warmup.replicas", max_warmup_replicas);
}

}  // namespace seglog
