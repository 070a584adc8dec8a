// ThreadScheduler and MockScheduler; see scheduler.h.
#include "base/scheduler.h"

#include "base/clock.h"

#include <algorithm>
#include <chrono>

namespace seglog {

std::unique_ptr<Scheduler> NewThreadScheduler(int threads) {
  return std::make_unique<ThreadScheduler>(threads);
}

std::unique_ptr<ManualScheduler> NewManualScheduler(int64_t start_ms) {
  return std::make_unique<MockScheduler>(start_ms);
}

ThreadScheduler::ThreadScheduler(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Work(); });
}

ThreadScheduler::~ThreadScheduler() { Shutdown(); }

int64_t ThreadScheduler::NowMs() const { return WallClockMs(); }

void ThreadScheduler::Schedule(const std::string& name, Task task, int64_t delay_ms,
                               int64_t period_ms) {
  MutexLock l(&mu_);
  if (shutdown_) return;
  queue_.Push(WallClockMs() + std::max<int64_t>(0, delay_ms),
              TaskQueue::Entry{name, std::move(task), period_ms});
  cv_.SignalAll();
}

void ThreadScheduler::Work() {
  mu_.Lock();
  while (!shutdown_) {
    if (queue_.empty()) {
      cv_.Wait(&mu_);
      continue;
    }
    const int64_t wait = queue_.next_due() - WallClockMs();
    if (wait > 0) {
      cv_.WaitForMs(&mu_, wait);
      continue;
    }
    TaskQueue::Entry e = queue_.Pop();
    mu_.Unlock();
    e.task();
    mu_.Lock();
    if (e.period_ms > 0 && !shutdown_) queue_.Push(WallClockMs() + e.period_ms, std::move(e));
  }
  mu_.Unlock();
}

void ThreadScheduler::Shutdown() {
  {
    MutexLock l(&mu_);
    if (shutdown_ && threads_.empty()) return;
    shutdown_ = true;
    queue_.Clear();
    cv_.SignalAll();
  }
  for (std::thread& t : threads_) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
  threads_.clear();
}

void MockScheduler::Schedule(const std::string& name, Task task, int64_t delay_ms,
                             int64_t period_ms) {
  MutexLock l(&mu_);
  if (shutdown_) return;
  queue_.Push(now_ + std::max<int64_t>(0, delay_ms),
              TaskQueue::Entry{name, std::move(task), period_ms});
}

void MockScheduler::Shutdown() {
  MutexLock l(&mu_);
  shutdown_ = true;
  queue_.Clear();
}

int64_t MockScheduler::NowMs() const {
  MutexLock l(&mu_);
  return now_;
}

void MockScheduler::Advance(int64_t ms) {
  mu_.Lock();
  const int64_t target = now_ + std::max<int64_t>(0, ms);
  while (!shutdown_ && !queue_.empty() && queue_.next_due() <= target) {
    now_ = std::max(now_, queue_.next_due());
    TaskQueue::Entry e = queue_.Pop();
    mu_.Unlock();
    e.task();
    mu_.Lock();
    if (e.period_ms > 0 && !shutdown_) queue_.Push(now_ + e.period_ms, std::move(e));
  }
  now_ = target;
  mu_.Unlock();
}

void ThreadScheduler::RunPendingNow(const std::string& name) {
  std::vector<TaskQueue::Entry> run;
  {
    MutexLock l(&mu_);
    run = queue_.TakeNamed(name);
  }
  for (TaskQueue::Entry& e : run) e.task();
}

void MockScheduler::RunPendingNow(const std::string& name) {
  std::vector<TaskQueue::Entry> run;
  {
    MutexLock l(&mu_);
    run = queue_.TakeNamed(name);
  }
  for (TaskQueue::Entry& e : run) e.task();
}

std::vector<std::string> MockScheduler::PendingTaskNames() const {
  MutexLock l(&mu_);
  return queue_.Names();
}

}  // namespace seglog
