// S3TestServer: one S3-compatible server that tiered storage's tests run against - Versity S3
// Gateway (versitygw.h, checks SigV4) or moto's server (moto_server.h, checks no signature) -
// seen the same way: its endpoint and the region and keys a client signs with. Lets a test
// fixture be value-parameterised over S3TestServerKind for what every S3 must do alike
// (multipart, ranged GETs, list, delete, error XML); tests of signing or of a store restart
// keep to versitygw.
//
// S3TestServers: the servers one test suite shares, each started on first use, so that a suite
// over both kinds starts moto (~1-2 s) once in a run of the whole binary, and not at all when a
// filter leaves only versitygw. (ctest runs each discovered test in a process of its own, so
// there every moto case pays the start: ~1.2 s each.)
//
// Thread safety: neither class is thread-safe; the test thread drives them (a server's
// Stop/Restart from another thread only while that thread does not call it).
#ifndef SEGLOG_REMOTE_TESTING_S3_TEST_SERVER_H_
#define SEGLOG_REMOTE_TESTING_S3_TEST_SERVER_H_

#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "remote/testing/moto_server.h"
#include "remote/testing/versitygw.h"
#include "seglog/result.h"

namespace seglog {

enum class S3TestServerKind { kVersityGateway, kMoto };

// "versitygw" or "moto" (gtest parameter names, messages).
std::string S3TestServerName(S3TestServerKind kind);
// gtest prints a parameter with this (found by ADL), so ctest's discovered names read
// "... # GetParam() = moto" rather than the enum's bytes.
inline void PrintTo(S3TestServerKind kind, std::ostream* os) { *os << S3TestServerName(kind); }

class S3TestServer {
 public:
  // FailedPrecondition when the binary is missing (the servers' FindBinary).
  static Result<std::unique_ptr<S3TestServer>> Start(S3TestServerKind kind);

  S3TestServerKind kind() const { return kind_; }
  std::string name() const { return S3TestServerName(kind_); }
  std::string endpoint_url() const;
  int port() const;
  const std::string& region() const;
  const std::string& access_key() const;
  const std::string& secret_key() const;
  std::string log_path() const;

  bool running() const;
  Status Stop();
  // versitygw keeps its buckets and objects across a restart; moto loses them.
  Status Restart();

  VersityGateway* versitygw() const { return versitygw_.get(); }  // null for moto
  MotoServer* moto() const { return moto_.get(); }                // null for versitygw

 private:
  explicit S3TestServer(S3TestServerKind kind) : kind_(kind) {}

  const S3TestServerKind kind_;
  std::unique_ptr<VersityGateway> versitygw_;
  std::unique_ptr<MotoServer> moto_;
};

class S3TestServers {
 public:
  // The server of `kind`, started now when it is not yet. A failed start is remembered: the
  // next call returns the same error at once rather than waiting out another start.
  Result<S3TestServer*> Get(S3TestServerKind kind);

 private:
  std::map<S3TestServerKind, std::unique_ptr<S3TestServer>> servers_;
  std::map<S3TestServerKind, Status> failures_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_S3_TEST_SERVER_H_
