#include "telemetry/client_metrics_manager.h"

#include <gtest/gtest.h>

#include "record/compression.h"
#include "telemetry/otlp_test_encoder.h"

namespace seglog {
namespace {

using M = ClientMetricsManager;

M::Caller Caller(uint64_t connection = 1, const std::string& client_id = "producer-1") {
  return M::Caller{connection, client_id, "127.0.0.1", "50000"};
}

std::vector<uint8_t> SendTotal(double delta) {
  return otlp_test::MetricsData({otlp_test::DeltaCounter(
      "org.apache.kafka.producer.record.send.total", otlp_test::Point(delta, {{"topic", "t"}}))});
}

double Value(const std::vector<prometheus::MetricFamily>& families, const std::string& name,
             const std::string& id) {
  for (const auto& f : families) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        if (l.name == "client_instance_id" && l.value == id) {
          return f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
        }
      }
    }
  }
  return -1;
}

class ClientMetricsManagerTest : public ::testing::Test {
 protected:
  void Subscribe(const std::map<std::string, std::string>& configs) {
    ASSERT_TRUE(m_.UpdateSubscription("sub", configs).ok());
  }
  M m_;
};

TEST_F(ClientMetricsManagerTest, NewClientGetsAnIdAndTheDefaults) {
  auto a = m_.GetSubscriptions(Uuid{}, Caller(), 1000);
  EXPECT_EQ(a.error_code, 0);
  EXPECT_FALSE(a.client_instance_id.IsZero());
  EXPECT_EQ(a.push_interval_ms, 300000);
  EXPECT_TRUE(a.requested_metrics.empty());
  EXPECT_EQ(a.accepted_compression_types, (std::vector<int8_t>{4, 3, 1, 2}));
  EXPECT_EQ(a.telemetry_max_bytes, 1024 * 1024);
  EXPECT_TRUE(a.delta_temporality);
  // Another zero-id client gets another id.
  auto b = m_.GetSubscriptions(Uuid{}, Caller(2), 1000);
  EXPECT_NE(a.client_instance_id, b.client_instance_id);
}

TEST_F(ClientMetricsManagerTest, SubscriptionsMergeAndChangeTheId) {
  auto before = m_.GetSubscriptions(Uuid{}, Caller(), 0);
  ASSERT_TRUE(m_.UpdateSubscription(
                    "a", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "2000"}})
                  .ok());
  ASSERT_TRUE(m_.UpdateSubscription("b", {{"metrics", "org.apache.kafka.consumer."},
                                          {"interval.ms", "1000"},
                                          {"match", "client_id=producer-.*"}})
                  .ok());
  ASSERT_TRUE(m_.UpdateSubscription("c", {{"metrics", "*"}, {"match", "client_id=nobody"}}).ok());
  // A changed subscription is answered at once, without waiting for the interval.
  auto a = m_.GetSubscriptions(before.client_instance_id, Caller(), 10);
  ASSERT_EQ(a.error_code, 0);
  EXPECT_EQ(a.requested_metrics,
            (std::vector<std::string>{"org.apache.kafka.consumer.", "org.apache.kafka.producer."}));
  EXPECT_EQ(a.push_interval_ms, 1000);
  EXPECT_NE(a.subscription_id, before.subscription_id);
  EXPECT_EQ(m_.SubscriptionNames(), (std::vector<std::string>{"a", "b", "c"}));
  // "*" wins over prefixes.
  ASSERT_TRUE(m_.UpdateSubscription("c", {{"metrics", "*"}}).ok());
  auto all = m_.GetSubscriptions(before.client_instance_id, Caller(), 20);
  EXPECT_EQ(all.requested_metrics, (std::vector<std::string>{"*"}));
  // Removing them all goes back to nothing.
  for (const char* n : {"a", "b", "c"}) ASSERT_TRUE(m_.UpdateSubscription(n, {}).ok());
  auto none = m_.GetSubscriptions(before.client_instance_id, Caller(), 30);
  EXPECT_TRUE(none.requested_metrics.empty());
  EXPECT_EQ(none.subscription_id, before.subscription_id);
  EXPECT_FALSE(m_.UpdateSubscription("bad", {{"interval.ms", "5"}}).ok());
  EXPECT_TRUE(m_.SubscriptionNames().empty());
}

