// S3TestServer (s3_test_server.h): a VersityGateway or a MotoServer behind one face.
#include "remote/testing/s3_test_server.h"

namespace seglog {

std::string S3TestServerName(S3TestServerKind kind) {
  switch (kind) {
    case S3TestServerKind::kVersityGateway:
      return "versitygw";
    case S3TestServerKind::kMoto:
      return "moto";
  }
  return "unknown";
}

Result<std::unique_ptr<S3TestServer>> S3TestServer::Start(S3TestServerKind kind) {
  auto server = std::unique_ptr<S3TestServer>(new S3TestServer(kind));
  if (kind == S3TestServerKind::kVersityGateway) {
    SEGLOG_ASSIGN_OR_RETURN(server->versitygw_, VersityGateway::Start());
  } else {
    SEGLOG_ASSIGN_OR_RETURN(server->moto_, MotoServer::Start());
  }
  return server;
}

std::string S3TestServer::endpoint_url() const {
  return versitygw_ ? versitygw_->endpoint_url() : moto_->endpoint_url();
}
int S3TestServer::port() const { return versitygw_ ? versitygw_->port() : moto_->port(); }
const std::string& S3TestServer::region() const {
  return versitygw_ ? versitygw_->options().region : moto_->options().region;
}
const std::string& S3TestServer::access_key() const {
  return versitygw_ ? versitygw_->options().access_key : moto_->options().access_key;
}
const std::string& S3TestServer::secret_key() const {
  return versitygw_ ? versitygw_->options().secret_key : moto_->options().secret_key;
}
std::string S3TestServer::log_path() const {
  return versitygw_ ? versitygw_->log_path() : moto_->log_path();
}
bool S3TestServer::running() const { return versitygw_ ? versitygw_->running() : moto_->running(); }
Status S3TestServer::Stop() { return versitygw_ ? versitygw_->Stop() : moto_->Stop(); }
Status S3TestServer::Restart() { return versitygw_ ? versitygw_->Restart() : moto_->Restart(); }

Result<S3TestServer*> S3TestServers::Get(S3TestServerKind kind) {
  if (auto it = servers_.find(kind); it != servers_.end()) return it->second.get();
  if (auto it = failures_.find(kind); it != failures_.end()) return it->second;
  Result<std::unique_ptr<S3TestServer>> started = S3TestServer::Start(kind);
  if (!started.ok()) {
    failures_.emplace(kind, started.status());
    return started.status();
  }
  S3TestServer* server = started->get();
  servers_.emplace(kind, std::move(*started));
  return server;
}

}  // namespace seglog
