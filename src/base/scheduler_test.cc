#include "base/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

namespace seglog {
namespace {

TEST(MockSchedulerTest, RunsTasksInTimeOrderAsTheClockMoves) {
  MockScheduler s(1000);
  std::vector<std::string> ran;
  s.Schedule(
      "late", [&] { ran.push_back("late@" + std::to_string(s.NowMs())); }, 500);
  s.Schedule(
      "early", [&] { ran.push_back("early@" + std::to_string(s.NowMs())); }, 100);
  s.Schedule(
      "periodic", [&] { ran.push_back("p@" + std::to_string(s.NowMs())); }, 200, 200);
  EXPECT_EQ(s.PendingTaskNames(), (std::vector<std::string>{"early", "periodic", "late"}));
  s.Advance(99);
  EXPECT_TRUE(ran.empty());
  s.Advance(501);  // to 1600
  EXPECT_EQ(ran,
            (std::vector<std::string>{"early@1100", "p@1200", "p@1400", "late@1500", "p@1600"}));
  EXPECT_EQ(s.NowMs(), 1600);
}

TEST(MockSchedulerTest, ATaskMayScheduleAnotherThatRunsInTheSameAdvance) {
  MockScheduler s(0);
  int inner = 0;
  s.Schedule(
      "outer", [&] { s.ScheduleOnce("inner", [&] { ++inner; }); }, 10);
  s.Advance(10);
  EXPECT_EQ(inner, 1);
  s.Shutdown();
  s.ScheduleOnce("after", [&] { ++inner; });
  s.Advance(100);
  EXPECT_EQ(inner, 1);  // nothing runs after shutdown
}

TEST(ThreadSchedulerTest, RunsOnceAndPeriodicTasksAndDropsPendingOnesAtShutdown) {
  ThreadScheduler s(2);
  std::atomic<int> once{0}, periodic{0}, never{0};
  s.ScheduleOnce("once", [&] { ++once; });
  s.Schedule(
      "periodic", [&] { ++periodic; }, 0, 1);
  s.Schedule(
      "never", [&] { ++never; }, 3600 * 1000);
  for (int i = 0; i < 2000 && (once.load() == 0 || periodic.load() < 3); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.Shutdown();
  EXPECT_EQ(once.load(), 1);
  EXPECT_GE(periodic.load(), 3);
  EXPECT_EQ(never.load(), 0);
  const int after = periodic.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(periodic.load(), after);
}

}  // namespace
}  // namespace seglog
