// Scheduler: runs named background tasks after a delay, once or periodically - Kafka's
// KafkaScheduler, which runs the log manager's tasks (kafka-log-retention, kafka-log-flusher,
// kafka-recovery-point-checkpoint, flush-log, delete-file ...). An embedder picks one of two:
//   NewThreadScheduler  a pool of threads on the wall clock (what a server runs);
//   NewManualScheduler  no threads and a clock that moves only when told to: Advance() runs
//                       every task that falls due, in time order, on the caller's thread
//                       (Kafka's MockScheduler) - for tests, simulations, or an embedder that
//                       wants every task on its own thread.
// or implements the interface over its own executor. Shutdown() waits for running tasks and
// drops the ones not yet started (as Kafka's executor, whose delayed tasks do not run after
// shutdown); scheduling after shutdown does nothing.
//
// Thread safety: implementations are thread-safe; tasks may schedule further tasks.
#ifndef SEGLOG_SCHEDULER_H_
#define SEGLOG_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace seglog {

class Scheduler {
 public:
  using Task = std::function<void()>;
  virtual ~Scheduler() = default;

  // Runs `task` `delay_ms` from now, then every `period_ms` when that is > 0.
  virtual void Schedule(const std::string& name, Task task, int64_t delay_ms,
                        int64_t period_ms = 0) = 0;
  void ScheduleOnce(const std::string& name, Task task) { Schedule(name, std::move(task), 0); }
  virtual void Shutdown() = 0;
  // The clock the tasks are timed by, in ms since the epoch.
  virtual int64_t NowMs() const = 0;
  // Runs now, on the calling thread and whatever their due time, the waiting tasks named
  // `name` (once each; a periodic one is not rescheduled): "delete the pending files now".
  virtual void RunPendingNow(const std::string& name) = 0;
};

// A scheduler whose clock its owner moves.
class ManualScheduler : public Scheduler {
 public:
  // Moves the clock forward by `ms`, running each task as its time comes (the clock reads the
  // task's due time while it runs).
  virtual void Advance(int64_t ms) = 0;
  // Runs the tasks due now.
  void RunDue() { Advance(0); }
  // Names of the tasks waiting, in due order.
  virtual std::vector<std::string> PendingTaskNames() const = 0;
};

// `threads`: Kafka's background.threads (at least 1 is started).
std::unique_ptr<Scheduler> NewThreadScheduler(int threads);
// Its clock starts at `start_ms` (ms since the epoch).
std::unique_ptr<ManualScheduler> NewManualScheduler(int64_t start_ms);

}  // namespace seglog

#endif  // SEGLOG_SCHEDULER_H_
