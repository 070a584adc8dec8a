// SslPrincipalMapper; see ssl_principal_mapper.h.
#include "server/ssl_principal_mapper.h"

#include <fmt/format.h>

#include <cctype>

namespace seglog {

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Reads up to the next '/' not escaped by '\' (escapes are kept, as Kafka keeps them);
// false when there is none.
bool ReadPart(std::string_view text, size_t* at, std::string* out) {
  while (*at < text.size()) {
    const char c = text[*at];
    if (c == '\\' && *at + 1 < text.size()) {
      out->push_back(c);
      out->push_back(text[*at + 1]);
      *at += 2;
      continue;
    }
    ++*at;
    if (c == '/') return true;
    out->push_back(c);
  }
  return false;
}

}  // namespace

std::string SslPrincipalMapper::Rule::ToString() const {
  if (is_default) return "DEFAULT";
  std::string s = "RULE:" + pattern_text + "/" + replacement;
  if (case_flag != '\0') s += std::string("/") + case_flag;
  return s;
}

Result<SslPrincipalMapper> SslPrincipalMapper::Parse(std::string_view text) {
  SslPrincipalMapper m;
  size_t at = 0;
  auto skip_space = [&] {
    while (at < text.size() && IsSpace(text[at])) ++at;
  };
  while (true) {
    skip_space();
    if (at >= text.size()) break;
    const size_t start = at;
    Rule rule;
    if (text.substr(at, 7) == "DEFAULT") {
      at += 7;
    } else if (text.substr(at, 5) == "RULE:") {
      at += 5;
      rule.is_default = false;
      if (!ReadPart(text, &at, &rule.pattern_text) || !ReadPart(text, &at, &rule.replacement)) {
        return Status::InvalidArgument(fmt::format("Invalid rule: {}", text.substr(start)));
      }
      if (at < text.size() && (text[at] == 'L' || text[at] == 'U')) rule.case_flag = text[at++];
      try {
        rule.pattern = std::regex(rule.pattern_text, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return Status::InvalidArgument(
            fmt::format("Invalid rule: {}: {}", rule.ToString(), e.what()));
      }
    } else if (text[at] != ',') {
      return Status::InvalidArgument(fmt::format("Invalid rule: {}", text.substr(start)));
    } else {
      ++at;  // an empty rule is ignored
      continue;
    }
    // Anything after a rule up to the next comma is ignored, as Kafka's rule splitter does.
    while (at < text.size() && text[at] != ',') ++at;
    if (at < text.size()) ++at;
    m.rules_.push_back(std::move(rule));
  }
  return m;
}

Result<std::string> SslPrincipalMapper::Map(const std::string& subject) const {
  for (const Rule& r : rules_) {
    if (r.is_default) return subject;
    if (!std::regex_match(subject, r.pattern)) continue;
    std::string out = std::regex_replace(subject, r.pattern, r.replacement);
    for (char& c : out) {
      if (r.case_flag == 'L') c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (r.case_flag == 'U') c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
  }
  std::string list;
  for (const Rule& r : rules_) list += (list.empty() ? "" : ", ") + r.ToString();
  return Status::NotFound(fmt::format("No rules apply to {}, rules [{}]", subject, list));
}

}  // namespace seglog
