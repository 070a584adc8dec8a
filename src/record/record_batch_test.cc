#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "seglog/record_batch.h"
#include "tests/support/bytes.h"

namespace seglog {
namespace {

using testing::AsBytes;
using ::testing::HasSubstr;

std::vector<uint8_t> MustBuild(const RecordBatchBuilder& b) {
  auto r = b.Build();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<uint8_t>{};
}

TEST(RecordBatchTest, FactSheetVectorByteForByte) {
  // docs/format/record_batch.md, "13. Worked example: the 70-byte batch": key "k", value "v",
  // base offset 0, leader epoch 0, CreateTime 1700000000000, no producer, uncompressed: 70
  // bytes, crc 0xE99B8DD8.
  BatchOptions o;
  o.partition_leader_epoch = 0;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(1700000000000, AsBytes("k"), AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  const std::vector<uint8_t> expected = {
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0x3a, 0,    0,
      0,    0,    0x02, 0xe9, 0x9b, 0x8d, 0xd8, 0,    0,    0,    0,    0,    0,    0,
      0,    0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0,    0,    0x01, 0x8b, 0xcf, 0xe5, 0x68,
      0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0,    0,    0,    0x01, 0x10, 0,    0,    0,    0x02, 0x6b, 0x02, 0x76, 0x00};
  EXPECT_EQ(bytes, expected);
}

TEST(RecordBatchTest, NullVersusEmptyKeysValuesAndHeaders) {
  BatchOptions o;
  o.base_offset = 42;
  RecordBatchBuilder b(o);
  const std::vector<uint8_t> empty;
  Header headers[] = {{"h-null", std::nullopt}, {"h-empty", Bytes(empty)}, {"", AsBytes("x")}};
  ASSERT_TRUE(b.Append(5, std::nullopt, std::nullopt).ok());
  ASSERT_TRUE(b.Append(6, Bytes(empty), Bytes(empty), headers).ok());
  ASSERT_TRUE(b.Append(4, AsBytes("key"), AsBytes("value")).ok());  // earlier timestamp
  auto bytes = MustBuild(b);
  auto view = RecordBatchView::Parse(bytes);
  ASSERT_TRUE(view.ok());
  ASSERT_TRUE(view->ValidateDeep().ok()) << view->ValidateDeep().ToString();
  EXPECT_EQ(view->base_offset(), 42);
  EXPECT_EQ(view->last_offset(), 44);
  EXPECT_EQ(view->base_timestamp(), 5);
  EXPECT_EQ(view->max_timestamp(), 6);
  RecordIterator it(*view);
  ASSERT_TRUE(it.Next());
  EXPECT_FALSE(it.record().key.has_value());
  EXPECT_FALSE(it.record().value.has_value());
  EXPECT_TRUE(it.record().headers.empty());
  ASSERT_TRUE(it.Next());
  ASSERT_TRUE(it.record().key.has_value());
  EXPECT_TRUE(it.record().key->empty());
  EXPECT_TRUE(it.record().value->empty());
  ASSERT_EQ(it.record().headers.size(), 3u);
  EXPECT_EQ(it.record().headers[0].key, "h-null");
  EXPECT_FALSE(it.record().headers[0].value.has_value());
  EXPECT_TRUE(it.record().headers[1].value->empty());
  EXPECT_EQ(it.record().headers[2].key, "");
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(it.record().offset, 44);
  EXPECT_EQ(it.record().timestamp, 4);
  EXPECT_FALSE(it.Next());
  EXPECT_TRUE(it.status().ok());
}

TEST(RecordBatchTest, LogAppendTimeReportsAppendTimeForEveryRecord) {
  BatchOptions o;
  o.timestamp_type = TimestampType::kLogAppendTime;
  o.log_append_time = 999999;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(10, AsBytes("a"), AsBytes("1")).ok());
  ASSERT_TRUE(b.Append(20, AsBytes("b"), AsBytes("2")).ok());
  auto bytes = MustBuild(b);
  auto view = RecordBatchView::Parse(bytes);
  EXPECT_EQ(view->timestamp_type(), TimestampType::kLogAppendTime);
  EXPECT_EQ(view->max_timestamp(), 999999);
  RecordIterator it(*view);
  while (it.Next()) EXPECT_EQ(it.record().timestamp, 999999);
  EXPECT_EQ(it.count(), 2);
}

TEST(RecordBatchTest, ProducerFieldsAndSequenceWrap) {
  BatchOptions o;
  o.producer_id = 77;
  o.producer_epoch = 3;
  o.base_sequence = INT32_MAX - 1;
  o.is_transactional = true;
  RecordBatchBuilder b(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(b.Append(i, std::nullopt, AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  auto view = RecordBatchView::Parse(bytes);
  EXPECT_EQ(view->producer_id(), 77);
  EXPECT_EQ(view->producer_epoch(), 3);
  EXPECT_TRUE(view->is_transactional());
  EXPECT_FALSE(view->is_control());
  EXPECT_EQ(view->last_sequence(), 1);
  std::vector<int32_t> seqs;
  RecordIterator it(*view);
  while (it.Next()) seqs.push_back(it.record().sequence);
  EXPECT_EQ(seqs, (std::vector<int32_t>{INT32_MAX - 1, INT32_MAX, 0, 1}));
}

TEST(RecordBatchTest, ControlBatchCarriesEndTransactionMarker) {
  BatchOptions o;
  o.is_control = true;
  o.is_transactional = true;
  o.producer_id = 9;
  o.producer_epoch = 1;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.AppendEndTxnMarker(ControlRecordType::kAbort, 17, 123).ok());
  EXPECT_FALSE(b.AppendEndTxnMarker(ControlRecordType::kLeaderChange, 1, 1).ok());
  auto bytes = MustBuild(b);
  auto view = RecordBatchView::Parse(bytes);
  EXPECT_TRUE(view->is_control());
  RecordIterator it(*view);
  ASSERT_TRUE(it.Next());
  auto key = ParseControlRecordKey(it.record().key);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->type(), ControlRecordType::kAbort);
  auto marker = ParseEndTransactionMarker(it.record().value);
  ASSERT_TRUE(marker.ok());
  EXPECT_EQ(marker->coordinator_epoch, 17);
  // Data batches refuse markers; short keys and values are invalid.
  RecordBatchBuilder data{BatchOptions{}};
  EXPECT_FALSE(data.AppendEndTxnMarker(ControlRecordType::kCommit, 1, 1).ok());
  const uint8_t short_key[3] = {0, 0, 1};
  EXPECT_TRUE(ParseControlRecordKey(Bytes(short_key, 3)).status().IsCorruption());
  EXPECT_TRUE(ParseControlRecordKey(std::nullopt).status().IsCorruption());
  const uint8_t neg_version[4] = {0xff, 0xff, 0, 1};
  EXPECT_TRUE(ParseControlRecordKey(Bytes(neg_version, 4)).status().IsCorruption());
  const uint8_t unknown_type[4] = {0, 0, 0, 99};
  EXPECT_EQ(ParseControlRecordKey(Bytes(unknown_type, 4))->type(), ControlRecordType::kUnknown);
  EXPECT_TRUE(ParseEndTransactionMarker(Bytes(short_key, 3)).status().IsCorruption());
}

TEST(RecordBatchTest, DeleteHorizonStampsBaseTimestamp) {
  BatchOptions o;
  o.delete_horizon_ms = 5000;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(100, AsBytes("k"), std::nullopt).ok());
  ASSERT_TRUE(b.Append(200, AsBytes("k2"), AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  auto view = RecordBatchView::Parse(bytes);
  EXPECT_TRUE(view->has_delete_horizon());
  EXPECT_EQ(view->delete_horizon_ms(), 5000);
  EXPECT_EQ(view->base_timestamp(), 5000);
  EXPECT_EQ(view->max_timestamp(), 200);
  RecordIterator it(*view);
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(it.record().timestamp, 100);
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(it.record().timestamp, 200);
}

TEST(RecordBatchTest, EveryCodecRoundTripsThroughTheBuilder) {
  for (auto c : {CompressionType::kNone, CompressionType::kGzip, CompressionType::kSnappy,
                 CompressionType::kLz4, CompressionType::kZstd}) {
    BatchOptions o;
    o.compression = c;
    o.base_offset = 1000;
    RecordBatchBuilder b(o);
    std::vector<std::string> values;
    for (int i = 0; i < 500; ++i) values.push_back("value-" + std::to_string(i * 7919));
    for (int i = 0; i < 500; ++i) {
      std::string key = "key-" + std::to_string(i % 37);
      ASSERT_TRUE(b.Append(1000 + i, AsBytes(key), AsBytes(values[i])).ok());
    }
    auto bytes = MustBuild(b);
    auto view = RecordBatchView::Parse(bytes);
    ASSERT_TRUE(view.ok());
    EXPECT_EQ(*view->compression(), c);
    ASSERT_TRUE(view->ValidateDeep().ok()) << view->ValidateDeep().ToString();
    RecordIterator it(*view);
    int i = 0;
    while (it.Next()) {
      EXPECT_EQ(it.record().offset, 1000 + i);
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(it.record().value->data()),
                            it.record().value->size()),
                values[i]);
      ++i;
    }
    EXPECT_TRUE(it.status().ok());
    EXPECT_EQ(i, 500);
  }
}

TEST(RecordBatchTest, IteratorsSharingAScratchBufferReadTheirOwnBatch) {
  // ReadOptions::scratch: one buffer reused by the iterators of consecutive compressed batches,
  // large then small, as Log's validation reuses it across appends.
  for (auto c : {CompressionType::kGzip, CompressionType::kSnappy, CompressionType::kLz4,
                 CompressionType::kZstd}) {
    std::vector<uint8_t> scratch;
    for (int n : {400, 3, 250}) {
      BatchOptions o;
      o.compression = c;
      RecordBatchBuilder b(o);
      for (int i = 0; i < n; ++i) {
        const std::string v = fmt::format("{}-value-{}", n, i);
        ASSERT_TRUE(b.Append(1000 + i, std::nullopt, AsBytes(v)).ok());
      }
      auto bytes = MustBuild(b);
      auto view = RecordBatchView::Parse(bytes);
      ASSERT_TRUE(view.ok());
      ReadOptions ro;
      ro.scratch = &scratch;
      RecordIterator it(*view, ro);
      int i = 0;
      while (it.Next()) {
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(it.record().value->data()),
                              it.record().value->size()),
                  fmt::format("{}-value-{}", n, i));
        ++i;
      }
      ASSERT_TRUE(it.status().ok()) << it.status().ToString();
      EXPECT_EQ(i, n) << CompressionName(c);
    }
  }
}

