// CoordinatorTimer: a shard's keyed timers on the injected Scheduler; see coordinator_timer.h.
#include "coordinator/coordinator_timer.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace seglog {

CoordinatorTimer::CoordinatorTimer(Scheduler* scheduler, Mutex* mu, std::string task_name,
                                   std::weak_ptr<const void> owner)
    : scheduler_(scheduler), mu_(mu), task_name_(std::move(task_name)), owner_(std::move(owner)) {}

void CoordinatorTimer::Schedule(Mutex* mu, const std::string& key, int64_t delay_ms, bool retry,
                                int64_t retry_backoff_ms, TimeoutOperation operation) {
  assert(mu == mu_);
  (void)mu;
  mu_->AssertHeld();
  if (shut_down_) return;
  const int64_t due = scheduler_->NowMs() + std::max<int64_t>(delay_ms, 0);
  auto it = timers_.find(key);
  if (it != timers_.end() && it->second.task_due_ms <= due) {
    // Its task runs first and will wait for the rest: the generation stays.
    Timer& t = it->second;
    t.operation = std::move(operation);
    t.retry = retry;
    t.retry_backoff_ms = retry_backoff_ms;
    t.due_ms = due;
    return;
  }
  Timer& t = timers_[key];
  t.operation = std::move(operation);
  t.retry = retry;
  t.retry_backoff_ms = retry_backoff_ms;
  t.due_ms = due;
  t.generation = ++last_generation_;  // an earlier task of the key is stale from now on
  ScheduleTask(key, t);
}

void CoordinatorTimer::ScheduleIfAbsent(Mutex* mu, const std::string& key, int64_t delay_ms,
                                        bool retry, TimeoutOperation operation) {
  if (IsScheduled(mu, key)) return;
  Schedule(mu, key, delay_ms, retry, std::move(operation));
}

void CoordinatorTimer::Cancel(Mutex* mu, const std::string& key) {
  assert(mu == mu_);
  (void)mu;
  mu_->AssertHeld();
  timers_.erase(key);
}

bool CoordinatorTimer::IsScheduled(Mutex* mu, const std::string& key) const {
  assert(mu == mu_);
  (void)mu;
  mu_->AssertHeld();
  return timers_.count(key) != 0;
}

size_t CoordinatorTimer::Size(Mutex* mu) const {
  assert(mu == mu_);
  (void)mu;
  mu_->AssertHeld();
  return timers_.size();
}

void CoordinatorTimer::Shutdown(Mutex* mu) {
  assert(mu == mu_);
  (void)mu;
  mu_->AssertHeld();
  shut_down_ = true;
  timers_.clear();
}

void CoordinatorTimer::ScheduleTask(const std::string& key, Timer& timer) {
  timer.task_due_ms = timer.due_ms;
  scheduler_->Schedule(
      task_name_,
      [this, owner = owner_, key, generation = timer.generation] {
        const std::shared_ptr<const void> pinned = owner.lock();
        if (pinned == nullptr) return;  // the timer went with its owner
        Expire(key, generation);
      },
      std::max<int64_t>(timer.due_ms - scheduler_->NowMs(), 0));
}

void CoordinatorTimer::Expire(const std::string& key, uint64_t generation) {
  Completions completions;
  {
    MutexLock l(mu_);
    auto it = timers_.find(key);
    if (it == timers_.end() || it->second.generation != generation) return;  // cancelled, replaced
    if (shut_down_) return;
    if (it->second.due_ms > scheduler_->NowMs()) {
      ScheduleTask(key, it->second);  // moved later meanwhile: wait again
      return;
    }
    Timer t = std::move(it->second);
    timers_.erase(it);
    const Status s = t.operation(&completions);
    if (!s.ok() && t.retry) {
      Schedule(mu_, key, t.retry_backoff_ms, true, t.retry_backoff_ms, std::move(t.operation));
    }
  }
  for (auto& f : completions) f();
}

}  // namespace seglog
