// MotoServer (moto_server.h): its command line over ChildProcess.
#include "remote/testing/moto_server.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace seglog {
namespace {

// Python imports Flask, boto and moto's backends first: ~1-2 s alone, more on a loaded
// two-core machine running sanitizer builds side by side.
constexpr int kReadyTimeoutMs = 30000;
constexpr int kStopTimeoutMs = 5000;

}  // namespace

Result<std::string> MotoServer::FindBinary() {
  if (const char* env = std::getenv("SEGLOG_MOTO"); env != nullptr && *env != '\0') {
    if (IsExecutable(env)) return std::string(env);
    return Status::FailedPrecondition(fmt::format("SEGLOG_MOTO={} is not an executable file", env));
  }
  std::string cache;
  if (const char* c = std::getenv("SEGLOG_CACHE"); c != nullptr && *c != '\0') {
    cache = c;
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    cache = std::string(home) + "/.cache/seglog";
  }
  if (!cache.empty()) {
    const std::string venv = cache + "/venv/bin/moto_server";
    if (IsExecutable(venv)) return venv;
  }
  if (std::optional<std::string> on_path = FindOnPath("moto_server")) return *on_path;
  return Status::FailedPrecondition(
      "moto's S3 server (moto_server) not found: not in $SEGLOG_MOTO, "
      "${SEGLOG_CACHE:-~/.cache/seglog}/venv/bin/moto_server or PATH. Install it with `bash "
      "scripts/install-clients.sh` (pip installs moto[server] into that venv, about 90 s once)");
}

MotoServer::MotoServer(MotoServerOptions options, std::string binary, std::string work_dir,
                       int port)
    : options_(std::move(options)),
      binary_(std::move(binary)),
      work_dir_(std::move(work_dir)),
      port_(port) {}

Result<std::unique_ptr<MotoServer>> MotoServer::Start(MotoServerOptions options) {
  SEGLOG_ASSIGN_OR_RETURN(std::string binary, FindBinary());
  std::string tmpl = (std::filesystem::temp_directory_path() / "seglog-moto-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::IOError(fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  SEGLOG_ASSIGN_OR_RETURN(const int port, FreeLoopbackPort());
  auto server = std::unique_ptr<MotoServer>(
      new MotoServer(std::move(options), std::move(binary), tmpl, port));
  SEGLOG_RETURN_IF_ERROR(server->Launch());
  return server;
}

Status MotoServer::Launch() {
  std::vector<std::string> args = {binary_, "--host", "127.0.0.1", "--port", std::to_string(port_)};
  SEGLOG_RETURN_IF_ERROR(process_.Spawn(std::move(args), log_path()));
  return process_.WaitForHttp(port_, kReadyTimeoutMs, "moto_server");
}

Status MotoServer::Stop() { return process_.Stop(kStopTimeoutMs); }

Status MotoServer::Restart() {
  SEGLOG_RETURN_IF_ERROR(Stop());
  return Launch();
}

std::string MotoServer::endpoint_url() const { return fmt::format("http://127.0.0.1:{}", port_); }

MotoServer::~MotoServer() {
  process_.Kill();  // before its directory goes
  std::error_code ec;
  std::filesystem::remove_all(work_dir_, ec);
}

}  // namespace seglog
