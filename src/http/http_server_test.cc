#include "http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace seglog {
namespace {

std::unique_ptr<HttpServer> Serve(std::map<std::string, HttpHandler> routes,
                                  HttpServerOptions o = {}) {
  auto s = HttpServer::Start(std::move(o), std::move(routes));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

HttpResponse Hello(const HttpRequest& r) {
  HttpResponse out;
  out.body = "hello " + (r.params.count("who") ? r.params.at("who") : std::string("?"));
  return out;
}

TEST(HttpListener, ParsesHostAndPort) {
  std::string host;
  int port = -1;
  ASSERT_TRUE(ParseHttpListener("127.0.0.1:8080", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 8080);
  ASSERT_TRUE(ParseHttpListener("[::1]:0", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  for (const char* bad : {"", "8080", ":8080", "host:", "host:x", "host:70000", "host:-1"}) {
    EXPECT_FALSE(ParseHttpListener(bad, &host, &port).ok()) << bad;
  }
}

TEST(HttpServer, ServesRoutesAndRefusesTheRest) {
  auto s = Serve({{"/hello", Hello}});
  ASSERT_NE(s, nullptr);
  httplib::Client c("127.0.0.1", s->port());
  auto r = c.Get("/hello?who=%3Cb%3E");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello <b>");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  auto missing = c.Get("/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "404 Not Found\n");
  auto post = c.Post("/hello", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  auto del = c.Delete("/hello");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);
}

TEST(HttpServer, AHandlersOwnErrorPageIsKept) {
  auto s = Serve({{"/page", [](const HttpRequest& r) {
                     HttpResponse out;
                     out.status = r.params.count("bad") ? 400 : 404;
                     out.content_type = "text/html; charset=utf-8";
                     out.body = r.params.count("empty") ? "" : "<p>no such page</p>";
                     return out;
                   }}});
  ASSERT_NE(s, nullptr);
  httplib::Client c("127.0.0.1", s->port());
  auto r = c.Get("/page");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "<p>no such page</p>");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  r = c.Get("/page?bad=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "<p>no such page</p>");
  // Without a body of its own, the server's plain answer.
  r = c.Get("/page?empty=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "404 Not Found\n");
}

TEST(HttpServer, RefusesBodiesPastTheLimitAndHugeLines) {
  HttpServerOptions o;
  o.max_request_bytes = 1024;
  auto s = Serve({{"/hello", Hello}}, o);
  ASSERT_NE(s, nullptr);
  httplib::Client c("127.0.0.1", s->port());
  auto big = c.Post("/hello", std::string(4096, 'x'), "text/plain");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto long_uri = c.Get("/hello?who=" + std::string(20000, 'a'));
  ASSERT_TRUE(long_uri);
  EXPECT_EQ(long_uri->status, 414);
  // The server still answers afterwards.
  auto ok = c.Get("/hello?who=x");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->body, "hello x");
}

int RawConnect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(HttpServer, SlowAndGarbageClientsAreClosedAndOthersServed) {
  HttpServerOptions o;
  o.threads = 2;
  o.io_timeout_ms = 300;
  auto s = Serve({{"/hello", Hello}}, o);
  ASSERT_NE(s, nullptr);
  // Two connections that send half a request line and stop hold both threads, until the read
  // timeout closes them.
  int slow1 = RawConnect(s->port());
  int slow2 = RawConnect(s->port());
  ASSERT_GE(slow1, 0);
  ASSERT_GE(slow2, 0);
  ASSERT_EQ(write(slow1, "GET /hel", 8), 8);
  ASSERT_EQ(write(slow2, "GET /hel", 8), 8);
  // Garbage gets an error answer or a close, never a crash.
  int garbage = RawConnect(s->port());
  ASSERT_GE(garbage, 0);
  const std::string junk(3000, '\x01');
  ASSERT_EQ(write(garbage, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
  httplib::Client c("127.0.0.1", s->port());
  c.set_read_timeout(5, 0);
  auto r = c.Get("/hello?who=late");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "hello late");
  char buf[64];
  timeval tv{5, 0};
  setsockopt(slow1, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  EXPECT_LE(read(slow1, buf, sizeof(buf)), 0);  // closed by the server's timeout
  close(slow1);
  close(slow2);
  close(garbage);
}

TEST(HttpServer, AnAddressInUseIsAnError) {
  auto s = Serve({{"/hello", Hello}});
  ASSERT_NE(s, nullptr);
  HttpServerOptions o;
  o.port = s->port();
  auto again = HttpServer::Start(o, {{"/hello", Hello}});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().ToString().find("Could not bind the HTTP listener"), std::string::npos);
}

TEST(HttpServer, StopsWhileClientsAreConnected) {
  auto s = Serve({{"/hello", Hello}});
  ASSERT_NE(s, nullptr);
  int idle = RawConnect(s->port());
  ASSERT_GE(idle, 0);
  const auto start = std::chrono::steady_clock::now();
  s->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  s->Stop();  // idempotent
  close(idle);
}

}  // namespace
}  // namespace seglog
