#include "tools/check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "manager/log_directory.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"
#include "tools/produce.h"
#include "tools/progress_reporter.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

class CheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProduceOptions o;
    o.log_dir = tmp_.path();
    o.topic = std::string(1, 't');  // (a literal here trips g++ 12 -Wrestrict)
    o.num_records = 9000;
    o.batch_records = 10;
    o.value_size = 250;
    o.configs = {{"segment.bytes", "1048576"}};
    o.timestamp_start = 1700000000000;
    o.timestamp_step = 1;
    o.clock = [] { return 1700000100000; };
    std::istringstream none;
    ASSERT_TRUE(Produce(o, none).ok());
    dir_ = tmp_.path() + "/t-0";
  }
  std::pair<int64_t, std::string> Check() {
    std::ostringstream out;
    auto n = CheckLogDir({tmp_.path(), ""}, out);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return {n.ok() ? *n : -1, out.str()};
  }
  testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(CheckTest, AHealthyDirectoryPasses) {
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr("t-0: OK (3 segment(s), 900 batch(es), offsets 0 to 8999)"));
}

// The progress line: every partition's .log bytes as the total (t-0's three segments and the
// metadata log's one), one redraw per segment (the fake clock moves 300 ms a call), finished
// before the results are printed.
TEST_F(CheckTest, ProgressCountsEverySegmentAndItsBytes) {
  int64_t now = 0;
  std::ostringstream drawn;
  ProgressReporter reporter(
      {.label = "check", .enabled = true, .out = &drawn, .interval_ms = 200, .now_ms = [&now] {
         return now += 300;
       }});
  int64_t log_bytes = 0, log_segments = 0, partitions = 0;
  for (const auto& d : std::filesystem::directory_iterator(tmp_.path())) {
    if (!d.is_directory()) continue;
    ++partitions;
    for (const auto& e : std::filesystem::directory_iterator(d.path())) {
      if (e.path().extension() != ".log") continue;
      log_bytes += static_cast<int64_t>(e.file_size());
      ++log_segments;
    }
  }
  ASSERT_EQ(log_segments, 4);  // t-0's 3 and the metadata log's
  CheckOptions o{tmp_.path(), ""};
  ProgressStep seen;
  bool done = false;
  int64_t calls = 0;
  o.progress = [&](const ProgressStep& step) {
    ++calls;
    EXPECT_FALSE(done) << "a step after done";
    seen.bytes += step.bytes;
    seen.segments += step.segments;
    seen.add_bytes_total += step.add_bytes_total;
    seen.add_segments_total += step.add_segments_total;
    done |= step.done;
    reporter.Add(step);
  };
  std::ostringstream out;
  auto problems = CheckLogDir(o, out);
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  ASSERT_EQ(*problems, 0) << out.str();
  EXPECT_EQ(seen.add_segments_total, log_segments);
  EXPECT_EQ(seen.segments, log_segments);
  EXPECT_EQ(seen.add_bytes_total, log_bytes);
  EXPECT_EQ(seen.bytes, log_bytes);
  EXPECT_TRUE(done);
  EXPECT_EQ(calls, partitions + log_segments + 1);  // the totals, each segment, done
  const std::string text = drawn.str();
  EXPECT_THAT(text, HasSubstr("\rcheck: 1/4 segments, "));
  EXPECT_THAT(text, HasSubstr(" left"));
  EXPECT_THAT(text, HasSubstr("\rcheck: 4/4 segments, "));
  EXPECT_THAT(text, HasSubstr("(100%)"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_EQ(text.back(), '\n');
}

// Files waiting for a delayed deletion, or left by an interrupted clean, are normal states of
// a live directory (a Kafka broker keeps *.deleted for file.delete.delay.ms): noted, not
// problems. Other unknown files still are.
TEST_F(CheckTest, PendingDeletionsAndSwapsAreNotProblems) {
  std::ofstream(dir_ + "/00000000000000000000.log.deleted") << "x";
  std::ofstream(dir_ + "/00000000000000000000.index.deleted") << "x";
  std::ofstream(dir_ + "/00000000000000003830.log.cleaned") << "x";
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr("; 3 file(s) awaiting deletion or swap)"));
  std::ofstream(dir_ + "/notes.deleted") << "x";
  EXPECT_EQ(Check().first, 1);
}

TEST_F(CheckTest, AKafkaWrittenDirectoryPassesReadOnly) {
  const std::string kafka = testing::SourcePath("tests/data/kafka_written");
  std::ostringstream out;
  auto n = CheckLogDir({kafka, ""}, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0) << out.str();
  // The partition directories were copied without the broker's marker or checkpoints.
  EXPECT_THAT(out.str(), ::testing::StartsWith(kafka + ": not shut down cleanly"));
  EXPECT_THAT(out.str(), HasSubstr("  kw-none-0 from offset 0 (no recovery point checkpointed)"));
  EXPECT_THAT(out.str(), HasSubstr("kw-none-0: OK (3 segment(s), 52 batch(es), offsets 0 to "
                                   "2589; 3 segment(s) to recover)"));
  EXPECT_THAT(out.str(), HasSubstr("checked 5 partition(s): 0 problem(s)"));

  // With the marker, nothing is left to recovery: the indexes Kafka wrote are checked too.
  std::filesystem::copy(kafka, tmp_.path() + "/kafka", std::filesystem::copy_options::recursive);
  std::ofstream(tmp_.path() + "/kafka/.kafka_cleanshutdown") << "{}";
  std::ostringstream clean;
  n = CheckLogDir({tmp_.path() + "/kafka", ""}, clean);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0) << clean.str();
  EXPECT_THAT(clean.str(),
              HasSubstr("kw-none-0: OK (3 segment(s), 52 batch(es), offsets 0 to 2589)\n"));
  EXPECT_THAT(clean.str(), ::testing::Not(HasSubstr("not shut down cleanly")));
}

