// BrokerMetrics: the broker's metrics under the names the Prometheus JMX exporter's standard
// Kafka rules give Kafka's MBeans (docs/design/metrics.md), so Kafka's dashboards read seglog
// unchanged, served as Prometheus text on the HTTP listener's /metrics.
//
// - Counted as they happen (prometheus-cpp counters, atomic): BrokerTopicMetrics per topic and
//   for all topics together, as Kafka registers each meter twice (messages and bytes in, bytes
//   out, produce and fetch requests and their failures), and RequestMetrics' requests by API
//   name and version.
// - Read when scraped: the collectors added by the node (log sizes and offsets, partition and
//   controller gauges), which look at the logs only then.
// - Request latencies (RequestMetrics' TotalTimeMs and its phases, by request name) and log
//   flush times: each a WindowedHistogram (about the last five minutes, as Yammer's decaying
//   reservoir), exported as the JMX exporter exports a Yammer histogram: a gauge per quantile
//   0.50 ... 0.999 and a `_count` counter, no `_sum`.
//
// Thread safety: thread-safe. Record* may be called from any thread; topics' counters are
// found and counted under a mutex of the object's (not held while the collectors run).
#ifndef SEGLOG_METRICS_BROKER_METRICS_H_
#define SEGLOG_METRICS_BROKER_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "metrics/windowed_histogram.h"

namespace seglog {

class BrokerMetrics {
 public:
  // Families computed at scrape time.
  using Collector = std::function<std::vector<prometheus::MetricFamily>()>;

  BrokerMetrics();
  BrokerMetrics(const BrokerMetrics&) = delete;
  BrokerMetrics& operator=(const BrokerMetrics&) = delete;

  // One partition of a Produce: appended (`records`, `bytes` of its batches) or failed.
  void RecordProduce(const std::string& topic, int64_t records, int64_t bytes, bool failed)
      EXCLUDES(mu_);
  // One partition of a Fetch from a consumer: `bytes` of records answered, or failed.
  void RecordFetch(const std::string& topic, int64_t bytes, bool failed) EXCLUDES(mu_);
  // One request of API `name` ("Produce") at `version`; a consumer's Fetch also counts as
  // "FetchConsumer", as Kafka's RequestChannel counts it.
  void RecordRequest(const std::string& name, int16_t version) EXCLUDES(mu_);
  // Kafka's RequestMetrics phases, in milliseconds (see server/request_times.h).
  enum Phase { kTotal, kRequestQueue, kLocal, kRemote, kResponseQueue, kResponseSend, kPhases };
  using PhaseMs = std::array<double, kPhases>;
  // One request of `name` answered, with its phase times.
  void RecordRequestTimes(const std::string& name, const PhaseMs& ms) EXCLUDES(timers_mu_);
  // One log flush that synced something, taking `ms` (LogFlushStats' LogFlushRateAndTimeMs).
  void RecordLogFlush(double ms);
  // A deleted topic's counters go, as Kafka removes its topic metrics.
  void RemoveTopic(const std::string& topic) EXCLUDES(mu_);

  void AddCollector(Collector collector) EXCLUDES(mu_);
  // Every metric, in Prometheus' text format (version 0.0.4).
  std::string Scrape() const EXCLUDES(mu_, timers_mu_);

 private:
  struct TopicCounters {
    prometheus::Counter* messages_in;
    prometheus::Counter* bytes_in;
    prometheus::Counter* bytes_out;
    prometheus::Counter* total_produce;
    prometheus::Counter* failed_produce;
    prometheus::Counter* total_fetch;
    prometheus::Counter* failed_fetch;
  };
  TopicCounters& ForTopic(const std::string& topic) REQUIRES(mu_);
  void CountRequest(const std::string& name, int16_t version) REQUIRES(mu_);
  TopicCounters MakeCounters(const std::map<std::string, std::string>& labels);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& messages_in_;
  prometheus::Family<prometheus::Counter>& bytes_in_;
  prometheus::Family<prometheus::Counter>& bytes_out_;
  prometheus::Family<prometheus::Counter>& total_produce_;
  prometheus::Family<prometheus::Counter>& failed_produce_;
  prometheus::Family<prometheus::Counter>& total_fetch_;
  prometheus::Family<prometheus::Counter>& failed_fetch_;
  prometheus::Family<prometheus::Counter>& requests_;
  TopicCounters all_topics_;

  mutable Mutex mu_;
  std::map<std::string, TopicCounters> topics_ GUARDED_BY(mu_);
  std::map<std::pair<std::string, int16_t>, prometheus::Counter*> requests_by_key_ GUARDED_BY(mu_);
  std::vector<Collector> collectors_ GUARDED_BY(mu_);

  // One request name's phase histograms (thread-safe themselves).
  struct RequestTimers {
    std::array<WindowedHistogram, kPhases> phases;
  };
  std::vector<prometheus::MetricFamily> CollectRequestTimes() const EXCLUDES(timers_mu_);
  WindowedHistogram log_flush_;  // thread-safe itself
  mutable Mutex timers_mu_;
  std::map<std::string, std::unique_ptr<RequestTimers>> timers_ GUARDED_BY(timers_mu_);
};

// A gauge family with one sample per label set, for collectors.
prometheus::MetricFamily GaugeFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples);

// A counter family with one sample per label set, for collectors.
prometheus::MetricFamily CounterFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples);

}  // namespace seglog

#endif  // SEGLOG_METRICS_BROKER_METRICS_H_
