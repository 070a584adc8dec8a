// Parsing of configuration values with Kafka's ConfigDef messages: "Invalid value X for
// configuration NAME: <reason>". Shared by topic (LogConfig) and broker (ServerConfig) configs.
// Thread safety: pure functions.
#ifndef SEGLOG_LOG_CONFIG_VALUES_H_
#define SEGLOG_LOG_CONFIG_VALUES_H_

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <type_traits>

#include "seglog/status.h"

namespace seglog {

inline Status ConfigInvalid(const std::string& name, const std::string& value,
                            const std::string& why) {
  return Status::InvalidArgument(
      fmt::format("Invalid value {} for configuration {}: {}", value, name, why));
}

template <typename T>
inline Status ParseConfigInt(const std::string& name, const std::string& value, T min, T* out) {
  T v{};
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    return ConfigInvalid(
        name, value,
        std::is_same_v<T, int32_t> ? "Not a number of type INT" : "Not a number of type LONG");
  }
  if (v < min) return ConfigInvalid(name, value, fmt::format("Value must be at least {}", min));
  *out = v;
  return Status::OK();
}

inline Status ParseConfigBool(const std::string& name, const std::string& value, bool* out) {
  if (value == "true") {
    *out = true;
  } else if (value == "false") {
    *out = false;
  } else {
    return ConfigInvalid(name, value, "Expected value to be either true or false");
  }
  return Status::OK();
}

}  // namespace seglog

#endif  // SEGLOG_LOG_CONFIG_VALUES_H_
