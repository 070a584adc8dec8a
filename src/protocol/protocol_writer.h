// ProtocolWriter: the encoder the generated messages write with (the same wire types as
// protocol_reader.h). Output is a byte buffer plus file regions spliced in at byte positions,
// so a Fetch response's record batches go from the page cache to the socket with sendfile(2)
// and are never copied into the buffer.
//
// Writes do not fail one by one: the first value the wire cannot carry (a non-compact string
// over 32767 bytes, null where the version has no null) is kept in status() and the rest of
// the encode is wasted; callers check status() once at the end.
//
// Thread safety: not thread-safe; one writer per encode.
#ifndef SEGLOG_PROTOCOL_PROTOCOL_WRITER_H_
#define SEGLOG_PROTOCOL_PROTOCOL_WRITER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/uuid.h"
#include "protocol/records.h"
#include "protocol/tagged_fields.h"
#include "seglog/status.h"

namespace seglog::protocol {

class ProtocolWriter {
 public:
  // A file region to send after bytes()[0, offset) and before the rest.
  struct Splice {
    size_t offset = 0;
    FileSlice region;
  };

  ProtocolWriter() = default;

  void WriteInt8(int8_t v) { bytes_.push_back(static_cast<uint8_t>(v)); }
  void WriteInt16(int16_t v) { WriteBE(static_cast<uint16_t>(v), 2); }
  void WriteUint16(uint16_t v) { WriteBE(v, 2); }
  void WriteInt32(int32_t v) { WriteBE(static_cast<uint32_t>(v), 4); }
  void WriteUint32(uint32_t v) { WriteBE(v, 4); }
  void WriteInt64(int64_t v) { WriteBE(static_cast<uint64_t>(v), 8); }
  void WriteFloat64(double v);
  void WriteBool(bool v) { bytes_.push_back(v ? 1 : 0); }
  void WriteUuid(const Uuid& v) { bytes_.insert(bytes_.end(), v.bytes.begin(), v.bytes.end()); }
  void WriteUnsignedVarint(uint32_t v);
  void WriteRaw(std::span<const uint8_t> v) { bytes_.insert(bytes_.end(), v.begin(), v.end()); }

  void WriteString(std::string_view field, bool compact, std::string_view v);
  void WriteNullableString(std::string_view field, bool compact,
                           const std::optional<std::string>& v);
  void WriteBytes(bool compact, std::span<const uint8_t> v);
  void WriteNullableBytes(bool compact, const std::optional<std::vector<uint8_t>>& v);
  void WriteRecords(bool compact, const Records& v);
  void WriteNullableRecords(bool compact, const std::optional<Records>& v);
  void WriteArrayLength(bool compact, size_t n);
  void WriteNullArray(bool compact);
  void WriteStructPresence(bool present) { WriteInt8(present ? 1 : -1); }
  // Inside a tagged field a nullable struct's marker is a uvarint: 0 (null) or 1.
  void WriteTaggedStructPresence(bool present) { WriteUnsignedVarint(present ? 1 : 0); }

  // Appends a finished tagged field: tag, size, bytes. REQUIRES: `field` has no splices.
  void WriteTaggedField(uint32_t tag, const ProtocolWriter& field);
  void WriteRawTaggedField(const RawTaggedField& field);

  // Records the first error; later ones are dropped.
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const Status& status() const { return status_; }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t>& mutable_bytes() { return bytes_; }
  const std::vector<Splice>& splices() const { return splices_; }
  // bytes() plus every spliced region.
  int64_t size_bytes() const;
  // The whole encoding in one buffer, spliced regions read from their files (tests and tools;
  // the server sends regions with sendfile instead).
  Status Flatten(std::vector<uint8_t>* out) const;

 private:
  template <typename T>
  void WriteBE(T v, int n) {
    for (int i = n - 1; i >= 0; --i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void WriteLength(bool compact, bool wide, int64_t n);  // n = -1 for null

  std::vector<uint8_t> bytes_;
  std::vector<Splice> splices_;
  Status status_;
};

// Writes `fields` in ascending tag order (KIP-482's order; the order read is kept for equal
// tags): the tagged section of a structure without known tagged fields.
void WriteUnknownTaggedFields(ProtocolWriter* writer, const UnknownTaggedFields& fields);

// Records InvalidArgument("<what><version>") in `writer` and returns writer->status(): the
// generated encoders' answer to a value the version cannot carry.
Status FailEncode(ProtocolWriter* writer, std::string_view what, int16_t version);

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_PROTOCOL_WRITER_H_
