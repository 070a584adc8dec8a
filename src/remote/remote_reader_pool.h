// RemoteReaderPool: the threads that read remote storage for fetches - Kafka's remote log reader
// pool (RemoteStorageThreadPool behind RemoteLogManager.asyncRead): `threads` threads
// (remote.log.reader.threads) take reads from a queue of at most `max_pending` waiting reads
// (remote.log.reader.max.pending.tasks). A read submitted to a full queue is refused at once
// (Kafka's RejectedExecutionException, which the fetch answers UNKNOWN_SERVER_ERROR), so a flood
// of remote fetches costs a bounded queue, never an unbounded backlog. A queued read can be
// cancelled (Kafka's Future.cancel(false) when a delayed remote fetch expires); a running one
// is never interrupted, and what it returns late is its submitter's to drop.
//
// Lifecycle: threads start as reads need them (at most `threads`); Shutdown (or the destructor)
// cancels the queued reads (their functions are destroyed unrun), lets the running ones finish
// and joins the threads. Tickets may outlive the pool.
// Thread safety: thread-safe.
#ifndef SEGLOG_REMOTE_REMOTE_READER_POOL_H_
#define SEGLOG_REMOTE_REMOTE_READER_POOL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "seglog/result.h"

namespace seglog {

class RemoteReaderPool {
 public:
  struct State;

  // One submitted read. Thread-safe.
  class Ticket {
   public:
    // Takes the read off the queue if no thread has started it: true when it will never run
    // (cancelled now or before), false once it started.
    bool Cancel();

   private:
    friend class RemoteReaderPool;
    enum Phase : int { kQueued, kRunning, kDone, kCancelled };
    Ticket(std::shared_ptr<State> state, std::function<void()> read)
        : state_(std::move(state)), read_(std::move(read)) {}

    const std::shared_ptr<State> state_;
    uint64_t sequence_ = 0;       // its key in the queue; set before it is queued
    std::function<void()> read_;  // owned by the thread that moves phase_ out of kQueued
    std::atomic<int> phase_{kQueued};
  };

  struct Stats {
    int32_t threads = 0;  // started so far
    int64_t pending = 0;  // queued, not started
    int64_t running = 0;
    int64_t submitted = 0;
    int64_t rejected = 0;  // the queue was full (or the pool shut down)
    int64_t cancelled = 0;
    int64_t completed = 0;
  };

  // REQUIRES: threads >= 1, max_pending >= 1.
  RemoteReaderPool(int32_t threads, int32_t max_pending);
  ~RemoteReaderPool();
  RemoteReaderPool(const RemoteReaderPool&) = delete;
  RemoteReaderPool& operator=(const RemoteReaderPool&) = delete;

  // Queues `read` to run once on a reader thread, in submission order. Aborted when
  // `max_pending` reads wait already (the message names remote.log.reader.max.pending.tasks)
  // or the pool is shut down; `read` is then destroyed unrun.
  Result<std::shared_ptr<Ticket>> Submit(std::function<void()> read);
  // Cancels every queued read, waits for the running ones, joins the threads. Later submits
  // are refused. Idempotent.
  void Shutdown();

  Stats stats() const;
  int32_t max_threads() const { return threads_; }
  int32_t max_pending() const { return max_pending_; }

 private:
  static void Run(State* state);

  const int32_t threads_;
  const int32_t max_pending_;
  const std::shared_ptr<State> state_;
};

// The queue and counters, shared by the pool, its threads and its tickets.
struct RemoteReaderPool::State {
  Mutex mu;
  CondVar cv{&mu};
  // Waiting reads by submission sequence (a map, so that a cancelled one leaves at once).
  std::map<uint64_t, std::shared_ptr<Ticket>> queue GUARDED_BY(mu);
  std::vector<std::thread> workers GUARDED_BY(mu);
  uint64_t next_sequence GUARDED_BY(mu) = 0;
  bool stopped GUARDED_BY(mu) = false;
  Stats stats GUARDED_BY(mu);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_READER_POOL_H_
