// VersityGateway: a Versity S3 Gateway (versitygw, its posix backend) that a test starts on
// 127.0.0.1 and a free port, over a fresh temporary directory, with a root access key and
// secret; the real S3-compatible server tiered storage's tests run against. It checks SigV4
// signatures, so a test that passes here signs correctly.
//
// The binary: $SEGLOG_VERSITYGW, else ~/.cache/seglog/go/bin/versitygw, else `versitygw` on
// PATH. None is a FailedPrecondition saying how to install it (scripts/install-clients.sh) -
// tests ASSERT on it: a missing server fails them, it never skips them.
//
// Lifecycle: Start() returns a running gateway (it answered HTTP); Stop() ends the process
// (SIGTERM, then SIGKILL after 5 s); Restart() starts it again on the same port and directory,
// so objects written before are still there. The destructor kills it and removes the
// directory. The child dies with the test process too (ChildProcess, child_process.h: forked
// by a waiter thread that lives exactly as long as the child, since PR_SET_PDEATHSIG fires when
// the forking *thread* ends - so a test's short-lived restarter thread may call Restart()).
//
// MotoServer (moto_server.h) is the second server, for behaviour; it checks no signature.
//
// Thread safety: not thread-safe; one test thread drives it (Stop/Restart from another thread
// only while the owner does not call it).
#ifndef SEGLOG_REMOTE_TESTING_VERSITYGW_H_
#define SEGLOG_REMOTE_TESTING_VERSITYGW_H_

#include <memory>
#include <string>

#include "remote/testing/child_process.h"
#include "seglog/result.h"

namespace seglog {

struct VersityGatewayOptions {
  std::string access_key = "seglogtest";
  std::string secret_key = "seglogtestsecret";
  std::string region = "us-east-1";
  // When set, also serve virtual-hosted-style requests for <bucket>.<virtual_domain>.
  std::string virtual_domain;
};

class VersityGateway {
 public:
  static Result<std::unique_ptr<VersityGateway>> Start(VersityGatewayOptions options = {});
  ~VersityGateway();
  VersityGateway(const VersityGateway&) = delete;
  VersityGateway& operator=(const VersityGateway&) = delete;

  Status Stop();
  Status Restart();
  bool running() const { return process_.running(); }

  int port() const { return port_; }
  std::string endpoint_url() const;                          // http://127.0.0.1:<port>
  const std::string& root_dir() const { return root_dir_; }  // buckets are directories in it
  const VersityGatewayOptions& options() const { return options_; }
  // Where the gateway's stdout and stderr go (for a failing test's message).
  std::string log_path() const { return work_dir_ + "/versitygw.log"; }

  // The binary as found above; FailedPrecondition with install instructions when none.
  static Result<std::string> FindBinary();

 private:
  VersityGateway(VersityGatewayOptions options, std::string binary, std::string work_dir, int port);
  Status Launch();

  const VersityGatewayOptions options_;
  const std::string binary_;
  const std::string work_dir_;
  const std::string root_dir_;
  const int port_;
  ChildProcess process_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_VERSITYGW_H_
