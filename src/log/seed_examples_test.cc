// The seeds' worked examples as acceptance tests: same inputs, same files, sizes and entries.
#include <gtest/gtest.h>

#include "index/offset_index.h"
#include "index/time_index.h"
#include "io/file_names.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;  // Example 1 ran on 2026-11-07

std::unique_ptr<Log> OpenLog(const std::string& dir, const LogConfig& config) {
  LogOptions options;
  options.clock = [] { return kT0 + 60000; };
  auto log = Log::Open(dir, config, options);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  return std::move(log).value();
}

void Produce(Log* log, int records) {
  for (int first = 0; first < records; first += 10) {
    auto batch = ProducerBatch(first, 10, 250, kT0);
    auto info = log->AppendAsLeader(batch);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    ASSERT_EQ(info->first_offset, first);
  }
}

// seed 000, Example 1: 12,000 records in 1 MiB segments, ten 250-byte records per batch.
TEST(SeedExamplesTest, ExampleOneSegmentsIndexesAndLookups) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/seg-0";
  LogConfig config;
  ASSERT_TRUE(config.Set("segment.bytes", "1048576").ok());
  auto log = OpenLog(dir, config);
  Produce(log.get(), 12000);

  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 3830, 7660, 11490}));
  EXPECT_EQ(log->log_end_offset(), 12000);
  for (int64_t base : {0, 3830, 7660}) {
    EXPECT_EQ(FileSize(LogFilePath(dir, base)), 1045973) << base;
    EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, base)), 1528) << base;  // 191 entries
    EXPECT_EQ(FileSize(TimeIndexFilePath(dir, base)), 2292) << base;    // 191 entries
  }
  EXPECT_EQ(FileSize(LogFilePath(dir, 11490)), 139281);
  // The active segment's indexes stay preallocated while the log is open.
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 10485760);
  EXPECT_EQ(FileSize(TimeIndexFilePath(dir, 11490)), 10485756);

  // Lookups as the seed prints them: target -> batch position (baseOffset, size 2731).
  struct Want {
    int64_t target, position, base;
  };
  for (const Want& w : {Want{0, 0, 0}, Want{35, 8193, 30}, Want{49, 10924, 40}, Want{50, 13655, 50},
                        Want{3829, 1043242, 3820}}) {
    auto loc = log->LookupOffset(w.target);
    ASSERT_TRUE(loc.ok() && loc->has_value()) << w.target;
    EXPECT_EQ((*loc)->segment_base_offset, 0);
    EXPECT_EQ((*loc)->position, w.position) << w.target;
    EXPECT_EQ((*loc)->base_offset, w.base) << w.target;
    EXPECT_EQ((*loc)->size, 2731);
  }
  auto loc = log->LookupOffset(5000);
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_EQ((*loc)->segment_base_offset, 3830);  // floorSegment(5000)

  ASSERT_TRUE(log->Close().ok());
  // After a clean close the active segment's indexes are trimmed: 25 entries each.
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 200);
  EXPECT_EQ(FileSize(TimeIndexFilePath(dir, 11490)), 300);
  EXPECT_EQ(FileSize(LogFilePath(dir, 11490)), 139281);

  // The first offset-index entries of segment 0: 29 -> 5462, 49 -> 10924, 69 -> 16386.
  auto index = OffsetIndex::Open(Env::Default(), OffsetIndexFilePath(dir, 0), 0, 10485760, false);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ((*index)->entries(), 191);
  EXPECT_EQ((*index)->EntryAt(0), (OffsetPosition{29, 5462}));
  EXPECT_EQ((*index)->EntryAt(1), (OffsetPosition{49, 10924}));
  EXPECT_EQ((*index)->EntryAt(2), (OffsetPosition{69, 16386}));
  auto tindex = TimeIndex::Open(Env::Default(), TimeIndexFilePath(dir, 0), 0, 10485760, false);
  ASSERT_TRUE(tindex.ok());
  EXPECT_EQ((*tindex)->EntryAt(0), (TimestampOffset{kT0 + 29, 29}));
  EXPECT_EQ((*tindex)->EntryAt(190), (TimestampOffset{kT0 + 3829, 3829}));

  // Reopen: everything is still there, and the active indexes grow back to their maximum -
  // when first used (Kafka regrows them during the load; seglog maps no index at open).
  auto again = OpenLog(dir, config);
  EXPECT_EQ(again->log_end_offset(), 12000);
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 200);
  auto read = again->Read(11995, 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->first_batch.base_offset, 11990);
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 10485760);
  ASSERT_TRUE(again->Close().ok());
}

// seed 000, "shrink the index": segment.index.bytes=400 rolls every 650 records because the
// time index (33 slots, one reserved) fills at 32 entries.
TEST(SeedExamplesTest, Seg2RollsWhenTheTimeIndexIsFull) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/seg2-0";
  LogConfig config;
  ASSERT_TRUE(config.Set("segment.bytes", "1048576").ok());
  ASSERT_TRUE(config.Set("segment.index.bytes", "400").ok());
  auto log = OpenLog(dir, config);
  Produce(log.get(), 2000);
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 650, 1300, 1950}));
  ASSERT_TRUE(log->Close().ok());
  for (int64_t base : {0, 650, 1300}) {
    EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, base)), 32 * 8) << base;
    EXPECT_EQ(FileSize(TimeIndexFilePath(dir, base)), 32 * 12) << base;
  }
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 1950)), 2 * 8);
  EXPECT_EQ(FileSize(TimeIndexFilePath(dir, 1950)), 2 * 12);
}

