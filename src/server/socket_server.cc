// SocketServer; see socket_server.h.
#include "server/socket_server.h"

#include <fmt/format.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <new>
#include <thread>
#include "server/asio.h"

#include "server/processor.h"
#include "server/server_state.h"

namespace seglog {

class SocketServer::Impl {
 public:
  Impl(SocketServerOptions options, RequestHandler* handler, ConnectionLimits limits)
      : state_(std::move(options), handler, std::move(limits)) {
    // A closed connection may free a slot a listener waits for: the acceptor looks again.
    state_.on_connection_closed = [this] {
      asio::post(accept_io_, [this] { ResumePausedListeners(); });
    };
  }
  ~Impl() { Shutdown(); }

  Status Bind();
  void StartThreads();
  void Shutdown() EXCLUDES(shutdown_mu_);

  int port(std::string_view name) const {
    for (const auto& l : listeners_) {
      if (name.empty() || l->name == name) return l->port;
    }
    return -1;
  }
  Stats stats() const {
    Stats s;
    s.open_connections = state_.open_connections.load();
    s.accepted = state_.accepted.load();
    s.rejected = state_.rejected.load();
    s.queued_requests = state_.queue.queued();
    s.waiting_requests = state_.queue.waiting();
    s.throttled = state_.throttled.load();
    s.memory_mutes = state_.pool.mutes();
    s.request_memory_available = state_.pool.available();
    s.request_memory_low_water = state_.pool.low_water();
    for (const auto& [key, count] : state_.ListenerConnectionCounts()) {
      s.connections_by_listener.push_back({key.first, key.second, count});
    }
    s.handler_idle_ns = state_.HandlerIdleNs(MonotonicNs());
    s.num_io_threads = state_.options.num_io_threads;
    s.num_network_threads = state_.options.num_network_threads;
    s.started_ns = started_ns_;
    s.network_cpu_ns = NetworkCpuNs();
    return s;
  }

 private:
  struct Listener {
    Listener(asio::io_context& io, std::string n)
        : name(std::move(n)), acceptor(io), retry(io), throttle(io) {}
    std::string name;
    ListenerRuntime runtime;
    asio::ip::tcp::acceptor acceptor;
    asio::steady_timer retry;     // after an accept error (e.g. out of descriptors)
    asio::steady_timer throttle;  // a connection past a creation rate waits on it
    int port = -1;
    // Acceptor thread only: waiting for a connection slot (max.connections).
    bool paused = false;
  };

  Status BindOne(const ListenerEndpoint& endpoint);
  // The listener's TLS context, principal mapping and SASL settings.
  Status MakeRuntime(const ListenerEndpoint& endpoint, ListenerRuntime* out);
  // Acceptor thread only.
  // Each accept names its network thread up front: the socket it yields belongs to that
  // thread's io_context, so that thread (and no other) adopts it.
  void Accept(Listener* listener);
  void OnAccept(Listener* listener, Processor* processor, const asio::error_code& ec,
                asio::ip::tcp::socket socket);
  void ResumePausedListeners();
  // Closes `socket` after `delay_ms` without serving it (an ip quota's throttle).
  void DelayClose(asio::ip::tcp::socket socket, int64_t delay_ms);
  void ArmDelayedClose();

