// OAUTHBEARER: the client's message, Kafka's unsecured validator, and signed tokens against a
// JWKS (RS256, PS256, ES256 keys made here with OpenSSL).
#include "security/oauthbearer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <nlohmann/json.hpp>

#include "security/sasl_server.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr int64_t kNow = 1800000000000;  // ms

std::string B64(const std::string& bytes, bool url) {
  std::string s = Base64Encode(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (url) {
    for (char& c : s) {
      if (c == '+') c = '-';
      if (c == '/') c = '_';
    }
  }
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

std::string Unsecured(const Json& claims) {
  return B64(R"({"alg":"none"})", false) + "." + B64(claims.dump(), false) + ".";
}

std::string Message(const std::string& token, const std::string& authzid = "") {
  return "n," + (authzid.empty() ? "" : "a=" + authzid) + ",\x01" + "auth=Bearer " + token +
         "\x01\x01";
}

struct Outcome {
  bool ok = false;
  bool complete = false;
  std::string answer;
  std::string client_error;
  std::string principal;
  std::optional<int64_t> expiry;
};

Outcome Exchange(const SaslCredentials& credentials, const std::string& message,
                 bool acknowledge_error = true) {
  auto server = NewSaslServer("OAUTHBEARER", &credentials);
  EXPECT_TRUE(server.ok());
  Outcome o;
  auto r = (*server)->EvaluateResponse(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()), message.size()));
  if (r.ok() && !(*server)->complete() && acknowledge_error) {
    o.answer.assign(r->begin(), r->end());
    const std::string ack = "\x01";
    r = (*server)->EvaluateResponse(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(ack.data()), 1));
  }
  o.ok = r.ok();
  o.complete = (*server)->complete();
  o.client_error = (*server)->client_error();
  o.principal = (*server)->authorization_id();
  o.expiry = (*server)->credential_expiry_ms();
  return o;
}

SaslCredentials Unsecure() {
  SaslCredentials c;
  c.now_ms = [] { return kNow; };
  return c;
}

TEST(OAuthBearerTest, UnsecuredTokenAuthenticates) {
  SaslCredentials c = Unsecure();
  const Outcome o = Exchange(
      c, Message(Unsecured(
             {{"sub", "alice"}, {"iat", kNow / 1000.0 - 10}, {"exp", kNow / 1000.0 + 60.5}})));
  ASSERT_TRUE(o.ok) << o.client_error;
  EXPECT_TRUE(o.complete);
  EXPECT_EQ(o.principal, "alice");
  EXPECT_EQ(o.expiry, kNow + 60500);
  // The authorization id must be the principal.
  const Outcome a =
      Exchange(c, Message(Unsecured({{"sub", "alice"}, {"exp", kNow / 1000 + 60}}), "bob"));
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.client_error,
            "Authentication failed: Client requested an authorization id (bob) that is "
            "different from the token's principal name (alice)");
}

TEST(OAuthBearerTest, RefusedTokensAnswerKafkasJsonThenFail) {
  SaslCredentials c = Unsecure();
  for (const Json& claims :
       {Json{{"sub", "alice"}, {"exp", kNow / 1000 - 1}},  // expired
        Json{{"sub", "alice"}},                            // no exp
        Json{{"exp", kNow / 1000 + 60}},                   // no sub
        Json{{"sub", "a"}, {"exp", kNow / 1000 + 60}, {"iat", kNow / 1000 + 99}}}) {
    const Outcome o = Exchange(c, Message(Unsecured(claims)));
    EXPECT_EQ(o.answer, R"({"status":"invalid_token"})") << claims.dump();
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.client_error, R"({"status":"invalid_token"})");
  }
  // A signed token is not an unsecured one.
  const std::string signed_token =
      B64(R"({"alg":"RS256"})", false) + "." + B64(R"({"sub":"a"})", false) + ".c2ln";
  EXPECT_EQ(Exchange(c, Message(signed_token)).client_error, R"({"status":"invalid_token"})");
  // A required scope that is missing.
  c.oauthbearer.required_scope = {"kafka", "write"};
  const Outcome s = Exchange(
      c, Message(Unsecured({{"sub", "a"}, {"exp", kNow / 1000 + 60}, {"scope", "kafka read"}})));
  EXPECT_EQ(s.client_error, R"({"status":"insufficient_scope", "scope":"[kafka, write]"})");
  EXPECT_TRUE(Exchange(c, Message(Unsecured({{"sub", "a"},
                                             {"exp", kNow / 1000 + 60},
                                             {"scope", Json::array({"write", "kafka"})}})))
                  .ok);
  // Clock skew lets a just-expired token through.
  SaslCredentials skew = Unsecure();
  skew.oauthbearer.allowable_clock_skew_ms = 5000;
  EXPECT_TRUE(Exchange(skew, Message(Unsecured({{"sub", "a"}, {"exp", kNow / 1000 - 1}}))).ok);
}

