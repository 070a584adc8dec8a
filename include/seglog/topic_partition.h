// TopicPartition: the name of one partition's log - Kafka's TopicPartition. Its directory in a
// log directory is "<topic>-<partition>".
//
// Thread safety: a plain value; externally synchronised.
#ifndef SEGLOG_TOPIC_PARTITION_H_
#define SEGLOG_TOPIC_PARTITION_H_

#include <cstdint>
#include <string>

namespace seglog {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator==(const TopicPartition&) const = default;
  // "<topic>-<partition>".
  std::string ToString() const { return topic + "-" + std::to_string(partition); }
};

// Orders by topic, then partition (for maps and sets of partitions).
struct TopicPartitionLess {
  bool operator()(const TopicPartition& a, const TopicPartition& b) const {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  }
};

}  // namespace seglog

#endif  // SEGLOG_TOPIC_PARTITION_H_
