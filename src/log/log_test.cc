#include "seglog/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/coding.h"
#include "io/file_names.h"
#include "record/batch_walker.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"
#include "tests/support/process_resources.h"

namespace seglog {
namespace {

using testing::CountMappingsUnder;
using testing::CountOpenFileDescriptors;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

class LogTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(LogConfig config = {}, std::string dir = "") {
    if (dir.empty()) dir = tmp_.path() + "/t-0";
    LogOptions o;
    o.clock = [this] { return now_.load(); };
    auto log = Log::Open(dir, config, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  std::vector<int64_t> Offsets(Log* log, int64_t from) {
    std::vector<int64_t> out;
    auto r = log->Read(from, 1 << 30);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    auto bytes = r->slice.ReadAll();
    LogBatchWalker w(*bytes);
    while (w.Next()) {
      auto v = RecordBatchView::Parse(w.current_bytes());
      RecordIterator it(*v);
      while (it.Next()) out.push_back(it.record().offset);
    }
    return out;
  }
  TempDir tmp_;
  std::atomic<int64_t> now_{kT0 + 1000};
};

TEST_F(LogTest, AssignsOffsetsStampsEpochAndKeepsCrcValid) {
  auto log = OpenLog();
  auto a = log->AppendAsLeader(ProducerBatch(0, 3, 10, kT0), /*leader_epoch=*/7);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->first_offset, 0);
  EXPECT_EQ(a->last_offset, 2);
  auto b = log->AppendAsLeader(ProducerBatch(0, 5, 10, kT0), 7);
  EXPECT_EQ(b->first_offset, 3);
  EXPECT_EQ(log->log_end_offset(), 8);
  EXPECT_EQ(log->high_watermark(), 8);
  auto r = log->Read(4, 1 << 20);
  ASSERT_TRUE(r.ok());
  auto bytes = *r->slice.ReadAll();
  auto v = RecordBatchView::Parse(bytes);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->base_offset(), 3);
  EXPECT_EQ(v->partition_leader_epoch(), 7);
  EXPECT_TRUE(v->ValidateDeep().ok());
  EXPECT_EQ(Offsets(log.get(), 0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(LogTest, LogAppendTimeRewritesTimestampsAndCrc) {
  LogConfig c;
  ASSERT_TRUE(c.Set("message.timestamp.type", "LogAppendTime").ok());
  auto log = OpenLog(c);
  auto a = log->AppendAsLeader(ProducerBatch(0, 3, 10, kT0));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->log_append_time, now_.load());
  auto bytes = *log->Read(0, 1 << 20)->slice.ReadAll();
  auto v = RecordBatchView::Parse(bytes);
  EXPECT_EQ(v->timestamp_type(), TimestampType::kLogAppendTime);
  EXPECT_EQ(v->max_timestamp(), now_.load());
  EXPECT_TRUE(v->ValidateCrc().ok());
}

TEST_F(LogTest, TopicCodecRecompresses) {
  LogConfig c;
  ASSERT_TRUE(c.Set("compression.type", "zstd").ok());
  auto log = OpenLog(c);
  ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 50, 100, kT0)).ok());
  auto bytes = *log->Read(0, 1 << 20)->slice.ReadAll();
  auto v = RecordBatchView::Parse(bytes);
  EXPECT_EQ(*v->compression(), CompressionType::kZstd);
  EXPECT_TRUE(v->ValidateDeep().ok());
  EXPECT_EQ(v->records_count(), 50);
}

