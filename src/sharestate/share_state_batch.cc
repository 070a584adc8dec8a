// CombineStateBatches; see share_state_batch.h.
#include "sharestate/share_state_batch.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace seglog {

namespace {

// A batch's rank where batches overlap: the higher delivery count, then the higher state.
struct Rank {
  int16_t delivery_count;
  int8_t delivery_state;
  bool operator<(const Rank& o) const {
    return std::tie(delivery_count, delivery_state) < std::tie(o.delivery_count, o.delivery_state);
  }
};

// Where a batch begins (first offset) or ends (one past its last offset).
struct Edge {
  int64_t offset;
  bool begins;
  Rank rank;
};

void AddPruned(std::span<const PersisterStateBatch> batches, int64_t start_offset,
               std::vector<PersisterStateBatch>* out) {
  for (const PersisterStateBatch& b : batches) {
    if (start_offset != -1 && b.last_offset < start_offset) continue;
    PersisterStateBatch kept = b;
    if (start_offset != -1 && kept.first_offset < start_offset) kept.first_offset = start_offset;
    out->push_back(kept);
  }
}

void AppendJoined(int64_t from, int64_t to, const Rank& rank,
                  std::vector<PersisterStateBatch>* out) {
  if (!out->empty()) {
    PersisterStateBatch& tail = out->back();
    if (tail.last_offset + 1 == from && tail.delivery_state == rank.delivery_state &&
        tail.delivery_count == rank.delivery_count) {
      tail.last_offset = to;
      return;
    }
  }
  out->push_back({.first_offset = from,
                  .last_offset = to,
                  .delivery_state = rank.delivery_state,
                  .delivery_count = rank.delivery_count});
}

}  // namespace

std::vector<PersisterStateBatch> CombineStateBatches(
    std::span<const PersisterStateBatch> so_far, std::span<const PersisterStateBatch> new_batches,
    int64_t start_offset) {
  std::vector<PersisterStateBatch> pruned;
  pruned.reserve(so_far.size() + new_batches.size());
  AddPruned(so_far, start_offset, &pruned);
  AddPruned(new_batches, start_offset, &pruned);
  if (pruned.size() <= 1) return pruned;

  std::vector<Edge> edges;
  edges.reserve(pruned.size() * 2);
  for (const PersisterStateBatch& b : pruned) {
    const Rank rank{b.delivery_count, b.delivery_state};
    edges.push_back({b.first_offset, true, rank});
    edges.push_back({b.last_offset + 1, false, rank});
  }
  // By offset; at one offset the ends before the beginnings, so a batch ending where another
  // begins does not cover it.
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    return !a.begins && b.begins;
  });
  std::map<Rank, int> open;  // the ranks of the batches covering the sweep, with multiplicity
  std::vector<PersisterStateBatch> out;
  int64_t open_from = -1;
  bool have_winner = false;
  Rank winner{0, 0};
  size_t i = 0;
  while (i < edges.size()) {
    const int64_t offset = edges[i].offset;
    if (have_winner && offset > open_from) AppendJoined(open_from, offset - 1, winner, &out);
    for (; i < edges.size() && edges[i].offset == offset; ++i) {
      if (edges[i].begins) {
        ++open[edges[i].rank];
      } else if (auto it = open.find(edges[i].rank); --it->second == 0) {
        open.erase(it);
      }
    }
    have_winner = !open.empty();
    if (have_winner) winner = open.rbegin()->first;
    open_from = offset;
  }
  return out;
}

}  // namespace seglog
