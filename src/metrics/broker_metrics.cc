// BrokerMetrics; see broker_metrics.h.
#include "metrics/broker_metrics.h"

#include <prometheus/text_serializer.h>

#include <utility>

namespace seglog {

namespace {

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

}  // namespace

BrokerMetrics::BrokerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      messages_in_(CounterFamily(*registry_, "kafka_server_brokertopicmetrics_messagesin_total",
                                 "Records appended by clients (MessagesInPerSec)")),
      bytes_in_(CounterFamily(*registry_, "kafka_server_brokertopicmetrics_bytesin_total",
                              "Bytes appended by clients (BytesInPerSec)")),
      bytes_out_(CounterFamily(*registry_, "kafka_server_brokertopicmetrics_bytesout_total",
                               "Record bytes sent to consumers (BytesOutPerSec)")),
      total_produce_(CounterFamily(*registry_,
                                   "kafka_server_brokertopicmetrics_totalproducerequests_total",
                                   "Partitions of Produce requests (TotalProduceRequestsPerSec)")),
      failed_produce_(CounterFamily(*registry_,
                                    "kafka_server_brokertopicmetrics_failedproducerequests_total",
                                    "Partitions of Produce requests that failed")),
      total_fetch_(CounterFamily(*registry_,
                                 "kafka_server_brokertopicmetrics_totalfetchrequests_total",
                                 "Partitions of consumers' Fetch requests")),
      failed_fetch_(CounterFamily(*registry_,
                                  "kafka_server_brokertopicmetrics_failedfetchrequests_total",
                                  "Partitions of consumers' Fetch requests that failed")),
      requests_(CounterFamily(*registry_, "kafka_network_requestmetrics_requests_total",
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
  for (const Collector& c : collectors) {
    std::vector<prometheus::MetricFamily> more = c();
    for (auto& f : more) families.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(families);
}

prometheus::MetricFamily GaugeFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>& samples) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = prometheus::MetricType::Gauge;
  for (const auto& [labels, value] : samples) {
    prometheus::ClientMetric m;
    for (const auto& [k, v] : labels) m.label.push_back({k, v});
    m.gauge.value = value;
    f.metric.push_back(std::move(m));
  }
  return f;
}

}  // namespace seglog
