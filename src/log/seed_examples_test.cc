// The seeds' worked examples as acceptance tests: same inputs, same files, sizes and entries.
#include <gtest/gtest.h>

#include "index/offset_index.h"
#include "index/time_index.h"
#include "io/file_names.h"
#include "log/test_support.h"
#include "seglog/log.h"

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
    EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, base)), 1528) << base;   // 191 entries
    EXPECT_EQ(FileSize(TimeIndexFilePath(dir, base)), 2292) << base;     // 191 entries
  }
  EXPECT_EQ(FileSize(LogFilePath(dir, 11490)), 139281);
  // The active segment's indexes stay preallocated while the log is open.
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 10485760);
  EXPECT_EQ(FileSize(TimeIndexFilePath(dir, 11490)), 10485756);

  // Lookups as the seed prints them: target -> batch position (baseOffset, size 2731).
  struct Want {
    int64_t target, position, base;
  };
  for (const Want& w : {Want{0, 0, 0}, Want{35, 8193, 30}, Want{49, 10924, 40},
                        Want{50, 13655, 50}, Want{3829, 1043242, 3820}}) {
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
  auto index = OffsetIndex::Open(OffsetIndexFilePath(dir, 0), 0, 10485760, false);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ((*index)->entries(), 191);
  EXPECT_EQ((*index)->EntryAt(0), (OffsetPosition{29, 5462}));
  EXPECT_EQ((*index)->EntryAt(1), (OffsetPosition{49, 10924}));
  EXPECT_EQ((*index)->EntryAt(2), (OffsetPosition{69, 16386}));
  auto tindex = TimeIndex::Open(TimeIndexFilePath(dir, 0), 0, 10485760, false);
  ASSERT_TRUE(tindex.ok());
  EXPECT_EQ((*tindex)->EntryAt(0), (TimestampOffset{kT0 + 29, 29}));
  EXPECT_EQ((*tindex)->EntryAt(190), (TimestampOffset{kT0 + 3829, 3829}));

  // Reopen: everything is still there, and the active indexes grow back to their maximum.
  auto again = OpenLog(dir, config);
  EXPECT_EQ(again->log_end_offset(), 12000);
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir, 11490)), 10485760);
  auto read = again->Read(11995, 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->first_batch.base_offset, 11990);
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

}  // namespace
}  // namespace seglog
