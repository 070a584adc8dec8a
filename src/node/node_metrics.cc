// The node's scrape-time metrics; see node_metrics.h.
#include "node/node_metrics.h"

#include "base/clock.h"
#include "base/mutex.h"
#include "server/api_table.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace seglog {

BrokerMetrics::Collector LogGaugesCollector(const LogManager* logs) {
  return [logs] {
    using Samples = std::vector<std::pair<std::map<std::string, std::string>, double>>;
    Samples size, start, end, segments, replicas, under_min_isr;
    std::set<std::string> topics;
    for (const auto& [topic, md] : logs->AllTopicMetadata()) {
      topics.insert(topic);
      for (int32_t p = 0; p < md.partitions; ++p) {
        Result<std::shared_ptr<Log>> log = logs->GetLog(TopicPartition{topic, p});
        if (!log.ok()) continue;  // deleted meanwhile
        const std::map<std::string, std::string> labels = {{"topic", topic},
                                                           {"partition", std::to_string(p)}};
        size.emplace_back(labels, static_cast<double>(log.value()->size_in_bytes()));
        start.emplace_back(labels, static_cast<double>(log.value()->log_start_offset()));
        end.emplace_back(labels, static_cast<double>(log.value()->log_end_offset()));
        segments.emplace_back(labels, log.value()->num_segments());
        replicas.emplace_back(labels, 1);  // one node holds every replica
        under_min_isr.emplace_back(labels, 0);
      }
    }
    const double partitions = static_cast<double>(size.size());
    const double one_node = 1;
    std::vector<prometheus::MetricFamily> out;
    out.push_back(GaugeFamily("kafka_log_log_size", "Bytes of the partition's log", size));
    out.push_back(GaugeFamily("kafka_log_log_logstartoffset", "", start));
    out.push_back(GaugeFamily("kafka_log_log_logendoffset", "", end));
    out.push_back(GaugeFamily("kafka_log_log_numlogsegments", "", segments));
    out.push_back(GaugeFamily("kafka_cluster_partition_replicascount", "", replicas));
    out.push_back(GaugeFamily("kafka_cluster_partition_underminisr", "", under_min_isr));
    // A single node leads every partition it has, none is under-replicated or offline, and it
    // is the active controller.
    out.push_back(
        GaugeFamily("kafka_server_replicamanager_partitioncount", "", {{{}, partitions}}));
    out.push_back(GaugeFamily("kafka_server_replicamanager_leadercount", "", {{{}, partitions}}));
    out.push_back(
        GaugeFamily("kafka_server_replicamanager_underreplicatedpartitions", "", {{{}, 0}}));
    out.push_back(
        GaugeFamily("kafka_server_replicamanager_underminisrpartitioncount", "", {{{}, 0}}));
    out.push_back(GaugeFamily("kafka_server_replicamanager_offlinereplicacount", "", {{{}, 0}}));
    out.push_back(GaugeFamily("kafka_controller_kafkacontroller_activecontrollercount", "",
                              {{{}, one_node}}));
    out.push_back(
        GaugeFamily("kafka_controller_kafkacontroller_offlinepartitionscount", "", {{{}, 0}}));
    out.push_back(GaugeFamily("kafka_controller_kafkacontroller_globaltopiccount", "",
                              {{{}, static_cast<double>(topics.size())}}));
    out.push_back(GaugeFamily("kafka_controller_kafkacontroller_globalpartitioncount", "",
                              {{{}, partitions}}));
    // Kafka's BrokerState: 3 is RUNNING.
    out.push_back(GaugeFamily("kafka_server_kafkaserver_brokerstate", "", {{{}, 3}}));
    return out;
  };
}

