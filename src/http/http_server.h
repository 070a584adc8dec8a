// HttpServer: the broker's HTTP listener (`http.listener=HOST:PORT`), serving read-only pages
// and `/metrics` beside the Kafka listeners.
//
// - Built on cpp-httplib (Debian's libcpp-httplib). Its own threads (a fixed pool) accept,
//   read and answer: nothing of the Kafka listeners' network or request threads is shared, so
//   a slow or garbage HTTP client never affects Kafka clients.
// - GET and HEAD only, on the registered paths; any other path is 404, any other method 405.
//   A request whose body is longer than `max_request_bytes` is refused (413) unread; its line
//   and headers are bounded by the library (8 KiB each: 414 / 400).
// - Every read and write has a timeout, and idle keep-alive connections are closed, so a
//   client that sends slowly or stops reading holds a pool thread for a bounded time.
//
// Thread safety: Start and Stop from one thread; handlers are called on the server's pool
// threads, concurrently, and must be thread-safe.
#ifndef SEGLOG_HTTP_HTTP_SERVER_H_
#define SEGLOG_HTTP_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "seglog/logger.h"
#include "seglog/result.h"

namespace seglog {

struct HttpRequest {
  std::string path;
  std::map<std::string, std::string> params;  // the query's, decoded (a repeated one: the first)
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (HttpServer::port() tells which)
  size_t max_request_bytes = 64 * 1024;
  int threads = 4;
  int64_t io_timeout_ms = 5000;          // each read or write of a connection
  int64_t keep_alive_timeout_ms = 5000;  // an idle kept-alive connection is closed after this
  Logger logger;
};

// Parses `http.listener`'s value, "HOST:PORT" ("[::1]:8080" for IPv6). InvalidArgument when
// it is not that form or the port is outside 0-65535.
Status ParseHttpListener(const std::string& value, std::string* host, int* port);

class HttpServer {
 public:
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving `routes` (exact paths). IOError when the address cannot be bound.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options,
                                                   std::map<std::string, HttpHandler> routes);
  int port() const { return port_; }
  // Stops accepting, closes connections and joins the threads. Idempotent.
  void Stop();

 private:
  struct Impl;
  HttpServer();
  std::unique_ptr<Impl> impl_;
  int port_ = -1;
};

}  // namespace seglog

#endif  // SEGLOG_HTTP_HTTP_SERVER_H_
