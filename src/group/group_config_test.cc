// GroupConfig: Kafka 4.4.0's GroupConfig.validate messages for every refusal, and the values a
// group runs with (GroupConfig.evaluate).
#include "group/group_config.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

std::string Refusal(const std::map<std::string, std::string>& configs,
                    const GroupCoordinatorConfig& broker = GroupCoordinatorConfig()) {
  Status s = ValidateGroupConfig(configs, broker);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  return std::string(s.message());
}

TEST(GroupConfigTest, DefsAreKafkasConfigDef) {
  EXPECT_EQ(GroupConfigDefs().size(), 27u);
  const GroupConfigDef* d = FindGroupConfigDef("share.record.lock.duration.ms");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type, GroupConfigType::kInt);
  EXPECT_STREQ(d->broker_synonym, "group.share.record.lock.duration.ms");
  EXPECT_FALSE(d->internal);
  EXPECT_TRUE(FindGroupConfigDef("streams.num.warmup.replicas")->internal);
  EXPECT_EQ(FindGroupConfigDef("share.isolation.level")->broker_synonym, nullptr);
  EXPECT_EQ(FindGroupConfigDef("group.share.delivery.count.limit"), nullptr);
}

TEST(GroupConfigTest, AcceptsValidConfigs) {
  EXPECT_TRUE(ValidateGroupConfig({}, GroupCoordinatorConfig()).ok());
  EXPECT_TRUE(ValidateGroupConfig({{"share.auto.offset.reset", "earliest"},
                                   {"consumer.session.timeout.ms", "50000"},
                                   {"share.isolation.level", " read_committed "},
                                   {"share.renew.acknowledge.enable", "FALSE"},
                                   {"share.auto.offset.reset", "by_duration:P1DT2H3M4.5S"},
                                   {"streams.assignor.name", "sticky"},
                                   {"streams.rack.aware.assignment.tags", "zone, rack"},
                                   {"errors.deadletterqueue.topic.name", "dlq"}},
                                  GroupCoordinatorConfig())
                  .ok());
}

