// FaultProxy (fault_proxy.h) over plain blocking sockets.
#include "remote/testing/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace seglog {
namespace {

constexpr size_t kMaxHead = 64 * 1024;
constexpr int64_t kMaxBody = 64LL * 1024 * 1024;

void SetTimeouts(int fd) {
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads one request (head and Content-Length body) into *out; false on EOF or error.
bool ReadRequest(int fd, std::string* out) {
  char buf[65536];
  size_t head_end = std::string::npos;
  while (head_end == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    out->append(buf, static_cast<size_t>(n));
    head_end = out->find("\r\n\r\n");
    if (head_end == std::string::npos && out->size() > kMaxHead) return false;
  }
  std::string head = out->substr(0, head_end);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  int64_t length = 0;
  const size_t cl = head.find("\r\ncontent-length:");
  if (cl != std::string::npos) length = std::atoll(head.c_str() + cl + 17);
  if (length < 0 || length > kMaxBody) return false;
  const size_t total = head_end + 4 + static_cast<size_t>(length);
  while (out->size() < total) {
    const ssize_t n = ::recv(fd, buf, std::min(sizeof buf, total - out->size()), 0);
    if (n <= 0) return false;
    out->append(buf, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<FaultProxy>> FaultProxy::Start(int upstream_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::IOError(fmt::format("socket: {}", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(fmt::format("fault proxy listen on 127.0.0.1: {}", std::strerror(err)));
  }
  auto proxy = std::unique_ptr<FaultProxy>(new FaultProxy(fd, ntohs(addr.sin_port), upstream_port));
  proxy->acceptor_ = std::thread([p = proxy.get()] { p->AcceptLoop(); });
  return proxy;
}

FaultProxy::~FaultProxy() {
  stop_.store(true);
  acceptor_.join();
  std::vector<std::thread> connections;
  {
    MutexLock lock(&mu_);
    connections.swap(connections_);
  }
  for (std::thread& t : connections) t.join();
  ::close(listen_fd_);
}

std::string FaultProxy::endpoint_url() const { return fmt::format("http://127.0.0.1:{}", port_); }

void FaultProxy::FailNext(int n, int http_status, std::string code) {
  MutexLock lock(&mu_);
  fail_next_ = n;
  fail_status_ = http_status;
  fail_code_ = std::move(code);
}

void FaultProxy::SetHook(std::function<void(int, const std::string&)> hook) {
  MutexLock lock(&mu_);
  hook_ = std::move(hook);
}

std::vector<std::string> FaultProxy::request_lines() const {
  MutexLock lock(&mu_);
  return lines_;
}

void FaultProxy::AcceptLoop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    MutexLock lock(&mu_);
    connections_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FaultProxy::Serve(int fd) {
  SetTimeouts(fd);
  std::string request;
  if (!ReadRequest(fd, &request)) {
    ::close(fd);
    return;
  }
  const int number = requests_.fetch_add(1) + 1;
  const std::string line = request.substr(0, request.find("\r\n"));
  const int now = in_flight_.fetch_add(1) + 1;
  int seen = max_in_flight_.load();
  while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {
  }
  std::function<void(int, const std::string&)> hook;
  int fail_status = 0;
  std::string fail_code;
  {
    MutexLock lock(&mu_);
    lines_.push_back(line);
    hook = hook_;
    if (fail_next_ > 0) {
      --fail_next_;
      fail_status = fail_status_;
      fail_code = fail_code_;
    }
  }
  if (hook) hook(number, line);
  // The whole answer is gathered before it is sent, and the request stops counting as in
  // flight before its first byte goes: the client cannot start its next request (on a permit
  // this one frees) while this one is still counted.
  std::string answer;
  if (fail_status != 0) {
    const std::string body = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>injected by "
        "the fault proxy</Message><RequestId>proxy-{}</RequestId></Error>",
        fail_code, number);
    answer = fmt::format(
        "HTTP/1.1 {} Injected\r\nContent-Type: application/xml\r\n"
        "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        fail_status, body.size(), body);
  } else {
    if (const int delay = delay_ms_.load(); delay > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    }
    const int up = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(upstream_port_));
    if (up >= 0) {
      SetTimeouts(up);
      if (::connect(up, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
          SendAll(up, request)) {
        char buf[65536];
        for (;;) {
          const ssize_t n = ::recv(up, buf, sizeof buf, 0);
          if (n <= 0) break;
          answer.append(buf, static_cast<size_t>(n));
        }
      }
      ::close(up);
    }
  }
  in_flight_.fetch_sub(1);
  if (!answer.empty()) SendAll(fd, answer);
  ::close(fd);
}

}  // namespace seglog
