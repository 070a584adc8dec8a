// Kafka's log4j layout of a broker's log, printed through spdlog: what `seglog serve` and
// `seglog serve-storage` write,
//   [2026-12-04 19:16:19,351] INFO [GroupCoordinator] Finished loading ...
//   [2026-12-04 19:16:19,352] WARN [GroupCoordinator] Skipping the corrupt record ...
// - the local time to the millisecond, Kafka's upper-case level name (DEBUG, INFO, WARN,
// ERROR), then the message with its component's prefix.
// Thread safety: the loggers made here are thread-safe (spdlog's _mt sink, which serialises the
// lines); a formatter is used by one sink.
#ifndef SEGLOG_TOOLS_KAFKA_LAYOUT_H_
#define SEGLOG_TOOLS_KAFKA_LAYOUT_H_

#include <spdlog/formatter.h>
#include <spdlog/logger.h>

#include <memory>
#include <ostream>

#include "seglog/logger.h"

namespace seglog {

// spdlog's pattern for the layout; %K is Kafka's level name (spdlog's own %l says "warning").
inline constexpr char kKafkaLayoutPattern[] = "[%Y-%m-%d %H:%M:%S,%e] %K %v";

// A formatter of kKafkaLayoutPattern, with %K defined.
std::unique_ptr<spdlog::formatter> KafkaLayoutFormatter();

// An spdlog logger (not registered in spdlog's registry) writing the layout to `out`, flushed
// after every line, at every level. `out` must outlive it.
std::shared_ptr<spdlog::logger> KafkaLayoutSpdlog(std::ostream& out);

// A Logger that logs through `target` at the matching level (DEBUG -> debug ... ERROR -> err).
Logger SpdlogLogger(std::shared_ptr<spdlog::logger> target);

// SpdlogLogger(KafkaLayoutSpdlog(out)).
Logger KafkaLayoutLogger(std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_KAFKA_LAYOUT_H_
