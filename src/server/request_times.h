// RequestTimes: how long one request spent in each phase of its way through the socket
// server, as Kafka's RequestChannel measures them for its RequestMetrics histograms
// (RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseQueueTimeMs, ResponseSendTimeMs,
// TotalTimeMs), from a monotonic clock:
//
//   read complete --queue--> handler takes it --local--> handler done (or answered)
//     --remote (parked, e.g. a fetch's max.wait.ms)--> answered --response queue--> the
//     network thread takes the answer --send--> its last byte written
//
// Total is the sum of the phases. A request answered with no response (acks=0) ends when the
// network thread takes its answer. A request whose connection closes first is not reported.
//
// RequestStamps carries the stamps taken on other threads than the connection's.
// Thread safety: RequestTimes is a value; RequestStamps' fields are atomics, each set once
// (the first stamp wins), from any thread.
#ifndef SEGLOG_SERVER_REQUEST_TIMES_H_
#define SEGLOG_SERVER_REQUEST_TIMES_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace seglog {

struct RequestTimes {
  int16_t api_key = 0;
  int16_t version = 0;
  int64_t request_queue_ns = 0;
  int64_t local_ns = 0;
  int64_t remote_ns = 0;
  int64_t response_queue_ns = 0;
  int64_t response_send_ns = 0;
  int64_t total_ns = 0;
};

// Called on a network thread as each request's response is written.
// REQUIRES: returns promptly; thread-safe (network threads call it concurrently).
using RequestObserver = std::function<void(const RequestTimes&)>;

inline int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct RequestStamps {
  std::atomic<int64_t> dequeued_ns{-1};    // a handler thread took it
  std::atomic<int64_t> local_done_ns{-1};  // the handler returned, or answered before that
  std::atomic<int64_t> answered_ns{-1};    // the Responder was answered

  static void Stamp(std::atomic<int64_t>* field, int64_t now) {
    int64_t unset = -1;
    field->compare_exchange_strong(unset, now, std::memory_order_relaxed);
  }
  // The phases from `received_ns` (read complete), `taken_ns` (the network thread took the
  // answer) and `end_ns` (written); a stamp never taken counts as the next one taken.
  RequestTimes Times(int64_t received_ns, int64_t taken_ns, int64_t end_ns) const {
    const int64_t answered = answered_ns.load(std::memory_order_relaxed) >= 0
                                 ? answered_ns.load(std::memory_order_relaxed)
                                 : taken_ns;
    int64_t dequeued = dequeued_ns.load(std::memory_order_relaxed);
    if (dequeued < 0 || dequeued > answered) dequeued = std::min(answered, taken_ns);
    int64_t local_done = local_done_ns.load(std::memory_order_relaxed);
    if (local_done < 0 || local_done > answered) local_done = answered;
    RequestTimes t;
    t.request_queue_ns = std::max<int64_t>(0, dequeued - received_ns);
    t.local_ns = std::max<int64_t>(0, local_done - std::max(dequeued, received_ns));
    t.remote_ns = std::max<int64_t>(0, answered - local_done);
    t.response_queue_ns = std::max<int64_t>(0, taken_ns - answered);
    t.response_send_ns = std::max<int64_t>(0, end_ns - taken_ns);
    t.total_ns = std::max<int64_t>(0, end_ns - received_ns);
    return t;
  }
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_REQUEST_TIMES_H_
