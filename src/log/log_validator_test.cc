// LogValidator: the v2 cases of Kafka's LogValidatorTest, each check's refusal with Kafka's
// exception name and wording, and the append path through Log::AppendAsLeader.
#include "log/log_validator.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "seglog/log.h"
#include "seglog/validation_error.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace bl = batch_layout;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;

constexpr int64_t kNow = 1700000000000;
constexpr CompressionType kAllCodecs[] = {CompressionType::kNone, CompressionType::kGzip,
                                          CompressionType::kSnappy, CompressionType::kLz4,
                                          CompressionType::kZstd};

Bytes Str(const std::string& s) {
  return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// Kafka's test records: values "hello", "there", "beautiful", no keys, at `timestamps`.
std::vector<uint8_t> Records(BatchOptions o, std::vector<int64_t> timestamps, bool keys = false) {
  static const std::string kValues[] = {"hello", "there", "beautiful"};
  RecordBatchBuilder b(o);
  for (size_t i = 0; i < timestamps.size(); ++i) {
    const std::string key = fmt::format("k{}", i);
    EXPECT_TRUE(
        b.Append(timestamps[i], keys ? NullableBytes(Str(key)) : std::nullopt, Str(kValues[i % 3]))
            .ok());
  }
  return *b.Build();
}
std::vector<uint8_t> Records(CompressionType codec, int64_t timestamp, bool keys = false) {
  BatchOptions o;
  o.compression = codec;
  return Records(o, {timestamp, timestamp, timestamp}, keys);
}

// Changes header bytes as a client could, then writes a CRC that matches again.
std::vector<uint8_t> Rewrite(std::vector<uint8_t> batch,
                             const std::function<void(uint8_t*)>& change) {
  change(batch.data());
  StoreBE32(batch.data() + bl::kCrcOffset, Crc32c(Bytes(batch).subspan(bl::kAttributesOffset)));
  return batch;
}
std::vector<uint8_t> WithCountAndDelta(std::vector<uint8_t> batch, int32_t count,
                                       int32_t last_offset_delta) {
  return Rewrite(std::move(batch), [&](uint8_t* h) {
    StoreBE32(h + bl::kRecordsCountOffset, static_cast<uint32_t>(count));
    StoreBE32(h + bl::kLastOffsetDeltaOffset, static_cast<uint32_t>(last_offset_delta));
  });
}

std::vector<int64_t> OffsetsOf(Bytes batch) {
  auto v = RecordBatchView::Parse(batch);
  EXPECT_TRUE(v.ok());
  std::vector<int64_t> out;
  RecordIterator it(*v);
  while (it.Next()) out.push_back(it.record().offset);
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

class LogValidatorTest : public ::testing::Test {
 protected:
  LogValidatorTest() {
    config_.message_timestamp_before_max_ms = 1000;
    config_.message_timestamp_after_max_ms = 1000;
  }
  Result<ValidationResult> Validate(Bytes records, int64_t next_offset = 0,
                                    AppendOrigin origin = AppendOrigin::kClient,
                                    int32_t leader_epoch = kNoPartitionLeaderEpoch) {
    LogValidator::Options o;
    o.topic_partition = "topic-0";
    o.origin = origin;
    o.partition_leader_epoch = leader_epoch;
    o.now_ms = kNow;
    return LogValidator(config_, o).ValidateMessagesAndAssignOffsets(records, next_offset, &out_);
  }
  // The refusal of `records`, with its Kafka exception name checked.
  ValidationError Refusal(Bytes records, std::string_view exception,
                          AppendOrigin origin = AppendOrigin::kClient) {
    auto r = Validate(records, 0, origin);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return {};
    ValidationError e = ValidationError::FromStatus(r.status());
    EXPECT_EQ(e.exception, exception) << r.status().ToString();
    return e;
  }
  RecordBatchView Written() {
    auto v = RecordBatchView::Parse(out_);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->size_in_bytes(), out_.size());
    EXPECT_TRUE(v->ValidateDeep().ok()) << v->ValidateDeep().ToString();
    return *v;
  }

  LogConfig config_;
  std::vector<uint8_t> out_;
};

// --- Offset assignment and in-place writes (Kafka: testRelativeOffsetAssignment*V2,
// checkNonCompressed, checkCompressed, checkRecompression, checkLogAppendTime*).

TEST_F(LogValidatorTest, RelativeOffsetAssignmentV2InPlaceForEveryCodec) {
  for (CompressionType codec : kAllCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    const auto records = Records(codec, kNow);
    auto r = Validate(records, 1234567);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->first_offset, 1234567);
    EXPECT_EQ(r->last_offset, 1234569);
    EXPECT_EQ(r->record_count, 3);
    EXPECT_FALSE(r->rebuilt);
    EXPECT_THAT(OffsetsOf(out_), ElementsAre(1234567, 1234568, 1234569));
    // In place: only the base offset and the leader epoch differ (max timestamp unchanged).
    ASSERT_EQ(out_.size(), records.size());
    EXPECT_TRUE(std::equal(out_.begin() + bl::kMagicOffset, out_.end(),
                           records.begin() + bl::kMagicOffset));
  }
}

