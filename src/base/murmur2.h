// Murmur2 as Kafka's Java client computes it (Utils.murmur2, seed 0x9747b28c), and the default
// partitioner's choice for a keyed record: toPositive(murmur2(key)) % numPartitions. Keys land
// in the same partition as they would from Kafka's producer.
// Thread safety: pure functions.
#ifndef SEGLOG_BASE_MURMUR2_H_
#define SEGLOG_BASE_MURMUR2_H_

#include <cstdint>
#include <span>

namespace seglog {

int32_t Murmur2(std::span<const uint8_t> data);

// REQUIRES: num_partitions > 0.
int32_t PartitionForKey(std::span<const uint8_t> key, int32_t num_partitions);

}  // namespace seglog

#endif  // SEGLOG_BASE_MURMUR2_H_
