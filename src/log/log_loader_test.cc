// The loader and recovery, against the damage Kafka's own LogLoaderTest and LogSegmentTest
// inflict: partial and garbage tails, overwritten tails, zero-filled index tails, missing and
// wrong indexes, interrupted swaps and cleanings, lost segments. Nothing cut is lost: it is in
// the quarantine.
#include "log/log_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "io/atomic_file.h"
#include "io/file_names.h"
#include "record/batch_walker.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

class LogLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() + "/t-0";
    ASSERT_TRUE(config_.Set("segment.bytes", "1048576").ok());
  }
  LogOptions Options(bool clean, int64_t recovery_point = 0) {
    LogOptions o;
    o.clock = [] { return kT0 + 100000; };
    o.had_clean_shutdown = clean;
    o.recovery_point = recovery_point;
    return o;
  }
  // 3 full segments and a partial one, closed cleanly.
  void Write(int records = 12000) {
    auto log = *Log::Open(dir_, config_, Options(true));
    for (int first = 0; first < records; first += 10) {
      ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(first, 10, 250, kT0)).ok());
    }
    ASSERT_TRUE(log->Close().ok());
  }
  std::unique_ptr<Log> Open(bool clean, int64_t recovery_point = 0) {
    auto log = Log::Open(dir_, config_, Options(clean, recovery_point));
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  // Every record offset, in order, reading the whole log.
  std::vector<int64_t> AllOffsets(Log* log) {
    std::vector<int64_t> out;
    Status s = testing::ForEachBatch(log, [&](const RecordBatchView& v, Bytes) {
      EXPECT_TRUE(v.ValidateCrc().ok());
      for (int64_t o = v.base_offset(); o <= v.last_offset(); ++o) out.push_back(o);
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  void Append(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::app);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  }
  std::string Quarantined() { return tmp_.path() + "/.quarantine/t-0"; }

  TempDir tmp_;
  std::string dir_;
  LogConfig config_;
};

TEST_F(LogLoaderTest, CleanShutdownLoadsWithoutRecovery) {
  Write();
  auto log = Open(true);
  EXPECT_EQ(log->log_end_offset(), 12000);
  EXPECT_EQ(log->load_report().segments_recovered, 0);
  EXPECT_EQ(log->recovery_point(), 12000);
}

TEST_F(LogLoaderTest, PartialTrailingBatchIsCutAndQuarantined) {
  Write();
  const std::string active = LogFilePath(dir_, 11490);
  auto extra = ProducerBatch(0, 10, 250, kT0);
  extra.resize(100);  // a batch cut off mid-write
  Append(active, extra);
  auto log = Open(false, 11490);
  EXPECT_EQ(log->log_end_offset(), 12000);
  EXPECT_EQ(FileSize(active), 139281);
  EXPECT_EQ(log->load_report().segments_recovered, 1);  // only from the recovery point
  EXPECT_EQ(log->load_report().bytes_quarantined, 100);
  auto kept = ReadFileToString(Quarantined() + "/cuts.log");
  ASSERT_TRUE(kept.ok());
  EXPECT_THAT(*kept, HasSubstr("cut bytes [139281, 139381)"));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(Quarantined())) {
    if (e.path().filename().string().rfind("00000000000000011490.log.139281-139381", 0) == 0) {
      EXPECT_EQ(e.file_size(), 100u);
      ++files;
    }
  }
  EXPECT_EQ(files, 1);
  // A second open changes nothing.
  log.reset();
  auto again = Open(false, 11490);
  EXPECT_EQ(again->log_end_offset(), 12000);
  EXPECT_EQ(again->load_report().bytes_quarantined, 0);
}

TEST_F(LogLoaderTest, RandomBytesAppendedToTheLogAreCut) {
  Write(3000);
  std::mt19937 rng(3);
  std::vector<uint8_t> junk(777);
  for (auto& b : junk) b = static_cast<uint8_t>(rng());
  Append(LogFilePath(dir_, 0), junk);
  auto log = Open(false);
  EXPECT_EQ(log->log_end_offset(), 3000);
  EXPECT_EQ(log->load_report().bytes_quarantined, 777);
  EXPECT_EQ(AllOffsets(log.get()).size(), 3000u);
}

TEST_F(LogLoaderTest, OverwrittenTailInAnOldSegmentCutsThereAndRemovesLaterSegments) {
  Write();
  // Overwrite segment 3830 from byte 500,000 (inside a batch) with garbage.
  {
    std::fstream f(LogFilePath(dir_, 3830), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500000);
    std::string garbage(1000, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto log = Open(false, 0);
  // Batches are 2,731 bytes: 500,000 / 2731 = 183 whole batches survive in segment 3830.
  EXPECT_EQ(log->log_end_offset(), 3830 + 183 * 10);
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 3830}));
  EXPECT_EQ(FileSize(LogFilePath(dir_, 3830)), 183 * 2731);
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 7660)));
  // The later segments are in the quarantine, whole.
  int64_t kept_logs = 0;
  for (const auto& e : std::filesystem::directory_iterator(Quarantined())) {
    const std::string n = e.path().filename().string();
    if (n.rfind("00000000000000007660.log.", 0) == 0 ||
        n.rfind("00000000000000011490.log.", 0) == 0) {
      kept_logs += static_cast<int64_t>(e.file_size());
    }
  }
  EXPECT_EQ(kept_logs, 1045973 + 139281);
  auto offsets = AllOffsets(log.get());
  ASSERT_EQ(offsets.size(), static_cast<size_t>(3830 + 1830));
  for (size_t i = 0; i < offsets.size(); ++i) ASSERT_EQ(offsets[i], static_cast<int64_t>(i));
}

