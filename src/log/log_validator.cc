// LogValidator; see log_validator.h. Messages follow Kafka 4.x's wording (UnifiedLog.java,
// LogValidator.java, DefaultRecord.java) after the exception name.
#include "log/log_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/coding.h"
#include "base/crc32c.h"
#include "record/batch_walker.h"

namespace seglog {

namespace bl = batch_layout;

namespace {

// The largest decompression buffer an appending thread keeps for its next batch.
constexpr size_t kMaxKeptScratch = size_t{4} << 20;
// A compressed batch is decompressed whole to be validated: at most this many bytes of records
// (a batch that expands past it is refused as a failed decompression). Kafka streams the
// records and has no such bound; seglog's keeps a compression bomb from costing more than this
// per request being validated (producers' batches are far smaller: batch.size is 16 KB for
// Java's producer, 1 MB for librdkafka's).
constexpr size_t kMaxValidatedRecordsBytes = size_t{64} << 20;
// The record errors kept for a refused batch (Kafka keeps every one; its message shows three).
constexpr size_t kMaxRecordErrors = 1000;

// Java's List<RecordError>.toString() of at most the first three errors.
std::string FirstThree(const std::vector<RecordError>& errors) {
  std::string out = "[";
  const size_t n = std::min<size_t>(errors.size(), 3);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("RecordError(batchIndex={}, message='{}')", errors[i].batch_index,
                       errors[i].message);
  }
  return out + "]";
}

}  // namespace

std::string_view AppendOriginName(AppendOrigin origin) {
  switch (origin) {
    case AppendOrigin::kClient:
      return "CLIENT";
    case AppendOrigin::kCoordinator:
      return "COORDINATOR";
    case AppendOrigin::kReplication:
      return "REPLICATION";
  }
  return "UNKNOWN";
}

struct LogValidator::Scan {
  int64_t max_timestamp = kNoTimestamp;
  bool offsets_in_order = true;  // offset deltas are 0..n-1
};

LogValidator::LogValidator(const LogConfig& config, Options options)
    : config_(config), options_(std::move(options)) {}

Status LogValidator::InvalidRecord(std::string_view message) const {
  return Status::InvalidArgument(fmt::format("InvalidRecordException: {}", message));
}

Result<RecordBatchView> LogValidator::AnalyzeBatch(Bytes bytes, int64_t position) const {
  const std::string& tp = options_.topic_partition;
  const int8_t magic = static_cast<int8_t>(bytes[bl::kMagicOffset]);
  if (magic != kMagicV2) {
    // Kafka 4.x refuses these at the request: produce v3 and above carry magic 2 only.
    return InvalidRecord(fmt::format(
        "batch at byte {} has magic {}; appends take v2 batches only (Kafka 4.x converts older "
        "formats before writing) in topic partition {}",
        position, magic, tp));
  }
  auto parsed = RecordBatchView::Parse(bytes, position);
  if (!parsed.ok()) {
    return Status::Corruption(fmt::format("CorruptRecordException: {} in topic partition {}",
                                          parsed.status().message(), tp));
  }
  const RecordBatchView& batch = *parsed;
  if (options_.origin == AppendOrigin::kClient && batch.base_offset() != 0) {
    return InvalidRecord(fmt::format(
        "The baseOffset of the record batch in the append to {} should be 0, but it is {}", tp,
        batch.base_offset()));
  }
  if (batch.size_in_bytes() > static_cast<size_t>(config_.max_message_bytes)) {
    return Status::InvalidArgument(fmt::format(
        "RecordTooLargeException: The record batch size in the append to {} is {} bytes which "
        "exceeds the maximum configured value of {}).",
        tp, batch.size_in_bytes(), config_.max_message_bytes));
  }
  if (const uint32_t computed = batch.ComputeCrc(); computed != batch.stored_crc()) {
    return Status::Corruption(fmt::format(
        "CorruptRecordException: Record is corrupt (stored crc = {}) in topic partition {}. "
        "(computed crc = {}, batch at byte {} of the append, {} bytes)",
        batch.stored_crc(), tp, computed, position, batch.size_in_bytes()));
  }
  if (!batch.compression().ok()) {
    return Status::InvalidArgument(
        fmt::format("UnsupportedCompressionTypeException: Unknown compression type id: {} in "
                    "topic partition {}",
                    batch.compression_id(), tp));
  }
  return batch;
}

