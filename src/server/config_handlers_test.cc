// The config APIs (config_handlers.cc: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs)
// called directly over a LogManager in temporary directories, each response encoded at every
// version its API serves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/logger_registry.h"

#include <filesystem>

#include "base/logger_registry.h"
#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "server/expect_encodes.h"
#include "server/generated/broker_config_defs.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;
namespace ke = kafka_error;
namespace p = protocol;

class ConfigHandlersTest : public HandlersTest {};

// ---- DescribeConfigs

p::DescribeConfigsRequestData DescribeConfigsRequest(
    int8_t type, const std::string& name,
    std::optional<std::vector<std::string>> keys = std::nullopt, bool synonyms = false) {
  p::DescribeConfigsRequestData req;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  r.configuration_keys = std::move(keys);
  req.include_synonyms = synonyms;
  return req;
}

const p::DescribeConfigsResponseData::DescribeConfigsResourceResult* FindConfig(
    const p::DescribeConfigsResponseData::DescribeConfigsResult& r, const std::string& name) {
  for (const auto& c : r.configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST_F(ConfigHandlersTest, DescribeConfigsDescribesEveryTopicConfig) {
  Open({{"log.retention.hours", "1"}, {"log.segment.bytes", "2097152"}});
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"cleanup.policy", "compact"}}).ok());
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp = HandleDescribeConfigs(ctx_, rc_,
                                      DescribeConfigsRequest(2, "orders", std::nullopt, true), v);
    ASSERT_EQ(resp.results.size(), 1u);
    const auto& r = resp.results[0];
    EXPECT_EQ(r.error_code, ke::kNone);
    EXPECT_EQ(r.error_message, std::nullopt);
    EXPECT_EQ(r.resource_type, 2);
    EXPECT_EQ(r.resource_name, "orders");
    // Kafka 4.4.0's LogConfig names, less internal.segment.bytes (an internal config).
    EXPECT_EQ(r.configs.size(), 37u);
    EXPECT_EQ(FindConfig(r, "internal.segment.bytes"), nullptr);
    for (const auto& c : r.configs) {
      EXPECT_FALSE(c.read_only) << c.name;
      EXPECT_FALSE(c.is_sensitive) << c.name;
      if (v >= 3) {
        EXPECT_NE(c.config_type, 0) << c.name;
        EXPECT_EQ(c.documentation, std::nullopt);
      } else {
        EXPECT_EQ(c.config_type, 0);
      }
    }
    const auto* policy = FindConfig(r, "cleanup.policy");
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(policy->value, "compact");
    EXPECT_EQ(policy->config_source, 1);
    ASSERT_EQ(policy->synonyms.size(), 2u);
    EXPECT_EQ(policy->synonyms[0].name, "cleanup.policy");
    EXPECT_EQ(policy->synonyms[0].source, 1);
    EXPECT_EQ(policy->synonyms[1].name, "log.cleanup.policy");
    EXPECT_EQ(policy->synonyms[1].value, "delete");
    EXPECT_EQ(policy->synonyms[1].source, 5);
    if (v >= 3) {
      EXPECT_EQ(policy->config_type, 7);
    }
    const auto* retention = FindConfig(r, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "3600000");
    EXPECT_EQ(retention->config_source, 4);
    ASSERT_EQ(retention->synonyms.size(), 2u);
    EXPECT_EQ(retention->synonyms[0].name, "log.retention.ms");
    EXPECT_EQ(retention->synonyms[0].source, 4);
    EXPECT_EQ(retention->synonyms[1].name, "log.retention.hours");
    EXPECT_EQ(retention->synonyms[1].value, "168");
    const auto* segment = FindConfig(r, "segment.bytes");
    EXPECT_EQ(segment->value, "2097152");
    EXPECT_EQ(segment->config_source, 4);
    const auto* index = FindConfig(r, "index.interval.bytes");
    EXPECT_EQ(index->value, "4096");
    EXPECT_EQ(index->config_source, 5);
    const auto* throttled = FindConfig(r, "leader.replication.throttled.replicas");
    EXPECT_EQ(throttled->value, "");
    EXPECT_EQ(throttled->config_source, 5);
    EXPECT_TRUE(throttled->synonyms.empty());
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
  // Filtered by key, without synonyms.
  auto resp = HandleDescribeConfigs(
      ctx_, rc_, DescribeConfigsRequest(2, "orders", std::vector<std::string>{"segment.ms", "x"}),
      4);
  ASSERT_EQ(resp.results[0].configs.size(), 1u);
  EXPECT_EQ(resp.results[0].configs[0].name, "segment.ms");
  EXPECT_EQ(resp.results[0].configs[0].value, "604800000");
  EXPECT_TRUE(resp.results[0].configs[0].synonyms.empty());
  EXPECT_EQ(resp.results[0].configs[0].config_type, 5);
  // Kafka's documentation on request (v3+), from its LogConfig.
  auto req = DescribeConfigsRequest(2, "orders", std::vector<std::string>{"retention.ms"});
  req.include_documentation = true;
  auto documented = HandleDescribeConfigs(ctx_, rc_, req, 4);
  ASSERT_EQ(documented.results[0].configs.size(), 1u);
  EXPECT_THAT(documented.results[0].configs[0].documentation.value_or(""),
              HasSubstr("controls the maximum time we will retain a log"));
}

