// libFuzzer target: a SASL listener's authenticator (server/sasl_authenticator.h) fed the frames
// a client sends before it is authenticated - ApiVersions, SaslHandshake v0/v1, raw or
// SaslAuthenticate-wrapped tokens for PLAIN, SCRAM-SHA-256 and OAUTHBEARER (Kafka's unsecured
// validator, and signed tokens against a JWKS) - and re-authentication after. Input: one byte
// choosing the OAUTHBEARER validator (bit 0) or, with bit 1, a JAAS text (sasl.jaas.config
// values, security/jaas_config.h) instead of frames; then frames, each a 2-byte big-endian length
// and its bytes. The authenticator must answer, forward, fail or close: never crash, read out of
// bounds (ASan, UBSan) or authenticate with a wrong secret.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "security/jaas_config.h"
#include "server/sasl_authenticator.h"

namespace {

seglog::SaslListenerConfig* Config(bool jwks) {
  auto make = [](bool signed_tokens) {
    auto* c = new seglog::SaslListenerConfig();
    c->enabled_mechanisms = {"PLAIN", "SCRAM-SHA-256", "OAUTHBEARER"};
    c->max_reauth_ms = {{"PLAIN", 1000}, {"SCRAM-SHA-256", 1000}};
    auto credentials = std::make_shared<seglog::SaslCredentials>();
    credentials->plain_users = {{"alice", "alice-secret"}};
    static const std::vector<uint8_t> kSalt = {'s', 'a', 'l', 't'};
    static const seglog::ScramCredential kPencil =
        seglog::ScramCredentialFromPassword(seglog::ScramMechanism::kSha256, "pencil", kSalt, 4096)
            .value();
    credentials->scram_lookup =
        [](const std::string& user,
           seglog::ScramMechanism) -> std::optional<seglog::ScramCredential> {
      if (user != "user") return std::nullopt;
      return kPencil;
    };
    credentials->now_ms = [] { return int64_t{1800000000000}; };
    if (signed_tokens) {
      credentials->oauthbearer.kind = seglog::OAuthBearerValidatorConfig::Kind::kJwks;
      credentials->oauthbearer.jwks_json =
          R"({"keys":[{"kty":"EC","kid":"e1","crv":"P-256",)"
          R"("x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
          R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},)"
          R"({"kty":"RSA","kid":"r1","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1Wl)"
          R"(UzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsL)"
          R"(AHk1ch0","e":"AQAB"}]})";
      credentials->oauthbearer.expected_audience = {"seglog"};
    }
    c->credentials = credentials;
    return c;
  };
  static seglog::SaslListenerConfig* unsecured = make(false);
  static seglog::SaslListenerConfig* with_jwks = make(true);
  return jwks ? with_jwks : unsecured;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 2) {
    (void)seglog::ParseJaasConfig(
        std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    return 0;
  }
  seglog::SaslAuthenticator a(Config(data[0] & 1), 4);
  size_t at = 1;
  int64_t now = 1800000000000;
  while (at + 2 <= size) {
    const size_t n = static_cast<size_t>(data[at]) << 8 | data[at + 1];
    at += 2;
    const size_t take = std::min(n, size - at);
    const std::span<const uint8_t> frame(data + at, take);
    at += take;
    now += 700;
    if (a.authenticated()) {
      // As the connection does: a handshake may start a re-authentication; else served.
      if (!a.StartsReauthentication(frame, now)) {
        (void)a.SessionExpired(now);
        continue;
      }
    }
    const seglog::SaslAuthenticator::Step step = a.OnFrame(frame, now);
    if (step.action == seglog::SaslAuthenticator::Step::Action::kClose ||
        step.action == seglog::SaslAuthenticator::Step::Action::kFail) {
      break;
    }
  }
  return 0;
}
