// RequestQueue; see request_queue.h.
#include "server/request_queue.h"

namespace seglog {

bool RequestQueue::Push(QueuedRequest request) {
  std::optional<QueuedRequest> dropped;  // destroyed after the lock is released
  {
    MutexLock lock(&mu_);
    if (closed_) {
      dropped = std::move(request);
      return false;
    }
    if (queue_.size() < capacity_) {
      queue_.push_back(std::move(request));
      not_empty_.Signal();
      return true;
    }
    overflow_.push_back(std::move(request));
  }
  return false;
}

std::optional<QueuedRequest> RequestQueue::Pop() {
  MutexLock lock(&mu_);
  while (queue_.empty() && !closed_) not_empty_.Wait(&mu_);
  if (closed_) return std::nullopt;
  QueuedRequest r = std::move(queue_.front());
  queue_.pop_front();
  // Invariant: overflow_ is empty unless queue_ is full, so the line moves up one.
  if (!overflow_.empty()) {
    queue_.push_back(std::move(overflow_.front()));
    overflow_.pop_front();
  }
  return r;
}

void RequestQueue::Close() {
  std::deque<QueuedRequest> dropped_queue;
  std::deque<QueuedRequest> dropped_overflow;
  {
    MutexLock lock(&mu_);
    closed_ = true;
    dropped_queue.swap(queue_);
    dropped_overflow.swap(overflow_);
    not_empty_.SignalAll();
  }
  // Their Responders are destroyed here, outside the lock: each closes its connection.
}

size_t RequestQueue::queued() const {
  MutexLock lock(&mu_);
  return queue_.size();
}

size_t RequestQueue::waiting() const {
  MutexLock lock(&mu_);
  return overflow_.size();
}

}  // namespace seglog