TEST_F(ClientMetricsManagerTest, SoftwareNameComesFromTheConnection) {
  Subscribe({{"metrics", "x."}, {"match", "client_software_name=apache-kafka-java"}});
  auto unknown = m_.GetSubscriptions(Uuid{}, Caller(1), 0);
  EXPECT_TRUE(unknown.requested_metrics.empty());
  m_.SetClientSoftware(2, "apache-kafka-java", "4.4.0");
  auto java = m_.GetSubscriptions(Uuid{}, Caller(2), 0);
  EXPECT_EQ(java.requested_metrics, (std::vector<std::string>{"x."}));
}

TEST_F(ClientMetricsManagerTest, GetWithinTheIntervalIsThrottled) {
  Subscribe({{"metrics", "org."}, {"interval.ms", "1000"}});
  auto a = m_.GetSubscriptions(Uuid{}, Caller(), 5000);
  ASSERT_EQ(a.error_code, 0);
  auto again = m_.GetSubscriptions(a.client_instance_id, Caller(), 5500);
  EXPECT_EQ(again.error_code, M::kThrottlingQuotaExceeded);
  EXPECT_TRUE(again.client_instance_id.IsZero());
  EXPECT_EQ(m_.GetSubscriptions(a.client_instance_id, Caller(), 6000).error_code, 0);
}

TEST_F(ClientMetricsManagerTest, PushErrorsInKafkaOrder) {
  Subscribe({{"metrics", "org."}, {"interval.ms", "1000"}});
  const std::vector<uint8_t> payload = SendTotal(5);
  EXPECT_EQ(m_.Push(Uuid{}, 0, false, 0, payload, Caller(), 0).error_code, M::kInvalidRequest);
  EXPECT_EQ(m_.Push(Uuid::FromHalves(0, 1), 0, false, 0, payload, Caller(), 0).error_code,
            M::kInvalidRequest);

  auto a = m_.GetSubscriptions(Uuid{}, Caller(), 10000);
  const Uuid id = a.client_instance_id;
  // Wrong subscription id (the first push after a Get is never throttled).
  EXPECT_EQ(m_.Push(id, a.subscription_id + 1, false, 0, payload, Caller(), 10100).error_code,
            M::kUnknownSubscriptionId);
  // Too soon after that push.
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 0, payload, Caller(), 10200).error_code,
            M::kThrottlingQuotaExceeded);
  // An unknown subscription id lets the client Get again at once.
  EXPECT_EQ(m_.GetSubscriptions(id, Caller(), 10300).error_code, M::kThrottlingQuotaExceeded);
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 9, payload, Caller(), 11200).error_code,
            M::kUnsupportedCompressionType);
  EXPECT_EQ(m_.GetSubscriptions(id, Caller(), 11300).error_code, 0);
  // That Get came within the interval, so it did not count as one: still throttled (Kafka's).
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 0, payload, Caller(), 11400).error_code,
            M::kThrottlingQuotaExceeded);
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 0, payload, Caller(), 12300).error_code, 0);
  // Undecodable.
  std::vector<uint8_t> garbage = {0x0a, 0x7f, 0x01};
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 0, garbage, Caller(), 13400).error_code,
            M::kInvalidRecord);
  // Not zstd.
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 4, payload, Caller(), 14400).error_code,
            M::kInvalidRecord);
  // A terminating push is accepted within the interval, and nothing after it.
  EXPECT_EQ(m_.Push(id, a.subscription_id, true, 0, payload, Caller(), 14500).error_code, 0);
  EXPECT_EQ(m_.Push(id, a.subscription_id, false, 0, payload, Caller(), 20000).error_code,
            M::kInvalidRequest);
}

