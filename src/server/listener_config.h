// ListenerEndpoint and ParseListeners: Kafka's `listeners` and `advertised.listeners` values
// ("PLAINTEXT://host:port,NAME://[::1]:port"), parsed with Kafka's rules (an empty host binds
// the wildcard address; the listener name maps to a security protocol through
// listener.security.protocol.map: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL).
//
// Thread safety: value types and pure functions.
#ifndef SEGLOG_SERVER_LISTENER_CONFIG_H_
#define SEGLOG_SERVER_LISTENER_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seglog/result.h"

namespace seglog {

struct ListenerEndpoint {
  std::string name;  // the listener name, upper case as Kafka normalises it ("PLAINTEXT")
  std::string host;  // empty: the wildcard address
  int32_t port = 0;  // 0: any free port (tests)
  // Its listener.security.protocol.map entry: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
  std::string security_protocol = "PLAINTEXT";
  bool operator==(const ListenerEndpoint&) const = default;
  // "NAME://host:port", IPv6 hosts in brackets.
  std::string ToString() const;
};

// Kafka's default listener.security.protocol.map: each security protocol is also a listener
// name that maps to itself.
std::map<std::string, std::string> DefaultSecurityProtocolMap();

// Parses "A:B,C:D" (listener.security.protocol.map); names are upper-cased.
Result<std::map<std::string, std::string>> ParseSecurityProtocolMap(const std::string& config,
                                                                    const std::string& value);

// Parses a comma-separated listener list for the configuration `config`. Listeners named in
// `skip_names` (controller.listener.names: seglog has no KRaft controller) are left out. Each
// other listener's name must map to a security protocol in `protocols`. Errors in Kafka's words
// where Kafka has them ("Unable to parse x to a broker endpoint").
Result<std::vector<ListenerEndpoint>> ParseListeners(
    const std::string& config, const std::string& value,
    const std::map<std::string, std::string>& protocols,
    const std::vector<std::string>& skip_names);

// The listener settings of a server.properties, read together as they depend on each other:
// listeners, advertised.listeners (`listeners` when not given), listener.security.protocol.map
// and controller.listener.names. Each problem is appended to `errors`; the defaults are kept
// for what is not given or not valid.
struct ListenerConfigs {
  std::vector<ListenerEndpoint> listeners = {{"PLAINTEXT", "", 9092}};
  std::vector<ListenerEndpoint> advertised_listeners = {{"PLAINTEXT", "", 9092}};
};
void ParseListenerConfigs(const std::map<std::string, std::string>& props, ListenerConfigs* out,
                          std::vector<std::string>* errors);

// Whether `key` is one of the four keys ParseListenerConfigs reads.
bool IsListenerConfigKey(const std::string& key);

}  // namespace seglog

#endif  // SEGLOG_SERVER_LISTENER_CONFIG_H_