TEST_F(LogValidatorTest, NonCompressedAndCompressedKeepProducerFieldsAndStampTheEpoch) {
  for (CompressionType codec : {CompressionType::kNone, CompressionType::kGzip}) {
    SCOPED_TRACE(CompressionName(codec));
    BatchOptions o;
    o.compression = codec;
    o.producer_id = 1324;
    o.producer_epoch = 10;
    o.base_sequence = 984;
    o.is_transactional = true;
    const auto records = Records(o, {kNow - 1, kNow + 1, kNow});
    auto r = Validate(records, 0, AppendOrigin::kClient, /*leader_epoch=*/40);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->rebuilt);
    EXPECT_EQ(r->max_timestamp, kNow + 1);
    const RecordBatchView w = Written();
    EXPECT_EQ(w.timestamp_type(), TimestampType::kCreateTime);
    EXPECT_EQ(w.base_timestamp(), kNow - 1);
    EXPECT_EQ(w.max_timestamp(), kNow + 1);
    EXPECT_EQ(w.producer_id(), 1324);
    EXPECT_EQ(w.producer_epoch(), 10);
    EXPECT_EQ(w.base_sequence(), 984);
    EXPECT_TRUE(w.is_transactional());
    EXPECT_EQ(w.partition_leader_epoch(), 40);
  }
}

TEST_F(LogValidatorTest, RecompressionKeepsProducerFieldsAndTimestamps) {
  config_.compression = CompressionType::kGzip;
  BatchOptions o;
  o.producer_id = 1324;
  o.producer_epoch = 10;
  o.base_sequence = 984;
  o.is_transactional = true;
  auto r = Validate(Records(o, {kNow - 1, kNow + 1, kNow}), 0, AppendOrigin::kClient, 40);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rebuilt);
  EXPECT_EQ(r->max_timestamp, kNow + 1);
  const RecordBatchView w = Written();
  EXPECT_EQ(*w.compression(), CompressionType::kGzip);
  EXPECT_EQ(w.producer_id(), 1324);
  EXPECT_EQ(w.base_sequence(), 984);
  EXPECT_TRUE(w.is_transactional());
  EXPECT_EQ(w.partition_leader_epoch(), 40);
  std::vector<int64_t> timestamps;
  for (RecordIterator it(w); it.Next();) timestamps.push_back(it.record().timestamp);
  EXPECT_THAT(timestamps, ElementsAre(kNow - 1, kNow + 1, kNow));
}

