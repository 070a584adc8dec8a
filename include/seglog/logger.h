// Logger: where seglog's log lines go - one type for every layer (log, manager, cleaner,
// coordinators, broker, tools), with the level carried beside the text, never inside it.
//
// The levels are Kafka's (log4j's) names: TRACE, DEBUG, INFO, WARN, ERROR, FATAL. A line is a
// message in Kafka's words ("Rolled new log segment at offset 3830 in 8 ms."); a component may put
// its own prefix before its messages ("[GroupCoordinator] ") with WithPrefix, and a layout then
// prints the level first: "[2026-12-04 19:16:19,351] WARN [GroupCoordinator] Failed ...".
//
// A sink receives each line. Two kinds:
//   Sink      (LogLevel, std::string_view line): the level and the prefixed text;
//   LineSink  (const std::string& line): one string per line, as seglog's loggers were before
//             levels: INFO lines as they are, every other level written in front of the text
//             followed by a space ("WARN [SocketServer ...] Unexpected error ...") - see
//             LegacyLine.
// A Logger is made implicitly from either kind of callable, so `options.logger = [&](const
// std::string& line) { ... }` works. A default-constructed Logger (or one made from nullptr or
// an empty std::function) discards everything.
//
// A logger passes every level to its sink until it is named: logger.Named("kafka.log.LogCleaner")
// is the same sink behind the level threshold of that name in a LoggerRegistry
// (src/base/logger_registry.h: levels per name, inherited from dotted ancestors and root, set at
// start and at run time), so lines below it are dropped. Name a logger as Kafka's class that does
// the same work, so operators find the names they know.
//
// Thread safety: a Logger is immutable and cheap to copy (one shared pointer), and copies may be
// used from any threads at once; the sink runs on the logging thread, sometimes under a
// component's lock, so it must be thread-safe when the logger is shared between threads and
// must not call back into seglog.
#ifndef SEGLOG_LOGGER_H_
#define SEGLOG_LOGGER_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace seglog {

// Least severe first. kOff is only a threshold (a logger at OFF drops every line).
enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kFatal, kOff };

// Kafka's names: "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF".
std::string_view LogLevelName(LogLevel level);
// The level of one of those names, exactly (upper case, as Kafka's LogLevelConfig checks them).
std::optional<LogLevel> ParseLogLevel(std::string_view name);
// The levels Kafka 4.4 accepts at run time (BROKER_LOGGER), as it lists them when it refuses one,
// sorted. OFF is not among them (a start-time level may be OFF).
inline constexpr std::string_view kValidLogLevels = "DEBUG, ERROR, FATAL, INFO, TRACE, WARN";

class LoggerRegistry;

// A named logger's effective level, as LoggerRegistry keeps it; read (relaxed) on every line.
// Thread safety: the level is an atomic, written under the registry's lock.
struct LogThreshold {
  std::atomic<int> level{static_cast<int>(LogLevel::kInfo)};
  bool Enabled(LogLevel l) const {
    return static_cast<int>(l) >= level.load(std::memory_order_relaxed) && l != LogLevel::kOff;
  }
};

class Logger {
 public:
  using Sink = std::function<void(LogLevel level, std::string_view line)>;
  using LineSink = std::function<void(const std::string& line)>;

  // Discards every line.
  Logger() = default;
  Logger(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): "no logger", discards

  // From a (LogLevel, std::string_view) callable.
  template <typename F>
  requires std::is_invocable_v<F&, LogLevel, std::string_view> Logger(
      F sink)  // NOLINT(google-explicit-constructor): any sink is a logger
      : Logger(Sink(std::move(sink)), 0) {}

  // From a (const std::string&) callable: it receives LegacyLine(level, line).
  template <typename F>
  requires(std::is_invocable_v<F&, const std::string&> &&
           !std::is_invocable_v<F&, LogLevel, std::string_view>)
      Logger(F sink)  // NOLINT(google-explicit-constructor)
      : Logger(FromLineSink(LineSink(std::move(sink)))) {}

  void Log(LogLevel level, std::string_view message) const;
  void Trace(std::string_view message) const { Log(LogLevel::kTrace, message); }
  void Debug(std::string_view message) const { Log(LogLevel::kDebug, message); }
  void Info(std::string_view message) const { Log(LogLevel::kInfo, message); }
  void Warn(std::string_view message) const { Log(LogLevel::kWarn, message); }
  void Error(std::string_view message) const { Log(LogLevel::kError, message); }

  // Whether lines go anywhere (false for a default Logger): a caller may skip building them.
  bool enabled() const { return impl_ != nullptr; }
  explicit operator bool() const { return enabled(); }
  // Whether a line at `level` would reach the sink (the name's threshold, when named).
  bool IsEnabled(LogLevel level) const {
    return impl_ != nullptr && (impl_->threshold == nullptr || impl_->threshold->Enabled(level));
  }

  // The same sink and prefix behind the threshold of `name` in `registry` (the process's
  // LoggerRegistry::Global() when null), registering the name there.
  Logger Named(std::string_view name, LoggerRegistry* registry = nullptr) const;
  // The name given by Named, or empty.
  const std::string& name() const;

  // A logger to the same sink that puts `prefix` before each message, after this logger's own
  // prefix: logger.WithPrefix("[GroupCoordinator] ").Warn("Failed ...") reaches the sink as
  // (kWarn, "[GroupCoordinator] Failed ...").
  Logger WithPrefix(std::string_view prefix) const;
  const std::string& prefix() const;

  // The line a LineSink receives: `line` at INFO, "LEVEL line" at every other level.
  static std::string LegacyLine(LogLevel level, std::string_view line);

 private:
  struct Impl {
    Sink sink;
    std::string prefix;
    std::string name;
    const LogThreshold* threshold = nullptr;  // owned by a registry that outlives the logger
  };
  Logger(Sink sink, int /*tag*/);
  static Logger FromLineSink(LineSink sink);

  std::shared_ptr<const Impl> impl_;
};

}  // namespace seglog

#endif  // SEGLOG_LOGGER_H_
