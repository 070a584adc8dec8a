// Byte helpers for tests; see bytes.h.
#include "tests/support/bytes.h"

namespace seglog::testing {

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::span<const uint8_t> AsBytes(const char* literal) {
  return {reinterpret_cast<const uint8_t*>(literal), std::char_traits<char>::length(literal)};
}

std::vector<uint8_t> Base64Decode(const std::string& in) {
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

std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<uint8_t> BE(uint64_t v, int bytes) {
  std::vector<uint8_t> out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return out;
}

std::vector<uint8_t> Str16(std::string_view s) {
  return Cat({BE(s.size(), 2), std::vector<uint8_t>(s.begin(), s.end())});
}

Uuid TestUuid(uint8_t first) {
  Uuid u;
  for (size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(first + i);
  return u;
}

}  // namespace seglog::testing
