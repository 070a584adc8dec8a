// The storage-node subcommands over a LogManager: topics, configs, delete-records, run-tasks
// and serve-storage. Each opens the log directories as a broker does (recovering them after an
// unclean shutdown), does its work, and shuts down cleanly.
// They open the directories through tools/node.h, as the read tools do.
// Thread safety: functions; one call per log directory at a time (they take its .lock).
#ifndef SEGLOG_TOOLS_MANAGE_H_
#define SEGLOG_TOOLS_MANAGE_H_

#include <atomic>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "base/progress.h"
#include "seglog/result.h"
#include "tools/node.h"

namespace seglog {

struct TopicsOptions {
  NodeOptions node;
  std::string action;  // create | describe | alter | delete | list
  std::string topic;   // empty with describe: every topic
  int32_t partitions = -1;
  std::map<std::string, std::string> configs;
};
Status Topics(const TopicsOptions& options, std::ostream& out);

struct ConfigsOptions {
  NodeOptions node;
  std::string topic;
  bool alter = false;  // else describe
  std::map<std::string, std::string> add;
  std::vector<std::string> remove;
};
Status Configs(const ConfigsOptions& options, std::ostream& out);

struct DeleteRecordsOptions {
  NodeOptions node;
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;  // -1: the high watermark
};
Status DeleteRecordsCommand(const DeleteRecordsOptions& options, std::ostream& out);

struct CleanOptions {
  NodeOptions node;
  std::string topic;
  int32_t partition = -1;          // -1: every partition of the topic
  ProgressCallback progress = {};  // the rounds' bytes and segments (base/progress.h)
};
// Cleans a compacted topic's partitions now (a cleaner round each, whatever the dirty ratio).
Status Clean(const CleanOptions& options, std::ostream& out);

// Runs each named task once (retention, flush, checkpoint, delete-files, cleaner,
// producer-expiration), in order.
Status RunTasks(const NodeOptions& node, const std::vector<std::string>& tasks, std::ostream& out);

// Runs the manager and its tasks on a thread pool until `stop` becomes true, logging in
// Kafka's words to `out` ("[<time>] INFO <line>").
Status ServeStorage(const NodeOptions& node, const std::atomic<bool>& stop, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_MANAGE_H_