BrokerMetrics::Collector CleanerCollector(const LogManager* logs) {
  return [logs] {
    using Samples = std::vector<std::pair<std::map<std::string, std::string>, double>>;
    const LogManager::CleanerMetrics c = logs->cleaner_metrics();
    std::vector<prometheus::MetricFamily> out;
    out.push_back(GaugeFamily("kafka_log_logcleaner_max_buffer_utilization_percent", "",
                              {{{}, c.max_buffer_utilization_percent}}));
    out.push_back(GaugeFamily("kafka_log_logcleaner_cleaner_recopy_percent", "",
                              {{{}, c.cleaner_recopy_percent}}));
    out.push_back(
        GaugeFamily("kafka_log_logcleaner_max_clean_time_secs", "", {{{}, c.max_clean_time_secs}}));
    out.push_back(GaugeFamily("kafka_log_logcleaner_deadthreadcount", "", {{{}, 0}}));
    out.push_back(GaugeFamily("kafka_log_logcleanermanager_max_dirty_percent", "",
                              {{{}, c.max_dirty_percent}}));
    const double since = c.last_run_ms < 0 ? 0 : static_cast<double>(WallClockMs() - c.last_run_ms);
    out.push_back(
        GaugeFamily("kafka_log_logcleanermanager_time_since_last_run_ms", "", {{{}, since}}));
    Samples count, bytes;
    for (const auto& [dir, cb] : c.uncleanable_by_dir) {
      // JMX quotes a path-valued key, and the exporter keeps the quotes.
      const std::map<std::string, std::string> labels = {{"logDirectory", "\"" + dir + "\""}};
      count.emplace_back(labels, static_cast<double>(cb.first));
      bytes.emplace_back(labels, static_cast<double>(cb.second));
    }
    out.push_back(
        GaugeFamily("kafka_log_logcleanermanager_uncleanable_partitions_count", "", count));
    out.push_back(GaugeFamily("kafka_log_logcleanermanager_uncleanable_bytes", "", bytes));
    return out;
  };
}

BrokerMetrics::Collector GroupCollector(GroupCoordinator* groups) {
  return [groups] {
    using Samples = std::vector<std::pair<std::map<std::string, std::string>, double>>;
    std::map<std::string, double> classic_by_state = {{"PreparingRebalance", 0},
                                                      {"CompletingRebalance", 0},
                                                      {"Stable", 0},
                                                      {"Dead", 0},
                                                      {"Empty", 0}};
    // Kafka's state tags, as its ConsumerGroupState and ClassicGroupState print them.
    std::map<std::string, double> consumer_by_state = {
        {"Empty", 0}, {"Assigning", 0}, {"Reconciling", 0}, {"Stable", 0}, {"Dead", 0}};
    double classic = 0, consumer = 0;
    for (const GroupCoordinator::ListedGroup& g : groups->ListGroups({}, {})) {
      if (g.type == "classic") {
        ++classic;
        ++classic_by_state[g.state];
      } else {
        ++consumer;
        ++consumer_by_state[g.state];
      }
    }
    const double offsets = static_cast<double>(groups->NumOffsets());
    std::vector<prometheus::MetricFamily> out;
    const std::string yammer = "kafka_coordinator_group_groupmetadatamanager_";
    out.push_back(GaugeFamily(yammer + "numgroups", "Classic groups", {{{}, classic}}));
    out.push_back(GaugeFamily(yammer + "numoffsets", "Committed offsets", {{{}, offsets}}));
    for (const auto& [state, n] : classic_by_state) {
      std::string name = yammer + "numgroups";
      for (char ch : state) name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      out.push_back(GaugeFamily(name, "", {{{}, n}}));
    }
    const std::string km = "kafka_server_group_coordinator_metrics_";
    out.push_back(GaugeFamily(
        km + "group_count", "Groups by rebalance protocol",
        {{{{"protocol", "classic"}}, classic}, {{{"protocol", "consumer"}}, consumer}}));
    Samples consumer_states, classic_states;
    for (const auto& [state, n] : consumer_by_state)
      consumer_states.push_back({{{"state", state}}, n});
    for (const auto& [state, n] : classic_by_state)
      classic_states.push_back({{{"state", state}}, n});
    out.push_back(GaugeFamily(km + "consumer_group_count", "", consumer_states));
    out.push_back(GaugeFamily(km + "classic_group_count", "", classic_states));
    out.push_back(GaugeFamily(km + "offset_count", "", {{{}, offsets}}));
    return out;
  };
}

