// Tests for CoordinatorTimer: deadlines, replacing, cancelling, stale tasks, retries, shutdown,
// and many keys, on the manual scheduler (and once on threads).
#include "coordinator/coordinator_timer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace seglog {
namespace {

constexpr char kTaskName[] = "coordinator-timer";

// What owns a timer: the shard's mutex and the timer.
struct Owner {
  Mutex mu;
  std::unique_ptr<CoordinatorTimer> timer;
};

class CoordinatorTimerTest : public ::testing::Test {
 protected:
  CoordinatorTimerTest() : scheduler_(NewManualScheduler(10000)) {
    owner_ = std::make_shared<Owner>();
    owner_->timer =
        std::make_unique<CoordinatorTimer>(scheduler_.get(), &owner_->mu, kTaskName, owner_);
  }

  // An operation that records the clock when it runs, under `name`.
  CoordinatorTimer::TimeoutOperation Record(const std::string& name) {
    return [this, name](CoordinatorTimer::Completions*) {
      fired_.push_back({name, scheduler_->NowMs()});
      return Status::OK();
    };
  }

  void Schedule(const std::string& key, int64_t delay_ms, CoordinatorTimer::TimeoutOperation op,
                bool retry = false, int64_t backoff_ms = 100) {
    MutexLock l(&owner_->mu);
    owner_->timer->Schedule(&owner_->mu, key, delay_ms, retry, backoff_ms, std::move(op));
  }
  void Cancel(const std::string& key) {
    MutexLock l(&owner_->mu);
    owner_->timer->Cancel(&owner_->mu, key);
  }
  bool IsScheduled(const std::string& key) {
    MutexLock l(&owner_->mu);
    return owner_->timer->IsScheduled(&owner_->mu, key);
  }
  size_t Size() {
    MutexLock l(&owner_->mu);
    return owner_->timer->Size(&owner_->mu);
  }
  void Shutdown() {
    MutexLock l(&owner_->mu);
    owner_->timer->Shutdown(&owner_->mu);
  }
  // Scheduler tasks of the timer that are waiting.
  int64_t PendingTasks() const {
    auto names = scheduler_->PendingTaskNames();
    return std::count(names.begin(), names.end(), kTaskName);
  }
  int64_t Now() const { return scheduler_->NowMs(); }

