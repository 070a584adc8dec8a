#include "record/batch_walker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/coding.h"
#include "seglog/record_batch.h"
#include "tests/support/bytes.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> ThreeBatches() {
  std::vector<uint8_t> log;
  for (int b = 0; b < 3; ++b) {
    BatchOptions o;
    o.base_offset = b * 10;
    RecordBatchBuilder builder(o);
    for (int i = 0; i < 10; ++i) {
      std::string v(50 + b, 'v');
      EXPECT_TRUE(builder.Append(1000 + i, std::nullopt, testing::AsBytes(v)).ok());
    }
    auto bytes = builder.Build();
    log.insert(log.end(), bytes->begin(), bytes->end());
  }
  return log;
}

TEST(LogBatchWalkerTest, WalksHeadersOnly) {
  auto log = ThreeBatches();
  LogBatchWalker w(log, /*base_position=*/4096);
  std::vector<int64_t> bases, positions;
  while (w.Next()) {
    bases.push_back(w.current().base_offset);
    positions.push_back(w.current().position);
    EXPECT_EQ(w.current().magic, 2);
  }
  EXPECT_TRUE(w.status().ok());
  EXPECT_EQ(bases, (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(positions[0], 4096);
  EXPECT_EQ(w.end_of_batches(), 4096 + static_cast<int64_t>(log.size()));
  EXPECT_EQ(w.trailing_bytes(), 0u);
}

TEST(LogBatchWalkerTest, PartialTrailingBatchEndsSilentlyAtEveryCut) {
  auto log = ThreeBatches();
  LogBatchWalker full(log);
  std::vector<int64_t> ends;
  while (full.Next()) ends.push_back(full.end_of_batches());
  for (size_t cut = 0; cut <= log.size(); ++cut) {
    LogBatchWalker w(std::span<const uint8_t>(log).first(cut));
    int n = 0;
    while (w.Next()) ++n;
    EXPECT_TRUE(w.status().ok()) << cut;
    int expect = 0;
    for (int64_t e : ends) expect += (e <= static_cast<int64_t>(cut)) ? 1 : 0;
    EXPECT_EQ(n, expect) << cut;
  }
}

TEST(LogBatchWalkerTest, LengthBelowMinimumIsCorruption) {
  auto log = ThreeBatches();
  LogBatchWalker first(log);
  ASSERT_TRUE(first.Next());
  const size_t second = static_cast<size_t>(first.end_of_batches());
  StoreBE32(log.data() + second + 8, 13);
  LogBatchWalker w(log, 100);
  ASSERT_TRUE(w.Next());
  EXPECT_FALSE(w.Next());
  EXPECT_TRUE(w.status().IsCorruption());
  EXPECT_THAT(w.status().ToString(), HasSubstr("position " + std::to_string(100 + second)));
  EXPECT_THAT(w.status().ToString(), HasSubstr("found 13"));
  EXPECT_FALSE(w.Next());
}

TEST(LogBatchWalkerTest, NegativeLengthIsCorruptionNotAHugeSkip) {
  auto log = ThreeBatches();
  StoreBE32(log.data() + 8, 0x80000000u);
  LogBatchWalker w(log);
  EXPECT_FALSE(w.Next());
  EXPECT_TRUE(w.status().IsCorruption());
}

}  // namespace
}  // namespace seglog
