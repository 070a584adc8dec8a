// Tests for the group.streams.* settings: Kafka 4.4.0's defaults, parsing through
// GroupCoordinatorConfig, and the rules across settings.
#include "group/streams_group_config.h"

#include <gtest/gtest.h>

#include "group/group_coordinator_config.h"

namespace seglog {
namespace {

TEST(StreamsGroupConfigTest, Defaults) {
  const StreamsGroupConfig c;
  EXPECT_EQ(c.session_timeout_ms, 45000);
  EXPECT_EQ(c.heartbeat_interval_ms, 5000);
  EXPECT_EQ(c.max_size, INT32_MAX);
  EXPECT_EQ(c.num_standby_replicas, 0);
  EXPECT_EQ(c.max_standby_replicas, 2);
  EXPECT_EQ(c.num_warmup_replicas, 2);
  EXPECT_EQ(c.max_warmup_replicas, 20);
  EXPECT_EQ(c.initial_rebalance_delay_ms, 3000);
  EXPECT_EQ(c.assignment_interval_ms, 1000);
  EXPECT_EQ(c.task_offset_interval_ms, 60000);
  EXPECT_EQ(c.acceptable_recovery_lag, 10000);
  EXPECT_EQ(c.assignor, "sticky");
  std::vector<std::string> errors;
  c.Validate(&errors);
  EXPECT_TRUE(errors.empty());
}

TEST(StreamsGroupConfigTest, SetThroughTheCoordinatorConfig) {
  GroupCoordinatorConfig c;
  ASSERT_TRUE(c.Set("group.streams.num.standby.replicas", "1").has_value());
  EXPECT_EQ(c.streams.num_standby_replicas, 1);
  EXPECT_TRUE(c.Set("group.streams.acceptable.recovery.lag", "5").value().ok());
  EXPECT_EQ(c.streams.acceptable_recovery_lag, 5);
  EXPECT_EQ(c.Set("group.streams.max.size", "0")->message(),
            "Invalid value 0 for configuration group.streams.max.size: Value must be at least 1");
  EXPECT_TRUE(c.Set("group.streams.assignors", "sticky").value().ok());
  EXPECT_TRUE(c.Set("group.streams.assignors",
                    "org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor")
                  .value()
                  .ok());
  EXPECT_FALSE(c.Set("group.streams.assignors", "sticky, mock")->ok());
  EXPECT_FALSE(c.Set("group.streams.rack.aware.assignment.tags", "zone, zone")->ok());
  EXPECT_TRUE(c.Set("group.streams.rack.aware.assignment.tags", "zone, rack")->ok());
  EXPECT_EQ(c.streams.rack_aware_assignment_tags, (std::vector<std::string>{"zone", "rack"}));
  EXPECT_FALSE(c.Set("group.streams.unknown", "1").has_value());
  EXPECT_TRUE(c.Set("group.consumer.max.size", "3").value().ok());  // still the consumer's
}

TEST(StreamsGroupConfigTest, RulesAcrossSettings) {
  GroupCoordinatorConfig c;
  c.streams.num_standby_replicas = 3;
  c.streams.heartbeat_interval_ms = 50000;
  std::vector<std::string> errors;
  c.Validate(&errors);
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "group.streams.heartbeat.interval.ms must be less than or equal to "
                        "group.streams.max.heartbeat.interval.ms",
                        "group.streams.heartbeat.interval.ms must be less than "
                        "group.streams.session.timeout.ms",
                        "group.streams.num.standby.replicas must be less than or equal to "
                        "group.streams.max.standby.replicas"}));
}

}  // namespace
}  // namespace seglog
