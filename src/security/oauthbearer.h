// OAUTHBEARER (RFC 7628) as Kafka's broker validates it: the client's initial response, and
// the token checked either by Kafka's unsecured validator (development: an unsigned JWS, alg
// "none") or against the keys of a JWKS file (a signed JWS: RS256/384/512, ES256/384/512),
// with expected audience and issuer and a clock skew. docs/design/security.md, "OAUTHBEARER".
//
// Thread safety: the config is a value type; a server is one connection's.
#ifndef SEGLOG_SECURITY_OAUTHBEARER_H_
#define SEGLOG_SECURITY_OAUTHBEARER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/result.h"

namespace seglog {

class SaslServer;
struct SaslCredentials;

struct OAuthBearerValidatorConfig {
  enum class Kind {
    kUnsecured,  // Kafka's OAuthBearerUnsecuredValidatorCallbackHandler (its default)
    kJwks,       // OAuthBearerValidatorCallbackHandler with a file: JWKS
  };
  Kind kind = Kind::kUnsecured;
  // Unsecured validator's JAAS options.
  std::string principal_claim = "sub";      // unsecuredValidatorPrincipalClaimName
  std::string scope_claim = "scope";        // unsecuredValidatorScopeClaimName
  std::vector<std::string> required_scope;  // unsecuredValidatorRequiredScope
  int64_t allowable_clock_skew_ms = 0;      // unsecuredValidatorAllowableClockSkewMs
  // JWKS validator (sasl.oauthbearer.*).
  std::string jwks_json;  // the JWKS file's text, read when the listener starts
  std::vector<std::string> expected_audience;  // sasl.oauthbearer.expected.audience
  std::string expected_issuer;                 // sasl.oauthbearer.expected.issuer
  int64_t clock_skew_seconds = 30;             // sasl.oauthbearer.clock.skew.seconds
  std::string sub_claim_name = "sub";          // sasl.oauthbearer.sub.claim.name
  std::string scope_claim_name = "scope";      // sasl.oauthbearer.scope.claim.name
};

// The server for one connection; `credentials` (with its oauthbearer config and clock) must
// outlive it.
std::unique_ptr<SaslServer> NewOAuthBearerSaslServer(const SaslCredentials* credentials);

}  // namespace seglog

#endif  // SEGLOG_SECURITY_OAUTHBEARER_H_
