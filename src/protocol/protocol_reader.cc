// ProtocolReader: see protocol_reader.h.
#include "protocol/protocol_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/coding.h"

namespace seglog::protocol {

namespace {
// Kafka's limit for any string, compact or not (its generated readers refuse longer ones).
constexpr int64_t kMaxStringLength = 0x7fff;
}  // namespace

Status ProtocolReader::Truncated(std::string_view field, size_t need) const {
  return Status::Corruption(
      fmt::format("truncated request: {} needs {} bytes at position {}, {} left", field, need, pos_,
                  remaining()));
}

Status ProtocolReader::NullNotAllowed(std::string_view field) const {
  return Status::Corruption(
      fmt::format("non-nullable field {} was serialized as null (position {})", field, pos_));
}

Status ProtocolReader::ReadInt8(std::string_view field, int8_t* out) {
  if (remaining() < 1) return Truncated(field, 1);
  *out = static_cast<int8_t>(bytes_[pos_]);
  pos_ += 1;
  return Status::OK();
}

Status ProtocolReader::ReadInt16(std::string_view field, int16_t* out) {
  if (remaining() < 2) return Truncated(field, 2);
  *out = LoadBEInt16(bytes_.data() + pos_);
  pos_ += 2;
  return Status::OK();
}

Status ProtocolReader::ReadUint16(std::string_view field, uint16_t* out) {
  if (remaining() < 2) return Truncated(field, 2);
  *out = LoadBE16(bytes_.data() + pos_);
  pos_ += 2;
  return Status::OK();
}

Status ProtocolReader::ReadInt32(std::string_view field, int32_t* out) {
  if (remaining() < 4) return Truncated(field, 4);
  *out = LoadBEInt32(bytes_.data() + pos_);
  pos_ += 4;
  return Status::OK();
}

Status ProtocolReader::ReadUint32(std::string_view field, uint32_t* out) {
  if (remaining() < 4) return Truncated(field, 4);
  *out = LoadBE32(bytes_.data() + pos_);
  pos_ += 4;
  return Status::OK();
}

Status ProtocolReader::ReadInt64(std::string_view field, int64_t* out) {
  if (remaining() < 8) return Truncated(field, 8);
  *out = LoadBEInt64(bytes_.data() + pos_);
  pos_ += 8;
  return Status::OK();
}

Status ProtocolReader::ReadFloat64(std::string_view field, double* out) {
  if (remaining() < 8) return Truncated(field, 8);
  *out = std::bit_cast<double>(LoadBE64(bytes_.data() + pos_));
  pos_ += 8;
  return Status::OK();
}

Status ProtocolReader::ReadBool(std::string_view field, bool* out) {
  if (remaining() < 1) return Truncated(field, 1);
  *out = bytes_[pos_] != 0;  // Kafka: any non-zero byte is true
  pos_ += 1;
  return Status::OK();
}

Status ProtocolReader::ReadUuid(std::string_view field, Uuid* out) {
  if (remaining() < 16) return Truncated(field, 16);
  std::memcpy(out->bytes.data(), bytes_.data() + pos_, 16);
  pos_ += 16;
  return Status::OK();
}

Status ProtocolReader::ReadUnsignedVarint(std::string_view field, uint32_t* out) {
  uint32_t value = 0;
  for (int i = 0; i < 5; ++i) {
    if (remaining() < 1) return Truncated(field, 1);
    const uint8_t b = bytes_[pos_++];
    value |= static_cast<uint32_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *out = value;
      return Status::OK();
    }
  }
  return Status::Corruption(
      fmt::format("{}: varint is too long (more than 5 bytes) at position {}", field, pos_ - 5));
}

Status ProtocolReader::ReadLength(std::string_view field, bool compact, bool wide, int64_t* out) {
  int64_t n = 0;
  if (compact) {
    uint32_t u = 0;
    SEGLOG_RETURN_IF_ERROR(ReadUnsignedVarint(field, &u));
    // As Kafka: the uvarint minus one in 32-bit arithmetic; any negative is null.
    n = static_cast<int64_t>(static_cast<int32_t>(u - 1));
  } else if (wide) {
    int32_t v = 0;
    SEGLOG_RETURN_IF_ERROR(ReadInt32(field, &v));
    n = v;
  } else {
    int16_t v = 0;
    SEGLOG_RETURN_IF_ERROR(ReadInt16(field, &v));
    n = v;
  }
  if (n < 0) {
    *out = -1;
    return Status::OK();
  }
  *out = n;
  return Status::OK();
}

Status ProtocolReader::ReadString(std::string_view field, bool compact, std::string* out) {
  std::optional<std::string> v;
  SEGLOG_RETURN_IF_ERROR(ReadNullableString(field, compact, &v));
  if (!v) return NullNotAllowed(field);
  *out = std::move(*v);
  return Status::OK();
}

