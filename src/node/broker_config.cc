// BrokerConfig; see broker_config.h.
#include "node/broker_config.h"

#include <optional>

#include "base/config_values.h"
#include "base/properties.h"
#include "io/atomic_file.h"
#include "io/env.h"

namespace seglog {

namespace {

using C = BrokerConfig;

// The node's own keys.
const ConfigSetters<C>& NodeSetters() {
  static const ConfigSetters<C> setters = {
      {"auto.create.topics.enable", SetConfigBool<C, &C::auto_create_topics_enable>},
      // One node holds every replica there is: a factor above 1 could never be met (Kafka
      // refuses such a topic with InvalidReplicationFactorException, too few brokers).
      {"default.replication.factor",
       [](C* c, const std::string&, const std::string& v) {
         Status st = ParseConfigInt<int16_t>("default.replication.factor", v, 1,
                                             &c->default_replication_factor);
         if (st.ok() && c->default_replication_factor != 1) {
           return Status::InvalidArgument(
               "Invalid value " + v +
               " for configuration default.replication.factor: seglog is a single broker, so "
               "the replication factor must be 1");
         }
         return st;
       }},
  };
  return setters;
}

}  // namespace

Result<BrokerConfig> BrokerConfig::FromProperties(const std::map<std::string, std::string>& props) {
  BrokerConfig c;
  c.properties = props;
  std::vector<std::string> errors;
  // Each layer's keys, offered to each in turn; storage parses its own first.
  auto layers = [&c](const std::string& k, const std::string& v) -> std::optional<Status> {
    if (IsListenerConfigKey(k)) return Status::OK();  // read together below
    if (auto s = SetConfigKey(NodeSetters(), &c, k, v)) return s;
    if (auto s = c.socket.Set(k, v)) return s;
    if (auto s = c.group.Set(k, v)) return s;
    if (auto s = c.txn.Set(k, v)) return s;
    return c.remote.Set(k, v);
  };
  LogManagerConfig::Parse(props, layers, &c, &errors);
  c.group.Validate(&errors);
  ListenerConfigs listeners;
  ParseListenerConfigs(props, &listeners, &errors);
  c.listeners = std::move(listeners.listeners);
  c.advertised_listeners = std::move(listeners.advertised_listeners);
  SEGLOG_RETURN_IF_ERROR(c.Finish(errors));
  return c;
}

Result<BrokerConfig> BrokerConfig::Load(const std::string& path) {
  // The server's own config file, read before any engine (and its Env) exists.
  SEGLOG_ASSIGN_OR_RETURN(const std::string text, ReadFileToString(Env::Default(), path));
  auto c = FromProperties(ParseProperties(text));
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

SocketServerOptions BrokerConfig::SocketServer() const {
  SocketServerOptions o = socket;
  o.listeners = listeners;
  o.node_id = node_id;
  return o;
}

}  // namespace seglog
