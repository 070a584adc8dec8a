// LogManager under threads: logs handed out by GetLog outlive a topic delete, and the tasks,
// the cleaner and topic operations run while appends and reads go on. Run under the tsan
// preset, these are the data-race checks of docs/design/threading.md; every loop is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "manager/log_manager.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;
constexpr int kMaxIterations = 4000;

bool IsClosedOrDeleted(const Status& s) {
  return s.IsNotFound() || s.code() == Status::Code::kFailedPrecondition;
}

class LogManagerConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(*config, scheduler_.get());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    manager_ = std::move(m).value();
  }
  TempDir dir_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> manager_;
};

// A reader and an appender that hold the log keep going while the topic is deleted: every call
// either works or fails with NotFound / FailedPrecondition, and once the delete has returned,
// appends and reads fail with NotFound (UnknownTopicOrPartitionException).
TEST_F(LogManagerConcurrencyTest, HeldLogsAnswerNotFoundAfterTheTopicIsDeleted) {
  Status created = manager_->CreateTopic("t", 1, {{"internal.segment.bytes", "16384"}});
  ASSERT_TRUE(created.ok()) << created.ToString();
  auto got = manager_->GetLog({"t", 0});
  ASSERT_TRUE(got.ok());
  std::shared_ptr<Log> log = *got;
  std::atomic<int> appended{0};
  std::atomic<bool> deleted{false};
  Mutex mu;
  std::vector<std::string> unexpected;
  auto note = [&](const Status& s) {
    MutexLock l(&mu);
    unexpected.push_back(s.ToString());
  };
  Status last_append, last_read;
  std::thread appender([&] {
    for (int i = 0; i < kMaxIterations; ++i) {
      auto r = log->AppendAsLeader(ProducerBatch(i, 4, 100, kT0));
      if (r.ok()) {
        appended.fetch_add(1);
        continue;
      }
      if (!IsClosedOrDeleted(r.status())) note(r.status());
      if (deleted.load()) {
        last_append = r.status();
        return;
      }
    }
  });
  std::thread reader([&] {
    for (int i = 0; i < kMaxIterations; ++i) {
      auto r = log->Read(log->log_start_offset(), 1 << 16);
      Status s = r.status();
      if (r.ok()) s = r->slice.ReadAll().status();
      if (s.ok()) s = log->LookupOffset(0).status();
      if (s.ok()) s = log->FetchOffsetByTimestamp(kT0).status();
      if (s.ok()) continue;
      if (!IsClosedOrDeleted(s)) note(s);
      if (deleted.load()) {
        last_read = s;
        return;
      }
    }
  });
  std::thread tasks([&] {
    for (int i = 0; i < 200 && !deleted.load(); ++i) {
      for (const char* task : {"flush", "checkpoint", "retention"}) {
        Status s = manager_->RunTask(task);
        if (!s.ok()) note(s);
      }
      (void)manager_->DescribeTopic("t");
    }
  });
  // Bounded wait for some appends before the delete.
  for (int i = 0; i < 200000 && appended.load() < 20; ++i) std::this_thread::yield();
  ASSERT_TRUE(manager_->DeleteTopic("t").ok());
  deleted.store(true);
  appender.join();
  reader.join();
  tasks.join();
  EXPECT_TRUE(unexpected.empty()) << unexpected.front();
  EXPECT_GE(appended.load(), 20);
  // Both loops stop at the delete unless they ran out of iterations first.
  if (!last_append.ok()) {
    EXPECT_TRUE(IsClosedOrDeleted(last_append)) << last_append.ToString();
  }
  auto after = log->AppendAsLeader(ProducerBatch(0, 1, 10, kT0));
  ASSERT_FALSE(after.ok());
  EXPECT_TRUE(after.status().IsNotFound()) << after.status().ToString();
  EXPECT_NE(after.status().ToString().find("UnknownTopicOrPartitionException"), std::string::npos);
  auto read = log->Read(0, 100);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsNotFound()) << read.status().ToString();
  EXPECT_TRUE(manager_->GetLog({"t", 0}).status().IsNotFound());
  // The deleted partition's directory goes after file.delete.delay.ms; the held log is still a
  // valid object that answers NotFound.
  ASSERT_TRUE(manager_->RunTask("delete-files").ok());
  EXPECT_TRUE(log->LookupOffset(0).status().IsNotFound());
}

