// RecordBatchView: header accessors and validation of one v2 batch; see seglog/record_batch.h.
#include <fmt/format.h>

#include "base/coding.h"
#include "base/crc32c.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

std::string_view TimestampTypeName(TimestampType type) {
  switch (type) {
    case TimestampType::kNoTimestampType:
      return "NoTimestampType";
    case TimestampType::kCreateTime:
      return "CreateTime";
    case TimestampType::kLogAppendTime:
      return "LogAppendTime";
  }
  return "Unknown";
}

Result<RecordBatchView> RecordBatchView::Parse(Bytes bytes, int64_t position) {
  if (bytes.size() < bl::kRecordBatchOverhead) {
    return Status::Corruption(
        fmt::format("batch at position {}: {} byte(s) available, a v2 batch header needs {}",
                    position, bytes.size(), bl::kRecordBatchOverhead));
  }
  const int8_t magic = static_cast<int8_t>(bytes[bl::kMagicOffset]);
  if (magic != kMagicV2) {
    return Status::Corruption(fmt::format("batch at position {}: magic: expected {}, found {}",
                                          position, kMagicV2, magic));
  }
  const int32_t length = LoadBEInt32(bytes.data() + bl::kLengthOffset);
  const int64_t size = int64_t{length} + static_cast<int64_t>(bl::kLogOverhead);
  if (size < static_cast<int64_t>(bl::kRecordBatchOverhead)) {
    return Status::Corruption(fmt::format(
        "batch at position {}: length field {} gives a batch of {} bytes, below the {}-byte header",
        position, length, size, bl::kRecordBatchOverhead));
  }
  if (size > static_cast<int64_t>(bytes.size())) {
    return Status::Corruption(
        fmt::format("batch at position {}: length field {} gives a batch of {} bytes, but only {} "
                    "are available",
                    position, length, size, bytes.size()));
  }
  return RecordBatchView(bytes.first(static_cast<size_t>(size)), position);
}

int64_t RecordBatchView::base_offset() const {
  return LoadBEInt64(bytes_.data() + bl::kBaseOffsetOffset);
}
int32_t RecordBatchView::length_field() const {
  return LoadBEInt32(bytes_.data() + bl::kLengthOffset);
}
int32_t RecordBatchView::partition_leader_epoch() const {
  return LoadBEInt32(bytes_.data() + bl::kPartitionLeaderEpochOffset);
}
int8_t RecordBatchView::magic() const { return static_cast<int8_t>(bytes_[bl::kMagicOffset]); }
uint32_t RecordBatchView::stored_crc() const { return LoadBE32(bytes_.data() + bl::kCrcOffset); }
int16_t RecordBatchView::attributes() const {
  return LoadBEInt16(bytes_.data() + bl::kAttributesOffset);
}
int32_t RecordBatchView::last_offset_delta() const {
  return LoadBEInt32(bytes_.data() + bl::kLastOffsetDeltaOffset);
}
int64_t RecordBatchView::base_timestamp() const {
  return LoadBEInt64(bytes_.data() + bl::kBaseTimestampOffset);
}
int64_t RecordBatchView::max_timestamp() const {
  return LoadBEInt64(bytes_.data() + bl::kMaxTimestampOffset);
}
int64_t RecordBatchView::producer_id() const {
  return LoadBEInt64(bytes_.data() + bl::kProducerIdOffset);
}
int16_t RecordBatchView::producer_epoch() const {
  return LoadBEInt16(bytes_.data() + bl::kProducerEpochOffset);
}
int32_t RecordBatchView::base_sequence() const {
  return LoadBEInt32(bytes_.data() + bl::kBaseSequenceOffset);
}
int32_t RecordBatchView::records_count() const {
  return LoadBEInt32(bytes_.data() + bl::kRecordsCountOffset);
}

int64_t RecordBatchView::last_offset() const {
  return WrappingAdd(base_offset(), last_offset_delta());
}
int64_t RecordBatchView::next_offset() const { return WrappingAdd(last_offset(), 1); }

int32_t RecordBatchView::last_sequence() const {
  const int32_t base = base_sequence();
  if (base == kNoSequence) return kNoSequence;
  const int32_t delta = last_offset_delta();
  // Sequences wrap from INT32_MAX to 0 (DefaultRecordBatch.incrementSequence).
  if (delta >= 0 && base > INT32_MAX - delta) return delta - (INT32_MAX - base) - 1;
  return static_cast<int32_t>(static_cast<uint32_t>(base) + static_cast<uint32_t>(delta));
}

Result<CompressionType> RecordBatchView::compression() const {
  const int id = compression_id();
  if (id > static_cast<int>(CompressionType::kZstd)) {
    return Status::Corruption(fmt::format(
        "batch at position {}: attributes: unknown compression type id {} (expected 0-4)",
        position_, id));
  }
  return static_cast<CompressionType>(id);
}

TimestampType RecordBatchView::timestamp_type() const {
  return (attributes() & bl::kTimestampTypeMask) ? TimestampType::kLogAppendTime
                                                 : TimestampType::kCreateTime;
}
bool RecordBatchView::is_transactional() const { return attributes() & bl::kTransactionalFlagMask; }
bool RecordBatchView::is_control() const { return attributes() & bl::kControlFlagMask; }
bool RecordBatchView::has_delete_horizon() const {
  return attributes() & bl::kDeleteHorizonFlagMask;
}
std::optional<int64_t> RecordBatchView::delete_horizon_ms() const {
  if (!has_delete_horizon()) return std::nullopt;
  return base_timestamp();
}

uint32_t RecordBatchView::ComputeCrc() const {
  return Crc32c(bytes_.subspan(bl::kAttributesOffset));
}

Status RecordBatchView::ValidateCrc() const {
  const uint32_t computed = ComputeCrc();
  if (computed != stored_crc()) {
    return Status::Corruption(fmt::format(
        "batch at position {} (base offset {}, {} bytes): crc: stored {} (0x{:08x}), computed {} "
        "(0x{:08x})",
        position_, base_offset(), size_in_bytes(), stored_crc(), stored_crc(), computed, computed));
  }
  return Status::OK();
}

Status RecordBatchView::ValidateDeep(const ReadOptions& options) const {
  SEGLOG_RETURN_IF_ERROR(ValidateCrc());
  SEGLOG_RETURN_IF_ERROR(compression().status());
  const int32_t count = records_count();
  const int32_t delta = last_offset_delta();
  if (count < 0) {
    return Status::Corruption(fmt::format(
        "batch at position {}: recordsCount: found {}, must be >= 0", position_, count));
  }
  if (delta < 0) {
    return Status::Corruption(fmt::format(
        "batch at position {}: lastOffsetDelta: found {}, must be >= 0", position_, delta));
  }
  if (count > 0 && int64_t{count} > int64_t{delta} + 1) {
    return Status::Corruption(
        fmt::format("batch at position {}: recordsCount {} does not fit lastOffsetDelta {} (at "
                    "most {} records)",
                    position_, count, delta, int64_t{delta} + 1));
  }
  RecordIterator it(*this, options);
  int32_t last_delta = -1;
  while (it.Next()) {
    const int64_t offset_delta = WrappingSub(it.record().offset, base_offset());
    if (offset_delta <= last_delta || offset_delta > delta) {
      return Status::Corruption(fmt::format(
          "batch at position {}: record {}: offsetDelta {} must be above {} and at most "
          "lastOffsetDelta {}",
          position_, it.count() - 1, offset_delta, last_delta, delta));
    }
    last_delta = static_cast<int32_t>(offset_delta);
  }
  return it.status();
}

}  // namespace seglog
