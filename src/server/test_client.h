// TestClient: a blocking Kafka-framed TCP client over plain POSIX sockets, for the server's
// tests (independent of the Asio code under test). Every call is bounded by a timeout.
//
// Thread safety: not thread-safe; one owner.
#ifndef SEGLOG_SERVER_TEST_CLIENT_H_
#define SEGLOG_SERVER_TEST_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace seglog::testing {

class TestClient {
 public:
  // Null when the connection cannot be made.
  static std::unique_ptr<TestClient> Connect(int port, int receive_buffer = -1) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return nullptr;
    if (receive_buffer > 0) {
      ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return nullptr;
    }
    return std::unique_ptr<TestClient>(new TestClient(fd));
  }
  ~TestClient() { Close(); }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Closes with an RST instead of a FIN (SO_LINGER 0).
  void Reset() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    Close();
  }

  int local_port() const {
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    return ntohs(addr.sin_port);
  }

  // All of `bytes`; false on an error (the server closed) or a 10 s stall.
  bool Send(std::span<const uint8_t> bytes) {
    size_t at = 0;
    while (at < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      at += static_cast<size_t>(n);
    }
    return true;
  }
  bool Send(const std::string& s) {
    return Send(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }
  static std::vector<uint8_t> Frame(std::span<const uint8_t> payload) {
    const uint32_t n = static_cast<uint32_t>(payload.size());
    std::vector<uint8_t> f;
    f.reserve(4 + payload.size());
    for (int shift = 24; shift >= 0; shift -= 8) f.push_back(static_cast<uint8_t>(n >> shift));
    for (uint8_t b : payload) f.push_back(b);
    return f;
  }
  static std::vector<uint8_t> Frame(const std::string& s) {
    return Frame(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }
  bool SendFrame(const std::string& payload) { return Send(Frame(payload)); }
  bool SendSize(int32_t size) {
    const uint32_t n = htonl(static_cast<uint32_t>(size));
    uint8_t b[4];
    std::memcpy(b, &n, 4);
    return Send(std::span<const uint8_t>(b, 4));
  }

  // Exactly n bytes within timeout_ms; false on end of stream, an error or the timeout.
  bool ReadExact(uint8_t* out, size_t n, int timeout_ms = 10000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    size_t at = 0;
    while (at < n) {
      if (!WaitReadable(deadline)) return false;
      const ssize_t r = ::recv(fd_, out + at, n - at, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      at += static_cast<size_t>(r);
    }
    return true;
  }
  std::optional<std::vector<uint8_t>> ReadFrame(int timeout_ms = 10000) {
    uint8_t size_bytes[4];
    if (!ReadExact(size_bytes, 4, timeout_ms)) return std::nullopt;
    uint32_t n = 0;
    std::memcpy(&n, size_bytes, 4);
    std::vector<uint8_t> out(ntohl(n));
    if (!ReadExact(out.data(), out.size(), timeout_ms)) return std::nullopt;
    return out;
  }
  std::optional<std::string> ReadFrameString(int timeout_ms = 10000) {
    auto f = ReadFrame(timeout_ms);
    if (!f) return std::nullopt;
    return std::string(f->begin(), f->end());
  }

  // True when the server closes the connection (end of stream or reset) within timeout_ms;
  // bytes still arriving are read and dropped.
  bool WaitClosed(int timeout_ms = 10000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    uint8_t buf[4096];
    while (true) {
      if (!WaitReadable(deadline)) return false;
      const ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return true;
    }
  }
  // True when nothing arrives and the connection stays open for `ms`.
  bool QuietFor(int ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) == 0;
  }

  int fd() const { return fd_; }

 private:
  explicit TestClient(int fd) : fd_(fd) {}
  bool WaitReadable(std::chrono::steady_clock::time_point deadline) {
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      return r > 0;
    }
  }
  int fd_;
};

}  // namespace seglog::testing

#endif  // SEGLOG_SERVER_TEST_CLIENT_H_
