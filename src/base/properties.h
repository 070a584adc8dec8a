// java.util.Properties text (server.properties, meta.properties): `key=value`, `key: value` or
// `key value` lines; `#` and `!` comments; backslash escapes and line continuations. A later
// duplicate key wins, as in Java.
// Thread safety: pure functions.
#ifndef SEGLOG_BASE_PROPERTIES_H_
#define SEGLOG_BASE_PROPERTIES_H_

#include <map>
#include <string>

namespace seglog {

std::map<std::string, std::string> ParseProperties(const std::string& text);
// Escapes a key or value for writing (`:`, `=`, `#`, `!`, `\`, leading spaces).
std::string EscapeProperty(const std::string& s);

}  // namespace seglog

#endif  // SEGLOG_BASE_PROPERTIES_H_