TEST_F(LogValidatorTest, SameCodecIsNotRecompressedAnotherCodecIs) {
  // Kafka: testDifferentLevelDoesNotCauseRecompression, testDifferentCodecCausesRecompression.
  const std::string big(1024, 's');
  BatchOptions o;
  o.compression = CompressionType::kGzip;
  o.compression_level = 9;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(kNow, std::nullopt, Str(big)).ok());
  const auto gzip_max = *b.Build();
  config_.compression = CompressionType::kGzip;
  ASSERT_TRUE(Validate(gzip_max).ok());
  EXPECT_TRUE(std::equal(out_.begin() + bl::kRecordsOffset, out_.end(),
                         gzip_max.begin() + bl::kRecordsOffset, gzip_max.end()));
  config_.compression = CompressionType::kLz4;
  auto r = Validate(gzip_max);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rebuilt);
  EXPECT_EQ(*Written().compression(), CompressionType::kLz4);
}

TEST_F(LogValidatorTest, LogAppendTimeWithAndWithoutRecompression) {
  config_.message_timestamp_type = TimestampType::kLogAppendTime;
  for (auto [source, target] : {std::pair{CompressionType::kNone, CompressionType::kNone},
                                {CompressionType::kGzip, CompressionType::kGzip},
                                {CompressionType::kNone, CompressionType::kGzip}}) {
    SCOPED_TRACE(fmt::format("{} -> {}", CompressionName(source), CompressionName(target)));
    config_.compression = target;
    const auto records = Records(source, 1234);
    auto r = Validate(records);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->rebuilt, source != target);
    if (source == target) {
      EXPECT_EQ(out_.size(), records.size());
    }
    EXPECT_EQ(r->max_timestamp, kNow);
    EXPECT_EQ(r->log_append_time, kNow);
    const RecordBatchView w = Written();
    EXPECT_EQ(w.timestamp_type(), TimestampType::kLogAppendTime);
    EXPECT_EQ(w.max_timestamp(), kNow);
    EXPECT_EQ(w.base_timestamp(), 1234);
    for (RecordIterator it(w); it.Next();) EXPECT_EQ(it.record().timestamp, kNow);
  }
}

// --- Batch checks (Kafka: validateBatch and analyzeAndValidateRecords).

TEST_F(LogValidatorTest, InconsistentCountAndOffsetRangeAreRefused) {
  // Kafka: testRecordBatchWithCountOverrides, testInconsistentCountAndOffset,
  // testUnmatchedNumberOfRecords.
  config_.message_timestamp_type = TimestampType::kLogAppendTime;
  const auto records = Records(CompressionType::kNone, 1234);
  EXPECT_TRUE(Validate(WithCountAndDelta(records, 3, 2)).ok());
  EXPECT_THAT(Refusal(WithCountAndDelta(records, 3, 0), "InvalidRecordException").message,
              "Inconsistent batch offset range [0, 0] and count of records 3 in topic partition "
              "topic-0");
  EXPECT_THAT(Refusal(WithCountAndDelta(records, 3, 15), "InvalidRecordException").message,
              "Inconsistent batch offset range [0, 15] and count of records 3 in topic "
              "partition topic-0");
  EXPECT_THAT(Refusal(WithCountAndDelta(records, 3, -3), "InvalidRecordException").message,
              "Batch has an invalid offset range: [0, -3] in topic partition topic-0");
  // Consistent header, but not the records that are there.
  for (CompressionType codec : {CompressionType::kNone, CompressionType::kGzip}) {
    SCOPED_TRACE(CompressionName(codec));
    const auto three = Records(codec, 1234);
    EXPECT_THAT(Refusal(WithCountAndDelta(three, 6, 5), "InvalidRecordException").message,
                StartsWith("Incorrect declared batch size, premature EOF reached ("));
    EXPECT_THAT(Refusal(WithCountAndDelta(three, 2, 1), "InvalidRecordException").message,
                StartsWith("Incorrect declared batch size, records still remaining in file ("));
  }
}

