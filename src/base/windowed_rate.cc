// WindowedRate; see windowed_rate.h.
#include "base/windowed_rate.h"

#include <algorithm>
#include <cmath>

namespace seglog {

WindowedRate::WindowedRate(int32_t samples, int64_t window_ms)
    : window_ms_(std::max<int64_t>(window_ms, 1)),
      max_samples_(static_cast<size_t>(std::max<int32_t>(samples, 1))) {}

void WindowedRate::Record(double value, int64_t now_ms) {
  // Samples are made as they are first needed (the first at the first record's time).
  if (samples_.empty()) samples_.push_back(Sample{0, now_ms, 0});
  Sample* s = &samples_[current_];
  // A sample is complete once its window has passed (Kafka's SampledStat.Sample.isComplete).
  if (now_ms >= s->start_ms + window_ms_) {
    current_ = (current_ + 1) % max_samples_;
    if (current_ >= samples_.size()) {
      samples_.push_back(Sample{0, now_ms, 0});
    } else {
      samples_[current_] = Sample{0, now_ms, 0};
    }
    s = &samples_[current_];
  }
  s->value += value;
  ++s->events;
}

void WindowedRate::Purge(int64_t now_ms) {
  const int64_t expire_age = static_cast<int64_t>(max_samples_) * window_ms_;
  for (Sample& s : samples_) {
    if (now_ms - s.start_ms >= expire_age) s = Sample{0, now_ms, 0};
  }
}

int64_t WindowedRate::WindowSizeMs(int64_t now_ms) {
  Purge(now_ms);
  if (samples_.empty()) samples_.push_back(Sample{0, now_ms, 0});
  int64_t oldest = samples_.front().start_ms;
  for (const Sample& s : samples_) oldest = std::min(oldest, s.start_ms);
  int64_t elapsed = now_ms - oldest;
  const int64_t full_windows = elapsed / window_ms_;
  const int64_t min_full_windows = static_cast<int64_t>(max_samples_) - 1;
  if (full_windows < min_full_windows) elapsed += (min_full_windows - full_windows) * window_ms_;
  return std::max<int64_t>(elapsed, 1);
}

double WindowedRate::Measure(int64_t now_ms) {
  Purge(now_ms);
  double total = 0;
  for (const Sample& s : samples_) total += s.value;
  return total / (static_cast<double>(WindowSizeMs(now_ms)) / 1000.0);
}

int64_t WindowedRate::ThrottleMs(double bound, int64_t now_ms) {
  const double rate = Measure(now_ms);
  if (rate <= bound) return 0;
  const double window = static_cast<double>(WindowSizeMs(now_ms));
  return static_cast<int64_t>(std::llround((rate - bound) / bound * window));
}

int64_t WindowedRate::RecordAndGetThrottleMs(double value, double bound, int64_t now_ms) {
  Record(value, now_ms);
  return ThrottleMs(bound, now_ms);
}

}  // namespace seglog