TEST_F(ClientMetricsManagerTest, TooLargeCompressedOrInflated) {
  M::Options o;
  o.telemetry_max_bytes = 200;
  M small(o);
  auto a = small.GetSubscriptions(Uuid{}, Caller(), 0);
  std::vector<uint8_t> big(201, 0);
  EXPECT_EQ(
      small.Push(a.client_instance_id, a.subscription_id, false, 0, big, Caller(), 1).error_code,
      M::kTelemetryTooLarge);
  // 10 KB of zeros compresses far below 200 bytes but inflates past it.
  std::vector<uint8_t> inflates(10000, 0), compressed;
  ASSERT_TRUE(Compress(CompressionType::kZstd, std::nullopt, inflates, &compressed).ok());
  ASSERT_LT(compressed.size(), 200u);
  EXPECT_EQ(
      small.Push(a.client_instance_id, a.subscription_id, false, 4, compressed, Caller(), 400000)
          .error_code,
      M::kTelemetryTooLarge);
}

TEST_F(ClientMetricsManagerTest, PushedMetricsAreCollectedWithDeltasAddedUp) {
  Subscribe({{"metrics", "org."}, {"interval.ms", "1000"}});
  auto a = m_.GetSubscriptions(Uuid{}, Caller(), 0);
  const std::string id = a.client_instance_id.ToString();
  for (CompressionType codec :
       {CompressionType::kNone, CompressionType::kGzip, CompressionType::kSnappy,
        CompressionType::kLz4, CompressionType::kZstd}) {
    std::vector<uint8_t> body = SendTotal(10), compressed;
    if (codec != CompressionType::kNone) {
      ASSERT_TRUE(Compress(codec, std::nullopt, body, &compressed).ok());
      body = compressed;
    }
    static int64_t now = 0;
    now += 1000;
    auto r = m_.Push(a.client_instance_id, a.subscription_id, false, static_cast<int8_t>(codec),
                     body, Caller(), now);
    ASSERT_EQ(r.error_code, 0) << r.error_message;
  }
  auto families = m_.Collect(6000);
  EXPECT_EQ(
      Value(families, "seglog_client_telemetry_org_apache_kafka_producer_record_send_total", id),
      50);
  EXPECT_EQ(Value(families, "seglog_client_telemetry_pushes_total", id), 5);
  // The client stops pushing: its series go after max(60 s, 3 intervals).
  EXPECT_EQ(m_.SeriesCount(), 1u);
  families = m_.Collect(5000 + 60001);
  EXPECT_EQ(
      Value(families, "seglog_client_telemetry_org_apache_kafka_producer_record_send_total", id),
      -1);
  EXPECT_EQ(m_.SeriesCount(), 0u);
}

TEST_F(ClientMetricsManagerTest, SeriesAreCapped) {
  M::Options o;
  o.max_series_per_client = 3;
  o.max_series = 5;
  M capped(o);
  for (uint64_t c = 1; c <= 3; ++c) {
    auto a = capped.GetSubscriptions(Uuid{}, Caller(c), 0);
    std::vector<otlp_test::Pb> metrics;
    for (int i = 0; i < 10; ++i) {
      metrics.push_back(otlp_test::Gauge("g", otlp_test::Point(i, {{"n", std::to_string(i)}})));
    }
    ASSERT_EQ(capped
                  .Push(a.client_instance_id, a.subscription_id, false, 0,
                        otlp_test::MetricsData(metrics), Caller(c), 1)
                  .error_code,
              0);
  }
  EXPECT_EQ(capped.SeriesCount(), 5u);  // 3 + 2 + 0
}

TEST_F(ClientMetricsManagerTest, ClosedConnectionForgetsItsInstance) {
  auto a = m_.GetSubscriptions(Uuid{}, Caller(7), 0);
  EXPECT_EQ(m_.InstanceCount(), 1u);
  m_.ConnectionClosed(7);
  EXPECT_EQ(m_.InstanceCount(), 0u);
  // The client comes back with its id: a new instance, not throttled.
  EXPECT_EQ(m_.GetSubscriptions(a.client_instance_id, Caller(8), 1).error_code, 0);
}

