// Kafka's v2 record batch (magic 2), the unit every .log file is made of.
//
// A batch is a 61-byte header followed by its records, either plain or as one compressed blob.
// seglog stores batches exactly as Kafka does, so this header is the contract of our on-disk
// compatibility. The full spec, with the record layout and the compression framings, is
// docs/format/record_batch.md; the layout constants below are chained from each other as in
// Kafka's DefaultRecordBatch.
//
//   +0                  +8            +12                     +16     +17        +21
//   | baseOffset int64  | length int32 | partitionLeaderEpoch  | magic | crc uint32 |
//   +21               +23                  +27                   +35
//   | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64 |
//   +43                +51                  +53                  +57                 +61
//   | producerId int64 | producerEpoch int16 | baseSequence int32 | recordsCount int32 | records...
//
// All integers are big-endian. `length` counts the bytes after itself (size = 12 + length).
// The CRC-32C covers bytes [21, end): attributes through the last record byte, so the broker
// can stamp the partition leader epoch without recomputing it.
//
// Main types: RecordBatchView (a zero-copy view of one batch), Record and RecordIterator (the
// records inside), RecordBatchBuilder (writes batches byte-for-byte as Kafka's client does).
#ifndef SEGLOG_RECORD_BATCH_H_
#define SEGLOG_RECORD_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

using Bytes = std::span<const uint8_t>;
// A key or value: nullopt is Kafka's null (length -1), distinct from an empty array.
using NullableBytes = std::optional<Bytes>;

enum class CompressionType : int8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };
// Kafka's names: "none", "gzip", "snappy", "lz4", "zstd".
std::string_view CompressionName(CompressionType type);
Result<CompressionType> ParseCompressionName(std::string_view name);

enum class TimestampType : int8_t { kNoTimestampType = -1, kCreateTime = 0, kLogAppendTime = 1 };
// "NoTimestampType", "CreateTime", "LogAppendTime", as Kafka prints them.
std::string_view TimestampTypeName(TimestampType type);

inline constexpr int64_t kNoTimestamp = -1;
inline constexpr int64_t kNoProducerId = -1;
inline constexpr int16_t kNoProducerEpoch = -1;
inline constexpr int32_t kNoSequence = -1;
inline constexpr int32_t kNoPartitionLeaderEpoch = -1;

inline constexpr int8_t kMagicV0 = 0;
inline constexpr int8_t kMagicV1 = 1;
inline constexpr int8_t kMagicV2 = 2;

// Byte layout of the v2 batch header.
namespace batch_layout {
inline constexpr size_t kBaseOffsetOffset = 0;
inline constexpr size_t kBaseOffsetLength = 8;
inline constexpr size_t kLengthOffset = kBaseOffsetOffset + kBaseOffsetLength;
inline constexpr size_t kLengthLength = 4;
inline constexpr size_t kLogOverhead = kLengthOffset + kLengthLength;  // 12
inline constexpr size_t kPartitionLeaderEpochOffset = kLogOverhead;
inline constexpr size_t kPartitionLeaderEpochLength = 4;
inline constexpr size_t kMagicOffset = kPartitionLeaderEpochOffset + kPartitionLeaderEpochLength;
inline constexpr size_t kMagicLength = 1;
inline constexpr size_t kHeaderSizeUpToMagic = kMagicOffset + kMagicLength;  // 17
inline constexpr size_t kCrcOffset = kMagicOffset + kMagicLength;
inline constexpr size_t kCrcLength = 4;
inline constexpr size_t kAttributesOffset = kCrcOffset + kCrcLength;
inline constexpr size_t kAttributesLength = 2;
inline constexpr size_t kLastOffsetDeltaOffset = kAttributesOffset + kAttributesLength;
inline constexpr size_t kLastOffsetDeltaLength = 4;
inline constexpr size_t kBaseTimestampOffset = kLastOffsetDeltaOffset + kLastOffsetDeltaLength;
inline constexpr size_t kBaseTimestampLength = 8;
inline constexpr size_t kMaxTimestampOffset = kBaseTimestampOffset + kBaseTimestampLength;
inline constexpr size_t kMaxTimestampLength = 8;
inline constexpr size_t kProducerIdOffset = kMaxTimestampOffset + kMaxTimestampLength;
inline constexpr size_t kProducerIdLength = 8;
inline constexpr size_t kProducerEpochOffset = kProducerIdOffset + kProducerIdLength;
inline constexpr size_t kProducerEpochLength = 2;
inline constexpr size_t kBaseSequenceOffset = kProducerEpochOffset + kProducerEpochLength;
inline constexpr size_t kBaseSequenceLength = 4;
inline constexpr size_t kRecordsCountOffset = kBaseSequenceOffset + kBaseSequenceLength;
inline constexpr size_t kRecordsCountLength = 4;
inline constexpr size_t kRecordsOffset = kRecordsCountOffset + kRecordsCountLength;
inline constexpr size_t kRecordBatchOverhead = kRecordsOffset;
static_assert(kHeaderSizeUpToMagic == 17);
static_assert(kRecordBatchOverhead == 61, "the v2 batch header is 61 bytes");

// Attribute bits (only the low byte is defined).
inline constexpr int16_t kCompressionCodecMask = 0x07;
inline constexpr int16_t kTimestampTypeMask = 0x08;
inline constexpr int16_t kTransactionalFlagMask = 0x10;
inline constexpr int16_t kControlFlagMask = 0x20;
inline constexpr int16_t kDeleteHorizonFlagMask = 0x40;

// Smallest `length` field a reader accepts before calling the bytes corrupt: Kafka's v0
// message minimum (FileLogInputStream).
inline constexpr int32_t kMinLengthField = 14;
}  // namespace batch_layout

