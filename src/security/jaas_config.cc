// ParseJaasConfig; see jaas_config.h.
#include "security/jaas_config.h"

#include <fmt/format.h>

#include <cctype>

namespace seglog {

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}
  void SkipSpace() {
    while (at_ < t_.size()) {
      if (std::isspace(static_cast<unsigned char>(t_[at_]))) {
        ++at_;
      } else if (t_.substr(at_, 2) == "//") {  // comment to the end of the line
        while (at_ < t_.size() && t_[at_] != '\n') ++at_;
      } else if (t_.substr(at_, 2) == "/*") {
        const size_t end = t_.find("*/", at_ + 2);
        at_ = end == std::string_view::npos ? t_.size() : end + 2;
      } else {
        break;
      }
    }
  }
  bool AtEnd() {
    SkipSpace();
    return at_ >= t_.size();
  }
  char Peek() {
    SkipSpace();
    return at_ < t_.size() ? t_[at_] : '\0';
  }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }
  // A bare word: anything up to space, '=', ';' or a quote.
  std::string Word() {
    SkipSpace();
    const size_t from = at_;
    while (at_ < t_.size()) {
      const char c = t_[at_];
      if (std::isspace(static_cast<unsigned char>(c)) || c == '=' || c == ';' || c == '"') break;
      ++at_;
    }
    return std::string(t_.substr(from, at_ - from));
  }
  // A quoted value; false when it does not end.
  bool Quoted(std::string* out) {
    if (!Take('"')) return false;
    while (at_ < t_.size()) {
      const char c = t_[at_++];
      if (c == '"') return true;
      if (c == '\\' && at_ < t_.size()) {
        out->push_back(t_[at_++]);
        continue;
      }
      out->push_back(c);
    }
    return false;
  }

 private:
  std::string_view t_;
  size_t at_ = 0;
};

}  // namespace

Result<JaasConfigEntry> ParseJaasConfig(std::string_view text) {
  Scanner s(text);
  JaasConfigEntry e;
  e.login_module = s.Word();
  if (e.login_module.empty()) {
    return Status::InvalidArgument("JAAS config entry not terminated by semi-colon");
  }
  std::string flag = s.Word();
  for (char& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (flag != "required" && flag != "requisite" && flag != "sufficient" && flag != "optional") {
    return Status::InvalidArgument(fmt::format("Invalid control flag {}", flag));
  }
  e.control_flag = flag;
  while (!s.Take(';')) {
    if (s.AtEnd()) {
      return Status::InvalidArgument("JAAS config entry not terminated by semi-colon");
    }
    const std::string name = s.Word();
    if (name.empty() || !s.Take('=')) {
      return Status::InvalidArgument(
          fmt::format("Value not specified for key '{}' in JAAS config", name));
    }
    std::string value;
    if (s.Peek() == '"') {
      if (!s.Quoted(&value)) {
        return Status::InvalidArgument(
            fmt::format("Unterminated quoted value for key '{}' in JAAS config", name));
      }
    } else {
      value = s.Word();
      if (value.empty()) {
        return Status::InvalidArgument(
            fmt::format("Value not specified for key '{}' in JAAS config", name));
      }
    }
    e.options[name] = std::move(value);
  }
  if (!s.AtEnd()) {
    return Status::InvalidArgument(
        "JAAS config property contains 2 login modules, should be 1 module");
  }
  return e;
}

}  // namespace seglog