TEST_F(LogValidatorTest, ABatchWithoutRecordsIsRefusedForEveryCodecPair) {
  // Kafka: testBatchWithoutRecordsNotAllowed (an empty header with lastOffsetDelta 5).
  for (CompressionType source : kAllCodecs) {
    for (CompressionType target : kAllCodecs) {
      config_.compression = target;
      const auto empty = WithCountAndDelta(
          Rewrite(Records(source, kNow),
                  [&](uint8_t* h) {
                    StoreBE32(h + bl::kLengthOffset, bl::kRecordBatchOverhead - bl::kLogOverhead);
                  }),
          0, 5);
      const std::vector<uint8_t> header(empty.begin(), empty.begin() + bl::kRecordBatchOverhead);
      const auto fixed = Rewrite(header, [](uint8_t*) {});
      EXPECT_EQ(Refusal(fixed, "InvalidRecordException").message,
                "Invalid reported count for record batch: 0 in topic partition topic-0");
    }
  }
}

TEST_F(LogValidatorTest, OnlyOneBatchPerAppend) {
  // Kafka: checkOnlyOneBatch (v2).
  for (CompressionType codec : kAllCodecs) {
    auto two = Records(codec, kNow);
    const auto second = Records(codec, kNow);
    two.insert(two.end(), second.begin(), second.end());
    EXPECT_EQ(Refusal(two, "InvalidRecordException").message,
              "Compressed outer record has more than one batch");
  }
}

TEST_F(LogValidatorTest, NonSequentialInnerOffsetsInACompressedBatchAreRefused) {
  // Kafka: testValidationOfBatchesWithNonSequentialInnerOffsets - 20 records all at offset 0.
  BatchOptions o;
  o.compression = CompressionType::kGzip;
  o.last_offset_delta = 0;
  RecordBatchBuilder b(o);
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i) names.push_back(fmt::format("{}", i));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(b.AppendWithOffset(i, kNow, std::nullopt, Str(names[static_cast<size_t>(i)])).ok());
  }
  auto batch = *b.Build();
  EXPECT_THAT(Refusal(batch, "InvalidRecordException").message,
              HasSubstr("Inconsistent batch offset range [0, 0] and count of records 20"));
}

TEST_F(LogValidatorTest, OffsetDeltasNotFromZeroRebuildCompressedRefuseUncompressed) {
  // Deltas 0 and 2 under a header that says 2 records, lastOffsetDelta 1: Kafka rebuilds a
  // compressed batch with consecutive offsets; an uncompressed one it would write as it came,
  // which seglog refuses.
  for (CompressionType codec : {CompressionType::kGzip, CompressionType::kNone}) {
    SCOPED_TRACE(CompressionName(codec));
    BatchOptions o;
    o.compression = codec;
    o.last_offset_delta = 1;
    RecordBatchBuilder b(o);
    ASSERT_TRUE(b.AppendWithOffset(0, kNow, Str("a"), Str("x")).ok());
    ASSERT_TRUE(b.AppendWithOffset(2, kNow, Str("b"), Str("y")).ok());
    const auto batch = *b.Build();
    if (codec == CompressionType::kGzip) {
      auto r = Validate(batch, 100);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_TRUE(r->rebuilt);
      EXPECT_EQ(*Written().compression(), CompressionType::kGzip);
      EXPECT_THAT(OffsetsOf(out_), ElementsAre(100, 101));
    } else {
      ValidationError e = Refusal(batch, "InvalidRecordException");
      ASSERT_EQ(e.record_errors.size(), 1u);
      EXPECT_EQ(e.record_errors[0].batch_index, 1);
      EXPECT_THAT(e.record_errors[0].message, HasSubstr("offset delta 2 is not the expected 1"));
    }
  }
}