Status LogValidator::ValidateBatch(const RecordBatchView& batch) const {
  const std::string& tp = options_.topic_partition;
  // Kafka checks the offset range for clients only; a coordinator's batch gets the same checks
  // here, so that no origin can move the log end offset by anything but its record count.
  const int64_t count_from_offsets = int64_t{batch.last_offset_delta()} + 1;
  const int64_t last_offset = WrappingAdd(batch.base_offset(), batch.last_offset_delta());
  if (count_from_offsets <= 0) {
    return InvalidRecord(
        fmt::format("Batch has an invalid offset range: [{}, {}] in topic partition {}",
                    batch.base_offset(), last_offset, tp));
  }
  const int32_t count = batch.records_count();
  if (count <= 0) {
    return InvalidRecord(fmt::format(
        "Invalid reported count for record batch: {} in topic partition {}", count, tp));
  }
  if (count_from_offsets != count) {
    return InvalidRecord(fmt::format(
        "Inconsistent batch offset range [{}, {}] and count of records {} in topic partition {}",
        batch.base_offset(), last_offset, count, tp));
  }
  if (options_.origin == AppendOrigin::kClient) {
    if (batch.is_control()) {
      return InvalidRecord(fmt::format(
          "Clients are not allowed to write control records in topic partition {}", tp));
    }
    if (batch.producer_id() >= 0 && batch.base_sequence() < 0) {
      return InvalidRecord(fmt::format(
          "Invalid sequence number {} in record batch with producerId {} in topic partition {}",
          batch.base_sequence(), batch.producer_id(), tp));
    }
  }
  return Status::OK();
}

std::optional<std::string> LogValidator::TimestampError(const RecordBatchView& batch,
                                                        const Record& record) const {
  const int64_t now = options_.now_ms;
  if (config_.message_timestamp_type == TimestampType::kCreateTime &&
      record.timestamp != kNoTimestamp) {
    // Java's long arithmetic, wrapping as it does for extreme configs and timestamps.
    const int64_t diff = WrappingSub(now, record.timestamp);
    if (diff > config_.message_timestamp_before_max_ms ||
        WrappingSub(0, diff) > config_.message_timestamp_after_max_ms) {
      return fmt::format(
          "Timestamp {} of message with offset {} is out of range. The timestamp should be "
          "within [{}, {}]",
          record.timestamp, record.offset,
          WrappingSub(now, config_.message_timestamp_before_max_ms),
          WrappingAdd(now, config_.message_timestamp_after_max_ms));
    }
  } else if (batch.timestamp_type() == TimestampType::kLogAppendTime) {
    return fmt::format(
        "Invalid timestamp type in message DefaultRecord(offset={}, timestamp={}, key={} bytes, "
        "value={} bytes). Producer should not set timestamp type to LogAppendTime.",
        record.offset, record.timestamp, record.key ? record.key->size() : 0,
        record.value ? record.value->size() : 0);
  }
  return std::nullopt;
}

