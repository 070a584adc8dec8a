// The node's scrape-time metrics (docs/design/metrics.md): what Kafka's Log, ReplicaManager,
// KafkaController, Partition and KafkaServer gauges report, read from the logs when /metrics
// is scraped, under the JMX exporter's names.
//
// Thread safety: the collector is thread-safe (it reads the logs through their own locks).
#ifndef SEGLOG_NODE_NODE_METRICS_H_
#define SEGLOG_NODE_NODE_METRICS_H_

#include "manager/log_manager.h"
#include "metrics/broker_metrics.h"

namespace seglog {

// A collector over `logs` (which must outlive it).
BrokerMetrics::Collector LogGaugesCollector(const LogManager* logs);

}  // namespace seglog

#endif  // SEGLOG_NODE_NODE_METRICS_H_
