// Storage, the public facade, through its public API (plus the tests' temp dirs and batches).
#include "seglog/storage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/mutex.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;

class StorageTest : public ::testing::Test {
 protected:
  // A storage on dir_ with a manual clock at kT0 and no periodic tasks, unless told otherwise.
  Result<std::unique_ptr<Storage>> Open(std::map<std::string, std::string> props = {},
                                        bool tasks = false) {
    if (!props.count("log.dirs")) props["log.dirs"] = dir_.path();
    StorageOptions o;
    o.properties = std::move(props);
    o.scheduler = scheduler_.get();
    o.start_background_tasks = tasks;
    o.logger = [this](const std::string& line) {
      MutexLock l(&lines_mu_);
      lines_.push_back(line);
    };
    return Storage::Open(o);
  }
  std::unique_ptr<Storage> OpenOk(std::map<std::string, std::string> props = {},
                                  bool tasks = false) {
    auto s = Open(std::move(props), tasks);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  TempDir dir_;
  std::unique_ptr<ManualScheduler> scheduler_ = NewManualScheduler(kT0);
  Mutex lines_mu_;
  std::vector<std::string> lines_;
};

TEST_F(StorageTest, CreatesTopicsAppendsReadsAndLooksUp) {
  auto storage = OpenOk({{"num.partitions", "3"}});
  ASSERT_TRUE(storage->CreateTopic("orders", -1, {{"segment.bytes", "1048576"}}).ok());
  ASSERT_TRUE(storage->CreateTopic("audit", 1).ok());
  EXPECT_THAT(storage->ListTopics(), ElementsAre("audit", "orders"));
  EXPECT_THAT(storage->log_dirs(), ElementsAre(dir_.path()));

  auto d = storage->DescribeTopic("orders");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->partitions.size(), 3u);  // num.partitions
  EXPECT_EQ(d->overrides.at("segment.bytes"), "1048576");
  EXPECT_EQ(d->config.segment_bytes, 1048576);
  EXPECT_FALSE(d->topic_id.empty());

  auto log = storage->GetLog({"orders", 1});
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  for (int i = 0; i < 3; ++i) {
    auto appended = (*log)->AppendAsLeader(ProducerBatch(i * 10, 10, 100, kT0));
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ(appended->first_offset, i * 10);
  }
  EXPECT_EQ((*log)->log_end_offset(), 30);

  int records = 0;
  ASSERT_TRUE(testing::ForEachBatch(log->get(), [&](const RecordBatchView& b, Bytes) {
                records += b.records_count();
              }).ok());
  EXPECT_EQ(records, 30);

  auto at = (*log)->LookupOffset(15);
  ASSERT_TRUE(at.ok() && at->has_value());
  EXPECT_EQ((*at)->base_offset, 10);
  auto by_time = (*log)->FetchOffsetByTimestamp(kT0 + 25);
  ASSERT_TRUE(by_time.ok() && by_time->has_value());
  EXPECT_EQ((*by_time)->offset, 25);

  d = storage->DescribeTopic("orders");
  EXPECT_EQ(d->partitions[1].log_end_offset, 30);
  EXPECT_TRUE(storage->Shutdown().ok());
}

