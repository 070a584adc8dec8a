// SimpleAssignor; see simple_assignor.h.
#include "group/simple_assignor.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace seglog {

namespace {

using Partition = std::pair<Uuid, int32_t>;

struct PartitionLess {
  bool operator()(const Partition& a, const Partition& b) const {
    if (a.first.bytes != b.first.bytes) return a.first.bytes < b.first.bytes;
    return a.second < b.second;
  }
};

// Shares `partitions` out among `members` (ordered), adding to `out`.
void AssignPool(const std::vector<std::string>& members, const std::vector<Partition>& partitions,
                const std::map<std::string, TopicPartitions>& previous,
                std::map<std::string, TopicPartitions>* out) {
  const int64_t m = static_cast<int64_t>(members.size());
  const int64_t p = static_cast<int64_t>(partitions.size());
  if (m == 0 || p == 0) return;
  const int64_t sharing = (m + p - 1) / p;
  const int64_t total = sharing * p;
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  std::vector<int64_t> desired(members.size());
  for (int64_t i = 0; i < m; ++i) {
    desired[i] = ceil_div(total * (i + 1), m) - ceil_div(total * i, m);
  }
  std::map<Partition, int64_t, PartitionLess> holders;
  for (const Partition& tp : partitions) holders[tp] = 0;
  std::vector<std::set<Partition, PartitionLess>> held(members.size());
  // Sticky: what the previous target gave, within the counts.
  for (size_t i = 0; i < members.size(); ++i) {
    auto prev = previous.find(members[i]);
    if (prev == previous.end()) continue;
    for (const auto& [topic, ps] : prev->second) {
      for (int32_t x : ps) {
        auto h = holders.find({topic, x});
        if (h == holders.end()) continue;  // not in this pool (or no longer assignable)
        if (static_cast<int64_t>(held[i].size()) >= desired[i] || h->second >= sharing) continue;
        held[i].insert(h->first);
        ++h->second;
      }
    }
  }
  // The rest, partition by partition, each to the member furthest below its count.
  for (const Partition& tp : partitions) {
    while (holders[tp] < sharing) {
      int64_t best = -1;
      int64_t best_room = 0;
      for (size_t i = 0; i < members.size(); ++i) {
        if (held[i].count(tp)) continue;
        const int64_t room = desired[i] - static_cast<int64_t>(held[i].size());
        if (room > best_room) {
          best = static_cast<int64_t>(i);
          best_room = room;
        }
      }
      if (best < 0) {
        // Every member with room already holds `tp`: one of them (y) takes a partition q
        // from a full member x that does not hold `tp`, and x takes `tp` instead.
        for (size_t y = 0; y < members.size() && best < 0; ++y) {
          if (static_cast<int64_t>(held[y].size()) >= desired[y]) continue;
          for (size_t x = 0; x < members.size() && best < 0; ++x) {
            if (x == y || held[x].count(tp)) continue;
            for (const Partition& in_x : held[x]) {
              if (held[y].count(in_x)) continue;
              const Partition q = in_x;  // a copy: erasing it from held[x] frees `in_x`
              held[x].erase(q);
              held[y].insert(q);
              best = static_cast<int64_t>(x);
              break;
            }
          }
        }
      }
      if (best < 0) {
        // No count is left anywhere (cannot happen: the counts add up to S*P); the member
        // with the fewest that does not hold `tp` takes it.
        for (size_t i = 0; i < members.size(); ++i) {
          if (held[i].count(tp)) continue;
          if (best < 0 || held[i].size() < held[static_cast<size_t>(best)].size()) {
            best = static_cast<int64_t>(i);
          }
        }
      }
      if (best < 0) break;  // every member holds it
      held[static_cast<size_t>(best)].insert(tp);
      ++holders[tp];
    }
  }
  for (size_t i = 0; i < members.size(); ++i) {
    TopicPartitions& t = (*out)[members[i]];
    for (const Partition& tp : held[i]) t[tp.first].insert(tp.second);
  }
}

}  // namespace

std::map<std::string, TopicPartitions> SimpleAssign(const SimpleAssignorInput& in,
                                                    bool homogeneous) {
  std::map<std::string, TopicPartitions> out;
  for (const auto& [id, topics] : in.members) out[id];
  if (homogeneous) {
    std::vector<std::string> members;
    TopicIdSet topics;
    for (const auto& [id, subscribed] : in.members) {
      members.push_back(id);
      topics.insert(subscribed.begin(), subscribed.end());
    }
    std::vector<Partition> partitions;
    for (const Uuid& t : topics) {
      auto a = in.assignable.find(t);
      if (a == in.assignable.end()) continue;
      for (int32_t x : a->second) partitions.emplace_back(t, x);
    }
    AssignPool(members, partitions, in.previous, &out);
    return out;
  }
  for (const auto& [topic, ps] : in.assignable) {
    std::vector<std::string> members;
    for (const auto& [id, subscribed] : in.members) {
      if (subscribed.count(topic)) members.push_back(id);
    }
    std::vector<Partition> partitions;
    for (int32_t x : ps) partitions.emplace_back(topic, x);
    AssignPool(members, partitions, in.previous, &out);
  }
  return out;
}

}  // namespace seglog
