// ParseProperties; see properties.h.
#include "base/properties.h"

#include <vector>

namespace seglog {

namespace {

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'f':
        out.push_back('\f');
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Logical lines: physical lines joined where one ends in an odd number of backslashes.
std::vector<std::string> LogicalLines(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  bool continuing = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (continuing) {
      size_t first = 0;
      while (first < line.size() && IsBlank(line[first])) ++first;
      line = line.substr(first);
    }
    size_t slashes = 0;
    while (slashes < line.size() && line[line.size() - 1 - slashes] == '\\') ++slashes;
    const bool more = slashes % 2 == 1;
    if (more) line.pop_back();
    const bool comment = !continuing && [&] {
      size_t f = 0;
      while (f < line.size() && IsBlank(line[f])) ++f;
      return f < line.size() && (line[f] == '#' || line[f] == '!');
    }();
    if (!comment) current += line;
    if (more && !comment) {
      continuing = true;
    } else {
      if (!current.empty()) out.push_back(current);
      current.clear();
      continuing = false;
    }
    if (nl == text.size()) break;
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

}  // namespace

std::map<std::string, std::string> ParseProperties(const std::string& text) {
  std::map<std::string, std::string> out;
  for (const std::string& line : LogicalLines(text)) {
    size_t i = 0;
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i == line.size()) continue;
    size_t key_end = i;
    while (key_end < line.size() && line[key_end] != '=' && line[key_end] != ':' &&
           !IsBlank(line[key_end])) {
      if (line[key_end] == '\\') ++key_end;
      ++key_end;
    }
    key_end = std::min(key_end, line.size());
    size_t v = key_end;
    while (v < line.size() && IsBlank(line[v])) ++v;
    if (v < line.size() && (line[v] == '=' || line[v] == ':')) ++v;
    while (v < line.size() && IsBlank(line[v])) ++v;
    out[Unescape(line.substr(i, key_end - i))] = Unescape(line.substr(std::min(v, line.size())));
  }
  return out;
}

std::string EscapeProperty(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ':' || c == '=' || c == '\\' || c == '#' || c == '!' || (c == ' ' && i == 0)) {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace seglog
