// The process metrics the Prometheus JMX exporter's process collector gives a Kafka broker
// (process_cpu_seconds_total, process_open_fds, process_max_fds,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_start_time_seconds),
// and Kafka's KafkaServer linux-disk-read-bytes / linux-disk-write-bytes gauges, read from
// /proc/self when scraped.
//
// Thread safety: the collector is thread-safe (it only reads /proc).
#ifndef SEGLOG_METRICS_PROCESS_METRICS_H_
#define SEGLOG_METRICS_PROCESS_METRICS_H_

#include <string>

#include "metrics/broker_metrics.h"

namespace seglog {

BrokerMetrics::Collector ProcessCollector();

// The value of the line of /proc/<file> text `text` that starts with `key` (e.g. "read_bytes:"
// in /proc/self/io, "VmRSS:" in /proc/self/status), as a number; -1 when absent or not a
// number. Exposed for tests.
double ProcField(const std::string& text, const std::string& key);

}  // namespace seglog

#endif  // SEGLOG_METRICS_PROCESS_METRICS_H_
