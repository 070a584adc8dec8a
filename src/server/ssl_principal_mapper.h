// SslPrincipalMapper: ssl.principal.mapping.rules, which turn a TLS client certificate's
// subject (RFC 2253, "CN=alice,OU=eng,O=example") into the name of its principal, as Kafka's
// rules do: a comma-separated list of
//
//   DEFAULT                              the subject as it is
//   RULE:<pattern>/<replacement>/[L|U]   when <pattern> matches the whole subject, the subject
//                                        with every match replaced ($1.. name groups), then
//                                        lower- or upper-cased
//
// tried in order; the first rule that applies names the principal. '\' escapes a '/' or a
// ',' inside a pattern or replacement. Patterns are ECMAScript regular expressions (std::regex),
// which agree with Java's on the constructs such rules use (groups, classes, lazy and greedy
// quantifiers, anchors).
//
// Thread safety: immutable after Parse; Map may be called from any thread.
#ifndef SEGLOG_SERVER_SSL_PRINCIPAL_MAPPER_H_
#define SEGLOG_SERVER_SSL_PRINCIPAL_MAPPER_H_

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/result.h"

namespace seglog {

class SslPrincipalMapper {
 public:
  // InvalidArgument ("Invalid rule: ...") for a rule that does not parse or compile.
  static Result<SslPrincipalMapper> Parse(std::string_view rules);

  // The principal name for `subject`; NotFound ("No rules apply to <subject>, rules [...]")
  // when no rule applies.
  Result<std::string> Map(const std::string& subject) const;

 private:
  struct Rule {
    bool is_default = true;
    std::string pattern_text;
    std::regex pattern;
    std::string replacement;
    char case_flag = '\0';  // 'L', 'U' or none
    std::string ToString() const;
  };
  std::vector<Rule> rules_;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_SSL_PRINCIPAL_MAPPER_H_