Status LogValidator::ScanRecords(const RecordBatchView& batch, bool uncompressed,
                                 RecordBatchBuilder* rebuild, Scan* scan) const {
  const std::string& tp = options_.topic_partition;
  // Compressed batches inflate into one buffer per thread, kept between appends unless a batch
  // made it large (see ReadOptions::scratch).
  thread_local std::vector<uint8_t> scratch;
  struct Trim {
    ~Trim() {
      if (scratch.capacity() > kMaxKeptScratch) std::vector<uint8_t>().swap(scratch);
    }
  } trim;
  ReadOptions read_options;
  read_options.scratch = &scratch;
  read_options.max_decompressed_bytes = kMaxValidatedRecordsBytes;
  RecordIterator it(batch, read_options);
  if (!it.status().ok()) {
    // The codec stream itself failed (Kafka: "Failed to decompress record stream").
    return Status::Corruption(
        fmt::format("KafkaException: Failed to decompress record stream: {} in topic partition {}",
                    it.status().message(), tp));
  }
  std::vector<RecordError> errors;
  // Kafka lists every record's error; a batch of millions of bad records (a compression bomb)
  // would cost a formatted message each, so seglog keeps the first kMaxRecordErrors and counts
  // the rest.
  size_t error_count = 0;
  auto add_error = [&](int32_t i, auto make_message) {
    ++error_count;
    if (errors.size() < kMaxRecordErrors) errors.push_back(RecordError{i, make_message()});
  };
  bool timestamp_errors = false;
  int32_t index = 0;
  size_t consumed = 0;  // record bytes read so far
  while (it.Next()) {
    const Record& r = it.record();
    consumed += static_cast<size_t>(r.size_in_bytes);
    if (config_.cleanup_compact && !r.key) {
      add_error(index, [&] {
        return fmt::format(
            "Compacted topic cannot accept message without key in topic partition {}", tp);
      });
    } else if (std::optional<std::string> ts = TimestampError(batch, r)) {
      add_error(index, [&] { return std::move(*ts); });
      timestamp_errors = true;
    } else {
      scan->max_timestamp = std::max(scan->max_timestamp, r.timestamp);
      const int64_t delta = WrappingSub(r.offset, batch.base_offset());
      if (delta != index) {
        scan->offsets_in_order = false;
        // Kafka writes an uncompressed batch as it came, whatever its deltas (only the count
        // is held to lastOffsetDelta + 1), leaving records at duplicate offsets or past the
        // batch's last offset, which offset lookups and consumers then trip over. Refused.
        if (uncompressed) {
          add_error(index, [&] {
            return fmt::format(
                "Record offset delta {} is not the expected {}: offset deltas must run 0..n-1 in "
                "topic partition {}",
                delta, index, tp);
          });
        }
      }
      if (rebuild != nullptr) {
        SEGLOG_RETURN_IF_ERROR(rebuild->Append(r.timestamp, r.key, r.value, r.headers));
      }
    }
    ++index;
  }
  if (!it.status().ok()) {
    // Kafka's wording for the three ways a record section can fail to parse (DefaultRecordBatch
    // and DefaultRecord), our detail after it.
    const size_t section = uncompressed ? batch.records_bytes().size() : scratch.size();
    std::string_view what = "Found invalid record structure";
    if (index == batch.records_count()) {
      what = "Incorrect declared batch size, records still remaining in file";
    } else if (consumed == section) {
      what = "Incorrect declared batch size, premature EOF reached";
    }
    return InvalidRecord(
        fmt::format("{} ({}) in topic partition {}", what, it.status().message(), tp));
  }
  if (errors.empty()) return Status::OK();
  // Kafka's processRecordErrors: a timestamp error names the whole refusal.
  Status s = timestamp_errors
                 ? Status::InvalidArgument(
                       "InvalidTimestampException: One or more records have been rejected due to "
                       "invalid timestamp")
                 : InvalidRecord(fmt::format(
                       "One or more records have been rejected due to {} record errors in total, "
                       "and only showing the first three errors at most: {}",
                       error_count, FirstThree(errors)));
  return s.WithRecordErrors(std::move(errors));
}

BatchOptions LogValidator::RebuildOptions(const RecordBatchView& batch, CompressionType codec,
                                          int64_t next_offset) const {
  BatchOptions o;
  o.base_offset = next_offset;
  o.partition_leader_epoch = options_.partition_leader_epoch;
  o.compression = codec;
  o.timestamp_type = config_.message_timestamp_type == TimestampType::kLogAppendTime
                         ? TimestampType::kLogAppendTime
                         : TimestampType::kCreateTime;
  o.log_append_time = options_.now_ms;
  o.producer_id = batch.producer_id();
  o.producer_epoch = batch.producer_epoch();
  o.base_sequence = batch.base_sequence();
  o.is_transactional = batch.is_transactional();
  // Kafka's rebuild drops the control flag; a coordinator's compressed control batch keeps it.
  o.is_control = batch.is_control();
  return o;
}

void LogValidator::AssignInPlace(const RecordBatchView& batch, int64_t next_offset,
                                 int64_t max_timestamp, std::vector<uint8_t>* out) const {
  out->assign(batch.bytes().begin(), batch.bytes().end());
  uint8_t* h = out->data();
  // Kafka's setLastOffset(next + count - 1) writes base = last - lastOffsetDelta, which is
  // `next_offset` once ValidateBatch has held the count to lastOffsetDelta + 1.
  StoreBE64(h + bl::kBaseOffsetOffset, static_cast<uint64_t>(next_offset));
  StoreBE32(h + bl::kPartitionLeaderEpochOffset,
            static_cast<uint32_t>(options_.partition_leader_epoch));
  const bool log_append_time = config_.message_timestamp_type == TimestampType::kLogAppendTime;
  const int16_t attributes = batch.attributes();
  const int16_t new_attributes = log_append_time
                                     ? static_cast<int16_t>(attributes | bl::kTimestampTypeMask)
                                     : static_cast<int16_t>(attributes & ~bl::kTimestampTypeMask);
  const int64_t new_max_timestamp = log_append_time ? options_.now_ms : max_timestamp;
  // Kafka's setMaxTimestamp: the CRC is recomputed only when something it covers changed.
  if (new_attributes != attributes || new_max_timestamp != batch.max_timestamp()) {
    StoreBE16(h + bl::kAttributesOffset, static_cast<uint16_t>(new_attributes));
    StoreBE64(h + bl::kMaxTimestampOffset, static_cast<uint64_t>(new_max_timestamp));
    StoreBE32(h + bl::kCrcOffset,
              Crc32c(Bytes(h + bl::kAttributesOffset, out->size() - bl::kAttributesOffset)));
  }
}

