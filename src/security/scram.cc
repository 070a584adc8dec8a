// SCRAM (scram.h), over OpenSSL's hashes, HMACs and PBKDF2.
#include "security/scram.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>

namespace seglog {
namespace {

const EVP_MD* Digest(ScramMechanism m) {
  return m == ScramMechanism::kSha512 ? EVP_sha512() : EVP_sha256();
}

std::vector<uint8_t> Hash(ScramMechanism m, std::span<const uint8_t> data) {
  std::vector<uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, Digest(m), nullptr);
  out.resize(len);
  return out;
}

std::vector<uint8_t> Hmac(ScramMechanism m, std::span<const uint8_t> key,
                          std::span<const uint8_t> data) {
  std::vector<uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned int len = 0;
  HMAC(Digest(m), key.data(), static_cast<int>(key.size()), data.data(), data.size(), out.data(),
       &len);
  out.resize(len);
  return out;
}

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

Status CheckMechanismAndIterations(ScramMechanism m, int32_t iterations) {
  if (m != ScramMechanism::kSha256 && m != ScramMechanism::kSha512) {
    return Status::InvalidArgument("Unknown SCRAM mechanism");
  }
  if (iterations < kScramMinIterations) {
    return Status::InvalidArgument(
        fmt::format("Too few iterations: {} (the minimum is {})", iterations, kScramMinIterations));
  }
  if (iterations > kScramMaxIterations) {
    return Status::InvalidArgument(fmt::format("Too many iterations: {} (the maximum is {})",
                                               iterations, kScramMaxIterations));
  }
  return Status::OK();
}

// Kafka's grammar classes (ScramMessages): 7-bit, no NUL.
bool IsValueChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x01 && u <= 0x7f && c != ',';
}
bool IsPrintable(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x21 && u <= 0x7e && c != ',';
}
bool IsSaslName(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '=') {
      if (s.substr(i, 3) != "=2C" && s.substr(i, 3) != "=3D") return false;
      i += 2;
    } else if (!IsValueChar(c)) {
      return false;
    }
  }
  return true;
}
bool AllOf(std::string_view s, bool (*pred)(char)) { return std::all_of(s.begin(), s.end(), pred); }

// ",k=v" extensions: k one or more ASCII letters, v VALUE characters.
bool AreExtensions(std::string_view s) {
  while (!s.empty()) {
    if (s.front() != ',') return false;
    s.remove_prefix(1);
    const size_t eq = s.find('=');
    if (eq == 0 || eq == std::string_view::npos) return false;
    for (char c : s.substr(0, eq)) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
    }
    s.remove_prefix(eq + 1);
    const size_t next = s.find(',');
    if (!AllOf(s.substr(0, next), IsValueChar)) return false;
    s.remove_prefix(next == std::string_view::npos ? s.size() : next);
  }
  return true;
}

std::string RandomNonce() {
  constexpr std::string_view kChars = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::array<uint8_t, 26> bytes{};
  RAND_bytes(bytes.data(), static_cast<int>(bytes.size()));
  std::string out;
  for (uint8_t b : bytes) out.push_back(kChars[b % kChars.size()]);
  return out;
}

}  // namespace

std::vector<uint8_t> ScramRandomSalt() {
  const std::string s = RandomNonce();
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<uint8_t> ScramSaltedPassword(ScramMechanism m, std::string_view password,
                                         std::span<const uint8_t> salt, int32_t iterations) {
  std::vector<uint8_t> out(static_cast<size_t>(EVP_MD_get_size(Digest(m))));
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                    static_cast<int>(salt.size()), iterations, Digest(m),
                    static_cast<int>(out.size()), out.data());
  return out;
}

Result<ScramCredential> ScramCredentialFromSaltedPassword(ScramMechanism m,
                                                          std::span<const uint8_t> salted_password,
                                                          std::span<const uint8_t> salt,
                                                          int32_t iterations) {
  SEGLOG_RETURN_IF_ERROR(CheckMechanismAndIterations(m, iterations));
  ScramCredential c;
  c.mechanism = m;
  c.salt.assign(salt.begin(), salt.end());
  c.iterations = iterations;
  c.stored_key = Hash(m, Hmac(m, salted_password, Bytes("Client Key")));
  c.server_key = Hmac(m, salted_password, Bytes("Server Key"));
  return c;
}

