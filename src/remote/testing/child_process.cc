// ChildProcess (child_process.h): fork/exec from a waiter thread, readiness by HTTP,
// SIGTERM/SIGKILL.
#include "remote/testing/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>

#include <fmt/format.h>

namespace seglog {

bool IsExecutable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> FindOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest = path;
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (dir.empty()) continue;
    std::string candidate = fmt::format("{}/{}", dir, name);
    if (IsExecutable(candidate)) return candidate;
  }
  return std::nullopt;
}

Result<int> FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::IOError(fmt::format("socket: {}", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(fmt::format("bind 127.0.0.1:0: {}", std::strerror(err)));
  }
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

bool AnswersHttp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req =
        fmt::format("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", port);
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
      char buf[16] = {0};
      const ssize_t n = ::recv(fd, buf, sizeof buf - 1, 0);
      ok = n >= 5 && std::strncmp(buf, "HTTP/", 5) == 0;
    }
  }
  ::close(fd);
  return ok;
}

Status ChildProcess::Spawn(std::vector<std::string> args, const std::string& log_path) {
  if (running()) return Status::FailedPrecondition(fmt::format("{} is running", args.at(0)));
  log_path_ = log_path;
  // Everything the child touches after fork() is built before it: the child of a threaded
  // process may only make async-signal-safe calls until it execs.
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* log = log_path_.c_str();
  std::promise<pid_t> forked;
  std::future<pid_t> child = forked.get_future();
  exited_.store(false);
  waiter_ = std::thread([this, &argv, log, forked = std::move(forked)]() mutable {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = ::open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const int fork_errno = errno;
    forked.set_value(pid);  // after this the parent's argv may be gone
    if (pid < 0) {
      exit_status_.store(fork_errno);
      exited_.store(true);
      return;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    exit_status_.store(status);
    exited_.store(true);
  });
  const pid_t pid = child.get();
  if (pid < 0) {
    waiter_.join();
    return Status::IOError(fmt::format("fork for {}: {}", args[0], std::strerror(exit_status())));
  }
  pid_ = pid;
  return Status::OK();
}

Status ChildProcess::WaitForHttp(int port, int timeout_ms, std::string_view name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (exited_.load()) {
      if (waiter_.joinable()) waiter_.join();
      pid_ = -1;
      return Status::IOError(
          fmt::format("{} exited (status {}) before answering on 127.0.0.1:{}; its log: {}", name,
                      exit_status_.load(), port, log_path_));
    }
    if (AnswersHttp(port)) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (void)Stop(/*grace_ms=*/1000);
  return Status::IOError(fmt::format("{} did not answer on 127.0.0.1:{} within {} ms; its log: {}",
                                     name, port, timeout_ms, log_path_));
}

Status ChildProcess::Stop(int grace_ms) {
  if (pid_ <= 0) return Status::OK();
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (!exited_.load()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  waiter_.join();  // the waiter reaps the child
  pid_ = -1;
  return Status::OK();
}

void ChildProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waiter_.join();
  pid_ = -1;
}

ChildProcess::~ChildProcess() { Kill(); }

}  // namespace seglog
