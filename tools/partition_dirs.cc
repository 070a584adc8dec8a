// OpenTopicPartitions; see partition_dirs.h.
#include "tools/partition_dirs.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/file_names.h"

namespace seglog {

Result<std::map<int32_t, std::unique_ptr<Log>>> OpenTopicPartitions(
    const std::string& log_dir, const std::string& topic, const std::vector<int32_t>& only,
    LogOptions options) {
  SEGLOG_RETURN_IF_ERROR(ValidateTopicName(topic));
  SEGLOG_ASSIGN_OR_RETURN(TopicMap topics, LoadTopics(log_dir));
  SEGLOG_ASSIGN_OR_RETURN(std::vector<int32_t> present, ListPartitionDirs(log_dir, topic));
  if (present.empty()) {
    return Status::NotFound(fmt::format("topic {} has no partitions in {}", topic, log_dir));
  }
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, TopicConfig(topics[topic]));
  std::map<int32_t, std::unique_ptr<Log>> logs;
  for (int32_t p : only.empty() ? present : only) {
    if (std::find(present.begin(), present.end(), p) == present.end()) {
      return Status::NotFound(
          fmt::format("partition {} of topic {} is not in {}", p, topic, log_dir));
    }
    SEGLOG_ASSIGN_OR_RETURN(
        std::unique_ptr<Log> log,
        Log::Open(log_dir + "/" + PartitionDirName({topic, p}), config, options));
    logs[p] = std::move(log);
  }
  return logs;
}

}  // namespace seglog
