// Zigzag varint coding; see varint.h.
#include "base/varint.h"

namespace seglog {

namespace {

template <typename U>
int UnsignedVarSize(U v) {
  int size = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++size;
  }
  return size;
}

template <typename U>
uint8_t* EncodeUnsigned(uint8_t* p, U v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

template <typename U>
VarintError DecodeUnsigned(const uint8_t* p, const uint8_t* limit, int max_bytes, U* value,
                           int* length) {
  U result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p + i >= limit) return VarintError::kTruncated;
    const uint8_t byte = p[i];
    result |= static_cast<U>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      *length = i + 1;
      return VarintError::kOk;
    }
  }
  return VarintError::kTooLong;
}

}  // namespace

int VarintSize(int32_t n) { return UnsignedVarSize(ZigZagEncode32(n)); }
int VarlongSize(int64_t n) { return UnsignedVarSize(ZigZagEncode64(n)); }

uint8_t* EncodeVarint(uint8_t* p, int32_t n) { return EncodeUnsigned(p, ZigZagEncode32(n)); }
uint8_t* EncodeVarlong(uint8_t* p, int64_t n) { return EncodeUnsigned(p, ZigZagEncode64(n)); }

VarintError DecodeVarintSlow(const uint8_t* p, const uint8_t* limit, int32_t* value, int* length) {
  uint32_t raw = 0;
  VarintError err = DecodeUnsigned<uint32_t>(p, limit, kMaxVarintBytes, &raw, length);
  if (err == VarintError::kOk) *value = ZigZagDecode32(raw);
  return err;
}

VarintError DecodeVarlongSlow(const uint8_t* p, const uint8_t* limit, int64_t* value, int* length) {
  uint64_t raw = 0;
  VarintError err = DecodeUnsigned<uint64_t>(p, limit, kMaxVarlongBytes, &raw, length);
  if (err == VarintError::kOk) *value = ZigZagDecode64(raw);
  return err;
}

}  // namespace seglog
