// SocketServer: Kafka's SocketServer for seglog - the listeners' acceptor, the network
// threads ("processors") that own connections, read request frames and write responses, and
// the request handler threads that call the broker's RequestHandler.
//
//   acceptor thread    network threads (num.network.threads)     handler threads (num.io.threads)
//   accept, count  ->  read size + frame, mute, queue it  ->  RequestQueue  ->  Handle()
//                      write response (bytes, sendfile), unmute  <-  Responder (any thread)
//
// A request the handler takes inline (RequestHandler::HandlesInline) is handled by the network
// thread that read it, and an answer given during Handle is written without a hand-over.
//
// Framing: each request is a 4-byte big-endian size and that many bytes; a size below 0 or
// above socket.request.max.bytes closes the connection (logged in Kafka's words). Each
// response is written as its 4-byte size and its bytes.
//
// Ordering: a connection has one request in a handler at a time; the next is handed over only
// after the previous response was written (or answered with no response), as Kafka mutes a
// channel until its response is sent. The network thread reads ahead of that (bounded), so a
// pipelining client is never stalled by the round trip, and responses go out in request order.
//
// Lifecycle: Start() binds every listener and starts the threads; Shutdown() (or the
// destructor) stops accepting, lets the requests already in handlers finish and their responses
// be written (up to shutdown_timeout_ms), closes every connection and joins the threads.
//
// Thread safety: thread-safe. port() and stats() may be called from any thread at any time;
// Shutdown() from any thread except the server's own.
#ifndef SEGLOG_SERVER_SOCKET_SERVER_H_
#define SEGLOG_SERVER_SOCKET_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/status.h"
#include "server/listener_config.h"
#include "server/listener_security.h"
#include "server/request_handler.h"
#include "server/request_times.h"

namespace seglog {

struct SocketServerOptions {
  // Where to accept connections; an empty host is the wildcard address, port 0 any free port.
  std::vector<ListenerEndpoint> listeners = {{"PLAINTEXT", "", 9092}};  // listeners
  int32_t node_id = 1;                           // node.id, in the log lines' prefix
  int32_t num_network_threads = 3;               // num.network.threads, >= 1
  int32_t num_io_threads = 8;                    // num.io.threads, >= 1
  int32_t queued_max_requests = 500;             // queued.max.requests, >= 1
  int32_t socket_request_max_bytes = 104857600;  // socket.request.max.bytes, >= 1
  int32_t socket_send_buffer_bytes = 102400;     // socket.send.buffer.bytes; -1: OS default
  int32_t socket_receive_buffer_bytes = 102400;  // socket.receive.buffer.bytes; -1: OS default
  int32_t socket_listen_backlog_size = 50;       // socket.listen.backlog.size, >= 1
  // max.connections, listener.name.<l>.max.connections: past either, the listener accepts
  // nothing more until a connection closes (new ones wait in the kernel's backlog).
  int32_t max_connections = INT32_MAX;
  std::map<std::string, int32_t> listener_max_connections;
  // max.connections.per.ip and max.connections.per.ip.overrides ("host:count,..."): a
  // connection from an address at its maximum is closed at once. 0 only with overrides.
  int32_t max_connections_per_ip = INT32_MAX;
  std::string max_connections_per_ip_overrides;
  // max.connection.creation.rate, listener.name.<l>.max.connection.creation.rate: new
  // connections per second; one past the rate waits for the throttle time before it is read.
  int32_t max_connection_creation_rate = INT32_MAX;
  std::map<std::string, int32_t> listener_max_connection_creation_rate;
  // queued.max.request.bytes: request bytes in flight, broker-wide, before connections are
  // muted (memory_pool.h). -1 (Kafka's default: no bound): seglog's default bound.
  int64_t queued_max_request_bytes = -1;
  // quota.window.num, quota.window.size.seconds: the windows of every rate quota.
  int32_t quota_window_num = 11;
  int32_t quota_window_size_seconds = 1;
  // connections.max.idle.ms: a connection with no bytes read or written for this long is
  // closed, whatever it has in progress (a client that stops reading its responses too).
  // Negative: never.
  int64_t connections_max_idle_ms = 600000;
  // How long Shutdown() waits for requests in progress to be answered and written.
  int64_t shutdown_timeout_ms = 30000;
  // Each listener's TLS and SASL settings, by listener name (ParseListenerSecurity); a
  // listener not named here is PLAINTEXT.
  std::map<std::string, ListenerSecurity> security;
  // connection.failed.authentication.delay.ms: how long a failed authentication's answer
  // waits before it is sent and the connection closed.
  int64_t failed_authentication_delay_ms = 100;
  // SCRAM credentials for SASL listeners: the user's credential for the mechanism (the
  // metadata log's), nullopt if none. Called on network threads; must be thread-safe.
  std::function<std::optional<ScramCredential>(const std::string& user, ScramMechanism m)>
      scram_credentials;
  // The connection_creation_rate quota of a client address (an ip entity's, or the default
  // ip entity's; nullopt: none). Called by the acceptor thread; must be thread-safe. Null: no
  // ip quotas.
  std::function<std::optional<double>(const std::string& address)> ip_connection_rate;
  // Receives each answered request's phase times (request_times.h). Null: none are taken.
  RequestObserver request_observer;
  // Receives the server's log lines, in Kafka's words, with their levels. Called from the
  // server's threads; must be thread-safe. Default: no logging.
  Logger logger;
  // Also log what Kafka logs at DEBUG (disconnects, idle closes).
  bool log_debug = false;

