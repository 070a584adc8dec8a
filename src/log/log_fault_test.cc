// Failing calls under a Log, through a FaultInjectionEnv: each failure of open, pwrite,
// fallocate, fsync, msync, rename, unlink and a directory fsync (ENOSPC, EIO) on the paths of
// append, roll, flush, retention and DeleteRecords. In each: the error is returned, names the
// file and the operation; a failure that leaves the files and the segment map apart takes the
// log offline (reported once through on_storage_failure); and reopening the directory with the
// default Env finds every batch acknowledged before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "io/fault_injection_env.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

class LogFaultTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(const LogConfig& config) {
    LogOptions o;
    o.env = &env_;
    o.clock = [] { return kT0; };
    o.on_storage_failure = [this](const Status& s) { reported_.push_back(s.ToString()); };
    auto log = Log::Open(dir_, config, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  // Appends one 1-record batch (value of `size` bytes); its offset is remembered as acked.
  Status Append(Log* log, int size = 100) {
    auto a = log->AppendAsLeader(ProducerBatch(next_record_, 1, size, kT0));
    if (a.ok()) acked_.push_back(a->first_offset);
    ++next_record_;
    return a.status();
  }
  // Reopens the directory with the default Env, as after a crash (recovering every segment),
  // and checks every acknowledged offset at or above `from` is there.
  void ExpectAckedDataAfterReopen(int64_t from = 0) {
    LogOptions o;
    o.had_clean_shutdown = false;
    o.clock = [] { return kT0; };
    auto log = Log::Open(dir_, config_, o);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    std::set<int64_t> found;
    ASSERT_TRUE(testing::ForEachBatch(log->get(), [&](const RecordBatchView& v, Bytes) {
                  found.insert(v.base_offset());
                }).ok());
    for (int64_t offset : acked_) {
      if (offset >= from) {
        EXPECT_TRUE(found.count(offset)) << "offset " << offset << " lost";
      }
    }
  }
  void ExpectOfflineOnce(Log* log) {
    EXPECT_TRUE(log->offline());
    EXPECT_EQ(reported_.size(), 1u);
    EXPECT_TRUE(Append(log).IsIOError());
    EXPECT_EQ(reported_.size(), 1u);
  }

  TempDir tmp_;
  std::string dir_ = tmp_.path() + "/t-0";
  FaultInjectionEnv env_{Env::Default()};
  LogConfig config_;
  std::vector<std::string> reported_;
  std::vector<int64_t> acked_;
  int next_record_ = 0;
};

TEST_F(LogFaultTest, AppendWithAFullDiskFailsWholeAndTheNextAppendWorks) {
  auto log = OpenLog(config_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());
  env_.Fail(EnvOp::kWrite, "00000000000000000000.log", ENOSPC, 1);
  Status s = Append(log.get());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("00000000000000000000.log: pwrite: No space left on device"));
  EXPECT_EQ(log->log_end_offset(), 3);
  EXPECT_FALSE(log->offline());  // nothing was lost: the append is refused whole
  ASSERT_TRUE(Append(log.get()).ok());
  EXPECT_EQ(log->log_end_offset(), 4);
  ASSERT_TRUE(log->Close().ok());
  ExpectAckedDataAfterReopen();
}

TEST_F(LogFaultTest, AnIndexThatCannotBeAllocatedFailsTheAppendWhole) {
  ASSERT_TRUE(config_.Set("index.interval.bytes", "1").ok());  // an entry every batch
  auto log = OpenLog(config_);
  ASSERT_TRUE(Append(log.get()).ok());
  env_.Fail(EnvOp::kAllocate, ".index", ENOSPC, 1);
  Status s = Append(log.get());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("00000000000000000000.index: fallocate: No space left"));
  EXPECT_THAT(s.message(), HasSubstr("cut back"));
  EXPECT_EQ(log->log_end_offset(), 1);
  ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Close().ok());
  ExpectAckedDataAfterReopen();
}

TEST_F(LogFaultTest, ARollThatCannotCreateItsSegmentIsRefusedAndRetried) {
  auto log = OpenLog(config_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Append(log.get()).ok());
  env_.Fail(EnvOp::kOpen, "00000000000000000003.log", EIO, 1);
  Status s = log->Roll();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("00000000000000000003.log: open: Input/output error"));
  EXPECT_EQ(log->num_segments(), 1);
  EXPECT_FALSE(log->offline());
  // The old active segment was already made inactive (its indexes trimmed, as Kafka's roll does
  // first), so the next append tries the roll again, and it works.
  ASSERT_TRUE(Append(log.get()).ok());
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 3}));
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Close().ok());
  ExpectAckedDataAfterReopen();
}

