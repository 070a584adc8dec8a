// Read support for Kafka's legacy message formats, magic 0 and magic 1.
//
// A .log file written by Kafka before 0.11 holds "entries" instead of v2 batches: a 12-byte
// offset/size prefix followed by one message. An uncompressed entry carries one record; a
// compressed "wrapper" entry carries, as its value, a compressed stream of inner entries (each
// with its own 12-byte prefix). seglog reads these formats and never writes them
// (docs/format/record_batch.md section 10 has the decision and every rule mirrored here, from
// Kafka's LegacyRecord and AbstractLegacyRecordBatch).
//
//   +0               +8           +12          +16     +17          +18
//   | offset int64   | size int32 | crc uint32 | magic | attributes | ...
//
//   magic 0:  ... +18 keyLength int32 | key | valueLength int32 | value        (size >= 14)
//   magic 1:  ... +18 timestamp int64 | +26 keyLength int32 | key |
//                 valueLength int32 | value                                    (size >= 22)
//
// All integers are big-endian. `size` counts the message bytes after itself (entry = 12 + size).
// A negative key or value length means null. The CRC is CRC-32 (IEEE, zlib's) over bytes
// [16, end): magic through the last message byte. Attributes: bits 0-2 codec (none, gzip,
// snappy, lz4; zstd is invalid), bit 3 timestamp type (magic 1 only).
//
// Main types: LegacyRecordBatchView (a zero-copy view of one entry) and LegacyRecordIterator
// (the records inside, decompressing a wrapper entry).
#ifndef SEGLOG_RECORD_LEGACY_RECORD_BATCH_H_
#define SEGLOG_RECORD_LEGACY_RECORD_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "seglog/record_batch.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

// Byte layout of a legacy entry, counted from the entry's first byte (Kafka's LegacyRecord
// constants are relative to the message, that is, to kLogOverhead).
namespace legacy_layout {
inline constexpr size_t kOffsetOffset = 0;
inline constexpr size_t kOffsetLength = 8;
inline constexpr size_t kSizeOffset = kOffsetOffset + kOffsetLength;
inline constexpr size_t kSizeLength = 4;
inline constexpr size_t kLogOverhead = kSizeOffset + kSizeLength;  // 12
inline constexpr size_t kCrcOffset = kLogOverhead;
inline constexpr size_t kCrcLength = 4;
inline constexpr size_t kMagicOffset = kCrcOffset + kCrcLength;  // 16
inline constexpr size_t kMagicLength = 1;
inline constexpr size_t kAttributesOffset = kMagicOffset + kMagicLength;
inline constexpr size_t kAttributesLength = 1;
inline constexpr size_t kTimestampOffset = kAttributesOffset + kAttributesLength;  // magic 1
inline constexpr size_t kTimestampLength = 8;
inline constexpr size_t kKeySizeOffsetV0 = kAttributesOffset + kAttributesLength;
inline constexpr size_t kKeySizeOffsetV1 = kTimestampOffset + kTimestampLength;
inline constexpr size_t kKeySizeLength = 4;
inline constexpr size_t kValueSizeLength = 4;
// Smallest message (the `size` field) of each magic: Kafka's RECORD_OVERHEAD_V0 / _V1.
inline constexpr int32_t kRecordOverheadV0 = static_cast<int32_t>(
    kCrcLength + kMagicLength + kAttributesLength + kKeySizeLength + kValueSizeLength);
inline constexpr int32_t kRecordOverheadV1 =
    kRecordOverheadV0 + static_cast<int32_t>(kTimestampLength);
static_assert(kLogOverhead == 12 && kMagicOffset == 16);
static_assert(kRecordOverheadV0 == 14 && kRecordOverheadV1 == 22);

inline constexpr int8_t kCompressionCodecMask = 0x07;
inline constexpr int8_t kTimestampTypeMask = 0x08;
}  // namespace legacy_layout

// A zero-copy view of one legacy (magic 0 or 1) entry: prefix plus message. Does not own its
// bytes; they must outlive the view.
// Thread safety: immutable; safe to share between threads.
class LegacyRecordBatchView {
 public:
  // Checks that `bytes` starts with one whole, well-formed legacy entry: a size field of at least
  // the magic's record overhead that does not reach past the span, magic 0 or 1, and key and
  // value lengths that fit inside the message. The view covers exactly that entry (bytes may
  // continue after it). Does not check the CRC (see ValidateCrc) or the codec (see
  // compression()). `position` is where the entry starts in its file or buffer; errors report it.
  static Result<LegacyRecordBatchView> Parse(Bytes bytes, int64_t position = 0);