  // Sets `key` when it is one of the server.properties settings above (num.network.threads,
  // socket.request.max.bytes ...; not the listeners, which ParseListenerConfigs reads): the
  // outcome of parsing `value`, in Kafka's words. nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
};

class SocketServer {
 public:
  struct Stats {
    int64_t open_connections = 0;  // accepted and not yet closed
    int64_t accepted = 0;          // ever accepted (rejected ones included)
    int64_t rejected = 0;          // closed at accept: max.connections.per.ip reached
    int64_t throttled = 0;         // held back by a connection creation rate
    int64_t memory_mutes = 0;      // times a connection was muted for want of request memory
    int64_t request_memory_available = 0;  // bytes left in the request memory pool
    int64_t request_memory_low_water = 0;  // the least it has been (below 0: overdrawn)
    size_t queued_requests = 0;            // in the RequestQueue
    size_t waiting_requests = 0;           // waiting for room in it
    // Open connections by listener and network thread (Kafka's socket-server-metrics
    // connection-count{listener,networkProcessor}); only pairs that had a connection.
    struct ListenerConnections {
      std::string listener;
      int network_processor = 0;
      int64_t count = 0;
    };
    std::vector<ListenerConnections> connections_by_listener;
    // Since the server started: nanoseconds the request handler threads spent waiting for a
    // request (summed over the threads), and the network threads' CPU time (summed).
    int64_t handler_idle_ns = 0;
    int64_t network_cpu_ns = 0;
    int num_io_threads = 0;
    int num_network_threads = 0;
    int64_t started_ns = 0;  // MonotonicNs() when the threads started
  };

  // Binds every listener and starts the threads. `handler` must outlive the server.
  // InvalidArgument for bad options; IOError naming the address when a bind fails.
  static Result<std::unique_ptr<SocketServer>> Start(SocketServerOptions options,
                                                     RequestHandler* handler);
  ~SocketServer();  // Shutdown()
  SocketServer(const SocketServer&) = delete;
  SocketServer& operator=(const SocketServer&) = delete;

  // The bound port of the first listener, or of the listener named `listener` (-1: none).
  int port() const;
  int port(std::string_view listener) const;

  // Idempotent; returns when every thread has been joined.
  void Shutdown();

  Stats stats() const;

 private:
  class Impl;
  explicit SocketServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Blocks the calling thread until the process receives SIGINT or SIGTERM (asio::signal_set;
// the signals are handled only while it waits) and returns the signal's number, or an
// IOError if the signals cannot be watched. A broker's main: start the SocketServer, call
// this, then Shutdown().
Result<int> WaitForTerminationSignal();

}  // namespace seglog

#endif  // SEGLOG_SERVER_SOCKET_SERVER_H_