TEST(RecordBatchTest, BuilderRefusesBadInput) {
  RecordBatchBuilder empty{BatchOptions{}};
  EXPECT_FALSE(empty.Build().ok());
  BatchOptions o;
  o.base_offset = 10;
  RecordBatchBuilder b(o);
  EXPECT_TRUE(b.AppendWithOffset(9, 0, std::nullopt, std::nullopt).IsInvalidArgument());
  EXPECT_TRUE(b.AppendWithOffset(12, 0, std::nullopt, std::nullopt).ok());
  EXPECT_TRUE(b.AppendWithOffset(12, 0, std::nullopt, std::nullopt).IsInvalidArgument());
  EXPECT_TRUE(b.Append(-5, std::nullopt, std::nullopt).IsInvalidArgument());
  BatchOptions bad_level;
  bad_level.compression = CompressionType::kGzip;
  bad_level.compression_level = 42;
  RecordBatchBuilder bl(bad_level);
  EXPECT_TRUE(bl.Append(1, std::nullopt, std::nullopt).IsInvalidArgument());
}

TEST(RecordBatchTest, ParseRefusesShortBadMagicAndLyingLength) {
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(1, AsBytes("k"), AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  EXPECT_THAT(RecordBatchView::Parse(Bytes(bytes).first(60), 7).status().ToString(),
              HasSubstr("position 7"));
  auto bad_magic = bytes;
  bad_magic[16] = 1;
  EXPECT_THAT(RecordBatchView::Parse(bad_magic).status().ToString(),
              HasSubstr("magic: expected 2, found 1"));
  auto long_len = bytes;
  StoreBE32(long_len.data() + 8, 1000);
  EXPECT_THAT(RecordBatchView::Parse(long_len).status().ToString(),
              HasSubstr("only 70 are available"));
  auto short_len = bytes;
  StoreBE32(short_len.data() + 8, 10);
  EXPECT_THAT(RecordBatchView::Parse(short_len).status().ToString(),
              HasSubstr("below the 61-byte"));
}

// Rewrites the CRC so that a deliberately bad field gets past the checksum and reaches the
// record parser: how we test the checks behind the CRC.
void Recrc(std::vector<uint8_t>* b) { StoreBE32(b->data() + 17, Crc32c(Bytes(*b).subspan(21))); }

TEST(RecordBatchTest, LyingFieldsBehindAValidCrcAreCaught) {
  RecordBatchBuilder b{BatchOptions{}};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(b.Append(1, AsBytes("k"), AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  {
    auto x = bytes;  // one more record declared than present
    StoreBE32(x.data() + 57, 4);
    StoreBE32(x.data() + 23, 3);
    Recrc(&x);
    auto s = RecordBatchView::Parse(x)->ValidateDeep();
    EXPECT_TRUE(s.IsCorruption());
    EXPECT_THAT(s.ToString(), HasSubstr("record 3"));
  }
  {
    auto x = bytes;  // fewer records declared: bytes left over
    StoreBE32(x.data() + 57, 2);
    Recrc(&x);
    EXPECT_THAT(RecordBatchView::Parse(x)->ValidateDeep().ToString(),
                HasSubstr("Incorrect declared batch size"));
  }
  {
    auto x = bytes;  // more records than lastOffsetDelta allows
    StoreBE32(x.data() + 23, 1);
    Recrc(&x);
    EXPECT_THAT(RecordBatchView::Parse(x)->ValidateDeep().ToString(),
                HasSubstr("does not fit lastOffsetDelta"));
  }
  {
    auto x = bytes;  // negative count
    StoreBE32(x.data() + 57, static_cast<uint32_t>(-1));
    Recrc(&x);
    EXPECT_THAT(RecordBatchView::Parse(x)->ValidateDeep().ToString(), HasSubstr("recordsCount"));
  }
  {
    auto x = bytes;  // unknown codec 6
    x[22] = static_cast<uint8_t>((x[22] & ~0x07) | 0x06);
    Recrc(&x);
    EXPECT_THAT(RecordBatchView::Parse(x)->ValidateDeep().ToString(),
                HasSubstr("unknown compression type id 6"));
  }
  {
    auto x = bytes;  // first record's length varint claims more than the batch holds
    x[61] = 0x7e;    // zigzag 63
    Recrc(&x);
    auto s = RecordBatchView::Parse(x, 512)->ValidateDeep();
    EXPECT_THAT(s.ToString(), HasSubstr("record 0"));
    EXPECT_THAT(s.ToString(), HasSubstr("byte 573"));  // 512 + 61
  }
}

TEST(RecordBatchTest, CrcMismatchNamesPositionAndBothValues) {
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(1, AsBytes("k"), AsBytes("v")).ok());
  auto bytes = MustBuild(b);
  bytes.back() ^= 1;
  auto view = RecordBatchView::Parse(bytes, 2731);
  ASSERT_TRUE(view.ok());
  EXPECT_FALSE(view->IsValid());
  Status s = view->ValidateCrc();
  EXPECT_THAT(s.ToString(), HasSubstr("position 2731"));
  EXPECT_THAT(s.ToString(), HasSubstr("stored"));
  EXPECT_THAT(s.ToString(), HasSubstr("computed"));
}

}  // namespace
}  // namespace seglog
