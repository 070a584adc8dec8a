// Retention as seeds 000 (Example 2), 001 and 003 describe it, driven by a MockScheduler's clock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "base/coding.h"
#include "base/scheduler.h"
#include "io/file_names.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

std::vector<std::string> LogFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".log") != std::string::npos) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The numbers that vary from run to run in Kafka's lines: roll times and file mtimes.
// (std::regex trips g++ 12's -Wmaybe-uninitialized at -O2, so by hand.)
std::string ReplaceDigitsAfter(std::string line, const std::string& prefix,
                               const std::string& with) {
  for (size_t at = line.find(prefix); at != std::string::npos;
       at = line.find(prefix, at + prefix.size())) {
    size_t end = at + prefix.size();
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    if (end > at + prefix.size()) line.replace(at + prefix.size(), end - at - prefix.size(), with);
  }
  return line;
}

std::string Normalise(const std::string& line) {
  return ReplaceDigitsAfter(ReplaceDigitsAfter(line, " in ", "N"), "lastModifiedTime=", "M");
}

// seed 000, Example 2: the 12,000 records of Example 1 in a topic with retention.ms=20000,
// segment.bytes=1048576 and file.delete.delay.ms=10000, the retention check every 2 s. Record
// timestamps reproduce the run's largest record timestamp per segment; t is seconds after the
// producer finished.
TEST(RetentionTest, ExampleTwoReproducesKafkasRenamesRollAndLogLines) {
  constexpr int64_t kLargest[] = {1794024815939, 1794024818462, 1794024820278, 1794024820477};
  constexpr int64_t kDone = 1794024820000;  // producer finished: t = 0
  MockScheduler scheduler(kDone);
  TempDir tmp;
  const std::string dir = tmp.path() + "/ret-0";
  LogConfig config;
  ASSERT_TRUE(config.Set("segment.bytes", "1048576").ok());
  ASSERT_TRUE(config.Set("retention.ms", "20000").ok());
  ASSERT_TRUE(config.Set("file.delete.delay.ms", "10000").ok());
  std::vector<std::string> lines;
  LogOptions o;
  o.clock = [&] { return scheduler.NowMs(); };
  o.scheduler = &scheduler;
  o.logger = [&](const std::string& l) { lines.push_back(Normalise(l)); };
  auto opened = Log::Open(dir, config, o);
  ASSERT_TRUE(opened.ok());
  Log* log = opened->get();
  // Batch k of each segment ends at the segment's largest timestamp; ten records per batch.
  const int64_t last_batch[] = {3820, 7650, 11480, 11990};
  for (int first = 0; first < 12000; first += 10) {
    int seg = 0;
    while (first > last_batch[seg]) ++seg;
    const int64_t ts_first = kLargest[seg] - 9 - (last_batch[seg] - first);
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(first, 10, 250, ts_first - first)).ok());
  }
  ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 3830, 7660, 11490}));
  EXPECT_EQ(FileSize(LogFilePath(dir, 0)), 1045973);
  EXPECT_EQ(FileSize(LogFilePath(dir, 11490)), 139281);
  scheduler.RunDue();  // the flush-log tasks of the three rolls
  EXPECT_EQ(log->recovery_point(), 11490);

  scheduler.Schedule(
      "kafka-log-retention", [&] { ASSERT_TRUE(log->DeleteOldSegments().ok()); }, 2000, 2000);
  std::vector<std::vector<std::string>> seen = {LogFiles(dir)};
  for (int t = 1; t <= 35; ++t) {
    scheduler.Advance(1000);
    if (LogFiles(dir) != seen.back()) seen.push_back(LogFiles(dir));
  }
  auto f = [](int64_t base, const char* suffix) { return fmt::format("{:020d}{}", base, suffix); };
  const std::vector<std::vector<std::string>> expected = {
      {f(0, ".log"), f(3830, ".log"), f(7660, ".log"), f(11490, ".log")},
      {f(0, ".log.deleted"), f(3830, ".log"), f(7660, ".log"), f(11490, ".log")},
      {f(0, ".log.deleted"), f(3830, ".log.deleted"), f(7660, ".log"), f(11490, ".log")},
      {f(0, ".log.deleted"), f(3830, ".log.deleted"), f(7660, ".log.deleted"),
       f(11490, ".log.deleted"), f(12000, ".log")},
      {f(3830, ".log.deleted"), f(7660, ".log.deleted"), f(11490, ".log.deleted"),
       f(12000, ".log")},
      {f(7660, ".log.deleted"), f(11490, ".log.deleted"), f(12000, ".log")},
      {f(12000, ".log")},
  };
  // LogFiles sorts by name; compare as sets per step.
  ASSERT_EQ(seen.size(), expected.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    auto want = expected[i];
    std::sort(want.begin(), want.end());
    EXPECT_EQ(seen[i], want) << "step " << i;
  }
  auto earliest = log->FetchOffsetByTimestamp(kEarliestTimestamp);
  ASSERT_TRUE(earliest.ok() && earliest->has_value());
  EXPECT_EQ((*earliest)->offset, 12000);
  EXPECT_EQ(log->log_start_offset(), 12000);

  // server.log, as the seed prints it (roll times and mtimes vary from run to run).
  const std::string seg0 =
      "LogSegment(baseOffset=0, size=1045973, lastModifiedTime=M, "
      "largestRecordTimestamp=1794024815939)";
  const std::string seg1 =
      "LogSegment(baseOffset=3830, size=1045973, lastModifiedTime=M, "
      "largestRecordTimestamp=1794024818462)";
  const std::string seg2 =
      "LogSegment(baseOffset=7660, size=1045973, lastModifiedTime=M, "
      "largestRecordTimestamp=1794024820278)";
  const std::string seg3 =
      "LogSegment(baseOffset=11490, size=139281, lastModifiedTime=M, "
      "largestRecordTimestamp=1794024820477)";
  const std::string why =
      " due to log retention time 20000ms breach based on the largest record timestamp in the "
      "segment";
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "Rolled new log segment at offset 3830 in N ms.",
                       "Rolled new log segment at offset 7660 in N ms.",
                       "Rolled new log segment at offset 11490 in N ms.",
                       "Incremented log start offset to 3830 due to segment deletion",
                       "Deleting segment " + seg0 + why,
                       "Incremented log start offset to 7660 due to segment deletion",
                       "Deleting segment " + seg1 + why,
                       "Rolled new log segment at offset 12000 in N ms.",
                       "Incremented log start offset to 12000 due to segment deletion",
                       "Deleting segment " + seg2 + why,
                       "Deleting segment " + seg3 + why,
                       "Deleting segment files " + seg0,
                       "Deleted log " + f(0, ".log.deleted."),
                       "Deleting segment files " + seg1,
                       "Deleted log " + f(3830, ".log.deleted."),
                       "Deleting segment files " + seg2 + ", " + seg3,
                       "Deleted log " + f(7660, ".log.deleted."),
                       "Deleted log " + f(11490, ".log.deleted."),
                   }));
}

constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kDay = 24 * kHour;
// Thursday 2026-11-26 00:00 UTC.
constexpr int64_t kThu = 1795651200000;
constexpr int64_t kFri = kThu - 6 * kDay, kMon = kThu - 3 * kDay, kWed = kThu - kDay,
                  kSat = kThu + 2 * kDay;

std::vector<uint8_t> BatchAt(int64_t base_offset, int64_t timestamp, int value_size = 10) {
  auto b = ProducerBatch(0, 1, value_size, timestamp);
  StoreBE64(b.data(), static_cast<uint64_t>(base_offset));
  return b;
}

// seed 003's time-rule table: retention.ms = 3 days, checked on Thursday 09:10.
TEST(RetentionTest, SeedThreeTimeRuleJudgesEachSegmentByItsNewestRecord) {
  TempDir tmp;
  int64_t now = kThu + 9 * kHour + 10 * 60000;
  LogConfig config;
  ASSERT_TRUE(config.Set("retention.ms", std::to_string(3 * kDay)).ok());
  LogOptions o;
  o.clock = [&] { return now; };
  o.log_start_offset = 0;
  auto log = Log::Open(tmp.path() + "/events-0", config, o);
  ASSERT_TRUE(log.ok());
  Log& l = **log;
  auto put = [&](int64_t offset, int64_t ts) {
    auto r = l.AppendWithAssignedOffsets(BatchAt(offset, ts));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  now = kMon;  // appends must be within message.timestamp.after.max.ms of the clock
  put(0, kFri + 14 * kHour);
  put(419999, kMon + 8 * kHour);
  ASSERT_TRUE(l.Roll().ok());
  put(420000, kMon + 8 * kHour + 60000);
  now = kWed + 10 * kHour;
  put(909999, kWed + 10 * kHour);
  ASSERT_TRUE(l.Roll().ok());
  put(910000, kWed + 10 * kHour + 60000);
  ASSERT_EQ(l.segment_base_offsets(), (std::vector<int64_t>{0, 420000, 910000}));

  now = kThu + 9 * kHour + 10 * 60000;   // Thursday 09:10
  EXPECT_EQ(*l.DeleteOldSegments(), 1);  // 3 days and 1 hour old: deleted
  EXPECT_EQ(l.segment_base_offsets(), (std::vector<int64_t>{420000, 910000}));
  EXPECT_EQ(l.log_start_offset(), 420000);
  // The Monday 08:01 records stay until the segment's newest (Wed 10:00) is 3 days old.
  now = kSat + 10 * kHour;
  EXPECT_EQ(*l.DeleteOldSegments(), 0);
  now += 1;
  EXPECT_EQ(*l.DeleteOldSegments(), 1);
  EXPECT_EQ(l.log_start_offset(), 910000);
  // A segment with a timestamp in the future is never deleted by time, with a warning.
  std::vector<std::string> warnings;
  LogOptions o2;
  int64_t now2 = kThu;
  o2.clock = [&] { return now2; };
  o2.logger = [&](const std::string& line) { warnings.push_back(line); };
  auto future = Log::Open(tmp.path() + "/future-0", config, o2);
  ASSERT_TRUE(future.ok());
  ASSERT_TRUE((*future)->AppendAsLeader(BatchAt(0, kThu + 30 * 60000)).ok());
  ASSERT_TRUE((*future)->Roll().ok());
  ASSERT_TRUE((*future)->AppendAsLeader(BatchAt(0, kThu)).ok());
  now2 = kThu - kDay;  // the clock went back: the first segment's records are in the future
  EXPECT_EQ(*(*future)->DeleteOldSegments(), 0);
  bool warned = false;
  for (const auto& w : warnings) warned |= w.find("in the future") != std::string::npos;
  EXPECT_TRUE(warned);
}

// seed 003: a 2 GiB cap with 1 GiB segments settles one segment over the cap (scaled down:
// a "GiB" is two batches here).
TEST(RetentionTest, SeedThreeSizeRuleSettlesOneSegmentOverTheCap) {
  TempDir tmp;
  const int64_t b = static_cast<int64_t>(ProducerBatch(0, 1, 1000, 0).size());
  LogConfig config;
  ASSERT_TRUE(config.Set("internal.segment.bytes", std::to_string(2 * b)).ok());
  ASSERT_TRUE(config.Set("retention.bytes", std::to_string(4 * b)).ok());  // "2 GiB"
  ASSERT_TRUE(config.Set("retention.ms", "-1").ok());
  const int64_t now = 1794024676000;
  LogOptions o;
  o.clock = [&] { return now; };
  auto log = Log::Open(tmp.path() + "/big-0", config, o);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 7; ++i)
    ASSERT_TRUE((*log)->AppendAsLeader(ProducerBatch(i, 1, 1000, now)).ok());
  // 3 closed segments of 2 batches ("1 GiB") and 1 batch ("512 MiB") in the active one.
  ASSERT_EQ((*log)->num_segments(), 4);
  ASSERT_EQ((*log)->size_in_bytes(), 7 * b);
  EXPECT_EQ(*(*log)->DeleteOldSegments(), 1);
  EXPECT_EQ((*log)->size_in_bytes(), 5 * b);  // "2.5 GiB": removing another would go under
  EXPECT_EQ(*(*log)->DeleteOldSegments(), 0);
  EXPECT_EQ((*log)->log_start_offset(), 2);
}

