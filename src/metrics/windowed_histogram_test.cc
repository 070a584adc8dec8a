#include "metrics/windowed_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

namespace seglog {
namespace {

constexpr int64_t kMinute = WindowedHistogram::kSlotMs;

TEST(WindowedHistogram, BucketsAreWithinTwoPercentOfTheirValues) {
  int last = -1;
  for (double v = 0.002; v < 3e6; v *= 1.013) {
    const int b = WindowedHistogram::BucketOf(v);
    EXPECT_GE(b, last) << v;  // monotonic
    last = b;
    EXPECT_NEAR(WindowedHistogram::ValueOf(b) / v, 1.0, 0.021) << v;
  }
  EXPECT_EQ(WindowedHistogram::BucketOf(0), 0);
  EXPECT_EQ(WindowedHistogram::BucketOf(-5), 0);
  EXPECT_EQ(WindowedHistogram::BucketOf(std::nan("")), 0);
  EXPECT_EQ(WindowedHistogram::BucketOf(std::numeric_limits<double>::infinity()),
            WindowedHistogram::kBuckets - 1);
  EXPECT_EQ(WindowedHistogram::BucketOf(1e300), WindowedHistogram::kBuckets - 1);
}

TEST(WindowedHistogram, QuantilesOfAKnownDistribution) {
  WindowedHistogram h;
  for (int i = 1; i <= 10000; ++i) h.Record(i / 10.0, 5 * kMinute);  // 0.1 .. 1000 ms
  const auto s = h.Take({0.5, 0.75, 0.99, 0.999}, 5 * kMinute + 1);
  EXPECT_EQ(s.total_count, 10000u);
  EXPECT_EQ(s.window_count, 10000u);
  ASSERT_EQ(s.quantiles.size(), 4u);
  EXPECT_NEAR(s.quantiles[0], 500, 500 * 0.025);
  EXPECT_NEAR(s.quantiles[1], 750, 750 * 0.025);
  EXPECT_NEAR(s.quantiles[2], 990, 990 * 0.025);
  EXPECT_NEAR(s.quantiles[3], 999, 999 * 0.025);
}

TEST(WindowedHistogram, AnEmptyWindowReportsZero) {
  WindowedHistogram h;
  auto s = h.Take({0.5, 0.99}, 0);
  EXPECT_EQ(s.total_count, 0u);
  EXPECT_EQ(s.quantiles, (std::vector<double>{0, 0}));
}

TEST(WindowedHistogram, OldMinutesLeaveTheWindowButNotTheCount) {
  WindowedHistogram h;
  for (int i = 0; i < 100; ++i) h.Record(1000, 10 * kMinute);  // slow, at minute 10
  for (int i = 0; i < 100; ++i) h.Record(1, 12 * kMinute);     // fast, at minute 12
  auto s = h.Take({0.25, 0.75}, 14 * kMinute + 59'000);        // both within five minutes
  EXPECT_EQ(s.window_count, 200u);
  EXPECT_NEAR(s.quantiles[0], 1, 0.03);
  EXPECT_NEAR(s.quantiles[1], 1000, 25);
  s = h.Take({0.25, 0.75}, 15 * kMinute);  // minute 10 is five minutes old: gone
  EXPECT_EQ(s.window_count, 100u);
  EXPECT_NEAR(s.quantiles[1], 1, 0.03);
  EXPECT_EQ(s.total_count, 200u);
  // Minute 15 reuses minute 10's slot: what it held is cleared before counting anew.
  h.Record(50, 15 * kMinute + 1);
  s = h.Take({0.999}, 15 * kMinute + 2);
  EXPECT_EQ(s.window_count, 101u);
  EXPECT_NEAR(s.quantiles[0], 50, 1.25);
  s = h.Take({0.5}, 40 * kMinute);  // long idle: nothing in the window
  EXPECT_EQ(s.window_count, 0u);
  EXPECT_EQ(s.quantiles[0], 0);
}

TEST(WindowedHistogram, ConcurrentRecordsAreAllCounted) {
  WindowedHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 50000; ++i) h.Record(t + 1, 3 * kMinute + 5);
    });
  }
  for (auto& t : threads) t.join();
  const auto s = h.Take({0.5}, 3 * kMinute + 6);
  EXPECT_EQ(s.total_count, 200000u);
  EXPECT_EQ(s.window_count, 200000u);
  EXPECT_NEAR(s.quantiles[0], 2, 0.05);
}

}  // namespace
}  // namespace seglog