Status ProtocolReader::ReadNullableString(std::string_view field, bool compact,
                                          std::optional<std::string>* out) {
  int64_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadLength(field, compact, /*wide=*/false, &n));
  if (n < 0) {
    out->reset();
    return Status::OK();
  }
  if (n > kMaxStringLength) {
    return Status::Corruption(fmt::format("string field {} had invalid length {}", field, n));
  }
  if (static_cast<size_t>(n) > remaining()) return Truncated(field, static_cast<size_t>(n));
  out->emplace(reinterpret_cast<const char*>(bytes_.data() + pos_), static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return Status::OK();
}

Status ProtocolReader::ReadBytes(std::string_view field, bool compact, std::vector<uint8_t>* out) {
  std::optional<std::vector<uint8_t>> v;
  SEGLOG_RETURN_IF_ERROR(ReadNullableBytes(field, compact, &v));
  if (!v) return NullNotAllowed(field);
  *out = std::move(*v);
  return Status::OK();
}

Status ProtocolReader::ReadNullableBytes(std::string_view field, bool compact,
                                         std::optional<std::vector<uint8_t>>* out) {
  int64_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadLength(field, compact, /*wide=*/true, &n));
  if (n < 0) {
    out->reset();
    return Status::OK();
  }
  if (static_cast<size_t>(n) > remaining()) return Truncated(field, static_cast<size_t>(n));
  out->emplace(bytes_.begin() + static_cast<ptrdiff_t>(pos_),
               bytes_.begin() + static_cast<ptrdiff_t>(pos_ + static_cast<size_t>(n)));
  pos_ += static_cast<size_t>(n);
  return Status::OK();
}

Status ProtocolReader::ReadRecords(std::string_view field, bool compact, Records* out) {
  std::optional<Records> v;
  SEGLOG_RETURN_IF_ERROR(ReadNullableRecords(field, compact, &v));
  if (!v) return NullNotAllowed(field);
  *out = std::move(*v);
  return Status::OK();
}

Status ProtocolReader::ReadNullableRecords(std::string_view field, bool compact,
                                           std::optional<Records>* out) {
  int64_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadLength(field, compact, /*wide=*/true, &n));
  if (n < 0) {
    out->reset();
    return Status::OK();
  }
  if (static_cast<size_t>(n) > remaining()) return Truncated(field, static_cast<size_t>(n));
  *out = Records::View(bytes_.subspan(pos_, static_cast<size_t>(n)));
  pos_ += static_cast<size_t>(n);
  return Status::OK();
}

Status ProtocolReader::ReadArrayLength(std::string_view field, bool compact, bool nullable,
                                       int32_t* out) {
  int64_t n = 0;
  SEGLOG_RETURN_IF_ERROR(ReadLength(field, compact, /*wide=*/true, &n));
  if (n < 0) {
    if (!nullable) return NullNotAllowed(field);
    *out = -1;
    return Status::OK();
  }
  // Invariant: every element takes at least one byte, so a count above the bytes left lies.
  if (static_cast<size_t>(n) > remaining()) {
    return Status::Corruption(fmt::format(
        "Tried to allocate a collection of size {} for {}, but there are only {} bytes remaining.",
        n, field, remaining()));
  }
  *out = static_cast<int32_t>(n);
  return Status::OK();
}

Status ProtocolReader::ChargeArray(std::string_view field, int32_t n, size_t element_size) {
  if (n <= 0) return Status::OK();
  const size_t bytes = static_cast<size_t>(n) * element_size;
  if (bytes > budget_ - std::min(allocated_, budget_)) {
    return Status::InvalidArgument(fmt::format(
        "Decoding {} elements of {} would take the message past {} bytes of decoded state "
        "({} so far): refused",
        n, field, budget_, allocated_));
  }
  allocated_ += bytes;
  return Status::OK();
}

Status ProtocolReader::ReadStructPresence(std::string_view field, bool* present) {
  int8_t marker = 0;
  SEGLOG_RETURN_IF_ERROR(ReadInt8(field, &marker));
  *present = marker >= 0;
  return Status::OK();
}

Status ProtocolReader::ReadTaggedStructPresence(std::string_view field, bool* present) {
  uint32_t marker = 0;
  SEGLOG_RETURN_IF_ERROR(ReadUnsignedVarint(field, &marker));
  *present = static_cast<int32_t>(marker) > 0;
  return Status::OK();
}

Status ProtocolReader::ReadRaw(std::string_view field, size_t n, std::span<const uint8_t>* out) {
  if (n > remaining()) return Truncated(field, n);
  *out = bytes_.subspan(pos_, n);
  pos_ += n;
  return Status::OK();
}

}  // namespace seglog::protocol