TEST_F(CheckTest, ABitFlipInAnOldSegmentIsReportedWithItsPosition) {
  {
    std::fstream f(LogFilePath(dir_, 0), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100000);
    const char c = static_cast<char>(f.peek());
    f.seekp(100000);
    f.put(static_cast<char>(c ^ 0x10));
  }
  auto [problems, text] = Check();
  EXPECT_GE(problems, 1);
  EXPECT_THAT(text, HasSubstr(LogFilePath(dir_, 0)));
  EXPECT_THAT(text, HasSubstr("position 98316"));  // the batch holding byte 100,000 (36 x 2731)
  EXPECT_THAT(text, HasSubstr("crc"));
}

TEST_F(CheckTest, IndexMismatchesStrayFilesAndBadCheckpointsAreReported) {
  {
    std::fstream f(OffsetIndexFilePath(dir_, 0), std::ios::in | std::ios::out | std::ios::binary);
    const char wrong[4] = {0, 0, 0, 30};  // entry 0 says offset 30 (it is 29)
    f.write(wrong, 4);
  }
  std::ofstream(dir_ + "/notes.txt") << "x";
  OffsetMap m;
  m[{"t", 0}] = 123456;  // beyond the end
  ASSERT_TRUE(WriteOffsetCheckpoint(tmp_.path() + "/recovery-point-offset-checkpoint", m).ok());
  std::ofstream(tmp_.path() + "/log-start-offset-checkpoint") << "0\n3\nt 0 0\n";  // truncated
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 4) << text;
  EXPECT_THAT(text, HasSubstr("expected the batch's last offset 29, found 30"));
  EXPECT_THAT(text, HasSubstr("notes.txt: stray file"));
  EXPECT_THAT(text, HasSubstr("t-0 at offset 123456, outside the partition's offsets [0, 9000]"));
  EXPECT_THAT(text,
              HasSubstr("log-start-offset-checkpoint: the count line says 3 entries, found 1"));
}

TEST_F(CheckTest, AZeroFilledIndexTailIsFineOnlyOnTheActiveSegment) {
  std::filesystem::resize_file(OffsetIndexFilePath(dir_, 7660), 10485760);  // active: fine
  EXPECT_EQ(Check().first, 0);
  std::filesystem::resize_file(OffsetIndexFilePath(dir_, 0), 10485760);
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 1) << text;
  EXPECT_THAT(text, HasSubstr("untrimmed, zero-filled tail after 191 entries"));
}

