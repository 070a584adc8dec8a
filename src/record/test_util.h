// Helpers shared by the record tests: reading golden files committed under tests/data/.
#ifndef SEGLOG_RECORD_TEST_UTIL_H_
#define SEGLOG_RECORD_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <cstdint>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "seglog/record_batch.h"

namespace seglog::testing {

inline std::string SourcePath(const std::string& rel) {
  return std::string(SEGLOG_SOURCE_DIR) + "/" + rel;
}

inline std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Views of caller-owned bytes. The const char* overload is for literals (static storage); the
// string overload must not be given a temporary that dies before the view is used.
inline std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::span<const uint8_t> AsBytes(const char* literal) {
  return {reinterpret_cast<const uint8_t*>(literal), std::char_traits<char>::length(literal)};
}

// tests/data/golden/manifest.json, parsed once: what Kafka says each golden batch holds.
inline const nlohmann::json& GoldenManifest() {
  static const nlohmann::json manifest = [] {
    std::ifstream in(SourcePath("tests/data/golden/manifest.json"));
    return nlohmann::json::parse(in);
  }();
  return manifest;
}

inline std::vector<uint8_t> Base64Decode(const std::string& in) {
  static const std::string kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> out;
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const size_t v = kChars.find(c);
    if (v == std::string::npos) continue;
    buf = (buf << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((buf >> bits) & 0xff));
    }
  }
  return out;
}

// A decoded key or value against the manifest's base64 string (or null).
inline void ExpectBytesEq(const NullableBytes& got, const nlohmann::json& want,
                          const std::string& what) {
  if (want.is_null()) {
    EXPECT_FALSE(got.has_value()) << what << ": expected null";
    return;
  }
  ASSERT_TRUE(got.has_value()) << what << ": expected non-null";
  auto w = Base64Decode(want.get<std::string>());
  EXPECT_TRUE(std::equal(got->begin(), got->end(), w.begin(), w.end()))
      << what << ": bytes differ (" << got->size() << " vs " << w.size() << ")";
}

}  // namespace seglog::testing

#endif  // SEGLOG_RECORD_TEST_UTIL_H_
