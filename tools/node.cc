// Node; see node.h.
#include "tools/node.h"

#include <fmt/format.h>

#include <memory>

#include "base/clock.h"
#include "base/properties.h"
#include "io/atomic_file.h"
#include "io/env.h"

namespace seglog {

Result<BrokerConfig> LoadNodeConfig(const NodeOptions& o) {
  BrokerConfig config;
  if (!o.overrides.empty()) {
    std::map<std::string, std::string> props;
    if (!o.server_config.empty()) {
      SEGLOG_ASSIGN_OR_RETURN(const std::string text,
                              ReadFileToString(Env::Default(), o.server_config));
      props = ParseProperties(text);
    }
    for (const auto& [k, v] : o.overrides) props[k] = v;
    auto c = BrokerConfig::FromProperties(props);
    if (!c.ok()) {
      return o.server_config.empty() ? c.status() : c.status().WithContext(o.server_config);
    }
    config = std::move(c).value();
  } else if (!o.server_config.empty()) {
    SEGLOG_ASSIGN_OR_RETURN(config, BrokerConfig::Load(o.server_config));
  }
  if (!o.log_dir.empty()) {
    config.log_dirs = {o.log_dir};
    config.properties["log.dirs"] = o.log_dir;
  }
  if (o.server_config.empty() && o.log_dir.empty()) {
    return Status::InvalidArgument("give --log-dir or --server-config with log.dirs");
  }
  if (o.recovery_threads) {
    if (*o.recovery_threads < 1) {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration num.recovery.threads.per.data.dir: "
                      "Value must be at least 1",
                      *o.recovery_threads));
    }
    config.num_recovery_threads_per_data_dir = *o.recovery_threads;
  }
  return config;
}

Result<OneShotNode> OpenNode(const NodeOptions& o, bool read_only, Logger logger) {
  SEGLOG_ASSIGN_OR_RETURN(BrokerConfig config, LoadNodeConfig(o));
  OneShotNode n;
  n.config = config;
  n.scheduler = std::make_unique<MockScheduler>(o.clock ? o.clock() : WallClockMs());
  auto m = read_only ? LogManager::OpenReadOnly(config, n.scheduler.get(), std::move(logger))
                     : LogManager::Open(config, n.scheduler.get(), std::move(logger));
  if (!m.ok()) return m.status();
  n.manager = std::move(m).value();
  return n;
}

Status FinishNode(OneShotNode& n, Status result) {
  if (!n.manager->read_only()) n.scheduler->RunPendingNow("delete-file");
  Status closed = n.manager->Shutdown();
  return result.ok() ? closed : result;
}

bool IsNoteworthyNodeLine(const std::string& line) {
  return line.find("recovered ") != std::string::npos || line.find("Delet") != std::string::npos ||
         line.find("Incremented") != std::string::npos || line.find("WARN") != std::string::npos ||
         line.find("Cleaner") != std::string::npos || line.find("\t") != std::string::npos;
}

}  // namespace seglog