TEST_F(StorageTest, ASecondStorageOnTheSameDirectoryIsRefused) {
  auto first = OpenOk();
  StorageOptions o;
  o.properties = {{"log.dirs", dir_.path()}};
  auto second = Storage::Open(o);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(second.status().ToString(), HasSubstr("Failed to acquire lock on file .lock in"));
  EXPECT_THAT(second.status().ToString(), HasSubstr(dir_.path()));
  // The first is undisturbed, and once it is shut down (the object may live on) the
  // directory opens again.
  EXPECT_TRUE(first->CreateTopic("t", 1).ok());
  ASSERT_TRUE(first->Shutdown().ok());
  auto again = Storage::Open(o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_THAT((*again)->ListTopics(), ElementsAre("t"));
}

TEST_F(StorageTest, BadServerConfigIsReportedInKafkasWordsAllAtOnce) {
  auto s = Open({{"log.segment.bytes", "102400"},
                 {"num.partitions", "0"},
                 {"log.retention.bytes", "lots"},
                 {"log.segmnet.bytes", "1048576"}});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsInvalidArgument());
  const std::string m = s.status().ToString();
  EXPECT_THAT(m, HasSubstr("Invalid value 102400 for configuration log.segment.bytes: Value must "
                           "be at least 1048576"));
  EXPECT_THAT(m, HasSubstr("Invalid value 0 for configuration num.partitions"));
  EXPECT_THAT(m, HasSubstr("configuration log.retention.bytes: Not a number of type LONG"));
  EXPECT_THAT(m, HasSubstr("Unknown configuration 'log.segmnet.bytes'"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/meta.properties"));  // nothing opened
}

TEST_F(StorageTest, KafkaBrokerKeysOutsideStorageAreIgnoredAndLogged) {
  auto storage = OpenOk({{"listeners", "PLAINTEXT://:9092"}, {"process.roles", "broker"}});
  MutexLock l(&lines_mu_);
  EXPECT_THAT(lines_, Contains(HasSubstr("Ignoring broker configs outside storage")));
}

TEST_F(StorageTest, BadTopicConfigsAndNamesAreRefusedAndNothingChanges) {
  auto storage = OpenOk();
  Status s = storage->CreateTopic("t", 1, {{"retention.ms", "soon"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("retention.ms"));
  s = storage->CreateTopic("t", 1, {{"no.such.config", "1"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("no.such.config"));
  EXPECT_TRUE(storage->CreateTopic("../escape", 1).IsInvalidArgument());
  EXPECT_TRUE(storage->CreateTopic("t", 0).IsInvalidArgument());
  EXPECT_TRUE(storage->ListTopics().empty());

  ASSERT_TRUE(storage->CreateTopic("t", 1).ok());
  EXPECT_EQ(storage->CreateTopic("t", 1).code(), Status::Code::kAlreadyExists);
  s = storage->AlterTopicConfig("t", {{"retention.ms", "1000"}, {"segment.bytes", "1"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  auto d = storage->DescribeTopic("t");
  EXPECT_TRUE(d->overrides.empty());  // neither was applied
  ASSERT_TRUE(storage->AlterTopicConfig("t", {{"retention.ms", "1000"}}).ok());
  EXPECT_EQ((*storage->GetLog({"t", 0}))->config().retention_ms, 1000);  // live
  ASSERT_TRUE(storage->AlterTopicConfig("t", {}, {"retention.ms"}).ok());
  EXPECT_EQ((*storage->GetLog({"t", 0}))->config().retention_ms, 604800000);
  EXPECT_TRUE(storage->AddPartitions("t", 1).IsInvalidArgument());  // never fewer or as many
  ASSERT_TRUE(storage->AddPartitions("t", 2).ok());
  EXPECT_TRUE(storage->GetLog({"t", 1}).ok());
}

TEST_F(StorageTest, UnknownTopicsAndPartitionsAreNotFound) {
  auto storage = OpenOk();
  ASSERT_TRUE(storage->CreateTopic("t", 1).ok());
  auto log = storage->GetLog({"nope", 0});
  ASSERT_FALSE(log.ok());
  EXPECT_TRUE(log.status().IsNotFound());
  EXPECT_THAT(log.status().ToString(), HasSubstr("UnknownTopicOrPartitionException"));
  EXPECT_TRUE(storage->GetLog({"t", 1}).status().IsNotFound());
  EXPECT_TRUE(storage->DescribeTopic("nope").status().IsNotFound());
  EXPECT_THAT(storage->DeleteTopic("nope").ToString(), HasSubstr("Topic 'nope' does not exist."));
  EXPECT_TRUE(storage->AlterTopicConfig("nope", {{"retention.ms", "1"}}).IsNotFound());
  EXPECT_TRUE(storage->AddPartitions("nope", 2).IsNotFound());
}

TEST_F(StorageTest, ALogHeldAcrossItsTopicsDeleteAnswersNotFound) {
  auto storage = OpenOk();
  ASSERT_TRUE(storage->CreateTopic("t", 1, {{"file.delete.delay.ms", "0"}}).ok());
  auto log = storage->GetLog({"t", 0});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->AppendAsLeader(ProducerBatch(0, 5, 10, kT0)).ok());
  ASSERT_TRUE(storage->DeleteTopic("t").ok());

  auto appended = (*log)->AppendAsLeader(ProducerBatch(5, 5, 10, kT0));
  EXPECT_TRUE(appended.status().IsNotFound()) << appended.status().ToString();
  EXPECT_TRUE((*log)->Read(0, 1 << 20).status().IsNotFound());
  EXPECT_TRUE((*log)->FetchOffsetByTimestamp(kEarliestTimestamp).status().IsNotFound());
  EXPECT_TRUE(storage->GetLog({"t", 0}).status().IsNotFound());
  EXPECT_TRUE(storage->ListTopics().empty());

  ASSERT_TRUE(storage->RunTask("delete-files").ok());
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_THAT(e.path().filename().string(), ::testing::Not(HasSubstr("t-0")));
  }
  // The name is free again, with a new, empty log.
  ASSERT_TRUE(storage->CreateTopic("t", 1).ok());
  auto fresh = storage->GetLog({"t", 0});
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->log_end_offset(), 0);
  EXPECT_NE(fresh->get(), log->get());
}

TEST_F(StorageTest, RetentionRunsWhenTheEmbedderAsks) {
  auto storage = OpenOk();
  ASSERT_TRUE(storage
                  ->CreateTopic("t", 1,
                                {{"retention.ms", "60000"},
                                 {"internal.segment.bytes", "2048"},
                                 {"file.delete.delay.ms", "0"}})
                  .ok());
  auto log = *storage->GetLog({"t", 0});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(i, 1, 500, kT0)).ok());
  ASSERT_TRUE(log->Roll().ok());
  const int segments = log->num_segments();
  ASSERT_GT(segments, 3);
  ASSERT_TRUE(storage->RunTask("retention").ok());
  EXPECT_EQ(log->num_segments(), segments);  // nothing older than a minute yet
  scheduler_->Advance(60001 + 20);
  ASSERT_TRUE(storage->RunTask("retention").ok());
  EXPECT_EQ(log->num_segments(), 1);  // only the empty active segment
  EXPECT_EQ(log->log_start_offset(), 20);
  EXPECT_TRUE(log->Read(0, 1 << 20).status().IsOutOfRange());
  for (const char* task : {"flush", "checkpoint", "delete-files", "cleaner"}) {
    EXPECT_TRUE(storage->RunTask(task).ok()) << task;
  }
  Status unknown = storage->RunTask("compact-everything");
  EXPECT_TRUE(unknown.IsInvalidArgument());
  EXPECT_THAT(
      unknown.ToString(),
      HasSubstr("retention, flush, checkpoint, delete-files, cleaner or producer-expiration"));
}

TEST_F(StorageTest, BackgroundTasksRunOnTheScheduler) {
  auto storage = OpenOk({{"log.initial.task.delay.ms", "0"},
                         {"log.retention.check.interval.ms", "1000"},
                         {"log.cleaner.enable", "false"}},
                        /*tasks=*/true);
  EXPECT_THAT(scheduler_->PendingTaskNames(), Contains("kafka-log-retention"));
  EXPECT_EQ(storage->StartBackgroundTasks().code(), Status::Code::kFailedPrecondition);
  ASSERT_TRUE(storage
                  ->CreateTopic("t", 1,
                                {{"retention.ms", "1000"},
                                 {"internal.segment.bytes", "2048"},
                                 {"file.delete.delay.ms", "0"}})
                  .ok());
  auto log = *storage->GetLog({"t", 0});
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(i, 1, 500, kT0)).ok());
  ASSERT_TRUE(log->Roll().ok());
  scheduler_->Advance(5000);  // kafka-log-retention runs on its own
  EXPECT_EQ(log->log_start_offset(), 10);
}

TEST_F(StorageTest, TasksStartLaterWhenAsked) {
  auto storage = OpenOk({{"log.initial.task.delay.ms", "0"}});
  EXPECT_THAT(scheduler_->PendingTaskNames(), ::testing::Not(Contains("kafka-log-retention")));
  ASSERT_TRUE(storage->StartBackgroundTasks().ok());
  EXPECT_THAT(scheduler_->PendingTaskNames(), Contains("kafka-log-retention"));
}

TEST_F(StorageTest, AfterShutdownEveryCallFailsAndLogsOutliveTheStorage) {
  std::shared_ptr<Log> log;
  {
    // The default: a thread scheduler of its own, and the periodic tasks running.
    StorageOptions o;
    o.properties = {{"log.dirs", dir_.path()}};
    auto storage = Storage::Open(o);
    ASSERT_TRUE(storage.ok()) << storage.status().ToString();
    ASSERT_TRUE((*storage)->CreateTopic("t", 1).ok());
    log = *(*storage)->GetLog({"t", 0});
    ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 7, 10, kT0)).ok());
    ASSERT_TRUE((*storage)->Shutdown().ok());
    EXPECT_TRUE((*storage)->Shutdown().ok());  // idempotent
    EXPECT_EQ((*storage)->CreateTopic("u", 1).code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ((*storage)->GetLog({"t", 0}).status().code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ((*storage)->RunTask("retention").code(), Status::Code::kFailedPrecondition);
    EXPECT_TRUE((*storage)->ListTopics().empty());
  }
  // The Storage (and its scheduler) is gone; the log object is not, and refuses work.
  auto appended = log->AppendAsLeader(ProducerBatch(7, 1, 10, kT0));
  EXPECT_EQ(appended.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(appended.status().ToString(), HasSubstr("closed"));
  EXPECT_EQ(log->Read(0, 100).status().code(), Status::Code::kFailedPrecondition);
  EXPECT_TRUE(log->Roll().code() == Status::Code::kFailedPrecondition);
  EXPECT_TRUE(log->FlushIfDue().ok());
  EXPECT_FALSE(log->DeleteOldSegments().ok());
  EXPECT_EQ(log->log_end_offset(), 7);

  // Shut down cleanly: the next open needs no recovery and finds the records.
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/.kafka_cleanshutdown"));
  auto reopened = OpenOk();
  EXPECT_EQ((*reopened->GetLog({"t", 0}))->log_end_offset(), 7);
}

TEST_F(StorageTest, ServerPropertiesComeFromAFile) {
  const std::string path = dir_.path() + "/server.properties";
  {
    std::ofstream f(path);
    f << "# a Kafka server.properties\n"
      << "log.dirs=" << dir_.path() << "/data\n"
      << "num.partitions=2\n"
      << "log.retention.hours=1\n";
  }
  auto props = ReadServerProperties(path);
  ASSERT_TRUE(props.ok()) << props.status().ToString();
  EXPECT_EQ(props->at("num.partitions"), "2");
  auto storage = OpenOk(*props);
  ASSERT_TRUE(storage->CreateTopic("t").ok());
  auto d = storage->DescribeTopic("t");
  EXPECT_EQ(d->partitions.size(), 2u);
  EXPECT_EQ(d->config.retention_ms, 3600000);
  EXPECT_EQ(d->partitions[0].log_dir, dir_.path() + "/data");

  EXPECT_TRUE(ReadServerProperties(dir_.path() + "/missing.properties").status().IsNotFound());
}

TEST_F(StorageTest, AppendsReadsAndTopicOperationsRunConcurrently) {
  auto storage = OpenOk();
  ASSERT_TRUE(storage->CreateTopic("t", 4, {{"internal.segment.bytes", "4096"}}).ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> appenders;
  for (int p = 0; p < 4; ++p) {
    appenders.emplace_back([&, p] {
      auto log = storage->GetLog({"t", p});
      if (!log.ok()) {
        failures++;
        return;
      }
      for (int i = 0; i < 100; ++i) {
        if (!(*log)->AppendAsLeader(ProducerBatch(i, 1, 100, kT0)).ok()) failures++;
        if (!(*log)->Read(i / 2, 1 << 16).ok()) failures++;
      }
    });
  }
  for (int i = 0; i < 10; ++i) {
    const std::string name = "other" + std::to_string(i);
    EXPECT_TRUE(storage->CreateTopic(name, 1).ok());
    EXPECT_TRUE(storage->RunTask("retention").ok());
    EXPECT_TRUE(storage->DescribeTopic("t").ok());
    EXPECT_TRUE(storage->DeleteTopic(name).ok());
  }
  for (std::thread& t : appenders) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int p = 0; p < 4; ++p) EXPECT_EQ((*storage->GetLog({"t", p}))->log_end_offset(), 100);
  EXPECT_THAT(storage->ListTopics(), ElementsAre("t"));
  EXPECT_TRUE(storage->Shutdown().ok());
}

TEST(SchedulerTest, TheThreadSchedulerRunsTasksOnItsThreads) {
  std::unique_ptr<Scheduler> s = NewThreadScheduler(2);
  std::atomic<int> runs{0};
  s->ScheduleOnce("once", [&] { runs++; });
  for (int i = 0; i < 500 && runs.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(runs.load(), 1);
  s->Shutdown();
  s->ScheduleOnce("after", [&] { runs++; });  // dropped
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace
}  // namespace seglog
