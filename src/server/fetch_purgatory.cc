// FetchPurgatory: see fetch_purgatory.h.
#include "server/fetch_purgatory.h"

#include <utility>

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

void FetchPurgatory::Insert(uint64_t key, Parked p) {
  p.deadline_entry = deadlines_.emplace(p.deadline, key);
  for (const TopicPartition& tp : p.watched) watchers_[tp].insert(key);
  by_connection_[p.connection_id].push_back(key);
  if (p.woken) woken_.push_back(key);
  parked_.emplace(key, std::move(p));
}

FetchPurgatory::Parked FetchPurgatory::Extract(uint64_t key) {
  auto it = parked_.find(key);
  Parked p = std::move(it->second);
  parked_.erase(it);
  deadlines_.erase(p.deadline_entry);
  for (const TopicPartition& tp : p.watched) {
    auto w = watchers_.find(tp);
    if (w == watchers_.end()) continue;
    w->second.erase(key);
    if (w->second.empty()) watchers_.erase(w);
  }
  auto c = by_connection_.find(p.connection_id);
  if (c != by_connection_.end()) {
    std::erase(c->second, key);
    if (c->second.empty()) by_connection_.erase(c);
  }
  return p;
}

uint64_t FetchPurgatory::Park(uint64_t connection_id, std::vector<TopicPartition> watched,
                              int64_t wait_ms, uint64_t sequence_seen, Attempt attempt) {
  std::unique_lock<std::mutex> l(mu_);
  if (stop_) {
    l.unlock();
    attempt(/*deadline_passed=*/true);
    return 0;
  }
  // A day at most: the steady clock's time points must not overflow (max_wait_ms is an int32).
  const auto wait = std::chrono::milliseconds(std::min<int64_t>(wait_ms, 86400000));
  const uint64_t key = next_key_++;
  Insert(key, Parked{connection_id,
                     std::move(watched),
                     std::chrono::steady_clock::now() + wait,
                     sequence_seen != sequence_,
                     std::move(attempt),
                     {}});
  cv_.notify_one();
  return key;
}

void FetchPurgatory::Wake(uint64_t key) {
  std::lock_guard<std::mutex> l(mu_);
  ++wakes_;  // one whose attempt is running now is tried again (Run)
  auto it = parked_.find(key);
  if (it == parked_.end() || it->second.woken) return;
  it->second.woken = true;
  woken_.push_back(key);
  cv_.notify_one();
}

void FetchPurgatory::Notify(const std::vector<TopicPartition>& appended) {
  if (appended.empty()) return;
  std::lock_guard<std::mutex> l(mu_);
  ++sequence_;
  bool any = false;
  for (const TopicPartition& tp : appended) {
    auto w = watchers_.find(tp);
    if (w == watchers_.end()) continue;
    for (uint64_t key : w->second) {
      Parked& p = parked_.at(key);
      if (p.woken) continue;
      p.woken = true;
      woken_.push_back(key);
      any = true;
    }
  }
  if (any) cv_.notify_one();
}

void FetchPurgatory::DropConnection(uint64_t connection_id) {
  std::vector<Parked> dropped;  // destroyed outside the lock: a Responder closes on destruction
  {
    std::lock_guard<std::mutex> l(mu_);
    auto c = by_connection_.find(connection_id);
    if (c == by_connection_.end()) return;
    const std::vector<uint64_t> keys = c->second;
    for (uint64_t key : keys) dropped.push_back(Extract(key));
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
    std::vector<uint64_t> keys;
    if (stop_) {
      for (const auto& [key, p] : parked_) keys.push_back(key);
    } else {
      for (uint64_t key : woken_) {
        if (parked_.count(key)) keys.push_back(key);
      }
      for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first <= now; ++it) {
        if (!parked_.at(it->second).woken) keys.push_back(it->second);
      }
    }
    woken_.clear();
    if (keys.empty()) {
      if (stop_) return;
      if (deadlines_.empty()) {
        cv_.wait(l);
      } else {
        // A copy: the map's node may be erased (a connection dropped) while this waits, and
        // wait_until reads the time again when it wakes.
        const auto next = deadlines_.begin()->first;
        cv_.wait_until(l, next);
      }
      continue;
    }
    std::vector<std::pair<uint64_t, Parked>> ready;
    ready.reserve(keys.size());
    for (uint64_t key : keys) ready.emplace_back(key, Extract(key));
    const bool stopping = stop_;
    const uint64_t sequence_before = sequence_;
    const uint64_t wakes_before = wakes_;
    l.unlock();
    // Attempts run without the lock: they read logs and answer responders.
    std::vector<std::pair<uint64_t, Parked>> again;
    for (auto& [key, p] : ready) {
      const bool passed = stopping || p.deadline <= std::chrono::steady_clock::now();
      if (!p.attempt(passed)) again.emplace_back(key, std::move(p));
    }
    ready.clear();
    l.lock();
    // An append (or a Wake) while the attempts ran could not mark them: try those again at
    // once.
    const bool appended_meanwhile = sequence_ != sequence_before || wakes_ != wakes_before;
    for (auto& [key, p] : again) {
      p.woken = appended_meanwhile;
      Insert(key, std::move(p));
    }
  }
}

}  // namespace seglog
