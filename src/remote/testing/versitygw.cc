// VersityGateway (versitygw.h): fork/exec, readiness by HTTP, SIGTERM/SIGKILL.
#include "remote/testing/versitygw.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace seglog {
namespace {

constexpr int kReadyTimeoutMs = 15000;
constexpr int kStopTimeoutMs = 5000;

bool IsExecutable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

Result<int> FreePort() {
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

// True when something on 127.0.0.1:port answers an HTTP request with an HTTP status line.
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

}  // namespace

Result<std::string> VersityGateway::FindBinary() {
  if (const char* env = std::getenv("SEGLOG_VERSITYGW"); env != nullptr && *env != '\0') {
    if (IsExecutable(env)) return std::string(env);
    return Status::FailedPrecondition(
        fmt::format("SEGLOG_VERSITYGW={} is not an executable file", env));
  }
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    const std::string cached = std::string(home) + "/.cache/seglog/go/bin/versitygw";
    if (IsExecutable(cached)) return cached;
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      if (!dir.empty() && IsExecutable(dir + "/versitygw")) return dir + "/versitygw";
    }
  }
  return Status::FailedPrecondition(
      "Versity S3 Gateway (versitygw) not found: not in $SEGLOG_VERSITYGW, "
      "~/.cache/seglog/go/bin/versitygw or PATH. Install it with `bash "
      "scripts/install-clients.sh` (runs `GOBIN=~/.cache/seglog/go/bin go install "
      "github.com/versity/versitygw/cmd/versitygw@v1.8.0`, about 70 s once)");
}

VersityGateway::VersityGateway(VersityGatewayOptions options, std::string binary,
                               std::string work_dir, int port)
    : options_(std::move(options)),
      binary_(std::move(binary)),
      work_dir_(std::move(work_dir)),
      root_dir_(work_dir_ + "/root"),
      port_(port) {}

Result<std::unique_ptr<VersityGateway>> VersityGateway::Start(VersityGatewayOptions options) {
  SEGLOG_ASSIGN_OR_RETURN(std::string binary, FindBinary());
  std::string tmpl = (std::filesystem::temp_directory_path() / "seglog-versitygw-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::IOError(fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::create_directories(tmpl + "/root", ec);
  if (ec) return Status::IOError(fmt::format("mkdir {}/root: {}", tmpl, ec.message()));
  SEGLOG_ASSIGN_OR_RETURN(const int port, FreePort());
  auto gw = std::unique_ptr<VersityGateway>(
      new VersityGateway(std::move(options), std::move(binary), tmpl, port));
  SEGLOG_RETURN_IF_ERROR(gw->Launch());
  return gw;
}

Status VersityGateway::Launch() {
  std::vector<std::string> args = {binary_,
                                   "--port",
                                   fmt::format("127.0.0.1:{}", port_),
                                   "--access",
                                   options_.access_key,
                                   "--secret",
                                   options_.secret_key,
                                   "--region",
                                   options_.region,
                                   "--quiet"};
  if (!options_.virtual_domain.empty()) {
    args.push_back("--virtual-domain");
    args.push_back(options_.virtual_domain);
  }
  args.push_back("posix");
  args.push_back(root_dir_);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = log_path();
  std::promise<pid_t> forked;
  std::future<pid_t> child = forked.get_future();
  exited_.store(false);
  waiter_ = std::thread([this, &argv, &log, &forked] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    forked.set_value(pid);
    if (pid < 0) {
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
    return Status::IOError(fmt::format("fork: {}", std::strerror(errno)));
  }
  pid_ = pid;
  return WaitReady();
}

Status VersityGateway::WaitReady() {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kReadyTimeoutMs);
  while (std::chrono::steady_clock::now() < deadline) {
    if (exited_.load()) {
      waiter_.join();
      pid_ = -1;
      return Status::IOError(
          fmt::format("versitygw exited (status {}) before answering on "
                      "127.0.0.1:{}; its log: {}",
                      exit_status_.load(), port_, log_path()));
    }
    if (AnswersHttp(port_)) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (void)Stop();
  return Status::IOError(
      fmt::format("versitygw did not answer on 127.0.0.1:{} within {} ms; "
                  "its log: {}",
                  port_, kReadyTimeoutMs, log_path()));
}

Status VersityGateway::Stop() {
  if (pid_ <= 0) return Status::OK();
  ::kill(pid_, SIGTERM);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kStopTimeoutMs);
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

Status VersityGateway::Restart() {
  SEGLOG_RETURN_IF_ERROR(Stop());
  return Launch();
}

std::string VersityGateway::endpoint_url() const {
  return fmt::format("http://127.0.0.1:{}", port_);
}

VersityGateway::~VersityGateway() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waiter_.join();
  }
  std::error_code ec;
  std::filesystem::remove_all(work_dir_, ec);
}

}  // namespace seglog