TEST_F(LogTest, BadBatchesAreRefusedWholeWithTheReason) {
  LogConfig c;
  ASSERT_TRUE(c.Set("max.message.bytes", "2000").ok());
  auto log = OpenLog(c);
  auto good = ProducerBatch(0, 2, 10, kT0);
  auto corrupt = ProducerBatch(0, 2, 10, kT0);
  corrupt.back() ^= 1;
  std::vector<uint8_t> both = good;
  both.insert(both.end(), corrupt.begin(), corrupt.end());
  Status s = log->AppendAsLeader(both).status();
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.ToString(), HasSubstr("crc"));
  EXPECT_EQ(log->log_end_offset(), 0);  // nothing of the good batch was appended either
  EXPECT_EQ(log->size_in_bytes(), 0);

  s = log->AppendAsLeader(ProducerBatch(0, 20, 200, kT0)).status();
  EXPECT_THAT(s.ToString(), HasSubstr("exceeds the maximum configured value of 2000)"));

  std::vector<uint8_t> partial = good;
  partial.insert(partial.end(), good.begin(), good.begin() + 30);
  EXPECT_THAT(log->AppendAsLeader(partial).status().ToString(), HasSubstr("not a whole batch"));

  now_ = kT0 - 7200000;  // records 2 h in the future of the broker clock
  s = log->AppendAsLeader(good).status();
  EXPECT_THAT(s.ToString(), HasSubstr("InvalidTimestampException"));
  ASSERT_EQ(s.record_errors().size(), 2u);  // the detail is per record, as in Kafka
  EXPECT_THAT(s.record_errors()[0].message, HasSubstr("out of range"));
  now_ = kT0 + 1000;
  auto legacy = good;
  legacy[16] = 1;
  EXPECT_THAT(log->AppendAsLeader(legacy).status().ToString(), HasSubstr("v2 batches only"));
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_TRUE(log->AppendAsLeader(good).ok());
}

TEST_F(LogTest, AnAppendLargerThanASegmentIsRefused) {
  LogConfig c;
  ASSERT_TRUE(c.Set("internal.segment.bytes", "5000").ok());
  auto log = OpenLog(c);
  Status s = log->AppendAsLeader(ProducerBatch(0, 30, 250, kT0)).status();
  EXPECT_THAT(s.ToString(), HasSubstr("RecordBatchTooLargeException"));
  EXPECT_THAT(s.ToString(), HasSubstr("segment size of 5000"));
  EXPECT_EQ(log->log_end_offset(), 0);
}

TEST_F(LogTest, FlushAndCloseAreIdempotentAndReadsSurviveReopen) {
  const std::string dir = tmp_.path() + "/t-0";
  {
    auto log = OpenLog({}, dir);
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 10, 10, kT0)).ok());
    ASSERT_TRUE(log->Flush(5).ok());
    ASSERT_TRUE(log->Flush(10).ok());
    ASSERT_TRUE(log->Flush(1000).ok());  // beyond the end: flushes what exists
    ASSERT_TRUE(log->Close().ok());
    ASSERT_TRUE(log->Close().ok());
    EXPECT_FALSE(log->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).ok());  // closed
  }
  auto log = OpenLog({}, dir);
  EXPECT_EQ(Offsets(log.get(), 0).size(), 10u);
}

TEST_F(LogTest, ACorruptSegmentIsReportedByName) {
  const std::string dir = tmp_.path() + "/t-0";
  {
    auto log = OpenLog({}, dir);
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 10, 10, kT0)).ok());
    ASSERT_TRUE(log->Close().ok());
  }
  {
    std::fstream f(LogFilePath(dir, 0), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const char tiny_length[4] = {0, 0, 0, 5};  // below the 14-byte minimum
    f.write(tiny_length, 4);
  }
  Status s = Log::Open(dir, {}, {}).status();
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.ToString(), HasSubstr(LogFilePath(dir, 0)));
  EXPECT_THAT(s.ToString(), HasSubstr("found 5"));
}

TEST_F(LogTest, CompactedTopicsRefuseKeylessRecords) {
  LogConfig c;
  ASSERT_TRUE(c.Set("cleanup.policy", "compact").ok());
  auto log = OpenLog(c);
  BatchOptions o;
  RecordBatchBuilder b(o);
  const uint8_t v[] = {1};
  ASSERT_TRUE(b.Append(kT0, std::nullopt, Bytes(v, 1)).ok());
  EXPECT_THAT(log->AppendAsLeader(*b.Build()).status().ToString(),
              HasSubstr("Compacted topic cannot accept message without key"));
  EXPECT_TRUE(log->AppendAsLeader(ProducerBatch(0, 2, 10, kT0)).ok());
}

