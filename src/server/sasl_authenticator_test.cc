// SaslAuthenticator: Kafka's SASL state machine, frame by frame.
#include "server/sasl_authenticator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "protocol/generated/api_messages.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"

namespace seglog {
namespace {

using protocol::ProtocolReader;
using protocol::ProtocolWriter;
using Action = SaslAuthenticator::Step::Action;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename Body>
std::vector<uint8_t> Frame(const Body& body, int16_t version, int32_t correlation_id = 7) {
  protocol::RequestHeaderData h;
  h.request_api_key = Body::kApiKey;
  h.request_api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "t";
  ProtocolWriter w;
  EXPECT_TRUE(h.Encode(&w, protocol::RequestHeaderVersion(Body::kApiKey, version)).ok());
  EXPECT_TRUE(body.Encode(&w, version).ok());
  return w.bytes();
}

template <typename Body>
Body Decode(const std::vector<uint8_t>& frame, int16_t version, int32_t correlation_id = 7) {
  ProtocolReader r(frame);
  protocol::ResponseHeaderData h;
  EXPECT_TRUE(h.Decode(&r, protocol::ResponseHeaderVersion(Body::kApiKey, version)).ok());
  EXPECT_EQ(h.correlation_id, correlation_id);
  Body b;
  EXPECT_TRUE(b.Decode(&r, version).ok());
  return b;
}

std::vector<uint8_t> Handshake(const std::string& mechanism, int16_t version = 1) {
  protocol::SaslHandshakeRequestData h;
  h.mechanism = mechanism;
  return Frame(h, version);
}

std::vector<uint8_t> Authenticate(const std::string& bytes, int16_t version = 2) {
  protocol::SaslAuthenticateRequestData a;
  a.auth_bytes.assign(bytes.begin(), bytes.end());
  return Frame(a, version);
}

// A SCRAM-SHA-256 client's proof: ClientKey XOR HMAC(H(ClientKey), AuthMessage).
std::vector<uint8_t> ClientProof(const std::vector<uint8_t>& salted, const std::string& message) {
  unsigned char client_key[32], stored_key[32], signature[32];
  unsigned int n = 0;
  HMAC(EVP_sha256(), salted.data(), static_cast<int>(salted.size()),
       reinterpret_cast<const unsigned char*>("Client Key"), 10, client_key, &n);
  SHA256(client_key, 32, stored_key);
  HMAC(EVP_sha256(), stored_key, 32, reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), signature, &n);
  std::vector<uint8_t> proof(32);
  for (size_t i = 0; i < 32; ++i) proof[i] = client_key[i] ^ signature[i];
  return proof;
}

std::string Plain(const std::string& user, const std::string& password) {
  return std::string("\0", 1) + user + std::string("\0", 1) + password;
}

class SaslAuthenticatorTest : public ::testing::Test {
 protected:
  SaslAuthenticatorTest() {
    auto credentials = std::make_shared<SaslCredentials>();
    credentials->plain_users = {{"alice", "alice-secret"}, {"bob", "bob-secret"}};
    credentials->scram_lookup = [](const std::string& user,
                                   ScramMechanism m) -> std::optional<ScramCredential> {
      if (user != "carol") return std::nullopt;
      const std::vector<uint8_t> salt = {1, 2, 3, 4};
      auto c = ScramCredentialFromPassword(m, "carol-secret", salt, 4096);
      return c.ok() ? std::optional<ScramCredential>(*c) : std::nullopt;
    };
    config_.credentials = credentials;
    config_.enabled_mechanisms = JavaHashSetOrder({"SCRAM-SHA-256", "PLAIN"});
  }
  SaslAuthenticator Make() { return SaslAuthenticator(&config_, 4); }

