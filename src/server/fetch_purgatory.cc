// FetchPurgatory: see fetch_purgatory.h.
#include "server/fetch_purgatory.h"

#include <algorithm>

namespace seglog {

FetchPurgatory::FetchPurgatory() : thread_([this] { Run(); }) {}

FetchPurgatory::~FetchPurgatory() { Shutdown(); }

uint64_t FetchPurgatory::append_sequence() const {
  std::lock_guard<std::mutex> l(mu_);
  return sequence_;
}

size_t FetchPurgatory::parked() const {
  std::lock_guard<std::mutex> l(mu_);
  return parked_.size();
}

void FetchPurgatory::Park(uint64_t connection_id, std::vector<TopicPartition> watched,
                          int64_t wait_ms, uint64_t sequence_seen, Attempt attempt) {
  std::unique_lock<std::mutex> l(mu_);
  if (stop_) {
    l.unlock();
    attempt(/*deadline_passed=*/true);
    return;
  }
  parked_.push_back(Parked{connection_id, std::move(watched),
                           std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms),
                           sequence_seen != sequence_, std::move(attempt)});
  cv_.notify_one();
}

void FetchPurgatory::Notify(const std::vector<TopicPartition>& appended) {
  if (appended.empty()) return;
  std::lock_guard<std::mutex> l(mu_);
  ++sequence_;
  bool any = false;
  for (Parked& p : parked_) {
    if (p.woken) continue;
    for (const TopicPartition& tp : appended) {
      if (std::find(p.watched.begin(), p.watched.end(), tp) != p.watched.end()) {
        p.woken = true;
        any = true;
        break;
      }
    }
  }
  if (any) cv_.notify_one();
}

void FetchPurgatory::DropConnection(uint64_t connection_id) {
  std::list<Parked> dropped;  // destroyed outside the lock: a Responder closes on destruction
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = parked_.begin(); it != parked_.end();) {
      auto next = std::next(it);
      if (it->connection_id == connection_id) dropped.splice(dropped.end(), parked_, it);
      it = next;
    }
  }
}

void FetchPurgatory::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void FetchPurgatory::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    std::list<Parked> ready;
    for (auto it = parked_.begin(); it != parked_.end();) {
      auto next = std::next(it);
      if (stop_ || it->woken || it->deadline <= now) ready.splice(ready.end(), parked_, it);
      it = next;
    }
    if (ready.empty()) {
      if (stop_) return;
      if (parked_.empty()) {
        cv_.wait(l);
      } else {
        auto earliest =
            std::min_element(parked_.begin(), parked_.end(), [](const Parked& a, const Parked& b) {
              return a.deadline < b.deadline;
            })->deadline;
        cv_.wait_until(l, earliest);
      }
      continue;
    }
    const bool stopping = stop_;
    const uint64_t sequence_before = sequence_;
    l.unlock();
    // Attempts run without the lock: they read logs and answer responders.
    std::list<Parked> again;
    for (auto it = ready.begin(); it != ready.end();) {
      auto next = std::next(it);
      const bool passed = stopping || it->deadline <= std::chrono::steady_clock::now();
      if (!it->attempt(passed)) {
        it->woken = false;
        again.splice(again.end(), ready, it);
      }
      it = next;
    }
    ready.clear();
    l.lock();
    // An append while the attempts ran could not mark them: try those again at once.
    if (sequence_ != sequence_before) {
      for (Parked& p : again) p.woken = true;
    }
    parked_.splice(parked_.end(), again);
  }
}

}  // namespace seglog
