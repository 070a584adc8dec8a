// KIP-714 over the handlers: CLIENT_METRICS subscriptions through IncrementalAlterConfigs,
// DescribeConfigs and ListConfigResources (stored in the metadata log), and
// GetTelemetrySubscriptions / PushTelemetry with their error codes; ApiVersions advertises the
// two APIs only with a telemetry manager.
#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "telemetry/otlp_test_encoder.h"

namespace seglog {
namespace {

namespace p = protocol;
namespace ke = kafka_error;
constexpr int8_t kClientMetrics = 16;
constexpr int8_t kSet = 0, kDelete = 1, kAppend = 2;

class TelemetryHandlersTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    ctx_.telemetry = std::make_shared<ClientMetricsManager>();
    ctx_.clock = [this] { return now_; };
    rc_.connection_id = 5;
    rc_.client_address = "127.0.0.1:40000";
    rc_.client_host = "127.0.0.1";
  }
  p::IncrementalAlterConfigsResponseData Alter(
      const std::string& name, const std::vector<std::tuple<std::string, int8_t, std::string>>& ops,
      bool validate_only = false) {
    p::IncrementalAlterConfigsRequestData req;
    req.validate_only = validate_only;
    auto& r = req.resources.emplace_back();
    r.resource_type = kClientMetrics;
    r.resource_name = name;
    for (const auto& [k, op, v] : ops) {
      auto& c = r.configs.emplace_back();
      c.name = k;
      c.config_operation = op;
      c.value = v;
    }
    return HandleIncrementalAlterConfigs(ctx_, rc_, req, 1);
  }
  std::map<std::string, std::string> Describe(const std::string& name, int16_t* error = nullptr) {
    p::DescribeConfigsRequestData req;
    auto& r = req.resources.emplace_back();
    r.resource_type = kClientMetrics;
    r.resource_name = name;
    auto resp = HandleDescribeConfigs(ctx_, rc_, req, 4);
    std::map<std::string, std::string> out;
    if (error != nullptr) *error = resp.results.at(0).error_code;
    for (const auto& c : resp.results.at(0).configs) {
      EXPECT_EQ(c.config_source, 7);
      out[c.name] = c.value.value_or("<null>");
    }
    return out;
  }
  p::GetTelemetrySubscriptionsResponseData Get(const Uuid& id) {
    p::GetTelemetrySubscriptionsRequestData req;
    req.client_instance_id = id;
    return HandleGetTelemetrySubscriptions(ctx_, rc_, "producer-1", req, 0);
  }
  int16_t Push(const Uuid& id, int32_t subscription, std::vector<uint8_t> metrics,
               int8_t compression = 0, bool terminating = false) {
    p::PushTelemetryRequestData req;
    req.client_instance_id = id;
    req.subscription_id = subscription;
    req.compression_type = compression;
    req.terminating = terminating;
    req.metrics = std::move(metrics);
    return HandlePushTelemetry(ctx_, rc_, "producer-1", req, 0).error_code;
  }
  int64_t now_ = kHandlersTestT0;
};

TEST_F(TelemetryHandlersTest, SubscriptionsAreStoredDescribedListedAndDeleted) {
  auto resp = Alter("sub", {{"metrics", kSet, "org.apache.kafka.producer."},
                            {"interval.ms", kSet, "1000"},
                            {"match", kSet, "client_id=producer-.*"}});
  ASSERT_EQ(resp.responses.at(0).error_code, 0) << resp.responses[0].error_message.value_or("");
  EXPECT_EQ(Describe("sub"),
            (std::map<std::string, std::string>{{"interval.ms", "1000"},
                                                {"match", "client_id=producer-.*"},
                                                {"metrics", "org.apache.kafka.producer."}}));
  ASSERT_EQ(
      Alter("sub", {{"metrics", kAppend, "org.apache.kafka.consumer."}}).responses.at(0).error_code,
      0);
  EXPECT_EQ(Describe("sub").at("metrics"), "org.apache.kafka.producer.,org.apache.kafka.consumer.");
  // Listed (v0 lists client metrics only; v1 among the rest).
  p::ListConfigResourcesRequestData list;
  auto listed = HandleListConfigResources(ctx_, rc_, list, 0);
  ASSERT_EQ(listed.config_resources.size(), 1u);
  EXPECT_EQ(listed.config_resources[0].resource_name, "sub");
  EXPECT_EQ(listed.config_resources[0].resource_type, kClientMetrics);
  // The manager follows: a matching client gets both prefixes at 1000 ms.
  auto g = Get(Uuid{});
  ASSERT_EQ(g.error_code, 0);
  EXPECT_EQ(g.push_interval_ms, 1000);
  EXPECT_EQ(g.requested_metrics.size(), 2u);
  // Deleting every key removes it (kafka-client-metrics.sh --delete).
  ASSERT_EQ(
      Alter("sub", {{"metrics", kDelete, ""}, {"interval.ms", kDelete, ""}, {"match", kDelete, ""}})
          .responses.at(0)
          .error_code,
      0);
  EXPECT_TRUE(Describe("sub").empty());
  EXPECT_TRUE(HandleListConfigResources(ctx_, rc_, list, 0).config_resources.empty());
  EXPECT_TRUE(ctx_.telemetry->SubscriptionNames().empty());
  // Kept in the metadata log across a restart.
  ASSERT_EQ(Alter("kept", {{"metrics", kSet, "*"}}).responses.at(0).error_code, 0);
  Open({});
  // The keys it never set are described with their defaults, as Kafka 4.4.0 does.
  EXPECT_EQ(Describe("kept"), (std::map<std::string, std::string>{
                                  {"interval.ms", "300000"}, {"match", ""}, {"metrics", "*"}}));
}

