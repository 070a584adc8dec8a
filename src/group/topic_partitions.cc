// TopicPartitions' set operations; see topic_partitions.h.
#include "group/topic_partitions.h"

#include <algorithm>
#include <iterator>

namespace seglog {

TopicPartitions Subtract(const TopicPartitions& a, const TopicPartitions& b) {
  TopicPartitions out;
  for (const auto& [topic, partitions] : a) {
    auto other = b.find(topic);
    if (other == b.end()) {
      if (!partitions.empty()) out.emplace(topic, partitions);
      continue;
    }
    std::set<int32_t> left;
    std::set_difference(partitions.begin(), partitions.end(), other->second.begin(),
                        other->second.end(), std::inserter(left, left.end()));
    if (!left.empty()) out.emplace(topic, std::move(left));
  }
  return out;
}

TopicPartitions Intersect(const TopicPartitions& a, const TopicPartitions& b) {
  TopicPartitions out;
  for (const auto& [topic, partitions] : a) {
    auto other = b.find(topic);
    if (other == b.end()) continue;
    std::set<int32_t> both;
    std::set_intersection(partitions.begin(), partitions.end(), other->second.begin(),
                          other->second.end(), std::inserter(both, both.end()));
    if (!both.empty()) out.emplace(topic, std::move(both));
  }
  return out;
}

bool Contains(const TopicPartitions& a, const Uuid& topic, int32_t partition) {
  auto it = a.find(topic);
  return it != a.end() && it->second.count(partition) != 0;
}

size_t PartitionCount(const TopicPartitions& a) {
  size_t count = 0;
  for (const auto& [topic, partitions] : a) count += partitions.size();
  return count;
}

}  // namespace seglog
