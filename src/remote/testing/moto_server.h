// MotoServer: moto's server mode (`moto_server`, PyPI moto[server]) that a test starts on
// 127.0.0.1 and a free port - the second real S3-compatible server tiered storage's tests run
// against, for behaviour: multipart uploads, ranged GETs, ListObjectsV2 pages, deletes, S3's
// error XML, as another implementation than Versity S3 Gateway writes them.
//
// moto accepts any credentials: by default it checks no SigV4 signature and no payload hash,
// so a test that passes here says nothing about signing. VersityGateway (versitygw.h) remains
// the server that checks signatures; tests of signing, wrong secrets and store restarts run
// against it only.
//
// The binary: $SEGLOG_MOTO, else ${SEGLOG_CACHE:-~/.cache/seglog}/venv/bin/moto_server (the
// venv scripts/install-clients.sh fills), else `moto_server` on PATH. None is a
// FailedPrecondition saying how to install it - tests ASSERT on it: a missing server fails
// them, it never skips them.
//
// Lifecycle: Start() returns a running server (it answered HTTP; ~1-2 s, Python's start);
// Stop() ends the process (SIGTERM, then SIGKILL after 5 s); Restart() starts it again on the
// same port - empty: moto keeps buckets and objects in memory only. The destructor kills it.
// The child dies with the test process too (ChildProcess, child_process.h: forked by a waiter
// thread that lives as long as the child, so Restart() may come from a short-lived thread).
//
// Thread safety: not thread-safe; one test thread drives it (Stop/Restart from another thread
// only while the owner does not call it).
#ifndef SEGLOG_REMOTE_TESTING_MOTO_SERVER_H_
#define SEGLOG_REMOTE_TESTING_MOTO_SERVER_H_

#include <memory>
#include <string>

#include "remote/testing/child_process.h"
#include "seglog/result.h"

namespace seglog {

struct MotoServerOptions {
  // Any key works (moto checks none); these are what a client is handed, so that it signs.
  std::string access_key = "seglogtest";
  std::string secret_key = "seglogtestsecret";
  std::string region = "us-east-1";
};

class MotoServer {
 public:
  static Result<std::unique_ptr<MotoServer>> Start(MotoServerOptions options = {});
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  Status Stop();
  Status Restart();
  bool running() const { return process_.running(); }

  int port() const { return port_; }
  std::string endpoint_url() const;  // http://127.0.0.1:<port>
  const MotoServerOptions& options() const { return options_; }
  // Where the server's stdout and stderr go (for a failing test's message).
  std::string log_path() const { return work_dir_ + "/moto_server.log"; }

  // The binary as found above; FailedPrecondition with install instructions when none.
  static Result<std::string> FindBinary();

 private:
  MotoServer(MotoServerOptions options, std::string binary, std::string work_dir, int port);
  Status Launch();

  const MotoServerOptions options_;
  const std::string binary_;
  const std::string work_dir_;  // holds the log only
  const int port_;
  ChildProcess process_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_MOTO_SERVER_H_
