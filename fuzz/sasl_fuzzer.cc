// libFuzzer target: the SASL messages a client sends before it is authenticated - SCRAM's
// client-first and client-final messages (security/scram.h), saslnames and base64. Input:
// one byte choosing the mechanism, then the client-first message, a NUL, the client-final one.
// The server must refuse or answer, never crash or read out of bounds (ASan, UBSan). The user
// "user" has the password "pencil", so the exchange gets past its first message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "security/scram.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using seglog::ScramMechanism;
  const ScramMechanism m = data[0] % 2 == 0 ? ScramMechanism::kSha256 : ScramMechanism::kSha512;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t nul = rest.find('\0');
  const std::string_view first = rest.substr(0, nul);
  const std::string_view final = nul == std::string_view::npos ? "" : rest.substr(nul + 1);
  static const std::vector<uint8_t> kSalt = {'s', 'a', 'l', 't'};
  static const seglog::ScramCredential kSha256 =
      seglog::ScramCredentialFromPassword(ScramMechanism::kSha256, "pencil", kSalt, 4096).value();
  static const seglog::ScramCredential kSha512 =
      seglog::ScramCredentialFromPassword(ScramMechanism::kSha512, "pencil", kSalt, 4096).value();
  seglog::ScramServer server(
      m,
      [&](const std::string& user) -> std::optional<seglog::ScramCredential> {
        if (user != "user") return std::nullopt;
        return m == ScramMechanism::kSha256 ? kSha256 : kSha512;
      },
      "fixednonce");
  if (server.ClientFirst(first).ok()) (void)server.ClientFinal(final);
  (void)seglog::ScramUsername(first);
  (void)seglog::Base64Decode(final);
  return 0;
}
