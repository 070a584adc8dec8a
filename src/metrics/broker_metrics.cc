// BrokerMetrics; see broker_metrics.h.
#include "metrics/broker_metrics.h"

#include <prometheus/text_serializer.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <utility>

namespace seglog {

namespace {

prometheus::Family<prometheus::Counter>& RegisterCounter(prometheus::Registry& r,
                                                         const std::string& name,
                                                         const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

// The phases' names under kafka.network:type=RequestMetrics, as the exporter lowercases them.
constexpr std::array<const char*, BrokerMetrics::kPhases> kPhaseNames = {
    "totaltimems",  "requestqueuetimems",  "localtimems",
    "remotetimems", "responsequeuetimems", "responsesendtimems"};
constexpr std::array<const char*, BrokerMetrics::kPhases> kPhaseHelp = {
    "Request total time: read complete to response written (TotalTimeMs)",
    "Time waiting for a request handler (RequestQueueTimeMs)",
    "Time in the request handler (LocalTimeMs)",
    "Time parked waiting, e.g. a fetch's max.wait.ms (RemoteTimeMs)",
    "Time the answer waited for its network thread (ResponseQueueTimeMs)",
    "Time writing the response (ResponseSendTimeMs)"};

// Yammer's snapshot percentiles, as the exporter labels them.
const std::vector<double>& LatencyQuantiles() {
  static const std::vector<double> q = {0.50, 0.75, 0.95, 0.98, 0.99, 0.999};
  return q;
}

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string QuantileLabel(double q) {
  // "0.50", "0.75", "0.95", "0.98", "0.99", "0.999": the exporter's spelling.
  return q == 0.999 ? "0.999" : fmt::format("{:.2f}", q);
}

}  // namespace

BrokerMetrics::BrokerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      messages_in_(RegisterCounter(*registry_, "kafka_server_brokertopicmetrics_messagesin_total",
                                   "Records appended by clients (MessagesInPerSec)")),
      bytes_in_(RegisterCounter(*registry_, "kafka_server_brokertopicmetrics_bytesin_total",
                                "Bytes appended by clients (BytesInPerSec)")),
      bytes_out_(RegisterCounter(*registry_, "kafka_server_brokertopicmetrics_bytesout_total",
                                 "Record bytes sent to consumers (BytesOutPerSec)")),
      total_produce_(
          RegisterCounter(*registry_, "kafka_server_brokertopicmetrics_totalproducerequests_total",
                          "Partitions of Produce requests (TotalProduceRequestsPerSec)")),
      failed_produce_(RegisterCounter(*registry_,
                                      "kafka_server_brokertopicmetrics_failedproducerequests_total",
                                      "Partitions of Produce requests that failed")),
      total_fetch_(RegisterCounter(*registry_,
                                   "kafka_server_brokertopicmetrics_totalfetchrequests_total",
                                   "Partitions of consumers' Fetch requests")),
      failed_fetch_(RegisterCounter(*registry_,
                                    "kafka_server_brokertopicmetrics_failedfetchrequests_total",
                                    "Partitions of consumers' Fetch requests that failed")),
      requests_(RegisterCounter(*registry_, "kafka_network_requestmetrics_requests_total",
                                "Requests by API and version (RequestsPerSec)")),
      all_topics_(MakeCounters({})) {}

BrokerMetrics::TopicCounters BrokerMetrics::MakeCounters(
    const std::map<std::string, std::string>& labels) {
  return TopicCounters{&messages_in_.Add(labels),    &bytes_in_.Add(labels),
                       &bytes_out_.Add(labels),      &total_produce_.Add(labels),
                       &failed_produce_.Add(labels), &total_fetch_.Add(labels),
                       &failed_fetch_.Add(labels)};
}

BrokerMetrics::TopicCounters& BrokerMetrics::ForTopic(const std::string& topic) {
  auto it = topics_.find(topic);
  if (it == topics_.end()) it = topics_.emplace(topic, MakeCounters({{"topic", topic}})).first;
  return it->second;
}

void BrokerMetrics::RecordProduce(const std::string& topic, int64_t records, int64_t bytes,
                                  bool failed) {
  // Counted under the lock: RemoveTopic may delete a topic's counters.
  MutexLock lock(&mu_);
  for (TopicCounters* c : {&ForTopic(topic), &all_topics_}) {
    c->total_produce->Increment();
    if (failed) {
      c->failed_produce->Increment();
    } else {
      c->messages_in->Increment(static_cast<double>(records));
      c->bytes_in->Increment(static_cast<double>(bytes));
    }
  }
}

void BrokerMetrics::RecordFetch(const std::string& topic, int64_t bytes, bool failed) {
  MutexLock lock(&mu_);
  for (TopicCounters* c : {&ForTopic(topic), &all_topics_}) {
    c->total_fetch->Increment();
    if (failed) {
      c->failed_fetch->Increment();
    } else if (bytes > 0) {
      c->bytes_out->Increment(static_cast<double>(bytes));
    }
  }
}

void BrokerMetrics::CountRequest(const std::string& name, int16_t version) {
  auto key = std::make_pair(name, version);
  auto it = requests_by_key_.find(key);
  if (it == requests_by_key_.end()) {
    it =
        requests_by_key_
            .emplace(key, &requests_.Add({{"request", name}, {"version", std::to_string(version)}}))
            .first;
  }
  it->second->Increment();
}

void BrokerMetrics::RecordRequest(const std::string& name, int16_t version) {
  MutexLock lock(&mu_);
  CountRequest(name, version);
  if (name == "Fetch") CountRequest("FetchConsumer", version);
}

void BrokerMetrics::RecordRequestTimes(const std::string& name, const PhaseMs& ms) {
  RequestTimers* timers;
  {
    MutexLock lock(&timers_mu_);
    std::unique_ptr<RequestTimers>& slot = timers_[name];
    if (slot == nullptr) slot = std::make_unique<RequestTimers>();
    timers = slot.get();  // never removed, so stable once made
  }
  const int64_t now = SteadyMs();
  for (int i = 0; i < kPhases; ++i) timers->phases[i].Record(ms[i], now);
}

void BrokerMetrics::RecordLogFlush(double ms) { log_flush_.Record(ms, SteadyMs()); }

namespace {

// A histogram as the exporter exports a Yammer histogram: quantile gauges, a _count counter.
void AddTimerFamilies(
    const std::string& family, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, const WindowedHistogram*>>&
        timers,
    std::vector<prometheus::MetricFamily>* out) {
  std::vector<std::pair<std::map<std::string, std::string>, double>> quantiles, counts;
  const int64_t now = SteadyMs();
  for (const auto& [labels, timer] : timers) {
    const WindowedHistogram::Snapshot snap = timer->Take(LatencyQuantiles(), now);
    counts.push_back({labels, static_cast<double>(snap.total_count)});
    for (size_t i = 0; i < LatencyQuantiles().size(); ++i) {
      std::map<std::string, std::string> with_quantile = labels;
      with_quantile["quantile"] = QuantileLabel(LatencyQuantiles()[i]);
      quantiles.push_back({with_quantile, snap.quantiles[i]});
    }
  }
  out->push_back(GaugeFamily(family, help, quantiles));
  out->push_back(CounterFamily(family + "_count", help, counts));
}

}  // namespace

std::vector<prometheus::MetricFamily> BrokerMetrics::CollectRequestTimes() const {
  std::vector<std::pair<std::string, const RequestTimers*>> all;
  {
    MutexLock lock(&timers_mu_);
    for (const auto& [name, t] : timers_) all.emplace_back(name, t.get());
  }
  std::vector<prometheus::MetricFamily> out;
  for (int i = 0; i < kPhases; ++i) {
    std::vector<std::pair<std::map<std::string, std::string>, const WindowedHistogram*>> timers;
    for (const auto& [name, t] : all) timers.push_back({{{"request", name}}, &t->phases[i]});
    AddTimerFamilies(fmt::format("kafka_network_requestmetrics_{}", kPhaseNames[i]), kPhaseHelp[i],
                     timers, &out);
  }
  AddTimerFamilies("kafka_log_logflushstats_logflushrateandtimems",
                   "Log flush durations (LogFlushStats LogFlushRateAndTimeMs)", {{{}, &log_flush_}},
                   &out);
  return out;
}

void BrokerMetrics::RemoveTopic(const std::string& topic) {
  MutexLock lock(&mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) return;
  const TopicCounters& c = it->second;
  messages_in_.Remove(c.messages_in);
  bytes_in_.Remove(c.bytes_in);
  bytes_out_.Remove(c.bytes_out);
  total_produce_.Remove(c.total_produce);
  failed_produce_.Remove(c.failed_produce);
  total_fetch_.Remove(c.total_fetch);
  failed_fetch_.Remove(c.failed_fetch);
  topics_.erase(it);
}

void BrokerMetrics::AddCollector(Collector collector) {
  MutexLock lock(&mu_);
  collectors_.push_back(std::move(collector));
}

std::string BrokerMetrics::Scrape() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  std::vector<Collector> collectors;
  {
    MutexLock lock(&mu_);
    collectors = collectors_;
  }
  for (auto& f : CollectRequestTimes()) families.push_back(std::move(f));
  for (const Collector& c : collectors) {
    std::vector<prometheus::MetricFamily> more = c();
    for (auto& f : more) families.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(families);
}

namespace {

prometheus::MetricFamily SampleFamily(
    const std::string& name, const std::string& help, prometheus::MetricType type,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  for (const auto& [labels, value] : samples) {
    prometheus::ClientMetric m;
    for (const auto& [k, v] : labels) m.label.push_back({k, v});
    if (type == prometheus::MetricType::Counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
    f.metric.push_back(std::move(m));
  }
  return f;
}

}  // namespace

prometheus::MetricFamily CounterFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples) {
  return SampleFamily(name, help, prometheus::MetricType::Counter, samples);
}

prometheus::MetricFamily GaugeFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples) {
  return SampleFamily(name, help, prometheus::MetricType::Gauge, samples);
}

}  // namespace seglog
