// LogManager over a FaultInjectionEnv: failing calls in topic creation and deletion, checkpoint
// writes and the cleaner's swap (each returned, naming the file and the operation, with nothing
// acknowledged lost after a reopen with the default Env); a second open of a log directory in
// the same process; and appends, GetLog and DescribeTopic completing while
// another thread is blocked inside an fsync - of a flush of the same log, and of a cleaner
// round's .cleaned output.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "io/atomic_file.h"
#include "io/fault_injection_env.h"
#include "manager/log_manager.h"
#include "seglog/validation_error.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;

class LogManagerFaultTest : public ::testing::Test {
 protected:
  std::unique_ptr<LogManager> Open(Env* env, std::map<std::string, std::string> props = {}) {
    props["log.dirs"] = dir_.path();
    auto config = LogManagerConfig::FromProperties(props);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    schedulers_.push_back(std::make_unique<MockScheduler>(kT0));
    auto m = LogManager::Open(
        *config, schedulers_.back().get(), [this](const std::string& l) { lines_.push_back(l); },
        env);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }
  // Appends `n` one-record batches to `tp`, keys "k-<i>" or the same key for all when `one_key`.
  void Append(LogManager* m, const TopicPartition& tp, int n, int value_size = 100,
              bool one_key = false) {
    std::shared_ptr<Log> log = *m->GetLog(tp);
    for (int i = 0; i < n; ++i) {
      auto a = log->AppendAsLeader(
          ProducerBatch(i, 1, value_size, kT0, CompressionType::kNone, one_key ? "k" : "k-{:06d}"));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
    }
  }
  // The records of `tp` after a shutdown and a reopen with the default Env.
  int64_t RecordsAfterReopen(std::unique_ptr<LogManager>& m, const TopicPartition& tp) {
    (void)m->Shutdown();
    m.reset();
    auto reopened = Open(nullptr);
    if (reopened == nullptr) return -1;
    auto log = reopened->GetLog(tp);
    if (!log.ok()) return -1;
    int64_t records = 0;
    Status s = testing::ForEachBatch(
        log->get(), [&](const RecordBatchView& v, Bytes) { records += v.records_count(); });
    EXPECT_TRUE(s.ok()) << s.ToString();
    m = std::move(reopened);
    return records;
  }

  TempDir dir_;
  FaultInjectionEnv env_{Env::Default()};
  std::vector<std::unique_ptr<MockScheduler>> schedulers_;
  std::vector<std::string> lines_;
};

TEST_F(LogManagerFaultTest, ASecondOpenOfALogDirectoryInTheSameProcessIsRefused) {
  auto m = Open(nullptr);
  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
  MockScheduler scheduler(kT0);
  auto again = LogManager::Open(*config, &scheduler);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr(dir_.path()));
  ASSERT_TRUE(m->Shutdown().ok());
  EXPECT_TRUE(LogManager::Open(*config, &scheduler).ok());  // released by the shutdown
}

// Opening the directory writes meta.properties and takes the lock: each failure is returned,
// naming the file, and the directory is not left locked.
TEST_F(LogManagerFaultTest, AnOpenThatCannotWriteMetaPropertiesOrLockFailsNamingTheFile) {
  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
  MockScheduler scheduler(kT0);
  env_.Fail(EnvOp::kWrite, "meta.properties", ENOSPC, 1);
  auto m = LogManager::Open(*config, &scheduler, {}, &env_);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("meta.properties.tmp: pwrite: No space left"));
  env_.Fail(EnvOp::kLock, "/.lock", EIO, 1);
  m = LogManager::Open(*config, &scheduler, {}, &env_);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("/.lock: lock: Input/output error"));
  m = LogManager::Open(*config, &scheduler, {}, &env_);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
}

TEST_F(LogManagerFaultTest, ACreateTopicWhosePartitionDirectoryCannotBeMadeLeavesNothing) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("kept", 1).ok());
  Append(m.get(), {"kept", 0}, 5);
  env_.Fail(EnvOp::kMkdir, "/orders-1", ENOSPC);
  Status s = m->CreateTopic("orders", 3);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("orders-1: mkdir: No space left on device"));
  EXPECT_EQ(m->ListTopics(), (std::vector<std::string>{"kept"}));
  EXPECT_FALSE(Env::Default()->FileExists(dir_.path() + "/orders-0"));  // undone
  env_.ClearFailures();
  EXPECT_EQ(RecordsAfterReopen(m, {"kept", 0}), 5);
  EXPECT_EQ(m->ListTopics(), (std::vector<std::string>{"kept"}));
}

