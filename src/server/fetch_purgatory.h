// FetchPurgatory: where a Fetch waits (Kafka's DelayedFetch) when it found fewer than
// min_bytes and may wait up to max_wait_ms. Appends wake the fetches that watch the appended
// partitions; a fetch whose wait has passed is answered with what there is. A fetch waiting
// for its remote read (Kafka's DelayedRemoteFetch, delayed_remote_fetch.h) watches no
// partition: the read's completion wakes it by its key (Wake).
//
// Indexes, as Kafka's purgatory keeps watcher lists per key: the fetches watching each
// partition, the deadlines in order, the fetch of each connection. An append costs the
// watchers of its partitions (not every parked fetch), a deadline costs O(log n).
//
// One thread runs every attempt to complete a parked fetch, so neither the producing nor the
// network threads do that work. An attempt returns true once it has answered.
//
// Lifecycle: constructed by the Broker, Shutdown() answers every parked fetch (their waits
// end) and joins the thread.
// Thread safety: thread-safe.
#ifndef SEGLOG_SERVER_FETCH_PURGATORY_H_
#define SEGLOG_SERVER_FETCH_PURGATORY_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "seglog/topic_partition.h"

namespace seglog {

class FetchPurgatory {
 public:
  // `deadline_passed`: answer with what there is. Returns whether it answered.
  using Attempt = std::function<bool(bool deadline_passed)>;

  FetchPurgatory();
  ~FetchPurgatory();
  FetchPurgatory(const FetchPurgatory&) = delete;
  FetchPurgatory& operator=(const FetchPurgatory&) = delete;

  // A counter of appends: read it before a fetch reads the logs and pass it to Park, so an
  // append in between wakes the fetch at once.
  uint64_t append_sequence() const;
  // Parks `attempt` until an append to one of `watched`, Wake(key) or `wait_ms` from now.
  // Returns its key (>= 1), or 0 when the purgatory is shut down: then `attempt` has answered
  // already, with its deadline passed.
  uint64_t Park(uint64_t connection_id, std::vector<TopicPartition> watched, int64_t wait_ms,
                uint64_t sequence_seen, Attempt attempt);
  // Partitions that grew.
  void Notify(const std::vector<TopicPartition>& appended);
  // Attempts the fetch parked under `key` at once, if it still is.
  void Wake(uint64_t key);
  // The connection closed: its parked fetch is dropped unanswered.
  void DropConnection(uint64_t connection_id);
  // Answers every parked fetch with what there is and stops the thread.
  void Shutdown();
  size_t parked() const;

 private:
  struct Parked {
    uint64_t connection_id;
    std::vector<TopicPartition> watched;
    std::chrono::steady_clock::time_point deadline;
    bool woken;
    Attempt attempt;
    std::multimap<std::chrono::steady_clock::time_point, uint64_t>::iterator deadline_entry;
  };
  struct PartitionHash {
    size_t operator()(const TopicPartition& tp) const {
      return std::hash<std::string>()(tp.topic) * 31 + std::hash<int32_t>()(tp.partition);
    }
  };
  void Run();
  // Indexes `p` under `key` (mu_ held).
  void Insert(uint64_t key, Parked p);
  // Takes `key` out of every index (mu_ held).
  Parked Extract(uint64_t key);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // All guarded by mu_.
  std::unordered_map<uint64_t, Parked> parked_;
  std::unordered_map<TopicPartition, std::unordered_set<uint64_t>, PartitionHash> watchers_;
  std::multimap<std::chrono::steady_clock::time_point, uint64_t> deadlines_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> by_connection_;
  std::vector<uint64_t> woken_;  // keys to attempt at once
  uint64_t next_key_ = 1;
  uint64_t sequence_ = 0;
  uint64_t wakes_ = 0;  // Wake calls
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_FETCH_PURGATORY_H_
