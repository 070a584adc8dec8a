#include "tools/check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "log/test_support.h"
#include "tools/produce.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

class CheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProduceOptions o;
    o.log_dir = tmp_.path();
    o.topic = "t";
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
  const std::string kafka = std::string(SEGLOG_SOURCE_DIR) + "/tests/data/kafka_written";
  std::ostringstream out;
  auto n = CheckLogDir({kafka, ""}, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0) << out.str();
  EXPECT_THAT(out.str(),
              HasSubstr("kw-none-0: OK (3 segment(s), 52 batch(es), offsets 0 to 2589)"));
  EXPECT_THAT(out.str(), HasSubstr("checked 5 partition(s): 0 problem(s)"));
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

}  // namespace
}  // namespace seglog