TEST(OAuthBearerTest, MalformedMessagesGetTheGenericText) {
  SaslCredentials c = Unsecure();
  const std::string generic =
      "Authentication failed during authentication due to invalid credentials with SASL "
      "mechanism OAUTHBEARER";
  const std::string token = Unsecured({{"sub", "a"}, {"exp", kNow / 1000 + 60}});
  for (const std::string& m : {std::string("y,,\x01"
                                           "auth=Bearer ") +
                                   token + "\x01\x01",
                               std::string("n,,\x01"
                                           "auth=Bearer ") +
                                   token + "\x01",  // no final ^A
                               std::string("n,,\x01"
                                           "host=x\x01\x01"),  // no auth
                               std::string("n,,\x01"
                                           "auth=Bearer\x01\x01"),
                               std::string("n,,\x01"
                                           "auth=Basic ") +
                                   token + "\x01\x01",
                               std::string("\x01"), std::string("")}) {
    const Outcome o = Exchange(c, m, false);
    EXPECT_FALSE(o.ok) << m;
    EXPECT_EQ(o.client_error, generic) << m;
  }
  // Extensions are accepted.
  EXPECT_TRUE(Exchange(c, std::string("n,,\x01"
                                      "auth=Bearer ") +
                              token +
                              "\x01"
                              "traceId=abc 1\x01\x01")
                  .ok);
}

// A key pair and its JWK.
struct Key {
  EVP_PKEY* pkey = nullptr;
  Json jwk;
  ~Key() { EVP_PKEY_free(pkey); }
};

