// SaslAuthenticator; see sasl_authenticator.h.
#include "server/sasl_authenticator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "base/coding.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"
#include "protocol/request_body.h"

namespace seglog {

namespace {

constexpr int16_t kApiVersionsKey = protocol::ApiVersionsRequestData::kApiKey;
constexpr int16_t kSaslHandshakeKey = protocol::SaslHandshakeRequestData::kApiKey;
constexpr int16_t kSaslAuthenticateKey = protocol::SaslAuthenticateRequestData::kApiKey;
constexpr int16_t kIllegalSaslState = 34;
constexpr int16_t kUnsupportedSaslMechanism = 33;
constexpr int16_t kSaslAuthenticationFailed = 58;

// A response frame: header and body at `version`; empty if the body cannot be encoded (the
// connection then closes without it).
template <typename Body>
std::vector<uint8_t> Encode(int16_t api_key, int16_t version, int32_t correlation_id,
                            const Body& body) {
  protocol::ProtocolWriter w;
  protocol::ResponseHeaderData header;
  header.correlation_id = correlation_id;
  if (!header.Encode(&w, protocol::ResponseHeaderVersion(api_key, version)).ok()) return {};
  if (!body.Encode(&w, version).ok()) return {};
  return w.bytes();
}

struct Header {
  int16_t api_key = 0;
  int16_t version = 0;
  int32_t correlation_id = 0;
  size_t body_offset = 0;
};

// The request header of `frame`; nullopt if it does not parse.
std::optional<Header> ParseHeader(std::span<const uint8_t> frame) {
  if (frame.size() < 8) return std::nullopt;
  Header h;
  h.api_key = LoadBEInt16(frame.data());
  h.version = LoadBEInt16(frame.data() + 2);
  h.correlation_id = LoadBEInt32(frame.data() + 4);
  if (protocol::FindApi(h.api_key) == nullptr) return std::nullopt;  // no such API
  const int16_t header_version = protocol::RequestHeaderVersion(h.api_key, h.version);
  protocol::ProtocolReader reader(frame);
  protocol::RequestHeaderData data;
  if (!data.Decode(&reader, header_version).ok()) return std::nullopt;
  h.body_offset = reader.position();
  return h;
}

// Kafka's ApiKeys enum name of an API ("METADATA", "SASL_HANDSHAKE").
std::string ApiKeyName(int16_t api_key) {
  const protocol::ApiMessageInfo* info = protocol::FindApi(api_key);
  if (info == nullptr) return std::to_string(api_key);
  std::string out;
  for (size_t i = 0; i < info->name.size(); ++i) {
    const char c = info->name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c))) out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

int32_t JavaStringHash(const std::string& s) {
  // ASCII names: one UTF-16 unit per byte.
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

}  // namespace

std::vector<std::string> JavaHashSetOrder(const std::vector<std::string>& names) {
  // HashSet(Collection): a table of max(n / 0.75 + 1, 16) rounded up to a power of two;
  // iteration is by bucket (hash ^ hash >>> 16, masked), then insertion order.
  std::vector<std::string> unique;
  for (const std::string& n : names) {
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  }
  size_t table = 1;
  const size_t want = std::max<size_t>(static_cast<size_t>(unique.size() / 0.75f) + 1, 16);
  while (table < want) table <<= 1;
  auto bucket = [table](const std::string& n) {
    const uint32_t h = static_cast<uint32_t>(JavaStringHash(n));
    return (h ^ (h >> 16)) & (table - 1);
  };
  std::stable_sort(unique.begin(), unique.end(), [&](const std::string& a, const std::string& b) {
    return bucket(a) < bucket(b);
  });
  return unique;
}

SaslAuthenticator::SaslAuthenticator(const SaslListenerConfig* config,
                                     int16_t api_versions_max_version)
    : config_(config), api_versions_max_version_(api_versions_max_version) {}

SaslAuthenticator::Step SaslAuthenticator::OnFrame(std::span<const uint8_t> frame, int64_t now_ms) {
  auto close = [](std::string why) { return Step{Step::Action::kClose, {}, std::move(why)}; };
  switch (state_) {
    case State::kComplete:
    case State::kFailed:
      return close("request after the SASL exchange ended");
    case State::kReauthBadMechanism:
      state_ = State::kFailed;
      return Step{Step::Action::kFail,
                  {},
                  fmt::format("SASL mechanism '{}' requested by client is not supported for "
                              "re-authentication of mechanism '{}'",
                              reauth_mechanism_, mechanism_)};
    case State::kAuthenticate:
      return Token(frame, now_ms);
    default:
      break;
  }
  std::optional<Header> h = ParseHeader(frame);
  if (!h.has_value() || (h->api_key != kApiVersionsKey && h->api_key != kSaslHandshakeKey)) {
    const bool first = state_ == State::kInitial;
    state_ = State::kFailed;
    if (first) {
      return close(
          "Invalid request, potential reasons: kafka client configured with the wrong security "
          "protocol, it does not support KIP-43 or it is not a kafka client.");
    }
    return close(fmt::format("Unexpected Kafka request of type {} during SASL handshake.",
                             h.has_value() ? ApiKeyName(h->api_key) : "(unparsable)"));
  }
  if (state_ == State::kInitial) state_ = State::kHandshakeOrVersions;
  if (h->api_key == kApiVersionsKey) {
    if (state_ != State::kHandshakeOrVersions || reauthenticating_) {
      state_ = State::kFailed;
      return close(
          "Unexpected ApiVersions request received during SASL authentication state "
          "HANDSHAKE_REQUEST");
    }
    // The broker answers it; an unsupported version is answered with an error and the client
    // may retry, so the state moves on only for one it can answer.
    if (h->version <= api_versions_max_version_) state_ = State::kHandshake;
    return Step{Step::Action::kForward, {}, {}};
  }
  return Handshake(h->version, h->correlation_id, frame.subspan(h->body_offset));
}

SaslAuthenticator::Step SaslAuthenticator::Handshake(int16_t version, int32_t correlation_id,
                                                     std::span<const uint8_t> body) {
  if (version < protocol::SaslHandshakeRequestData::kLowestSupportedVersion ||
      version > protocol::SaslHandshakeRequestData::kHighestSupportedVersion) {
    state_ = State::kFailed;
    return Step{Step::Action::kClose,
                {},
                fmt::format("Version {} is not supported for apiKey SASL_HANDSHAKE", version)};
  }
  auto request = protocol::ParseRequestBody<protocol::SaslHandshakeRequestData>(body, version);
  if (!request.ok()) {
    state_ = State::kFailed;
    return Step{Step::Action::kClose,
                {},
                "Error parsing the SaslHandshake request: " + request.status().ToString()};
  }
  protocol::SaslHandshakeResponseData response;
  response.mechanisms = config_->enabled_mechanisms;
  const std::string& wanted = request->mechanism;
  const bool enabled =
      std::find(config_->enabled_mechanisms.begin(), config_->enabled_mechanisms.end(), wanted) !=
      config_->enabled_mechanisms.end();
  if (!enabled) {
    response.error_code = kUnsupportedSaslMechanism;
    state_ = State::kFailed;
    return Step{Step::Action::kFail, Encode(kSaslHandshakeKey, version, correlation_id, response),
                fmt::format("Unsupported SASL mechanism {}", wanted)};
  }
  std::vector<uint8_t> bytes = Encode(kSaslHandshakeKey, version, correlation_id, response);
  if (reauthenticating_ && wanted != mechanism_) {
    reauth_mechanism_ = wanted;
    state_ = State::kReauthBadMechanism;
    return Step{Step::Action::kSend, std::move(bytes), {}};
  }
  auto server = NewSaslServer(wanted, config_->credentials.get());
  if (!server.ok()) {
    state_ = State::kFailed;
    return Step{Step::Action::kClose, {}, server.status().ToString()};
  }
  server_ = std::move(server).value();
  mechanism_ = wanted;
  kafka_headers_ = version >= 1;
  state_ = State::kAuthenticate;
  return Step{Step::Action::kSend, std::move(bytes), {}};
}

SaslAuthenticator::Step SaslAuthenticator::Token(std::span<const uint8_t> frame, int64_t now_ms) {
  int16_t version = 0;
  int32_t correlation_id = 0;
  std::span<const uint8_t> token = frame;
  std::vector<uint8_t> token_bytes;
  if (kafka_headers_) {
    std::optional<Header> h = ParseHeader(frame);
    if (!h.has_value()) {
      state_ = State::kFailed;
      return Step{Step::Action::kClose, {}, "Unparsable request during SASL authentication."};
    }
    version = h->version;
    correlation_id = h->correlation_id;
    if (h->api_key != kSaslAuthenticateKey) {
      state_ = State::kFailed;
      const std::string why =
          fmt::format("Unexpected Kafka request of type {} during SASL authentication.",
                      ApiKeyName(h->api_key));
      // Kafka answers with the request's own error response (ILLEGAL_SASL_STATE); seglog can
      // build that for the SASL APIs, and closes without an answer for any other.
      if (h->api_key == kSaslHandshakeKey && h->version <= 1) {
        protocol::SaslHandshakeResponseData r;
        r.error_code = kIllegalSaslState;
        return Step{Step::Action::kFail, Encode(kSaslHandshakeKey, h->version, correlation_id, r),
                    why};
      }
      return Step{Step::Action::kClose, {}, why};
    }
    if (version > protocol::SaslAuthenticateRequestData::kHighestSupportedVersion) {
      state_ = State::kFailed;
      return Step{Step::Action::kClose,
                  {},
                  fmt::format("Version {} is not supported for apiKey SASL_AUTHENTICATE", version)};
    }
    auto request = protocol::ParseRequestBody<protocol::SaslAuthenticateRequestData>(
        frame.subspan(h->body_offset), version);
    if (!request.ok()) {
      state_ = State::kFailed;
      return Step{Step::Action::kClose,
                  {},
                  "Error parsing the SaslAuthenticate request: " + request.status().ToString()};
    }
    token_bytes = std::move(request->auth_bytes);
    token = token_bytes;
  }
  Result<std::vector<uint8_t>> answer = server_->EvaluateResponse(token);
  if (!answer.ok()) {
    // A text for the client that is not the mechanism's own is Kafka's generic one.
    std::string message = server_->client_error();
    if (message.empty() || message == GenericSaslFailure(mechanism_, false)) {
      message = GenericSaslFailure(mechanism_, reauthenticating_);
    }
    return AuthFailed(std::move(message), std::string(answer.status().message()), version,
                      correlation_id);
  }
  if (!server_->complete()) {
    if (!kafka_headers_) return Step{Step::Action::kSend, std::move(answer).value(), {}};
    protocol::SaslAuthenticateResponseData r;
    r.auth_bytes = std::move(answer).value();
    return Step{Step::Action::kSend, Encode(kSaslAuthenticateKey, version, correlation_id, r), {}};
  }
  return Authenticated(now_ms, std::move(answer).value(), version, correlation_id);
}

SaslAuthenticator::Step SaslAuthenticator::Authenticated(int64_t now_ms, std::vector<uint8_t> token,
                                                         int16_t version, int32_t correlation_id) {
  const std::string principal = "User:" + server_->authorization_id();
  if (reauthenticating_ && principal != principal_) {
    return AuthFailed(fmt::format("Cannot change principals during re-authentication from "
                                  "User.{}: User.{}",
                                  principal_.substr(5), server_->authorization_id()),
                      "principal changed", version, correlation_id);
  }
  principal_ = principal;
  // KIP-368's session lifetime: the shorter of connections.max.reauth.ms and the credential's
  // remaining life; none when neither is set.
  int64_t max_ms = 0;
  if (auto it = config_->max_reauth_ms.find(mechanism_); it != config_->max_reauth_ms.end()) {
    max_ms = it->second;
  }
  const std::optional<int64_t> expiry = server_->credential_expiry_ms();
  int64_t lifetime = 0;
  if (max_ms > 0 && expiry.has_value()) {
    lifetime = std::min(*expiry - now_ms, max_ms);
  } else if (max_ms > 0) {
    lifetime = max_ms;
  } else if (expiry.has_value()) {
    lifetime = *expiry - now_ms;
  }
  lifetime = std::max<int64_t>(lifetime, 0);
  session_expiry_ms_.reset();
  if (max_ms > 0 || expiry.has_value()) session_expiry_ms_ = now_ms + lifetime;
  state_ = State::kComplete;
  reauthenticating_ = false;
  server_.reset();
  if (!kafka_headers_) return Step{Step::Action::kSend, std::move(token), {}};
  protocol::SaslAuthenticateResponseData r;
  r.auth_bytes = std::move(token);
  r.session_lifetime_ms = version >= 1 ? lifetime : 0;
  return Step{Step::Action::kSend, Encode(kSaslAuthenticateKey, version, correlation_id, r), {}};
}

SaslAuthenticator::Step SaslAuthenticator::AuthFailed(std::string client_message,
                                                      std::string reason, int16_t version,
                                                      int32_t correlation_id) {
  state_ = State::kFailed;
  server_.reset();
  if (!kafka_headers_) return Step{Step::Action::kFail, {}, std::move(reason)};
  protocol::SaslAuthenticateResponseData r;
  r.error_code = kSaslAuthenticationFailed;
  r.error_message = std::move(client_message);
  return Step{Step::Action::kFail, Encode(kSaslAuthenticateKey, version, correlation_id, r),
              std::move(reason)};
}

bool SaslAuthenticator::StartsReauthentication(std::span<const uint8_t> frame, int64_t now_ms) {
  if (state_ != State::kComplete || !session_expiry_ms_.has_value()) return false;
  if (frame.size() < 2 || LoadBEInt16(frame.data()) != kSaslHandshakeKey) return false;
  if (reauth_started_ms_ != 0 && now_ms - reauth_started_ms_ < 1000) return false;
  reauth_started_ms_ = now_ms;
  reauthenticating_ = true;
  state_ = State::kHandshake;
  return true;
}

bool SaslAuthenticator::SessionExpired(int64_t now_ms) const {
  return state_ == State::kComplete && session_expiry_ms_.has_value() &&
         now_ms > *session_expiry_ms_;
}

}  // namespace seglog
