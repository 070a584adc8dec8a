#include "base/windowed_rate.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

// Kafka's quota defaults: 11 samples of one second.
WindowedRate QuotaRate() { return WindowedRate(11, 1000); }

TEST(WindowedRate, ANewRateIsMeasuredOverAtLeastSamplesMinusOneWindows) {
  WindowedRate r = QuotaRate();
  r.Record(100, 0);
  EXPECT_EQ(r.WindowSizeMs(0), 10000);  // 10 whole windows, though only 0 ms have passed
  EXPECT_DOUBLE_EQ(r.Measure(0), 10.0);
  EXPECT_EQ(r.WindowSizeMs(2500), 10500);  // 2 whole windows so far: 8 more are added
  EXPECT_DOUBLE_EQ(r.Measure(2500), 100 / 10.5);
}

TEST(WindowedRate, SteadyRecordsGiveTheirRate) {
  WindowedRate r = QuotaRate();
  for (int64_t t = 0; t <= 10000; t += 1000) r.Record(1000, t);
  EXPECT_EQ(r.WindowSizeMs(10000), 10000);
  EXPECT_DOUBLE_EQ(r.Measure(10000), 1100.0);
  // The eleventh window reuses the oldest sample (t=0), which leaves the total.
  r.Record(1000, 11000);
  EXPECT_EQ(r.WindowSizeMs(11000), 10000);  // from the sample of t=1000
  EXPECT_DOUBLE_EQ(r.Measure(11000), 1100.0);
}

TEST(WindowedRate, ThrottleTimeIsTheExcessOverTheBoundTimesTheWindow) {
  WindowedRate r = QuotaRate();
  EXPECT_EQ(r.RecordAndGetThrottleMs(2000, 100, 0), 10000);  // 200/s against 100/s over 10 s
  EXPECT_EQ(r.ThrottleMs(100, 5000), 10000);                 // still 2000 over 10 s
  EXPECT_EQ(r.ThrottleMs(400, 5000), 0);
  // Samples older than 11 windows are forgotten.
  EXPECT_EQ(r.ThrottleMs(100, 11000), 0);
  EXPECT_DOUBLE_EQ(r.Measure(11000), 0);
}

TEST(WindowedRate, WithinTheBoundThereIsNoThrottle) {
  WindowedRate r = QuotaRate();
  for (int64_t t = 0; t < 20000; t += 100) EXPECT_EQ(r.RecordAndGetThrottleMs(9, 100, t), 0) << t;
  EXPECT_NEAR(r.Measure(20000), 90, 9.1);
}

TEST(WindowedRate, OneSampleRatesAreMeasuredOverTheirElapsedTime) {
  WindowedRate r(1, 1000);
  r.Record(10, 0);
  EXPECT_EQ(r.WindowSizeMs(0), 1);  // never less than 1 ms
  EXPECT_EQ(r.WindowSizeMs(500), 500);
  EXPECT_DOUBLE_EQ(r.Measure(500), 20);
}

}  // namespace
}  // namespace seglog