BrokerMetrics::Collector TransactionCollector(TransactionCoordinator* txns) {
  return [txns] {
    std::map<std::string, double> by_state;
    for (const char* state :
         {"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"}) {
      by_state[state] = 0;
    }
    const protocol::ListTransactionsResponseData listed = txns->List({});
    for (const auto& t : listed.transaction_states) ++by_state[t.transaction_state];
    std::vector<std::pair<std::map<std::string, std::string>, double>> samples;
    for (const auto& [state, n] : by_state) samples.push_back({{{"state", state}}, n});
    return std::vector<prometheus::MetricFamily>{
        GaugeFamily("seglog_transactions", "Transactional ids by state", samples)};
  };
}

BrokerMetrics::Collector TieredCollector(const RemoteLogManager* remote) {
  return [remote] {
    const RemoteLogManagerStats s = remote->stats();
    const std::string p = "kafka_server_brokertopicmetrics_";
    auto counter = [](const std::string& name, int64_t v) {
      return CounterFamily(name, "", {{{}, static_cast<double>(v)}});
    };
    return std::vector<prometheus::MetricFamily>{
        counter(p + "remotecopybytes_total", s.bytes_copied),
        counter(p + "remotecopyrequests_total", s.segments_copied),
        counter(p + "remotecopyerrors_total", s.copy_failures),
        counter(p + "remotedeleterequests_total", s.segments_deleted),
        counter(p + "remotedeleteerrors_total", s.delete_failures),
        counter(p + "remotefetchrequests_total", s.remote_reads),
        counter(p + "remotefetcherrors_total", s.remote_read_failures)};
  };
}

void RecoveryGauges::OnProgress(const std::string& dir, const ProgressStep& step) {
  MutexLock l(&mu_);
  Remaining& r = dirs_[dir];
  r.logs += step.add_logs_total - step.logs;
  r.segments += step.add_segments_total - step.segments;
}

std::vector<prometheus::MetricFamily> RecoveryGauges::Collect() const {
  std::vector<std::pair<std::map<std::string, std::string>, double>> logs, segments;
  {
    MutexLock l(&mu_);
    for (const auto& [dir, r] : dirs_) {
      // JMX quotes a path-valued key, and the exporter keeps the quotes.
      const std::map<std::string, std::string> labels = {{"dir", "\"" + dir + "\""}};
      logs.emplace_back(labels, static_cast<double>(r.logs));
      segments.emplace_back(labels, static_cast<double>(r.segments));
    }
  }
  return {
      GaugeFamily("kafka_log_logmanager_remaininglogstorecover",
                  "Logs still to load in the directory (remainingLogsToRecover)", logs),
      GaugeFamily("kafka_log_logmanager_remainingsegmentstorecover",
                  "Segments still to load in the directory (remainingSegmentsToRecover)", segments),
      // Kafka's BrokerState 1: STARTING.
      GaugeFamily("kafka_server_kafkaserver_brokerstate", "", {{{}, 1}})};
}

double IdleFraction(int64_t busy_ns, int64_t elapsed_ns, int threads) {
  if (elapsed_ns <= 0 || threads <= 0) return 1.0;
  const double busy = static_cast<double>(busy_ns) /
                      (static_cast<double>(elapsed_ns) * static_cast<double>(threads));
  return std::clamp(1.0 - busy, 0.0, 1.0);
}

namespace {

// The window the idle fractions are measured over: from a snapshot at least 10 s old.
// Thread safety: thread-safe.
class IdleWindow {
 public:
  struct Point {
    int64_t at_ns = 0;
    int64_t handler_idle_ns = 0;
    int64_t network_cpu_ns = 0;
  };
  explicit IdleWindow(Point start) : older_(start), newer_(start) {}

  // The point to measure from, for a scrape at `now`; keeps `now` for later scrapes.
  Point Since(const Point& now) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    constexpr int64_t kMinWindowNs = 10'000'000'000;
    if (now.at_ns - newer_.at_ns >= kMinWindowNs) {
      older_ = newer_;
      newer_ = now;
    }
    return now.at_ns - older_.at_ns > 0 ? older_ : Point{};
  }

 private:
  Mutex mu_;
  Point older_ GUARDED_BY(mu_);
  Point newer_ GUARDED_BY(mu_);
};

}  // namespace

