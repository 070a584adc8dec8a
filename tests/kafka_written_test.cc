// seglog reads partition directories that a real Kafka 4.4.0 broker wrote
// (tests/data/kafka_written, made by interop/kafka/broker/make_fixture.sh) and must return every
// record, every offset lookup and every timestamp lookup as Kafka's own UnifiedLog does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/crc32c.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tests/support/source_path.h"

namespace seglog {
namespace {

using nlohmann::json;

// The committed fixture, or a fresh one (SEGLOG_KAFKA_WRITTEN_DIR, set by the interop test that
// runs a real broker first).
const std::string kDir = [] {
  const char* env = std::getenv("SEGLOG_KAFKA_WRITTEN_DIR");
  return env ? std::string(env) + "/" : testing::SourcePath("tests/data/kafka_written/");
}();

json Load(const std::string& name) {
  std::ifstream in(kDir + name);
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);
}

std::unique_ptr<Log> OpenReadOnly(const std::string& topic) {
  LogOptions o;
  o.read_only = true;
  auto log = Log::Open(kDir + topic + "-0", LogConfig{}, o);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  return log.ok() ? std::move(log).value() : nullptr;
}

class KafkaWrittenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(KafkaWrittenTest, SegmentsAndOffsetsAgreeWithKafka) {
  const std::string topic = GetParam();
  auto log = OpenReadOnly(topic);
  ASSERT_NE(log, nullptr);
  const json l = Load(topic + "-0.lookups.json");
  EXPECT_EQ(log->log_start_offset(), l["log_start_offset"].get<int64_t>());
  EXPECT_EQ(log->log_end_offset(), l["log_end_offset"].get<int64_t>());
  std::vector<int64_t> bases;
  for (const json& s : l["segments"]) bases.push_back(s["base_offset"].get<int64_t>());
  EXPECT_EQ(log->segment_base_offsets(), bases);
  int checked = 0;
  for (const json& q : l["offset_lookups"]) {
    const int64_t target = q["target"].get<int64_t>();
    auto loc = log->LookupOffset(target);
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    if (q["translate"].is_null()) {
      EXPECT_FALSE(loc->has_value()) << topic << " target " << target;
      continue;
    }
    ASSERT_TRUE(loc->has_value()) << topic << " target " << target;
    const json& t = q["translate"];
    EXPECT_EQ((*loc)->segment_base_offset, t["segment"].get<int64_t>()) << target;
    EXPECT_EQ((*loc)->position, t["position"].get<int64_t>()) << target;
    EXPECT_EQ((*loc)->size, t["size"].get<int32_t>()) << target;
    EXPECT_EQ((*loc)->base_offset, t["batch_base_offset"].get<int64_t>()) << target;
    EXPECT_EQ((*loc)->last_offset, t["batch_last_offset"].get<int64_t>()) << target;
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST_P(KafkaWrittenTest, TimestampLookupsAgreeWithKafka) {
  const std::string topic = GetParam();
  auto log = OpenReadOnly(topic);
  ASSERT_NE(log, nullptr);
  const json l = Load(topic + "-0.lookups.json");
  int checked = 0;
  for (const json& q : l["timestamp_lookups"]) {
    const int64_t target = q["target"].get<int64_t>();
    if (target == -4) continue;  // EARLIEST_LOCAL: tiered storage only (equals EARLIEST here)
    auto got = log->FetchOffsetByTimestamp(target);
    ASSERT_TRUE(got.ok()) << target << ": " << got.status().ToString();
    if (q["result"].is_null()) {
      EXPECT_FALSE(got->has_value()) << topic << " ts " << target;
      continue;
    }
    ASSERT_TRUE(got->has_value()) << topic << " ts " << target;
    EXPECT_EQ((*got)->offset, q["result"]["offset"].get<int64_t>()) << topic << " ts " << target;
    EXPECT_EQ((*got)->timestamp, q["result"]["timestamp"].get<int64_t>())
        << topic << " ts " << target;
    if (target >= 0 || target == kMaxTimestamp) {
      // From the batch; the special earliest/latest epochs come from the leader-epoch cache.
      EXPECT_EQ((*got)->leader_epoch.value_or(-1), q["result"]["leader_epoch"].get<int32_t>());
    }
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST_P(KafkaWrittenTest, EveryRecordReadsBackAsKafkaReadIt) {
  const std::string topic = GetParam();
  auto log = OpenReadOnly(topic);
  ASSERT_NE(log, nullptr);
  const json r = Load(topic + "-0.records.json");
  auto fetch = log->Read(0, INT32_MAX);
  ASSERT_TRUE(fetch.ok()) << fetch.status().ToString();
  // Read() returns one segment at a time; walk all segments by re-reading from the next offset.
  size_t batch_i = 0, record_i = 0;
  int64_t next = 0;
  while (next < log->log_end_offset()) {
    auto f = log->Read(next, INT32_MAX);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    auto bytes = f->slice.ReadAll();
    ASSERT_TRUE(bytes.ok());
    LogBatchWalker w(*bytes, f->slice.position);
    while (w.Next()) {
      auto v = RecordBatchView::Parse(w.current_bytes(), w.current().position);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      ASSERT_TRUE(v->ValidateDeep().ok());
      const json& jb = r["batches"][batch_i++];
      EXPECT_EQ(v->base_offset(), jb["base_offset"].get<int64_t>());
      EXPECT_EQ(v->position(), jb["position"].get<int64_t>());
      EXPECT_EQ(v->stored_crc(), jb["crc"].get<uint32_t>());
      EXPECT_EQ(v->producer_id(), jb["producer_id"].get<int64_t>());
      EXPECT_EQ(std::string(CompressionName(*v->compression())),
                jb["compression"].get<std::string>());
      RecordIterator it(*v);
      while (it.Next()) {
        const json& jr = r["records"][record_i++];
        const Record& rec = it.record();
        EXPECT_EQ(rec.offset, jr["offset"].get<int64_t>());
        EXPECT_EQ(rec.timestamp, jr["timestamp"].get<int64_t>());
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(rec.key->data()), rec.key->size()),
                  jr["key"].get<std::string>());
        if (jr["vlen"].is_null() || jr["vlen"].get<int64_t>() < 0) {
          EXPECT_FALSE(rec.value.has_value()) << rec.offset;
        } else {
          ASSERT_TRUE(rec.value.has_value()) << rec.offset;
          EXPECT_EQ(static_cast<int64_t>(rec.value->size()), jr["vlen"].get<int64_t>());
          EXPECT_EQ(Crc32c(*rec.value), jr["vcrc32c"].get<uint32_t>()) << rec.offset;
        }
        EXPECT_EQ(rec.headers.size(), jr["headers"].size()) << rec.offset;
      }
      ASSERT_TRUE(it.status().ok());
      next = v->next_offset();
    }
  }
  EXPECT_EQ(batch_i, r["batches"].size());
  EXPECT_EQ(record_i, r["records"].size());
}

INSTANTIATE_TEST_SUITE_P(Codecs, KafkaWrittenTest,
                         ::testing::Values("kw-none", "kw-gzip", "kw-snappy", "kw-lz4", "kw-zstd"));

}  // namespace
}  // namespace seglog
