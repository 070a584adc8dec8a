// Byte views and decoding for tests.
// Thread safety: functions; thread-safe.
#ifndef SEGLOG_TESTS_SUPPORT_BYTES_H_
#define SEGLOG_TESTS_SUPPORT_BYTES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace seglog::testing {

// Views of caller-owned bytes. The const char* overload is for literals (static storage); the
// string overload must not be given a temporary that dies before the view is used.
std::span<const uint8_t> AsBytes(const std::string& s);
std::span<const uint8_t> AsBytes(const char* literal);

// Standard base64 (padding optional; other characters skipped).
std::vector<uint8_t> Base64Decode(const std::string& in);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_BYTES_H_