BrokerMetrics::Collector SocketServerCollector(const SocketServer* server) {
  const SocketServer::Stats first = server->stats();
  auto window = std::make_shared<IdleWindow>(IdleWindow::Point{first.started_ns, 0, 0});
  return [server, window] {
    using Samples = std::vector<std::pair<std::map<std::string, std::string>, double>>;
    const SocketServer::Stats s = server->stats();
    const IdleWindow::Point now{MonotonicNs(), s.handler_idle_ns, s.network_cpu_ns};
    const IdleWindow::Point from = window->Since(now);
    const int64_t elapsed = now.at_ns - from.at_ns;
    const double network_idle =
        IdleFraction(now.network_cpu_ns - from.network_cpu_ns, elapsed, s.num_network_threads);
    // The handlers' busy time is what they did not spend waiting for a request.
    const int64_t handler_busy =
        elapsed * s.num_io_threads - (now.handler_idle_ns - from.handler_idle_ns);
    const double handler_idle = IdleFraction(handler_busy, elapsed, s.num_io_threads);
    Samples connections;
    for (const auto& c : s.connections_by_listener) {
      connections.push_back(
          {{{"listener", c.listener}, {"networkProcessor", std::to_string(c.network_processor)}},
           static_cast<double>(c.count)});
    }
    std::vector<prometheus::MetricFamily> out;
    out.push_back(GaugeFamily("kafka_server_socket_server_metrics_connection_count",
                              "Open connections by listener and network thread", connections));
    // Both spellings in use: Strimzi's rules and the standard ones.
    out.push_back(GaugeFamily("kafka_network_socketserver_networkprocessoravgidle_percent",
                              "Mean idle fraction of the network threads", {{{}, network_idle}}));
    out.push_back(GaugeFamily("kafka_network_socketserver_networkprocessoravgidlepercent",
                              "Mean idle fraction of the network threads", {{{}, network_idle}}));
    out.push_back(GaugeFamily("kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent",
                              "Mean idle fraction of the request handler threads",
                              {{{}, handler_idle}}));
    out.push_back(GaugeFamily("kafka_network_requestchannel_requestqueuesize",
                              "Requests waiting for a request handler thread",
                              {{{}, static_cast<double>(s.queued_requests + s.waiting_requests)}}));
    // seglog's own, for what Kafka has no name for.
    out.push_back(CounterFamily("seglog_connections_accepted_total", "Connections accepted",
                                {{{}, static_cast<double>(s.accepted)}}));
    out.push_back(CounterFamily("seglog_connections_rejected_total",
                                "Connections closed at accept: max.connections.per.ip",
                                {{{}, static_cast<double>(s.rejected)}}));
    out.push_back(CounterFamily("seglog_connections_throttled_total",
                                "Connections held back by a connection creation rate",
                                {{{}, static_cast<double>(s.throttled)}}));
    out.push_back(CounterFamily("seglog_request_memory_mutes_total",
                                "Connections muted for want of request memory",
                                {{{}, static_cast<double>(s.memory_mutes)}}));
    out.push_back(GaugeFamily("seglog_request_memory_available_bytes",
                              "Bytes left in the request memory pool (queued.max.request.bytes)",
                              {{{}, static_cast<double>(s.request_memory_available)}}));
    return out;
  };
}

RequestObserver RequestTimesObserver(std::shared_ptr<BrokerMetrics> metrics) {
  return [metrics](const RequestTimes& t) {
    constexpr double kNsPerMs = 1e6;
    BrokerMetrics::PhaseMs ms{};
    ms[BrokerMetrics::kTotal] = static_cast<double>(t.total_ns) / kNsPerMs;
    ms[BrokerMetrics::kRequestQueue] = static_cast<double>(t.request_queue_ns) / kNsPerMs;
    ms[BrokerMetrics::kLocal] = static_cast<double>(t.local_ns) / kNsPerMs;
    ms[BrokerMetrics::kRemote] = static_cast<double>(t.remote_ns) / kNsPerMs;
    ms[BrokerMetrics::kResponseQueue] = static_cast<double>(t.response_queue_ns) / kNsPerMs;
    ms[BrokerMetrics::kResponseSend] = static_cast<double>(t.response_send_ns) / kNsPerMs;
    const std::string name = ApiName(t.api_key);
    metrics->RecordRequestTimes(name, ms);
    if (name == "Fetch") metrics->RecordRequestTimes("FetchConsumer", ms);
  };
}

}  // namespace seglog