  SaslListenerConfig config_;
};

TEST(JavaHashSetOrderTest, ListsMechanismsAsKafkasHashSetDoes) {
  // Ground truth from a JVM: new ArrayList<>(new HashSet<>(Arrays.asList(...))).
  EXPECT_THAT(JavaHashSetOrder({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"}),
              ElementsAre("PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256", "OAUTHBEARER"));
  EXPECT_THAT(JavaHashSetOrder({"SCRAM-SHA-512", "PLAIN"}), ElementsAre("SCRAM-SHA-512", "PLAIN"));
  EXPECT_THAT(
      JavaHashSetOrder({"OAUTHBEARER", "SCRAM-SHA-256", "PLAIN", "SCRAM-SHA-512", "GSSAPI"}),
      ElementsAre("PLAIN", "SCRAM-SHA-512", "GSSAPI", "SCRAM-SHA-256", "OAUTHBEARER"));
  EXPECT_THAT(JavaHashSetOrder({"PLAIN", "PLAIN"}), ElementsAre("PLAIN"));
}

TEST_F(SaslAuthenticatorTest, PlainWithKafkaHeadersAuthenticates) {
  SaslAuthenticator a = Make();
  protocol::ApiVersionsRequestData versions;
  versions.client_software_name = "t";
  versions.client_software_version = "1";
  auto step = a.OnFrame(Frame(versions, 3), 0);
  EXPECT_EQ(step.action, Action::kForward);  // the broker answers ApiVersions
  step = a.OnFrame(Handshake("PLAIN"), 0);
  ASSERT_EQ(step.action, Action::kSend);
  auto hs = Decode<protocol::SaslHandshakeResponseData>(step.response, 1);
  EXPECT_EQ(hs.error_code, 0);
  EXPECT_THAT(hs.mechanisms, ElementsAre("PLAIN", "SCRAM-SHA-256"));
  EXPECT_FALSE(a.authenticated());
  step = a.OnFrame(Authenticate(Plain("alice", "alice-secret")), 1000);
  ASSERT_EQ(step.action, Action::kSend);
  auto auth = Decode<protocol::SaslAuthenticateResponseData>(step.response, 2);
  EXPECT_EQ(auth.error_code, 0);
  EXPECT_TRUE(auth.auth_bytes.empty());
  EXPECT_EQ(auth.session_lifetime_ms, 0);  // connections.max.reauth.ms is 0
  EXPECT_TRUE(a.authenticated());
  EXPECT_EQ(a.principal(), "User:alice");
  EXPECT_FALSE(a.SessionExpired(1LL << 50));
}

TEST_F(SaslAuthenticatorTest, WrongPasswordFailsWithKafkasTextAfterTheResponse) {
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  auto step = a.OnFrame(Authenticate(Plain("alice", "wrong")), 0);
  ASSERT_EQ(step.action, Action::kFail);
  auto auth = Decode<protocol::SaslAuthenticateResponseData>(step.response, 2);
  EXPECT_EQ(auth.error_code, 58);  // SASL_AUTHENTICATION_FAILED
  EXPECT_EQ(auth.error_message, "Authentication failed: Invalid username or password");
  EXPECT_FALSE(a.authenticated());
  // Nothing after a failure is served.
  EXPECT_EQ(a.OnFrame(Authenticate(Plain("alice", "alice-secret")), 0).action, Action::kClose);
}

TEST_F(SaslAuthenticatorTest, PlainMessageShapesAreCheckedAsKafkaDoes) {
  for (const auto& [message, text] : std::vector<std::pair<std::string, std::string>>{
           {"alice", "Invalid SASL/PLAIN response: expected 3 tokens, got 1"},
           {std::string("a\0b", 3), "Invalid SASL/PLAIN response: expected 3 tokens, got 2"},
           {std::string("a\0b\0c\0d\0e", 9),
            "Invalid SASL/PLAIN response: expected 3 tokens, got 4"},
           {Plain("", "x"), "Authentication failed: username not specified"},
           {Plain("alice", ""), "Authentication failed: password not specified"},
           {"bob" + Plain("alice", "alice-secret"),
            "Authentication failed: Client requested an authorization id that is different from "
            "username"},
           {Plain("mallory", "x"), "Authentication failed: Invalid username or password"}}) {
    SaslAuthenticator a = Make();
    ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
    auto step = a.OnFrame(Authenticate(message), 0);
    ASSERT_EQ(step.action, Action::kFail) << text;
    EXPECT_EQ(Decode<protocol::SaslAuthenticateResponseData>(step.response, 2).error_message, text);
  }
  // An authorization id equal to the user is accepted.
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  EXPECT_EQ(a.OnFrame(Authenticate("alice" + Plain("alice", "alice-secret")), 0).action,
            Action::kSend);
  EXPECT_EQ(a.principal(), "User:alice");
}

TEST_F(SaslAuthenticatorTest, HandshakeV0CarriesRawTokens) {
  SaslAuthenticator a = Make();
  auto step = a.OnFrame(Handshake("PLAIN", 0), 0);
  ASSERT_EQ(step.action, Action::kSend);
  EXPECT_EQ(Decode<protocol::SaslHandshakeResponseData>(step.response, 0).error_code, 0);
  const std::string token = Plain("bob", "bob-secret");
  step = a.OnFrame(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(token.data()), token.size()), 0);
  ASSERT_EQ(step.action, Action::kSend);
  EXPECT_TRUE(step.response.empty());  // PLAIN's empty answer: a zero-length frame
  EXPECT_EQ(a.principal(), "User:bob");

  // A raw token that fails: no answer, the connection closes after the delay.
  SaslAuthenticator b = Make();
  ASSERT_EQ(b.OnFrame(Handshake("PLAIN", 0), 0).action, Action::kSend);
  const std::string bad = Plain("bob", "nope");
  step = b.OnFrame(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()), 0);
  EXPECT_EQ(step.action, Action::kFail);
  EXPECT_TRUE(step.response.empty());
}

TEST_F(SaslAuthenticatorTest, ScramExchangeAgainstTheStoredCredential) {
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("SCRAM-SHA-256"), 0).action, Action::kSend);
  const std::string client_first_bare = "n=carol,r=clientnonce";
  auto step = a.OnFrame(Authenticate("n,," + client_first_bare), 0);
  ASSERT_EQ(step.action, Action::kSend);
  auto first = Decode<protocol::SaslAuthenticateResponseData>(step.response, 2);
  const std::string server_first(first.auth_bytes.begin(), first.auth_bytes.end());
  ASSERT_THAT(server_first, HasSubstr("r=clientnonce"));
  // The client's proof, computed here as a client would.
  const std::string nonce = server_first.substr(2, server_first.find(',') - 2);
  const std::string without_proof = "c=biws,r=" + nonce;
  const std::string auth_message = client_first_bare + "," + server_first + "," + without_proof;
  const std::vector<uint8_t> salt = {1, 2, 3, 4};
  const std::vector<uint8_t> salted =
      ScramSaltedPassword(ScramMechanism::kSha256, "carol-secret", salt, 4096);
  auto proof = ClientProof(salted, auth_message);
  step = a.OnFrame(Authenticate(without_proof + ",p=" + Base64Encode(proof)), 0);
  ASSERT_EQ(step.action, Action::kSend);
  auto final = Decode<protocol::SaslAuthenticateResponseData>(step.response, 2);
  EXPECT_EQ(final.error_code, 0);
  EXPECT_EQ(std::string(final.auth_bytes.begin(), final.auth_bytes.begin() + 2), "v=");
  EXPECT_EQ(a.principal(), "User:carol");
}

