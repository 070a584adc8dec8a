#include "base/token_bucket.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

// Kafka's controller quota defaults: 11 samples of one second, so the burst is 11 x the rate.
TEST(TokenBucket, ANewBucketHoldsItsBurst) {
  TokenBucket b(11, 1000);
  EXPECT_DOUBLE_EQ(b.Burst(10), 110);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 5000), 110);
  EXPECT_EQ(b.ThrottleMs(10, 5000), 0);
}

// Kafka's StrictControllerMutationQuotaTest walk-through: rate 10, 10 samples of 1 s (burst
// 100). 90 leaves 10, another 90 leaves -80 (accepted: the bucket was not empty before it),
// and the quota is then exhausted for 80 / 10 = 8 s.
TEST(TokenBucket, ARecordMayTakeTheBucketBelowZeroAndTheWaitIsTheDebtOverTheRate) {
  TokenBucket b(10, 1000);
  b.Record(90, 10, 0);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 0), 10);
  EXPECT_EQ(b.ThrottleMs(10, 0), 0);
  b.Record(90, 10, 0);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 0), -80);
  EXPECT_EQ(b.ThrottleMs(10, 0), 8000);
  // Refilled at 10 per second: 3 s later 30 of the 80 are back.
  EXPECT_EQ(b.ThrottleMs(10, 3000), 5000);
  EXPECT_EQ(b.ThrottleMs(10, 8000), 0);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 8000), 0);
}

TEST(TokenBucket, RefillStopsAtTheBurst) {
  TokenBucket b(11, 1000);
  b.Record(50, 10, 0);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 2000), 80);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 1000000), 110);
  // A negative record (a refund) cannot overfill it either.
  b.Record(-1000, 10, 1000000);
  EXPECT_DOUBLE_EQ(b.Tokens(10, 1000000), 110);
}

TEST(TokenBucket, AChangedRateAppliesToTheTokensThere) {
  TokenBucket b(11, 1000);
  b.Record(200, 10, 0);  // 110 - 200 = -90
  EXPECT_EQ(b.ThrottleMs(10, 0), 9000);
  EXPECT_EQ(b.ThrottleMs(30, 0), 3000);  // the same debt at three times the rate
  // A lower rate lowers the burst: the tokens above it are gone.
  TokenBucket c(11, 1000);
  EXPECT_DOUBLE_EQ(c.Tokens(10, 0), 110);
  c.Record(0, 1, 0);
  EXPECT_DOUBLE_EQ(c.Tokens(1, 0), 11);
}

TEST(TokenBucket, ThrottleIsRoundedToTheNearestMillisecond) {
  TokenBucket b(1, 1000);
  b.Record(1.0 + 1.0 / 3, 1, 0);  // burst 1: -1/3 token at 1 per second
  EXPECT_EQ(b.ThrottleMs(1, 0), 333);
  TokenBucket c(1, 1000);
  c.Record(1.0016, 1, 0);  // -0.0016 tokens: 1.6 ms
  EXPECT_EQ(c.ThrottleMs(1, 0), 2);
}

}  // namespace
}  // namespace seglog
