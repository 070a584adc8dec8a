// ProtocolWriter and Records: see protocol_writer.h and records.h.
#include "protocol/protocol_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace seglog::protocol {

bool Records::operator==(const Records& other) const {
  if (size_bytes() != other.size_bytes()) return false;
  std::vector<uint8_t> a, b;
  for (const Chunk& c : chunks_) {
    if (c.is_file())
      return chunks_.size() == other.chunks_.size() && chunks_.size() == 1 &&
             other.chunks_[0].is_file() && c.region == other.chunks_[0].region;
    a.insert(a.end(), c.bytes.begin(), c.bytes.end());
  }
  for (const Chunk& c : other.chunks_) {
    if (c.is_file()) return false;
    b.insert(b.end(), c.bytes.begin(), c.bytes.end());
  }
  return a == b;
}

void ProtocolWriter::WriteFloat64(double v) { WriteBE(std::bit_cast<uint64_t>(v), 8); }

void ProtocolWriter::WriteUnsignedVarint(uint32_t v) {
  while (v >= 0x80) {
    bytes_.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  bytes_.push_back(static_cast<uint8_t>(v));
}

void ProtocolWriter::WriteLength(bool compact, bool wide, int64_t n) {
  if (compact) {
    WriteUnsignedVarint(static_cast<uint32_t>(n + 1));
  } else if (wide) {
    WriteInt32(static_cast<int32_t>(n));
  } else {
    WriteInt16(static_cast<int16_t>(n));
  }
}

void ProtocolWriter::WriteString(std::string_view field, bool compact, std::string_view v) {
  if (v.size() > 0x7fff) {
    Fail(Status::InvalidArgument(
        fmt::format("string field {} had invalid length {}", field, v.size())));
    return;
  }
  WriteLength(compact, /*wide=*/false, static_cast<int64_t>(v.size()));
  bytes_.insert(bytes_.end(), v.begin(), v.end());
}

void ProtocolWriter::WriteNullableString(std::string_view field, bool compact,
                                         const std::optional<std::string>& v) {
  if (!v) {
    WriteLength(compact, /*wide=*/false, -1);
    return;
  }
  WriteString(field, compact, *v);
}

void ProtocolWriter::WriteBytes(bool compact, std::span<const uint8_t> v) {
  WriteLength(compact, /*wide=*/true, static_cast<int64_t>(v.size()));
  WriteRaw(v);
}

void ProtocolWriter::WriteNullableBytes(bool compact,
                                        const std::optional<std::vector<uint8_t>>& v) {
  if (!v) {
    WriteLength(compact, /*wide=*/true, -1);
    return;
  }
  WriteBytes(compact, *v);
}

void ProtocolWriter::WriteRecords(bool compact, const Records& v) {
  WriteLength(compact, /*wide=*/true, v.size_bytes());
  for (const Records::Chunk& c : v.chunks()) {
    if (c.is_file()) {
      splices_.push_back(Splice{bytes_.size(), c.region});
    } else {
      WriteRaw(c.bytes);
    }
  }
}

void ProtocolWriter::WriteNullableRecords(bool compact, const std::optional<Records>& v) {
  if (!v) {
    WriteLength(compact, /*wide=*/true, -1);
    return;
  }
  WriteRecords(compact, *v);
}

void ProtocolWriter::WriteArrayLength(bool compact, size_t n) {
  WriteLength(compact, /*wide=*/true, static_cast<int64_t>(n));
}

void ProtocolWriter::WriteNullArray(bool compact) { WriteLength(compact, /*wide=*/true, -1); }

void ProtocolWriter::WriteTaggedField(uint32_t tag, const ProtocolWriter& field) {
  // Invariant: tagged fields never hold records, so they have no splices.
  if (!field.splices_.empty()) {
    Fail(Status::InvalidArgument(fmt::format("tagged field {} cannot hold file regions", tag)));
  }
  if (!field.status_.ok()) Fail(field.status_);
  WriteUnsignedVarint(tag);
  WriteUnsignedVarint(static_cast<uint32_t>(field.bytes_.size()));
  WriteRaw(field.bytes_);
}

void ProtocolWriter::WriteRawTaggedField(const RawTaggedField& field) {
  WriteUnsignedVarint(field.tag);
  WriteUnsignedVarint(static_cast<uint32_t>(field.data.size()));
  WriteRaw(field.data);
}

int64_t ProtocolWriter::size_bytes() const {
  int64_t n = static_cast<int64_t>(bytes_.size());
  for (const Splice& s : splices_) n += s.region.length;
  return n;
}

Status ProtocolWriter::Flatten(std::vector<uint8_t>* out) const {
  out->clear();
  out->reserve(static_cast<size_t>(size_bytes()));
  size_t from = 0;
  for (const Splice& s : splices_) {
    out->insert(out->end(), bytes_.begin() + static_cast<ptrdiff_t>(from),
                bytes_.begin() + static_cast<ptrdiff_t>(s.offset));
    from = s.offset;
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(s.region.length));
    SEGLOG_RETURN_IF_ERROR(s.region.file->ReadAt(
        s.region.position,
        std::span<uint8_t>(out->data() + at, static_cast<size_t>(s.region.length))));
  }
  out->insert(out->end(), bytes_.begin() + static_cast<ptrdiff_t>(from), bytes_.end());
  return Status::OK();
}

void WriteUnknownTaggedFields(ProtocolWriter* writer, const UnknownTaggedFields& fields) {
  std::vector<const RawTaggedField*> sorted;
  sorted.reserve(fields.size());
  for (const RawTaggedField& f : fields) sorted.push_back(&f);
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const RawTaggedField* a, const RawTaggedField* b) { return a->tag < b->tag; });
  for (const RawTaggedField* f : sorted) writer->WriteRawTaggedField(*f);
}

Status FailEncode(ProtocolWriter* writer, std::string_view what, int16_t version) {
  writer->Fail(Status::InvalidArgument(fmt::format("{}{}", what, version)));
  return writer->status();
}

}  // namespace seglog::protocol
