// Parsing of configuration values with Kafka's ConfigDef messages: "Invalid value X for
// configuration NAME: <reason>". Shared by topic configs (LogConfig) and the broker's configs,
// each layer parsing its own keys (LogManagerConfig, GroupCoordinatorConfig, ...,
// BrokerConfig over them all).
// Thread safety: pure functions.
#ifndef SEGLOG_BASE_CONFIG_VALUES_H_
#define SEGLOG_BASE_CONFIG_VALUES_H_

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

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

// "a, b,c" -> {"a", "b", "c"}: a LIST config's items, spaces around them trimmed, empty items
// dropped.
inline std::vector<std::string> SplitConfigList(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string item = v.substr(start, comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.erase(item.begin());
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

// One layer's settings by key: how a value of each key (the key given too, for messages) is
// parsed into the layer's struct T.
template <typename T>
using ConfigSetters =
    std::map<std::string, Status (*)(T*, const std::string& key, const std::string& value)>;

// The setters of the common kinds: an integer field with its minimum, a boolean field.
template <typename T, typename V, V T::*Field, V Min>
Status SetConfigInt(T* c, const std::string& key, const std::string& value) {
  return ParseConfigInt<V>(key, value, Min, &(c->*Field));
}
template <typename T, bool T::*Field>
Status SetConfigBool(T* c, const std::string& key, const std::string& value) {
  return ParseConfigBool(key, value, &(c->*Field));
}

// Sets `key` in *c when it is one of `setters`' keys (the parse's outcome); nullopt when the
// key is not this layer's.
template <typename T>
std::optional<Status> SetConfigKey(const ConfigSetters<T>& setters, T* c, const std::string& key,
                                   const std::string& value) {
  auto it = setters.find(key);
  if (it == setters.end()) return std::nullopt;
  return it->second(c, key, value);
}

}  // namespace seglog

#endif  // SEGLOG_BASE_CONFIG_VALUES_H_
