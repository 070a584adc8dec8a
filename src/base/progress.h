// ProgressCallback: how long library work (recovery, cleaning, a check) tells its caller how far
// it is, without knowing whether anyone draws it (tools/progress_reporter.h does, on a
// terminal). The work calls it with increments as it goes; totals, when known, come first with
// zero increments.
//
// Thread safety: a callback given to work that runs on several threads (recovery) is called
// from them at once and must be thread-safe; ProgressReporter is.
#ifndef SEGLOG_BASE_PROGRESS_H_
#define SEGLOG_BASE_PROGRESS_H_

#include <cstdint>
#include <functional>

namespace seglog {

struct ProgressStep {
  int64_t bytes = 0;            // bytes done since the last call
  int64_t segments = 0;         // segments done since the last call
  int64_t add_bytes_total = 0;  // bytes of work discovered (added to the total)
  int64_t add_segments_total = 0;
  int64_t logs = 0;  // partitions' logs done (log loading counts them)
  int64_t add_logs_total = 0;
  bool done = false;  // the work is over (before its results are printed): finish the line
};

using ProgressCallback = std::function<void(const ProgressStep& step)>;

}  // namespace seglog

#endif  // SEGLOG_BASE_PROGRESS_H_
