// RequestMemoryPool: the broker-wide bound on request bytes in flight (Kafka's
// SimpleMemoryPool behind queued.max.request.bytes), and MemoryCharge, one request's share.
//
// A connection asks the pool for a frame's bytes once it has read the frame's size, before it
// reads the frame. While the pool is exhausted the connection is muted (it reads nothing more;
// the client's writes block on the full socket), never dropped, and it is woken when requests
// in flight release their bytes. As Kafka's non-strict pool, a request is granted whenever any
// bytes are left, so one request larger than what is left still proceeds (a request can be as
// large as socket.request.max.bytes) and the pool goes below zero until it is released.
//
// A request's charge lives as long as anything of the request does: its frame, its decoded form
// (charged as the broker decodes it, ProtocolReader's allocation count), a parked fetch waiting
// on it, and its response until written. So bytes held by slow work keep new frames out.
//
// seglog departs from Kafka's default: Kafka's queued.max.request.bytes of -1 means no bound;
// seglog then bounds request bytes by kDefaultQueuedMaxRequestBytes (or
// socket.request.max.bytes, if larger), so that no client can exhaust memory with defaults.
//
// Thread safety: thread-safe (atomics, and a mutex for the listeners). MemoryCharge's Add may
// be called from any thread; it is released once, when its last shared owner lets it go.
#ifndef SEGLOG_SERVER_MEMORY_POOL_H_
#define SEGLOG_SERVER_MEMORY_POOL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/mutex.h"

namespace seglog {

class RequestMemoryPool {
 public:
  // The bound seglog applies when queued.max.request.bytes is -1 (Kafka: unbounded).
  static constexpr int64_t kDefaultQueuedMaxRequestBytes = 256LL << 20;

  // `capacity` > 0 bytes.
  explicit RequestMemoryPool(int64_t capacity)
      : capacity_(capacity), available_(capacity), low_water_(capacity) {}
  RequestMemoryPool(const RequestMemoryPool&) = delete;
  RequestMemoryPool& operator=(const RequestMemoryPool&) = delete;

  // Takes `bytes` if any are available (possibly overdrawing); false when exhausted.
  bool TryAllocate(int64_t bytes);
  // Takes `bytes` whatever is left (decoded state of a request already admitted).
  void ForceAllocate(int64_t bytes) {
    NoteLow(available_.fetch_sub(bytes, std::memory_order_relaxed) - bytes);
  }
  // Gives `bytes` back; when that ends an exhaustion, calls every listener.
  void Release(int64_t bytes) EXCLUDES(mu_);

  // `on_available` is called (on the releasing thread, with no lock held) each time memory
  // becomes available after the pool was exhausted.
  void AddListener(std::function<void()> on_available) EXCLUDES(mu_);

  // Bytes of frames still being received (MemoryCharge's partial frames). When they alone
  // fill the pool, even every request in flight giving its bytes back leaves none for the
  // muted frames: the pool is stuck, and a network thread lets one muted frame complete
  // regardless (Connection's overdraft). Kafka avoids this by granting a frame's whole size
  // at once, which lets a client that only announces large frames mute every other.
  void AddPartial(int64_t bytes) { partial_.fetch_add(bytes, std::memory_order_relaxed); }
  int64_t partial() const { return partial_.load(std::memory_order_relaxed); }
  bool Stuck() const { return exhausted() && partial() >= capacity_; }
  // One frame at a time completes beyond a stuck pool (the relief): a network thread that finds
  // the pool stuck takes it with TryStartRelief, and it is given back with EndRelief when the
  // relieved request has given its bytes back (its MemoryCharge is gone) or its connection
  // closed first. Granting another frame on every look, or as soon as the frame was complete,
  // let memory grow by a frame per relief while requests were slow to finish.
  bool TryStartRelief() {
    bool expected = false;
    return relief_.compare_exchange_strong(expected, true, std::memory_order_acq_rel);
  }
  void EndRelief() { relief_.store(false, std::memory_order_release); }
  bool relief_in_progress() const { return relief_.load(std::memory_order_acquire); }

  int64_t capacity() const { return capacity_; }
  int64_t available() const { return available_.load(std::memory_order_relaxed); }
  bool exhausted() const { return available() <= 0; }
  // The least `available` has been (how far the pool was overdrawn at worst; tests, stats).
  int64_t low_water() const { return low_water_.load(std::memory_order_relaxed); }
  // How many times a connection was muted for want of memory.
  int64_t mutes() const { return mutes_.load(std::memory_order_relaxed); }

 private:
  const int64_t capacity_;
  std::atomic<int64_t> available_;
  std::atomic<int64_t> mutes_{0};
  std::atomic<int64_t> partial_{0};
  std::atomic<bool> relief_{false};
  std::atomic<int64_t> low_water_;
  void NoteLow(int64_t now) {
    int64_t low = low_water_.load(std::memory_order_relaxed);
    while (now < low && !low_water_.compare_exchange_weak(low, now, std::memory_order_relaxed)) {
    }
  }
  Mutex mu_;
  std::vector<std::function<void()>> listeners_ GUARDED_BY(mu_);
};

// Bytes of one request charged to a pool, released when destroyed. A frame's charge is
// partial (its frame still arriving) until MarkComplete.
class MemoryCharge {
 public:
  MemoryCharge(RequestMemoryPool* pool, int64_t bytes, bool partial = false)
      : pool_(pool), bytes_(bytes), partial_(partial) {
    if (pool_ != nullptr && partial_) pool_->AddPartial(bytes);
  }
  ~MemoryCharge() {
    if (pool_ == nullptr) return;
    const int64_t bytes = bytes_.load(std::memory_order_relaxed);
    if (partial_) pool_->AddPartial(-bytes);
    pool_->Release(bytes);
    if (relief_) pool_->EndRelief();
  }
  // This charge's request holds the pool's relief: given back when the charge is released.
  void HoldRelief() { relief_ = true; }
  // The frame is complete: its bytes now belong to a request that will finish.
  void MarkComplete() {
    if (pool_ != nullptr && partial_) pool_->AddPartial(-bytes_.load(std::memory_order_relaxed));
    partial_ = false;
  }
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;

  // Charges `bytes` more (whatever the pool has left).
  void Add(int64_t bytes) {
    if (pool_ == nullptr || bytes <= 0) return;
    pool_->ForceAllocate(bytes);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // Counts `bytes` the caller already took (TryAllocate, ForceAllocate).
  void AddAllocated(int64_t bytes) {
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
    if (pool_ != nullptr && partial_) pool_->AddPartial(bytes);
  }
  int64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  RequestMemoryPool* const pool_;
  std::atomic<int64_t> bytes_;
  bool partial_;  // touched only by the receiving connection's thread
  bool relief_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_MEMORY_POOL_H_