// Limits applied while reading untrusted batches.
struct ReadOptions {
  // Largest decompressed records section accepted; a compressed batch that inflates past it is
  // reported as corrupt instead of exhausting memory. Default: 256 MiB.
  size_t max_decompressed_bytes = size_t{256} << 20;
  // Where a RecordIterator decompresses to, instead of a buffer of its own; it must outlive the
  // iterator, and one iterator at a time may use it. Reusing one buffer across batches saves an
  // allocation, its page faults and its zero-filling per compressed batch.
  std::vector<uint8_t>* scratch = nullptr;
};

// A zero-copy view of one v2 record batch. Does not own its bytes; they must outlive the view.
// Thread safety: immutable; safe to share between threads.
class RecordBatchView {
 public:
  // Checks that `bytes` starts with a whole v2 batch: at least 61 bytes, magic 2, and a length
  // field that neither lies below the header size nor reaches past the span. The view covers
  // exactly that batch (bytes may continue after it). Does not check the CRC: see ValidateCrc.
  // `position` is where the batch starts in its file or buffer; error messages report it.
  static Result<RecordBatchView> Parse(Bytes bytes, int64_t position = 0);

  // Header fields, as stored.
  int64_t base_offset() const;
  int32_t length_field() const;
  int32_t partition_leader_epoch() const;
  int8_t magic() const;
  uint32_t stored_crc() const;
  int16_t attributes() const;
  int32_t last_offset_delta() const;
  int64_t base_timestamp() const;  // the raw field; the delete horizon when that bit is set
  int64_t max_timestamp() const;
  int64_t producer_id() const;
  int16_t producer_epoch() const;
  int32_t base_sequence() const;
  int32_t records_count() const;

  // Derived values.
  size_t size_in_bytes() const { return bytes_.size(); }
  // Wrapping like Java's long arithmetic when a corrupt base offset is near INT64_MAX.
  int64_t last_offset() const;
  int64_t next_offset() const;
  // baseSequence + lastOffsetDelta, wrapping past INT32_MAX as Kafka does; -1 without one.
  int32_t last_sequence() const;
  // Raw codec bits; a value above 4 is an unknown codec (CompressionTypeOrError says so).
  int compression_id() const { return attributes() & batch_layout::kCompressionCodecMask; }
  Result<CompressionType> compression() const;
  TimestampType timestamp_type() const;
  bool is_transactional() const;
  bool is_control() const;
  bool has_delete_horizon() const;
  std::optional<int64_t> delete_horizon_ms() const;

  int64_t position() const { return position_; }
  Bytes bytes() const { return bytes_; }
  Bytes records_bytes() const { return bytes_.subspan(batch_layout::kRecordsOffset); }

  // CRC-32C of bytes [21, end).
  uint32_t ComputeCrc() const;
  // Kafka's isValid(): size >= 61 and the stored CRC matches.
  bool IsValid() const { return ComputeCrc() == stored_crc(); }
  // Kafka's ensureValid(): Corruption naming the position and both CRCs on mismatch.
  Status ValidateCrc() const;
  // Everything a reader can check: the CRC, the codec, the record count against
  // lastOffsetDelta, then every record (decompressing as needed): its lengths, that offset
  // deltas increase and stay within lastOffsetDelta, and that exactly recordsCount records fill
  // the section with no bytes left over.
  Status ValidateDeep(const ReadOptions& options = {}) const;

 private:
  RecordBatchView(Bytes bytes, int64_t position) : bytes_(bytes), position_(position) {}
  Bytes bytes_;
  int64_t position_;
};

struct Header {
  std::string_view key;  // UTF-8 bytes as stored
  NullableBytes value;
};

// One record, as a view into its batch (or into the iterator's decompression buffer).
struct Record {
  int64_t offset = 0;
  int64_t timestamp = kNoTimestamp;
  int32_t sequence = kNoSequence;
  int8_t attributes = 0;
  int32_t size_in_bytes = 0;  // including the leading length varint
  NullableBytes key;
  NullableBytes value;
  std::span<const Header> headers;
};

