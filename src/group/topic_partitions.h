// TopicPartitions: a set of partitions by topic id, as KIP-848's consumer groups speak of them
// (assignments, owned partitions, partitions pending revocation). Ordered, so a group's
// assignments, records and descriptions come out the same way every time.
//
// Thread safety: value types.
#ifndef SEGLOG_GROUP_TOPIC_PARTITIONS_H_
#define SEGLOG_GROUP_TOPIC_PARTITIONS_H_

#include <cstdint>
#include <map>
#include <set>

#include "base/uuid.h"

namespace seglog {

// Orders topic ids by their bytes.
struct UuidLess {
  bool operator()(const Uuid& a, const Uuid& b) const { return a.bytes < b.bytes; }
};

using TopicIdSet = std::set<Uuid, UuidLess>;

// topic id -> partition indexes. A topic is present only with at least one partition.
using TopicPartitions = std::map<Uuid, std::set<int32_t>, UuidLess>;

// The partitions of `a` that are not in `b`.
TopicPartitions Subtract(const TopicPartitions& a, const TopicPartitions& b);
// The partitions in both.
TopicPartitions Intersect(const TopicPartitions& a, const TopicPartitions& b);
// Whether `a` has `partition` of `topic`.
bool Contains(const TopicPartitions& a, const Uuid& topic, int32_t partition);
// The number of partitions.
size_t PartitionCount(const TopicPartitions& a);

}  // namespace seglog

#endif  // SEGLOG_GROUP_TOPIC_PARTITIONS_H_