Result<ValidationResult> LogValidator::ValidateMessagesAndAssignOffsets(
    Bytes records, int64_t next_offset, std::vector<uint8_t>* out) const {
  const std::string& tp = options_.topic_partition;
  out->clear();
  // 1. analyzeAndValidateRecords: every batch, before anything else.
  std::optional<RecordBatchView> first;
  int batches = 0;
  LogBatchWalker walker(records);
  while (walker.Next()) {
    SEGLOG_ASSIGN_OR_RETURN(RecordBatchView batch,
                            AnalyzeBatch(walker.current_bytes(), walker.current().position));
    if (!first) first = batch;
    ++batches;
  }
  if (!walker.status().ok()) {
    return Status::Corruption(fmt::format("CorruptRecordException: {} in topic partition {}",
                                          walker.status().message(), tp));
  }
  if (walker.trailing_bytes() != 0) {
    // Kafka's reader drops a partial trailing batch without a word; seglog refuses it.
    return Status::Corruption(fmt::format(
        "CorruptRecordException: append ends with {} byte(s) that are not a whole batch in topic "
        "partition {}",
        walker.trailing_bytes(), tp));
  }
  ValidationResult result;
  if (!first) return result;

  // 2. LogValidator: one v2 batch, then the batch checks.
  if (batches > 1) return InvalidRecord("Compressed outer record has more than one batch");
  const RecordBatchView& batch = *first;
  SEGLOG_RETURN_IF_ERROR(ValidateBatch(batch));

  // 3. The records, and where the batch is written in place.
  const CompressionType source = *batch.compression();
  const CompressionType target = config_.compression.value_or(source);
  const bool uncompressed = source == CompressionType::kNone && target == CompressionType::kNone;
  // Uncompressed control batches are never compressed by the broker.
  const bool recompress =
      source != target && !(source == CompressionType::kNone && batch.is_control());
  std::optional<RecordBatchBuilder> builder;
  if (recompress) builder.emplace(RebuildOptions(batch, target, next_offset));
  Scan scan;
  SEGLOG_RETURN_IF_ERROR(ScanRecords(batch, uncompressed, builder ? &*builder : nullptr, &scan));
  if (!recompress && !scan.offsets_in_order) {
    // A compressed batch whose offset deltas are not 0..n-1: Kafka rebuilds it (same codec).
    builder.emplace(RebuildOptions(batch, source, next_offset));
    RecordIterator it(batch);
    while (it.Next()) {
      const Record& r = it.record();
      SEGLOG_RETURN_IF_ERROR(builder->Append(r.timestamp, r.key, r.value, r.headers));
    }
    SEGLOG_RETURN_IF_ERROR(it.status());
  }
  if (builder) {
    SEGLOG_ASSIGN_OR_RETURN(*out, builder->Build());
    if (out->size() > static_cast<size_t>(config_.max_message_bytes)) {
      return Status::InvalidArgument(fmt::format(
          "RecordTooLargeException: Message batch size is {} bytes in append to partition {} "
          "which exceeds the maximum configured size of {}.",
          out->size(), tp, config_.max_message_bytes));
    }
    result.rebuilt = true;
  } else {
    AssignInPlace(batch, next_offset, scan.max_timestamp, out);
  }

  SEGLOG_ASSIGN_OR_RETURN(RecordBatchView written, RecordBatchView::Parse(*out));
  result.first_offset = next_offset;
  result.last_offset = written.last_offset();
  result.max_timestamp = written.max_timestamp();
  if (config_.message_timestamp_type == TimestampType::kLogAppendTime) {
    result.log_append_time = options_.now_ms;
  }
  result.batch_count = 1;
  result.record_count = written.records_count();
  return result;
}

}  // namespace seglog