// seed 001 draws partition orders-0 with segment.bytes 300 B, index.interval.bytes 80 B,
// records of 30-70 B arriving every 2 s, and segments 0, 6, 11 and 17. A real v2 batch of one
// record is at least ~70 bytes, so this builds the picture at three times its scale: every record
// is a one-record batch of 3x the picture's size, and both byte settings are 3x too, so every
// roll and index decision is the picture's. The picture gives segment 0 = offsets 0-5 (270 B),
// offset 6 = 70 B, in segment 6 offset 8 at byte 115 (35 B) and offset 9 at byte 150, and in
// segment 11 offset 14 at byte 140 with t=30 s and offset 15 with t=32 s; the other sizes below
// are chosen to fit those facts.
std::vector<uint8_t> OneRecordBatchOfSize(int size, int64_t ts) {
  for (int value = 0; value < size; ++value) {
    RecordBatchBuilder b{BatchOptions{}};
    std::string v(static_cast<size_t>(value), 'p');
    (void)b.Append(ts, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
    auto bytes = *b.Build();
    if (static_cast<int>(bytes.size()) == size) return bytes;
  }
  ADD_FAILURE() << "no one-record batch of " << size << " bytes";
  return {};
}

TEST(SeedExamplesTest, Seed001PictureLookups) {
  constexpr int kScale = 3;
  // Picture sizes (bytes) of offsets 0..19.
  const int sizes[] = {40, 50, 45, 35, 60, 40,  // segment 0: 270 B
                       70, 45, 35, 60, 55,      // segment 6: 8 at 115, 9 at 150
                       40, 35, 65, 50, 45, 40,  // segment 11: 14 at 140
                       30, 50, 45};             // segment 17
  TempDir tmp;
  LogConfig config;
  ASSERT_TRUE(config.Set("internal.segment.bytes", std::to_string(300 * kScale)).ok());
  ASSERT_TRUE(config.Set("index.interval.bytes", std::to_string(80 * kScale)).ok());
  LogOptions options;
  const int64_t t0 = kT0;
  options.clock = [] { return kT0 + 100000; };
  auto log = *Log::Open(tmp.path() + "/orders-0", config, options);
  for (int o = 0; o < 20; ++o) {
    // One record every 2 s: offset o has t = 2(o+1) s.
    ASSERT_TRUE(
        log->AppendAsLeader(OneRecordBatchOfSize(sizes[o] * kScale, t0 + 2000 * (o + 1))).ok());
  }
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 6, 11, 17}));

  // "Demo: find offset 9": floor segment 6, index entry 2 -> 115 (offset 8), skip offset 8's
  // 35 B, offset 9 at byte 150.
  auto seg6_index = OffsetIndex::Open(
      Env::Default(), OffsetIndexFilePath(tmp.path() + "/orders-0", 6), 6, 10485760, false);
  ASSERT_TRUE(seg6_index.ok());
  EXPECT_EQ((*seg6_index)->Lookup(9), (OffsetPosition{8, 115 * kScale}));
  auto loc = log->LookupOffset(9);
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_EQ((*loc)->segment_base_offset, 6);
  EXPECT_EQ((*loc)->position, 150 * kScale);

  // "Demo: find by timestamp (t=31 s)": segments 0 and 6 are too old, segment 11's time index
  // gives t=30 -> 3 (offset 14), the offset index sends the scan to byte 140, and the answer is
  // offset 15 (t=32).
  auto seg11_time = TimeIndex::Open(Env::Default(), TimeIndexFilePath(tmp.path() + "/orders-0", 11),
                                    11, 10485760, false);
  ASSERT_TRUE(seg11_time.ok());
  EXPECT_EQ((*seg11_time)->Lookup(t0 + 31000), (TimestampOffset{t0 + 30000, 14}));
  auto seg11_index = OffsetIndex::Open(
      Env::Default(), OffsetIndexFilePath(tmp.path() + "/orders-0", 11), 11, 10485760, false);
  EXPECT_EQ((*seg11_index)->Lookup(14), (OffsetPosition{14, 140 * kScale}));
  auto found = log->FetchOffsetByTimestamp(t0 + 31000);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->offset, 15);
  EXPECT_EQ((*found)->timestamp, t0 + 32000);

  // A consumer behind the log start offset gets OFFSET_OUT_OF_RANGE; earliest and latest are
  // what auto.offset.reset would pick.
  EXPECT_EQ((*log->FetchOffsetByTimestamp(kEarliestTimestamp))->offset, 0);
  EXPECT_EQ((*log->FetchOffsetByTimestamp(kLatestTimestamp))->offset, 20);
}

}  // namespace
}  // namespace seglog
