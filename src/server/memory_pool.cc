// RequestMemoryPool; see memory_pool.h.
#include "server/memory_pool.h"

namespace seglog {

bool RequestMemoryPool::TryAllocate(int64_t bytes) {
  int64_t have = available_.load(std::memory_order_relaxed);
  while (true) {
    if (have <= 0) {
      mutes_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    if (available_.compare_exchange_weak(have, have - bytes, std::memory_order_relaxed)) {
      NoteLow(have - bytes);
      return true;
    }
  }
}

void RequestMemoryPool::Release(int64_t bytes) {
  if (bytes <= 0) return;
  const int64_t before = available_.fetch_add(bytes, std::memory_order_relaxed);
  if (before > 0 || before + bytes <= 0) return;
  std::vector<std::function<void()>> listeners;
  {
    MutexLock lock(&mu_);
    listeners = listeners_;
  }
  for (const auto& l : listeners) l();
}

void RequestMemoryPool::AddListener(std::function<void()> on_available) {
  MutexLock lock(&mu_);
  listeners_.push_back(std::move(on_available));
}

}  // namespace seglog
