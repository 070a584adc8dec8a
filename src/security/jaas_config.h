// JaasConfig: one login module entry of a JAAS configuration text, as Kafka reads
// `sasl.jaas.config` values ("org.apache.kafka.common.security.plain.PlainLoginModule required
// username=\"admin\" password=\"admin-secret\" user_alice=\"alice-secret\";"). The syntax is
// JAAS's: a class name, a control flag (required, requisite, sufficient, optional), options
// `name=value` where a value is quoted ("..." with \-escapes) or a bare token, and a closing
// ';'. Kafka's JaasConfig takes exactly one entry from a `sasl.jaas.config` value.
//
// Thread safety: a value type and a pure function.
#ifndef SEGLOG_SECURITY_JAAS_CONFIG_H_
#define SEGLOG_SECURITY_JAAS_CONFIG_H_

#include <map>
#include <string>
#include <string_view>

#include "seglog/result.h"

namespace seglog {

struct JaasConfigEntry {
  std::string login_module;  // the class name
  std::string control_flag;  // lower case
  std::map<std::string, std::string> options;
};

// InvalidArgument naming the problem for anything but one well-formed entry.
Result<JaasConfigEntry> ParseJaasConfig(std::string_view text);

}  // namespace seglog

#endif  // SEGLOG_SECURITY_JAAS_CONFIG_H_