TEST_F(SaslAuthenticatorTest, UnknownScramUserGetsTheGenericText) {
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("SCRAM-SHA-256"), 0).action, Action::kSend);
  auto step = a.OnFrame(Authenticate("n,,n=nobody,r=abc"), 0);
  ASSERT_EQ(step.action, Action::kFail);
  auto r = Decode<protocol::SaslAuthenticateResponseData>(step.response, 2);
  EXPECT_EQ(r.error_code, 58);
  EXPECT_EQ(r.error_message,
            "Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-256");
}

TEST_F(SaslAuthenticatorTest, UnsupportedMechanismIsAnsweredThenFails) {
  SaslAuthenticator a = Make();
  auto step = a.OnFrame(Handshake("GSSAPI"), 0);
  ASSERT_EQ(step.action, Action::kFail);
  auto hs = Decode<protocol::SaslHandshakeResponseData>(step.response, 1);
  EXPECT_EQ(hs.error_code, 33);  // UNSUPPORTED_SASL_MECHANISM
  EXPECT_THAT(hs.mechanisms, ElementsAre("PLAIN", "SCRAM-SHA-256"));
  EXPECT_THAT(step.reason, HasSubstr("Unsupported SASL mechanism GSSAPI"));
}

TEST_F(SaslAuthenticatorTest, RequestsOutOfOrderCloseTheConnection) {
  protocol::MetadataRequestData metadata;
  {  // A Kafka request first: a client set up for the wrong security protocol.
    SaslAuthenticator a = Make();
    auto step = a.OnFrame(Frame(metadata, 12), 0);
    EXPECT_EQ(step.action, Action::kClose);
    EXPECT_THAT(step.reason, HasSubstr("kafka client configured with the wrong security protocol"));
  }
  {  // ApiVersions twice.
    SaslAuthenticator a = Make();
    protocol::ApiVersionsRequestData v;
    ASSERT_EQ(a.OnFrame(Frame(v, 0), 0).action, Action::kForward);
    EXPECT_EQ(a.OnFrame(Frame(v, 0), 0).action, Action::kClose);
  }
  {  // An ApiVersions version the broker does not serve may be retried.
    SaslAuthenticator a = Make();
    protocol::ApiVersionsRequestData v;
    ASSERT_EQ(a.OnFrame(Frame(v, 5), 0).action, Action::kForward);  // answered with an error
    ASSERT_EQ(a.OnFrame(Frame(v, 3), 0).action, Action::kForward);
    EXPECT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  }
  {  // Metadata in place of SaslAuthenticate.
    SaslAuthenticator a = Make();
    ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
    auto step = a.OnFrame(Frame(metadata, 12), 0);
    EXPECT_EQ(step.action, Action::kClose);
    EXPECT_EQ(step.reason, "Unexpected Kafka request of type METADATA during SASL authentication.");
  }
  {  // A PLAINTEXT client: ApiVersions is answered, its Metadata closes the connection.
    SaslAuthenticator a = Make();
    protocol::ApiVersionsRequestData v;
    ASSERT_EQ(a.OnFrame(Frame(v, 3), 0).action, Action::kForward);
    auto step = a.OnFrame(Frame(metadata, 12), 0);
    EXPECT_EQ(step.action, Action::kClose);
    EXPECT_EQ(step.reason, "Unexpected Kafka request of type METADATA during SASL handshake.");
  }
  {  // A second handshake in place of SaslAuthenticate: its error response, then the close.
    SaslAuthenticator a = Make();
    ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
    auto step = a.OnFrame(Handshake("PLAIN"), 0);
    ASSERT_EQ(step.action, Action::kFail);
    EXPECT_EQ(Decode<protocol::SaslHandshakeResponseData>(step.response, 1).error_code, 34);
  }
  {  // SaslAuthenticate at a version the broker does not know.
    SaslAuthenticator a = Make();
    ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
    std::vector<uint8_t> f = Authenticate(Plain("alice", "alice-secret"), 2);
    f[3] = 9;  // the version's low byte
    EXPECT_EQ(a.OnFrame(f, 0).action, Action::kClose);
  }
  {  // An API key that does not exist.
    SaslAuthenticator a = Make();
    const std::vector<uint8_t> unknown = {0x70, 0x6c, 0, 1, 0, 0, 0, 1, 0xff, 0xff};
    EXPECT_EQ(a.OnFrame(unknown, 0).action, Action::kClose);
  }
  {  // Bytes that are no request at all.
    SaslAuthenticator a = Make();
    const std::vector<uint8_t> garbage = {0xff, 0xff};
    EXPECT_EQ(a.OnFrame(garbage, 0).action, Action::kClose);
  }
}

