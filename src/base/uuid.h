// Uuid: Kafka's 128-bit ids (topic ids, directory ids, cluster ids) and their text form, URL-safe
// Base64 without padding - 22 characters (Kafka's Uuid.toString; docs/format/checkpoints.md,
// "partition.metadata").
// Thread safety: a value type.
#ifndef SEGLOG_BASE_UUID_H_
#define SEGLOG_BASE_UUID_H_

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "seglog/result.h"

namespace seglog {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // A random version-4 id that is neither all zeros nor Kafka's reserved metadata topic id
  // (0...01) and whose text does not start with '-' (Kafka's Uuid.randomUuid rules).
  static Uuid Random();
  // The 22-character text; InvalidArgument naming the text when it is not 16 bytes of URL-safe
  // Base64.
  static Result<Uuid> Parse(std::string_view text);
  std::string ToString() const;
  bool IsZero() const;
  // Kafka's Uuid(most, least): the most significant half is bytes[0, 8).
  static Uuid FromHalves(uint64_t most, uint64_t least);
  bool operator==(const Uuid&) const = default;
  // By bytes, for ordered maps.
  auto operator<=>(const Uuid&) const = default;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_UUID_H_
