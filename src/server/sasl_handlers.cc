// The SASL and delegation-token APIs as the broker answers them once a connection is past its
// authentication (the exchange itself is the connection's: server/sasl_authenticator.h).
//
// - SaslHandshake, SaslAuthenticate on an authenticated or PLAINTEXT/SSL connection:
//   ILLEGAL_SASL_STATE, as Kafka's KafkaApis answers them (a re-authentication's handshake
//   never reaches here).
// - Delegation tokens: seglog has no token authentication (delegation.token.secret.key is
//   not offered), and answers as a Kafka broker without it: every token API is
//   DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on PLAINTEXT and anonymous SSL connections (checked
//   against Kafka 4.4.0 with kafka-delegation-tokens.sh), else DELEGATION_TOKEN_AUTH_DISABLED.
#include "protocol/generated/create_delegation_token_request.h"
#include "protocol/generated/create_delegation_token_response.h"
#include "protocol/generated/describe_delegation_token_request.h"
#include "protocol/generated/describe_delegation_token_response.h"
#include "protocol/generated/expire_delegation_token_request.h"
#include "protocol/generated/expire_delegation_token_response.h"
#include "protocol/generated/renew_delegation_token_request.h"
#include "protocol/generated/renew_delegation_token_response.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"
#include "protocol/request_body.h"
#include "server/api_table.h"

namespace seglog {

namespace {

constexpr int16_t kIllegalSaslState = 34;
constexpr int16_t kDelegationTokenAuthDisabled = 61;
constexpr int16_t kDelegationTokenRequestNotAllowed = 64;
// Kafka's DelegationTokenManager.ErrorTimestamp.
constexpr int64_t kErrorTimestamp = -1;

// Kafka's allowTokenRequests: not over PLAINTEXT, nor over SSL without a client certificate.
int16_t TokenError(const RequestContext& rc) {
  const bool allowed = rc.security_protocol != "PLAINTEXT" &&
                       !(rc.security_protocol == "SSL" && rc.principal == "User:ANONYMOUS");
  return allowed ? kDelegationTokenAuthDisabled : kDelegationTokenRequestNotAllowed;
}

}  // namespace

void ServeSaslHandshake(ApiCall& c) {
  auto req = protocol::ParseRequestBody<protocol::SaslHandshakeRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::SaslHandshakeResponseData r;
  r.error_code = kIllegalSaslState;
  c.Reply(r);
}

void ServeSaslAuthenticate(ApiCall& c) {
  auto req = protocol::ParseRequestBody<protocol::SaslAuthenticateRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::SaslAuthenticateResponseData r;
  r.error_code = kIllegalSaslState;
  r.error_message = "SaslAuthenticate request received after successful authentication";
  c.Reply(r);
}

void ServeCreateDelegationToken(ApiCall& c) {
  auto req =
      protocol::ParseRequestBody<protocol::CreateDelegationTokenRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::CreateDelegationTokenResponseData r;
  r.error_code = TokenError(c.rc);
  // The owner is the requester unless the request names one (Kafka's prepareResponse).
  const std::string& principal = c.rc.principal;
  const size_t colon = principal.find(':');
  const std::string type = principal.substr(0, colon);
  const std::string name = principal.substr(colon + 1);
  if (req->owner_principal_name.has_value() && !req->owner_principal_name->empty()) {
    r.principal_type = req->owner_principal_type.value_or("User");
    r.principal_name = *req->owner_principal_name;
  } else {
    r.principal_type = type;
    r.principal_name = name;
  }
  if (c.version >= 3) {  // the requester fields are v3+
    r.token_requester_principal_type = type;
    r.token_requester_principal_name = name;
  }
  r.issue_timestamp_ms = kErrorTimestamp;
  r.expiry_timestamp_ms = kErrorTimestamp;
  r.max_timestamp_ms = kErrorTimestamp;
  c.Reply(r);
}

void ServeRenewDelegationToken(ApiCall& c) {
  auto req =
      protocol::ParseRequestBody<protocol::RenewDelegationTokenRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::RenewDelegationTokenResponseData r;
  r.error_code = TokenError(c.rc);
  r.expiry_timestamp_ms = kErrorTimestamp;
  c.Reply(r);
}

void ServeExpireDelegationToken(ApiCall& c) {
  auto req =
      protocol::ParseRequestBody<protocol::ExpireDelegationTokenRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::ExpireDelegationTokenResponseData r;
  r.error_code = TokenError(c.rc);
  r.expiry_timestamp_ms = kErrorTimestamp;
  c.Reply(r);
}

void ServeDescribeDelegationToken(ApiCall& c) {
  auto req =
      protocol::ParseRequestBody<protocol::DescribeDelegationTokenRequestData>(c.body(), c.version);
  if (!req.ok()) return c.ParseFailed(req.status());
  protocol::DescribeDelegationTokenResponseData r;
  r.error_code = TokenError(c.rc);
  c.Reply(r);
}

}  // namespace seglog
