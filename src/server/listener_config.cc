// ListenerEndpoint and ParseListeners; see listener_config.h.
#include "server/listener_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "base/config_values.h"

namespace seglog {

namespace {

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string Upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string item = Trim(v.substr(start, comma - start));
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

bool IsHostChar(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '%' || ch == '.' ||
         ch == '_' || ch == ':';
}

// "NAME://host:port" or "NAME://[v6]:port"; false when it does not have that shape.
bool SplitEndpoint(const std::string& entry, ListenerEndpoint* out) {
  const size_t scheme = entry.find("://");
  if (scheme == std::string::npos || scheme == 0) return false;
  std::string rest = entry.substr(scheme + 3);
  std::string host;
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return false;
    }
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos) return false;
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (!std::all_of(host.begin(), host.end(), IsHostChar)) return false;
  int32_t p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size()) return false;
  out->name = Upper(entry.substr(0, scheme));
  out->host = host;
  out->port = p;
  return true;
}

}  // namespace

std::string ListenerEndpoint::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", name, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

std::map<std::string, std::string> DefaultSecurityProtocolMap() {
  return {{"PLAINTEXT", "PLAINTEXT"},
          {"SSL", "SSL"},
          {"SASL_PLAINTEXT", "SASL_PLAINTEXT"},
          {"SASL_SSL", "SASL_SSL"}};
}

Result<std::map<std::string, std::string>> ParseSecurityProtocolMap(const std::string& config,
                                                                    const std::string& value) {
  std::map<std::string, std::string> out;
  for (const std::string& entry : SplitList(value)) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size()) {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration {}: Map entry should be of form "
                      "<key><separator><value>",
                      value, config));
    }
    out[Upper(Trim(entry.substr(0, colon)))] = Upper(Trim(entry.substr(colon + 1)));
  }
  return out;
}

Result<std::vector<ListenerEndpoint>> ParseListeners(
    const std::string& config, const std::string& value,
    const std::map<std::string, std::string>& protocols,
    const std::vector<std::string>& skip_names) {
  std::vector<ListenerEndpoint> out;
  std::set<std::string> names;
  for (const std::string& entry : SplitList(value)) {
    ListenerEndpoint e;
    if (!SplitEndpoint(entry, &e)) {
      return Status::InvalidArgument(
          fmt::format("Unable to parse {} to a broker endpoint (configuration {})", entry, config));
    }
    if (std::find(skip_names.begin(), skip_names.end(), e.name) != skip_names.end()) continue;
    auto protocol = protocols.find(e.name);
    if (protocol == protocols.end()) {
      return Status::InvalidArgument(fmt::format(
          "No security protocol defined for listener {} (configuration {})", e.name, config));
    }
    if (protocol->second != "PLAINTEXT" && protocol->second != "SSL" &&
        protocol->second != "SASL_PLAINTEXT" && protocol->second != "SASL_SSL") {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration {}: listener {} uses security protocol "
                      "{}, which is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
                      value, config, e.name, protocol->second));
    }
    e.security_protocol = protocol->second;
    if (e.port < 0 || e.port > 65535) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value {} for configuration {}: port {} out of range", value, config, e.port));
    }
    if (!names.insert(e.name).second) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value {} for configuration {}: Each listener must have a different name", value,
          config));
    }
    out.push_back(std::move(e));
  }
  return out;
}

void ParseListenerConfigs(const std::map<std::string, std::string>& props, ListenerConfigs* c,
                          std::vector<std::string>* errors) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = props.find(key);
    return it == props.end() ? nullptr : &it->second;
  };
  std::map<std::string, std::string> protocols = DefaultSecurityProtocolMap();
  if (const std::string* v = get("listener.security.protocol.map")) {
    auto m = ParseSecurityProtocolMap("listener.security.protocol.map", *v);
    if (!m.ok()) {
      errors->emplace_back(m.status().message());
      return;
    }
    protocols = *m;
  }
  std::vector<std::string> controller_names;
  if (const std::string* v = get("controller.listener.names")) {
    for (const std::string& name : SplitConfigList(*v)) {
      controller_names.push_back(Upper(name));
      // KRaft maps controller listeners to PLAINTEXT when the map does not name them.
      protocols.emplace(Upper(name), "PLAINTEXT");
    }
  }
  if (const std::string* v = get("listeners")) {
    auto l = ParseListeners("listeners", *v, protocols, controller_names);
    if (!l.ok()) {
      errors->emplace_back(l.status().message());
    } else if (l->empty()) {
      errors->push_back(
          fmt::format("Invalid value {} for configuration listeners: no listener given", *v));
    } else {
      c->listeners = *l;
    }
  }
  c->advertised_listeners = c->listeners;
  if (const std::string* v = get("advertised.listeners")) {
    auto l = ParseListeners("advertised.listeners", *v, protocols, controller_names);
    if (!l.ok()) {
      errors->emplace_back(l.status().message());
      return;
    }
    for (const ListenerEndpoint& e : *l) {
      if (e.host == "0.0.0.0") {
        errors->push_back(
            "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a "
            "routable IP address.");
      }
    }
    if (!l->empty()) c->advertised_listeners = *l;
  }
}

bool IsListenerConfigKey(const std::string& key) {
  return key == "listeners" || key == "advertised.listeners" ||
         key == "listener.security.protocol.map" || key == "controller.listener.names";
}

}  // namespace seglog
