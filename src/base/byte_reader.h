// ByteReader: a cursor over untrusted bytes that never reads past the end.
//
// Every read checks the bytes remaining first and, when they are not there, returns a
// Corruption Status naming the field, the absolute byte position, and how many bytes were
// needed and found. Positions are reported relative to `base_position` (for example the
// offset of a batch inside its segment file), so a message points at the byte on disk.
//
// Thread safety: not thread-safe; a reader is a cursor owned by one caller.
#ifndef SEGLOG_BASE_BYTE_READER_H_
#define SEGLOG_BASE_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/varint.h"
#include "seglog/status.h"

namespace seglog {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes, int64_t base_position = 0)
      : bytes_(bytes), base_position_(base_position) {}

  size_t offset() const { return pos_; }  // within the span
  int64_t position() const { return base_position_ + static_cast<int64_t>(pos_); }  // absolute
  size_t remaining() const { return bytes_.size() - pos_; }
  bool empty() const { return pos_ == bytes_.size(); }

  Status ReadInt8(std::string_view field, int8_t* out) {
    if (remaining() < 1) return Need(field, 1);
    *out = static_cast<int8_t>(bytes_[pos_]);
    pos_ += 1;
    return Status::OK();
  }
  Status ReadInt16(std::string_view field, int16_t* out);
  Status ReadInt32(std::string_view field, int32_t* out);
  Status ReadInt64(std::string_view field, int64_t* out);
  Status ReadUInt32(std::string_view field, uint32_t* out);
  // Zigzag varint (at most 5 bytes) and varlong (at most 10 bytes).
  // Inline: a record is mostly one-byte varints, read millions of times a second.
  Status ReadVarint(std::string_view field, int32_t* out) {
    int len = 0;
    const VarintError err =
        DecodeVarint(bytes_.data() + pos_, bytes_.data() + bytes_.size(), out, &len);
    if (err != VarintError::kOk) return VarError(err, field, kMaxVarintBytes);
    pos_ += static_cast<size_t>(len);
    return Status::OK();
  }
  Status ReadVarlong(std::string_view field, int64_t* out) {
    int len = 0;
    const VarintError err =
        DecodeVarlong(bytes_.data() + pos_, bytes_.data() + bytes_.size(), out, &len);
    if (err != VarintError::kOk) return VarError(err, field, kMaxVarlongBytes);
    pos_ += static_cast<size_t>(len);
    return Status::OK();
  }
  // A view of the next n bytes, without copying.
  Status ReadBytes(std::string_view field, size_t n, std::span<const uint8_t>* out) {
    if (remaining() < n) return Need(field, n);
    *out = bytes_.subspan(pos_, n);
    pos_ += n;
    return Status::OK();
  }
  Status Skip(std::string_view field, size_t n);
  // A length-prefixed byte array where any negative length means null (Kafka's rule): the
  // length as a zigzag varint (v2 records) or as an int32 (legacy messages).
  Status ReadVarintNullableBytes(std::string_view len_field, std::string_view field,
                                 std::optional<std::span<const uint8_t>>* out) {
    int32_t n = 0;
    SEGLOG_RETURN_IF_ERROR(ReadVarint(len_field, &n));
    return NullableBytesOfLength(n, field, out);
  }
  Status ReadInt32NullableBytes(std::string_view len_field, std::string_view field,
                                std::optional<std::span<const uint8_t>>* out);

 private:
  Status Need(std::string_view field, size_t n) const;
  Status NullableBytesOfLength(int32_t n, std::string_view field,
                               std::optional<std::span<const uint8_t>>* out) {
    if (n < 0) {
      out->reset();
      return Status::OK();
    }
    std::span<const uint8_t> b;
    SEGLOG_RETURN_IF_ERROR(ReadBytes(field, static_cast<size_t>(n), &b));
    *out = b;
    return Status::OK();
  }
  // The error of a failed varint read at the current position.
  Status VarError(VarintError err, std::string_view field, int max_bytes) const;

  std::span<const uint8_t> bytes_;
  int64_t base_position_;
  size_t pos_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_BYTE_READER_H_
