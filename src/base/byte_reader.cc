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

Status ByteReader::ReadInt8(std::string_view field, int8_t* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, 1));
  *out = static_cast<int8_t>(bytes_[pos_]);
  pos_ += 1;
  return Status::OK();
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

namespace {
Status VarError(VarintError err, std::string_view field, int64_t position, int max_bytes,
                size_t remaining) {
  if (err == VarintError::kTruncated) {
    return Status::Corruption(
        fmt::format("truncated {} at byte {}: varint not terminated within the {} byte(s) left",
                    field, position, remaining));
  }
  return Status::Corruption(fmt::format("invalid {} at byte {}: varint longer than {} bytes", field,
                                        position, max_bytes));
}
}  // namespace

Status ByteReader::ReadVarint(std::string_view field, int32_t* out) {
  const uint8_t* p = bytes_.data() + pos_;
  int len = 0;
  VarintError err = DecodeVarint(p, bytes_.data() + bytes_.size(), out, &len);
  if (err != VarintError::kOk) {
    return VarError(err, field, position(), kMaxVarintBytes, remaining());
  }
  pos_ += static_cast<size_t>(len);
  return Status::OK();
}

Status ByteReader::ReadVarlong(std::string_view field, int64_t* out) {
  const uint8_t* p = bytes_.data() + pos_;
  int len = 0;
  VarintError err = DecodeVarlong(p, bytes_.data() + bytes_.size(), out, &len);
  if (err != VarintError::kOk) {
    return VarError(err, field, position(), kMaxVarlongBytes, remaining());
  }
  pos_ += static_cast<size_t>(len);
  return Status::OK();
}

Status ByteReader::ReadBytes(std::string_view field, size_t n, std::span<const uint8_t>* out) {
  SEGLOG_RETURN_IF_ERROR(Need(field, n));
  *out = bytes_.subspan(pos_, n);
  pos_ += n;
  return Status::OK();
}

Status ByteReader::Skip(std::string_view field, size_t n) {
  SEGLOG_RETURN_IF_ERROR(Need(field, n));
  pos_ += n;
  return Status::OK();
}

Status ByteReader::NullableBytesOfLength(int32_t n, std::string_view field,
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

Status ByteReader::ReadVarintNullableBytes(std::string_view len_field, std::string_view field,
                                           std::optional<std::span<const uint8_t>>* out) {
  int32_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadVarint(len_field, &n));
  return NullableBytesOfLength(n, field, out);
}

Status ByteReader::ReadInt32NullableBytes(std::string_view len_field, std::string_view field,
                                          std::optional<std::span<const uint8_t>>* out) {
  int32_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadInt32(len_field, &n));
  return NullableBytesOfLength(n, field, out);
}

}  // namespace seglog
