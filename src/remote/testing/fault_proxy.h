// FaultProxy: an HTTP/1.1 proxy for tests on 127.0.0.1 that stands between an S3Client and a
// real server (VersityGateway) and can answer the next N requests itself with an error (503
// SlowDown by default), hold each request a while before forwarding it, and run a hook before
// each request (to stop the server mid-upload, say). It counts the requests and the most that
// were in flight at once. One request per connection: it answers "Connection: close" and
// closes (versitygw closes after each answer too). A request it cannot forward (the server is
// down) gets its connection closed with no answer, as a crashed server would.
//
// Thread safety: thread-safe; connections are served on their own threads, all joined by the
// destructor.
#ifndef SEGLOG_REMOTE_TESTING_FAULT_PROXY_H_
#define SEGLOG_REMOTE_TESTING_FAULT_PROXY_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "seglog/result.h"

namespace seglog {

class FaultProxy {
 public:
  // Listens on a free 127.0.0.1 port, forwarding to 127.0.0.1:`upstream_port`.
  static Result<std::unique_ptr<FaultProxy>> Start(int upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  int port() const { return port_; }
  std::string endpoint_url() const;

  // The next `n` requests are answered with `http_status` and an S3 <Error> of `code`.
  void FailNext(int n, int http_status = 503, std::string code = "SlowDown") EXCLUDES(mu_);
  // Each forwarded request waits this long first (makes concurrency observable).
  void SetDelayMs(int ms) { delay_ms_.store(ms); }
  // Runs before each request is handled, with its number (from 1) and request line.
  void SetHook(std::function<void(int, const std::string&)> hook) EXCLUDES(mu_);

  int requests() const { return requests_.load(); }
  int max_in_flight() const { return max_in_flight_.load(); }
  std::vector<std::string> request_lines() const EXCLUDES(mu_);

 private:
  FaultProxy(int listen_fd, int port, int upstream_port)
      : listen_fd_(listen_fd), port_(port), upstream_port_(upstream_port) {}
  void AcceptLoop();
  void Serve(int fd);

  const int listen_fd_;
  const int port_;
  const int upstream_port_;
  std::atomic<bool> stop_{false};
  std::atomic<int> delay_ms_{0};
  std::atomic<int> requests_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
  mutable Mutex mu_;
  int fail_next_ GUARDED_BY(mu_) = 0;
  int fail_status_ GUARDED_BY(mu_) = 503;
  std::string fail_code_ GUARDED_BY(mu_);
  std::function<void(int, const std::string&)> hook_ GUARDED_BY(mu_);
  std::vector<std::string> lines_ GUARDED_BY(mu_);
  std::vector<std::thread> connections_ GUARDED_BY(mu_);
  std::thread acceptor_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_FAULT_PROXY_H_