  ServerState state_;
  asio::io_context accept_io_{1};
  // Keeps the acceptor thread running while every listener waits for a slot (no accept
  // pending): a closing connection's wake-up must find it.
  asio::executor_work_guard<asio::io_context::executor_type> accept_work_{
      asio::make_work_guard(accept_io_)};
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::unique_ptr<Processor>> processors_;
  std::vector<std::thread> io_threads_;
  std::thread accept_thread_;
  size_t next_processor_ = 0;  // acceptor thread only
  // Acceptor thread only (and Shutdown once it has stopped): connections past an ip quota,
  // by when they are closed. Declared after processors_ and accept_io_, whose io_contexts
  // the sockets and the timer belong to, so destroyed before them.
  std::multimap<std::chrono::steady_clock::time_point, asio::ip::tcp::socket> delayed_close_;
  asio::steady_timer delayed_close_timer_{accept_io_};
  std::atomic<bool> accepting_{true};
  int64_t started_ns_ = 0;  // set before Start returns
  // Held while Shutdown clears processors_ and while stats() reads their CPU time.
  mutable Mutex processors_mu_;
  int64_t NetworkCpuNs() const EXCLUDES(processors_mu_) {
    MutexLock lock(&processors_mu_);
    int64_t ns = 0;
    for (const auto& p : processors_) ns += p->CpuNs();
    return ns;
  }
  Mutex shutdown_mu_;
  bool shut_down_ GUARDED_BY(shutdown_mu_) = false;
};

Status SocketServer::Impl::Bind() {
  for (const ListenerEndpoint& e : state_.options.listeners) SEGLOG_RETURN_IF_ERROR(BindOne(e));
  return Status::OK();
}

Status SocketServer::Impl::MakeRuntime(const ListenerEndpoint& endpoint, ListenerRuntime* out) {
  out->name = endpoint.name;
  out->protocol = endpoint.security_protocol;
  auto it = state_.options.security.find(endpoint.name);
  const bool tls = out->protocol == "SSL" || out->protocol == "SASL_SSL";
  const bool sasl = out->protocol == "SASL_PLAINTEXT" || out->protocol == "SASL_SSL";
  if ((tls || sasl) && it == state_.options.security.end()) {
    return Status::InvalidArgument(fmt::format("listener {} uses {} but has no security settings",
                                               endpoint.name, out->protocol));
  }
  if (tls) {
    if (!it->second.tls.has_value()) {
      return Status::InvalidArgument(
          fmt::format("listener {} uses {} but has no ssl settings", endpoint.name, out->protocol));
    }
    auto source = TlsContextSource::Create(*it->second.tls, state_.logger);
    if (!source.ok()) {
      return Status::InvalidArgument(
          fmt::format("listener {}: {}", endpoint.name, source.status().message()));
    }
    out->tls = std::move(source).value();
    auto mapper = SslPrincipalMapper::Parse(it->second.tls->principal_mapping_rules);
    if (!mapper.ok()) {
      return Status::InvalidArgument(
          fmt::format("ssl.principal.mapping.rules: {}", mapper.status().message()));
    }
    out->principal_mapper = std::move(mapper).value();
  }
  if (sasl) {
    if (!it->second.sasl.has_value()) {
      return Status::InvalidArgument(fmt::format("listener {} uses {} but has no SASL settings",
                                                 endpoint.name, out->protocol));
    }
    out->sasl = *it->second.sasl;
    auto credentials = std::make_shared<SaslCredentials>(*out->sasl->credentials);
    credentials->scram_lookup = state_.options.scram_credentials;
    out->sasl->credentials = std::move(credentials);
  }
  return Status::OK();
}

Status SocketServer::Impl::BindOne(const ListenerEndpoint& endpoint) {
  auto fail = [&](const asio::error_code& ec) {
    return Status::IOError(fmt::format("Socket server failed to bind to {}:{}: {}.", endpoint.host,
                                       endpoint.port, ec.message()));
  };
  asio::error_code ec;
  asio::ip::tcp::endpoint bind_to;
  if (endpoint.host.empty()) {
    // Kafka binds the wildcard address: IPv6 and IPv4 at once where the host has IPv6.
    bind_to = asio::ip::tcp::endpoint(asio::ip::tcp::v6(), static_cast<uint16_t>(endpoint.port));
  } else {
    asio::ip::address address = asio::ip::make_address(endpoint.host, ec);
    if (ec) {
      asio::ip::tcp::resolver resolver(accept_io_);
      auto results = resolver.resolve(endpoint.host, std::to_string(endpoint.port), ec);
      if (ec || results.empty()) return fail(ec);
      address = results.begin()->endpoint().address();
    }
    bind_to = asio::ip::tcp::endpoint(address, static_cast<uint16_t>(endpoint.port));
  }
  auto listener = std::make_unique<Listener>(accept_io_, endpoint.name);
  SEGLOG_RETURN_IF_ERROR(MakeRuntime(endpoint, &listener->runtime));
  asio::ip::tcp::acceptor& a = listener->acceptor;
  a.open(bind_to.protocol(), ec);
  if (ec && endpoint.host.empty()) {  // no IPv6 here
    bind_to = asio::ip::tcp::endpoint(asio::ip::tcp::v4(), static_cast<uint16_t>(endpoint.port));
    a.open(bind_to.protocol(), ec);
  }
  if (ec) return fail(ec);
  if (bind_to.protocol() == asio::ip::tcp::v6() && endpoint.host.empty()) {
    a.set_option(asio::ip::v6_only(false), ec);
  }
  a.set_option(asio::socket_base::reuse_address(true), ec);
  if (state_.options.socket_receive_buffer_bytes != -1) {
    a.set_option(asio::socket_base::receive_buffer_size(state_.options.socket_receive_buffer_bytes),
                 ec);
  }
  a.bind(bind_to, ec);
  if (ec) return fail(ec);
  a.listen(state_.options.socket_listen_backlog_size, ec);
  if (ec) return fail(ec);
  const asio::ip::tcp::endpoint bound = a.local_endpoint(ec);
  if (ec) return fail(ec);
  listener->port = bound.port();
  state_.Info(fmt::format("Awaiting socket connections on {}:{}.",
                          endpoint.host.empty() ? "0.0.0.0" : endpoint.host, listener->port));
  listeners_.push_back(std::move(listener));
  return Status::OK();
}

void SocketServer::Impl::StartThreads() {
  // sendfile(2) to a socket the client closed raises SIGPIPE, which would end the process;
  // the JVM ignores it for Kafka, and so does a seglog server.
  std::signal(SIGPIPE, SIG_IGN);
  started_ns_ = MonotonicNs();
  for (int i = 0; i < state_.options.num_network_threads; ++i) {
    processors_.push_back(std::make_unique<Processor>(i, &state_));
    processors_.back()->Start();
  }
  for (int i = 0; i < state_.options.num_io_threads; ++i) {
    io_threads_.emplace_back([this, i] {
      pthread_setname_np(pthread_self(), ("seglog-io-" + std::to_string(i)).substr(0, 15).c_str());
      // Kafka's KafkaRequestHandler: take a request, hand it to the broker, repeat.
      std::atomic<int64_t>& waiting_since = state_.handler_waiting_since[i];
      int64_t wait_start = MonotonicNs();
      waiting_since.store(wait_start, std::memory_order_relaxed);
      while (std::optional<QueuedRequest> r = state_.queue.Pop()) {
        const int64_t taken = MonotonicNs();
        waiting_since.store(-1, std::memory_order_relaxed);
        state_.handler_idle_ns.fetch_add(taken - wait_start, std::memory_order_relaxed);
        std::shared_ptr<RequestStamps> stamps = std::move(r->stamps);
        if (stamps) RequestStamps::Stamp(&stamps->dequeued_ns, taken);
        try {
          state_.handler->Handle(r->context, std::move(r->frame), std::move(r->responder));
        } catch (const std::bad_alloc&) {
          // The request's responder, destroyed unanswered, closes its connection; the broker
          // and this thread go on.
          state_.Warn(fmt::format("Out of memory handling a request from {}; closing connection",
                                  r->context.client_address));
        }
        wait_start = MonotonicNs();
        if (stamps) RequestStamps::Stamp(&stamps->local_done_ns, wait_start);
        waiting_since.store(wait_start, std::memory_order_relaxed);
      }
      waiting_since.store(-1, std::memory_order_relaxed);
    });
  }
  for (auto& l : listeners_) Accept(l.get());
  accept_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "seglog-accept");
    accept_io_.run();
  });
}

