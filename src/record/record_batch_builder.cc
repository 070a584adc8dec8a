// RecordBatchBuilder: writes v2 batches as Kafka's MemoryRecordsBuilder does; see
// seglog/record_batch.h. Records are serialised plain, then compressed as one stream, then the
// header is written with the CRC last.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/coding.h"
#include "base/crc32c.h"
#include "base/varint.h"
#include "record/compression.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

namespace {

size_t NullableSize(const NullableBytes& b) {
  return b ? static_cast<size_t>(VarintSize(static_cast<int32_t>(b->size()))) + b->size()
           : static_cast<size_t>(VarintSize(-1));
}

uint8_t* PutNullable(uint8_t* p, const NullableBytes& b) {
  if (!b) return EncodeVarint(p, -1);
  p = EncodeVarint(p, static_cast<int32_t>(b->size()));
  if (!b->empty()) std::memcpy(p, b->data(), b->size());
  return p + b->size();
}

}  // namespace

RecordBatchBuilder::RecordBatchBuilder(const BatchOptions& options) : options_(options) {
  if (options.compression_level) {
    invalid_ = ValidateCompressionLevel(options.compression, *options.compression_level);
  }
  if (options.timestamp_type == TimestampType::kNoTimestampType) {
    invalid_ = Status::InvalidArgument("v2 batches need CreateTime or LogAppendTime");
  }
  if (options.delete_horizon_ms) first_timestamp_ = *options.delete_horizon_ms;
}

Status RecordBatchBuilder::Append(int64_t timestamp, NullableBytes key, NullableBytes value,
                                  std::span<const Header> headers) {
  const int64_t offset = count_ == 0 ? options_.base_offset : last_offset_ + 1;
  return AppendWithOffset(offset, timestamp, key, value, headers);
}

Status RecordBatchBuilder::AppendWithOffset(int64_t offset, int64_t timestamp, NullableBytes key,
                                            NullableBytes value, std::span<const Header> headers) {
  SEGLOG_RETURN_IF_ERROR(invalid_);
  if (offset < options_.base_offset || (count_ > 0 && offset <= last_offset_)) {
    return Status::InvalidArgument(
        fmt::format("offset {} must be >= base offset {} and above the last offset {}", offset,
                    options_.base_offset, last_offset_));
  }
  if (offset - options_.base_offset > INT32_MAX) {
    return Status::InvalidArgument(fmt::format(
        "offset {} is more than INT32_MAX past base offset {}", offset, options_.base_offset));
  }
  if (timestamp < 0 && timestamp != kNoTimestamp) {
    return Status::InvalidArgument(fmt::format("invalid negative timestamp {}", timestamp));
  }
  constexpr size_t kMaxField = INT32_MAX;
  if ((key && key->size() > kMaxField) || (value && value->size() > kMaxField)) {
    return Status::InvalidArgument("key or value larger than INT32_MAX bytes");
  }
  if (count_ == 0 && !options_.delete_horizon_ms) first_timestamp_ = timestamp;
  const int64_t timestamp_delta = timestamp - first_timestamp_;
  const int32_t offset_delta = static_cast<int32_t>(offset - options_.base_offset);

  size_t body = 1 + static_cast<size_t>(VarlongSize(timestamp_delta)) +
                static_cast<size_t>(VarintSize(offset_delta)) + NullableSize(key) +
                NullableSize(value) +
                static_cast<size_t>(VarintSize(static_cast<int32_t>(headers.size())));
  for (const Header& h : headers) {
    body += static_cast<size_t>(VarintSize(static_cast<int32_t>(h.key.size()))) + h.key.size() +
            NullableSize(h.value);
  }
  if (body > static_cast<size_t>(INT32_MAX)) return Status::InvalidArgument("record too large");

  const size_t old = records_.size();
  records_.resize(old + static_cast<size_t>(VarintSize(static_cast<int32_t>(body))) + body);
  uint8_t* p = records_.data() + old;
  p = EncodeVarint(p, static_cast<int32_t>(body));
  *p++ = 0;  // record attributes: none defined
  p = EncodeVarlong(p, timestamp_delta);
  p = EncodeVarint(p, offset_delta);
  p = PutNullable(p, key);
  p = PutNullable(p, value);
  p = EncodeVarint(p, static_cast<int32_t>(headers.size()));
  for (const Header& h : headers) {
    p = EncodeVarint(p, static_cast<int32_t>(h.key.size()));
    if (!h.key.empty()) std::memcpy(p, h.key.data(), h.key.size());
    p += h.key.size();
    p = PutNullable(p, h.value);
  }
  // Invariant: the size computed above is the size written.
  if (p != records_.data() + records_.size()) {
    std::fprintf(stderr, "seglog: record size mismatch (%zu computed)\n", body);
    std::abort();
  }
  ++count_;
  last_offset_ = offset;
  max_timestamp_ = count_ == 1 ? timestamp : std::max(max_timestamp_, timestamp);
  return Status::OK();
}