TEST_F(SaslAuthenticatorTest, ReauthenticationKeepsMechanismAndPrincipal) {
  config_.max_reauth_ms = {{"PLAIN", 5000}};
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  auto step = a.OnFrame(Authenticate(Plain("alice", "alice-secret")), 1000);
  EXPECT_EQ(Decode<protocol::SaslAuthenticateResponseData>(step.response, 2).session_lifetime_ms,
            5000);
  EXPECT_FALSE(a.SessionExpired(6000));
  EXPECT_TRUE(a.SessionExpired(6001));
  // A v0 SaslAuthenticate cannot carry the lifetime; the session still expires.
  // Not a handshake: no re-authentication.
  EXPECT_FALSE(a.StartsReauthentication(Authenticate("x"), 2000));
  ASSERT_TRUE(a.StartsReauthentication(Handshake("PLAIN"), 2000));
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 2000).action, Action::kSend);
  ASSERT_EQ(a.OnFrame(Authenticate(Plain("alice", "alice-secret")), 2500).action, Action::kSend);
  EXPECT_TRUE(a.authenticated());
  EXPECT_FALSE(a.SessionExpired(7000));  // renewed at 2500
  // Not again within a second of the last start.
  EXPECT_FALSE(a.StartsReauthentication(Handshake("PLAIN"), 2900));
  // Another principal is refused.
  ASSERT_TRUE(a.StartsReauthentication(Handshake("PLAIN"), 3100));
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 3100).action, Action::kSend);
  step = a.OnFrame(Authenticate(Plain("bob", "bob-secret")), 3100);
  ASSERT_EQ(step.action, Action::kFail);
  EXPECT_EQ(Decode<protocol::SaslAuthenticateResponseData>(step.response, 2).error_message,
            "Cannot change principals during re-authentication from User.alice: User.bob");

  // Another mechanism: the handshake is answered, the next frame fails the connection.
  SaslAuthenticator b = Make();
  config_.max_reauth_ms["SCRAM-SHA-256"] = 5000;
  ASSERT_EQ(b.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  ASSERT_EQ(b.OnFrame(Authenticate(Plain("alice", "alice-secret")), 0).action, Action::kSend);
  ASSERT_TRUE(b.StartsReauthentication(Handshake("SCRAM-SHA-256"), 1000));
  step = b.OnFrame(Handshake("SCRAM-SHA-256"), 1000);
  ASSERT_EQ(step.action, Action::kSend);
  EXPECT_EQ(Decode<protocol::SaslHandshakeResponseData>(step.response, 1).error_code, 0);
  step = b.OnFrame(Authenticate("n,,n=carol,r=x"), 1000);
  EXPECT_EQ(step.action, Action::kFail);
  EXPECT_THAT(step.reason, HasSubstr("SASL mechanism 'SCRAM-SHA-256' requested by client is not "
                                     "supported for re-authentication of mechanism 'PLAIN'"));
}

TEST_F(SaslAuthenticatorTest, NoSessionExpiryMeansNoReauthentication) {
  SaslAuthenticator a = Make();
  ASSERT_EQ(a.OnFrame(Handshake("PLAIN"), 0).action, Action::kSend);
  ASSERT_EQ(a.OnFrame(Authenticate(Plain("alice", "alice-secret")), 0).action, Action::kSend);
  // The broker answers this handshake itself (ILLEGAL_SASL_STATE).
  EXPECT_FALSE(a.StartsReauthentication(Handshake("PLAIN"), 5000));
  EXPECT_TRUE(a.authenticated());
}

}  // namespace
}  // namespace seglog