TEST_F(LogValidatorTest, ControlBatchesOnlyFromACoordinatorAndNeverCompressed) {
  // Kafka: testControlRecordsNotAllowedFromClients, testControlRecordsNotCompressed.
  BatchOptions o;
  o.is_control = true;
  o.is_transactional = true;
  o.producer_id = 23423;
  o.producer_epoch = 5;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.AppendEndTxnMarker(ControlRecordType::kCommit, 0, kNow).ok());
  const auto marker = *b.Build();
  EXPECT_EQ(Refusal(marker, "InvalidRecordException").message,
            "Clients are not allowed to write control records in topic partition topic-0");
  config_.compression = CompressionType::kSnappy;
  auto r = Validate(marker, 1234567, AppendOrigin::kCoordinator);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const RecordBatchView w = Written();
  EXPECT_TRUE(w.is_control());
  EXPECT_EQ(*w.compression(), CompressionType::kNone);
  EXPECT_EQ(w.base_offset(), 1234567);
}

TEST_F(LogValidatorTest, AProducerIdNeedsASequenceForEveryCodecPair) {
  // Kafka: checkInvalidSequence (v2), base sequence overwritten with -2.
  for (CompressionType source : kAllCodecs) {
    for (CompressionType target : kAllCodecs) {
      config_.compression = target;
      BatchOptions o;
      o.compression = source;
      o.producer_id = 1234;
      o.producer_epoch = 0;
      o.base_sequence = 0;
      auto batch = Rewrite(Records(o, {kNow}), [](uint8_t* h) {
        StoreBE32(h + bl::kBaseSequenceOffset, static_cast<uint32_t>(-2));
      });
      EXPECT_EQ(Refusal(batch, "InvalidRecordException").message,
                "Invalid sequence number -2 in record batch with producerId 1234 in topic "
                "partition topic-0");
    }
  }
}

TEST_F(LogValidatorTest, ClientBatchesStartAtOffsetZero) {
  auto batch = Rewrite(Records(CompressionType::kNone, kNow),
                       [](uint8_t* h) { StoreBE64(h + bl::kBaseOffsetOffset, 42); });
  EXPECT_EQ(Refusal(batch, "InvalidRecordException").message,
            "The baseOffset of the record batch in the append to topic-0 should be 0, but it is "
            "42");
  auto r = Validate(batch, 7, AppendOrigin::kCoordinator);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(OffsetsOf(out_), ElementsAre(7, 8, 9));
}

TEST_F(LogValidatorTest, SizeCrcCodecAndMagicAreCheckedFirst) {
  const auto good = Records(CompressionType::kNone, kNow);
  config_.max_message_bytes = static_cast<int32_t>(good.size()) - 1;
  EXPECT_EQ(Refusal(good, "RecordTooLargeException").message,
            fmt::format("The record batch size in the append to topic-0 is {} bytes which exceeds "
                        "the maximum configured value of {}).",
                        good.size(), good.size() - 1));
  config_.max_message_bytes = 1 << 20;

  auto corrupt = good;
  corrupt.back() ^= 1;
  auto r = Validate(corrupt);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_THAT(ValidationError::FromStatus(r.status()).message,
              StartsWith(fmt::format("Record is corrupt (stored crc = {}) in topic partition "
                                     "topic-0.",
                                     LoadBE32(good.data() + bl::kCrcOffset))));
  EXPECT_EQ(ValidationError::FromStatus(r.status()).error_code, kafka_error::kCorruptMessage);

  auto codec7 = Rewrite(good, [](uint8_t* h) { h[bl::kAttributesOffset + 1] |= 0x07; });
  EXPECT_EQ(Refusal(codec7, "UnsupportedCompressionTypeException").message,
            "Unknown compression type id: 7 in topic partition topic-0");

  auto v1 = good;
  v1[bl::kMagicOffset] = 1;
  EXPECT_THAT(Refusal(v1, "InvalidRecordException").message, HasSubstr("v2 batches only"));
}