TEST_F(TelemetryHandlersTest, InvalidSubscriptionsAreRefusedAsKafka) {
  struct Case {
    std::string name;
    std::vector<std::tuple<std::string, int8_t, std::string>> ops;
    int16_t error;
  };
  for (const Case& c : std::vector<Case>{
           {"", {{"metrics", kSet, "a"}}, ke::kInvalidRequest},
           {"s", {{"bogus", kSet, "1"}}, ke::kInvalidRequest},
           {"s", {{"interval.ms", kSet, "50"}}, ke::kInvalidRequest},
           {"s", {{"interval.ms", kSet, "x"}}, ke::kInvalidConfig},
           {"s", {{"match", kSet, "client_rack=a"}}, ke::kInvalidConfig},
           {"s", {{"match", kSet, "client_id=(("}}, ke::kInvalidConfig},
           {"s", {{"interval.ms", kAppend, "5"}}, ke::kInvalidConfig},
       }) {
    auto resp = Alter(c.name, c.ops);
    EXPECT_EQ(resp.responses.at(0).error_code, c.error) << std::get<0>(c.ops[0]);
  }
  EXPECT_TRUE(ctx_.telemetry->SubscriptionNames().empty());
  // validate_only checks and keeps nothing.
  EXPECT_EQ(Alter("s", {{"metrics", kSet, "a"}}, true).responses.at(0).error_code, 0);
  EXPECT_TRUE(Describe("s").empty());
  int16_t error = 0;
  Describe("", &error);
  EXPECT_EQ(error, ke::kInvalidRequest);
}

TEST_F(TelemetryHandlersTest, GetAndPushAnswerAsKafka) {
  ASSERT_EQ(Alter("sub", {{"metrics", kSet, "org."}, {"interval.ms", kSet, "1000"}})
                .responses.at(0)
                .error_code,
            0);
  auto g = Get(Uuid{});
  ASSERT_EQ(g.error_code, 0);
  EXPECT_FALSE(g.client_instance_id.IsZero());
  EXPECT_EQ(g.accepted_compression_types, (std::vector<int8_t>{4, 3, 1, 2}));
  EXPECT_TRUE(g.delta_temporality);
  EXPECT_EQ(g.telemetry_max_bytes, 1048576);
  now_ += 100;
  EXPECT_EQ(Get(g.client_instance_id).error_code, ke::kThrottlingQuotaExceeded);
  const auto payload = otlp_test::MetricsData({otlp_test::DeltaCounter(
      "org.apache.kafka.producer.record.send.total", otlp_test::Point(3))});
  EXPECT_EQ(Push(Uuid{}, g.subscription_id, payload), ke::kInvalidRequest);
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, payload), 0);
  now_ += 100;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, payload), ke::kThrottlingQuotaExceeded);
  now_ += 1000;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id ^ 1, payload), 117);
  now_ += 1000;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, payload, 7), 76);
  now_ += 1000;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, {0x0a, 0x05}), 87);
  now_ += 1000;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, payload, 0, true), 0);
  now_ += 1000;
  EXPECT_EQ(Push(g.client_instance_id, g.subscription_id, payload), ke::kInvalidRequest);
  // The subscription changes: the client's old id is unknown, a Get answers at once.
  ASSERT_EQ(Alter("sub", {{"interval.ms", kSet, "2000"}}).responses.at(0).error_code, 0);
  auto again = Get(g.client_instance_id);
  ASSERT_EQ(again.error_code, 0);
  EXPECT_EQ(again.push_interval_ms, 2000);
  EXPECT_NE(again.subscription_id, g.subscription_id);
}

TEST_F(TelemetryHandlersTest, ApiVersionsAdvertisesTelemetryOnlyWithAManager) {
  auto has = [&](int16_t key) {
    p::ApiVersionsRequestData req;
    for (const auto& k : HandleApiVersions(ctx_, req, 2).api_keys) {
      if (k.api_key == key) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(71));
  EXPECT_TRUE(has(72));
  ctx_.telemetry = nullptr;
  EXPECT_FALSE(has(71));
  EXPECT_FALSE(has(72));
  EXPECT_TRUE(has(18));
}

}  // namespace
}  // namespace seglog
