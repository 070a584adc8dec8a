// ProgressReporter: see progress_reporter.h.
#include "tools/progress_reporter.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <iostream>

namespace seglog {

bool ProgressWanted(ProgressMode mode, bool streams_stdout) {
  switch (mode) {
    case ProgressMode::kOn:
      return true;
    case ProgressMode::kOff:
      return false;
    case ProgressMode::kAuto:
      return isatty(STDERR_FILENO) == 1 && !(streams_stdout && isatty(STDOUT_FILENO) == 1);
  }
  return false;
}

ProgressReporter::ProgressReporter(Options options)
    : options_(std::move(options)),
      out_(options_.out != nullptr ? *options_.out : std::cerr),
      start_ms_(Now()) {}

ProgressReporter::~ProgressReporter() { Finish(); }

int64_t ProgressReporter::Now() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ProgressCallback ProgressReporter::Callback() {
  return [this](const ProgressStep& step) { Add(step); };
}

void ProgressReporter::Add(const ProgressStep& step) {
  if (!options_.enabled) return;
  if (step.done) {
    Finish();
    return;
  }
  const int64_t now = Now();
  MutexLock lock(&mu_);
  if (finished_) return;
  bytes_ += step.bytes;
  segments_ += step.segments;
  bytes_total_ += step.add_bytes_total;
  segments_total_ += step.add_segments_total;
  // Nothing in the first interval (a quick command draws only its last line), then at most
  // one redraw per interval.
  if (now - start_ms_ < options_.interval_ms) return;
  if (last_draw_ms_ != INT64_MIN && now - last_draw_ms_ < options_.interval_ms) return;
  last_draw_ms_ = now;
  std::string line = LineLocked(now);
  const size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');  // erase a longer last line
  last_width_ = width;
  out_ << '\r' << line << std::flush;
  drawn_ = true;
}

void ProgressReporter::Finish() {
  if (!options_.enabled) return;
  const int64_t now = Now();
  MutexLock lock(&mu_);
  if (finished_) return;
  finished_ = true;
  if (!drawn_ && bytes_ == 0 && segments_ == 0) return;
  std::string line = LineLocked(now);
  if (line.size() < last_width_) line.append(last_width_ - line.size(), ' ');
  out_ << '\r' << line << '\n' << std::flush;
}

std::string ProgressReporter::Line() const {
  const int64_t now = Now();
  MutexLock lock(&mu_);
  return LineLocked(now);
}

std::string ProgressReporter::LineLocked(int64_t now) const {
  std::string line = fmt::format("{}: ", options_.label);
  const double seconds = static_cast<double>(std::max<int64_t>(now - start_ms_, 0)) / 1000.0;
  if (segments_total_ > 0) {
    line += fmt::format("{}/{} segments", segments_, segments_total_);
  } else {
    line += fmt::format("{} segments", segments_);
  }
  line += fmt::format(", {}", Bytes(static_cast<double>(bytes_)));
  double fraction = -1;
  if (bytes_total_ > 0) {
    line += fmt::format("/{}", Bytes(static_cast<double>(bytes_total_)));
    fraction = std::min(1.0, static_cast<double>(bytes_) / static_cast<double>(bytes_total_));
  } else if (segments_total_ > 0) {
    fraction = std::min(1.0, static_cast<double>(segments_) / static_cast<double>(segments_total_));
  }
  if (fraction >= 0) line += fmt::format(" ({}%)", static_cast<int>(fraction * 100.0));
  if (seconds > 0) {
    line += fmt::format(", {}/s", Bytes(static_cast<double>(bytes_) / seconds));
  }
  if (finished_) {
    line += fmt::format(", done in {}", Duration(static_cast<int64_t>(seconds + 0.5)));
  } else if (fraction > 0 && fraction < 1 && seconds > 0) {
    const double left = seconds * (1.0 - fraction) / fraction;
    line += fmt::format(", {} left", Duration(static_cast<int64_t>(left + 0.5)));
  }
  return line;
}

std::string ProgressReporter::Bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", static_cast<int64_t>(bytes));
  return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

std::string ProgressReporter::Duration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds >= 3600) return fmt::format("{}h{:02}m", seconds / 3600, seconds % 3600 / 60);
  if (seconds >= 60) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
  return fmt::format("{}s", seconds);
}

}  // namespace seglog
