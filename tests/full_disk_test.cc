// A full disk: the test mounts a 1 MiB tmpfs (it needs root, as CI and the README's
// commands run) and appends until the file system is full. The append that hits ENOSPC must fail
// with a clear error naming the file, change nothing readers see, and leave no partial batch
// behind: reads keep working, and a reopen after an unclean shutdown finds exactly the batches
// that were acknowledged, with nothing to cut.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "index/offset_index.h"
#include "io/file.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1700000000000;

class FullDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mount_ = tmp_.path() + "/small-fs";
    std::filesystem::create_directories(mount_);
    ASSERT_EQ(::mount("tmpfs", mount_.c_str(), "tmpfs", 0, "size=1m"), 0)
        << "cannot mount a 1 MiB tmpfs at " << mount_ << ": " << std::strerror(errno)
        << " (this test needs root, as CI and scripts/test.sh have)";
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(mount_.c_str(), MNT_DETACH);
  }
  testing::TempDir tmp_;
  std::string mount_;
  bool mounted_ = false;
};

TEST_F(FullDiskTest, AppendThatHitsEnospcFailsCleanlyAndLosesNothing) {
  const std::string dir = mount_ + "/t-0";
  LogConfig config;
  ASSERT_TRUE(config.Set("internal.segment.bytes", "262144").ok());
  ASSERT_TRUE(config.Set("segment.index.bytes", "4096").ok());
  LogOptions options;
  options.clock = [] { return kT0 + 1000; };
  auto log = *Log::Open(dir, config, options);
  const auto batch = testing::ProducerBatch(0, 4, 500, kT0);  // ~2 KiB
  Status failure;
  int64_t acknowledged = 0;
  for (int i = 0; i < 10000 && failure.ok(); ++i) {
    auto info = log->AppendAsLeader(batch);
    if (info.ok()) {
      acknowledged = info->last_offset + 1;
    } else {
      failure = info.status();
    }
  }
  ASSERT_FALSE(failure.ok()) << "a 1 MiB file system never filled up";
  EXPECT_TRUE(failure.IsIOError()) << failure.ToString();
  EXPECT_THAT(failure.ToString(), HasSubstr("No space left on device"));
  EXPECT_THAT(failure.ToString(), HasSubstr(dir));
  EXPECT_GT(acknowledged, 100);
  EXPECT_EQ(log->log_end_offset(), acknowledged);
  // Still full: a second attempt fails the same way and changes nothing.
  EXPECT_FALSE(log->AppendAsLeader(batch).ok());
  EXPECT_EQ(log->log_end_offset(), acknowledged);
  // Reads keep working, over every acknowledged batch.
  int64_t seen = 0;
  Status read = testing::ForEachBatch(log.get(), [&](const RecordBatchView& v, Bytes) {
    EXPECT_TRUE(v.ValidateCrc().ok());
    seen += v.records_count();
  });
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(seen, acknowledged);
  log.reset();  // no clean close: as if the process died on the full disk

  // Reopen as after a crash: recovery finds exactly the acknowledged batches, nothing to cut.
  options.had_clean_shutdown = false;
  auto reopened = Log::Open(dir, config, options);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->log_end_offset(), acknowledged);
  EXPECT_EQ((*reopened)->load_report().bytes_quarantined, 0);
}

TEST_F(FullDiskTest, IndexEntriesOnAFullDiskAreAnErrorNotASignal) {
  // Index entries go straight into the mapped file once fallocate has given its blocks; on a
  // full disk that fallocate fails. A store into an unbacked page would be SIGBUS instead.
  auto index =
      OffsetIndex::Open(Env::Default(), mount_ + "/00000000000000000000.index", 0, 1 << 20);
  ASSERT_TRUE(index.ok()) << index.status().ToString();  // a sparse file takes no blocks
  {
    auto filler = File::Open(mount_ + "/filler", File::Mode::kCreate);
    ASSERT_TRUE(filler.ok());
    const std::vector<uint8_t> chunk(4096, 0xAB);
    int64_t at = 0;
    while ((*filler)->WriteAt(at, chunk).ok()) at += 4096;
  }
  Status s = (*index)->Append(5, 100);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("No space left on device"));
  EXPECT_THAT(s.ToString(), HasSubstr("00000000000000000000.index"));
  EXPECT_EQ((*index)->entries(), 0);
  // Space again: the same append goes through, and reads back.
  ASSERT_TRUE(RemoveFile(mount_ + "/filler", false).ok());
  ASSERT_TRUE((*index)->Append(5, 100).ok());
  ASSERT_TRUE((*index)->Append(9, 200).ok());
  EXPECT_EQ((*index)->Lookup(9).position, 200);
}

}  // namespace
}  // namespace seglog
