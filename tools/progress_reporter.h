// ProgressReporter: one line of progress on a terminal for seglog's long commands (recover,
// check, dump-log, clean): "check: 12/40 segments, 120.0 MiB/400.0 MiB (30%), 85.2 MiB/s, 3s
// left", redrawn in place with \r on stderr at most every `interval_ms`, and finished with a
// newline. Quiet (nothing written) when stderr is not a terminal (see ProgressWanted), unless
// forced on (--progress) - or forced off (--no-progress).
//
// It takes ProgressStep increments (base/progress.h) through Callback(), so library code reports
// without knowing about terminals. The clock is injectable for tests.
//
// Thread safety: thread-safe (a mutex around the counters and the drawing).
#ifndef SEGLOG_TOOLS_PROGRESS_REPORTER_H_
#define SEGLOG_TOOLS_PROGRESS_REPORTER_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "base/mutex.h"
#include "base/progress.h"

namespace seglog {

enum class ProgressMode { kAuto, kOn, kOff };

// Whether to draw: kAuto draws when stderr is a terminal - and, for a command that writes to
// stdout as it goes (`streams_stdout`: dump-log, recover, clean), only when stdout is not a
// terminal too, so the line never lands in the middle of the output.
bool ProgressWanted(ProgressMode mode, bool streams_stdout = false);

class ProgressReporter {
 public:
  struct Options {
    std::string label;                // "check", "recover", ...
    bool enabled = false;             // ProgressWanted(...)
    std::ostream* out = nullptr;      // where to draw (std::cerr when null)
    int64_t interval_ms = 200;        // at most one redraw per interval
    std::function<int64_t()> now_ms;  // monotonic ms; steady_clock when null
  };

  explicit ProgressReporter(Options options);
  ~ProgressReporter();  // Finish()
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  void Add(const ProgressStep& step) EXCLUDES(mu_);
  // A callback into Add, valid while this reporter lives.
  ProgressCallback Callback();

  // Draws the last state and ends the line (once; only if anything was drawn).
  void Finish() EXCLUDES(mu_);

  // The line as it would be drawn now (no \r).
  std::string Line() const EXCLUDES(mu_);

  // "1.5 MiB", "12 B"; "1h02m", "3m05s", "42s".
  static std::string Bytes(double bytes);
  static std::string Duration(int64_t seconds);

 private:
  std::string LineLocked(int64_t now) const REQUIRES(mu_);
  int64_t Now() const;

  const Options options_;
  std::ostream& out_;
  mutable Mutex mu_;
  const int64_t start_ms_;
  int64_t bytes_ GUARDED_BY(mu_) = 0;
  int64_t segments_ GUARDED_BY(mu_) = 0;
  int64_t bytes_total_ GUARDED_BY(mu_) = 0;
  int64_t segments_total_ GUARDED_BY(mu_) = 0;
  int64_t last_draw_ms_ GUARDED_BY(mu_) = INT64_MIN;
  size_t last_width_ GUARDED_BY(mu_) = 0;
  bool drawn_ GUARDED_BY(mu_) = false;
  bool finished_ GUARDED_BY(mu_) = false;
};

}  // namespace seglog

#endif  // SEGLOG_TOOLS_PROGRESS_REPORTER_H_
