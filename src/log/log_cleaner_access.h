// LogCleanerAccess: the log cleaner's way into a Log (src/cleaner). Log keeps the hooks that
// hand out its private LogSegments off its public interface; this friend forwards to them, so
// only code inside seglog that includes this private header can reach them.
//
// Thread safety: as the Log calls it forwards to (thread-safe).
#ifndef SEGLOG_LOG_LOG_CLEANER_ACCESS_H_
#define SEGLOG_LOG_LOG_CLEANER_ACCESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "log/log_segment.h"
#include "seglog/log.h"

namespace seglog {

class LogCleanerAccess {
 public:
  // The segments, oldest first (a snapshot).
  static std::vector<std::shared_ptr<LogSegment>> Segments(const Log& log) {
    return log.segments();
  }
  // A new empty segment at `base_offset` whose files carry the ".cleaned" suffix, outside the
  // log (any leftover .cleaned files of an earlier attempt are removed first).
  static Result<std::shared_ptr<LogSegment>> CreateCleanedSegment(Log& log, int64_t base_offset) {
    return log.CreateCleanedSegment(base_offset);
  }
  // Kafka's replaceSegments (docs/design/cleaner.md, "The swap and its crash points"):
  // `cleaned` takes the place of `old`, each step recoverable by the loader. Aborted (and
  // `cleaned` deleted) if `old` are no longer all in the log.
  static Status ReplaceSegments(Log& log, const std::shared_ptr<LogSegment>& cleaned,
                                const std::vector<std::shared_ptr<LogSegment>>& old) {
    return log.ReplaceSegments(cleaned, old);
  }
};

}  // namespace seglog

#endif  // SEGLOG_LOG_LOG_CLEANER_ACCESS_H_
