// CombineStateBatches: the pruning at the start offset, the winner where batches overlap (the
// higher delivery count, then the higher state), joining, and a randomized check against a
// per-offset model.
#include "sharestate/share_state_batch.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace seglog {
namespace {

using B = PersisterStateBatch;
constexpr int8_t kAv = kDeliveryStateAvailable;
constexpr int8_t kAck = kDeliveryStateAcknowledged;
constexpr int8_t kArc = kDeliveryStateArchived;

B Batch(int64_t first, int64_t last, int8_t state, int16_t count) {
  return {
      .first_offset = first, .last_offset = last, .delivery_state = state, .delivery_count = count};
}

TEST(CombineStateBatchesTest, EmptyAndSingle) {
  EXPECT_TRUE(CombineStateBatches({}, {}, 0).empty());
  const std::vector<B> one = {Batch(5, 9, kAck, 1)};
  EXPECT_EQ(CombineStateBatches(one, {}, -1), one);
  EXPECT_EQ(CombineStateBatches({}, one, 0), one);
}

TEST(CombineStateBatchesTest, StartOffsetDropsAndCuts) {
  const std::vector<B> so_far = {Batch(0, 4, kAck, 1), Batch(5, 9, kAv, 2), Batch(10, 12, kArc, 1)};
  const std::vector<B> want = {Batch(7, 9, kAv, 2), Batch(10, 12, kArc, 1)};
  EXPECT_EQ(CombineStateBatches(so_far, {}, 7), want);
  // -1 keeps everything.
  EXPECT_EQ(CombineStateBatches(so_far, {}, -1), so_far);
  // A start past everything leaves nothing.
  EXPECT_TRUE(CombineStateBatches(so_far, {}, 13).empty());
}

TEST(CombineStateBatchesTest, HigherCountWinsThenHigherState) {
  // 0-9 available count 1; 3-5 acknowledged count 1 wins by state; 4-6 available count 2 wins by
  // count over both.
  const std::vector<B> so_far = {Batch(0, 9, kAv, 1)};
  const std::vector<B> next = {Batch(3, 5, kAck, 1), Batch(4, 6, kAv, 2)};
  const std::vector<B> want = {Batch(0, 2, kAv, 1), Batch(3, 3, kAck, 1), Batch(4, 6, kAv, 2),
                               Batch(7, 9, kAv, 1)};
  EXPECT_EQ(CombineStateBatches(so_far, next, 0), want);
  // The order the batches come in does not matter.
  EXPECT_EQ(CombineStateBatches(next, so_far, 0), want);
}

TEST(CombineStateBatchesTest, NeighboursWithTheSameStateJoin) {
  const std::vector<B> so_far = {Batch(0, 4, kAck, 1), Batch(5, 9, kAck, 1),
                                 Batch(12, 13, kAck, 1)};
  const std::vector<B> want = {Batch(0, 9, kAck, 1), Batch(12, 13, kAck, 1)};
  EXPECT_EQ(CombineStateBatches(so_far, {}, 0), want);
}

// Per offset, the winner is the maximum (count, state) of the batches covering it.
TEST(CombineStateBatchesTest, MatchesAPerOffsetModel) {
  std::mt19937 rng(31);
  for (int round = 0; round < 500; ++round) {
    std::vector<B> a, b;
    std::map<int64_t, std::pair<int16_t, int8_t>> model;
    const int64_t start = static_cast<int64_t>(rng() % 8) - 1;  // -1 .. 6
    for (auto* list : {&a, &b}) {
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) {
        const int64_t first = rng() % 40;
        const int64_t last = first + rng() % 8;
        const int8_t state = std::vector<int8_t>{kAv, kAck, kArc}[rng() % 3];
        const auto count = static_cast<int16_t>(rng() % 4);
        list->push_back(Batch(first, last, state, count));
        for (int64_t o = first; o <= last; ++o) {
          if (start != -1 && o < start) continue;
          auto rank = std::make_pair(count, state);
          auto [it, inserted] = model.emplace(o, rank);
          if (!inserted && it->second < rank) it->second = rank;
        }
      }
    }
    const std::vector<B> got = CombineStateBatches(a, b, start);
    std::map<int64_t, std::pair<int16_t, int8_t>> seen;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_LE(got[i].first_offset, got[i].last_offset);
      if (i > 0) {
        ASSERT_GT(got[i].first_offset, got[i - 1].last_offset) << "overlap or disorder";
        const bool adjacent = got[i].first_offset == got[i - 1].last_offset + 1;
        const bool same = got[i].delivery_state == got[i - 1].delivery_state &&
                          got[i].delivery_count == got[i - 1].delivery_count;
        ASSERT_FALSE(adjacent && same) << "neighbours not joined";
      }
      for (int64_t o = got[i].first_offset; o <= got[i].last_offset; ++o) {
        seen[o] = {got[i].delivery_count, got[i].delivery_state};
      }
    }
    ASSERT_EQ(seen, model) << "round " << round;
  }
}

}  // namespace
}  // namespace seglog