TEST_F(LogManagerFaultTest, AMetadataLogThatCannotBeSyncedFailsTheCreate) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("kept", 1).ok());
  Append(m.get(), {"kept", 0}, 5);
  env_.Fail(EnvOp::kSync, "__cluster_metadata-0/00000000000000000000.log", EIO, 1);
  Status s = m->CreateTopic("orders", 2);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("fdatasync: Input/output error"));
  // Not acknowledged: no partition was created, and the topic is not served.
  EXPECT_FALSE(Env::Default()->FileExists(dir_.path() + "/orders-0"));
  EXPECT_EQ(m->ListTopics(), (std::vector<std::string>{"kept"}));
  // The metadata log is offline after a failed fsync (never retried): no other change either.
  EXPECT_FALSE(m->CreateTopic("later", 1).ok());
  env_.ClearFailures();
  EXPECT_EQ(RecordsAfterReopen(m, {"kept", 0}), 5);
  // The record may have reached the disk without its fsync: then the whole topic is there.
  const auto topics = m->ListTopics();
  if (std::find(topics.begin(), topics.end(), "orders") != topics.end()) {
    EXPECT_TRUE(m->GetLog({"orders", 0}).ok());
    EXPECT_TRUE(m->GetLog({"orders", 1}).ok());
  }
  EXPECT_EQ(std::count(topics.begin(), topics.end(), "later"), 0);
}

TEST_F(LogManagerFaultTest, ADeleteTopicWhoseRenameFailsReportsThePartition) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("gone", 2).ok());
  ASSERT_TRUE(m->CreateTopic("kept", 1).ok());
  Append(m.get(), {"kept", 0}, 5);
  env_.Fail(EnvOp::kRename, "-delete", EIO, 1);
  Status s = m->DeleteTopic("gone");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("gone-0"));
  EXPECT_THAT(s.message(), HasSubstr("rename"));
  EXPECT_EQ(RecordsAfterReopen(m, {"kept", 0}), 5);
}

TEST_F(LogManagerFaultTest, ACheckpointThatCannotBeReplacedKeepsThePreviousOne) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("t", 1).ok());
  Append(m.get(), {"t", 0}, 3);
  ASSERT_TRUE((*m->GetLog({"t", 0}))->Flush(3).ok());
  ASSERT_TRUE(m->CheckpointRecoveryPoints().ok());
  const std::string path = dir_.path() + "/recovery-point-offset-checkpoint";
  EXPECT_EQ(*ReadFileToString(path), "0\n1\nt 0 3\n");
  Append(m.get(), {"t", 0}, 2);
  ASSERT_TRUE((*m->GetLog({"t", 0}))->Flush(5).ok());
  env_.Fail(EnvOp::kRename, "recovery-point-offset-checkpoint", EIO, 1);
  Status s = m->CheckpointRecoveryPoints();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("rename " + path + ".tmp to " + path));
  EXPECT_EQ(*ReadFileToString(path), "0\n1\nt 0 3\n");  // the old one, whole
  ASSERT_TRUE(m->CheckpointRecoveryPoints().ok());
  EXPECT_EQ(*ReadFileToString(path), "0\n1\nt 0 5\n");
  EXPECT_EQ(RecordsAfterReopen(m, {"t", 0}), 5);
}

// The cleaner's swap publishes the cleaned segment, then renames the old ones to .deleted: a
// failure there takes the log (and its directory) offline; the next open completes the swap
// from the files, and the latest value of every key is there.
TEST_F(LogManagerFaultTest, ACleanerSwapWhoseRenameFailsTakesTheLogOffline) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("cmp", 1, {{"cleanup.policy", "compact"}}).ok());
  Append(m.get(), {"cmp", 0}, 10, 100, /*one_key=*/true);
  std::shared_ptr<Log> log = *m->GetLog({"cmp", 0});
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());
  env_.Fail(EnvOp::kRename, ".deleted", EIO, 1);
  auto cleaned = m->CleanNow("cmp", 0);
  ASSERT_FALSE(cleaned.ok());
  EXPECT_THAT(cleaned.status().message(), HasSubstr("00000000000000000000.log.deleted: rename"));
  EXPECT_TRUE(log->offline());
  EXPECT_TRUE(log->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).status().IsIOError());
  auto described = m->DescribeTopic("cmp");
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(RecordsAfterReopen(m, {"cmp", 0}), 1);  // key "k": its last value, offset 9
  EXPECT_EQ((*m->GetLog({"cmp", 0}))->log_end_offset(), 10);
}

