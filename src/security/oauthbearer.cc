// OAUTHBEARER's server; see oauthbearer.h and docs/design/security.md ("OAUTHBEARER").
#include "security/oauthbearer.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "security/sasl_server.h"

namespace seglog {

namespace {

using Json = nlohmann::json;

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Decodes base64 with padding optional; `url`: the URL-safe alphabet (- and _) instead of + and /.
Result<std::vector<uint8_t>> DecodeBase64(std::string_view text, bool url) {
  std::string s(text);
  for (char& c : s) {
    if (url && (c == '+' || c == '/')) return Status::InvalidArgument("not base64url");
    if (!url && (c == '-' || c == '_')) return Status::InvalidArgument("not base64");
    if (url && c == '-') c = '+';
    if (url && c == '_') c = '/';
  }
  if (s.size() % 4 == 1) return Status::InvalidArgument("not base64: length");
  while (s.size() % 4 != 0) s.push_back('=');
  return Base64Decode(s);
}

Result<Json> DecodeJsonPart(std::string_view part, bool url) {
  Result<std::vector<uint8_t>> bytes = DecodeBase64(part, url);
  if (!bytes.ok()) return Status::InvalidArgument("malformed Base64 URL encoded value");
  Json j = Json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("malformed JSON");
  return j;
}

// A scope claim: a string of space-separated items or a list of strings.
Result<std::vector<std::string>> ScopeOf(const Json& claims, const std::string& name) {
  std::vector<std::string> out;
  auto it = claims.find(name);
  if (it == claims.end()) return out;
  if (it->is_string()) {
    std::string s = it->get<std::string>();
    size_t at = 0;
    while (at < s.size()) {
      const size_t sp = s.find(' ', at);
      const std::string item = s.substr(at, sp == std::string::npos ? std::string::npos : sp - at);
      if (!item.empty()) out.push_back(item);
      if (sp == std::string::npos) break;
      at = sp + 1;
    }
    return out;
  }
  if (it->is_array()) {
    for (const Json& v : *it) {
      if (!v.is_string()) {
        return Status::InvalidArgument(fmt::format("The '{}' claim was not of type List", name));
      }
      if (!v.get<std::string>().empty()) out.push_back(v.get<std::string>());
    }
    return out;
  }
  return Status::InvalidArgument(fmt::format("The '{}' claim was not of type List", name));
}

std::string JavaList(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s + "]";
}

// A validated token: its principal and expiry.
struct Token {
  std::string principal;
  int64_t expiry_ms = 0;
};

// Why a token was refused: the detail for the log, and the scope for an insufficient_scope.
struct Refusal {
  std::string detail;
  std::optional<std::string> scope;
};

// Kafka's unsecured validator: an unsigned JWS (alg "none"), base64 in the basic alphabet.
std::variant<Token, Refusal> ValidateUnsecured(const std::string& jws,
                                               const OAuthBearerValidatorConfig& c,
                                               int64_t now_ms) {
  auto refuse = [](std::string d) { return Refusal{std::move(d), std::nullopt}; };
  if (jws.find("..") != std::string::npos) {
    return refuse("Malformed compact serialization contains '..'");
  }
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    const size_t dot = jws.find('.', at);
    parts.push_back(jws.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  if (parts.size() != 3) {
    return refuse(
        "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  }
  Result<Json> header = DecodeJsonPart(parts[0], false);
  if (!header.ok()) return refuse(std::string(header.status().message()));
  Result<Json> claims = DecodeJsonPart(parts[1], false);
  if (!claims.ok()) return refuse(std::string(claims.status().message()));
  auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string() || alg->get<std::string>() != "none") {
    return refuse("Unsecured JWS must have 'none' for an algorithm");
  }
  if (!parts[2].empty()) return refuse("Unsecured JWS must not contain a digital signature");
  Result<std::vector<std::string>> scope = ScopeOf(*claims, c.scope_claim);
  if (!scope.ok()) return refuse(std::string(scope.status().message()));
  auto exp = claims->find("exp");
  if (exp == claims->end()) return refuse("No expiration time in JWT");
  if (!exp->is_number()) return refuse("The 'exp' claim was not of type Number");
  auto principal = claims->find(c.principal_claim);
  if (principal == claims->end() || !principal->is_string() ||
      principal->get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos) {
    return refuse("No principal name in JWT claim: " + c.principal_claim);
  }
  const double exp_s = exp->get<double>();
  auto iat = claims->find("iat");
  if (iat != claims->end()) {
    if (!iat->is_number()) return refuse("The 'iat' claim was not of type Number");
    const double iat_s = iat->get<double>();
    if (iat_s * 1000 > static_cast<double>(now_ms + c.allowable_clock_skew_ms)) {
      return refuse(fmt::format(
          "The Issued At value ({:f} seconds) was after the indicated time ({} ms) plus "
          "allowable clock skew ({} ms)",
          iat_s, now_ms, c.allowable_clock_skew_ms));
    }
    if (exp_s <= iat_s) {
      return refuse(fmt::format(
          "The Expiration Time time ({:f} seconds) was not after the Issued At time ({:f} "
          "seconds)",
          exp_s, iat_s));
    }
  }
  if (static_cast<double>(now_ms - c.allowable_clock_skew_ms) >= exp_s * 1000) {
    return refuse(fmt::format(
        "The indicated time ({} ms) minus allowable clock skew ({} ms) was on or after the "
        "Expiration Time value ({:f} seconds)",
        now_ms, c.allowable_clock_skew_ms, exp_s));
  }
  for (const std::string& required : c.required_scope) {
    if (std::find(scope->begin(), scope->end(), required) == scope->end()) {
      return Refusal{fmt::format("The provided scope ({}) was missing a required scope ({}).  All "
                                 "required scope elements: {}",
                                 JavaList(*scope), required, JavaList(c.required_scope)),
                     JavaList(c.required_scope)};
    }
  }
  return Token{principal->get<std::string>(), std::llround(exp_s * 1000)};
}

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// The public key of a JWK (kty RSA with n, e; kty EC with crv, x, y).
Result<PkeyPtr> PublicKeyOf(const Json& jwk) {
  auto field = [&](const char* name) -> Result<std::vector<uint8_t>> {
    auto it = jwk.find(name);
    if (it == jwk.end() || !it->is_string()) {
      return Status::InvalidArgument(fmt::format("the key has no '{}'", name));
    }
    return DecodeBase64(it->get<std::string>(), true);
  };
  const std::string kty = jwk.value("kty", "");
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld_owner(bld,
                                                                            OSSL_PARAM_BLD_free);
  const char* type = nullptr;
  std::vector<uint8_t> point;
  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  if (kty == "RSA") {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> nb, field("n"));
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> eb, field("e"));
    n = BN_bin2bn(nb.data(), static_cast<int>(nb.size()), nullptr);
    e = BN_bin2bn(eb.data(), static_cast<int>(eb.size()), nullptr);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e);
    type = "RSA";
  } else if (kty == "EC") {
    const std::string crv = jwk.value("crv", "");
    const char* group = crv == "P-256"   ? "prime256v1"
                        : crv == "P-384" ? "secp384r1"
                        : crv == "P-521" ? "secp521r1"
                                         : nullptr;
    if (group == nullptr) return Status::InvalidArgument("unsupported EC curve " + crv);
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> x, field("x"));
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> y, field("y"));
    point.push_back(0x04);
    point.insert(point.end(), x.begin(), x.end());
    point.insert(point.end(), y.begin(), y.end());
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
    type = "EC";
  } else {
    return Status::InvalidArgument("unsupported key type " + kty);
  }
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* key = nullptr;
  const bool ok = ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1 &&
                  EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  BN_free(n);
  BN_free(e);
  if (!ok) return Status::InvalidArgument("the key cannot be loaded");
  return PkeyPtr(key);
}