TEST_F(ClientMetricsManagerTest, InstancesAreBounded) {
  M::Options o;
  o.max_instances = 4;
  M bounded(o);
  for (uint64_t c = 1; c <= 10; ++c) bounded.GetSubscriptions(Uuid{}, Caller(c), c);
  EXPECT_EQ(bounded.InstanceCount(), 4u);
}

TEST_F(ClientMetricsManagerTest, PushedNamesAndLabelsCannotBreakTheScrape) {
  Subscribe({{"metrics", "*"}, {"interval.ms", "1000"}});
  auto a = m_.GetSubscriptions(Uuid{}, Caller(1, "bad\xc3"), 0);
  const std::string id = a.client_instance_id.ToString();
  auto body = otlp_test::MetricsData(
      {otlp_test::Gauge("pushes.total", otlp_test::Point(1000, {})),
       otlp_test::Gauge("ok.gauge",
                        otlp_test::Point(7, {{"k", "\xff\xfe ok"}, {"client_id", "spoofed"}}))});
  ASSERT_EQ(
      m_.Push(a.client_instance_id, a.subscription_id, false, 0, body, Caller(1, "bad\xc3"), 1000)
          .error_code,
      0);
  auto families = m_.Collect(1000);
  int pushes_families = 0;
  for (const auto& f : families) {
    if (f.name == "seglog_client_telemetry_pushes_total") ++pushes_families;
    if (f.name != "seglog_client_telemetry_ok_gauge") continue;
    ASSERT_EQ(f.metric.size(), 1u);
    std::map<std::string, std::string> labels;
    for (const auto& l : f.metric[0].label) labels[l.name] = l.value;
    EXPECT_EQ(labels["k"], "\xEF\xBF\xBD\xEF\xBF\xBD ok");  // invalid UTF-8 replaced
    EXPECT_EQ(labels["client_id"], "bad\xEF\xBF\xBD");      // the broker's, sanitized
  }
  EXPECT_EQ(pushes_families, 1);  // the pushed "pushes.total" does not take the broker's name
  EXPECT_EQ(Value(families, "seglog_client_telemetry_pushes_total", id), 1);
  EXPECT_EQ(Value(families, "seglog_client_telemetry_ok_gauge", id), 7);
}

TEST_F(ClientMetricsManagerTest, SoftwareOutsideKafkasPatternIsNotKept) {
  m_.SetClientSoftware(3, "bad name!", "1.0");
  m_.SetClientSoftware(4, std::string(300, 'a'), "1.0");
  m_.SetClientSoftware(5, "apache-kafka-java", "4.4.0");
  Subscribe({{"metrics", "*"}, {"match", "client_software_name=unknown"}});
  for (uint64_t c : {3, 4}) {
    // Refused software is not kept: the client is "unknown", as Kafka names one without.
    auto a = m_.GetSubscriptions(Uuid{}, Caller(c), 0);
    EXPECT_FALSE(a.requested_metrics.empty()) << c;
  }
  EXPECT_TRUE(m_.GetSubscriptions(Uuid{}, Caller(5), 0).requested_metrics.empty());
}

TEST_F(ClientMetricsManagerTest, FreshInstanceIdsPastTheCapsKeepNothing) {
  M::Options o;
  o.max_series = 2;
  M capped(o);
  ASSERT_TRUE(capped.UpdateSubscription("sub", {{"metrics", "*"}}).ok());
  for (uint64_t c = 1; c <= 50; ++c) {
    auto a = capped.GetSubscriptions(Uuid{}, Caller(c), 0);
    capped.Push(a.client_instance_id, a.subscription_id, false, 0, SendTotal(1), Caller(c), 1);
  }
  EXPECT_EQ(capped.SeriesCount(), 2u);
  size_t pushed = 0;
  for (const auto& f : capped.Collect(1)) {
    if (f.name == "seglog_client_telemetry_pushes_total") pushed = f.metric.size();
  }
  EXPECT_EQ(pushed, 2u);  // only the instances whose series were kept
}

}  // namespace
}  // namespace seglog
