// VersityGateway (versitygw.h): its command line over ChildProcess, its temporary directory.
#include "remote/testing/versitygw.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace seglog {
namespace {

constexpr int kReadyTimeoutMs = 15000;
constexpr int kStopTimeoutMs = 5000;

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
  if (std::optional<std::string> on_path = FindOnPath("versitygw")) return *on_path;
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
  SEGLOG_ASSIGN_OR_RETURN(const int port, FreeLoopbackPort());
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
  SEGLOG_RETURN_IF_ERROR(process_.Spawn(std::move(args), log_path()));
  return process_.WaitForHttp(port_, kReadyTimeoutMs, "versitygw");
}

Status VersityGateway::Stop() { return process_.Stop(kStopTimeoutMs); }

Status VersityGateway::Restart() {
  SEGLOG_RETURN_IF_ERROR(Stop());
  return Launch();
}

std::string VersityGateway::endpoint_url() const {
  return fmt::format("http://127.0.0.1:{}", port_);
}

VersityGateway::~VersityGateway() {
  process_.Kill();  // before its directory goes
  std::error_code ec;
  std::filesystem::remove_all(work_dir_, ec);
}

}  // namespace seglog
