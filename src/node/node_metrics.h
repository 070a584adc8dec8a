// The node's scrape-time metrics (docs/design/metrics.md): what Kafka's Log, ReplicaManager,
// KafkaController, Partition and KafkaServer gauges report, read from the logs when /metrics
// is scraped, under the JMX exporter's names.
//
// Thread safety: the collector is thread-safe (it reads the logs through their own locks).
#ifndef SEGLOG_NODE_NODE_METRICS_H_
#define SEGLOG_NODE_NODE_METRICS_H_

#include "base/mutex.h"
#include "base/progress.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "metrics/broker_metrics.h"
#include "remote/remote_log_manager.h"
#include "server/socket_server.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

// A collector over `logs` (which must outlive it).
BrokerMetrics::Collector LogGaugesCollector(const LogManager* logs);

// The log cleaner's gauges (LogCleaner, LogCleanerManager) from `logs`; LogFlushStats is
// counted by the flush observer the node sets on `logs`.
BrokerMetrics::Collector CleanerCollector(const LogManager* logs);

// The group coordinator's gauges: GroupMetadataManager's (NumGroups, NumOffsets, classic
// groups by state) and group-coordinator-metrics' (group-count by protocol, consumer and
// classic group counts by state, offset-count).
BrokerMetrics::Collector GroupCollector(GroupCoordinator* groups);

// Transactional ids by state (seglog_transactions{state}): Kafka exports no such count.
BrokerMetrics::Collector TransactionCollector(TransactionCoordinator* txns);

// Tiered storage's counters over all topics (the remote* BrokerTopicMetrics).
BrokerMetrics::Collector TieredCollector(const RemoteLogManager* remote);

// Kafka's LogManager recovery gauges while the logs load at start: per log directory, the logs
// and segments still to load (remainingLogsToRecover, remainingSegmentsToRecover), fed by
// LogManager::Open's load progress. Served by the HTTP listener the node opens for the loading
// (with BrokerState 1, STARTING), so a long recovery can be watched; Kafka removes them once
// loaded, and so does the node (the listener that serves afterwards has none).
// Thread safety: thread-safe.
class RecoveryGauges {
 public:
  void OnProgress(const std::string& dir, const ProgressStep& step) EXCLUDES(mu_);
  std::vector<prometheus::MetricFamily> Collect() const EXCLUDES(mu_);

 private:
  struct Remaining {
    int64_t logs = 0;
    int64_t segments = 0;
  };
  mutable Mutex mu_;
  std::map<std::string, Remaining> dirs_ GUARDED_BY(mu_);
};

// A collector over `server`'s stats (which must outlive it): connections per listener and
// network thread (socket-server-metrics connection-count), the request queue's size, and the
// network and request handler threads' idle fractions (NetworkProcessorAvgIdlePercent,
// RequestHandlerAvgIdlePercent), each over the time since the scrape before the last one at
// least 10 s old (about Kafka's one-minute rates), since the start before that.
BrokerMetrics::Collector SocketServerCollector(const SocketServer* server);

// The observer that counts each answered request's phase times in `metrics` under its API's
// name (and a consumer's Fetch also as "FetchConsumer", as Kafka names it).
RequestObserver RequestTimesObserver(std::shared_ptr<BrokerMetrics> metrics);

// Idle fraction over a window: `busy_ns` of `threads` threads' work in `elapsed_ns`.
double IdleFraction(int64_t busy_ns, int64_t elapsed_ns, int threads);

}  // namespace seglog

#endif  // SEGLOG_NODE_NODE_METRICS_H_
