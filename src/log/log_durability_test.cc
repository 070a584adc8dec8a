// Flush policy, the flush-log task after a roll, fsync failures taking the log offline, and the
// small per-partition files Kafka keeps (leader-epoch-checkpoint, partition.metadata).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>

#include "base/scheduler.h"
#include "io/atomic_file.h"
#include "io/fault_injection_env.h"
#include "io/file.h"
#include "log/checkpoint_file.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

class LogDurabilityTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(const LogConfig& config, LogOptions o = {}) {
    o.clock = [this] { return now_.load(); };
    auto log = Log::Open(dir_, config, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  void Append(Log* log, int n, int value_size = 10) {
    for (int i = 0; i < n; ++i) {
      auto a = log->AppendAsLeader(ProducerBatch(i, 1, value_size, kT0));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
    }
  }
  TempDir tmp_;
  std::string dir_ = tmp_.path() + "/t-0";
  std::atomic<int64_t> now_{kT0};
};

TEST_F(LogDurabilityTest, FlushMessagesFlushesWhenThatManyAreUnflushed) {
  LogConfig c;
  ASSERT_TRUE(c.Set("flush.messages", "3").ok());
  auto log = OpenLog(c);
  Append(log.get(), 2);
  EXPECT_EQ(log->recovery_point(), 0);
  EXPECT_EQ(log->unflushed_messages(), 2);
  Append(log.get(), 1);
  EXPECT_EQ(log->recovery_point(), 3);
  EXPECT_EQ(log->unflushed_messages(), 0);
  EXPECT_FALSE(c.Set("flush.messages", "0").ok());
}

TEST_F(LogDurabilityTest, FlushMsIsCheckedByTheFlusher) {
  LogConfig c;
  ASSERT_TRUE(c.Set("flush.ms", "1000").ok());
  auto log = OpenLog(c);
  Append(log.get(), 5);
  now_ += 999;
  ASSERT_TRUE(log->FlushIfDue().ok());
  EXPECT_EQ(log->recovery_point(), 0);
  now_ += 1;
  ASSERT_TRUE(log->FlushIfDue().ok());
  EXPECT_EQ(log->recovery_point(), 5);
  // With the default (Long.MAX_VALUE) nothing is ever due.
  auto other = Log::Open(tmp_.path() + "/u-0", {}, {});
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).ok());
  ASSERT_TRUE((*other)->FlushIfDue().ok());
  EXPECT_EQ((*other)->recovery_point(), 0);
}

// Kafka's roll schedules flush-log, which flushes the old segment off the append path and then
// moves the recovery point to the new segment's base offset.
TEST_F(LogDurabilityTest, RollSchedulesFlushLogThatAdvancesTheRecoveryPoint) {
  MockScheduler scheduler(kT0);
  LogConfig c;
  ASSERT_TRUE(c.Set("internal.segment.bytes", "500").ok());
  LogOptions o;
  o.scheduler = &scheduler;
  auto log = OpenLog(c, o);
  Append(log.get(), 8, 100);  // about 170 bytes each: rolls at 3 batches
  ASSERT_GE(log->num_segments(), 2);
  EXPECT_EQ(log->recovery_point(), 0);  // nothing flushed on the append path
  EXPECT_EQ(scheduler.PendingTaskNames().front(), "flush-log");
  scheduler.RunDue();
  const int64_t active_base = log->segment_base_offsets().back();
  EXPECT_EQ(log->recovery_point(), active_base);
  EXPECT_LT(log->recovery_point(), log->log_end_offset());
  // A flush-log task that runs after the log closed does nothing.
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  scheduler.RunDue();
}

// fsyncgate: a failed fsync may have dropped dirty pages, so retrying could report success
// for lost data. The log goes offline instead and tells its owner, once.
TEST_F(LogDurabilityTest, AFailedSyncTakesTheLogOfflineForGood) {
  std::vector<std::string> reported;
  FaultInjectionEnv env(Env::Default());
  LogOptions o;
  o.env = &env;
  o.on_storage_failure = [&](const Status& s) { reported.push_back(s.ToString()); };
  auto log = OpenLog({}, o);
  auto healthy = Log::Open(tmp_.path() + "/healthy-0", {}, {});
  ASSERT_TRUE(healthy.ok());
  Append(log.get(), 3);
  env.Fail(EnvOp::kSync, ".log", EIO);
  env.Fail(EnvOp::kMsync, ".index", EIO);
  Status flushed = log->Flush(log->log_end_offset());
  env.ClearFailures();
  EXPECT_TRUE(flushed.IsIOError());
  EXPECT_THAT(flushed.message(), HasSubstr("offline"));
  EXPECT_THAT(flushed.message(), HasSubstr("injected"));
  EXPECT_TRUE(log->offline());
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_THAT(reported[0], HasSubstr("00000000000000000000.log"));
  EXPECT_EQ(log->recovery_point(), 0);  // not advanced past data that may be lost
  // The sync now works again, but the log does not retry: everything fails, naming the cause.
  for (const Status& s :
       {log->Flush(3), log->Roll(), log->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).status(),
        log->Read(0, 100).status()}) {
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("injected"));
  }
  EXPECT_EQ(reported.size(), 1u);
  // Other logs keep working.
  ASSERT_TRUE((*healthy)->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).ok());
  ASSERT_TRUE((*healthy)->Flush(1).ok());
  EXPECT_EQ((*healthy)->recovery_point(), 1);
}

