// ShareCoordinatorConfig; see share_coordinator_config.h.
#include "sharestate/share_coordinator_config.h"

#include "base/config_values.h"

namespace seglog {

namespace {

using C = ShareCoordinatorConfig;

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"share.coordinator.state.topic.num.partitions",
       SetConfigInt<C, int32_t, &C::state_topic_num_partitions, 1>},
      {"share.coordinator.state.topic.segment.bytes",
       SetConfigInt<C, int32_t, &C::state_topic_segment_bytes, 1>},
      {"share.coordinator.snapshot.update.records.per.snapshot",
       [](C* c, const std::string& key, const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>(key, v, 0, &x);
         if (s.ok() && x > 500) s = ConfigInvalid(key, v, "Value must be no more than 500");
         if (s.ok()) c->snapshot_update_records_per_snapshot = x;
         return s;
       }},
      {"share.coordinator.state.topic.prune.interval.ms",
       SetConfigInt<C, int32_t, &C::state_topic_prune_interval_ms, 1>},
      {"share.coordinator.cold.partition.snapshot.interval.ms",
       SetConfigInt<C, int32_t, &C::cold_partition_snapshot_interval_ms, 1>},
  };
  return setters;
}

}  // namespace

std::optional<Status> ShareCoordinatorConfig::Set(const std::string& key,
                                                  const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