// What the cleaner and flush metrics read: a round that cleans 10 values of one key down to
// one reports the bytes it copied and its map's use; a failed round makes its partition
// uncleanable, counted under its directory; each flush that synced something is observed.
TEST_F(LogManagerFaultTest, CleanerMetricsAndFlushObserver) {
  auto m = Open(&env_);
  std::vector<int64_t> flushes;
  m->SetFlushObserver([&](int64_t ns) { flushes.push_back(ns); });
  EXPECT_EQ(m->cleaner_metrics().last_run_ms, -1);
  ASSERT_TRUE(m->CreateTopic("cmp", 1, {{"cleanup.policy", "compact"}}).ok());
  Append(m.get(), {"cmp", 0}, 10, 100, /*one_key=*/true);
  std::shared_ptr<Log> log = *m->GetLog({"cmp", 0});
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());
  ASSERT_EQ(flushes.size(), 1u);
  EXPECT_GE(flushes[0], 0);
  ASSERT_TRUE(log->Flush(log->log_end_offset()).ok());  // nothing left to sync
  EXPECT_EQ(flushes.size(), 1u);
  ASSERT_TRUE(m->RunCleanerRound(0).ok());
  LogManager::CleanerMetrics c = m->cleaner_metrics();
  EXPECT_GE(c.last_run_ms, kT0);
  EXPECT_GT(c.max_dirty_percent, 50);  // 10 records, all of them dirty
  // A few keys fill under 1% of the map, and Kafka's gauges are whole percents.
  EXPECT_EQ(c.max_buffer_utilization_percent, 0);
  // One batch of ten written back of the ten read (and read again to build the map).
  EXPECT_GT(c.cleaner_recopy_percent, 0);
  EXPECT_LT(c.cleaner_recopy_percent, 20);
  ASSERT_EQ(c.uncleanable_by_dir.size(), 1u);
  EXPECT_EQ(c.uncleanable_by_dir.begin()->second.first, 0);
  ASSERT_TRUE(m->CreateTopic("bad", 1, {{"cleanup.policy", "compact"}}).ok());
  Append(m.get(), {"bad", 0}, 10, 100, /*one_key=*/true);
  std::shared_ptr<Log> bad = *m->GetLog({"bad", 0});
  ASSERT_TRUE(bad->Roll().ok());
  env_.Fail(EnvOp::kOpen, "bad-0/00000000000000000000.log.cleaned", EIO, 1);
  (void)m->RunCleanerRound(0);
  c = m->cleaner_metrics();
  EXPECT_EQ(c.uncleanable_by_dir.begin()->second.first, 1);
  EXPECT_EQ(c.uncleanable_by_dir.begin()->second.second, bad->size_in_bytes());
}

// LogManager::Open tells its load progress per directory: the logs and segments to load, then
// each log as it loads, so the counts come down to zero.
TEST_F(LogManagerFaultTest, OpenReportsLoadProgressPerDirectory) {
  {
    auto m = Open(nullptr);
    ASSERT_TRUE(m->CreateTopic("a", 3).ok());
    Append(m.get(), {"a", 0}, 5);
    ASSERT_TRUE((*m->GetLog({"a", 0}))->Roll().ok());
    Append(m.get(), {"a", 0}, 5);
    ASSERT_TRUE(m->Shutdown().ok());
  }
  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
  ASSERT_TRUE(config.ok());
  MockScheduler scheduler(kT0);
  std::mutex mu;
  std::map<std::string, std::pair<int64_t, int64_t>> remaining;  // logs, segments
  int64_t calls = 0;
  auto m = LogManager::Open(*config, &scheduler, {}, nullptr,
                            [&](const std::string& dir, const ProgressStep& s) {
                              std::lock_guard<std::mutex> l(mu);
                              auto& [logs, segments] = remaining[dir];
                              logs += s.add_logs_total - s.logs;
                              segments += s.add_segments_total - s.segments;
                              ++calls;
                            });
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(remaining.size(), 1u);
  EXPECT_EQ(remaining.begin()->first, dir_.path());
  EXPECT_EQ(remaining.begin()->second, std::make_pair(int64_t{0}, int64_t{0}));
  EXPECT_EQ(calls, 1 + 3);  // the totals, then each of a-0, a-1, a-2
  ASSERT_TRUE((*m)->Shutdown().ok());
}

