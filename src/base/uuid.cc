// Uuid; see uuid.h.
#include "base/uuid.h"

#include <sys/random.h>

#include <cerrno>

#include <fmt/format.h>

#include <random>

namespace seglog {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

Uuid Uuid::Random() {
  for (;;) {
    Uuid u;
    // 16 bytes from the kernel for every id, as Kafka's SecureRandom: no generator state that a
    // fork would copy into two processes (which then made the same topic ids), and the full 122
    // random bits rather than a 32-bit seed's worth.
    size_t got = 0;
    while (got < u.bytes.size()) {
      const ssize_t n = ::getrandom(u.bytes.data() + got, u.bytes.size() - got, 0);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n < 0 && errno != EINTR) {
        std::random_device rd;  // getrandom(2) unavailable: the library's source
        for (uint8_t& b : u.bytes) b = static_cast<uint8_t>(rd());
        got = u.bytes.size();
      }
    }
    u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0f) | 0x40);  // version 4
    u.bytes[8] = static_cast<uint8_t>((u.bytes[8] & 0x3f) | 0x80);  // IETF variant
    Uuid metadata;
    metadata.bytes[15] = 1;
    if (u.IsZero() || u == metadata || u.ToString()[0] == '-') continue;
    return u;
  }
}

std::string Uuid::ToString() const {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      out.push_back(kAlphabet[(acc >> (bits - 6)) & 63]);
      bits -= 6;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 63]);
  return out;  // 22 characters
}

Result<Uuid> Uuid::Parse(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && t.back() == '=') t.remove_suffix(1);
  if (t.size() != 22) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a Kafka Uuid: {} Base64 characters, expected 22", text, t.size()));
  }
  Uuid u;
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (char c : t) {
    const int v = DecodeChar(c);
    if (v < 0) {
      return Status::InvalidArgument(
          fmt::format("'{}' is not a Kafka Uuid: '{}' is not URL-safe Base64", text, c));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      if (n < 16) u.bytes[n++] = static_cast<uint8_t>(acc >> (bits - 8));
      bits -= 8;
    }
  }
  if ((acc & ((1u << bits) - 1)) != 0) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a Kafka Uuid: trailing bits set", text));
  }
  return u;
}

bool Uuid::IsZero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

Uuid Uuid::FromHalves(uint64_t most, uint64_t least) {
  Uuid u;
  for (int i = 0; i < 8; ++i) {
    u.bytes[i] = static_cast<uint8_t>(most >> (56 - 8 * i));
    u.bytes[8 + i] = static_cast<uint8_t>(least >> (56 - 8 * i));
  }
  return u;
}

}  // namespace seglog