TEST_F(ConfigHandlersTest, DescribeConfigsRefusesUnknownResources) {
  p::DescribeConfigsRequestData req;
  for (auto [type, name] : std::vector<std::pair<int8_t, std::string>>{
           {2, "nope"}, {2, "bad name"}, {4, "2"}, {4, "x"}, {8, "2"}, {3, "1"}}) {
    auto& r = req.resources.emplace_back();
    r.resource_type = type;
    r.resource_name = name;
    r.configuration_keys = std::nullopt;
  }
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp = HandleDescribeConfigs(ctx_, rc_, req, v);
    ASSERT_EQ(resp.results.size(), 6u);
    EXPECT_EQ(resp.results[0].error_code, ke::kUnknownTopicOrPartition);
    EXPECT_EQ(resp.results[0].error_message, "The topic 'nope' does not exist.");
    EXPECT_EQ(resp.results[1].error_code, ke::kInvalidTopic);
    EXPECT_EQ(resp.results[2].error_code, ke::kInvalidRequest);
    EXPECT_EQ(resp.results[2].error_message,
              "Unexpected broker id, expected 1 or empty string, but received 2");
    EXPECT_EQ(resp.results[3].error_message, "Broker id must be an integer, but it is: x");
    EXPECT_EQ(resp.results[4].error_code, ke::kInvalidRequest);
    EXPECT_EQ(resp.results[4].error_message, "Unexpected broker id, expected 1 but received 2");
    EXPECT_EQ(resp.results[5].error_message, "Unsupported resource type: UNKNOWN");
    for (const auto& r : resp.results) EXPECT_TRUE(r.configs.empty());
    EXPECT_EQ(resp.results[5].resource_type, 3);
    EXPECT_EQ(resp.results[5].resource_name, "1");
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
}

TEST_F(ConfigHandlersTest, DescribeConfigsDescribesTheBroker) {
  Open({{"num.partitions", "3"}, {"log.segment.bytes", "2097152"}});
  for (int16_t v = 1; v <= 4; ++v) {
    auto resp =
        HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(4, "1", std::nullopt, true), v);
    const auto& r = resp.results[0];
    EXPECT_EQ(r.error_code, ke::kNone);
    EXPECT_EQ(r.resource_type, 4);
    EXPECT_EQ(r.resource_name, "1");
    const auto* partitions = FindConfig(r, "num.partitions");
    ASSERT_NE(partitions, nullptr);
    EXPECT_EQ(partitions->value, "3");
    EXPECT_EQ(partitions->config_source, 4);
    EXPECT_TRUE(partitions->read_only);
    // Kafka's synonyms: the value set in server.properties, then Kafka's default.
    ASSERT_EQ(partitions->synonyms.size(), 2u);
    EXPECT_EQ(partitions->synonyms[0].name, "num.partitions");
    EXPECT_EQ(partitions->synonyms[0].value, "3");
    EXPECT_EQ(partitions->synonyms[0].source, 4);
    EXPECT_EQ(partitions->synonyms[1].value, "1");
    EXPECT_EQ(partitions->synonyms[1].source, 5);
    // Every broker config Kafka 4.4.0 has, including those seglog does not use.
    EXPECT_EQ(r.configs.size(), BrokerConfigDefs().size());
    EXPECT_GT(r.configs.size(), 300u);
    ASSERT_NE(FindConfig(r, "controller.quorum.voters"), nullptr);
    // log.roll.ms has no default: no value, and log.roll.hours' default is not its synonym
    // (Kafka drops leading synonyms of another name).
    const auto* roll = FindConfig(r, "log.roll.ms");
    ASSERT_NE(roll, nullptr);
    EXPECT_EQ(roll->value, std::nullopt);
    EXPECT_EQ(roll->config_source, 5);
    EXPECT_TRUE(roll->synonyms.empty());
    const auto* hours = FindConfig(r, "log.roll.hours");
    ASSERT_NE(hours, nullptr);
    EXPECT_EQ(hours->value, "168");
    // A password is sensitive: never shown.
    const auto* password = FindConfig(r, "ssl.key.password");
    ASSERT_NE(password, nullptr);
    EXPECT_TRUE(password->is_sensitive);
    EXPECT_EQ(password->value, std::nullopt);
    EXPECT_EQ(FindConfig(r, "process.roles")->value, "broker,controller");
    if (v >= 3) {
      EXPECT_EQ(partitions->config_type, 3);  // INT
    }
    const auto* segment = FindConfig(r, "log.segment.bytes");
    ASSERT_NE(segment, nullptr);
    EXPECT_EQ(segment->value, "2097152");
    EXPECT_EQ(segment->config_source, 4);
    const auto* threads = FindConfig(r, "num.io.threads");
    ASSERT_NE(threads, nullptr);
    EXPECT_EQ(threads->value, "8");
    EXPECT_EQ(threads->config_source, 5);
    const auto* retention = FindConfig(r, "log.retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, std::nullopt);
    EXPECT_EQ(FindConfig(r, "log.dirs")->value, a_.path() + "," + b_.path());
    EXPECT_EQ(FindConfig(r, "node.id")->value, "1");
    testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
  }
  // Documentation on request (v3+), and only the keys asked for.
  auto req = DescribeConfigsRequest(4, "1", std::vector<std::string>{"num.io.threads", "nope"});
  req.include_documentation = true;
  auto documented = HandleDescribeConfigs(ctx_, rc_, req, 4);
  ASSERT_EQ(documented.results[0].configs.size(), 1u);
  EXPECT_THAT(documented.results[0].configs[0].documentation.value_or(""),
              HasSubstr("threads that the server uses for processing requests"));
  // The node's loggers (BROKER_LOGGER): root alone in a fresh registry, at INFO.
  LoggerRegistry registry;
  ctx_.loggers = &registry;
  auto loggers = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(8, "1"), 4);
  ASSERT_EQ(loggers.results[0].configs.size(), 1u);
  EXPECT_EQ(loggers.results[0].configs[0].name, "root");
  EXPECT_EQ(loggers.results[0].configs[0].value, "INFO");
  EXPECT_EQ(loggers.results[0].configs[0].config_source, 6);
  EXPECT_FALSE(loggers.results[0].configs[0].read_only);
  EXPECT_EQ(
      HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(8, ""), 4).results[0].error_message,
      "Broker id must not be empty");
  EXPECT_EQ(
      HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(8, "2"), 4).results[0].error_message,
      "Unexpected broker id, expected 1 but received 2");
  // The cluster-wide defaults: what Kafka's bootstrap sets too, kept without being applied.
  auto resp = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(4, ""), 4);
  EXPECT_EQ(resp.results[0].error_code, ke::kNone);
  ASSERT_EQ(resp.results[0].configs.size(), 1u);
  EXPECT_EQ(resp.results[0].configs[0].name, "min.insync.replicas");
  EXPECT_EQ(resp.results[0].configs[0].value, "1");
  EXPECT_EQ(resp.results[0].configs[0].config_source, 3);
  EXPECT_TRUE(resp.results[0].configs[0].read_only);
}