// A move between log directories whose swap fails at its first rename (the old log to -delete):
// the partition keeps no log until the next open, which finds the old log and the copy and undoes
// the move - nothing is lost. (A failure of the last rename leaves only the complete copy, which
// the next open promotes: LogManagerTest.FutureLogsLeftByACutMoveAreSettledAtOpen.)
TEST_F(LogManagerFaultTest, AMoveWhoseSwapFailsLosesNothing) {
  TempDir second;
  auto open_two = [&](Env* env) {
    auto config =
        LogManagerConfig::FromProperties({{"log.dirs", dir_.path() + "," + second.path()}});
    EXPECT_TRUE(config.ok());
    schedulers_.push_back(std::make_unique<MockScheduler>(kT0));
    auto m = LogManager::Open(
        *config, schedulers_.back().get(), [this](const std::string& l) { lines_.push_back(l); },
        env);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  };
  auto records = [](LogManager* m, const TopicPartition& tp) {
    auto log = m->GetLog(tp);
    if (!log.ok()) return int64_t{-1};
    int64_t n = 0;
    EXPECT_TRUE(testing::ForEachBatch(log->get(), [&](const RecordBatchView& v, Bytes) {
                  n += v.records_count();
                }).ok());
    return n;
  };
  {
    // Only the swap's first rename has "-delete" in a path (the copy's files are in
    // <topic>-0.<uuid>-future, the old log's in <topic>-0).
    const char* failing = "-delete";
    auto m = open_two(&env_);
    const TopicPartition tp{"mva", 0};
    ASSERT_TRUE(m->CreateTopic(tp.topic, 1).ok());
    Append(m.get(), tp, 50);
    const std::string from = (*m->GetLog(tp))->dir();
    const std::string to_dir = from.rfind(dir_.path(), 0) == 0 ? second.path() : dir_.path();
    ASSERT_EQ(m->AlterReplicaLogDir(tp, LogManager::AbsoluteDir(to_dir)), 0);
    env_.Fail(EnvOp::kRename, failing, EIO, 1);
    ASSERT_TRUE(m->MoveReplicas().ok());  // the failure is logged, not returned
    env_.ClearFailures();
    (void)m->Shutdown();
    m.reset();
    m = open_two(nullptr);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(records(m.get(), tp), 50);
    const std::string now = (*m->GetLog(tp))->dir();
    EXPECT_EQ(now, from);  // undone
    bool logged = false;
    for (const auto& l : lines_) logged |= l.find("Moving mva-0 to") != std::string::npos;
    EXPECT_TRUE(logged);
    ASSERT_TRUE(m->Shutdown().ok());
  }
}

