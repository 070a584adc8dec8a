// Logger: see seglog/logger.h.
#include "seglog/logger.h"

#include "base/logger_registry.h"

namespace seglog {

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "TRACE";
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
    case LogLevel::kFatal:
      return "FATAL";
    case LogLevel::kOff:
      return "OFF";
  }
  return "INFO";
}

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  for (LogLevel l : {LogLevel::kTrace, LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn,
                     LogLevel::kError, LogLevel::kFatal, LogLevel::kOff}) {
    if (LogLevelName(l) == name) return l;
  }
  return std::nullopt;
}

Logger::Logger(Sink sink, int /*tag*/) {
  if (sink) impl_ = std::make_shared<const Impl>(Impl{std::move(sink), {}, {}, nullptr});
}

Logger Logger::FromLineSink(LineSink sink) {
  if (!sink) return Logger();
  return Logger(Sink([sink = std::move(sink)](LogLevel level, std::string_view line) {
                  sink(LegacyLine(level, line));
                }),
                0);
}

void Logger::Log(LogLevel level, std::string_view message) const {
  if (!IsEnabled(level)) return;
  if (impl_->prefix.empty()) {
    impl_->sink(level, message);
    return;
  }
  std::string line;
  line.reserve(impl_->prefix.size() + message.size());
  line.append(impl_->prefix).append(message);
  impl_->sink(level, line);
}

Logger Logger::WithPrefix(std::string_view prefix) const {
  if (!impl_) return Logger();
  Logger l;
  std::string p = impl_->prefix;
  p.append(prefix);
  l.impl_ =
      std::make_shared<const Impl>(Impl{impl_->sink, std::move(p), impl_->name, impl_->threshold});
  return l;
}

Logger Logger::Named(std::string_view name, LoggerRegistry* registry) const {
  if (registry == nullptr) registry = &LoggerRegistry::Global();
  const LogThreshold* threshold = registry->Register(name);
  if (!impl_) return Logger();
  Logger l;
  l.impl_ =
      std::make_shared<const Impl>(Impl{impl_->sink, impl_->prefix, std::string(name), threshold});
  return l;
}

const std::string& Logger::name() const {
  static const std::string kEmpty;
  return impl_ ? impl_->name : kEmpty;
}

const std::string& Logger::prefix() const {
  static const std::string kEmpty;
  return impl_ ? impl_->prefix : kEmpty;
}

std::string Logger::LegacyLine(LogLevel level, std::string_view line) {
  if (level == LogLevel::kInfo) return std::string(line);
  const std::string_view name = LogLevelName(level);
  std::string out;
  out.reserve(name.size() + 1 + line.size());
  out.append(name).append(" ").append(line);
  return out;
}

}  // namespace seglog
