// What DescribeTopic reports: a topic's id, its config (overrides and effective) and, per
// partition, where its log lives and its offsets - the storage half of Kafka's
// DescribeTopics and DescribeLogDirs.
//
// Thread safety: plain values; externally synchronised.
#ifndef SEGLOG_TOPIC_DESCRIPTION_H_
#define SEGLOG_TOPIC_DESCRIPTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seglog/log_config.h"

namespace seglog {

struct PartitionDescription {
  int32_t partition = 0;
  std::string log_dir;  // the log directory holding it (an entry of log.dirs)
  int segments = 0;
  int64_t bytes = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t recovery_point = 0;
};

struct TopicDescription {
  std::string topic;
  std::string topic_id;                          // Kafka Uuid text
  std::map<std::string, std::string> overrides;  // topic configs set on it, by Kafka name
  LogConfig config;                              // effective: broker defaults, then overrides
  std::vector<PartitionDescription> partitions;
};

}  // namespace seglog

#endif  // SEGLOG_TOPIC_DESCRIPTION_H_
