// SaslServer: the server side of one SASL mechanism's exchange on one connection (Kafka's
// javax.security.sasl.SaslServer implementations): PLAIN (RFC 4616, users from the listener's
// JAAS text), SCRAM-SHA-256/512 (scram.h) and OAUTHBEARER (RFC 7628, oauthbearer.h). The
// connection's authenticator (server/sasl_authenticator.h) feeds it the client's tokens and
// sends back what it answers.
//
//   PLAIN message    [authzid] NUL authcid NUL passwd          (one step; empty answer)
//   SCRAM            client-first -> server-first, client-final -> server-final
//   OAUTHBEARER      n,[a=<authzid>],^Aauth=Bearer <jws>^A[key=value^A]*^A  (one step)
//
// A failed step returns the reason for the broker's log; client_error() is what the client is
// told: Kafka sends a SaslAuthenticationException's own text, and for any other failure the
// generic "Authentication failed during authentication due to invalid credentials with SASL
// mechanism <M>".
//
// Thread safety: a SaslServer is one connection's, not thread-safe. SaslCredentials is
// immutable once built and shared by every connection of a listener.
#ifndef SEGLOG_SECURITY_SASL_SERVER_H_
#define SEGLOG_SECURITY_SASL_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "security/oauthbearer.h"
#include "security/scram.h"
#include "seglog/result.h"

namespace seglog {

class SaslServer {
 public:
  virtual ~SaslServer() = default;
  virtual std::string_view mechanism() const = 0;
  // The answer to the client's next token (may be empty), or the failure.
  virtual Result<std::vector<uint8_t>> EvaluateResponse(std::span<const uint8_t> response) = 0;
  virtual bool complete() const = 0;
  // The authenticated name (the principal's name), once complete.
  virtual const std::string& authorization_id() const = 0;
  // When the credential stops being valid (an OAUTHBEARER token's exp), ms since the epoch.
  virtual std::optional<int64_t> credential_expiry_ms() const { return std::nullopt; }
  // After a failed step: the text for the client.
  virtual const std::string& client_error() const = 0;
};

// What a listener's mechanisms check credentials against.
struct SaslCredentials {
  // PLAIN: user -> password, the JAAS options user_<name>="<password>".
  std::map<std::string, std::string> plain_users;
  // SCRAM: the user's credential for the mechanism (the metadata log's), nullopt if none.
  std::function<std::optional<ScramCredential>(const std::string& user, ScramMechanism m)>
      scram_lookup;
  // OAUTHBEARER: how tokens are validated.
  OAuthBearerValidatorConfig oauthbearer;
  // Reads the wall clock (ms); tests set it.
  std::function<int64_t()> now_ms;
};

// "Authentication failed during authentication due to invalid credentials with SASL mechanism
// <mechanism>" ("re-authentication" when `reauth`).
std::string GenericSaslFailure(std::string_view mechanism, bool reauth);

// A server for `mechanism` ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");
// InvalidArgument for any other name. `credentials` must outlive it.
Result<std::unique_ptr<SaslServer>> NewSaslServer(std::string_view mechanism,
                                                  const SaslCredentials* credentials);

// Whether seglog has a server for `mechanism`.
bool IsSupportedSaslMechanism(std::string_view mechanism);

}  // namespace seglog

#endif  // SEGLOG_SECURITY_SASL_SERVER_H_