std::string Bn(EVP_PKEY* k, const char* name) {
  BIGNUM* bn = nullptr;
  EVP_PKEY_get_bn_param(k, name, &bn);
  std::string out(static_cast<size_t>(BN_num_bytes(bn)), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
  BN_free(bn);
  return out;
}

void MakeRsa(Key* key, const std::string& kid) {
  key->pkey = EVP_RSA_gen(2048);
  key->jwk = {{"kty", "RSA"},
              {"kid", kid},
              {"n", B64(Bn(key->pkey, OSSL_PKEY_PARAM_RSA_N), true)},
              {"e", B64(Bn(key->pkey, OSSL_PKEY_PARAM_RSA_E), true)}};
}

void MakeEc(Key* key, const std::string& kid) {
  key->pkey = EVP_EC_gen("P-256");
  auto pad = [](std::string s) { return std::string(32 - s.size(), '\0') + s; };
  key->jwk = {{"kty", "EC"},
              {"kid", kid},
              {"crv", "P-256"},
              {"x", B64(pad(Bn(key->pkey, OSSL_PKEY_PARAM_EC_PUB_X)), true)},
              {"y", B64(pad(Bn(key->pkey, OSSL_PKEY_PARAM_EC_PUB_Y)), true)}};
}

std::string Sign(const Key& key, const std::string& alg, const std::string& kid,
                 const Json& claims) {
  const std::string input = B64(Json{{"alg", alg}, {"kid", kid}, {"typ", "JWT"}}.dump(), true) +
                            "." + B64(claims.dump(), true);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  EVP_DigestSignInit(ctx, &pctx, EVP_sha256(), nullptr, key.pkey);
  if (alg == "PS256") {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  size_t n = 0;
  EVP_DigestSign(ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(input.data()),
                 input.size());
  std::string sig(n, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &n,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  sig.resize(n);
  EVP_MD_CTX_free(ctx);
  if (alg == "ES256") {  // DER to r || s
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string rs(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(rs.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(rs.data()) + 32, 32);
    ECDSA_SIG_free(es);
    sig = rs;
  }
  return input + "." + B64(sig, true);
}

class JwksTest : public ::testing::Test {
 protected:
  JwksTest() {
    MakeRsa(&rsa_, "r1");
    MakeEc(&ec_, "e1");
    MakeRsa(&stranger_, "r1");  // same kid, another key
    c_.now_ms = [] { return kNow; };
    c_.oauthbearer.kind = OAuthBearerValidatorConfig::Kind::kJwks;
    c_.oauthbearer.jwks_json = Json{{"keys", {rsa_.jwk, ec_.jwk}}}.dump();
    c_.oauthbearer.expected_audience = {"seglog"};
    c_.oauthbearer.expected_issuer = "https://issuer.test";
  }
  Json Claims(int64_t exp_s = kNow / 1000 + 300) {
    return {{"sub", "alice"},
            {"iat", kNow / 1000 - 5},
            {"exp", exp_s},
            {"aud", "seglog"},
            {"iss", "https://issuer.test"}};
  }
  Key rsa_, ec_, stranger_;
  SaslCredentials c_;
};

TEST_F(JwksTest, SignedTokensWithEachAlgorithm) {
  for (const auto& [key, alg, kid] : std::vector<std::tuple<Key*, std::string, std::string>>{
           {&rsa_, "RS256", "r1"}, {&rsa_, "PS256", "r1"}, {&ec_, "ES256", "e1"}}) {
    const Outcome o = Exchange(c_, Message(Sign(*key, alg, kid, Claims())));
    EXPECT_TRUE(o.ok) << alg << " " << o.client_error;
    EXPECT_EQ(o.principal, "alice");
    EXPECT_EQ(o.expiry, (kNow / 1000 + 300) * 1000);
  }
}

TEST_F(JwksTest, BadTokensAreInvalid) {
  const std::string invalid = R"({"status":"invalid_token"})";
  // Another key under the same kid: a bad signature.
  EXPECT_EQ(Exchange(c_, Message(Sign(stranger_, "RS256", "r1", Claims()))).client_error, invalid);
  // An unknown kid.
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "nope", Claims()))).client_error, invalid);
  // Expired beyond the 30 s skew; within it, accepted.
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", Claims(kNow / 1000 - 31)))).client_error,
            invalid);
  EXPECT_TRUE(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", Claims(kNow / 1000 - 10)))).ok);
  // Audience and issuer.
  Json wrong_aud = Claims();
  wrong_aud["aud"] = "other";
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", wrong_aud))).client_error, invalid);
  Json wrong_iss = Claims();
  wrong_iss["iss"] = "https://evil.test";
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", wrong_iss))).client_error, invalid);
  // iat is required.
  Json no_iat = Claims();
  no_iat.erase("iat");
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", no_iat))).client_error, invalid);
  // alg none is never accepted here.
  EXPECT_EQ(
      Exchange(c_, Message(B64(R"({"alg":"none"})", true) + "." + B64(Claims().dump(), true) + "."))
          .client_error,
      invalid);
  // A tampered payload.
  std::string t = Sign(rsa_, "RS256", "r1", Claims());
  const size_t dot = t.find('.');
  Json admin = Claims();
  admin["sub"] = "admin";
  t = t.substr(0, dot + 1) + B64(admin.dump(), true) + t.substr(t.find('.', dot + 1));
  EXPECT_EQ(Exchange(c_, Message(t)).client_error, invalid);
  // An audience the broker does not expect at all.
  c_.oauthbearer.expected_audience.clear();
  EXPECT_EQ(Exchange(c_, Message(Sign(rsa_, "RS256", "r1", Claims()))).client_error, invalid);
}

}  // namespace
}  // namespace seglog