TEST_F(LogDurabilityTest, LeaderEpochCheckpointStartsAtEpochZeroAndRecordsNewEpochs) {
  const std::string path = dir_ + "/leader-epoch-checkpoint";
  {
    auto log = OpenLog({});
    auto text = ReadFileToString(path);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, "0\n1\n0 0\n");  // a single node leads epoch 0 from the start
    Append(log.get(), 4);
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 2, 1, kT0), /*leader_epoch=*/3).ok());
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 1, 1, kT0), 3).ok());
    EXPECT_EQ(*ReadFileToString(path), "0\n2\n0 0\n3 4\n");
    ASSERT_TRUE(log->Close().ok());
  }
  // The strict reader (the one that reads Kafka-written checkpoints) accepts it.
  auto entries = ReadLeaderEpochCheckpoint(path);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(entries->size(), 2u);
  // Entries past the log end are dropped on open (a log cut by recovery).
  ASSERT_TRUE(WriteLeaderEpochCheckpoint(path, {{0, 0}, {3, 4}, {5, 100}}).ok());
  auto log = OpenLog({});
  EXPECT_EQ(log->leader_epochs(), (std::vector<std::pair<int32_t, int64_t>>{{0, 0}, {3, 4}}));
  EXPECT_EQ(*ReadFileToString(path), "0\n2\n0 0\n3 4\n");
  // A damaged checkpoint refuses the open and names the file.
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  ASSERT_TRUE(WriteFileAtomically(path, "0\n2\n0 0\n").ok());
  auto bad = Log::Open(dir_, {}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(), HasSubstr("leader-epoch-checkpoint"));
}

// A raised log start moves the epoch cache's first entry up; with a scheduler the file is
// written off the caller's path (Kafka's truncateFromStartAsyncFlush), and at close at the
// latest.
TEST_F(LogDurabilityTest, LeaderEpochCheckpointFollowsTheLogStartOffset) {
  const std::string path = dir_ + "/leader-epoch-checkpoint";
  MockScheduler scheduler(kT0);
  LogOptions o;
  o.scheduler = &scheduler;
  {
    auto log = OpenLog({}, o);
    Append(log.get(), 6);
    ASSERT_TRUE(log->DeleteRecords(4).ok());
    EXPECT_EQ(log->leader_epochs(), (std::vector<std::pair<int32_t, int64_t>>{{0, 4}}));
    EXPECT_EQ(*ReadFileToString(path), "0\n1\n0 0\n");  // not yet written
    scheduler.RunDue();
    EXPECT_EQ(*ReadFileToString(path), "0\n1\n0 4\n");
    ASSERT_TRUE(log->DeleteRecords(5).ok());
    ASSERT_TRUE(log->Close().ok());  // the pending write is done by the close
    EXPECT_EQ(*ReadFileToString(path), "0\n1\n0 5\n");
    scheduler.RunDue();  // and the task, run after the close, does nothing
  }
  EXPECT_EQ(*ReadFileToString(path), "0\n1\n0 5\n");
}

TEST_F(LogDurabilityTest, PartitionMetadataIsWrittenInKafkasFormatAndChecked) {
  LogOptions o;
  o.topic_id = "8PHy8_T19vf4-fr7_P3-_w";
  {
    auto log = OpenLog({}, o);
    ASSERT_TRUE(log->Close().ok());
  }
  EXPECT_EQ(*ReadFileToString(dir_ + "/partition.metadata"),
            "version: 0\ntopic_id: 8PHy8_T19vf4-fr7_P3-_w");
  EXPECT_EQ(*ReadPartitionMetadata(dir_ + "/partition.metadata"), o.topic_id);
  o.topic_id = "AAAAAAAAAAAAAAAAAAAAAQ";
  o.clock = nullptr;
  auto other = Log::Open(dir_, {}, o);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("InconsistentTopicIdException"));
  // Kafka's reader rules: a space after the colon, a non-zero id.
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/partition.metadata", "version:0\ntopic_id: x").ok());
  EXPECT_THAT(ReadPartitionMetadata(dir_ + "/partition.metadata").status().message(),
              HasSubstr("line 1"));
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/partition.metadata",
                                  "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA")
                  .ok());
  EXPECT_THAT(ReadPartitionMetadata(dir_ + "/partition.metadata").status().message(),
              HasSubstr("zero"));
}

}  // namespace
}  // namespace seglog