TEST_F(LogValidatorTest, ARebuiltBatchOverMaxMessageBytesIsRefused) {
  // Incompressible values grow under gzip's framing.
  std::mt19937 rng(7);
  std::string noise(4000, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  BatchOptions o;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(kNow, std::nullopt, Str(noise)).ok());
  const auto batch = *b.Build();
  config_.max_message_bytes = static_cast<int32_t>(batch.size());
  config_.compression = CompressionType::kGzip;
  ValidationError e = Refusal(batch, "RecordTooLargeException");
  EXPECT_THAT(e.message, StartsWith("Message batch size is "));
  EXPECT_THAT(e.message,
              HasSubstr(fmt::format("bytes in append to partition topic-0 which exceeds the "
                                    "maximum configured size of {}.",
                                    batch.size())));
}

// --- Record checks (Kafka: validateRecord, processRecordErrors).

TEST_F(LogValidatorTest, TimestampsOutsideTheWindowAreRecordErrors) {
  // Kafka: testInvalidCreateTime*V2, testRecordWith{Past,Future}TimestampIsRejected,
  // testInvalidTimestampExceptionHasBatchIndex.
  for (CompressionType codec : {CompressionType::kNone, CompressionType::kGzip}) {
    for (int64_t ts : {kNow - 1001, kNow + 1001}) {
      ValidationError e = Refusal(Records(codec, ts), "InvalidTimestampException");
      EXPECT_EQ(e.error_code, kafka_error::kInvalidTimestamp);
      EXPECT_EQ(e.message, "One or more records have been rejected due to invalid timestamp");
      ASSERT_EQ(e.record_errors.size(), 3u);
      for (int32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(e.record_errors[i].batch_index, i);
        EXPECT_EQ(e.record_errors[i].message,
                  fmt::format("Timestamp {} of message with offset {} is out of range. The "
                              "timestamp should be within [{}, {}]",
                              ts, i, kNow - 1000, kNow + 1000));
      }
    }
    EXPECT_TRUE(Validate(Records(codec, kNow - 1000)).ok());
    EXPECT_TRUE(Validate(Records(codec, kNow + 1000)).ok());
  }
}

TEST_F(LogValidatorTest, RecordsWithoutATimestampSkipTheWindow) {
  EXPECT_TRUE(Validate(Records(CompressionType::kNone, kNoTimestamp)).ok());
  EXPECT_EQ(Written().max_timestamp(), kNoTimestamp);
}

TEST_F(LogValidatorTest, TheDefaultWindowPrintsJavasLowerBound) {
  config_.message_timestamp_before_max_ms = INT64_MAX;
  ValidationError e =
      Refusal(Records(CompressionType::kNone, kNow + 1001), "InvalidTimestampException");
  ASSERT_FALSE(e.record_errors.empty());
  EXPECT_THAT(e.record_errors[0].message,
              HasSubstr(fmt::format("[{}, {}]", kNow - INT64_MAX, kNow + 1000)));
}

TEST_F(LogValidatorTest, ProducerSetLogAppendTimeIsARecordError) {
  BatchOptions o;
  o.timestamp_type = TimestampType::kLogAppendTime;
  o.log_append_time = kNow;
  const auto batch = Records(o, {kNow, kNow, kNow});
  config_.message_timestamp_type = TimestampType::kLogAppendTime;
  ValidationError e = Refusal(batch, "InvalidTimestampException");
  ASSERT_EQ(e.record_errors.size(), 3u);
  EXPECT_EQ(e.record_errors[1].message,
            fmt::format("Invalid timestamp type in message DefaultRecord(offset=1, timestamp={}, "
                        "key=0 bytes, value=5 bytes). Producer should not set timestamp type to "
                        "LogAppendTime.",
                        kNow));
  // A CreateTime topic checks such a batch's timestamp (its maxTimestamp) against the window.
  config_.message_timestamp_type = TimestampType::kCreateTime;
  EXPECT_TRUE(Validate(batch).ok());
  EXPECT_EQ(Written().timestamp_type(), TimestampType::kCreateTime);
}