// AlterReplicaLogDirs with a directory offline (an fsync in it failed): a move into it, and a
// move of a partition out of it, are KAFKA_STORAGE_ERROR (Kafka's KafkaStorageException), and
// nothing is copied; partitions of the directory still online move.
TEST_F(LogManagerFaultTest, MovesIntoOrOutOfAnOfflineDirectoryAreRefused) {
  TempDir second;
  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path() + "," + second.path()}});
  ASSERT_TRUE(config.ok());
  schedulers_.push_back(std::make_unique<MockScheduler>(kT0));
  auto opened = LogManager::Open(
      *config, schedulers_.back().get(), [this](const std::string& l) { lines_.push_back(l); },
      &env_);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<LogManager> m = std::move(opened).value();
  // Topics until one lands in each directory.
  std::map<std::string, TopicPartition> in;  // directory -> a partition there
  for (int i = 0; i < 8 && in.size() < 2; ++i) {
    const TopicPartition tp{fmt::format("off{}", i), 0};
    ASSERT_TRUE(m->CreateTopic(tp.topic, 1).ok());
    const std::string d = std::filesystem::path((*m->GetLog(tp))->dir()).parent_path().string();
    in.emplace(d, tp);
    Append(m.get(), tp, 10);
  }
  ASSERT_EQ(in.size(), 2u);
  const TopicPartition healthy = in.at(dir_.path());
  const TopicPartition broken = in.at(second.path());
  // The second directory goes offline: a flush there fails.
  env_.Fail(EnvOp::kSync, second.path(), EIO);
  EXPECT_FALSE((*m->GetLog(broken))->Flush((*m->GetLog(broken))->log_end_offset()).ok());
  env_.ClearFailures();
  auto refused = (*m->GetLog(broken))->AppendAsLeader(ProducerBatch(10, 1, 100, kT0));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("offline"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(m->AlterReplicaLogDir(healthy, LogManager::AbsoluteDir(second.path())),
            kafka_error::kKafkaStorageError);
  EXPECT_EQ(m->AlterReplicaLogDir(broken, LogManager::AbsoluteDir(dir_.path())),
            kafka_error::kKafkaStorageError);
  EXPECT_TRUE(m->FutureLogs().empty());
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().string().find("-future"), std::string::npos) << entry.path();
  }
  // Still unknown partitions and directories get their own errors first.
  EXPECT_EQ(m->AlterReplicaLogDir({"nope", 0}, LogManager::AbsoluteDir(dir_.path())), 3);
  EXPECT_EQ(m->AlterReplicaLogDir(healthy, "/nowhere"), 57);
  (void)m->Shutdown();
}

// A failure of the swap's first rename (.cleaned -> .swap) changes nothing yet: the cleaned
// output is removed, the log stays online and is cleaned by a later round.
TEST_F(LogManagerFaultTest, ACleanerSwapWhoseFirstRenameFailsLeavesTheLogOnline) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("cmp", 1, {{"cleanup.policy", "compact"}}).ok());
  Append(m.get(), {"cmp", 0}, 10, 100, /*one_key=*/true);
  std::shared_ptr<Log> log = *m->GetLog({"cmp", 0});
  ASSERT_TRUE(log->Roll().ok());
  env_.Fail(EnvOp::kRename, ".swap", ENOSPC, 1);
  auto cleaned = m->CleanNow("cmp", 0);
  ASSERT_FALSE(cleaned.ok());
  EXPECT_THAT(cleaned.status().message(), HasSubstr(".cleaned to "));
  EXPECT_FALSE(log->offline());
  auto names = Env::Default()->ListDirectory(dir_.path() + "/cmp-0");
  ASSERT_TRUE(names.ok());
  const std::vector<std::string> files = *names;
  for (const std::string& name : files) {
    EXPECT_FALSE(name.ends_with(".cleaned") || name.ends_with(".swap")) << name;
  }
  ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 1, 1, kT0)).ok());
  EXPECT_EQ(RecordsAfterReopen(m, {"cmp", 0}), 11);
}

// Runs `fn` on another thread and waits for it; a call that does not complete within a minute
// is waiting on the blocked fsync (a lock held over I/O): the test then fails instead of
// hanging. The caller releases the block and then waits for the future.
// What the probe of a blocked test did: whether it completed within 60 s, the append, and
// DescribeTopic.
struct Probe {
  bool completed = false;
  Result<LogAppendInfo> appended = Status::Aborted("not run");
  Result<TopicDescription> described = Status::Aborted("not run");
  std::future<void> done;
};

// While another thread is blocked in an fsync: appends `batch` to `log` (its first offset must
// be `end`), reads it back, and calls GetLog and DescribeTopic for `topic`, on a thread. Waits
// up to 60 s for that, so a probe that waits on the blocked fsync (a lock held over I/O) fails
// the test instead of hanging it. The caller releases the block, then waits for `done`.
void ProbeWhileBlocked(LogManager* m, Log* log, const std::string& topic,
                       std::vector<uint8_t> batch, int64_t end, Probe* probe) {
  probe->done = std::async(std::launch::async, [=] {
    probe->appended = log->AppendAsLeader(batch);
    ASSERT_TRUE(probe->appended.ok()) << probe->appended.status().ToString();
    auto read = log->Read(probe->appended->first_offset, 1 << 20);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->first_batch.base_offset, end);
    EXPECT_TRUE(m->GetLog({topic, 0}).ok());
    probe->described = m->DescribeTopic(topic);
  });
  probe->completed = probe->done.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
}

