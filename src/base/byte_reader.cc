// ByteReader; see byte_reader.h.
#include "base/byte_reader.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "base/varint.h"

namespace seglog {

Status ByteReader::Need(std::string_view field, size_t n) const {
  if (remaining() >= n) return Status::OK();
  return Status::Corruption(fmt::format("truncated {} at byte {}: need {} byte(s), found {}", field,
                                        position(), n, remaining()));
}

Status ByteReader::ReadInt16(std::string_view field, int16_t* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, 2));
  *out = LoadBEInt16(bytes_.data() + pos_);
  pos_ += 2;
  return Status::OK();
}

Status ByteReader::ReadInt32(std::string_view field, int32_t* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, 4));
  *out = LoadBEInt32(bytes_.data() + pos_);
  pos_ += 4;
  return Status::OK();
}

Status ByteReader::ReadUInt32(std::string_view field, uint32_t* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, 4));
  *out = LoadBE32(bytes_.data() + pos_);
  pos_ += 4;
  return Status::OK();
}

Status ByteReader::ReadInt64(std::string_view field, int64_t* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, 8));
  *out = LoadBEInt64(bytes_.data() + pos_);
  pos_ += 8;
  return Status::OK();
}

Status ByteReader::VarError(VarintError err, std::string_view field, int max_bytes) const {
  if (err == VarintError::kTruncated) {
    return Status::Corruption(
        fmt::format("truncated {} at byte {}: varint not terminated within the {} byte(s) left",
                    field, position(), remaining()));
  }
  return Status::Corruption(fmt::format("invalid {} at byte {}: varint longer than {} bytes", field,
                                        position(), max_bytes));
}

Status ByteReader::Skip(std::string_view field, size_t n) {
  SEGLOG_RETURN_IF_ERROR(Need(field, n));
  pos_ += n;
  return Status::OK();
}

Status ByteReader::ReadInt32NullableBytes(std::string_view len_field, std::string_view field,
                                          std::optional<std::span<const uint8_t>>* out) {
  int32_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadInt32(len_field, &n));
  return NullableBytesOfLength(n, field, out);
}

}  // namespace seglog