// Verifies a JWS signature over `signed_part` with `key` for `alg`.
bool VerifySignature(const std::string& alg, EVP_PKEY* key, std::string_view signed_part,
                     std::vector<uint8_t> signature) {
  const EVP_MD* md = nullptr;
  const std::string bits = alg.size() == 5 ? alg.substr(2) : "";
  if (bits == "256") md = EVP_sha256();
  if (bits == "384") md = EVP_sha384();
  if (bits == "512") md = EVP_sha512();
  if (md == nullptr) return false;
  const std::string family = alg.substr(0, 2);
  if (family == "ES") {
    // JWS carries r || s; OpenSSL verifies DER.
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC || signature.size() % 2 != 0) return false;
    const size_t half = signature.size() / 2;
    ECDSA_SIG* sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(signature.data(), static_cast<int>(half), nullptr),
                   BN_bin2bn(signature.data() + half, static_cast<int>(half), nullptr));
    unsigned char* der = nullptr;
    const int len = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (len <= 0) return false;
    signature.assign(der, der + len);
    OPENSSL_free(der);
  } else if (family == "RS" || family == "PS") {
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) return false;
  } else {
    return false;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = EVP_DigestVerifyInit(ctx, &pctx, md, nullptr, key) == 1;
  if (ok && family == "PS") {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
  }
  ok = ok && EVP_DigestVerify(ctx, signature.data(), signature.size(),
                              reinterpret_cast<const unsigned char*>(signed_part.data()),
                              signed_part.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

// Kafka's BrokerJwtValidator over a JWKS file: a signed JWS, exp, iat and the subject claim
// required, audience and issuer when configured, clock skew.
std::variant<Token, Refusal> ValidateSigned(const std::string& jws,
                                            const OAuthBearerValidatorConfig& c, int64_t now_ms) {
  auto refuse = [](std::string d) {
    return Refusal{"Could not validate the access token: " + std::move(d), std::nullopt};
  };
  const size_t dot1 = jws.find('.');
  const size_t dot2 = dot1 == std::string::npos ? std::string::npos : jws.find('.', dot1 + 1);
  if (dot2 == std::string::npos || jws.find('.', dot2 + 1) != std::string::npos) {
    return Refusal{
        "Malformed JWT provided; expected three sections (header, payload, and "
        "signature)",
        std::nullopt};
  }
  Result<Json> header = DecodeJsonPart(std::string_view(jws).substr(0, dot1), true);
  if (!header.ok()) return refuse(std::string(header.status().message()));
  Result<Json> claims =
      DecodeJsonPart(std::string_view(jws).substr(dot1 + 1, dot2 - dot1 - 1), true);
  if (!claims.ok()) return refuse(std::string(claims.status().message()));
  Result<std::vector<uint8_t>> signature =
      DecodeBase64(std::string_view(jws).substr(dot2 + 1), true);
  if (!signature.ok()) return refuse("malformed signature");
  const std::string alg = header->value("alg", "");
  if (alg.empty() || alg == "none") return refuse("'none' is not a permitted algorithm");
  // The key: the JWK whose kid equals the token's (if it has one), of the algorithm's family.
  const Json jwks = Json::parse(c.jwks_json, nullptr, false);
  if (jwks.is_discarded() || !jwks.contains("keys") || !jwks["keys"].is_array()) {
    return refuse("the JWKS file holds no keys");
  }
  const std::string kty = alg.rfind("ES", 0) == 0 ? "EC" : "RSA";
  const Json* chosen = nullptr;
  for (const Json& k : jwks["keys"]) {
    if (!k.is_object() || k.value("kty", "") != kty) continue;
    if (header->contains("kid") && k.value("kid", "") != header->value("kid", "")) continue;
    if (k.contains("use") && k.value("use", "") != "sig") continue;
    if (k.contains("alg") && k.value("alg", "") != alg) continue;
    chosen = &k;
    break;
  }
  if (chosen == nullptr) {
    return refuse(fmt::format("Unable to find a suitable verification key for JWS w/ header {}",
                              header->dump()));
  }
  Result<PkeyPtr> key = PublicKeyOf(*chosen);
  if (!key.ok()) return refuse(std::string(key.status().message()));
  if (!VerifySignature(alg, key->get(), std::string_view(jws).substr(0, dot2),
                       std::move(signature).value())) {
    return refuse("JWS signature is invalid");
  }
  const int64_t skew_ms = c.clock_skew_seconds * 1000;
  auto exp = claims->find("exp");
  if (exp == claims->end() || !exp->is_number()) {
    return refuse("No Expiration Time (exp) claim present.");
  }
  auto iat = claims->find("iat");
  if (iat == claims->end() || !iat->is_number()) {
    return refuse("No Issued At (iat) claim present.");
  }
  const int64_t exp_ms = std::llround(exp->get<double>() * 1000);
  if (exp_ms < 0) return refuse("exp value must be non-negative");
  if (now_ms - skew_ms >= exp_ms) {
    return refuse(fmt::format(
        "The JWT is no longer valid - the evaluation time {} ms is on or after the Expiration "
        "Time {} ms (even when providing {} seconds of leeway to account for clock skew).",
        now_ms, exp_ms, c.clock_skew_seconds));
  }
  if (auto nbf = claims->find("nbf"); nbf != claims->end() && nbf->is_number() &&
                                      now_ms + skew_ms < std::llround(nbf->get<double>() * 1000)) {
    return refuse("The JWT is not yet valid (nbf)");
  }
  std::vector<std::string> aud;
  if (auto a = claims->find("aud"); a != claims->end()) {
    if (a->is_string()) aud.push_back(a->get<std::string>());
    if (a->is_array()) {
      for (const Json& v : *a) {
        if (v.is_string()) aud.push_back(v.get<std::string>());
      }
    }
    if (c.expected_audience.empty()) {
      return refuse(fmt::format(
          "Audience (aud) claim {} present in the JWT but no expected audience value(s) were "
          "provided to the JWT Consumer.",
          JavaList(aud)));
    }
  }
  if (!c.expected_audience.empty()) {
    bool found = false;
    for (const std::string& a : aud) {
      found = found || std::find(c.expected_audience.begin(), c.expected_audience.end(), a) !=
                           c.expected_audience.end();
    }
    if (!found) {
      return refuse(fmt::format(
          "Audience (aud) claim {} doesn't contain an acceptable identifier. Expected {} as an "
          "aud value.",
          JavaList(aud), JavaList(c.expected_audience)));
    }
  }
  if (!c.expected_issuer.empty() && claims->value("iss", "") != c.expected_issuer) {
    return refuse(fmt::format("Issuer (iss) claim value ({}) doesn't match expected value of {}",
                              claims->value("iss", ""), c.expected_issuer));
  }
  Result<std::vector<std::string>> scope = ScopeOf(*claims, c.scope_claim_name);
  if (!scope.ok()) return refuse(std::string(scope.status().message()));
  for (size_t i = 0; i < scope->size(); ++i) {
    if (std::find(scope->begin(), scope->begin() + static_cast<long>(i), (*scope)[i]) !=
        scope->begin() + static_cast<long>(i)) {
      return refuse(fmt::format("{} value must not contain duplicates - {} already present",
                                c.scope_claim_name, (*scope)[i]));
    }
  }
  auto sub = claims->find(c.sub_claim_name);
  if (sub == claims->end() || !sub->is_string()) {
    return refuse(fmt::format("{} value must be non-null", c.sub_claim_name));
  }
  std::string principal = sub->get<std::string>();
  const size_t b = principal.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) {
    return refuse(fmt::format("{} value must not contain only whitespace", c.sub_claim_name));
  }
  principal = principal.substr(b, principal.find_last_not_of(" \t\r\n") - b + 1);
  return Token{principal, exp_ms};
}

bool IsSaslNameChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x01 && u <= 0x7f && c != '=' && c != ',';
}
bool IsKeyChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsValueChar(char c) {
  return (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

class OAuthBearerSaslServer final : public SaslServer {
 public:
  explicit OAuthBearerSaslServer(const SaslCredentials* credentials) : credentials_(credentials) {}

  std::string_view mechanism() const override { return "OAUTHBEARER"; }
  bool complete() const override { return complete_; }
  const std::string& authorization_id() const override { return principal_; }
  const std::string& client_error() const override { return client_error_; }
  std::optional<int64_t> credential_expiry_ms() const override {
    if (!complete_) return std::nullopt;
    return expiry_ms_;
  }

  Result<std::vector<uint8_t>> EvaluateResponse(std::span<const uint8_t> response) override {
    const std::string text(reinterpret_cast<const char*>(response.data()), response.size());
    if (complete_) return Generic("OAUTHBEARER exchange already complete");
    if (text == "\x01" && !error_json_.empty()) {
      // The client acknowledged the error challenge: the exchange fails with it.
      client_error_ = error_json_;
      return Status::InvalidArgument(refusal_detail_);
    }
    error_json_.clear();
    std::string authzid, token;
    SEGLOG_RETURN_IF_ERROR(ParseClientFirst(text, &authzid, &token));
    const OAuthBearerValidatorConfig& c = credentials_->oauthbearer;
    const int64_t now = credentials_->now_ms ? credentials_->now_ms() : WallClockMs();
    std::variant<Token, Refusal> v = c.kind == OAuthBearerValidatorConfig::Kind::kJwks
                                         ? ValidateSigned(token, c, now)
                                         : ValidateUnsecured(token, c, now);
    if (auto* r = std::get_if<Refusal>(&v)) {
      // Kafka answers a refused token with a JSON challenge, and fails when the client
      // acknowledges it; the reason stays in the broker's log.
      error_json_ =
          r->scope.has_value()
              ? fmt::format(R"({{"status":"insufficient_scope", "scope":"{}"}})", *r->scope)
              : R"({"status":"invalid_token"})";
      refusal_detail_ = r->detail;
      return std::vector<uint8_t>(error_json_.begin(), error_json_.end());
    }
    const Token& t = std::get<Token>(v);
    if (!authzid.empty() && authzid != t.principal) {
      client_error_ = fmt::format(
          "Authentication failed: Client requested an authorization id ({}) that is different "
          "from the token's principal name ({})",
          authzid, t.principal);
      return Status::InvalidArgument(client_error_);
    }
    principal_ = t.principal;
    expiry_ms_ = t.expiry_ms;
    complete_ = true;
    return std::vector<uint8_t>{};
  }

 private:
  Status Generic(std::string why) {
    client_error_ = GenericSaslFailure("OAUTHBEARER", false);
    return Status::InvalidArgument(why);
  }

  // n,[a=<authzid>],^A<key>=<value>^A...^A with an auth=Bearer <token> pair.
  Status ParseClientFirst(const std::string& m, std::string* authzid, std::string* token) {
    const std::string invalid = "Invalid OAUTHBEARER client first message";
    if (m.rfind("n,", 0) != 0) return Generic(invalid);
    size_t at = 2;
    if (m.compare(at, 2, "a=") == 0) {
      at += 2;
      const size_t from = at;
      while (at < m.size() && m[at] != ',') {
        if (m[at] == '=' && (m.compare(at, 3, "=2C") == 0 || m.compare(at, 3, "=3D") == 0)) {
          at += 3;
        } else if (IsSaslNameChar(m[at])) {
          ++at;
        } else {
          return Generic(invalid);
        }
      }
      if (at == from) return Generic(invalid);
      *authzid = m.substr(from, at - from);
    }
    if (m.compare(at, 2, ",\x01") != 0) return Generic(invalid);
    at += 2;
    std::map<std::string, std::string> pairs;
    while (at < m.size() && m[at] != '\x01') {
      const size_t key_from = at;
      while (at < m.size() && IsKeyChar(m[at])) ++at;
      if (at == key_from || at >= m.size() || m[at] != '=') return Generic(invalid);
      const std::string key = m.substr(key_from, at - key_from);
      const size_t value_from = ++at;
      while (at < m.size() && IsValueChar(m[at])) ++at;
      if (at == value_from || at >= m.size() || m[at] != '\x01') return Generic(invalid);
      pairs[key] = m.substr(value_from, at - value_from);
      ++at;
    }
    if (at + 1 != m.size()) return Generic(invalid);  // the final ^A ends the message
    auto auth = pairs.find("auth");
    if (auth == pairs.end()) return Generic(invalid + ": 'auth' not specified");
    const std::string& a = auth->second;
    const size_t space = a.find(' ');
    if (space == std::string::npos || space == 0)
      return Generic(invalid + ": invalid 'auth' format");
    std::string scheme = a.substr(0, space);
    size_t t = a.find_first_not_of(' ', space);
    if (t == std::string::npos) return Generic(invalid + ": invalid 'auth' format");
    *token = a.substr(t);
    size_t i = 0;
    while (i < token->size() &&
           (std::isalnum(static_cast<unsigned char>((*token)[i])) ||
            std::string_view("-_~+/.").find((*token)[i]) != std::string_view::npos)) {
      ++i;
    }
    if (i == 0) return Generic(invalid + ": invalid 'auth' format");
    while (i < token->size() && (*token)[i] == '=') ++i;
    if (i != token->size()) return Generic(invalid + ": invalid 'auth' format");
    for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (scheme != "bearer") {
      return Generic(fmt::format("Invalid scheme in OAUTHBEARER client first message: {}",
                                 a.substr(0, space)));
    }
    return Status::OK();
  }

  const SaslCredentials* const credentials_;
  bool complete_ = false;
  std::string principal_;
  int64_t expiry_ms_ = 0;
  std::string client_error_;
  std::string error_json_;  // the challenge sent for a refused token
  std::string refusal_detail_;
};

}  // namespace

std::unique_ptr<SaslServer> NewOAuthBearerSaslServer(const SaslCredentials* credentials) {
  return std::make_unique<OAuthBearerSaslServer>(credentials);
}

}  // namespace seglog