TEST(GroupConfigTest, RefusesWithKafkasMessages) {
  EXPECT_EQ(Refusal({{"no.such", "1"}}), "Unknown group config name: no.such");
  EXPECT_EQ(Refusal({{"streams.rack.aware.assignment.tags", "a, b ,a"}}),
            "streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
  EXPECT_EQ(Refusal({{"consumer.session.timeout.ms", "abc"}}),
            "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of "
            "type INT");
  EXPECT_EQ(Refusal({{"streams.acceptable.recovery.lag", "x"}}),
            "Invalid value x for configuration streams.acceptable.recovery.lag: Not a number of "
            "type LONG");
  EXPECT_EQ(Refusal({{"share.delivery.count.limit", "1"}}),
            "Invalid value 1 for configuration share.delivery.count.limit: Value must be at "
            "least 2");
  EXPECT_EQ(Refusal({{"share.renew.acknowledge.enable", "yes"}}),
            "Invalid value yes for configuration share.renew.acknowledge.enable: Expected value "
            "to be either true or false");
  EXPECT_EQ(Refusal({{"share.isolation.level", "READ_COMMITTED"}}),
            "Invalid value READ_COMMITTED for configuration share.isolation.level: String must "
            "be one of: read_committed, read_uncommitted");
  EXPECT_EQ(Refusal({{"share.auto.offset.reset", "none"}}),
            "Invalid value none for configuration share.auto.offset.reset: Invalid value `none` "
            "for configuration share.auto.offset.reset. The value must be either 'earliest', "
            "'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.");
  for (const char* bad : {"by_duration:", "by_duration:-PT1S", "by_duration:PT", "by_duration:1S",
                          "by_duration:P1H", "Latest", "by_duration:PT1S2M"}) {
    EXPECT_FALSE(
        ValidateGroupConfig({{"share.auto.offset.reset", bad}}, GroupCoordinatorConfig()).ok())
        << bad;
  }
  EXPECT_EQ(Refusal({{"consumer.session.timeout.ms", "6000"}}),
            "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  EXPECT_EQ(Refusal({{"consumer.heartbeat.interval.ms", "16000"}}),
            "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"consumer.assignment.interval.ms", "15001"}}),
            "consumer.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"share.heartbeat.interval.ms", "4999"}}),
            "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"share.session.timeout.ms", "60001"}}),
            "share.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  EXPECT_EQ(Refusal({{"share.record.lock.duration.ms", "1000"}}),
            "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.");
  EXPECT_EQ(Refusal({{"share.delivery.count.limit", "11"}}),
            "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
  EXPECT_EQ(Refusal({{"share.partition.max.record.locks", "4001"}}),
            "share.partition.max.record.locks must be in the range 100 to 4000 inclusive.");
  EXPECT_EQ(Refusal({{"share.assignment.interval.ms", "20000"}}),
            "share.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"streams.heartbeat.interval.ms", "1"}}),
            "streams.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"streams.session.timeout.ms", "1"}}),
            "streams.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  EXPECT_EQ(Refusal({{"streams.num.standby.replicas", "3"}}),
            "streams.num.standby.replicas must be less than or equal to 2");
  EXPECT_EQ(Refusal({{"streams.assignment.interval.ms", "15001"}}),
            "streams.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
  EXPECT_EQ(Refusal({{"streams.task.offset.interval.ms", "14999"}}),
            "streams.task.offset.interval.ms must be greater than or equal to 15000");
  EXPECT_EQ(Refusal({{"streams.num.warmup.replicas", "21"}}),
            "streams.num.warmup.replicas must be less than or equal to 20");
  EXPECT_EQ(Refusal({{"streams.assignor.name", "balanced"}}),
            "streams.assignor.name 'balanced' is not a registered task assignor. Registered "
            "assignors are: [sticky].");
  GroupCoordinatorConfig overlapping;
  overlapping.group_consumer_max_heartbeat_interval_ms = 50000;
  EXPECT_EQ(Refusal({{"consumer.heartbeat.interval.ms", "45000"}}, overlapping),
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
  overlapping.group_share_max_heartbeat_interval_ms = 50000;
  EXPECT_EQ(
      Refusal({{"share.session.timeout.ms", "45000"}, {"share.heartbeat.interval.ms", "45000"}},
              overlapping),
      "share.session.timeout.ms must be greater than share.heartbeat.interval.ms");
  overlapping.streams.max_heartbeat_interval_ms = 50000;
  EXPECT_EQ(Refusal({{"streams.heartbeat.interval.ms", "46000"}}, overlapping),
            "streams.session.timeout.ms must be greater than streams.heartbeat.interval.ms");
  EXPECT_EQ(Refusal({{"errors.deadletterqueue.topic.name", "__dlq"}}),
            "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
}

TEST(GroupConfigTest, ParsesShareAutoOffsetReset) {
  EXPECT_EQ(ParseShareAutoOffsetReset("latest")->type, ShareAutoOffsetReset::Type::kLatest);
  EXPECT_EQ(ParseShareAutoOffsetReset("earliest")->type, ShareAutoOffsetReset::Type::kEarliest);
  auto d = ParseShareAutoOffsetReset("by_duration:P1DT1H1M1.5S");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->type, ShareAutoOffsetReset::Type::kByDuration);
  EXPECT_EQ(d->duration_ms, 86400000 + 3600000 + 60000 + 1500);
  EXPECT_EQ(ParseShareAutoOffsetReset("by_duration:pt0s")->duration_ms, 0);
  EXPECT_EQ(ParseShareAutoOffsetReset("by_duration:PT2H-30M")->duration_ms, 5400000);
  EXPECT_FALSE(ParseShareAutoOffsetReset("by_duration:-P1D").has_value());
  EXPECT_FALSE(ParseShareAutoOffsetReset("none").has_value());
}

TEST(GroupConfigTest, EffectiveValuesDefaultToTheBrokerAndAreClamped) {
  GroupCoordinatorConfig broker;
  broker.group_share_record_lock_duration_ms = 20000;
  broker.group_share_delivery_count_limit = 7;
  GroupConfig c = EffectiveGroupConfig(broker, {});
  EXPECT_EQ(c.share_record_lock_duration_ms, 20000);
  EXPECT_EQ(c.share_delivery_count_limit, 7);
  EXPECT_EQ(c.share_partition_max_record_locks, 2000);
  EXPECT_EQ(c.share_auto_offset_reset.type, ShareAutoOffsetReset::Type::kLatest);
  EXPECT_EQ(c.share_isolation_level, ShareIsolationLevel::kReadUncommitted);
  EXPECT_TRUE(c.share_renew_acknowledge_enable);
  EXPECT_EQ(c.consumer_session_timeout_ms, 45000);
  EXPECT_EQ(c.streams_assignor_name, "sticky");

  // Stored under wider bounds, read under narrower ones: clamped, as GroupConfig.evaluate does.
  broker.group_share_max_delivery_count_limit = 6;
  broker.group_share_min_record_lock_duration_ms = 40000;
  c = EffectiveGroupConfig(broker, {{"share.delivery.count.limit", "9"},
                                    {"share.record.lock.duration.ms", "30000"},
                                    {"share.partition.max.record.locks", "150"},
                                    {"share.auto.offset.reset", "by_duration:PT10S"},
                                    {"share.isolation.level", "read_committed"},
                                    {"share.renew.acknowledge.enable", "false"},
                                    {"consumer.session.timeout.ms", "bogus"},
                                    {"streams.rack.aware.assignment.tags", "a,b"},
                                    {"errors.deadletterqueue.topic.name", "dlq"}});
  EXPECT_EQ(c.share_delivery_count_limit, 6);
  EXPECT_EQ(c.share_record_lock_duration_ms, 40000);
  EXPECT_EQ(c.share_partition_max_record_locks, 150);
  EXPECT_EQ(c.share_auto_offset_reset.type, ShareAutoOffsetReset::Type::kByDuration);
  EXPECT_EQ(c.share_auto_offset_reset.duration_ms, 10000);
  EXPECT_EQ(c.share_isolation_level, ShareIsolationLevel::kReadCommitted);
  EXPECT_FALSE(c.share_renew_acknowledge_enable);
  EXPECT_EQ(c.consumer_session_timeout_ms, 45000);  // unparsable: the broker's
  EXPECT_EQ(c.streams_rack_aware_assignment_tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.errors_deadletterqueue_topic_name, "dlq");
}

TEST(GroupConfigTest, BrokerSettingsParse) {
  GroupCoordinatorConfig b;
  ASSERT_TRUE(b.Set("group.share.record.lock.duration.ms", "20000")->ok());
  ASSERT_TRUE(b.Set("group.share.max.delivery.count.limit", "8")->ok());
  EXPECT_EQ(b.group_share_record_lock_duration_ms, 20000);
  EXPECT_EQ(b.group_share_max_delivery_count_limit, 8);
}

}  // namespace
}  // namespace seglog