TEST_F(LogLoaderTest, BitFlipBeforeTheRecoveryPointIsLeftForCheck) {
  Write();
  {
    std::fstream f(LogFilePath(dir_, 0), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100000);
    f.put('\x01');
  }
  // Kafka recovers only from the recovery point; the flip in segment 0 stays (seglog check
  // reports it).
  auto log = Open(false, 11490);
  EXPECT_EQ(log->log_end_offset(), 12000);
  EXPECT_EQ(log->load_report().bytes_quarantined, 0);
}

TEST_F(LogLoaderTest, ZeroFilledIndexTailAfterACrashIsRebuilt) {
  Write(5000);
  // A crash leaves the active segment's indexes untrimmed: preallocated, zeros after the entries.
  std::filesystem::resize_file(OffsetIndexFilePath(dir_, 3830), 10485760);
  std::filesystem::resize_file(TimeIndexFilePath(dir_, 3830), 10485756);
  auto log = Open(false, 3830);
  EXPECT_EQ(log->log_end_offset(), 5000);
  auto loc = log->LookupOffset(4500);
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_EQ((*loc)->base_offset, 4500);
  EXPECT_EQ(*log->FetchOffsetByTimestamp(kT0 + 4321).value(),
            (TimestampAndOffset{kT0 + 4321, 4321, 0}));
  ASSERT_TRUE(log->Close().ok());
  // 1,170 records = 117 batches; an entry every second batch from the third: 58 entries.
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir_, 3830)), 8 * 58);
}

TEST_F(LogLoaderTest, MissingIndexesAreRebuiltEvenAfterACleanShutdown) {
  Write();
  std::filesystem::remove(OffsetIndexFilePath(dir_, 0));
  std::filesystem::remove(TimeIndexFilePath(dir_, 3830));
  auto log = Open(true);
  EXPECT_EQ(log->load_report().segments_recovered, 1);  // the one without its offset index
  EXPECT_EQ(FileSize(OffsetIndexFilePath(dir_, 0)), 1528);
  auto loc = log->LookupOffset(35);
  EXPECT_EQ((*loc)->position, 8193);
  // A missing time index alone is recreated empty (Kafka); lookups still answer via the scan.
  auto ts = log->FetchOffsetByTimestamp(kT0 + 5000);
  ASSERT_TRUE(ts.ok() && ts->has_value());
  EXPECT_EQ((*ts)->offset, 5000);
}