// seed 001: a reader below the log start offset gets OFFSET_OUT_OF_RANGE with both bounds;
// DeleteRecords raises the start, and the next retention pass removes what lies below it.
TEST(RetentionTest, DeleteRecordsAndOutOfRangeReads) {
  TempDir tmp;
  LogConfig config;
  ASSERT_TRUE(config.Set("internal.segment.bytes", "300").ok());
  const int64_t now = 1794024676000;
  LogOptions o;
  o.clock = [&] { return now; };
  auto log = Log::Open(tmp.path() + "/orders-0", config, o);
  ASSERT_TRUE(log.ok());
  Log& l = **log;
  for (int i = 0; i < 16; ++i) ASSERT_TRUE(l.AppendAsLeader(ProducerBatch(i, 1, 1, now)).ok());
  const auto bases = l.segment_base_offsets();
  ASSERT_GE(bases.size(), 3u);
  const int64_t second = bases[1];
  auto r = l.DeleteRecords(second + 1);  // mid-segment is fine
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, second + 1);
  auto below = l.Read(second, 1000);
  ASSERT_TRUE(below.status().IsOutOfRange());
  EXPECT_THAT(below.status().message(), HasSubstr(fmt::format("range {} to 16", second + 1)));
  // The batch holding the new start is still returned whole.
  auto at = l.Read(second + 1, 1000);
  ASSERT_TRUE(at.ok());
  EXPECT_LE(at->first_batch.base_offset, second + 1);
  EXPECT_EQ(*l.DeleteOldSegments(), 1);  // only the first segment is wholly below the start
  EXPECT_EQ(l.segment_base_offsets().front(), second);
  EXPECT_TRUE(l.Read(17, 10).status().IsOutOfRange());
  EXPECT_THAT(l.DeleteRecords(17).status().message(), HasSubstr("high watermark 16"));
  EXPECT_EQ(*l.DeleteRecords(-1), 16);  // -1: up to the high watermark
  // Compact-only topics refuse DeleteRecords, as Kafka's PolicyViolationException.
  LogConfig compact;
  ASSERT_TRUE(compact.Set("cleanup.policy", "compact").ok());
  auto c = Log::Open(tmp.path() + "/table-0", compact, o);
  ASSERT_TRUE(c.ok());
  EXPECT_THAT((*c)->DeleteRecords(0).status().message(), HasSubstr("PolicyViolationException"));
}

