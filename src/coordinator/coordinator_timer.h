// CoordinatorTimer: a shard's keyed timers on the injected Scheduler (Kafka's CoordinatorTimer
// in coordinator-common). Schedule(key, delay) runs an operation once the delay has passed, with
// the shard's mutex held:
//
//   - Scheduling a key again replaces its operation and deadline; Cancel drops it. Each timer
//     carries a generation, and a scheduler task that finds its key gone or at another
//     generation does nothing - so a timer that was replaced or cancelled never fires.
//   - Moving a deadline later adds no scheduler task: the key's one task, when it runs before
//     the deadline, waits again for the rest. A session timeout reset by every heartbeat and
//     commit costs a map update, not a task.
//   - A task pins `owner` (the object that owns the mutex and the timer; a task does nothing
//     once it is gone), takes the shard's mutex, and removes the timer before running its
//     operation, so the operation may schedule the key again. The completions the operation
//     leaves (answers to waiting callers) run after the mutex is released, never under it.
//   - An operation that fails is scheduled again after `retry_backoff_ms` when it was scheduled
//     with `retry` (Kafka retries a timeout whose write failed), replacing whatever the
//     operation scheduled under its key.
//   - Shutdown cancels every timer and ignores later Schedule calls; no operation starts after
//     it returns (the completions of one that ran before may still be running).
//
// The timer has no lock of its own and does no I/O: it takes only the shard's mutex, which
// every request of the shard takes too, so the lock order is the shard's. An operation may
// append records under it, as every write of the shard does (write, then apply).
//
// Thread safety: thread-safe under the shard's mutex: every method requires it held (named
// again, as CondVar's waits name theirs, so the analysis checks the caller holds it), and an
// operation runs with it held.
#ifndef SEGLOG_COORDINATOR_COORDINATOR_TIMER_H_
#define SEGLOG_COORDINATOR_COORDINATOR_TIMER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "seglog/scheduler.h"
#include "seglog/status.h"

namespace seglog {

class CoordinatorTimer {
 public:
  // Work an operation leaves to run once the shard's mutex is released.
  using Completions = std::vector<std::function<void()>>;
  // What runs when a timer expires (Kafka's TimeoutOperation), with the shard's mutex held. A
  // non-OK Status is a failure (see `retry`).
  using TimeoutOperation = std::function<Status(Completions* completions)>;

  // Kafka's default backoff before a failed operation runs again.
  static constexpr int64_t kDefaultRetryBackoffMs = 500;

  // `mu`: the shard's mutex, which must outlive the timer. `task_name`: the name its scheduler
  // tasks carry. `owner`: see the header comment.
  CoordinatorTimer(Scheduler* scheduler, Mutex* mu, std::string task_name,
                   std::weak_ptr<const void> owner);
  CoordinatorTimer(const CoordinatorTimer&) = delete;
  CoordinatorTimer& operator=(const CoordinatorTimer&) = delete;

  // Runs `operation` `delay_ms` from now (now when <= 0), replacing the key's timer.
  void Schedule(Mutex* mu, const std::string& key, int64_t delay_ms, bool retry,
                TimeoutOperation operation) REQUIRES(mu) {
    Schedule(mu, key, delay_ms, retry, kDefaultRetryBackoffMs, std::move(operation));
  }
  void Schedule(Mutex* mu, const std::string& key, int64_t delay_ms, bool retry,
                int64_t retry_backoff_ms, TimeoutOperation operation) REQUIRES(mu);
  // As Schedule, unless the key has a timer already (which is then left as it is).
  void ScheduleIfAbsent(Mutex* mu, const std::string& key, int64_t delay_ms, bool retry,
                        TimeoutOperation operation) REQUIRES(mu);
  void Cancel(Mutex* mu, const std::string& key) REQUIRES(mu);
  bool IsScheduled(Mutex* mu, const std::string& key) const REQUIRES(mu);
  // How many timers are pending.
  size_t Size(Mutex* mu) const REQUIRES(mu);
  void Shutdown(Mutex* mu) REQUIRES(mu);

 private:
  struct Timer {
    TimeoutOperation operation;
    bool retry = false;
    int64_t retry_backoff_ms = 0;
    int64_t due_ms = 0;
    uint64_t generation = 0;  // of the one scheduler task that fires it
    int64_t task_due_ms = 0;  // when that task runs
  };

  void ScheduleTask(const std::string& key, Timer& timer) REQUIRES(mu_);
  // The scheduler task of `key` at `generation`.
  void Expire(const std::string& key, uint64_t generation) EXCLUDES(mu_);

  Scheduler* const scheduler_;
  Mutex* const mu_;
  const std::string task_name_;
  const std::weak_ptr<const void> owner_;
  std::map<std::string, Timer> timers_ GUARDED_BY(mu_);
  uint64_t last_generation_ GUARDED_BY(mu_) = 0;
  bool shut_down_ GUARDED_BY(mu_) = false;
};

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_COORDINATOR_TIMER_H_
