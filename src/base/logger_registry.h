// LoggerRegistry: the named loggers of a process and their levels, as log4j keeps Kafka's.
//
// Each component logs through a Logger named as Kafka's class of the same work
// ("kafka.log.LogCleaner", "kafka.server.KafkaApis", ...; Logger::Named). A name may be given a
// level; one without takes its nearest dotted ancestor's that has one ("kafka.log" for
// "kafka.log.LogCleaner"), else root's. root always has a level (INFO unless set). A line below
// its logger's effective level is dropped before it is built into text where the caller asks
// (Logger::IsEnabled) and before it reaches the sink always.
//
// Levels are set at start (server.properties' log4j.rootLogger / log4j.logger.<name>, a tool's
// --log-level) and while the broker runs (Kafka's BROKER_LOGGER resource: SetLevel, Unset).
// Only a registered name can be set at run time, as Kafka refuses a logger that does not exist.
//
// Thread safety: every method is thread-safe; the level a Logger checks on each line is one
// relaxed atomic load, and changes are serialized by the registry's mutex.
#ifndef SEGLOG_BASE_LOGGER_REGISTRY_H_
#define SEGLOG_BASE_LOGGER_REGISTRY_H_

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "seglog/logger.h"
#include "seglog/status.h"

namespace seglog {

class LoggerRegistry {
 public:
  static constexpr std::string_view kRoot = "root";

  // A registered name's effective level, read on every line.
  using Cell = LogThreshold;

  LoggerRegistry();
  LoggerRegistry(const LoggerRegistry&) = delete;
  LoggerRegistry& operator=(const LoggerRegistry&) = delete;

  // The process's registry, which Logger::Named uses.
  static LoggerRegistry& Global();

  // The cell of `name` ("root" or a dotted name), registered on first use with no level of its
  // own. The pointer stays valid for the registry's lifetime.
  const Cell* Register(std::string_view name) EXCLUDES(mu_);
  bool Exists(std::string_view name) const EXCLUDES(mu_);

  // Gives `name` its own level (registering it when `register_missing`, at start); NotFound
  // for a name not registered otherwise.
  Status SetLevel(std::string_view name, LogLevel level, bool register_missing = false)
      EXCLUDES(mu_);
  // Drops `name`'s own level, so it inherits again (Kafka's DELETE). root cannot be unset
  // (InvalidArgument); an unknown name is NotFound.
  Status Unset(std::string_view name) EXCLUDES(mu_);

  // Every registered name with its effective level and whether the level is its own, sorted
  // by name with root first.
  struct Entry {
    std::string name;
    LogLevel effective;
    bool own;
  };
  std::vector<Entry> Loggers() const EXCLUDES(mu_);
  std::optional<LogLevel> EffectiveLevel(std::string_view name) const EXCLUDES(mu_);

  // Applies start-time settings: `log4j.rootLogger=LEVEL[, appenders...]` and
  // `log4j.logger.<name>=LEVEL[, ...]` keys of `props` (other keys are skipped), levels in any
  // case. InvalidArgument naming the key for a bad level.
  Status Configure(const std::map<std::string, std::string>& props) EXCLUDES(mu_);
  // Whether `key` is one Configure reads.
  static bool IsLevelKey(std::string_view key);

 private:
  struct Node {
    std::optional<LogLevel> own;
    Cell cell;
  };
  // Recomputes every cell from the own levels.
  void Propagate() REQUIRES(mu_);
  LogLevel EffectiveLocked(const std::string& name) const REQUIRES(mu_);

  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Node>, std::less<>> nodes_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_BASE_LOGGER_REGISTRY_H_