// A reader that holds a deleted segment keeps reading it until the delayed deletion.
TEST(RetentionTest, ReadersOfDeletedSegmentsFinishBeforeTheFilesGo) {
  TempDir tmp;
  MockScheduler scheduler(1794024676000);
  LogConfig config;
  ASSERT_TRUE(config.Set("internal.segment.bytes", "300").ok());
  ASSERT_TRUE(config.Set("retention.ms", "1000").ok());
  LogOptions o;
  o.clock = [&] { return scheduler.NowMs(); };
  o.scheduler = &scheduler;
  auto log = Log::Open(tmp.path() + "/r-0", config, o);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE((*log)->AppendAsLeader(ProducerBatch(i, 1, 50, scheduler.NowMs())).ok());
  }
  auto held = (*log)->Read(0, 100);
  ASSERT_TRUE(held.ok());
  scheduler.Advance(5000);
  ASSERT_GT(*(*log)->DeleteOldSegments(), 0);
  auto bytes = held->slice.ReadAll();  // renamed to .deleted, still readable
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), static_cast<size_t>(held->slice.length));
  EXPECT_TRUE((*log)->Read(0, 100).status().IsOutOfRange());
  scheduler.Advance(60000);  // file.delete.delay.ms
  for (const auto& e : std::filesystem::directory_iterator(tmp.path() + "/r-0")) {
    EXPECT_EQ(e.path().string().find(".deleted"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

// A roll or close must not touch the .log's mtime (retention judges a segment without
// timestamps by it): only a longer, preallocated file is cut, as in Kafka.
TEST(RetentionTest, RollAndCloseKeepTheSegmentsModificationTime) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/m-0";
  auto log = Log::Open(dir, {}, {});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(0, 1, 10, 1794024676000)).ok());
  const auto path = std::filesystem::path(LogFilePath(dir, 0));
  const auto old_time = std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  std::filesystem::last_write_time(path, old_time);
  ASSERT_TRUE((*log)->Roll().ok());
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ(std::filesystem::last_write_time(path), old_time);
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

// A read-only view (a tool over a live directory) ignores files waiting for their delayed
// deletion; a writable open deletes them, as Kafka's loader does.
TEST(RetentionTest, ReadOnlyOpensIgnorePendingDeletions) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/p-0";
  {
    auto log = Log::Open(dir, {}, {});
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(0, 1, 10, 1794024676000)).ok());
    ASSERT_TRUE((*log)->Close().ok());
  }
  std::ofstream(dir + "/00000000000000000000.log.deleted") << "old";
  LogOptions ro;
  ro.read_only = true;
  auto view = Log::Open(dir, {}, ro);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ((*view)->log_end_offset(), 1);
  EXPECT_TRUE(std::filesystem::exists(dir + "/00000000000000000000.log.deleted"));
  auto rw = Log::Open(dir, {}, {});
  ASSERT_TRUE(rw.ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/00000000000000000000.log.deleted"));
}

}  // namespace
}  // namespace seglog