void SocketServer::Impl::Accept(Listener* listener) {
  if (!accepting_.load()) return;
  // Kafka's waitForConnectionSlot: at max.connections (or the listener's), accept nothing.
  if (!state_.connection_quotas.SlotAvailable(listener->name)) {
    listener->paused = true;
    return;
  }
  Processor* p = processors_[next_processor_].get();
  next_processor_ = (next_processor_ + 1) % processors_.size();
  listener->acceptor.async_accept(
      p->io_context(),
      [this, listener, p](const asio::error_code& ec, asio::ip::tcp::socket socket) {
        OnAccept(listener, p, ec, std::move(socket));
      });
}

void SocketServer::Impl::ResumePausedListeners() {
  for (auto& l : listeners_) {
    if (l->paused && state_.connection_quotas.SlotAvailable(l->name)) {
      l->paused = false;
      Accept(l.get());
    }
  }
}

void SocketServer::Impl::OnAccept(Listener* listener, Processor* processor,
                                  const asio::error_code& ec, asio::ip::tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !accepting_.load()) {
    asio::error_code ignored;
    socket.close(ignored);  // accepted as the server stops: closed at once
    return;
  }
  if (ec) {
    state_.Warn(fmt::format("Error occurred while accepting a connection on listener {}: {}",
                            listener->name, ec.message()));
    listener->retry.expires_after(std::chrono::milliseconds(100));
    listener->retry.async_wait([this, listener](const asio::error_code& e) {
      if (!e) Accept(listener);
    });
    return;
  }
  state_.accepted.fetch_add(1, std::memory_order_relaxed);
  asio::error_code ignored;
  const std::string address = socket.remote_endpoint(ignored).address().to_string();
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  // The address's connection_creation_rate quota first, as Kafka's inc checks it before the
  // per-IP maximum: past it, the connection is neither counted nor served, and closed once the
  // throttle time has passed (Kafka's delayed close: the client sees it close, not refused).
  if (const int64_t close_in_ms = state_.connection_quotas.RecordIpCreation(address, now_ms);
      close_in_ms > 0) {
    state_.throttled.fetch_add(1, std::memory_order_relaxed);
    state_.Debug(
        fmt::format("Delaying closing of connection from /{} for {} ms", address, close_in_ms));
    DelayClose(std::move(socket), close_in_ms);
    Accept(listener);
    return;
  }
  int32_t limit = 0;
  if (!state_.connection_quotas.Inc(listener->name, address, &limit)) {
    // Kafka's Acceptor, on its TooManyConnectionsException.
    state_.rejected.fetch_add(1, std::memory_order_relaxed);
    state_.Info(fmt::format(
        "Rejected connection from /{}, address already has the configured maximum of {} "
        "connections.",
        address, limit));
    socket.close(ignored);
    Accept(listener);
    return;
  }
  state_.open_connections.fetch_add(1);
  const int64_t wait_ms = state_.connection_quotas.RecordCreation(listener->name, now_ms);
  if (wait_ms > 0) {
    // Past a creation rate: this connection is served after the throttle time, and the
    // listener takes no other meanwhile (Kafka's acceptor waits the same way).
    state_.throttled.fetch_add(1, std::memory_order_relaxed);
    state_.Debug(
        fmt::format("Throttling the connection from /{} on listener {} for {} ms "
                    "(max.connection.creation.rate)",
                    address, listener->name, wait_ms));
    auto held = std::make_shared<asio::ip::tcp::socket>(std::move(socket));
    listener->throttle.expires_after(std::chrono::milliseconds(wait_ms));
    listener->throttle.async_wait(
        [this, listener, processor, held, address](const asio::error_code& e) {
          if (e || !accepting_.load()) {
            asio::error_code ignored_close;
            held->close(ignored_close);
            state_.ConnectionClosed(listener->name, address);
            return;
          }
          processor->Adopt(std::move(*held), &listener->runtime, address);
          Accept(listener);
        });
    return;
  }
  processor->Adopt(std::move(socket), &listener->runtime, address);
  Accept(listener);
}

