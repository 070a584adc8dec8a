// SaslAuthenticator: the SASL exchange at the start of a SASL_PLAINTEXT or SASL_SSL connection
// (Kafka's SaslServerAuthenticator), and KIP-368 re-authentication later on. The connection
// hands it every frame until the client is authenticated; it answers each with a Step: a
// response to send, a request for the broker to answer (ApiVersions), or a failure.
//
//   INITIAL --ApiVersions--> HANDSHAKE --SaslHandshake--> AUTHENTICATE --tokens--> COMPLETE
//       \--SaslHandshake (v0 or v1)----------------------^        |
//                                                                  \--bad token--> FAILED
//
// - Before the handshake only ApiVersions (once) and SaslHandshake are accepted; anything else
//   closes the connection without an answer (Kafka's InvalidRequestException).
// - A SaslHandshake v0 makes the tokens raw frames (no Kafka header) both ways; v1 wraps each in
//   SaslAuthenticate (v0-2) requests and responses.
// - A failed authentication is answered with SASL_AUTHENTICATION_FAILED and Kafka's text; the
//   connection sends it after connection.failed.authentication.delay.ms and closes.
// - Frames before authentication may be at most sasl.server.max.receive.size bytes.
// - Re-authentication: after a session with an expiry (connections.max.reauth.ms, or an
//   OAUTHBEARER token's exp), a SaslHandshake starts a new exchange for the same mechanism and
//   principal; once the session has expired, any other request closes the connection.
//
// Thread safety: one connection's, on its network thread; not thread-safe.
#ifndef SEGLOG_SERVER_SASL_AUTHENTICATOR_H_
#define SEGLOG_SERVER_SASL_AUTHENTICATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "security/sasl_server.h"

namespace seglog {

// One SASL listener's settings, shared by its connections.
struct SaslListenerConfig {
  // sasl.enabled.mechanisms, in the order Kafka lists them in SaslHandshake responses.
  std::vector<std::string> enabled_mechanisms;
  std::shared_ptr<const SaslCredentials> credentials;
  // connections.max.reauth.ms per mechanism (listener.name.<l>.<mech>.connections.max.reauth.ms
  // or the listener's); 0: sessions do not expire.
  std::map<std::string, int64_t> max_reauth_ms;
  int32_t max_receive_size = 524288;  // sasl.server.max.receive.size
};

// Kafka lists sasl.enabled.mechanisms as a java.util.HashSet iterates them; this is that order.
std::vector<std::string> JavaHashSetOrder(const std::vector<std::string>& names);

class SaslAuthenticator {
 public:
  struct Step {
    enum class Action {
      kSend,     // send `response`; the exchange goes on
      kForward,  // let the broker answer this request (ApiVersions)
      kClose,    // close now, without an answer
      kFail,     // authentication failed: after the delay send `response` (if any), close
    };
    Action action = Action::kClose;
    std::vector<uint8_t> response;  // the frame without its size prefix
    std::string reason;             // kClose, kFail: for the log
  };

  SaslAuthenticator(const SaslListenerConfig* config, int16_t api_versions_max_version);

  // The client's next frame (without its size prefix), while !authenticated().
  Step OnFrame(std::span<const uint8_t> frame, int64_t now_ms);

  // Authenticated, and not re-authenticating.
  bool authenticated() const { return state_ == State::kComplete; }
  // "User:<name>", once authenticated.
  const std::string& principal() const { return principal_; }
  const std::string& mechanism() const { return mechanism_; }

  // On an authenticated connection: whether `frame` starts a re-authentication (a SaslHandshake
  // while the session has an expiry, at least a second after the last one started). When true,
  // the state is back to the handshake and the frame goes to OnFrame.
  bool StartsReauthentication(std::span<const uint8_t> frame, int64_t now_ms);
  // Whether the session had an expiry and it has passed.
  bool SessionExpired(int64_t now_ms) const;

  int32_t max_receive_size() const { return config_->max_receive_size; }

 private:
  enum class State {
    kInitial,
    kHandshakeOrVersions,
    kHandshake,
    kAuthenticate,
    kComplete,
    kFailed,
    kReauthBadMechanism,
  };

  Step Handshake(int16_t version, int32_t correlation_id, std::span<const uint8_t> body);
  Step Token(std::span<const uint8_t> frame, int64_t now_ms);
  Step Authenticated(int64_t now_ms, std::vector<uint8_t> token, int16_t version,
                     int32_t correlation_id);
  Step AuthFailed(std::string client_message, std::string reason, int16_t version,
                  int32_t correlation_id);

  const SaslListenerConfig* const config_;
  const int16_t api_versions_max_version_;
  State state_ = State::kInitial;
  bool kafka_headers_ = false;  // SaslHandshake v1: tokens in SaslAuthenticate requests
  bool reauthenticating_ = false;
  std::string mechanism_;
  std::string reauth_mechanism_;  // the one a re-authentication's handshake asked for
  std::unique_ptr<SaslServer> server_;
  std::string principal_;
  std::optional<int64_t> session_expiry_ms_;
  int64_t reauth_started_ms_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_SASL_AUTHENTICATOR_H_