TEST_F(LogValidatorTest, CompactedTopicsRefuseKeylessRecordsForEveryCodec) {
  // Kafka: checkNoKeyCompactedTopic.
  config_.cleanup_compact = true;
  for (CompressionType codec : kAllCodecs) {
    SCOPED_TRACE(CompressionName(codec));
    ValidationError e = Refusal(Records(codec, kNow), "InvalidRecordException");
    EXPECT_EQ(e.error_code, kafka_error::kInvalidRecord);
    const std::string one =
        "Compacted topic cannot accept message without key in topic "
        "partition topic-0";
    EXPECT_EQ(e.message,
              fmt::format("One or more records have been rejected due to 3 record errors in "
                          "total, and only showing the first three errors at most: "
                          "[RecordError(batchIndex=0, message='{0}'), RecordError(batchIndex=1, "
                          "message='{0}'), RecordError(batchIndex=2, message='{0}')]",
                          one));
    ASSERT_EQ(e.record_errors.size(), 3u);
    EXPECT_EQ(e.record_errors[2], (RecordError{2, one}));
    EXPECT_TRUE(Validate(Records(codec, kNow, /*keys=*/true)).ok());
  }
}

TEST_F(LogValidatorTest, ATimestampErrorNamesTheRefusalAndAKeyErrorHidesIt) {
  // Kafka: testBatchWithInvalidRecordsAndInvalidTimestamp - InvalidTimestampException wins;
  // a record without a key is not checked for its timestamp.
  config_.cleanup_compact = true;
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(kNow - 5000, std::nullopt, Str("no key, bad time")).ok());
  ASSERT_TRUE(b.Append(kNow - 5000, Str("k"), Str("bad time")).ok());
  ASSERT_TRUE(b.Append(kNow, std::nullopt, Str("no key")).ok());
  ValidationError e = Refusal(*b.Build(), "InvalidTimestampException");
  ASSERT_EQ(e.record_errors.size(), 3u);
  EXPECT_THAT(e.record_errors[0].message, StartsWith("Compacted topic"));
  EXPECT_THAT(e.record_errors[1].message, StartsWith("Timestamp "));
  EXPECT_THAT(e.record_errors[2].message, StartsWith("Compacted topic"));
}

TEST_F(LogValidatorTest, MalformedRecordsAreInvalidRecords) {
  // A header whose key length is -1 (DefaultRecord: "Invalid negative header key size").
  RecordBatchBuilder b{BatchOptions{}};
  const Header h{"h", std::nullopt};
  ASSERT_TRUE(b.Append(kNow, Str("k"), Str("v"), std::span<const Header>(&h, 1)).ok());
  auto batch = *b.Build();
  ASSERT_EQ(batch[batch.size() - 3], 0x02);  // key length 1, then 'h', then null value
  batch = Rewrite(batch, [&](uint8_t* p) { p[batch.size() - 3] = 0x01; });
  EXPECT_THAT(Refusal(batch, "InvalidRecordException").message,
              AllOf(StartsWith("Found invalid record structure ("), HasSubstr("key length")));

  // A compressed section that does not inflate.
  auto gz = Records(CompressionType::kGzip, kNow);
  gz = Rewrite(gz, [&](uint8_t* p) {
    for (size_t i = bl::kRecordsOffset + 10; i < gz.size(); ++i) p[i] ^= 0x5a;
  });
  ValidationError e = Refusal(gz, "KafkaException");
  EXPECT_EQ(e.error_code, kafka_error::kUnknownServerError);
  EXPECT_THAT(e.message, StartsWith("Failed to decompress record stream"));
}

