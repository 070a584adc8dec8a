// Internal to the socket server: what every network thread and connection shares (the
// options, the handler, the request queue, the log, the connection count), and the Mailbox
// through which answers from any thread reach a network thread.
//
// Thread safety: ServerState is thread-safe (immutable fields, atomics, and `mu`). A Mailbox
// is thread-safe.
#ifndef SEGLOG_SERVER_SERVER_STATE_H_
#define SEGLOG_SERVER_SERVER_STATE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include "server/asio.h"

#include "base/mutex.h"
#include "server/connection_quotas.h"
#include "server/memory_pool.h"
#include "server/request_queue.h"
#include "server/socket_server.h"
#include "server/ssl_principal_mapper.h"
#include "server/tls_context.h"

namespace seglog {

class Connection;

// One listener as its connections see it: its name and security protocol, the TLS context
// source and principal mapping (SSL, SASL_SSL), and the SASL settings (SASL_*). Built when
// the listener is bound; immutable afterwards (the TLS source is thread-safe).
struct ListenerRuntime {
  std::string name;
  std::string protocol = "PLAINTEXT";
  std::unique_ptr<TlsContextSource> tls;
  std::optional<SslPrincipalMapper> principal_mapper;
  std::optional<SaslListenerConfig> sasl;
};

struct ServerState {
  ServerState(SocketServerOptions o, RequestHandler* h, ConnectionLimits limits)
      : options(std::move(o)),
        handler(h),
        queue(options.queued_max_requests),
        pool(PoolCapacity(options)),
        connection_quotas(std::move(limits)),
        logger(options.logger.WithPrefix("[SocketServer listenerType=BROKER, nodeId=" +
                                         std::to_string(options.node_id) + "] ")) {}

  // queued.max.request.bytes, or seglog's bound when it is -1 (memory_pool.h).
  static int64_t PoolCapacity(const SocketServerOptions& o) {
    if (o.queued_max_request_bytes > 0) return o.queued_max_request_bytes;
    return std::max<int64_t>(RequestMemoryPool::kDefaultQueuedMaxRequestBytes,
                             o.socket_request_max_bytes);
  }

  void Info(const std::string& line) const { logger.Info(line); }
  void Warn(const std::string& line) const { logger.Warn(line); }
  void Debug(const std::string& line) const {
    if (options.log_debug) logger.Debug(line);
  }

  // A connection of `listener` from `address` was closed: counts it, lets the acceptor take
  // another, and wakes a Shutdown waiting for the last one.
  void ConnectionClosed(const std::string& listener, const std::string& address) EXCLUDES(mu) {
    connection_quotas.Dec(listener, address);
    if (on_connection_closed) on_connection_closed();
    MutexLock lock(&mu);
    open_connections.fetch_sub(1, std::memory_order_relaxed);
    all_closed.SignalAll();
  }

  const SocketServerOptions options;
  RequestHandler* const handler;
  RequestQueue queue;
  RequestMemoryPool pool;  // queued.max.request.bytes
  ConnectionQuotas connection_quotas;
  // Set before any thread starts: the acceptor resumes a listener that waited for a slot.
  std::function<void()> on_connection_closed;
  const Logger logger;  // options.logger with the server's prefix
  std::atomic<uint64_t> next_connection_id{1};
  std::atomic<int64_t> accepted{0};
  std::atomic<int64_t> rejected{0};
  std::atomic<int64_t> throttled{0};  // connections held back by a creation rate
  // Changed under `mu` when decremented (so Shutdown's wait sees it); read anywhere.
  std::atomic<int64_t> open_connections{0};
  // Request handler threads' time waiting for a request, summed over finished waits (ns),
  // and when each thread's current wait began (-1: handling a request).
  std::atomic<int64_t> handler_idle_ns{0};
  std::unique_ptr<std::atomic<int64_t>[]> handler_waiting_since {
    std::make_unique<std::atomic<int64_t>[]>(
        static_cast<size_t>(std::max(0, options.num_io_threads)))
  };
  // All handler threads' waiting time up to `now`, the current waits included.
  int64_t HandlerIdleNs(int64_t now) const {
    int64_t ns = handler_idle_ns.load(std::memory_order_relaxed);
    for (int i = 0; i < options.num_io_threads; ++i) {
      const int64_t since = handler_waiting_since[i].load(std::memory_order_relaxed);
      if (since > 0 && now > since) ns += now - since;  // 0: not started, -1: busy
    }
    return ns;
  }

  // A connection of `listener` opened (+1) or closed (-1) on network thread `processor`.
  void CountListenerConnection(const std::string& listener, int processor, int delta)
      EXCLUDES(counts_mu) {
    MutexLock lock(&counts_mu);
    by_listener[{listener, processor}] += delta;
  }
  std::map<std::pair<std::string, int>, int64_t> ListenerConnectionCounts() const
      EXCLUDES(counts_mu) {
    MutexLock lock(&counts_mu);
    return by_listener;
  }

  mutable Mutex counts_mu;
  std::map<std::pair<std::string, int>, int64_t> by_listener GUARDED_BY(counts_mu);
  Mutex mu;
  CondVar all_closed{&mu};
};

// Posts work to one network thread's io_context for as long as the thread exists; after
// Close(), posts are dropped (an answer that arrives after the server shut down goes nowhere).
class Mailbox {
 public:
  explicit Mailbox(asio::io_context* io) : io_(io) {}

  // Runs `fn` on the network thread, unless closed. `fn` may be move-only.
  template <typename Fn>
  void Post(Fn&& fn) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (io_ != nullptr) asio::post(*io_, std::forward<Fn>(fn));
  }
  void Close() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    io_ = nullptr;
  }

 private:
  Mutex mu_;
  asio::io_context* io_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_SERVER_STATE_H_
