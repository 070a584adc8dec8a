// The node's scrape-time metrics; see node_metrics.h.
#include "node/node_metrics.h"

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

}  // namespace seglog