// An fsync of a large segment's flush, blocked in the Env, holds up neither
// appends to that log, nor GetLog and DescribeTopic.
TEST_F(LogManagerFaultTest, AppendsCompleteWhileAFlushOfTheSameLogIsBlockedInFsync) {
  auto m = Open(&env_);
  ASSERT_TRUE(m->CreateTopic("big", 1).ok());
  Append(m.get(), {"big", 0}, 512, 16 * 1024);  // an 8 MiB active segment
  std::shared_ptr<Log> log = *m->GetLog({"big", 0});
  const int64_t end = log->log_end_offset();
  const int block = env_.Block(EnvOp::kSync, "big-0/00000000000000000000.log");
  Status flushed = Status::Aborted("not run");
  std::thread flusher([&] { flushed = log->Flush(end); });
  env_.WaitUntilBlocked(block);
  // The flusher is now inside fdatasync of the segment it flushes.
  Probe probe;
  ProbeWhileBlocked(m.get(), log.get(), "big", ProducerBatch(0, 1, 100, kT0), end, &probe);
  EXPECT_TRUE(probe.completed) << "an append, GetLog or DescribeTopic waited for the blocked fsync";
  env_.Release(block);
  probe.done.wait();
  flusher.join();
  ASSERT_TRUE(probe.completed);
  ASSERT_TRUE(probe.appended.ok());
  EXPECT_EQ(probe.appended->first_offset, end);
  ASSERT_TRUE(probe.described.ok()) << probe.described.status().ToString();
  EXPECT_EQ(probe.described->partitions.at(0).log_end_offset, end + 1);
  EXPECT_TRUE(flushed.ok()) << flushed.ToString();
  EXPECT_EQ(log->recovery_point(), end);
}

TEST_F(LogManagerFaultTest, AppendsCompleteWhileACleanerRoundIsBlockedInFsyncOfItsOutput) {
  auto m = Open(&env_, {{"log.cleaner.dedupe.buffer.size", "1048576"}});
  ASSERT_TRUE(m->CreateTopic("cmp", 1,
                             {{"cleanup.policy", "compact"}, {"min.cleanable.dirty.ratio", "0.01"}})
                  .ok());
  Append(m.get(), {"cmp", 0}, 200, 1000, /*one_key=*/true);
  std::shared_ptr<Log> log = *m->GetLog({"cmp", 0});
  ASSERT_TRUE(log->Roll().ok());
  const int64_t end = log->log_end_offset();
  const int block = env_.Block(EnvOp::kSync, ".cleaned");
  Result<bool> round = Status::Aborted("not run");
  std::thread cleaner([&] { round = m->RunCleanerRound(0); });
  env_.WaitUntilBlocked(block);
  // The cleaner is now inside fdatasync of cmp-0's 00000000000000000000.log.cleaned.
  Probe probe;
  ProbeWhileBlocked(m.get(), log.get(), "cmp",
                    ProducerBatch(7, 1, 100, kT0, CompressionType::kNone, "k"), end, &probe);
  EXPECT_TRUE(probe.completed)
      << "an append, GetLog or DescribeTopic waited for the cleaner's fsync";
  env_.Release(block);
  probe.done.wait();
  cleaner.join();
  ASSERT_TRUE(probe.completed);
  ASSERT_TRUE(probe.appended.ok());
  ASSERT_TRUE(probe.described.ok()) << probe.described.status().ToString();
  EXPECT_EQ(probe.described->partitions.at(0).log_end_offset, end + 1);
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_TRUE(*round);  // the round went on to swap the cleaned segment in
  EXPECT_EQ(log->log_end_offset(), end + 1);
  EXPECT_EQ(RecordsAfterReopen(m, {"cmp", 0}), 2);  // key "k" cleaned to one, plus the new one
}

}  // namespace
}  // namespace seglog