Status RecordBatchBuilder::AppendEndTxnMarker(ControlRecordType type, int32_t coordinator_epoch,
                                              int64_t timestamp) {
  if (!options_.is_control) {
    return Status::InvalidArgument("end transaction markers go only into control batches");
  }
  if (type != ControlRecordType::kAbort && type != ControlRecordType::kCommit) {
    return Status::InvalidArgument("an end transaction marker is ABORT or COMMIT");
  }
  uint8_t key[4];
  StoreBE16(key, 0);  // control record key version
  StoreBE16(key + 2, static_cast<uint16_t>(type));
  uint8_t value[6];
  StoreBE16(value, 0);  // end transaction marker version
  StoreBE32(value + 2, static_cast<uint32_t>(coordinator_epoch));
  return Append(timestamp, Bytes(key, 4), Bytes(value, 6));
}

size_t RecordBatchBuilder::uncompressed_size() const {
  return bl::kRecordBatchOverhead + records_.size();
}

Result<std::vector<uint8_t>> RecordBatchBuilder::Build() const {
  SEGLOG_RETURN_IF_ERROR(invalid_);
  if (count_ == 0) return Status::FailedPrecondition("a batch needs at least one record");
  const size_t records_size = records_.size();
  if (records_size > static_cast<size_t>(INT32_MAX) - bl::kRecordBatchOverhead) {
    return Status::InvalidArgument("batch larger than INT32_MAX bytes");
  }
  std::vector<uint8_t> out;
  if (options_.compression == CompressionType::kNone) {
    out.resize(bl::kRecordBatchOverhead + records_size);
    std::memcpy(out.data() + bl::kRecordBatchOverhead, records_.data(), records_size);
  } else {
    out.resize(bl::kRecordBatchOverhead);
    SEGLOG_RETURN_IF_ERROR(
        Compress(options_.compression, options_.compression_level, records_, &out));
  }
  if (out.size() - bl::kLogOverhead > static_cast<size_t>(INT32_MAX)) {
    return Status::InvalidArgument("batch larger than INT32_MAX bytes");
  }
  int16_t attributes = static_cast<int16_t>(options_.compression);
  if (options_.timestamp_type == TimestampType::kLogAppendTime)
    attributes |= bl::kTimestampTypeMask;
  if (options_.is_transactional) attributes |= bl::kTransactionalFlagMask;
  if (options_.is_control) attributes |= bl::kControlFlagMask;
  if (options_.delete_horizon_ms) attributes |= bl::kDeleteHorizonFlagMask;
  const int64_t max_timestamp = options_.timestamp_type == TimestampType::kLogAppendTime
                                    ? options_.log_append_time
                                    : max_timestamp_;
  uint8_t* h = out.data();
  StoreBE64(h + bl::kBaseOffsetOffset, static_cast<uint64_t>(options_.base_offset));
  StoreBE32(h + bl::kLengthOffset, static_cast<uint32_t>(out.size() - bl::kLogOverhead));
  StoreBE32(h + bl::kPartitionLeaderEpochOffset,
            static_cast<uint32_t>(options_.partition_leader_epoch));
  h[bl::kMagicOffset] = static_cast<uint8_t>(kMagicV2);
  StoreBE16(h + bl::kAttributesOffset, static_cast<uint16_t>(attributes));
  StoreBE32(h + bl::kLastOffsetDeltaOffset,
            static_cast<uint32_t>(options_.last_offset_delta.value_or(
                static_cast<int32_t>(last_offset_ - options_.base_offset))));
  StoreBE64(h + bl::kBaseTimestampOffset, static_cast<uint64_t>(first_timestamp_));
  StoreBE64(h + bl::kMaxTimestampOffset, static_cast<uint64_t>(max_timestamp));
  StoreBE64(h + bl::kProducerIdOffset, static_cast<uint64_t>(options_.producer_id));
  StoreBE16(h + bl::kProducerEpochOffset, static_cast<uint16_t>(options_.producer_epoch));
  StoreBE32(h + bl::kBaseSequenceOffset, static_cast<uint32_t>(options_.base_sequence));
  StoreBE32(h + bl::kRecordsCountOffset, static_cast<uint32_t>(count_));
  StoreBE32(h + bl::kCrcOffset, Crc32c(Bytes(out).subspan(bl::kAttributesOffset)));
  return out;
}

}  // namespace seglog
