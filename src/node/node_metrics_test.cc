#include "node/node_metrics.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

TEST(IdleFraction, BusyTimeOverThreadsAndElapsed) {
  EXPECT_DOUBLE_EQ(IdleFraction(0, 1000, 4), 1.0);
  EXPECT_DOUBLE_EQ(IdleFraction(1000, 1000, 4), 0.75);  // one of four threads busy throughout
  EXPECT_DOUBLE_EQ(IdleFraction(4000, 1000, 4), 0.0);
  EXPECT_DOUBLE_EQ(IdleFraction(5000, 1000, 4), 0.0);  // clock skew: never below 0
  EXPECT_DOUBLE_EQ(IdleFraction(-10, 1000, 4), 1.0);   // nor above 1
  EXPECT_DOUBLE_EQ(IdleFraction(10, 0, 4), 1.0);       // no window yet
  EXPECT_DOUBLE_EQ(IdleFraction(10, 1000, 0), 1.0);
}

TEST(RecoveryGauges, CountDownPerDirectoryAsLogsLoad) {
  RecoveryGauges g;
  ProgressStep total;
  total.add_logs_total = 2;
  total.add_segments_total = 5;
  g.OnProgress("/d1", total);
  ProgressStep empty;
  g.OnProgress("/d2", empty);
  auto value = [&](const std::string& family, const std::string& dir) {
    for (const auto& f : g.Collect()) {
      if (f.name != family) continue;
      for (const auto& m : f.metric) {
        if (m.label.size() == 1 && m.label[0].value == "\"" + dir + "\"") return m.gauge.value;
      }
    }
    return -1.0;
  };
  EXPECT_EQ(value("kafka_log_logmanager_remaininglogstorecover", "/d1"), 2);
  EXPECT_EQ(value("kafka_log_logmanager_remainingsegmentstorecover", "/d1"), 5);
  EXPECT_EQ(value("kafka_log_logmanager_remaininglogstorecover", "/d2"), 0);
  ProgressStep one;
  one.logs = 1;
  one.segments = 3;
  g.OnProgress("/d1", one);
  EXPECT_EQ(value("kafka_log_logmanager_remaininglogstorecover", "/d1"), 1);
  EXPECT_EQ(value("kafka_log_logmanager_remainingsegmentstorecover", "/d1"), 2);
  one.segments = 2;
  g.OnProgress("/d1", one);
  EXPECT_EQ(value("kafka_log_logmanager_remaininglogstorecover", "/d1"), 0);
  EXPECT_EQ(value("kafka_log_logmanager_remainingsegmentstorecover", "/d1"), 0);
}

TEST(RequestTimesObserver, CountsFetchAlsoAsFetchConsumer) {
  auto metrics = std::make_shared<BrokerMetrics>();
  RequestObserver observe = RequestTimesObserver(metrics);
  RequestTimes t;
  t.api_key = 1;  // Fetch
  t.total_ns = 3'000'000;
  t.remote_ns = 2'000'000;
  observe(t);
  t.api_key = 0;  // Produce
  observe(t);
  const std::string text = metrics->Scrape();
  for (const char* request : {"Fetch", "FetchConsumer", "Produce"}) {
    EXPECT_NE(text.find(std::string("kafka_network_requestmetrics_totaltimems_count{request=\"") +
                        request + "\"} 1\n"),
              std::string::npos)
        << request;
    const std::string key = std::string(
                                "kafka_network_requestmetrics_remotetimems{quantile=\"0.50\","
                                "request=\"") +
                            request + "\"} ";
    const size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << request;
    EXPECT_NEAR(std::stod(text.substr(at + key.size())), 2, 0.05) << request;
  }
}

}  // namespace
}  // namespace seglog