TEST(ValidationErrorTest, MapsKafkaExceptionNamesToErrorCodes) {
  EXPECT_EQ(KafkaErrorCode("InvalidRecordException"), 87);
  EXPECT_EQ(KafkaErrorCode("CorruptRecordException"), 2);
  EXPECT_EQ(KafkaErrorCode("RecordTooLargeException"), 10);
  EXPECT_EQ(KafkaErrorCode("InvalidTimestampException"), 32);
  EXPECT_EQ(KafkaErrorCode("RecordBatchTooLargeException"), 18);
  EXPECT_EQ(KafkaErrorCode("UnsupportedCompressionTypeException"), 76);
  EXPECT_EQ(KafkaErrorCode("KafkaException"), -1);
  ValidationError e = ValidationError::FromStatus(
      Status::InvalidArgument("InvalidRecordException: bad").WithRecordErrors({{4, "why"}}));
  EXPECT_EQ(e.exception, "InvalidRecordException");
  EXPECT_EQ(e.error_code, 87);
  EXPECT_EQ(e.message, "bad");
  EXPECT_THAT(e.record_errors, ElementsAre(RecordError{4, "why"}));
  e = ValidationError::FromStatus(Status::IOError("disk: gone"));
  EXPECT_EQ(e.exception, "UnknownServerException");
  EXPECT_EQ(e.message, "disk: gone");
}

// --- Through Log::AppendAsLeader.

class LogAppendValidationTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(LogConfig config = {}) {
    LogOptions o;
    o.clock = [] { return kNow; };
    auto log = Log::Open(tmp_.path() + "/topic-3", config, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return std::move(log).value();
  }
  TempDir tmp_;
};

TEST_F(LogAppendValidationTest, ALastOffsetDeltaBeyondTheRecordCountIsRefused) {
  auto log = OpenLog();
  ASSERT_TRUE(log->AppendAsLeader(testing::ProducerBatch(0, 10, 10, kNow)).ok());
  ASSERT_EQ(log->log_end_offset(), 10);
  const int64_t size = log->size_in_bytes();
  for (int32_t delta : {1000000, -5, 0}) {
    SCOPED_TRACE(delta);
    auto batch = WithCountAndDelta(testing::ProducerBatch(0, 10, 10, kNow), 10, delta);
    Status s = log->AppendAsLeader(batch).status();
    EXPECT_THAT(s.ToString(), HasSubstr("InvalidArgument: InvalidRecordException: "));
    EXPECT_THAT(s.ToString(), HasSubstr("in topic partition topic-3"));
    EXPECT_EQ(log->log_end_offset(), 10);
    EXPECT_EQ(log->size_in_bytes(), size);
  }
  auto ok = log->AppendAsLeader(testing::ProducerBatch(0, 10, 10, kNow));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->first_offset, 10);
  EXPECT_EQ(log->log_end_offset(), 20);
}

TEST_F(LogAppendValidationTest, RecordErrorsReachTheCaller) {
  LogConfig c;
  c.cleanup_compact = true;
  auto log = OpenLog(c);
  BatchOptions o;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(kNow, Str("k"), Str("v")).ok());
  ASSERT_TRUE(b.Append(kNow, std::nullopt, Str("v")).ok());
  Status s = log->AppendAsLeader(*b.Build()).status();
  ValidationError e = ValidationError::FromStatus(s);
  EXPECT_EQ(e.exception, "InvalidRecordException");
  EXPECT_THAT(e.record_errors,
              ElementsAre(RecordError{1,
                                      "Compacted topic cannot accept message without key in "
                                      "topic partition topic-3"}));
  EXPECT_EQ(log->log_end_offset(), 0);
}

TEST_F(LogAppendValidationTest, ACoordinatorWritesTransactionMarkers) {
  auto log = OpenLog();
  BatchOptions o;
  o.is_control = true;
  o.is_transactional = true;
  o.producer_id = 5;
  o.producer_epoch = 1;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.AppendEndTxnMarker(ControlRecordType::kAbort, 3, kNow).ok());
  const auto marker = *b.Build();
  EXPECT_THAT(log->AppendAsLeader(marker).status().ToString(),
              HasSubstr("Clients are not allowed to write control records"));
  auto r = log->AppendAsLeader(marker, 0, AppendOrigin::kCoordinator);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(log->log_end_offset(), 1);
}

}  // namespace
}  // namespace seglog