Result<ScramCredential> ScramCredentialFromPassword(ScramMechanism m, std::string_view password,
                                                    std::span<const uint8_t> salt,
                                                    int32_t iterations) {
  SEGLOG_RETURN_IF_ERROR(CheckMechanismAndIterations(m, iterations));
  return ScramCredentialFromSaltedPassword(m, ScramSaltedPassword(m, password, salt, iterations),
                                           salt, iterations);
}

std::string ScramSaslName(std::string_view username) {
  std::string out;
  for (char c : username) {
    if (c == '=') {
      out += "=3D";
    } else if (c == ',') {
      out += "=2C";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<std::string> ScramUsername(std::string_view saslname) {
  std::string out;
  for (size_t i = 0; i < saslname.size(); ++i) {
    if (saslname[i] != '=') {
      out.push_back(saslname[i]);
    } else if (saslname.substr(i, 3) == "=2C") {
      out.push_back(',');
      i += 2;
    } else if (saslname.substr(i, 3) == "=3D") {
      out.push_back('=');
      i += 2;
    } else {
      return Status::InvalidArgument(fmt::format("Invalid username: {}", saslname));
    }
  }
  return out;
}

std::string Base64Encode(std::span<const uint8_t> bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::vector<uint8_t>> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return Status::InvalidArgument("not base64: length");
  std::vector<uint8_t> out;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
      } else if (pad > 0 || (v[k] = value(c)) < 0) {
        return Status::InvalidArgument("not base64");
      }
    }
    const uint32_t n = static_cast<uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out.push_back(static_cast<uint8_t>(n >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(n >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(n));
  }
  return out;
}

ScramServer::ScramServer(ScramMechanism mechanism, CredentialLookup lookup, std::string nonce)
    : mechanism_(mechanism),
      lookup_(std::move(lookup)),
      server_nonce_(nonce.empty() ? RandomNonce() : std::move(nonce)) {}

Status ScramServer::Fail(Status s, bool for_client) {
  state_ = State::kFailed;
  credential_ = {};
  client_error_ = for_client ? std::string(s.message())
                             : fmt::format(
                                   "Authentication failed during authentication due to invalid "
                                   "credentials with SASL mechanism {}",
                                   ScramMechanismName(mechanism_));
  return s;
}

Result<std::string> ScramServer::ClientFirst(std::string_view message) {
  if (state_ != State::kClientFirst) {
    return Fail(Status::FailedPrecondition("Unexpected challenge in Sasl server state"));
  }
  const Status malformed = Status::InvalidArgument(
      fmt::format("Invalid SCRAM client first message format: {}", message));
  // gs2 header: "n," [a=authzid] ","
  if (message.substr(0, 2) != "n,") return Fail(malformed);
  std::string_view rest = message.substr(2);
  std::string authzid;
  const size_t comma = rest.find(',');
  if (comma == std::string_view::npos) return Fail(malformed);
  if (comma > 0) {
    if (rest.substr(0, 2) != "a=" || !IsSaslName(rest.substr(2, comma - 2))) return Fail(malformed);
    authzid = std::string(rest.substr(2, comma - 2));
  }
  rest.remove_prefix(comma + 1);
  // reserved "m=" VALUE ",", accepted and ignored
  if (rest.substr(0, 2) == "m=") {
    const size_t end = rest.find(',');
    if (end == std::string_view::npos) return Fail(malformed);
    rest.remove_prefix(end + 1);
  }
  const std::string_view bare = rest;
  if (rest.substr(0, 2) != "n=") return Fail(malformed);
  const size_t name_end = rest.find(',');
  if (name_end == std::string_view::npos || !IsSaslName(rest.substr(2, name_end - 2))) {
    return Fail(malformed);
  }
  const std::string_view saslname = rest.substr(2, name_end - 2);
  rest.remove_prefix(name_end + 1);
  if (rest.substr(0, 2) != "r=") return Fail(malformed);
  const size_t nonce_end = rest.find(',');
  const std::string_view client_nonce =
      rest.substr(2, nonce_end == std::string_view::npos ? std::string_view::npos : nonce_end - 2);
  if (client_nonce.empty() || !AllOf(client_nonce, IsPrintable)) return Fail(malformed);
  const std::string_view extensions =
      nonce_end == std::string_view::npos ? std::string_view() : rest.substr(nonce_end);
  if (!AreExtensions(extensions)) return Fail(malformed);
  if (extensions.find(",tokenauth=") != std::string_view::npos) {
    // Delegation tokens are not served (docs/compatibility.md): no token exists.
    return Fail(Status::InvalidArgument(
        fmt::format("Token Authentication failed: Invalid tokenId : {}", saslname)));
  }
  Result<std::string> user = ScramUsername(saslname);
  if (!user.ok()) {
    return Fail(
        Status::InvalidArgument("Authentication failed: Credentials could not be obtained"));
  }
  std::optional<ScramCredential> credential = lookup_(*user);
  if (!credential.has_value()) {
    return Fail(Status::InvalidArgument("Authentication failed: Invalid user credentials"));
  }
  if (!authzid.empty() && authzid != *user) {
    return Fail(Status::InvalidArgument("Authentication failed: Client requested an authorization "
                                        "id that is different from username"),
                /*for_client=*/true);
  }
  if (credential->iterations < kScramMinIterations) {
    return Fail(Status::InvalidArgument(
        fmt::format("Iterations {} is less than the minimum {} for {}", credential->iterations,
                    kScramMinIterations,
                    mechanism_ == ScramMechanism::kSha512 ? "SCRAM_SHA_512" : "SCRAM_SHA_256")));
  }
  username_ = std::move(*user);
  credential_ = std::move(*credential);
  client_first_bare_ = std::string(bare);
  nonce_ = std::string(client_nonce) + server_nonce_;
  server_first_ =
      fmt::format("r={},s={},i={}", nonce_, Base64Encode(credential_.salt), credential_.iterations);
  state_ = State::kClientFinal;
  return server_first_;
}

Result<std::string> ScramServer::ClientFinal(std::string_view message) {
  if (state_ != State::kClientFinal) {
    return Fail(Status::FailedPrecondition("Unexpected challenge in Sasl server state"));
  }
  const Status malformed = Status::InvalidArgument(
      fmt::format("Invalid SCRAM client final message format: {}", message));
  // "c=" BASE64 ",r=" PRINTABLE extensions ",p=" BASE64
  const size_t r = message.find(",r=");
  const size_t p = message.rfind(",p=");
  if (message.substr(0, 2) != "c=" || r == std::string_view::npos || p == std::string_view::npos ||
      p < r) {
    return Fail(malformed);
  }
  const std::string_view cbind = message.substr(2, r - 2);
  const std::string_view after_r = message.substr(r + 3, p - r - 3);
  const size_t ext = after_r.find(',');
  const std::string_view nonce = after_r.substr(0, ext);
  const std::string_view proof_b64 = message.substr(p + 3);
  Result<std::vector<uint8_t>> proof = Base64Decode(proof_b64);
  if (!Base64Decode(cbind).ok() || !proof.ok() || nonce.empty() || !AllOf(nonce, IsPrintable) ||
      (ext != std::string_view::npos && !AreExtensions(after_r.substr(ext)))) {
    return Fail(malformed);
  }
  if (nonce != nonce_) {
    return Fail(Status::InvalidArgument("Invalid client nonce in the final client message."));
  }
  const std::string auth_message =
      fmt::format("{},{},c={},r={}", client_first_bare_, server_first_, cbind, nonce);
  const std::vector<uint8_t> signature =
      Hmac(mechanism_, credential_.stored_key, Bytes(auth_message));
  if (proof->size() != signature.size()) {
    return Fail(Status::InvalidArgument("Invalid client credentials"));
  }
  std::vector<uint8_t> client_key(signature.size());
  for (size_t i = 0; i < signature.size(); ++i) client_key[i] = (*proof)[i] ^ signature[i];
  const std::vector<uint8_t> stored = Hash(mechanism_, client_key);
  if (stored.size() != credential_.stored_key.size() ||
      CRYPTO_memcmp(stored.data(), credential_.stored_key.data(), stored.size()) != 0) {
    return Fail(Status::InvalidArgument("Invalid client credentials"));
  }
  const std::string server_final =
      "v=" + Base64Encode(Hmac(mechanism_, credential_.server_key, Bytes(auth_message)));
  credential_ = {};
  state_ = State::kComplete;
  return server_final;
}

}  // namespace seglog