  std::unique_ptr<ManualScheduler> scheduler_;
  std::shared_ptr<Owner> owner_;
  std::vector<std::pair<std::string, int64_t>> fired_;  // (operation, when)
};

using Fired = std::vector<std::pair<std::string, int64_t>>;

TEST_F(CoordinatorTimerTest, FiresOnceAtItsDeadline) {
  const int64_t start = Now();
  Schedule("k", 100, Record("a"));
  EXPECT_TRUE(IsScheduled("k"));
  EXPECT_EQ(Size(), 1u);
  scheduler_->Advance(99);
  EXPECT_TRUE(fired_.empty());
  scheduler_->Advance(1);
  EXPECT_EQ(fired_, (Fired{{"a", start + 100}}));
  EXPECT_FALSE(IsScheduled("k"));  // gone before its operation ran
  EXPECT_EQ(Size(), 0u);
  scheduler_->Advance(10000);
  EXPECT_EQ(fired_.size(), 1u);
  EXPECT_EQ(PendingTasks(), 0);
}

TEST_F(CoordinatorTimerTest, ANegativeDelayFiresAtTheNextRun) {
  const int64_t start = Now();
  Schedule("k", -5, Record("a"));
  scheduler_->RunDue();
  EXPECT_EQ(fired_, (Fired{{"a", start}}));
}

TEST_F(CoordinatorTimerTest, SchedulingAKeyAgainReplacesItsOperationAndDeadline) {
  const int64_t start = Now();
  Schedule("k", 100, Record("first"));
  Schedule("k", 50, Record("earlier"));  // a new task; the first one is stale
  scheduler_->Advance(200);
  EXPECT_EQ(fired_, (Fired{{"earlier", start + 50}}));

  fired_.clear();
  const int64_t t = Now();
  Schedule("k", 100, Record("first"));
  Schedule("k", 300, Record("later"));  // the one task waits again
  scheduler_->Advance(299);
  EXPECT_TRUE(fired_.empty());
  scheduler_->Advance(1);
  EXPECT_EQ(fired_, (Fired{{"later", t + 300}}));
  EXPECT_EQ(PendingTasks(), 0);
}

// Resetting a deadline to later (every heartbeat) costs no scheduler task.
TEST_F(CoordinatorTimerTest, MovingADeadlineLaterAddsNoTask) {
  Schedule("session", 1000, Record("expired"));
  for (int i = 0; i < 5000; ++i) {
    Schedule("session", 1000, Record("expired"));
    if (i % 10 == 0) scheduler_->Advance(1);
  }
  EXPECT_LE(PendingTasks(), 1);
  const int64_t last = Now();
  scheduler_->Advance(999);
  EXPECT_TRUE(fired_.empty());
  scheduler_->Advance(1);
  EXPECT_EQ(fired_, (Fired{{"expired", last + 1000}}));
}

TEST_F(CoordinatorTimerTest, ACancelledTimerDoesNotFire) {
  Schedule("k", 100, Record("a"));
  Cancel("k");
  EXPECT_FALSE(IsScheduled("k"));
  scheduler_->Advance(1000);
  EXPECT_TRUE(fired_.empty());
  EXPECT_EQ(PendingTasks(), 0);
  Cancel("never-scheduled");  // nothing to cancel: nothing happens
}

// The task of a replaced or cancelled timer ends when it finds another generation under its key;
// it neither fires the key's current timer nor waits again for it.
TEST_F(CoordinatorTimerTest, StaleTasksDoNothing) {
  const int64_t start = Now();
  Schedule("k", 1000, Record("a"));
  Schedule("k", 500, Record("b"));
  Schedule("k", 250, Record("c"));
  EXPECT_EQ(PendingTasks(), 3);
  scheduler_->Advance(250);
  EXPECT_EQ(fired_, (Fired{{"c", start + 250}}));
  Schedule("k", 10000, Record("d"));
  scheduler_->Advance(750);  // the tasks of a and b run, stale
  EXPECT_EQ(fired_.size(), 1u);
  EXPECT_EQ(PendingTasks(), 1);  // d's own
  EXPECT_TRUE(IsScheduled("k"));

  // Cancelled, then scheduled again at the same deadline: the old task is stale too.
  fired_.clear();
  const int64_t t = Now();
  Schedule("j", 100, Record("x"));
  Cancel("j");
  Schedule("j", 100, Record("y"));
  EXPECT_EQ(PendingTasks(), 3);
  scheduler_->Advance(100);
  EXPECT_EQ(fired_, (Fired{{"y", t + 100}}));
}

TEST_F(CoordinatorTimerTest, ScheduleIfAbsentKeepsAPendingTimer) {
  const int64_t start = Now();
  {
    MutexLock l(&owner_->mu);
    owner_->timer->ScheduleIfAbsent(&owner_->mu, "k", 100, false, Record("a"));
    owner_->timer->ScheduleIfAbsent(&owner_->mu, "k", 10, false, Record("b"));
  }
  scheduler_->Advance(100);
  EXPECT_EQ(fired_, (Fired{{"a", start + 100}}));
}

// An operation may schedule its own key again (the initial rebalance delay extends itself), and
// its completions run once the shard's mutex is free.
TEST_F(CoordinatorTimerTest, AnOperationMayRescheduleItsKeyAndItsCompletionsRunUnlocked) {
  int runs = 0;
  bool completion_ran_unlocked = false;
  std::function<Status(CoordinatorTimer::Completions*)> op;
  op = [&](CoordinatorTimer::Completions* done) {
    ++runs;
    owner_->mu.AssertHeld();
    if (runs < 3) owner_->timer->Schedule(&owner_->mu, "k", 100, false, op);
    done->push_back([&] {
      if (owner_->mu.TryLock()) {
        owner_->mu.Unlock();
        completion_ran_unlocked = true;
      }
    });
    return Status::OK();
  };
  Schedule("k", 100, op);
  scheduler_->Advance(1000);
  EXPECT_EQ(runs, 3);
  EXPECT_TRUE(completion_ran_unlocked);
  EXPECT_FALSE(IsScheduled("k"));
}

TEST_F(CoordinatorTimerTest, AFailedOperationIsRetriedOnlyWhenAsked) {
  const int64_t start = Now();
  int failures_left = 2;
  std::vector<int64_t> runs;
  auto flaky = [&](CoordinatorTimer::Completions*) {
    runs.push_back(Now());
    if (failures_left > 0) {
      --failures_left;
      return Status::IOError("append failed");
    }
    return Status::OK();
  };
  Schedule("retried", 100, flaky, /*retry=*/true, /*backoff_ms=*/1000);
  scheduler_->Advance(5000);
  EXPECT_EQ(runs, (std::vector<int64_t>{start + 100, start + 1100, start + 2100}));
  EXPECT_FALSE(IsScheduled("retried"));

  runs.clear();
  failures_left = 1;
  const int64_t t = Now();
  Schedule("not-retried", 100, flaky, /*retry=*/false);
  scheduler_->Advance(5000);
  EXPECT_EQ(runs, (std::vector<int64_t>{t + 100}));
  EXPECT_FALSE(IsScheduled("not-retried"));
}

// A retry waiting for its backoff is an ordinary timer: it can be cancelled.
TEST_F(CoordinatorTimerTest, ACancelledRetryDoesNotRun) {
  int runs = 0;
  Schedule(
      "k", 100,
      [&](CoordinatorTimer::Completions*) {
        ++runs;
        return Status::IOError("append failed");
      },
      true, 1000);
  scheduler_->Advance(100);
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(IsScheduled("k"));
  Cancel("k");
  scheduler_->Advance(5000);
  EXPECT_EQ(runs, 1);
}

TEST_F(CoordinatorTimerTest, ShutdownCancelsAllAndLaterSchedulesDoNothing) {
  for (int i = 0; i < 10; ++i) Schedule(fmt::format("k{}", i), 100 * i, Record("x"));
  Shutdown();
  EXPECT_EQ(Size(), 0u);
  Schedule("after", 10, Record("after"));
  EXPECT_FALSE(IsScheduled("after"));
  scheduler_->Advance(10000);
  EXPECT_TRUE(fired_.empty());
}

TEST_F(CoordinatorTimerTest, AFailedOperationIsNotRetriedAfterShutdown) {
  int runs = 0;
  Schedule(
      "k", 100,
      [&](CoordinatorTimer::Completions*) {
        ++runs;
        owner_->mu.AssertHeld();
        owner_->timer->Shutdown(&owner_->mu);  // the coordinator shuts down meanwhile
        return Status::IOError("append failed");
      },
      true, 10);
  scheduler_->Advance(1000);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(Size(), 0u);
}

// A task outliving the timer's owner does nothing (ASan sees any touch of the freed timer).
TEST_F(CoordinatorTimerTest, ATaskAfterItsOwnerIsGoneDoesNothing) {
  Schedule("k", 100, Record("a"));
  owner_.reset();
  scheduler_->Advance(1000);
  EXPECT_TRUE(fired_.empty());
}

TEST_F(CoordinatorTimerTest, ManyKeys) {
  constexpr int kKeys = 1000;
  const int64_t start = Now();
  std::map<std::string, int64_t> expected;  // key -> when it fires
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = fmt::format("member-{}", i);
    Schedule(key, 10 + i % 97, Record(key));
    expected[key] = start + 10 + i % 97;
  }
  for (int i = 0; i < kKeys; i += 3) {
    const std::string key = fmt::format("member-{}", i);
    Cancel(key);
    expected.erase(key);
  }
  for (int i = 1; i < kKeys; i += 5) {  // some were cancelled: this schedules them anew
    const std::string key = fmt::format("member-{}", i);
    Schedule(key, 500 + i, Record(key));
    expected[key] = start + 500 + i;
  }
  EXPECT_EQ(Size(), expected.size());
  scheduler_->Advance(2000);
  std::map<std::string, int64_t> got;
  for (const auto& [key, when] : fired_) {
    EXPECT_TRUE(got.emplace(key, when).second) << key << " fired twice";
  }
  EXPECT_EQ(got, expected);
  // In deadline order.
  EXPECT_TRUE(std::is_sorted(fired_.begin(), fired_.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; }));
  EXPECT_EQ(Size(), 0u);
  EXPECT_EQ(PendingTasks(), 0);
}

// On a thread pool, no operation starts after Shutdown returns.
TEST(CoordinatorTimerThreadsTest, NoOperationRunsAfterShutdownReturns) {
  std::unique_ptr<Scheduler> scheduler = NewThreadScheduler(2);
  auto owner = std::make_shared<Owner>();
  owner->timer = std::make_unique<CoordinatorTimer>(scheduler.get(), &owner->mu, kTaskName, owner);
  std::atomic<bool> shut_down{false};
  std::atomic<int> ran{0}, ran_after_shutdown{0};
  {
    MutexLock l(&owner->mu);
    for (int i = 0; i < 400; ++i) {
      owner->timer->Schedule(&owner->mu, fmt::format("k{}", i), i % 20, false,
                             [&](CoordinatorTimer::Completions*) {
                               ++ran;
                               if (shut_down.load()) ++ran_after_shutdown;
                               return Status::OK();
                             });
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  {
    MutexLock l(&owner->mu);
    owner->timer->Shutdown(&owner->mu);
    shut_down = true;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  scheduler->Shutdown();
  EXPECT_EQ(ran_after_shutdown.load(), 0);
  EXPECT_LE(ran.load(), 400);
}

}  // namespace
}  // namespace seglog