// Appends and reads on one topic while other threads create, alter and delete other topics,
// clean a compacted topic and run every task: no race, and every acknowledged record reads back.
TEST_F(LogManagerConcurrencyTest, AppendsGoOnWhileTopicsChangeAndTasksRun) {
  ASSERT_TRUE(manager_->CreateTopic("live", 1, {{"internal.segment.bytes", "8192"}}).ok());
  ASSERT_TRUE(manager_
                  ->CreateTopic("table", 1,
                                {{"cleanup.policy", "compact"},
                                 {"internal.segment.bytes", "4096"},
                                 {"min.cleanable.dirty.ratio", "0.01"}})
                  .ok());
  std::shared_ptr<Log> live = *manager_->GetLog({"live", 0});
  std::shared_ptr<Log> table = *manager_->GetLog({"table", 0});
  std::atomic<bool> stop{false};
  Mutex mu;
  std::vector<std::string> errors;
  auto note = [&](const std::string& what, const Status& s) {
    MutexLock l(&mu);
    errors.push_back(what + ": " + s.ToString());
  };
  int64_t acknowledged = 0;
  std::thread appender([&] {
    for (int i = 0; i < 1500; ++i) {
      auto r = live->AppendAsLeader(ProducerBatch(i, 2, 64, kT0));
      if (!r.ok()) return note("append", r.status());
      acknowledged = r->last_offset + 1;
      // Few keys, so the table has something to clean.
      auto t = table->AppendAsLeader(ProducerBatch(i % 5, 1, 64, kT0, CompressionType::kNone));
      if (!t.ok()) return note("table append", t.status());
    }
  });
  std::thread admin([&] {
    for (int i = 0; i < 30 && !stop.load(); ++i) {
      const std::string name = "churn-" + std::to_string(i % 3);
      Status c = manager_->CreateTopic(name, 2);
      if (!c.ok() && c.code() != Status::Code::kAlreadyExists) {
        note("create", c);
      }
      Status a = manager_->AlterTopicConfig(name, {{"retention.ms", "600000"}}, {});
      if (!a.ok() && !a.IsNotFound()) note("alter", a);
      if (i % 2 == 1) {
        Status d = manager_->DeleteTopic(name);
        if (!d.ok() && !d.IsNotFound()) note("delete", d);
      }
    }
  });
  std::thread background([&] {
    for (int i = 0; i < 300 && !stop.load(); ++i) {
      if (auto r = manager_->RunCleanerRound(0); !r.ok()) note("cleaner", r.status());
      for (const char* task : {"flush", "checkpoint", "retention", "delete-files"}) {
        if (Status s = manager_->RunTask(task); !s.ok()) note(task, s);
      }
    }
  });
  std::thread reader([&] {
    for (int i = 0; i < 3000 && !stop.load(); ++i) {
      auto r = live->Read(live->log_start_offset(), 1 << 15);
      if (r.ok()) {
        auto bytes = r->slice.ReadAll();
        if (!bytes.ok()) note("read bytes", bytes.status());
      } else {
        note("read", r.status());
      }
      (void)manager_->GetLog({"live", 0});
      (void)manager_->ListTopics();
    }
  });
  appender.join();
  stop.store(true);
  admin.join();
  background.join();
  reader.join();
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(live->log_end_offset(), acknowledged);
  int64_t records = 0;
  ASSERT_TRUE(testing::ForEachBatch(live.get(), [&](const RecordBatchView& v, Bytes) {
                records += v.records_count();
              }).ok());
  EXPECT_EQ(records, acknowledged);
  ASSERT_TRUE(manager_->Shutdown().ok());
}

}  // namespace
}  // namespace seglog