TEST_F(LogLoaderTest, IndexPointingPastTheLogEndIsRebuiltOnRecovery) {
  Write(5000);
  {
    std::fstream f(OffsetIndexFilePath(dir_, 3830),
                   std::ios::in | std::ios::out | std::ios::binary);
    const char past_end[8] = {0, 0, 0, 5, 0x7f, 0, 0, 0};  // offset 3835 -> position 2^31-ish
    f.write(past_end, 8);
  }
  auto log = Open(false, 3830);
  auto loc = log->LookupOffset(3835);
  ASSERT_TRUE(loc.ok() && loc->has_value());
  EXPECT_EQ((*loc)->position, 0);  // offsets 3830-3839 are the first batch of segment 3830
}

TEST_F(LogLoaderTest, InterruptedSwapIsCompletedAndCleanedLeftoversRemoved) {
  Write(5000);
  // A cleaner finished writing segment 0's replacement (.swap) but crashed before the rename:
  // the replacement holds offsets 0-3829 too (here, the same bytes).
  std::filesystem::copy_file(LogFilePath(dir_, 0), LogFilePath(dir_, 0, ".swap"));
  std::ofstream(LogFilePath(dir_, 3830, ".cleaned")) << "half-written";
  std::ofstream(OffsetIndexFilePath(dir_, 7660)) << "orphan index";
  std::ofstream(LogFilePath(dir_, 3830, ".deleted")) << "old";
  auto log = Open(true);
  EXPECT_EQ(log->log_end_offset(), 5000);
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 0, ".swap")));
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 3830, ".cleaned")));
  EXPECT_FALSE(std::filesystem::exists(OffsetIndexFilePath(dir_, 7660)));
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 3830, ".deleted")));
  EXPECT_TRUE(std::filesystem::exists(LogFilePath(dir_, 0)));
  EXPECT_EQ(AllOffsets(log.get()).size(), 5000u);
  std::string actions;
  for (const auto& a : log->load_report().actions) actions += a + "\n";
  EXPECT_THAT(actions, HasSubstr("completed swap"));
  EXPECT_THAT(actions, HasSubstr("index without its .log"));
}

TEST_F(LogLoaderTest, SwapFromAnUnfinishedSplitIsDropped) {
  Write(5000);
  std::ofstream(LogFilePath(dir_, 3830, ".cleaned")) << "x";
  std::ofstream(LogFilePath(dir_, 4000, ".swap")) << "y";  // offset >= min .cleaned offset
  auto log = Open(true);
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 4000, ".swap")));
  EXPECT_FALSE(std::filesystem::exists(LogFilePath(dir_, 4000)));
  EXPECT_EQ(log->log_end_offset(), 5000);
}

TEST_F(LogLoaderTest, LostSegmentsBelowTheLogStartOffsetStartAnEmptyLogThere) {
  Write(3000);
  LogOptions o = Options(true);
  o.log_start_offset = 9000;  // the checkpoint says the log started beyond what is on disk
  auto log = Log::Open(dir_, config_, o);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ((*log)->log_start_offset(), 9000);
  EXPECT_EQ((*log)->log_end_offset(), 9000);
  EXPECT_EQ((*log)->segment_base_offsets(), (std::vector<int64_t>{9000}));
  EXPECT_GT((*log)->load_report().bytes_quarantined, 0);
}

TEST_F(LogLoaderTest, ReadOnlyOpenRefusesAnInterruptedSwap) {
  Write(100);
  std::ofstream(LogFilePath(dir_, 0, ".swap")) << "y";
  LogOptions o = Options(true);
  o.read_only = true;
  EXPECT_THAT(Log::Open(dir_, config_, o).status().ToString(),
              HasSubstr("interrupted clean or swap"));
}

}  // namespace
}  // namespace seglog
