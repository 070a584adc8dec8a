#include "metrics/broker_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace seglog {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(BrokerMetrics, TopicMetersAreCountedPerTopicAndForAllTopics) {
  BrokerMetrics m;
  m.RecordProduce("orders", 10, 1000, false);
  m.RecordProduce("orders", 5, 500, false);
  m.RecordProduce("audit", 1, 70, false);
  m.RecordProduce("audit", 0, 0, true);
  m.RecordFetch("orders", 1500, false);
  m.RecordFetch("orders", 0, true);
  const std::string text = m.Scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE kafka_server_brokertopicmetrics_messagesin_total counter\n"));
  EXPECT_THAT(text, HasSubstr("kafka_server_brokertopicmetrics_messagesin_total 16\n"));
  EXPECT_THAT(text,
              HasSubstr("kafka_server_brokertopicmetrics_messagesin_total{topic=\"orders\"} 15\n"));
  EXPECT_THAT(text,
              HasSubstr("kafka_server_brokertopicmetrics_bytesin_total{topic=\"audit\"} 70\n"));
  EXPECT_THAT(text, HasSubstr("kafka_server_brokertopicmetrics_totalproducerequests_total 4\n"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "kafka_server_brokertopicmetrics_failedproducerequests_total{topic=\"audit\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kafka_server_brokertopicmetrics_bytesout_total 1500\n"));
  EXPECT_THAT(text, HasSubstr("kafka_server_brokertopicmetrics_failedfetchrequests_total 1\n"));
  m.RemoveTopic("orders");
  const std::string after = m.Scrape();
  EXPECT_THAT(after, Not(HasSubstr("topic=\"orders\"")));
  EXPECT_THAT(after, HasSubstr("kafka_server_brokertopicmetrics_messagesin_total 16\n"));
  m.RecordProduce("orders", 2, 20, false);  // a topic made again starts from zero
  EXPECT_THAT(m.Scrape(),
              HasSubstr("kafka_server_brokertopicmetrics_messagesin_total{topic=\"orders\"} 2\n"));
}

TEST(BrokerMetrics, RequestsByNameAndVersionWithFetchAlsoAsFetchConsumer) {
  BrokerMetrics m;
  m.RecordRequest("Produce", 11);
  m.RecordRequest("Produce", 11);
  m.RecordRequest("Fetch", 17);
  const std::string text = m.Scrape();
  EXPECT_THAT(
      text,
      HasSubstr(
          "kafka_network_requestmetrics_requests_total{request=\"Produce\",version=\"11\"} 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "kafka_network_requestmetrics_requests_total{request=\"Fetch\",version=\"17\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("kafka_network_requestmetrics_requests_total{request=\"FetchConsumer\","
                        "version=\"17\"} 1\n"));
}

TEST(BrokerMetrics, LabelValuesAreEscapedAndCollectorsAreReadAtScrape) {
  BrokerMetrics m;
  m.RecordProduce("we\"ird\\topic\nname", 1, 1, false);
  int calls = 0;
  m.AddCollector([&calls] {
    ++calls;
    return std::vector<prometheus::MetricFamily>{
        GaugeFamily("kafka_log_log_size", "", {{{{"topic", "t"}, {"partition", "0"}}, 4096}})};
  });
  const std::string text = m.Scrape();
  EXPECT_THAT(text, HasSubstr("{topic=\"we\\\"ird\\\\topic\\nname\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE kafka_log_log_size gauge\n"));
  EXPECT_THAT(text, HasSubstr("kafka_log_log_size{partition=\"0\",topic=\"t\"} 4096\n"));
  EXPECT_EQ(calls, 1);
}

TEST(BrokerMetrics, CountsFromManyThreadsWhileTopicsComeAndGo) {
  BrokerMetrics m;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&m, t] {
      for (int i = 0; i < 2000; ++i) {
        m.RecordProduce(t % 2 ? "a" : "b", 1, 10, false);
        if (i % 100 == 0) m.RemoveTopic("a");
        if (i % 500 == 0) (void)m.Scrape();
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_THAT(m.Scrape(), HasSubstr("kafka_server_brokertopicmetrics_messagesin_total 8000\n"));
}

TEST(BrokerMetrics, RequestTimesAsTheExporterExportsAYammerHistogram) {
  BrokerMetrics m;
  BrokerMetrics::PhaseMs ms{};
  // 1000 Produce requests taking 1..1000 ms in total, 0.5 ms of it queued each.
  for (int i = 1; i <= 1000; ++i) {
    ms[BrokerMetrics::kTotal] = i;
    ms[BrokerMetrics::kRequestQueue] = 0.5;
    m.RecordRequestTimes("Produce", ms);
  }
  ms[BrokerMetrics::kTotal] = 7;
  m.RecordRequestTimes("Metadata", ms);
  const std::string text = m.Scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE kafka_network_requestmetrics_totaltimems gauge\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE kafka_network_requestmetrics_totaltimems_count counter\n"));
  EXPECT_THAT(
      text,
      HasSubstr("kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"} 1000\n"));
  // The quantiles of 1..1000 within the histogram's buckets (2.5%).
  auto quantile = [&](const std::string& family, const std::string& q,
                      const std::string& request = "Produce") {
    const std::string key = family + "{quantile=\"" + q + "\",request=\"" + request + "\"} ";
    const size_t at = text.find(key);
    EXPECT_NE(at, std::string::npos) << key;
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + key.size()));
  };
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_totaltimems", "0.999", "Metadata"), 7, 0.2);
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_totaltimems", "0.50"), 500, 12.5);
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_totaltimems", "0.75"), 750, 19);
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_totaltimems", "0.99"), 990, 25);
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_totaltimems", "0.999"), 999, 25);
  EXPECT_NEAR(quantile("kafka_network_requestmetrics_requestqueuetimems", "0.50"), 0.5, 0.0125);
  // Zero times are in the lowest bucket, which reports 1 microsecond.
  EXPECT_LE(quantile("kafka_network_requestmetrics_remotetimems", "0.99"), 0.001);
  for (const char* phase : {"localtimems", "responsequeuetimems", "responsesendtimems"}) {
    EXPECT_THAT(text, HasSubstr(std::string("kafka_network_requestmetrics_") + phase +
                                "_count{request=\"Produce\"} 1000\n"));
  }
  // No summary type, no _sum: what the exporter gives.
  EXPECT_THAT(text, Not(HasSubstr("summary")));
  EXPECT_THAT(text, Not(HasSubstr("_sum")));
}

}  // namespace
}  // namespace seglog
