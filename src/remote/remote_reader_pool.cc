// RemoteReaderPool: see remote_reader_pool.h.
#include "remote/remote_reader_pool.h"

#include <fmt/format.h>

#include <utility>

namespace seglog {

bool RemoteReaderPool::Ticket::Cancel() {
  int expected = kQueued;
  if (!phase_.compare_exchange_strong(expected, kCancelled)) return expected == kCancelled;
  // Won against the threads: this read never runs. Its function (and what it holds) goes now.
  std::function<void()> dropped;
  {
    MutexLock l(&state_->mu);
    state_->queue.erase(sequence_);
    ++state_->stats.cancelled;
    dropped = std::move(read_);
  }
  return true;
}

RemoteReaderPool::RemoteReaderPool(int32_t threads, int32_t max_pending)
    : threads_(std::max(threads, 1)),
      max_pending_(std::max(max_pending, 1)),
      state_(std::make_shared<State>()) {}

RemoteReaderPool::~RemoteReaderPool() { Shutdown(); }

Result<std::shared_ptr<RemoteReaderPool::Ticket>> RemoteReaderPool::Submit(
    std::function<void()> read) {
  std::shared_ptr<Ticket> ticket(new Ticket(state_, std::move(read)));
  {
    MutexLock l(&state_->mu);
    if (state_->stopped) {
      ++state_->stats.rejected;
      return Status::Aborted("the remote log reader pool is shut down");
    }
    if (static_cast<int64_t>(state_->queue.size()) >= max_pending_) {
      ++state_->stats.rejected;
      return Status::Aborted(
          fmt::format("{} remote reads are waiting already (remote.log.reader.max.pending.tasks)",
                      state_->queue.size()));
    }
    ticket->sequence_ = state_->next_sequence++;
    state_->queue.emplace(ticket->sequence_, ticket);
    ++state_->stats.submitted;
    // A thread more when every started one has a read (theirs or queued), up to threads_.
    const int64_t busy = state_->stats.running + static_cast<int64_t>(state_->queue.size());
    if (static_cast<int64_t>(state_->workers.size()) < busy &&
        static_cast<int32_t>(state_->workers.size()) < threads_) {
      State* state = state_.get();
      state_->workers.emplace_back([state] { Run(state); });
      state_->stats.threads = static_cast<int32_t>(state_->workers.size());
    }
  }
  state_->cv.Signal();
  return ticket;
}

void RemoteReaderPool::Shutdown() {
  std::vector<std::thread> workers;
  std::map<uint64_t, std::shared_ptr<Ticket>> queued;
  {
    MutexLock l(&state_->mu);
    state_->stopped = true;
    workers.swap(state_->workers);
    queued.swap(state_->queue);
  }
  state_->cv.SignalAll();
  // The queued reads never run: each is cancelled (its function destroyed outside the lock).
  for (auto& [sequence, ticket] : queued) {
    int expected = Ticket::kQueued;
    if (!ticket->phase_.compare_exchange_strong(expected, Ticket::kCancelled)) continue;
    std::function<void()> dropped;
    {
      MutexLock l(&state_->mu);
      ++state_->stats.cancelled;
      dropped = std::move(ticket->read_);
    }
  }
  for (std::thread& t : workers) t.join();
}

RemoteReaderPool::Stats RemoteReaderPool::stats() const {
  MutexLock l(&state_->mu);
  Stats s = state_->stats;
  s.pending = static_cast<int64_t>(state_->queue.size());
  return s;
}

void RemoteReaderPool::Run(State* state) {
  while (true) {
    std::shared_ptr<Ticket> ticket;
    {
      MutexLock l(&state->mu);
      while (!state->stopped && state->queue.empty()) state->cv.Wait(&state->mu);
      if (state->stopped) return;
      auto first = state->queue.begin();
      ticket = std::move(first->second);
      state->queue.erase(first);
      int expected = Ticket::kQueued;
      if (!ticket->phase_.compare_exchange_strong(expected, Ticket::kRunning)) continue;
      ++state->stats.running;
    }
    ticket->read_();
    ticket->read_ = nullptr;  // what the read held (its result, its waiter) goes now
    ticket->phase_.store(Ticket::kDone);
    MutexLock l(&state->mu);
    --state->stats.running;
    ++state->stats.completed;
  }
}

}  // namespace seglog
