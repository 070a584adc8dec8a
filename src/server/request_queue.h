// RequestQueue: the requests read by the network threads, waiting for a request handler
// thread (Kafka's RequestChannel). Bounded by queued.max.requests: when it holds that many,
// further requests wait in arrival order in an overflow line and move into the queue as
// handler threads take requests out. A connection has at most one request queued or in a
// handler (it is muted until that request is answered and its response written), so what
// waits in the line is bounded by the open connections, and each waiting connection stops
// reading once its read-ahead is full: the backpressure Kafka gets by blocking its network
// thread on a full queue, without stalling the network thread's other connections.
//
// Thread safety: thread-safe.
#ifndef SEGLOG_SERVER_REQUEST_QUEUE_H_
#define SEGLOG_SERVER_REQUEST_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "base/mutex.h"
#include "server/request_handler.h"
#include "server/request_times.h"

namespace seglog {

struct QueuedRequest {
  RequestContext context;
  std::vector<uint8_t> frame;
  Responder responder;
  // Its phase times, when the server takes them (request_times.h); null otherwise.
  std::shared_ptr<RequestStamps> stamps;
};

class RequestQueue {
 public:
  // REQUIRES: capacity >= 1.
  explicit RequestQueue(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {}
  RequestQueue(const RequestQueue&) = delete;
  RequestQueue& operator=(const RequestQueue&) = delete;

  // Adds a request: true when it went into the queue, false when it waits in the overflow
  // line (the queue is full) or the queue is closed (the request is dropped, its Responder
  // destroyed, which closes its connection).
  bool Push(QueuedRequest request) EXCLUDES(mu_);
  // Blocks until a request is there, or the queue is closed (nullopt).
  std::optional<QueuedRequest> Pop() EXCLUDES(mu_);
  // Wakes every Pop with nullopt and drops the requests still queued or waiting. Idempotent.
  void Close() EXCLUDES(mu_);

  size_t queued() const EXCLUDES(mu_);
  size_t waiting() const EXCLUDES(mu_);

 private:
  const size_t capacity_;
  mutable Mutex mu_;
  CondVar not_empty_{&mu_};
  std::deque<QueuedRequest> queue_ GUARDED_BY(mu_);     // at most capacity_
  std::deque<QueuedRequest> overflow_ GUARDED_BY(mu_);  // non-empty only when queue_ is full
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_REQUEST_QUEUE_H_