// ---- AlterConfigs

p::AlterConfigsRequestData AlterRequest(int8_t type, const std::string& name,
                                        std::vector<std::pair<std::string, std::string>> configs,
                                        bool validate_only = false) {
  p::AlterConfigsRequestData req;
  req.validate_only = validate_only;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  for (const auto& [k, v] : configs) {
    auto& c = r.configs.emplace_back();
    c.name = k;
    c.value = v;
  }
  return req;
}

TEST_F(ConfigHandlersTest, AlterConfigsReplacesEveryOverride) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  auto req = AlterRequest(2, "orders", {{"segment.ms", "5000"}, {"cleanup.policy", "compact"}});
  for (int16_t v = 0; v <= 2; ++v) {
    auto resp = HandleAlterConfigs(ctx_, rc_, req, v);
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
    EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
    EXPECT_EQ(resp.responses[0].resource_type, 2);
    EXPECT_EQ(resp.responses[0].resource_name, "orders");
    testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
  }
  const std::map<std::string, std::string> want = {{"segment.ms", "5000"},
                                                   {"cleanup.policy", "compact"}};
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_compact);
}

TEST_F(ConfigHandlersTest, AlterConfigsRefusesBadConfigsAndLeavesThemUnchanged) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  const std::map<std::string, std::string> before = {{"retention.ms", "1000"}};
  auto resp =
      HandleAlterConfigs(ctx_, rc_, AlterRequest(2, "orders", {{"segment.bytes", "10"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Invalid value 10 for configuration segment.bytes"));
  resp = HandleAlterConfigs(ctx_, rc_, AlterRequest(2, "orders", {{"no.such.config", "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message, "Unknown topic config name: no.such.config");
  resp = HandleAlterConfigs(ctx_, rc_, AlterRequest(2, "nope", {{"segment.ms", "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.responses[0].error_message, "The topic 'nope' does not exist.");
  resp = HandleAlterConfigs(ctx_, rc_, AlterRequest(2, "orders", {{"segment.ms", "1"}}, true), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  auto dup = AlterRequest(2, "orders", {{"segment.ms", "1"}, {"segment.ms", "2"}});
  resp = HandleAlterConfigs(ctx_, rc_, dup, 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.responses[0].error_message, "Error due to duplicate config keys");
  dup = AlterRequest(2, "orders", {{"segment.ms", "1"}});
  dup.resources.push_back(dup.resources[0]);
  resp = HandleAlterConfigs(ctx_, rc_, dup, 0);
  ASSERT_EQ(resp.responses.size(), 2u);
  EXPECT_EQ(resp.responses[0].error_message, "Each resource must appear at most once.");
  EXPECT_EQ(resp.responses[1].error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
  EXPECT_EQ(logs_->FindTopic("orders")->configs, before);
  // Broker configs other than the log defaults are static.
  resp = HandleAlterConfigs(ctx_, rc_, AlterRequest(4, "1", {{"num.io.threads", "4"}}), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message,
            "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Cannot "
            "update these configs dynamically: Set(num.io.threads)");
  resp = HandleAlterConfigs(ctx_, rc_, AlterRequest(4, "5", {{"num.io.threads", "4"}}), 2);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterConfigs);
}

// ---- IncrementalAlterConfigs

struct Op {
  std::string name;
  int8_t op;
  std::optional<std::string> value;
};

p::IncrementalAlterConfigsRequestData IncrementalRequest(int8_t type, const std::string& name,
                                                         std::vector<Op> ops,
                                                         bool validate_only = false) {
  p::IncrementalAlterConfigsRequestData req;
  req.validate_only = validate_only;
  auto& r = req.resources.emplace_back();
  r.resource_type = type;
  r.resource_name = name;
  for (const Op& o : ops) {
    auto& c = r.configs.emplace_back();
    c.name = o.name;
    c.config_operation = o.op;
    c.value = o.value;
  }
  return req;
}

TEST_F(ConfigHandlersTest, IncrementalAlterConfigsSetsDeletesAppendsAndSubtracts) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  auto req = IncrementalRequest(2, "orders",
                                {{"segment.ms", 0, "5000"},
                                 {"retention.ms", 1, std::nullopt},
                                 {"cleanup.policy", 2, "compact"}});
  auto resp = HandleIncrementalAlterConfigs(ctx_, rc_, req, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
  EXPECT_EQ(resp.responses[0].resource_type, 2);
  EXPECT_EQ(resp.responses[0].resource_name, "orders");
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  std::map<std::string, std::string> want = {{"segment.ms", "5000"},
                                             {"cleanup.policy", "delete,compact"}};
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_compact);
  EXPECT_TRUE(GetLog("orders", 0)->config().cleanup_delete);

  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"cleanup.policy", 3, "delete"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  want["cleanup.policy"] = "compact";
  EXPECT_EQ(logs_->FindTopic("orders")->configs, want);
  EXPECT_FALSE(GetLog("orders", 0)->config().cleanup_delete);
}

TEST_F(ConfigHandlersTest, IncrementalAlterConfigsRefusesBadOperations) {
  ASSERT_TRUE(logs_->CreateTopic("orders", 1, {{"retention.ms", "1000"}}).ok());
  const std::map<std::string, std::string> before = {{"retention.ms", "1000"}};
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"segment.ms", 2, "5"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(resp.responses[0].error_message,
            "Can't APPEND to key segment.ms because its type is not LIST.");
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"retention.ms", 3, "5"}}), 1);
  EXPECT_EQ(resp.responses[0].error_message,
            "Can't SUBTRACT to key retention.ms because its type is not LIST.");
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"cleanup.policy", 2, "nonsense"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Invalid value delete,nonsense for configuration cleanup.policy"));
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"segment.ms", 0, "0"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"segment.ms", 7, "1"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "orders", {{"segment.ms", 0, "5000"}}, true), 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(2, "nope", {{"segment.ms", 0, "5000"}}), 0);
  EXPECT_EQ(resp.responses[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.responses[0].error_message, "The topic 'nope' does not exist.");
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  EXPECT_EQ(logs_->FindTopic("orders")->configs, before);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "", {{"log.cleaner.threads", 0, "2"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""),
              HasSubstr("Cannot update these configs dynamically: Set(log.cleaner.threads)"));
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
}

// ---- GROUP

// A group's own configs (GroupConfig): set, described as Kafka's ConfigHelper describes them,
// appended to (the one LIST), deleted, and kept in the metadata log.
TEST_F(ConfigHandlersTest, GroupConfigsAreAlteredAndDescribed) {
  Open({{"group.share.delivery.count.limit", "7"}});
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_,
      IncrementalRequest(32, "g",
                         {{"share.auto.offset.reset", 0, "earliest"},
                          {"consumer.session.timeout.ms", 0, "50000"},
                          {"streams.rack.aware.assignment.tags", 2, "zone"}}),
      1);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  std::map<std::string, std::string> want = {{"consumer.session.timeout.ms", "50000"},
                                             {"share.auto.offset.reset", "earliest"},
                                             {"streams.rack.aware.assignment.tags", "zone"}};
  EXPECT_EQ(logs_->metadata()->GroupConfigs("g"), want);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(32, "g", {{"streams.rack.aware.assignment.tags", 2, "rack"}}),
      1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->metadata()->GroupConfigs("g").at("streams.rack.aware.assignment.tags"),
            "zone,rack");

  for (int16_t v = 1; v <= 4; ++v) {
    auto req = DescribeConfigsRequest(32, "g", std::nullopt, true);
    req.include_documentation = true;
    auto d = HandleDescribeConfigs(ctx_, rc_, req, v);
    ASSERT_EQ(d.results.size(), 1u);
    const auto& r = d.results[0];
    EXPECT_EQ(r.error_code, ke::kNone);
    // GroupConfig's 27 keys less its 6 internal ones, by name.
    ASSERT_EQ(r.configs.size(), 21u);
    EXPECT_TRUE(std::is_sorted(r.configs.begin(), r.configs.end(),
                               [](const auto& a, const auto& b) { return a.name < b.name; }));
    EXPECT_EQ(FindConfig(r, "streams.num.warmup.replicas"), nullptr);
    const auto* reset = FindConfig(r, "share.auto.offset.reset");
    ASSERT_NE(reset, nullptr);
    EXPECT_EQ(reset->value, "earliest");
    EXPECT_EQ(reset->config_source, 8);  // GROUP_CONFIG
    ASSERT_EQ(reset->synonyms.size(), 2u);
    EXPECT_EQ(reset->synonyms[1].source, 5);
    EXPECT_EQ(reset->synonyms[1].value, "latest");
    const auto* session = FindConfig(r, "consumer.session.timeout.ms");
    ASSERT_EQ(session->synonyms.size(), 2u);
    EXPECT_EQ(session->synonyms[1].name, "group.consumer.session.timeout.ms");
    EXPECT_EQ(session->synonyms[1].value, "45000");
    const auto* limit = FindConfig(r, "share.delivery.count.limit");
    EXPECT_EQ(limit->value, "7");
    EXPECT_EQ(limit->config_source, 4);  // STATIC_BROKER_CONFIG
    EXPECT_EQ(limit->synonyms[0].name, "group.share.delivery.count.limit");
    const auto* locks = FindConfig(r, "share.record.lock.duration.ms");
    EXPECT_EQ(locks->value, "30000");
    EXPECT_EQ(locks->config_source, 5);
    EXPECT_EQ(FindConfig(r, "streams.assignor.name")->value, "sticky");
    EXPECT_EQ(FindConfig(r, "errors.deadletterqueue.topic.name")->value, "");
    if (v >= 3) {
      EXPECT_EQ(locks->config_type, 3);
      EXPECT_EQ(FindConfig(r, "share.renew.acknowledge.enable")->config_type, 1);
      EXPECT_EQ(FindConfig(r, "streams.rack.aware.assignment.tags")->config_type, 7);
      EXPECT_EQ(locks->documentation,
                "The record acquisition lock duration in milliseconds for share groups.");
    }
    testing::ExpectEncodes(d, p::ApiKey::kDescribeConfigs);
  }
  auto keyed = HandleDescribeConfigs(
      ctx_, rc_, DescribeConfigsRequest(32, "g", std::vector<std::string>{"share.isolation.level"}),
      4);
  ASSERT_EQ(keyed.results[0].configs.size(), 1u);
  EXPECT_EQ(keyed.results[0].configs[0].value, "read_uncommitted");
  EXPECT_TRUE(keyed.results[0].configs[0].synonyms.empty());

  // ListConfigResources lists a group with configs of its own.
  auto listed = HandleListConfigResources(ctx_, rc_, {}, 1);
  ASSERT_FALSE(listed.config_resources.empty());
  EXPECT_EQ(listed.config_resources[0].resource_type, 32);
  EXPECT_EQ(listed.config_resources[0].resource_name, "g");

  // The legacy API replaces them all; a DELETE of each leaves none.
  auto legacy = HandleAlterConfigs(
      ctx_, rc_, AlterRequest(32, "g", {{"share.isolation.level", "read_committed"}}), 1);
  EXPECT_EQ(legacy.responses[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->metadata()->GroupConfigs("g"),
            (std::map<std::string, std::string>{{"share.isolation.level", "read_committed"}}));
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(32, "g", {{"share.isolation.level", 1, std::nullopt}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_TRUE(logs_->metadata()->AllGroupConfigs().empty());
  auto empty = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(32, "g"), 4);
  EXPECT_EQ(FindConfig(empty.results[0], "share.isolation.level")->config_source, 5);
}

TEST_F(ConfigHandlersTest, GroupConfigChangesAreCheckedAsKafkaChecksThem) {
  auto refusal = [&](std::vector<Op> ops, bool validate_only = false) {
    auto resp = HandleIncrementalAlterConfigs(ctx_, rc_,
                                              IncrementalRequest(32, "g", ops, validate_only), 1);
    testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
    return std::make_pair(resp.responses[0].error_code,
                          resp.responses[0].error_message.value_or(""));
  };
  EXPECT_EQ(refusal({{"no.such", 0, "1"}}),
            std::make_pair(ke::kInvalidConfig, std::string("Unknown group config name: no.such")));
  EXPECT_EQ(refusal({{"share.delivery.count.limit", 0, "11"}}),
            std::make_pair(ke::kInvalidConfig,
                           std::string("share.delivery.count.limit must be in the range 2 to 10 "
                                       "inclusive.")));
  EXPECT_EQ(refusal({{"share.auto.offset.reset", 0, "none"}}).first, ke::kInvalidConfig);
  EXPECT_EQ(refusal({{"share.isolation.level", 2, "read_committed"}}),
            std::make_pair(ke::kInvalidConfig,
                           std::string("Can't APPEND to key share.isolation.level because its "
                                       "type is not LIST.")));
  EXPECT_EQ(refusal({{"share.isolation.level", 3, "x"}}).second,
            "Can't SUBTRACT to key share.isolation.level because its type is not LIST.");
  EXPECT_EQ(refusal({{"streams.rack.aware.assignment.tags", 0, "a,a"}}).second,
            "streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(32, "", {{"share.delivery.count.limit", 0, "3"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.responses[0].error_message, "Default group resources are not allowed.");
  // validate_only checks and keeps nothing.
  EXPECT_EQ(refusal({{"share.delivery.count.limit", 0, "3"}}, true).first, ke::kNone);
  // A change is checked with the group's other configs: the session must stay above the
  // heartbeat the broker's bounds allow.
  Open({{"group.consumer.max.heartbeat.interval.ms", "50000"}});
  EXPECT_EQ(refusal({{"consumer.heartbeat.interval.ms", 0, "46000"}}).second,
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
  EXPECT_EQ(refusal({{"consumer.session.timeout.ms", 0, "50000"},
                     {"consumer.heartbeat.interval.ms", 0, "46000"}})
                .first,
            ke::kNone);
  EXPECT_EQ(refusal({{"consumer.session.timeout.ms", 1, std::nullopt}}).second,
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
  auto legacy =
      HandleAlterConfigs(ctx_, rc_, AlterRequest(32, "g", {{"share.isolation.level", "x"}}), 1);
  EXPECT_EQ(legacy.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(legacy.responses[0].error_message,
            "Invalid value x for configuration share.isolation.level: String must be one of: "
            "read_committed, read_uncommitted");
  EXPECT_EQ(logs_->metadata()->GroupConfigs("g"),
            (std::map<std::string, std::string>{{"consumer.heartbeat.interval.ms", "46000"},
                                                {"consumer.session.timeout.ms", "50000"}}));
  auto d = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(32, ""), 4);
  EXPECT_EQ(d.results[0].error_code, ke::kInvalidRequest);
  EXPECT_EQ(d.results[0].error_message, "Group name must not be empty");
  EXPECT_TRUE(d.results[0].configs.empty());
}

// ---- BROKER_LOGGER

TEST_F(ConfigHandlersTest, BrokerLoggersAreDescribedAndChangedAtRunTime) {
  LoggerRegistry registry;
  ctx_.loggers = &registry;
  std::vector<std::string> seen;
  const Logger cleaner = Logger([&seen](LogLevel level, std::string_view line) {
                           seen.push_back(fmt::format("{} {}", LogLevelName(level), line));
                         }).Named("kafka.log.LogCleaner", &registry);
  registry.Register("kafka.server.KafkaApis");
  cleaner.Debug("before");
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(8, "1", {{"kafka.log.LogCleaner", 0, "DEBUG"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(resp.responses[0].error_message, std::nullopt);
  testing::ExpectEncodes(resp, p::ApiKey::kIncrementalAlterConfigs);
  cleaner.Debug("after");
  EXPECT_THAT(seen, ElementsAre("DEBUG after"));
  auto described = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(8, "1"), 4);
  ASSERT_EQ(described.results[0].error_code, ke::kNone);
  ASSERT_EQ(described.results[0].configs.size(), 3u);
  EXPECT_EQ(described.results[0].configs[0].name, "root");
  EXPECT_EQ(FindConfig(described.results[0], "kafka.log.LogCleaner")->value, "DEBUG");
  EXPECT_EQ(FindConfig(described.results[0], "kafka.server.KafkaApis")->value, "INFO");
  testing::ExpectEncodes(described, p::ApiKey::kDescribeConfigs);
  // Only the keys asked for.
  described = HandleDescribeConfigs(
      ctx_, rc_, DescribeConfigsRequest(8, "1", std::vector<std::string>{"kafka.log.LogCleaner"}),
      4);
  ASSERT_EQ(described.results[0].configs.size(), 1u);
  // root's level reaches those without their own; DELETE makes the cleaner inherit again.
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_,
      IncrementalRequest(8, "1", {{"root", 0, "WARN"}, {"kafka.log.LogCleaner", 1, "ignored"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(registry.EffectiveLevel("kafka.server.KafkaApis"), LogLevel::kWarn);
  EXPECT_EQ(registry.EffectiveLevel("kafka.log.LogCleaner"), LogLevel::kWarn);
  cleaner.Info("dropped");
  EXPECT_EQ(seen.size(), 1u);
  // validate_only changes nothing.
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(8, "1", {{"root", 0, "TRACE"}}, /*validate_only=*/true), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(registry.EffectiveLevel("root"), LogLevel::kWarn);
}

TEST_F(ConfigHandlersTest, BrokerLoggerChangesAreCheckedAsKafkaChecksThem) {
  LoggerRegistry registry;
  ctx_.loggers = &registry;
  registry.Register("kafka.log.LogCleaner");
  struct Case {
    std::string node;
    Op op;
    int16_t code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"1",
       {"kafka.log.LogCleaner", 0, "LOUD"},
       ke::kInvalidConfig,
       "Cannot set the log level of kafka.log.LogCleaner to LOUD as it is not a supported log "
       "level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"},
      {"1",
       {"kafka.log.LogCleaner", 0, "debug"},
       ke::kInvalidConfig,
       "Cannot set the log level of kafka.log.LogCleaner to debug as it is not a supported log "
       "level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"},
      {"1",
       {"root", 0, "OFF"},
       ke::kInvalidConfig,
       "Cannot set the log level of root to OFF as it is not a supported log level. Valid log "
       "levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"},
      {"1", {"kafka.nope", 0, "DEBUG"}, ke::kInvalidConfig, "Logger kafka.nope does not exist!"},
      {"1",
       {"kafka.nope", 1, std::nullopt},
       ke::kInvalidConfig,
       "Logger kafka.nope does not exist!"},
      {"1",
       {"root", 1, std::nullopt},
       ke::kInvalidRequest,
       "Removing the log level of the root logger is not allowed"},
      {"1",
       {"root", 2, "DEBUG"},
       ke::kInvalidRequest,
       "APPEND operation is not allowed for the BROKER_LOGGER resource"},
      {"1",
       {"root", 3, "DEBUG"},
       ke::kInvalidRequest,
       "SUBTRACT operation is not allowed for the BROKER_LOGGER resource"},
      {"1",
       {"root", 9, "DEBUG"},
       ke::kInvalidRequest,
       "Unknown operation type 9 is not allowed for the BROKER_LOGGER resource"},
      {"1", {"root", 0, std::nullopt}, ke::kInvalidRequest, "Null value not supported for : root"},
      {"2",
       {"root", 0, "DEBUG"},
       ke::kInvalidRequest,
       "Unexpected node id. Expected 1, but received 2"},
      {"x", {"root", 0, "DEBUG"}, ke::kInvalidRequest, "Node id must be an integer, but it is: x"},
      {"", {"root", 0, "DEBUG"}, ke::kInvalidRequest, "Node id must be an integer, but it is: "},
  };
  for (const Case& c : cases) {
    auto resp = HandleIncrementalAlterConfigs(ctx_, rc_, IncrementalRequest(8, c.node, {c.op}), 1);
    EXPECT_EQ(resp.responses[0].error_code, c.code) << c.message;
    EXPECT_EQ(resp.responses[0].error_message, c.message);
  }
  // A bad operation after a good one: nothing applies.
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_,
      IncrementalRequest(8, "1", {{"kafka.log.LogCleaner", 0, "DEBUG"}, {"root", 0, "NOPE"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_EQ(registry.EffectiveLevel("kafka.log.LogCleaner"), LogLevel::kInfo);
  EXPECT_EQ(registry.EffectiveLevel("root"), LogLevel::kInfo);
  // The legacy AlterConfigs has no BROKER_LOGGER (Kafka: KIP-412 added it to the incremental
  // API only).
  auto legacy = HandleAlterConfigs(ctx_, rc_, AlterRequest(8, "1", {{"root", "DEBUG"}}), 1);
  EXPECT_EQ(legacy.responses[0].error_code, ke::kInvalidRequest);
  EXPECT_EQ(registry.EffectiveLevel("root"), LogLevel::kInfo);
}

// ---- Dynamic broker configs

TEST_F(ConfigHandlersTest, DynamicBrokerConfigsSetTheLogDefaultsAndOutliveARestart) {
  Open({{"log.segment.bytes", "2097152"}});
  ASSERT_TRUE(logs_->CreateTopic("orders", 1).ok());
  ASSERT_TRUE(logs_->CreateTopic("kept", 1, {{"retention.ms", "1000"}}).ok());
  // The cluster-wide default (empty name), as kafka-configs --entity-default sets it.
  auto resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "", {{"log.retention.ms", 0, "7200000"}}), 1);
  ASSERT_EQ(resp.responses[0].error_code, ke::kNone)
      << resp.responses[0].error_message.value_or("");
  EXPECT_EQ(GetLog("orders", 0)->config().retention_ms, 7200000);
  EXPECT_EQ(GetLog("kept", 0)->config().retention_ms, 1000);  // its own override wins
  auto topic = HandleDescribeConfigs(
      ctx_, rc_,
      DescribeConfigsRequest(2, "orders", std::vector<std::string>{"retention.ms"}, true), 4);
  ASSERT_EQ(topic.results[0].configs.size(), 1u);
  const auto& retention = topic.results[0].configs[0];
  EXPECT_EQ(retention.value, "7200000");
  EXPECT_EQ(retention.config_source, 3);  // DYNAMIC_DEFAULT_BROKER_CONFIG
  ASSERT_GE(retention.synonyms.size(), 2u);
  EXPECT_EQ(retention.synonyms[0].name, "log.retention.ms");
  EXPECT_EQ(retention.synonyms[0].source, 3);
  EXPECT_EQ(retention.synonyms[1].name, "log.retention.hours");
  EXPECT_EQ(retention.synonyms[1].source, 5);
  // This node's own value, over server.properties' and the cluster's.
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "1", {{"log.segment.bytes", 0, "1048576"}}), 1);
  ASSERT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(GetLog("orders", 0)->config().segment_bytes, 1048576);
  auto broker = HandleDescribeConfigs(
      ctx_, rc_,
      DescribeConfigsRequest(4, "1",
                             std::vector<std::string>{"log.segment.bytes", "num.io.threads"}, true),
      4);
  const auto* segment = FindConfig(broker.results[0], "log.segment.bytes");
  ASSERT_NE(segment, nullptr);
  EXPECT_EQ(segment->value, "1048576");
  EXPECT_EQ(segment->config_source, 2);  // DYNAMIC_BROKER_CONFIG
  EXPECT_FALSE(segment->read_only);
  ASSERT_EQ(segment->synonyms.size(), 3u);
  EXPECT_EQ(segment->synonyms[1].value, "2097152");
  EXPECT_EQ(segment->synonyms[1].source, 4);
  EXPECT_TRUE(FindConfig(broker.results[0], "num.io.threads")->read_only);
  auto defaults = HandleDescribeConfigs(ctx_, rc_, DescribeConfigsRequest(4, ""), 4);
  ASSERT_EQ(defaults.results[0].configs.size(), 2u);  // and min.insync.replicas, from bootstrap
  EXPECT_EQ(defaults.results[0].configs[0].name, "log.retention.ms");
  EXPECT_EQ(defaults.results[0].configs[0].config_source, 3);
  EXPECT_FALSE(defaults.results[0].configs[0].read_only);
  testing::ExpectEncodes(defaults, p::ApiKey::kDescribeConfigs);
  // A list default takes APPEND, from the value in force.
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "", {{"log.cleanup.policy", 2, "compact"}}), 1);
  ASSERT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->DynamicBrokerConfigs("").at("log.cleanup.policy"), "delete,compact");
  // Bad values and keys seglog does not apply change nothing.
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "1", {{"log.segment.bytes", 0, "12"}}), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.responses[0].error_message.value_or(""), HasSubstr("log.segment.bytes"));
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "1", {{"log.segment.bytes", 0, "4194304"}}, true), 1);
  EXPECT_EQ(resp.responses[0].error_code, ke::kNone);  // validate only
  EXPECT_EQ(GetLog("orders", 0)->config().segment_bytes, 1048576);
  // The metadata log keeps them: a restart runs with them.
  Open({{"log.segment.bytes", "2097152"}});
  EXPECT_EQ(GetLog("orders", 0)->config().segment_bytes, 1048576);
  EXPECT_EQ(GetLog("orders", 0)->config().retention_ms, 7200000);
  EXPECT_EQ(GetLog("kept", 0)->config().retention_ms, 1000);
  // AlterConfigs replaces the whole set: none left, server.properties' values again.
  auto legacy = HandleAlterConfigs(ctx_, rc_, AlterRequest(4, "", {}), 2);
  ASSERT_EQ(legacy.responses[0].error_code, ke::kNone);
  EXPECT_EQ(GetLog("orders", 0)->config().retention_ms, 604800000);
  resp = HandleIncrementalAlterConfigs(
      ctx_, rc_, IncrementalRequest(4, "1", {{"log.segment.bytes", 1, ""}}), 1);
  ASSERT_EQ(resp.responses[0].error_code, ke::kNone);
  EXPECT_EQ(GetLog("orders", 0)->config().segment_bytes, 2097152);
  EXPECT_TRUE(logs_->DynamicBrokerConfigs("").empty());
  EXPECT_TRUE(logs_->DynamicBrokerConfigs("1").empty());
}

TEST_F(ConfigHandlersTest, AnInternalConfigIsDescribedWhenTheTopicSetsIt) {
  ASSERT_TRUE(logs_->CreateTopic("small", 1, {{"internal.segment.bytes", "300000"}}).ok());
  auto req = DescribeConfigsRequest(2, "small", std::nullopt, true);
  req.include_documentation = true;
  auto resp = HandleDescribeConfigs(ctx_, rc_, req, 4);
  EXPECT_EQ(resp.results[0].configs.size(), 38u);
  const auto* c = FindConfig(resp.results[0], "internal.segment.bytes");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->value, "300000");
  EXPECT_EQ(c->config_source, 1);  // DYNAMIC_TOPIC_CONFIG
  ASSERT_EQ(c->synonyms.size(), 1u);
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeConfigs);
}

}  // namespace
}  // namespace seglog
