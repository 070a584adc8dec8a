// Fixed-width big-endian integers, as every Kafka file and wire field stores them.
//
// These helpers are unchecked: the caller guarantees the bytes exist (ByteReader in
// byte_reader.h is the checked way to read untrusted bytes). They compile to one load or store
// plus a byte swap.
#ifndef SEGLOG_BASE_CODING_H_
#define SEGLOG_BASE_CODING_H_

#include <bit>
#include <cstdint>
#include <cstring>

namespace seglog {

static_assert(std::endian::native == std::endian::little,
              "seglog's coding helpers assume a little-endian host");

inline uint16_t LoadBE16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap16(v);
}
inline uint32_t LoadBE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap32(v);
}
inline uint64_t LoadBE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap64(v);
}
inline int16_t LoadBEInt16(const uint8_t* p) { return static_cast<int16_t>(LoadBE16(p)); }
inline int32_t LoadBEInt32(const uint8_t* p) { return static_cast<int32_t>(LoadBE32(p)); }
inline int64_t LoadBEInt64(const uint8_t* p) { return static_cast<int64_t>(LoadBE64(p)); }

inline void StoreBE16(uint8_t* p, uint16_t v) {
  v = __builtin_bswap16(v);
  std::memcpy(p, &v, sizeof v);
}
inline void StoreBE32(uint8_t* p, uint32_t v) {
  v = __builtin_bswap32(v);
  std::memcpy(p, &v, sizeof v);
}
inline void StoreBE64(uint8_t* p, uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

// Little-endian, for the few formats that use it (the LZ4 frame).
inline uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void StoreLE32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }

// Two's-complement addition and subtraction that wrap like Java's long arithmetic, for values
// read from untrusted bytes (a base offset near INT64_MAX plus a delta must not be undefined
// behaviour; Kafka's reader computes the same wrapped value).
inline int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace seglog

#endif  // SEGLOG_BASE_CODING_H_
