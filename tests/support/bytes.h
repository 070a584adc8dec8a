// Byte views and decoding for tests.
// Thread safety: functions; thread-safe.
#ifndef SEGLOG_TESTS_SUPPORT_BYTES_H_
#define SEGLOG_TESTS_SUPPORT_BYTES_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"

namespace seglog::testing {

// Views of caller-owned bytes. The const char* overload is for literals (static storage); the
// string overload must not be given a temporary that dies before the view is used.
std::span<const uint8_t> AsBytes(const std::string& s);
std::span<const uint8_t> AsBytes(const char* literal);

// Standard base64 (padding optional; other characters skipped).
std::vector<uint8_t> Base64Decode(const std::string& in);

// Building Kafka's byte layouts by hand: parts joined, a big-endian integer of `bytes` bytes,
// an int16-length string (a non-flexible key's), a Uuid of the bytes first, first+1, ...
std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts);
std::vector<uint8_t> BE(uint64_t v, int bytes);
std::vector<uint8_t> Str16(std::string_view s);
Uuid TestUuid(uint8_t first);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_BYTES_H_
