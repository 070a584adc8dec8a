// ProtocolReader: the bounds-checked reader the generated messages decode with. Kafka's wire
// types (docs/compatibility.md, "The protocol's primitive types"): big-endian fixed-width
// integers, unsigned varints for compact lengths and tags, int16- or uvarint-prefixed strings,
// int32- or uvarint-prefixed bytes and arrays, with -1 (compact: 0) meaning null.
//
// Every read that would pass the end of the input, and every length that lies (negative where
// null is not allowed, or longer than what is left), fails with Corruption naming the field.
// Nothing is allocated from a length before that length is checked against the bytes left.
//
// Thread safety: not thread-safe; one reader per decode.
#ifndef SEGLOG_PROTOCOL_PROTOCOL_READER_H_
#define SEGLOG_PROTOCOL_PROTOCOL_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"
#include "protocol/records.h"
#include "protocol/tagged_fields.h"
#include "seglog/status.h"

namespace seglog::protocol {

class ProtocolReader {
 public:
  explicit ProtocolReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }

  Status ReadInt8(std::string_view field, int8_t* out);
  Status ReadInt16(std::string_view field, int16_t* out);
  Status ReadUint16(std::string_view field, uint16_t* out);
  Status ReadInt32(std::string_view field, int32_t* out);
  Status ReadUint32(std::string_view field, uint32_t* out);
  Status ReadInt64(std::string_view field, int64_t* out);
  Status ReadFloat64(std::string_view field, double* out);
  Status ReadBool(std::string_view field, bool* out);
  Status ReadUuid(std::string_view field, Uuid* out);
  // Kafka's UNSIGNED_VARINT: at most 5 bytes, the fifth with no more than 4 bits.
  Status ReadUnsignedVarint(std::string_view field, uint32_t* out);

  // `compact`: the flexible-version (uvarint length + 1) form. Null is an error here.
  Status ReadString(std::string_view field, bool compact, std::string* out);
  Status ReadNullableString(std::string_view field, bool compact, std::optional<std::string>* out);
  Status ReadBytes(std::string_view field, bool compact, std::vector<uint8_t>* out);
  Status ReadNullableBytes(std::string_view field, bool compact,
                           std::optional<std::vector<uint8_t>>* out);
  // A view of the frame: no copy (records.h).
  Status ReadRecords(std::string_view field, bool compact, Records* out);
  Status ReadNullableRecords(std::string_view field, bool compact, std::optional<Records>* out);
  // An array's element count: -1 for null (only when `nullable`), else 0..remaining().
  Status ReadArrayLength(std::string_view field, bool compact, bool nullable, int32_t* out);
  // Counts an array of `n` elements of `element_size` bytes against the allocation budget
  // (generated decoders call it before they reserve the array). A message decodes to structs
  // larger than its wire form (an element of 3 bytes may become 100), so the budget bounds
  // what a request costs in memory: past it, InvalidArgument naming the field.
  Status ChargeArray(std::string_view field, int32_t n, size_t element_size);
  // The budget for ChargeArray (unbounded until set), and what was charged so far.
  void set_allocation_budget(size_t bytes) { budget_ = bytes; }
  size_t allocated() const { return allocated_; }
  // A nullable struct's marker: int8 -1 (null) or 1.
  Status ReadStructPresence(std::string_view field, bool* present);
  // A nullable struct's marker inside a tagged field: a uvarint, 0 (null) or 1. Like Kafka's
  // classes, any value that is positive as an int32 means present.
  Status ReadTaggedStructPresence(std::string_view field, bool* present);

  // The next `n` bytes as a view, and moves past them.
  Status ReadRaw(std::string_view field, size_t n, std::span<const uint8_t>* out);

 private:
  // Null (-1), or a length within remaining(), from an int16/int32 or a compact uvarint.
  Status ReadLength(std::string_view field, bool compact, bool wide, int64_t* out);
  Status Truncated(std::string_view field, size_t need) const;
  Status NullNotAllowed(std::string_view field) const;

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  size_t budget_ = SIZE_MAX;
  size_t allocated_ = 0;
};

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_PROTOCOL_READER_H_
