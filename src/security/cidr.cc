// CIDR ranges; see cidr.h.
#include "security/cidr.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <optional>

namespace seglog {

namespace {

struct Range {
  int family = AF_INET;
  std::array<uint8_t, 16> network{};
  int prefix = 0;
};

// Parses `text` as an address of `family` (AF_INET: 4 bytes, AF_INET6: 16) into `out`.
bool ParseAddress(int family, std::string_view text, std::array<uint8_t, 16>* out) {
  const std::string s(text);
  out->fill(0);
  return inet_pton(family, s.c_str(), out->data()) == 1;
}

std::optional<Range> ParseRange(std::string_view cidr, std::string* why) {
  const size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) {
    *why = fmt::format("Could not parse [{}]", cidr);
    return std::nullopt;
  }
  Range r;
  r.family = cidr.find(':') != std::string_view::npos ? AF_INET6 : AF_INET;
  const int max = r.family == AF_INET ? 32 : 128;
  if (!ParseAddress(r.family, cidr.substr(0, slash), &r.network)) {
    *why = fmt::format("Could not parse [{}]", cidr);
    return std::nullopt;
  }
  const std::string_view bits = cidr.substr(slash + 1);
  if (bits.empty() || bits.size() > 3) {
    *why = fmt::format("Could not parse [{}]", cidr);
    return std::nullopt;
  }
  int prefix = 0;
  for (char c : bits) {
    if (c < '0' || c > '9') {
      *why = fmt::format("Could not parse [{}]", cidr);
      return std::nullopt;
    }
    prefix = prefix * 10 + (c - '0');
  }
  if (prefix > max) {
    *why = fmt::format("Value [{}] not in range [0,{}]", prefix, max);
    return std::nullopt;
  }
  r.prefix = prefix;
  return r;
}

}  // namespace

Status ValidateCidr(std::string_view cidr) {
  std::string why;
  if (!ParseRange(cidr, &why).has_value()) return Status::InvalidArgument(why);
  return Status::OK();
}

bool AddressInCidr(std::string_view address, std::string_view cidr) {
  std::string why;
  const std::optional<Range> r = ParseRange(cidr, &why);
  if (!r.has_value()) return false;
  std::array<uint8_t, 16> a{};
  if (!ParseAddress(r->family, address, &a)) return false;
  int bits = r->prefix;
  for (size_t i = 0; bits > 0; ++i, bits -= 8) {
    const uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((a[i] & mask) != (r->network[i] & mask)) return false;
  }
  return true;
}

}  // namespace seglog