// A directory copied while its log is open is what a SIGKILL leaves: no clean-shutdown marker,
// and the active segment's preallocated indexes untrimmed, their entries not yet written.
class CheckCrashedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LogDirectoryOptions o;
    o.log_options.clock = [] { return int64_t{1700000100000}; };
    auto d = LogDirectory::Open(live_.path(), o);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    LogConfig c;
    ASSERT_TRUE(c.Set("segment.bytes", "1048576").ok());
    auto log = (*d)->GetLog({"t", 0}, c);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    // 10-record batches of 2731 bytes: 383 fill the first 1 MiB segment, and the 384th rolls;
    // after two batches the new segment's index has no entry yet (index.interval.bytes 4096).
    for (int i = 0; i < 385; ++i) {
      ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(i * 10, 10, 250, kT0), 0).ok());
    }
    ASSERT_EQ((*log)->num_segments(), 2);
    rolled_at_ = (*log)->segment_base_offsets().back();
    ASSERT_TRUE((*d)->WriteRecoveryPointCheckpoint().ok());  // recovery point: the roll
    std::filesystem::copy(live_.path(), crashed_.path(),
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing);
    ASSERT_TRUE((*d)->Close().ok());
  }
  std::pair<int64_t, std::string> Check() {
    std::ostringstream out;
    auto n = CheckLogDir({crashed_.path(), ""}, out);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return {n.ok() ? *n : -1, out.str()};
  }
  static constexpr int64_t kT0 = 1700000000000;
  testing::TempDir live_, crashed_;
  int64_t rolled_at_ = 0;
};

TEST_F(CheckCrashedTest, SaysFirstWhatRecoveryWouldDoAndDoesNotReportTheIndexTail) {
  ASSERT_FALSE(std::filesystem::exists(crashed_.path() + "/.kafka_cleanshutdown"));
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, ::testing::StartsWith(fmt::format(
                        "{}: not shut down cleanly (no .kafka_cleanshutdown): opening it "
                        "recovers 1 partition(s)\n  t-0 from offset {} (its recovery point)\n",
                        crashed_.path(), rolled_at_)));
  EXPECT_THAT(text, HasSubstr("t-0: OK (2 segment(s), 385 batch(es), offsets 0 to 3849; 1 "
                              "segment(s) to recover)"));
}

// A batch torn by the crash is what recovery cuts: a note, not a problem.
TEST_F(CheckCrashedTest, RecoveryCutsATornTailAsANote) {
  const std::string active = LogFilePath(crashed_.path() + "/t-0", rolled_at_);
  const auto size = std::filesystem::file_size(active);
  std::ofstream(active, std::ios::app | std::ios::binary) << std::string(100, 'x');
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format(
                        "  note: {}: recovery cuts the 100 byte(s) at position {}, not a whole "
                        "batch\n",
                        active, size)));
}

// Below the recovery point nothing is recovered: problems there are still problems.
TEST_F(CheckCrashedTest, ProblemsBelowTheRecoveryPointAreStillReported) {
  const std::string dir = crashed_.path() + "/t-0";
  // Entry 0 says offset 30 (it is 29).
  testing::OverwriteBytes(OffsetIndexFilePath(dir, 0), 0, std::vector<uint8_t>{0, 0, 0, 30});
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 1) << text;
  EXPECT_THAT(text, HasSubstr("expected the batch's last offset 29, found 30"));
  testing::FlipBits(LogFilePath(dir, 0), 100000, 0x10);
  std::tie(problems, text) = Check();
  EXPECT_EQ(problems, 1) << text;
  EXPECT_THAT(text, HasSubstr("position 98316"));
  EXPECT_THAT(text, HasSubstr("crc"));
}

// Without a recovery-point checkpoint every segment is recovered from offset 0: a bad index
// is rebuilt, and a corrupt batch is where recovery cuts the log, removing what follows.
TEST_F(CheckCrashedTest, WithoutARecoveryPointEverySegmentIsRecovered) {
  const std::string dir = crashed_.path() + "/t-0";
  std::filesystem::remove(crashed_.path() + "/recovery-point-offset-checkpoint");
  // Entry 0 says offset 30 (it is 29).
  testing::OverwriteBytes(OffsetIndexFilePath(dir, 0), 0, std::vector<uint8_t>{0, 0, 0, 30});
  auto [problems, text] = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr("  t-0 from offset 0 (no recovery point checkpointed)\n"));
  EXPECT_THAT(text, HasSubstr("; 2 segment(s) to recover)"));
  testing::FlipBits(LogFilePath(dir, 0), 100000, 0x10);
  std::tie(problems, text) = Check();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("note: {}: recovery cuts the segment at position 98316",
                                          LogFilePath(dir, 0))));
  EXPECT_THAT(
      text, HasSubstr(fmt::format("note: recovery then removes the 1 later segment(s), from {} on",
                                  LogFilePath(dir, rolled_at_))));
}

}  // namespace
}  // namespace seglog
