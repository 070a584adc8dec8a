// Murmur2 (Austin Appleby's MurmurHash2, 32-bit), in the variant Kafka's client uses: the
// length is mixed into the seed, 4-byte little-endian blocks, then a 1-3 byte tail.
#include "base/murmur2.h"

namespace seglog {

int32_t Murmur2(std::span<const uint8_t> data) {
  constexpr uint32_t kSeed = 0x9747b28c;
  constexpr uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  const uint32_t length = static_cast<uint32_t>(data.size());
  uint32_t h = kSeed ^ length;
  const size_t blocks = data.size() / 4;
  for (size_t i = 0; i < blocks; ++i) {
    const uint8_t* p = data.data() + i * 4;
    uint32_t k =
        uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const uint8_t* tail = data.data() + blocks * 4;
  switch (data.size() % 4) {
    case 3:
      h ^= uint32_t{tail[2]} << 16;
      [[fallthrough]];
    case 2:
      h ^= uint32_t{tail[1]} << 8;
      [[fallthrough]];
    case 1:
      h ^= uint32_t{tail[0]};
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

int32_t PartitionForKey(std::span<const uint8_t> key, int32_t num_partitions) {
  const int32_t positive = Murmur2(key) & 0x7fffffff;  // Kafka's Utils.toPositive
  return positive % num_partitions;
}

}  // namespace seglog
