// Node: how every subcommand opens log directories - through LogManager, the same code the
// storage node (`serve-storage`) runs, so that every tool applies the directory's checkpoints
// (log start offsets, recovery points), its topic store and configs, and its clean-shutdown
// marker the same way. Writing tools (produce, topics, configs, delete-records, clean,
// run-tasks) open it writable: they take the .lock, recover after an unclean shutdown, and
// shut down cleanly. Reading tools (consume, get-offsets) open it read-only
// (LogManager::OpenReadOnly): no lock, as Kafka's tools read a live directory, and nothing
// written. A one-shot run uses a MockScheduler at the given clock (default: the wall clock), so
// background tasks run only when asked.
// Thread safety: functions; a OneShotNode has one owner.
#ifndef SEGLOG_TOOLS_NODE_H_
#define SEGLOG_TOOLS_NODE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "node/broker_config.h"
#include "seglog/logger.h"
#include "tools/kafka_layout.h"  // KafkaLayoutLogger, for the tools that print Kafka's layout

namespace seglog {

struct NodeOptions {
  std::string log_dir;             // overrides log.dirs when set
  std::string server_config;       // server.properties (optional)
  std::function<int64_t()> clock;  // for tests; default: wall clock
  // num.recovery.threads.per.data.dir, overriding the server config when set.
  std::optional<int> recovery_threads;
  // `--override key=value` (kafka-server-start's): set over the server config's properties
  // before they are parsed, so they are validated as if written there.
  std::map<std::string, std::string> overrides;
};

// The server config the options name: server.properties (if any) with --log-dir over log.dirs.
Result<BrokerConfig> LoadNodeConfig(const NodeOptions& options);

struct OneShotNode {
  BrokerConfig config;  // the node's settings: storage's, and tiered storage's for the tools
  std::unique_ptr<MockScheduler> scheduler;
  std::unique_ptr<LogManager> manager;
};

// Opens the node (read-only or writable); `logger` receives the manager's lines.
Result<OneShotNode> OpenNode(const NodeOptions& options, bool read_only, Logger logger = {});

// Shuts the node down; returns `result`, or the shutdown's error when `result` is OK. A
// writable node first removes the files whose deletion waits for file.delete.delay.ms rather
// than leave them to the next open (a reading tool running at that moment, which takes no
// lock, may then find a segment gone and fail with NotFound: run it again).
Status FinishNode(OneShotNode& node, Status result);

// Whether a manager line (as a Logger's line sink gets it: "WARN ..." for a warning) is worth
// showing to the user of a one-shot tool: recovery, deletions, cleaning and warnings, not
// routine loading.
bool IsNoteworthyNodeLine(const std::string& line);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_NODE_H_
