// SaslServer's factory, PLAIN and the SCRAM adapter; see sasl_server.h. OAUTHBEARER is in
// oauthbearer.cc.
#include "security/sasl_server.h"

#include <fmt/format.h>

namespace seglog {

namespace {

// PLAIN (Kafka's PlainSaslServer with its PlainServerCallbackHandler): one message, checked
// against the listener's user_<name> passwords, compared exactly (no SASLprep). Every failure
// is an authentication failure whose text the client is told.
class PlainSaslServer final : public SaslServer {
 public:
  explicit PlainSaslServer(const SaslCredentials* credentials) : credentials_(credentials) {}

  std::string_view mechanism() const override { return "PLAIN"; }
  bool complete() const override { return complete_; }
  const std::string& authorization_id() const override { return user_; }
  const std::string& client_error() const override { return error_; }

  Result<std::vector<uint8_t>> EvaluateResponse(std::span<const uint8_t> response) override {
    if (complete_ || failed_) {
      return Fail("Authentication failed: PLAIN exchange already finished", false);
    }
    const std::string_view text(reinterpret_cast<const char*>(response.data()), response.size());
    // Split on NUL into at most four pieces, as Kafka does: exactly three are a message.
    std::vector<std::string_view> tokens;
    size_t from = 0;
    while (tokens.size() < 3) {
      const size_t nul = text.find('\0', from);
      if (nul == std::string_view::npos) break;
      tokens.push_back(text.substr(from, nul - from));
      from = nul + 1;
    }
    tokens.push_back(text.substr(from));
    if (tokens.size() != 3) {
      return Fail(
          fmt::format("Invalid SASL/PLAIN response: expected 3 tokens, got {}", tokens.size()),
          true);
    }
    const std::string_view authzid = tokens[0], user = tokens[1], password = tokens[2];
    if (user.empty()) return Fail("Authentication failed: username not specified", true);
    if (password.empty()) return Fail("Authentication failed: password not specified", true);
    auto it = credentials_->plain_users.find(std::string(user));
    if (it == credentials_->plain_users.end() || it->second != password) {
      return Fail("Authentication failed: Invalid username or password", true);
    }
    if (!authzid.empty() && authzid != user) {
      return Fail(
          "Authentication failed: Client requested an authorization id that is different from "
          "username",
          true);
    }
    user_ = std::string(user);
    complete_ = true;
    return std::vector<uint8_t>{};
  }

 private:
  Status Fail(std::string why, bool for_client) {
    failed_ = true;
    error_ = for_client ? why : GenericSaslFailure("PLAIN", false);
    return Status::InvalidArgument(why);
  }

  const SaslCredentials* const credentials_;
  std::string user_;
  std::string error_;
  bool complete_ = false;
  bool failed_ = false;
};

// SCRAM-SHA-256/512: ScramServer's two steps.
class ScramSaslServer final : public SaslServer {
 public:
  ScramSaslServer(ScramMechanism m, const SaslCredentials* credentials)
      : name_(ScramMechanismName(m)),
        server_(m, [credentials, m](const std::string& user) -> std::optional<ScramCredential> {
          if (!credentials->scram_lookup) return std::nullopt;
          return credentials->scram_lookup(user, m);
        }) {}

  std::string_view mechanism() const override { return name_; }
  bool complete() const override { return server_.complete(); }
  const std::string& authorization_id() const override { return server_.username(); }
  const std::string& client_error() const override { return server_.client_error(); }

  Result<std::vector<uint8_t>> EvaluateResponse(std::span<const uint8_t> response) override {
    const std::string_view text(reinterpret_cast<const char*>(response.data()), response.size());
    Result<std::string> out = first_ ? server_.ClientFirst(text) : server_.ClientFinal(text);
    first_ = false;
    if (!out.ok()) return out.status();
    return std::vector<uint8_t>(out->begin(), out->end());
  }

 private:
  const std::string_view name_;
  ScramServer server_;
  bool first_ = true;
};

}  // namespace

std::string GenericSaslFailure(std::string_view mechanism, bool reauth) {
  return fmt::format(
      "Authentication failed during {} due to invalid credentials with SASL mechanism {}",
      reauth ? "re-authentication" : "authentication", mechanism);
}

bool IsSupportedSaslMechanism(std::string_view mechanism) {
  return mechanism == "PLAIN" || mechanism == "OAUTHBEARER" ||
         ScramMechanismFromName(mechanism) != ScramMechanism::kUnknown;
}

Result<std::unique_ptr<SaslServer>> NewSaslServer(std::string_view mechanism,
                                                  const SaslCredentials* credentials) {
  if (mechanism == "PLAIN") return std::unique_ptr<SaslServer>(new PlainSaslServer(credentials));
  if (mechanism == "OAUTHBEARER") return NewOAuthBearerSaslServer(credentials);
  const ScramMechanism m = ScramMechanismFromName(mechanism);
  if (m != ScramMechanism::kUnknown) {
    return std::unique_ptr<SaslServer>(new ScramSaslServer(m, credentials));
  }
  return Status::InvalidArgument(fmt::format("Unsupported SASL mechanism {}", mechanism));
}

}  // namespace seglog