TEST_F(LogTest, ReadsOutsideTheLogAreOutOfRangeWithBothBounds) {
  auto log = OpenLog();
  ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 5, 10, kT0)).ok());
  Status s = log->Read(6, 100).status();
  EXPECT_TRUE(s.IsOutOfRange());
  EXPECT_THAT(s.ToString(), HasSubstr("offset 6"));
  EXPECT_THAT(s.ToString(), HasSubstr("range 0 to 5"));
  EXPECT_TRUE(log->Read(-1, 100).status().IsOutOfRange());
  auto at_end = log->Read(5, 100);
  ASSERT_TRUE(at_end.ok());
  EXPECT_EQ(at_end->slice.length, 0);
}

TEST_F(LogTest, ReadStopsAtMaxOffset) {
  auto log = OpenLog();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 10, 10, kT0)).ok());
  // Bound 30: batches 0-9, 10-19, 20-29 only.
  EXPECT_EQ(Offsets(log.get(), 0).size(), 50u);
  auto r = log->Read(0, 1 << 20, true, 30);
  ASSERT_TRUE(r.ok());
  auto bytes = *r->slice.ReadAll();
  LogBatchWalker w(bytes);
  int64_t last = -1;
  while (w.Next()) last = RecordBatchView::Parse(w.current_bytes())->last_offset();
  EXPECT_EQ(last, 29);
  auto at_bound = log->Read(30, 1 << 20, true, 30);
  ASSERT_TRUE(at_bound.ok());
  EXPECT_EQ(at_bound->slice.length, 0);
  // A bound above the high watermark is capped by it.
  auto capped = log->Read(40, 1 << 20, true, 1000);
  EXPECT_GT(capped->slice.length, 0);
}

TEST_F(LogTest, AppendWithAssignedOffsetsRequiresIncreasingOffsets) {
  auto log = OpenLog();
  BatchOptions o;
  o.base_offset = 100;  // a gap is fine (compacted source)
  RecordBatchBuilder b(o);
  const uint8_t k[] = {'k'};
  ASSERT_TRUE(b.Append(kT0, Bytes(k, 1), Bytes(k, 1)).ok());
  auto batch = *b.Build();
  auto a = log->AppendWithAssignedOffsets(batch);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(log->log_end_offset(), 101);
  EXPECT_THAT(log->AppendWithAssignedOffsets(batch).status().ToString(),
              HasSubstr("out of order offsets"));
  auto loc = log->LookupOffset(100);
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_EQ((*loc)->base_offset, 100);
}

TEST_F(LogTest, TimestampLookupsAndSpecialValues) {
  LogConfig c;
  ASSERT_TRUE(c.Set("segment.bytes", "1048576").ok());
  auto log = OpenLog(c);
  // 3 segments' worth; record n has timestamp kT0 + n.
  for (int first = 0; first < 9000; first += 10) {
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(first, 10, 250, kT0)).ok());
  }
  ASSERT_GE(log->num_segments(), 3);
  auto ts = [&](int64_t t) { return *log->FetchOffsetByTimestamp(t); };
  EXPECT_EQ(ts(kEarliestTimestamp)->offset, 0);
  EXPECT_EQ(ts(kLatestTimestamp)->offset, 9000);
  EXPECT_EQ(ts(kMaxTimestamp)->offset, 8999);
  EXPECT_EQ(ts(kMaxTimestamp)->timestamp, kT0 + 8999);
  EXPECT_EQ(ts(kT0 - 5)->offset, 0);
  EXPECT_EQ(ts(kT0 + 5000)->offset, 5000);
  EXPECT_EQ(ts(kT0 + 5000)->timestamp, kT0 + 5000);
  EXPECT_EQ(ts(kT0 + 3830)->offset, 3830);  // the first record of the second segment
  EXPECT_FALSE(ts(kT0 + 9000).has_value());
  EXPECT_FALSE(log->FetchOffsetByTimestamp(-7).ok());
}