  // Fields, as stored. offset() is the record's offset, or for a wrapper the offset of its last
  // inner record (Kafka's lastOffset()).
  int64_t offset() const;
  int64_t last_offset() const { return offset(); }
  int32_t size_field() const;
  uint32_t stored_crc() const;
  int8_t magic() const;
  int8_t attributes() const;
  // Magic 1: the stored timestamp (for a wrapper, the max or append time). Magic 0: -1.
  int64_t timestamp() const;
  int64_t max_timestamp() const { return timestamp(); }
  NullableBytes key() const { return key_; }
  NullableBytes value() const { return value_; }

  // Derived values.
  int compression_id() const { return attributes() & legacy_layout::kCompressionCodecMask; }
  // Corruption for zstd (4) and the unknown ids 5-7.
  Result<CompressionType> compression() const;
  bool is_compressed() const { return compression_id() != 0; }
  // Magic 0: NoTimestampType; magic 1: attribute bit 3.
  TimestampType timestamp_type() const;
  size_t size_in_bytes() const { return bytes_.size(); }
  int64_t position() const { return position_; }
  Bytes bytes() const { return bytes_; }

  // CRC-32 (IEEE) of bytes [16, end).
  uint32_t ComputeCrc() const;
  // Kafka's isValid(): the stored CRC matches (the minimum size is guaranteed by Parse).
  bool IsValid() const { return ComputeCrc() == stored_crc(); }
  // Kafka's ensureValid(): Corruption naming the position and both CRCs on mismatch.
  Status ValidateCrc() const;

 private:
  friend class LegacyRecordIterator;  // builds views of inner entries
  LegacyRecordBatchView(Bytes bytes, int64_t position, NullableBytes key, NullableBytes value)
      : bytes_(bytes), position_(position), key_(key), value_(value) {}
  Bytes bytes_;
  int64_t position_;
  NullableBytes key_;
  NullableBytes value_;
};

// Iterates the records of one legacy entry: the entry itself when uncompressed, or the inner
// entries of a wrapper, with Kafka's offset and timestamp rules applied:
//   - v1 wrapper at offset W whose last inner relative offset is r_last: inner record i gets
//     W - r_last + r_i; W = 0 takes the inner offsets as they are (librdkafka); W < r_last is
//     corrupt.
//   - v0 wrapper: inner offsets are absolute.
//   - v1 LogAppendTime wrapper: every v1 inner record carries the wrapper's timestamp.
// A wrapper is decompressed and its inner entries checked in the constructor, so a corrupt
// wrapper yields no records at all. Records have sequence -1, no headers, and the attributes of
// their own message. Inner CRCs are not enforced (as in Kafka); inner_entry() exposes them.
// Usage:
//   LegacyRecordIterator it(entry);
//   while (it.Next()) Use(it.record());
//   if (!it.status().ok()) ...;
// Key and value spans stay valid for the life of the iterator (and of the entry's bytes).
// Thread safety: not thread-safe.
class LegacyRecordIterator {
 public:
  explicit LegacyRecordIterator(const LegacyRecordBatchView& entry,
                                const ReadOptions& options = {});
  LegacyRecordIterator(const LegacyRecordIterator&) = delete;
  LegacyRecordIterator& operator=(const LegacyRecordIterator&) = delete;

  // Moves to the next record. False at the end or on an error (see status()).
  bool Next();
  const Record& record() const { return record_; }
  // The message the current record came from: the entry itself, or an inner entry (whose
  // position() is its byte index in the decompressed stream). REQUIRES: Next() returned true.
  const LegacyRecordBatchView& inner_entry() const { return inner_[returned_ - 1]; }
  // The current record's timestamp type: the wrapper's for inner records (Kafka's rule).
  TimestampType timestamp_type() const { return timestamp_type_; }
  Status status() const { return status_; }
  // Records returned so far.
  int32_t count() const { return returned_; }

 private:
  Status LoadInner(const ReadOptions& options);
  void Fail(const Status& s);

  LegacyRecordBatchView entry_;
  std::vector<uint8_t> decompressed_;
  std::vector<LegacyRecordBatchView> inner_;  // the entry itself when uncompressed
  std::vector<int64_t> offsets_;              // absolute offset of each inner_ record
  int32_t returned_ = 0;
  bool done_ = false;
  Status status_;
  Record record_;
  TimestampType timestamp_type_ = TimestampType::kNoTimestampType;
};

}  // namespace seglog

#endif  // SEGLOG_RECORD_LEGACY_RECORD_BATCH_H_