// Iterates the records of one batch, decompressing them first when the batch is compressed.
// Usage:
//   RecordIterator it(batch);
//   while (it.Next()) Use(it.record());
//   if (!it.status().ok()) ...;
// The Record and its spans stay valid until the next call to Next() (header array) and for the
// life of the iterator (key/value bytes).
// Thread safety: not thread-safe.
class RecordIterator {
 public:
  explicit RecordIterator(const RecordBatchView& batch, const ReadOptions& options = {});
  RecordIterator(const RecordIterator&) = delete;
  RecordIterator& operator=(const RecordIterator&) = delete;

  // Moves to the next record. False at the end or on an error (see status()).
  bool Next();
  const Record& record() const { return record_; }
  Status status() const { return status_; }
  // Records returned so far.
  int32_t count() const { return returned_; }

 private:
  Status ReadRecord();
  void Fail(const Status& s);

  RecordBatchView batch_;
  std::vector<uint8_t> decompressed_;
  Bytes section_;                 // the records, plain
  int64_t section_position_ = 0;  // file position of section_ (for messages), or -1 if inflated
  size_t pos_ = 0;
  int32_t returned_ = 0;
  bool done_ = false;
  Status status_;
  Record record_;
  std::vector<Header> headers_;
};

// Control records (attribute bit 5): the key is int16 version + int16 type.
enum class ControlRecordType : int16_t {
  kAbort = 0,
  kCommit = 1,
  kLeaderChange = 2,
  kSnapshotHeader = 3,
  kSnapshotFooter = 4,
  kKRaftVersion = 5,
  kKRaftVoters = 6,
  kUnknown = -1,
};
std::string_view ControlRecordTypeName(ControlRecordType type);  // "ABORT", "COMMIT", ...
struct ControlRecordKey {
  int16_t version = 0;
  int16_t type_id = 0;
  ControlRecordType type() const;
};
// Kafka: a key shorter than 4 bytes or with a negative version is invalid.
Result<ControlRecordKey> ParseControlRecordKey(NullableBytes key);

// The value of an ABORT/COMMIT control record: int16 version + int32 coordinatorEpoch.
struct EndTransactionMarker {
  int16_t version = 0;
  int32_t coordinator_epoch = 0;
};
Result<EndTransactionMarker> ParseEndTransactionMarker(NullableBytes value);

// How a batch is built. Defaults give a plain CreateTime batch with no producer state.
struct BatchOptions {
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = kNoPartitionLeaderEpoch;
  CompressionType compression = CompressionType::kNone;
  // Codec level; nullopt means Kafka's default (gzip 6, lz4 9, zstd 3; snappy has none).
  std::optional<int> compression_level;
  TimestampType timestamp_type = TimestampType::kCreateTime;
  // With kLogAppendTime: the broker's append time, written as maxTimestamp.
  int64_t log_append_time = kNoTimestamp;
  int64_t producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;
  bool is_transactional = false;
  bool is_control = false;
  // When set, the batch carries a delete horizon (KIP-534): baseTimestamp holds it and the
  // records' timestamp deltas are relative to it.
  std::optional<int64_t> delete_horizon_ms;
  // When set, lastOffsetDelta is this instead of the last record's delta: the cleaner keeps a
  // filtered batch's original offset range (docs/design/cleaner.md, "How a kept batch is
  // written").
  std::optional<int32_t> last_offset_delta;
};

// Builds one v2 batch with the bytes Kafka's MemoryRecordsBuilder would write for the same
// inputs (compressed batches: the same framing; the compressed bytes depend on the codec library).
// Thread safety: not thread-safe.
class RecordBatchBuilder {
 public:
  explicit RecordBatchBuilder(const BatchOptions& options);

  // Appends a record at the next offset (base_offset for the first).
  Status Append(int64_t timestamp, NullableBytes key, NullableBytes value,
                std::span<const Header> headers = {});
  // Appends at an explicit offset, which must be >= base_offset and above the last one.
  Status AppendWithOffset(int64_t offset, int64_t timestamp, NullableBytes key, NullableBytes value,
                          std::span<const Header> headers = {});
  // Appends an ABORT or COMMIT control record (the batch must be a control batch).
  Status AppendEndTxnMarker(ControlRecordType type, int32_t coordinator_epoch, int64_t timestamp);

  int32_t record_count() const { return count_; }
  // Size of the uncompressed batch so far.
  size_t uncompressed_size() const;

  // Writes the header (and compresses). REQUIRES: at least one record.
  Result<std::vector<uint8_t>> Build() const;

 private:
  BatchOptions options_;
  std::vector<uint8_t> records_;  // plain records, as they will be compressed
  int32_t count_ = 0;
  int64_t last_offset_ = -1;
  int64_t first_timestamp_ = kNoTimestamp;
  int64_t max_timestamp_ = kNoTimestamp;
  Status invalid_;  // a bad option, reported by every call
};

}  // namespace seglog

#endif  // SEGLOG_RECORD_BATCH_H_