TEST_F(LogTest, ForeignFilesInThePartitionDirectoryAreReportedByName) {
  const std::string dir = tmp_.path() + "/t-0";
  {
    auto log = OpenLog({}, dir);
    ASSERT_TRUE(log->Close().ok());
  }
  std::ofstream(dir + "/notes.txt") << "hello";
  LogOptions o;
  Status s = Log::Open(dir, {}, o).status();
  EXPECT_THAT(s.ToString(), HasSubstr(dir + "/notes.txt"));
  std::filesystem::remove(dir + "/notes.txt");
  std::ofstream(dir + "/123.log") << "";
  EXPECT_THAT(Log::Open(dir, {}, o).status().ToString(), HasSubstr("20-digit offset"));
  std::filesystem::remove(dir + "/123.log");
  // Leftovers of an interrupted delete are removed as Kafka's loader does.
  std::ofstream(dir + "/00000000000000000005.log.deleted") << "x";
  ASSERT_TRUE(Log::Open(dir, {}, o).ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/00000000000000000005.log.deleted"));
}

TEST_F(LogTest, ReadOnlyOpenWritesNothing) {
  const std::string dir = tmp_.path() + "/t-0";
  {
    auto log = OpenLog({}, dir);
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 5, 10, kT0)).ok());
    ASSERT_TRUE(log->Close().ok());
  }
  const auto before = std::filesystem::file_size(OffsetIndexFilePath(dir, 0));
  LogOptions o;
  o.read_only = true;
  auto log = Log::Open(dir, {}, o);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ((*log)->log_end_offset(), 5);
  EXPECT_FALSE((*log)->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).ok());
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(std::filesystem::file_size(OffsetIndexFilePath(dir, 0)), before);
  EXPECT_TRUE(Log::Open(tmp_.path() + "/missing-0", {}, o).status().IsIOError());
}

// Kafka's LazyIndex: opening (and closing) a log with many segments touches only what it uses.
TEST_F(LogTest, OpeningManySegmentsDoesNotTouchTheirIndexes) {
  const std::string dir = tmp_.path() + "/t-0";
  LogConfig c;
  ASSERT_TRUE(c.Set("internal.segment.bytes", "2000").ok());
  {
    auto log = OpenLog(c, dir);
    for (int i = 0; i < 600; ++i) {
      ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(i, 1, 300, kT0)).ok());
    }
    ASSERT_EQ(log->num_segments(), 120);
    ASSERT_TRUE(log->Close().ok());
  }
  const int fds_before = CountOpenFileDescriptors();
  auto log = OpenLog(c, dir);
  EXPECT_EQ(log->log_end_offset(), 600);
  // No index mapped and no segment file held open, the active one included.
  EXPECT_EQ(log->num_segments_with_open_indexes(), 0);
  EXPECT_EQ(CountOpenFileDescriptors(), fds_before);
  EXPECT_EQ(CountMappingsUnder(dir), 0);
  ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 1, 300, kT0)).ok());
  // The append rolled: the old active segment and the new one, each a .log and two indexes.
  EXPECT_EQ(log->num_segments(), 121);
  EXPECT_EQ(log->num_segments_with_open_indexes(), 2);
  EXPECT_EQ(CountOpenFileDescriptors(), fds_before + 6);
  auto loc = log->LookupOffset(3);  // a read opens just the segment it needs
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_LE(log->num_segments_with_open_indexes(), 3);
  ASSERT_TRUE(log->Close().ok());
  EXPECT_LE(log->num_segments_with_open_indexes(), 3);  // closing flushes only unflushed ones
}

// Readers never take the append lock; each sees only whole appends.
TEST_F(LogTest, ConcurrentReadersSeeOnlyWholeBatches) {
  LogConfig c;
  ASSERT_TRUE(c.Set("segment.bytes", "1048576").ok());
  auto log = OpenLog(c);
  std::atomic<bool> done{false};
  std::atomic<int64_t> reads{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!done) {
        const int64_t end = log->log_end_offset();
        if (end == 0) continue;
        auto r = log->Read(end / 2, 1 << 20);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        auto bytes = r->slice.ReadAll();
        ASSERT_TRUE(bytes.ok());
        LogBatchWalker w(*bytes);
        while (w.Next()) {
          auto v = RecordBatchView::Parse(w.current_bytes());
          ASSERT_TRUE(v.ok());
          ASSERT_TRUE(v->ValidateCrc().ok());
        }
        ++reads;
      }
    });
  }
  for (int first = 0; first < 8000; first += 10) {
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(first, 10, 250, kT0)).ok());
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(reads.load(), 0);
  EXPECT_GE(log->num_segments(), 2);
}

}  // namespace
}  // namespace seglog