TEST_F(LogFaultTest, ARollWhoseDirectoryFsyncFailsTakesTheLogOffline) {
  auto log = OpenLog(config_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Flush(3).ok());
  env_.Fail(EnvOp::kSyncDir, dir_, EIO, 1);
  Status s = log->Roll();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr(dir_ + ": fsync directory: Input/output error"));
  ExpectOfflineOnce(log.get());
  log.reset();
  ExpectAckedDataAfterReopen();
}

TEST_F(LogFaultTest, AFailedMsyncOfAnIndexTakesTheLogOffline) {
  auto log = OpenLog(config_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Append(log.get()).ok());
  env_.Fail(EnvOp::kMsync, ".timeindex", EIO);
  Status s = log->Flush(3);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("00000000000000000000.timeindex: msync: Input/output error"));
  EXPECT_EQ(log->recovery_point(), 0);
  ExpectOfflineOnce(log.get());
  env_.ClearFailures();
  log.reset();
  ExpectAckedDataAfterReopen();
}

// Retention publishes the map without the deleted segments, then renames their files: a rename
// that fails leaves files the map does not describe, so the log goes offline (it used to return
// the error and stay online over the half-renamed files).
TEST_F(LogFaultTest, ARetentionRenameThatFailsTakesTheLogOffline) {
  ASSERT_TRUE(config_.Set("internal.segment.bytes", "500").ok());
  ASSERT_TRUE(config_.Set("retention.bytes", "600").ok());
  auto log = OpenLog(config_);
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());
  ASSERT_GE(log->num_segments(), 3);
  env_.Fail(EnvOp::kRename, "00000000000000000000.index.deleted", EIO);
  auto n = log->DeleteOldSegments();
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsIOError());
  EXPECT_THAT(n.status().message(), HasSubstr("rename " + dir_ + "/00000000000000000000.index to"));
  EXPECT_THAT(n.status().message(), HasSubstr("offline"));
  ExpectOfflineOnce(log.get());
  // The first segment's .log was renamed before its index failed: it was leaving anyway (the
  // log start moved past it); everything from the new log start is kept.
  const int64_t start = log->log_start_offset();
  EXPECT_GT(start, 0);
  env_.ClearFailures();
  log.reset();
  ExpectAckedDataAfterReopen(start);
}

// DeleteRecords writes the leader-epoch checkpoint; its retention then renames.
TEST_F(LogFaultTest, DeleteRecordsReportsAFailedCheckpointAndItsRetentionAFailedRename) {
  ASSERT_TRUE(config_.Set("internal.segment.bytes", "500").ok());
  auto log = OpenLog(config_);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(Append(log.get()).ok());
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());
  env_.Fail(EnvOp::kWrite, "leader-epoch-checkpoint", ENOSPC, 1);
  auto r = log->DeleteRecords(4);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("leader-epoch-checkpoint.tmp: pwrite: No space left on device"));
  EXPECT_FALSE(log->offline());
  env_.Fail(EnvOp::kRename, ".deleted", EIO, 1);
  auto n = log->DeleteOldSegments();
  ASSERT_FALSE(n.ok());
  EXPECT_THAT(n.status().message(), HasSubstr("00000000000000000000.log.deleted: rename"));
  ExpectOfflineOnce(log.get());
  log.reset();
  ExpectAckedDataAfterReopen(4);
}

// Removing *.deleted files happens after the segments left the log (a delete-file task): an
// unlink that fails is logged, naming the file, and the next open removes the leftovers.
TEST_F(LogFaultTest, AFailedUnlinkOfADeletedSegmentIsLoggedAndCleanedUpAtTheNextOpen) {
  ASSERT_TRUE(config_.Set("internal.segment.bytes", "500").ok());
  std::vector<std::string> lines;
  LogOptions o;
  o.env = &env_;
  o.clock = [] { return kT0; };
  o.logger = [&](const std::string& l) { lines.push_back(l); };
  auto opened = Log::Open(dir_, config_, o);
  ASSERT_TRUE(opened.ok());
  Log* log = opened->get();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(Append(log).ok());
  ASSERT_TRUE(log->DeleteRecords(3).ok());
  env_.Fail(EnvOp::kUnlink, "00000000000000000000.log.deleted", EIO);
  ASSERT_EQ(*log->DeleteOldSegments(), 1);
  bool logged = false;
  for (const std::string& l : lines) {
    logged |= l.find("Error deleting 00000000000000000000.log.deleted") != std::string::npos &&
              l.find("unlink: Input/output error") != std::string::npos;
  }
  EXPECT_TRUE(logged);
  EXPECT_TRUE(Env::Default()->FileExists(dir_ + "/00000000000000000000.log.deleted"));
  ASSERT_TRUE(log->Close().ok());
  opened->reset();
  env_.ClearFailures();
  ExpectAckedDataAfterReopen(3);
  EXPECT_FALSE(Env::Default()->FileExists(dir_ + "/00000000000000000000.log.deleted"));
}

}  // namespace
}  // namespace seglog
