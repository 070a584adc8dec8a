// HttpServer; see http_server.h.
#include "http/http_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <charconv>
#include <chrono>
#include <thread>

namespace seglog {

Status ParseHttpListener(const std::string& value, std::string* host, int* port) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument(fmt::format(
        "http.listener must be HOST:PORT (for example 127.0.0.1:8080), not '{}'", value));
  }
  std::string h = value.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  const std::string p = value.substr(colon + 1);
  int n = -1;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), n);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || n < 0 || n > 65535 ||
      h.empty()) {
    return Status::InvalidArgument(
        fmt::format("http.listener must be HOST:PORT with a port of 0-65535, not '{}'", value));
  }
  *host = std::move(h);
  *port = n;
  return Status::OK();
}

namespace {

const char* Reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return status >= 500 ? "Server Error" : "Error";
  }
}

}  // namespace

struct HttpServer::Impl {
  httplib::Server server;
  std::thread thread;
  bool stopped = false;
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                      std::map<std::string, HttpHandler> routes) {
  std::unique_ptr<HttpServer> s(new HttpServer());
  httplib::Server& svr = s->impl_->server;
  const int threads = std::max(options.threads, 1);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_payload_max_length(options.max_request_bytes);
  const auto io = std::chrono::milliseconds(options.io_timeout_ms);
  svr.set_read_timeout(io);
  svr.set_write_timeout(io);
  svr.set_keep_alive_timeout(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::milliseconds(options.keep_alive_timeout_ms))
                                 .count());
  svr.set_keep_alive_max_count(100);
  // SO_REUSEADDR (a restart binds over TIME_WAIT) but not the library's SO_REUSEPORT, with
  // which a second server would share the port silently.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  for (auto& [path, handler] : routes) {
    svr.Get(path, [h = handler](const httplib::Request& req, httplib::Response& res) {
      HttpRequest r;
      r.path = req.path;
      for (const auto& [k, v] : req.params) r.params.emplace(k, v);
      HttpResponse out = h(r);
      res.status = out.status;
      res.set_content(std::move(out.body), out.content_type.c_str());
    });
  }
  // Anything else: a plain answer, never the library's page (which echoes nothing, but say it
  // in our words). Methods other than GET/HEAD on any path are 405. The library calls this for
  // every status >= 400, also one a handler answered with its own body (the console's 404 and
  // 400 pages): that body stays.
  svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (req.method != "GET" && req.method != "HEAD" && res.status == 404) res.status = 405;
    res.set_content(fmt::format("{} {}\n", res.status, Reason(res.status)),
                    "text/plain; charset=utf-8");
  });
  svr.Post(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 405; });
  svr.Put(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 405; });
  svr.Delete(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 405; });
  svr.Patch(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 405; });
  const int port = options.port == 0
                       ? svr.bind_to_any_port(options.host)
                       : (svr.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    return Status::IOError(
        fmt::format("Could not bind the HTTP listener to {}:{}", options.host, options.port));
  }
  s->port_ = port;
  Impl* impl = s->impl_.get();
  impl->thread = std::thread([impl] {
    pthread_setname_np(pthread_self(), "seglog-http");
    impl->server.listen_after_bind();
  });
  // Stop() before the thread has begun listening would find nothing to stop: wait for it.
  for (int i = 0; i < 2000 && !impl->server.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  options.logger.Info(
      fmt::format("HTTP listener on {}:{} (metrics and console, read-only)", options.host, port));
  return s;
}

void HttpServer::Stop() {
  if (impl_ == nullptr || impl_->stopped) return;
  impl_->stopped = true;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace seglog
