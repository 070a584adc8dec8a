// SCRAM mechanism names and codes (scram.h). Apart from scram.cc so that code which only names
// mechanisms (the metadata store) needs no OpenSSL.
#include "security/scram.h"

namespace seglog {

ScramMechanism ScramMechanismFromName(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return ScramMechanism::kUnknown;
}

std::string_view ScramMechanismName(ScramMechanism m) {
  switch (m) {
    case ScramMechanism::kSha256:
      return "SCRAM-SHA-256";
    case ScramMechanism::kSha512:
      return "SCRAM-SHA-512";
    default:
      return "UNKNOWN";
  }
}

ScramMechanism ScramMechanismFromCode(int8_t code) {
  return code == 1 || code == 2 ? static_cast<ScramMechanism>(code) : ScramMechanism::kUnknown;
}

}  // namespace seglog
