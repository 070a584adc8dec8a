// WindowedRate: Kafka's quota rate (a Sensor with one Rate over a SampledStat of
// `quota.window.num` samples of `quota.window.size.seconds` each), as its quota managers use it
// for client quotas and connection creation rates.
//
// Kafka's rules, kept exactly because clients' throttling depends on them:
// - A sample covers one window from its first record; a record after the window (or into a
//   sample that was never used) starts the next sample, reusing the oldest.
// - Samples older than samples x window are forgotten before every measure.
// - The rate is the samples' total over the elapsed time since the oldest sample began, but
//   never over less than (samples - 1) whole windows: a new client is not judged by a short burst.
// - A record that makes the rate exceed the bound is kept, and the caller is told how long to
//   throttle: (rate - bound) / bound x the window the rate was measured over (Kafka's
//   QuotaUtils.throttleTime), rounded to whole milliseconds.
//
// Thread safety: not thread-safe; callers serialize (the quota managers hold a lock).
#ifndef SEGLOG_BASE_WINDOWED_RATE_H_
#define SEGLOG_BASE_WINDOWED_RATE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seglog {

class WindowedRate {
 public:
  // `samples` >= 1 (quota.window.num, Kafka's default 11), `window_ms` >= 1
  // (quota.window.size.seconds x 1000, default 1000).
  WindowedRate(int32_t samples, int64_t window_ms);

  // Adds `value` at `now_ms`.
  void Record(double value, int64_t now_ms);
  // The rate per second at `now_ms`.
  double Measure(int64_t now_ms);
  // The time the rate is measured over at `now_ms`, in ms (at least 1).
  int64_t WindowSizeMs(int64_t now_ms);
  // Records `value`, then: 0 if the rate is within `bound` (per second), else how long the
  // client must wait, in ms, for the rate to come back to it. `bound` > 0.
  int64_t RecordAndGetThrottleMs(double value, double bound, int64_t now_ms);
  // What RecordAndGetThrottleMs would answer without recording anything.
  int64_t ThrottleMs(double bound, int64_t now_ms);

 private:
  struct Sample {
    double value = 0;
    int64_t start_ms = 0;
    int64_t events = 0;
  };
  void Purge(int64_t now_ms);

  const int64_t window_ms_;
  const size_t max_samples_;
  std::vector<Sample> samples_;  // up to max_samples_
  size_t current_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_WINDOWED_RATE_H_
