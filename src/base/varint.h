// Zigzag varints as Kafka's record format uses them (ByteUtils in Kafka's clients).
//
// A value is zigzag-mapped ((n << 1) ^ (n >> 31 or 63), so small negative numbers stay short)
// and written as base-128 groups, least significant first, with the high bit of each byte
// meaning "more follows". Kafka refuses an int varint still unterminated after 5 bytes and a
// long varint after 10; so do we. Writers emit the minimal encoding; -1 encodes as 0x01.
#ifndef SEGLOG_BASE_VARINT_H_
#define SEGLOG_BASE_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace seglog {

inline constexpr int kMaxVarintBytes = 5;
inline constexpr int kMaxVarlongBytes = 10;

inline uint32_t ZigZagEncode32(int32_t n) {
  return (static_cast<uint32_t>(n) << 1) ^ static_cast<uint32_t>(n >> 31);
}
inline int32_t ZigZagDecode32(uint32_t n) {
  return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline uint64_t ZigZagEncode64(int64_t n) {
  return (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
}
inline int64_t ZigZagDecode64(uint64_t n) {
  return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
}

// Bytes needed to encode `n` as a zigzag varint / varlong.
int VarintSize(int32_t n);
int VarlongSize(int64_t n);

// Appends the encoding of `n` to `out`, or writes it at `p` (which must have room for
// kMaxVarintBytes / kMaxVarlongBytes) and returns the byte after it.
uint8_t* EncodeVarint(uint8_t* p, int32_t n);
uint8_t* EncodeVarlong(uint8_t* p, int64_t n);

// Result of decoding a varint from a bounded buffer.
enum class VarintError { kOk, kTruncated, kTooLong };

// The general cases of the decoders below (out of line: most lengths and deltas in a record fit
// one or two bytes).
VarintError DecodeVarintSlow(const uint8_t* p, const uint8_t* limit, int32_t* value, int* length);
VarintError DecodeVarlongSlow(const uint8_t* p, const uint8_t* limit, int64_t* value, int* length);

// The fast path of the decoders below: the raw (still zigzagged) value of a one- or two-byte
// encoding at p, which most lengths, deltas and counts in a record are, with its length; -1
// when the encoding is longer or fewer than two bytes remain (the general case decides then).
inline int32_t ShortVarintRaw(const uint8_t* p, const uint8_t* limit, int* length) {
  if (limit - p < 2) return -1;
  if (p[0] < 0x80) {
    *length = 1;
    return p[0];
  }
  if (p[1] < 0x80) {
    *length = 2;
    return static_cast<int32_t>((p[0] & 0x7fu) | (static_cast<uint32_t>(p[1]) << 7));
  }
  return -1;
}

// Decodes a zigzag varint from [p, limit). On success stores the value and the number of bytes
// consumed. kTruncated: the buffer ended before the last byte; kTooLong: more than 5 (10) bytes.
inline VarintError DecodeVarint(const uint8_t* p, const uint8_t* limit, int32_t* value,
                                int* length) {
  if (const int32_t raw = ShortVarintRaw(p, limit, length); raw >= 0) {
    *value = ZigZagDecode32(static_cast<uint32_t>(raw));
    return VarintError::kOk;
  }
  return DecodeVarintSlow(p, limit, value, length);
}
inline VarintError DecodeVarlong(const uint8_t* p, const uint8_t* limit, int64_t* value,
                                 int* length) {
  if (const int32_t raw = ShortVarintRaw(p, limit, length); raw >= 0) {
    *value = ZigZagDecode64(static_cast<uint64_t>(raw));
    return VarintError::kOk;
  }
  return DecodeVarlongSlow(p, limit, value, length);
}

}  // namespace seglog

#endif  // SEGLOG_BASE_VARINT_H_
