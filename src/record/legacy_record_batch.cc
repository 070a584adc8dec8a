// LegacyRecordBatchView and LegacyRecordIterator; see legacy_record_batch.h.
//
// Every length read from the bytes is checked against the bytes actually present before it is
// used, and nothing is allocated from a stored length: the decompressed stream grows only as the
// codec produces real bytes (bounded by ReadOptions::max_decompressed_bytes), and the list of
// inner entries grows by one per whole entry found in that stream.
#include "record/legacy_record_batch.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "base/byte_reader.h"
#include "base/coding.h"
#include "base/crc32c.h"
#include "record/compression.h"

namespace seglog {

namespace ll = legacy_layout;

namespace {

// Parses one entry from the start of `bytes`. `where` names it in errors ("batch at position
// 40" or "batch at position 0, inner message 2 at decompressed byte 52"); `position` is the
// absolute position (or decompressed byte index) of bytes[0].
Status ParseEntry(Bytes bytes, int64_t position, std::string_view where, Bytes* entry,
                  NullableBytes* key, NullableBytes* value) {
  if (bytes.size() <= ll::kMagicOffset) {
    return Status::Corruption(
        fmt::format("{}: entry header: expected {} bytes (offset, size, crc, magic), found {}",
                    where, ll::kMagicOffset + ll::kMagicLength, bytes.size()));
  }
  const int32_t size = LoadBEInt32(bytes.data() + ll::kSizeOffset);
  const int8_t magic = static_cast<int8_t>(bytes[ll::kMagicOffset]);
  if (magic != kMagicV0 && magic != kMagicV1) {
    return Status::Corruption(
        fmt::format("{}: magic: expected {} or {}, found {}", where, kMagicV0, kMagicV1, magic));
  }
  const int32_t min_size = magic == kMagicV0 ? ll::kRecordOverheadV0 : ll::kRecordOverheadV1;
  if (size < min_size) {
    return Status::Corruption(fmt::format("{}: size: expected >= {} for magic {}, found {}", where,
                                          min_size, magic, size));
  }
  const size_t available = bytes.size() - ll::kLogOverhead;
  if (static_cast<uint64_t>(size) > available) {
    return Status::Corruption(
        fmt::format("{}: size: expected <= {} (the bytes available after the prefix), found {}",
                    where, available, size));
  }
  *entry = bytes.first(ll::kLogOverhead + static_cast<size_t>(size));
  const size_t key_size_offset = magic == kMagicV0 ? ll::kKeySizeOffsetV0 : ll::kKeySizeOffsetV1;
  ByteReader r(entry->subspan(key_size_offset), position + static_cast<int64_t>(key_size_offset));
  auto read_nullable = [&r](std::string_view len_field, std::string_view field,
                            NullableBytes* out) {
    return r.ReadInt32NullableBytes(len_field, field, out);
  };
  // Bytes after the value are covered by the CRC but otherwise ignored, as in Kafka.
  SEGLOG_RETURN_IF_ERROR(read_nullable("keyLength", "key", key).WithContext(where));
  SEGLOG_RETURN_IF_ERROR(read_nullable("valueLength", "value", value).WithContext(where));
  return Status::OK();
}

}  // namespace

Result<LegacyRecordBatchView> LegacyRecordBatchView::Parse(Bytes bytes, int64_t position) {
  Bytes entry;
  NullableBytes key, value;
  SEGLOG_RETURN_IF_ERROR(ParseEntry(bytes, position, fmt::format("batch at position {}", position),
                                    &entry, &key, &value));
  return LegacyRecordBatchView(entry, position, key, value);
}

int64_t LegacyRecordBatchView::offset() const {
  return LoadBEInt64(bytes_.data() + ll::kOffsetOffset);
}
int32_t LegacyRecordBatchView::size_field() const {
  return LoadBEInt32(bytes_.data() + ll::kSizeOffset);
}
uint32_t LegacyRecordBatchView::stored_crc() const {
  return LoadBE32(bytes_.data() + ll::kCrcOffset);
}
int8_t LegacyRecordBatchView::magic() const {
  return static_cast<int8_t>(bytes_[ll::kMagicOffset]);
}
int8_t LegacyRecordBatchView::attributes() const {
  return static_cast<int8_t>(bytes_[ll::kAttributesOffset]);
}
int64_t LegacyRecordBatchView::timestamp() const {
  if (magic() == kMagicV0) return kNoTimestamp;
  return LoadBEInt64(bytes_.data() + ll::kTimestampOffset);  // size >= 22 checked by Parse
}

Result<CompressionType> LegacyRecordBatchView::compression() const {
  const int id = compression_id();
  if (id > static_cast<int>(CompressionType::kLz4)) {
    return Status::Corruption(
        fmt::format("batch at position {}: compression codec: expected 0..3 for magic {}, found {}",
                    position_, magic(), id));
  }
  return static_cast<CompressionType>(id);
}

TimestampType LegacyRecordBatchView::timestamp_type() const {
  if (magic() == kMagicV0) return TimestampType::kNoTimestampType;
  return (attributes() & ll::kTimestampTypeMask) ? TimestampType::kLogAppendTime
                                                 : TimestampType::kCreateTime;
}

uint32_t LegacyRecordBatchView::ComputeCrc() const {
  return Crc32Ieee(bytes_.subspan(ll::kMagicOffset));
}

Status LegacyRecordBatchView::ValidateCrc() const {
  const uint32_t computed = ComputeCrc();
  if (computed != stored_crc()) {
    return Status::Corruption(fmt::format(
        "batch at position {} (offset {}, magic {}, {} bytes): crc: expected 0x{:08x} (computed), "
        "found 0x{:08x} (stored)",
        position_, offset(), magic(), size_in_bytes(), computed, stored_crc()));
  }
  return Status::OK();
}

LegacyRecordIterator::LegacyRecordIterator(const LegacyRecordBatchView& entry,
                                           const ReadOptions& options)
    : entry_(entry) {
  Status s = LoadInner(options);
  if (!s.ok()) Fail(s);
}

void LegacyRecordIterator::Fail(const Status& s) {
  status_ = s;
  inner_.clear();
  offsets_.clear();
  done_ = true;
}

Status LegacyRecordIterator::LoadInner(const ReadOptions& options) {
  auto codec = entry_.compression();
  if (!codec.ok()) return codec.status();
  if (*codec == CompressionType::kNone) {
    inner_.push_back(entry_);
    offsets_.push_back(entry_.offset());
    return Status::OK();
  }

  // A compressed wrapper (AbstractLegacyRecordBatch.DeepRecordsIterator).
  const std::string where = fmt::format("batch at position {}", entry_.position());
  const NullableBytes value = entry_.value();
  if (!value.has_value()) {
    return Status::Corruption(
        fmt::format("{}: wrapper value: expected compressed inner messages, found null", where));
  }
  const int64_t value_position =
      entry_.position() + static_cast<int64_t>(value->data() - entry_.bytes().data());
  Status s = (*codec == CompressionType::kLz4 && entry_.magic() == kMagicV0)
                 ? Lz4Decompress(*value, options.max_decompressed_bytes, &decompressed_,
                                 /*legacy_v0_header_checksum=*/true)
                 : Decompress(*codec, *value, options.max_decompressed_bytes, &decompressed_);
  if (!s.ok()) {
    return s.WithContext(fmt::format("{}: wrapper value ({}) at byte {}", where,
                                     CompressionName(*codec), value_position));
  }

  // Inner entries fill the decompressed stream exactly. Kafka ends the stream silently at a
  // partial trailing entry; seglog calls it corrupt, since a writer never produces one.
  const Bytes stream(decompressed_);
  size_t pos = 0;
  while (pos < stream.size()) {
    const std::string inner_where =
        fmt::format("{}, inner message {} at decompressed byte {}", where, inner_.size(), pos);
    Bytes bytes;
    NullableBytes key, val;
    SEGLOG_RETURN_IF_ERROR(ParseEntry(stream.subspan(pos), static_cast<int64_t>(pos), inner_where,
                                      &bytes, &key, &val));
    LegacyRecordBatchView inner(bytes, static_cast<int64_t>(pos), key, val);
    if (inner.is_compressed()) {
      return Status::Corruption(fmt::format(
          "{}: compression codec: expected 0 (inner messages must not be compressed), found {}",
          inner_where, inner.compression_id()));
    }
    inner_.push_back(inner);
    pos += bytes.size();
  }
  if (inner_.empty()) {
    return Status::Corruption(fmt::format(
        "{}: wrapper value: expected at least one inner message, found an empty stream", where));
  }

  offsets_.reserve(inner_.size());
  if (entry_.magic() == kMagicV0) {  // inner offsets are absolute
    for (const LegacyRecordBatchView& m : inner_) offsets_.push_back(m.offset());
    return Status::OK();
  }
  // Magic 1: inner offsets are relative; the wrapper holds the absolute offset of the last one.
  const int64_t wrapper_offset = entry_.offset();
  const int64_t last_relative = inner_.back().offset();
  int64_t base = 0;  // wrapper offset 0: data from some librdkafka versions, taken as is
  if (wrapper_offset != 0) {
    if (wrapper_offset < last_relative ||
        __builtin_sub_overflow(wrapper_offset, last_relative, &base)) {
      return Status::Corruption(fmt::format(
          "{}: wrapper offset: expected 0 or >= the last inner relative offset {}, found {}", where,
          last_relative, wrapper_offset));
    }
  }
  for (size_t i = 0; i < inner_.size(); ++i) {
    int64_t absolute = 0;
    if (__builtin_add_overflow(base, inner_[i].offset(), &absolute)) {
      return Status::Corruption(fmt::format(
          "{}, inner message {} at decompressed byte {}: relative offset: expected at most {}, "
          "found {}",
          where, i, inner_[i].position(), INT64_MAX - base, inner_[i].offset()));
    }
    offsets_.push_back(absolute);
  }
  return Status::OK();
}

bool LegacyRecordIterator::Next() {
  if (done_) return false;
  if (static_cast<size_t>(returned_) == inner_.size()) {
    done_ = true;
    return false;
  }
  const LegacyRecordBatchView& m = inner_[static_cast<size_t>(returned_)];
  if (!entry_.is_compressed()) {
    timestamp_type_ = m.timestamp_type();
    record_.timestamp = m.timestamp();
  } else if (m.magic() == kMagicV0) {
    // LegacyRecord.timestamp()/timestampType(): magic 0 has none, whatever the wrapper says.
    timestamp_type_ = TimestampType::kNoTimestampType;
    record_.timestamp = kNoTimestamp;
  } else {
    timestamp_type_ = entry_.timestamp_type();
    record_.timestamp =
        timestamp_type_ == TimestampType::kLogAppendTime ? entry_.timestamp() : m.timestamp();
  }
  record_.offset = offsets_[static_cast<size_t>(returned_)];
  record_.sequence = kNoSequence;
  record_.attributes = m.attributes();
  record_.size_in_bytes = static_cast<int32_t>(m.size_in_bytes());
  record_.key = m.key();
  record_.value = m.value();
  record_.headers = {};
  ++returned_;
  return true;
}

}  // namespace seglog
