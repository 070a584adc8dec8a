// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka runs them: the credential a
// user's password becomes (salt, StoredKey, ServerKey, iterations - never the password; the
// metadata log's UserScramCredentialRecord), and the server side of one exchange
// (docs/design/security.md, "SCRAM"). Hashes and HMACs come from OpenSSL.
//
//   client-first  n,[a=<authzid>],[m=<reserved>,]n=<saslname>,r=<client nonce>[,<ext>=<v>...]
//   server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
//   client-final  c=<base64 channel binding>,r=<nonce>[,<ext>=<v>...],p=<base64 ClientProof>
//   server-final  v=<base64 ServerSignature>
//
//   SaltedPassword = PBKDF2-HMAC-H(UTF-8 password, salt, iterations)   (no SASLprep, as Kafka)
//   ClientKey = HMAC(SaltedPassword, "Client Key")   StoredKey = H(ClientKey)
//   ServerKey = HMAC(SaltedPassword, "Server Key")
//   AuthMessage = client-first-bare "," server-first "," client-final-without-proof
//   the client proves ClientKey: H(ClientProof XOR HMAC(StoredKey, AuthMessage)) == StoredKey
//
// Thread safety: the functions are pure; a ScramServer is one connection's, not thread-safe.
#ifndef SEGLOG_SECURITY_SCRAM_H_
#define SEGLOG_SECURITY_SCRAM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/result.h"

namespace seglog {

// Kafka's ScramMechanism codes (AlterUserScramCredentials, UserScramCredentialRecord).
enum class ScramMechanism : int8_t { kUnknown = 0, kSha256 = 1, kSha512 = 2 };

inline constexpr int32_t kScramMinIterations = 4096;
inline constexpr int32_t kScramMaxIterations = 16384;

// "SCRAM-SHA-256", "SCRAM-SHA-512"; kUnknown for any other name (exact, as Kafka).
ScramMechanism ScramMechanismFromName(std::string_view name);
std::string_view ScramMechanismName(ScramMechanism m);  // "UNKNOWN" for kUnknown
ScramMechanism ScramMechanismFromCode(int8_t code);

struct ScramCredential {
  ScramMechanism mechanism = ScramMechanism::kUnknown;
  std::vector<uint8_t> salt;
  std::vector<uint8_t> stored_key;
  std::vector<uint8_t> server_key;
  int32_t iterations = 0;
};

// The credential of a password (what `kafka-configs --add-config 'SCRAM-SHA-256=[password=..]'`
// makes), or of an already salted password (what AlterUserScramCredentials carries).
// InvalidArgument for an unknown mechanism or iterations outside [4096, 16384].
Result<ScramCredential> ScramCredentialFromPassword(ScramMechanism m, std::string_view password,
                                                    std::span<const uint8_t> salt,
                                                    int32_t iterations);
Result<ScramCredential> ScramCredentialFromSaltedPassword(ScramMechanism m,
                                                          std::span<const uint8_t> salted_password,
                                                          std::span<const uint8_t> salt,
                                                          int32_t iterations);
// A fresh salt as Kafka's ScramFormatter makes one: the bytes of a random base-36 string.
std::vector<uint8_t> ScramRandomSalt();

// PBKDF2-HMAC-H of `password` (the RFC's Hi); the length of one hash.
std::vector<uint8_t> ScramSaltedPassword(ScramMechanism m, std::string_view password,
                                         std::span<const uint8_t> salt, int32_t iterations);

// Kafka's username <-> saslname: '=' is "=3D" and ',' is "=2C". InvalidArgument
// ("Invalid username: <saslname>") for any other '=' in a saslname.
std::string ScramSaslName(std::string_view username);
Result<std::string> ScramUsername(std::string_view saslname);

std::string Base64Encode(std::span<const uint8_t> bytes);
// InvalidArgument for anything but canonical base64 (padding included).
Result<std::vector<uint8_t>> Base64Decode(std::string_view text);

// The server side of one SCRAM exchange (Kafka's ScramSaslServer): ClientFirst answers the
// server-first message, ClientFinal the server-final one. A failed step's Status has Kafka's
// reason, for the log; what the client is told is client_error() (Kafka sends its
// SaslAuthenticationException texts as they are, and for every other failure the generic
// "Authentication failed during authentication due to invalid credentials with SASL mechanism
// <M>"). After a failure every step fails.
class ScramServer {
 public:
  // `lookup`: the user's credential for this mechanism, or nullopt for an unknown user.
  using CredentialLookup = std::function<std::optional<ScramCredential>(const std::string& user)>;
  // `nonce`: the server's part of the nonce (tests fix it; empty draws a random one).
  ScramServer(ScramMechanism mechanism, CredentialLookup lookup, std::string nonce = "");

  Result<std::string> ClientFirst(std::string_view message);
  Result<std::string> ClientFinal(std::string_view message);
  // The authenticated user, once ClientFinal succeeded.
  const std::string& username() const { return username_; }
  // The error message for the client after a failed step.
  const std::string& client_error() const { return client_error_; }
  bool complete() const { return state_ == State::kComplete; }

 private:
  enum class State { kClientFirst, kClientFinal, kComplete, kFailed };
  // Fails the exchange; `for_client`: the reason is also what the client is told.
  Status Fail(Status s, bool for_client = false);

  const ScramMechanism mechanism_;
  const CredentialLookup lookup_;
  std::string server_nonce_;
  State state_ = State::kClientFirst;
  std::string username_;
  std::string client_error_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;
  ScramCredential credential_;
};

}  // namespace seglog

#endif  // SEGLOG_SECURITY_SCRAM_H_
