// Kafka's layout through spdlog; see kafka_layout.h.
#include "tools/kafka_layout.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>

#include <string_view>
#include <utility>

namespace seglog {

namespace {

// %K: log4j's level names where spdlog has its own ("warning", "error", "critical").
class KafkaLevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*tm*/,
              spdlog::memory_buf_t& dest) override {
    const std::string_view name = Name(msg.level);
    dest.append(name.data(), name.data() + name.size());
  }
  std::unique_ptr<spdlog::custom_flag_formatter> clone() const override {
    return std::make_unique<KafkaLevelFlag>();
  }

 private:
  static std::string_view Name(spdlog::level::level_enum level) {
    switch (level) {
      case spdlog::level::trace:
        return "TRACE";
      case spdlog::level::debug:
        return "DEBUG";
      case spdlog::level::info:
        return "INFO";
      case spdlog::level::warn:
        return "WARN";
      case spdlog::level::err:
        return "ERROR";
      case spdlog::level::critical:
        return "FATAL";
      default:
        return "OFF";
    }
  }
};

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kFatal:
      return spdlog::level::critical;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

}  // namespace

std::unique_ptr<spdlog::formatter> KafkaLayoutFormatter() {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<KafkaLevelFlag>('K').set_pattern(kKafkaLayoutPattern);
  return f;
}

std::shared_ptr<spdlog::logger> KafkaLayoutSpdlog(std::ostream& out) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out, /*force_flush=*/true);
  auto l = std::make_shared<spdlog::logger>("seglog", std::move(sink));
  l->set_formatter(KafkaLayoutFormatter());
  l->set_level(spdlog::level::trace);
  return l;
}

Logger SpdlogLogger(std::shared_ptr<spdlog::logger> target) {
  if (!target) return Logger();
  return Logger([l = std::move(target)](LogLevel level, std::string_view line) {
    l->log(SpdlogLevel(level), spdlog::string_view_t(line.data(), line.size()));
  });
}

Logger KafkaLayoutLogger(std::ostream& out) { return SpdlogLogger(KafkaLayoutSpdlog(out)); }

}  // namespace seglog