void SocketServer::Impl::DelayClose(asio::ip::tcp::socket socket, int64_t delay_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms);
  delayed_close_.emplace(deadline, std::move(socket));
  if (delayed_close_.begin()->first == deadline) ArmDelayedClose();
}

void SocketServer::Impl::ArmDelayedClose() {
  if (delayed_close_.empty()) return;
  delayed_close_timer_.expires_at(delayed_close_.begin()->first);
  delayed_close_timer_.async_wait([this](const asio::error_code& e) {
    if (e) return;  // re-armed for an earlier deadline, or stopping
    const auto now = std::chrono::steady_clock::now();
    while (!delayed_close_.empty() && delayed_close_.begin()->first <= now) {
      asio::error_code ignored;
      delayed_close_.begin()->second.close(ignored);
      delayed_close_.erase(delayed_close_.begin());
    }
    ArmDelayedClose();
  });
}

void SocketServer::Impl::Shutdown() {
  {
    MutexLock lock(&shutdown_mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  state_.Info("Stopping socket server request processors");
  // 1. No new connections.
  accepting_.store(false);
  accept_work_.reset();
  accept_io_.stop();
  if (accept_thread_.joinable()) accept_thread_.join();
  for (auto& l : listeners_) {
    asio::error_code ec;
    l->acceptor.close(ec);
    l->retry.cancel();
    l->throttle.cancel();
  }
  delayed_close_timer_.cancel();
  for (auto& [deadline, socket] : delayed_close_) {
    asio::error_code ignored;
    socket.close(ignored);
  }
  delayed_close_.clear();
  // Runs the cancelled accepts' handlers now: their operations hold sockets of the network
  // threads' io_contexts, which must be destroyed before those are.
  accept_io_.restart();
  accept_io_.poll();
  // 2. Every connection finishes its request in progress, writes its response and closes.
  for (auto& p : processors_) p->Drain();
  {
    MutexLock lock(&state_.mu);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(state_.options.shutdown_timeout_ms);
    while (state_.open_connections.load() > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) break;
      state_.all_closed.WaitForMs(&state_.mu, left);
    }
  }
  if (state_.open_connections.load() > 0) {
    state_.Warn(
        fmt::format("{} connections still had a request in progress after {} ms; closing them",
                    state_.open_connections.load(), state_.options.shutdown_timeout_ms));
  }
  state_.Info("Stopped socket server request processors");
  // 3. The request handler threads finish the request each is in and end.
  state_.queue.Close();
  for (auto& t : io_threads_) t.join();
  io_threads_.clear();
  // 4. Close what is left and join the network threads.
  state_.Info("Shutting down socket server");
  {
    MutexLock lock(&processors_mu_);  // no CPU time is read from a thread being joined
    for (auto& p : processors_) p->Stop();
    processors_.clear();
  }
  state_.Info("Shutdown completed");
}

Result<std::unique_ptr<SocketServer>> SocketServer::Start(SocketServerOptions options,
                                                          RequestHandler* handler) {
  std::vector<std::string> errors;
  auto at_least = [&](const char* name, int64_t v, int64_t min) {
    if (v < min) {
      errors.push_back(fmt::format(
          "Invalid value {} for configuration {}: Value must be at least {}", v, name, min));
    }
  };
  at_least("num.network.threads", options.num_network_threads, 1);
  at_least("num.io.threads", options.num_io_threads, 1);
  at_least("queued.max.requests", options.queued_max_requests, 1);
  at_least("socket.request.max.bytes", options.socket_request_max_bytes, 1);
  at_least("socket.listen.backlog.size", options.socket_listen_backlog_size, 1);
  at_least("max.connections", options.max_connections, 0);
  at_least("max.connections.per.ip", options.max_connections_per_ip, 0);
  at_least("max.connection.creation.rate", options.max_connection_creation_rate, 0);
  at_least("quota.window.num", options.quota_window_num, 1);
  at_least("quota.window.size.seconds", options.quota_window_size_seconds, 1);
  ConnectionLimits limits;
  limits.max_connections = options.max_connections;
  limits.max_connections_per_ip = options.max_connections_per_ip;
  limits.max_connection_creation_rate = options.max_connection_creation_rate;
  limits.listener_max_connections = options.listener_max_connections;
  limits.listener_max_connection_creation_rate = options.listener_max_connection_creation_rate;
  limits.quota_window_num = options.quota_window_num;
  limits.quota_window_size_ms = int64_t{options.quota_window_size_seconds} * 1000;
  limits.ip_connection_rate = options.ip_connection_rate;
  if (Result<std::map<std::string, int32_t>> overrides =
          ParseConnectionOverrides(options.max_connections_per_ip_overrides);
      overrides.ok()) {
    limits.per_ip_overrides = std::move(overrides).value();
  } else {
    errors.push_back(std::string(overrides.status().message()));
  }
  // Kafka's KafkaConfig check.
  if (options.max_connections_per_ip == 0 && limits.per_ip_overrides.empty()) {
    errors.push_back(
        "max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides "
        "property is set.");
  }
  for (const auto& [name, n] : options.listener_max_connections) {
    bool known = false;
    for (const ListenerEndpoint& e : options.listeners) known |= e.name == name;
    if (!known) {
      errors.push_back(
          fmt::format("listener.name.{}.max.connections names no listener of listeners", name));
    }
  }
  if (options.listeners.empty()) errors.push_back("No listener given (listeners)");
  if (handler == nullptr) errors.push_back("No request handler given");
  if (!errors.empty()) {
    std::string all;
    for (const std::string& e : errors) all += (all.empty() ? "" : "; ") + e;
    return Status::InvalidArgument(all);
  }
  auto impl = std::make_unique<Impl>(std::move(options), handler, std::move(limits));
  SEGLOG_RETURN_IF_ERROR(impl->Bind());
  impl->StartThreads();
  return std::unique_ptr<SocketServer>(new SocketServer(std::move(impl)));
}

SocketServer::SocketServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SocketServer::~SocketServer() { Shutdown(); }
int SocketServer::port() const { return impl_->port(""); }
int SocketServer::port(std::string_view listener) const {
  return listener.empty() ? -1 : impl_->port(listener);
}
void SocketServer::Shutdown() { impl_->Shutdown(); }
SocketServer::Stats SocketServer::stats() const { return impl_->stats(); }

Result<int> WaitForTerminationSignal() {
  asio::io_context io(1);
  asio::signal_set signals(io);
  asio::error_code ec;
  signals.add(SIGINT, ec);
  if (!ec) signals.add(SIGTERM, ec);
  if (ec) return Status::IOError("Cannot watch SIGINT and SIGTERM: " + ec.message());
  int received = 0;
  signals.async_wait([&](const asio::error_code& e, int signal_number) {
    if (!e) received = signal_number;
  });
  io.run();
  if (received == 0) return Status::Aborted("Stopped waiting for a signal");
  return received;
}

}  // namespace seglog
