// WindowedHistogram: the quantiles of a latency over about the last five minutes, for the
// Yammer histograms Kafka exports (RequestMetrics' TotalTimeMs and its phases, LogFlushStats),
// cheap enough to update on every request.
//
// Values (milliseconds) fall into log-spaced buckets, each 4% wider than the one before, from
// 1 microsecond to over an hour: a quantile is exact to within its bucket (about +-2%).
// Recording is two relaxed atomic increments and one log(); no lock. Five slots of one minute
// each hold the counts; a slot is cleared when its minute comes round again, so a quantile
// covers the last four to five minutes (Yammer's exponentially decaying reservoir weighs
// about the last five).
//
// Why not prometheus-cpp's Summary: its CKMS sketch, at the error bounds a 0.999 quantile
// needs, costs 6-26 us per value and more as values accumulate; under a produce load it grew
// the broker's CPU per run from 1.9 to 6.0 s over five runs (docs/benchmarks.md, "Metrics").
// This costs about 30 ns per value, however many were recorded (bench/metrics_bench.cc).
//
//   slot (one minute):  minute | count[0] count[1] ... count[kBuckets-1]
//   bucket i (i >= 1):  values in (kMinMs * kGrowth^(i-1), kMinMs * kGrowth^i]; bucket 0: <= kMinMs
//
// Thread safety: thread-safe; Record and Snapshot may run concurrently (a Record racing a
// slot's clearing may be lost, which a latency histogram tolerates).
#ifndef SEGLOG_METRICS_WINDOWED_HISTOGRAM_H_
#define SEGLOG_METRICS_WINDOWED_HISTOGRAM_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace seglog {

class WindowedHistogram {
 public:
  static constexpr double kMinMs = 0.001;
  static constexpr double kGrowth = 1.04;
  static constexpr int kBuckets = 560;  // kMinMs * kGrowth^559 is about 3.4 million ms
  static constexpr int kSlots = 5;
  static constexpr int64_t kSlotMs = 60'000;

  WindowedHistogram();
  WindowedHistogram(const WindowedHistogram&) = delete;
  WindowedHistogram& operator=(const WindowedHistogram&) = delete;

  // Records one value at `now_ms` (a monotonic or wall clock, the same for every call).
  void Record(double ms, int64_t now_ms);

  struct Snapshot {
    uint64_t total_count = 0;   // every value ever recorded (the exported _count)
    uint64_t window_count = 0;  // values in the window the quantiles cover
    // The quantiles asked for, in order; 0 when the window is empty (as Yammer reports).
    std::vector<double> quantiles;
  };
  Snapshot Take(const std::vector<double>& qs, int64_t now_ms) const;

  // The bucket of a value, and the value a bucket reports (its upper bound's geometric
  // middle with the lower one). Exposed for tests.
  static int BucketOf(double ms);
  static double ValueOf(int bucket);

 private:
  struct Slot {
    std::atomic<int64_t> minute{-1};
    std::array<std::atomic<uint32_t>, kBuckets> counts{};
  };
  Slot& SlotFor(int64_t now_ms);

  std::unique_ptr<std::array<Slot, kSlots>> slots_;
  std::atomic<uint64_t> total_{0};
};

}  // namespace seglog

#endif  // SEGLOG_METRICS_WINDOWED_HISTOGRAM_H_
