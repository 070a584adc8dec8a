// Tagged fields (KIP-482): the optional fields at the end of every structure in a flexible
// version. Fields this build does not know are kept as raw bytes and written back unchanged.
//
//   +----------------+------------------------------------------------+
//   | count: uvarint | count x { tag: uvarint, size: uvarint, bytes } |
//   +----------------+------------------------------------------------+
//
// Thread safety: value types.
#ifndef SEGLOG_PROTOCOL_TAGGED_FIELDS_H_
#define SEGLOG_PROTOCOL_TAGGED_FIELDS_H_

#include <cstdint>
#include <vector>

namespace seglog::protocol {

struct RawTaggedField {
  uint32_t tag = 0;
  std::vector<uint8_t> data;
  bool operator==(const RawTaggedField&) const = default;
};

// In the order they were read; written back merged with the known ones by tag.
using UnknownTaggedFields = std::vector<RawTaggedField>;

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_TAGGED_FIELDS_H_
