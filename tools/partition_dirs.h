// Opening a topic's partitions in a log directory, shared by the produce, consume and
// get-offsets tools.
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_PARTITION_DIRS_H_
#define SEGLOG_TOOLS_PARTITION_DIRS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "manager/topic_store.h"
#include "seglog/log.h"

namespace seglog {

// Opens the listed partitions (or every partition of the topic when `only` is empty) of an
// existing topic. NotFound naming the topic when it has no partition directory.
Result<std::map<int32_t, std::unique_ptr<Log>>> OpenTopicPartitions(
    const std::string& log_dir, const std::string& topic, const std::vector<int32_t>& only,
    LogOptions options);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_PARTITION_DIRS_H_
