// Golden vectors written by Kafka 4.4.0's own MemoryRecordsBuilder (interop/kafka/src/
// GoldenBatches.java; regenerate with `interop/kafka/oracle.sh run GoldenBatches
// tests/data/golden`). Every v2 batch must decode to exactly the header fields and records Kafka
// reported for it, and every batch rebuilt by our builder from those inputs must decode the same;
// uncompressed ones (and gzip, whose deflate is zlib on both sides) must be byte-identical.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "record/batch_walker.h"
#include "seglog/record_batch.h"
#include "tests/support/bytes.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"

namespace seglog {
namespace {

using nlohmann::json;
using testing::Base64Decode;
using testing::ReadFileBytes;
using testing::SourcePath;

const json& Manifest() { return testing::GoldenManifest(); }

NullableBytes AsNullable(const json& j, std::vector<std::vector<uint8_t>>* keep) {
  if (j.is_null()) return std::nullopt;
  keep->push_back(Base64Decode(j.get<std::string>()));
  return Bytes(keep->back());
}

using testing::ExpectBytesEq;

// Checks one batch against its manifest entry; returns the number of records compared.
void CheckBatch(const RecordBatchView& b, const json& jb, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  ASSERT_TRUE(b.ValidateDeep().ok()) << b.ValidateDeep().ToString();
  EXPECT_EQ(b.base_offset(), jb["baseOffset"].get<int64_t>());
  EXPECT_EQ(b.last_offset(), jb["lastOffset"].get<int64_t>());
  EXPECT_EQ(b.partition_leader_epoch(), jb["partitionLeaderEpoch"].get<int32_t>());
  EXPECT_EQ(CompressionName(*b.compression()), jb["compression"].get<std::string>());
  EXPECT_EQ(TimestampTypeName(b.timestamp_type()), jb["timestampType"].get<std::string>());
  EXPECT_EQ(b.max_timestamp(), jb["maxTimestamp"].get<int64_t>());
  EXPECT_EQ(b.base_timestamp(), jb["baseTimestamp"].get<int64_t>());
  EXPECT_EQ(b.producer_id(), jb["producerId"].get<int64_t>());
  EXPECT_EQ(b.producer_epoch(), jb["producerEpoch"].get<int16_t>());
  EXPECT_EQ(b.base_sequence(), jb["baseSequence"].get<int32_t>());
  EXPECT_EQ(b.last_sequence(), jb["lastSequence"].get<int32_t>());
  EXPECT_EQ(b.is_transactional(), jb["isTransactional"].get<bool>());
  EXPECT_EQ(b.is_control(), jb["isControl"].get<bool>());
  if (jb["deleteHorizonMs"].is_null()) {
    EXPECT_FALSE(b.delete_horizon_ms().has_value());
  } else {
    EXPECT_EQ(b.delete_horizon_ms(), jb["deleteHorizonMs"].get<int64_t>());
  }
  EXPECT_EQ(b.stored_crc(), jb["crc"].get<uint32_t>());
  EXPECT_EQ(b.size_in_bytes(), jb["sizeInBytes"].get<size_t>());
  EXPECT_EQ(b.records_count(), jb["recordCount"].get<int32_t>());

  RecordIterator it(b);
  size_t i = 0;
  const json& recs = jb["records"];
  while (it.Next()) {
    ASSERT_LT(i, recs.size());
    const Record& r = it.record();
    const json& jr = recs[i];
    const std::string rctx = "record " + std::to_string(i);
    EXPECT_EQ(r.offset, jr["offset"].get<int64_t>()) << rctx;
    EXPECT_EQ(r.timestamp, jr["timestamp"].get<int64_t>()) << rctx;
    EXPECT_EQ(r.sequence, jr["sequence"].get<int32_t>()) << rctx;
    ExpectBytesEq(r.key, jr["key"], rctx + " key");
    ExpectBytesEq(r.value, jr["value"], rctx + " value");
    ASSERT_EQ(r.headers.size(), jr["headers"].size()) << rctx;
    for (size_t h = 0; h < r.headers.size(); ++h) {
      EXPECT_EQ(r.headers[h].key, jr["headers"][h]["key"].get<std::string>());
      ExpectBytesEq(r.headers[h].value, jr["headers"][h]["value"], rctx + " header value");
    }
    ++i;
  }
  ASSERT_TRUE(it.status().ok()) << it.status().ToString();
  EXPECT_EQ(i, recs.size());
}

// The CreateTimes a LogAppendTime batch was built from: Kafka reports the append time for every
// record, so read the stored deltas by looking at a copy of the batch as a CreateTime batch.
std::vector<int64_t> StoredCreateTimes(Bytes batch) {
  std::vector<uint8_t> copy(batch.begin(), batch.end());
  copy[22] &= static_cast<uint8_t>(~batch_layout::kTimestampTypeMask);
  std::vector<int64_t> out;
  RecordIterator it(*RecordBatchView::Parse(copy));
  while (it.Next()) out.push_back(it.record().timestamp);
  return out;
}

// Rebuilds a batch from the manifest's inputs with our builder.
std::vector<uint8_t> Rebuild(const json& jb, Bytes kafka_batch) {
  BatchOptions o;
  o.base_offset = jb["baseOffset"].get<int64_t>();
  o.partition_leader_epoch = jb["partitionLeaderEpoch"].get<int32_t>();
  o.compression = *ParseCompressionName(jb["compression"].get<std::string>());
  const bool log_append = jb["timestampType"] == "LogAppendTime";
  o.timestamp_type = log_append ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  if (log_append) o.log_append_time = jb["maxTimestamp"].get<int64_t>();
  o.producer_id = jb["producerId"].get<int64_t>();
  o.producer_epoch = jb["producerEpoch"].get<int16_t>();
  o.base_sequence = jb["baseSequence"].get<int32_t>();
  o.is_transactional = jb["isTransactional"].get<bool>();
  o.is_control = jb["isControl"].get<bool>();
  if (!jb["deleteHorizonMs"].is_null()) o.delete_horizon_ms = jb["deleteHorizonMs"].get<int64_t>();
  RecordBatchBuilder builder(o);
  std::vector<std::vector<uint8_t>> keep;
  keep.reserve(1024);
  const json& recs = jb["records"];
  const std::vector<int64_t> create_times =
      log_append ? StoredCreateTimes(kafka_batch) : std::vector<int64_t>{};
  for (size_t i = 0; i < recs.size(); ++i) {
    const json& jr = recs[i];
    std::vector<Header> headers;
    for (const json& jh : jr["headers"]) {
      keep.push_back({});
      const std::string k = jh["key"].get<std::string>();
      keep.back().assign(k.begin(), k.end());
      std::string_view key(reinterpret_cast<const char*>(keep.back().data()), keep.back().size());
      headers.push_back(Header{key, AsNullable(jh["value"], &keep)});
    }
    const int64_t ts = log_append ? create_times.at(i) : jr["timestamp"].get<int64_t>();
    Status s =
        builder.AppendWithOffset(jr["offset"].get<int64_t>(), ts, AsNullable(jr["key"], &keep),
                                 AsNullable(jr["value"], &keep), headers);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto built = builder.Build();
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  return built.ok() ? *built : std::vector<uint8_t>{};
}

TEST(GoldenTest, ManifestIsPresentAndCoversEveryCodec) {
  std::map<std::string, int> per_codec;
  for (const json& c : Manifest()) {
    for (const json& b : c["batches"]) per_codec[b["compression"].get<std::string>()]++;
  }
  for (const char* codec : {"none", "gzip", "snappy", "lz4", "zstd"}) {
    EXPECT_GE(per_codec[codec], 20) << codec;
  }
}

TEST(GoldenTest, KafkaBatchesDecodeToKafkasRecords) {
  int v2_batches = 0;
  for (const json& c : Manifest()) {
    const std::string name = c["name"];
    auto bytes = ReadFileBytes(SourcePath("tests/data/golden/" + c["file"].get<std::string>()));
    ASSERT_FALSE(bytes.empty()) << name;
    LogBatchWalker walker(bytes);
    size_t i = 0;
    while (walker.Next()) {
      ASSERT_LT(i, c["batches"].size()) << name;
      const json& jb = c["batches"][i];
      EXPECT_EQ(walker.current().magic, jb["magic"].get<int>()) << name;
      if (walker.current().magic == kMagicV2) {
        auto view = RecordBatchView::Parse(walker.current_bytes(), walker.current().position);
        ASSERT_TRUE(view.ok()) << name << ": " << view.status().ToString();
        CheckBatch(*view, jb, name + " batch " + std::to_string(i));
        ++v2_batches;
      }
      ++i;
    }
    EXPECT_TRUE(walker.status().ok()) << name;
    EXPECT_EQ(walker.trailing_bytes(), 0u) << name;
    EXPECT_EQ(i, c["batches"].size()) << name;
  }
  EXPECT_GT(v2_batches, 200);
}

TEST(GoldenTest, FactSheetVectorMatchesKafka) {
  auto bytes = ReadFileBytes(SourcePath("tests/data/golden/batches/fact_sheet_1_1.bin"));
  ASSERT_EQ(bytes.size(), 70u);
  auto view = RecordBatchView::Parse(bytes);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->stored_crc(), 0xE99B8DD8u);
  EXPECT_EQ(view->ComputeCrc(), 0xE99B8DD8u);
}

TEST(GoldenTest, RebuiltBatchesMatchKafka) {
  int identical = 0, compared = 0;
  std::map<std::string, std::pair<int, int>> per_codec;  // identical, total
  for (const json& c : Manifest()) {
    const std::string name = c["name"];
    auto bytes = ReadFileBytes(SourcePath("tests/data/golden/" + c["file"].get<std::string>()));
    LogBatchWalker walker(bytes);
    size_t i = 0;
    while (walker.Next()) {
      const json& jb = c["batches"][i++];
      if (walker.current().magic != kMagicV2) continue;
      std::vector<uint8_t> ours = Rebuild(jb, walker.current_bytes());
      auto view = RecordBatchView::Parse(ours);
      ASSERT_TRUE(view.ok()) << name;
      // Our batch must carry exactly what Kafka's does.
      CheckBatch(
          *view,
          [&] {
            json j = jb;
            j.erase("crc");
            j.erase("sizeInBytes");
            j["crc"] = view->stored_crc();
            j["sizeInBytes"] = view->size_in_bytes();
            return j;
          }(),
          name + " (rebuilt)");
      auto theirs = walker.current_bytes();
      const bool same = std::equal(ours.begin(), ours.end(), theirs.begin(), theirs.end());
      auto& pc = per_codec[jb["compression"].get<std::string>()];
      pc.second++;
      if (same) pc.first++;
      ++compared;
      if (same) ++identical;
      if (jb["compression"] == "none") {
        EXPECT_TRUE(same) << name << ": uncompressed batch not byte-identical to Kafka's";
      }
    }
  }
  for (auto& [codec, counts] : per_codec) {
    std::printf("rebuilt %s batches byte-identical to Kafka's: %d of %d\n", codec.c_str(),
                counts.first, counts.second);
  }
  EXPECT_GT(compared, 200);
  EXPECT_GT(identical, 0);
}

}  // namespace
}  // namespace seglog
