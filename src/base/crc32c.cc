// CRC-32C through ISA-L, CRC-32 through zlib; see crc32c.h.
#include "base/crc32c.h"

#include <isa-l/crc.h>
#include <zlib.h>

#include <algorithm>
#include <climits>

namespace seglog {

uint32_t Crc32cExtend(uint32_t crc, std::span<const uint8_t> data) {
  // crc32_iscsi works on the raw register: pass the complement in, complement the result.
  uint32_t reg = ~crc;
  const uint8_t* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    // crc32_iscsi takes an int length; feed very large buffers in pieces.
    const size_t n = std::min<size_t>(left, size_t{1} << 30);
    reg = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(n), reg);
    p += n;
    left -= n;
  }
  return ~reg;
}

uint32_t Crc32c(std::span<const uint8_t> data) { return Crc32cExtend(0, data); }

uint32_t Crc32Ieee(std::span<const uint8_t> data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const uint8_t* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const size_t n = std::min<size_t>(left, UINT_MAX);
    crc = crc32(crc, p, static_cast<uInt>(n));
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace seglog
