// The two implementations of the public Scheduler interface (seglog/scheduler.h), which
// NewThreadScheduler and NewManualScheduler return:
//   ThreadScheduler  a pool of threads on the wall clock;
//   MockScheduler    no threads: tests move its clock with Advance(), which runs every task that
//                    falls due, in time order, on the caller's thread (Kafka's MockScheduler).
// Shutdown() waits for running tasks and drops the ones not yet started (as Kafka's executor,
// whose delayed tasks do not run after shutdown); scheduling after shutdown does nothing.
//
// Thread safety: thread-safe; tasks may schedule further tasks.
#ifndef SEGLOG_BASE_SCHEDULER_H_
#define SEGLOG_BASE_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/mutex.h"
#include "seglog/scheduler.h"

namespace seglog {

// A time-ordered queue of tasks; the shared part of both schedulers.
// Thread safety: externally synchronised.
class TaskQueue {
 public:
  struct Entry {
    std::string name;
    Scheduler::Task task;
    int64_t period_ms = 0;
  };
  void Push(int64_t due_ms, Entry e) {
    tasks_.emplace(std::make_pair(due_ms, seq_++), std::move(e));
  }
  bool empty() const { return tasks_.empty(); }
  int64_t next_due() const { return tasks_.begin()->first.first; }
  Entry Pop() {
    Entry e = std::move(tasks_.begin()->second);
    tasks_.erase(tasks_.begin());
    return e;
  }
  void Clear() { tasks_.clear(); }
  // Removes and returns the tasks named `name`.
  std::vector<Entry> TakeNamed(const std::string& name) {
    std::vector<Entry> out;
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      if (it->second.name == name) {
        out.push_back(std::move(it->second));
        it = tasks_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [due, e] : tasks_) out.push_back(e.name);
    return out;
  }
  size_t size() const { return tasks_.size(); }

 private:
  uint64_t seq_ = 0;  // FIFO among tasks due at the same time
  std::map<std::pair<int64_t, uint64_t>, Entry> tasks_;
};

class ThreadScheduler final : public Scheduler {
 public:
  // `threads`: Kafka's background.threads (default 10).
  explicit ThreadScheduler(int threads);
  ~ThreadScheduler() override;

  void Schedule(const std::string& name, Task task, int64_t delay_ms,
                int64_t period_ms = 0) override EXCLUDES(mu_);
  void Shutdown() override EXCLUDES(mu_);
  int64_t NowMs() const override;
  void RunPendingNow(const std::string& name) override EXCLUDES(mu_);

 private:
  void Work() EXCLUDES(mu_);

  Mutex mu_;
  CondVar cv_{&mu_};
  TaskQueue queue_ GUARDED_BY(mu_);
  bool shutdown_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

class MockScheduler final : public ManualScheduler {
 public:
  explicit MockScheduler(int64_t start_ms) : now_(start_ms) {}

  void Schedule(const std::string& name, Task task, int64_t delay_ms,
                int64_t period_ms = 0) override EXCLUDES(mu_);
  void Shutdown() override EXCLUDES(mu_);
  int64_t NowMs() const override EXCLUDES(mu_);

  void Advance(int64_t ms) override EXCLUDES(mu_);
  void RunPendingNow(const std::string& name) override EXCLUDES(mu_);
  std::vector<std::string> PendingTaskNames() const override EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  int64_t now_ GUARDED_BY(mu_);
  TaskQueue queue_ GUARDED_BY(mu_);
  bool shutdown_ GUARDED_BY(mu_) = false;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_SCHEDULER_H_
