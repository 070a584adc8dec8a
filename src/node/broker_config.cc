// BrokerConfig; see broker_config.h.
#include "node/broker_config.h"

#include <fmt/format.h>

#include <optional>

#include "base/config_values.h"
#include "base/logger_registry.h"
#include "base/properties.h"
#include "http/http_server.h"
#include "io/atomic_file.h"
#include "io/env.h"
#include "security/standard_authorizer.h"
#include "server/listener_security.h"

namespace seglog {

namespace {

using C = BrokerConfig;

// The node's own keys.
const ConfigSetters<C>& NodeSetters() {
  static const ConfigSetters<C> setters = {
      {"auto.create.topics.enable", SetConfigBool<C, &C::auto_create_topics_enable>},
      {"delete.topic.enable", SetConfigBool<C, &C::delete_topic_enable>},
      {"errors.deadletterqueue.auto.create.topics.enable",
       SetConfigBool<C, &C::dlq_auto_create_topics_enable>},
      {"errors.deadletterqueue.topic.name.prefix",
       [](C* c, const std::string&, const std::string& v) {
         c->dlq_topic_name_prefix = v;
         return Status::OK();
       }},
      {"fetch.max.bytes", SetConfigInt<C, int32_t, &C::fetch_max_bytes, 1024>},
      {"telemetry.max.bytes", SetConfigInt<C, int32_t, &C::telemetry_max_bytes, 1>},
      {"http.listener",
       [](C* c, const std::string&, const std::string& v) {
         return ParseHttpListener(v, &c->http_host, &c->http_port);
       }},
      {"controller.quota.window.num", SetConfigInt<C, int32_t, &C::controller_quota_window_num, 1>},
      {"controller.quota.window.size.seconds",
       SetConfigInt<C, int32_t, &C::controller_quota_window_size_seconds, 1>},
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

// The authorizer's keys: authorizer.class.name names Kafka's StandardAuthorizer (the only one
// Kafka 4.4 has built in; src/security/standard_authorizer.h), super.users and
// allow.everyone.if.no.acl.found configure it. Every API then checks the request's principal
// against the metadata log's ACLs as Kafka's KafkaApis does (src/server/authorization.h), on
// every listener. Another authorizer class is refused with the reason.
bool IsAuthorizerKey(const std::string& k) {
  return k == "authorizer.class.name" || k == "super.users" ||
         k == "allow.everyone.if.no.acl.found";
}

constexpr const char* kStandardAuthorizer =
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

void CheckAuthorizer(const std::map<std::string, std::string>& props,
                     std::vector<std::string>* errors) {
  auto it = props.find("authorizer.class.name");
  if (it == props.end() || it->second.empty()) return;
  if (it->second != kStandardAuthorizer) {
    errors->push_back(fmt::format(
        "authorizer.class.name={}: seglog's authorizer is Kafka's StandardAuthorizer ({})",
        it->second, kStandardAuthorizer));
    return;
  }
  Result<AuthorizerOptions> options = AuthorizerOptions::FromProperties(props);
  if (!options.ok()) {
    errors->push_back(fmt::format("super.users: {}", options.status().message()));
  }
}

}  // namespace

Result<BrokerConfig> BrokerConfig::FromProperties(const std::map<std::string, std::string>& props) {
  BrokerConfig c;
  c.properties = props;
  std::vector<std::string> errors;
  // ssl.*, sasl.* and their listener forms are read when a listener is secured; on a broker
  // with PLAINTEXT listeners only they are ignored (and logged as such), as unused settings.
  bool any_secure = false;
  {
    ListenerConfigs l;
    std::vector<std::string> ignored_errors;
    ParseListenerConfigs(props, &l, &ignored_errors);
    for (const ListenerEndpoint& e : l.listeners) any_secure |= e.security_protocol != "PLAINTEXT";
  }
  // Each layer's keys, offered to each in turn; storage parses its own first.
  auto layers = [&c, any_secure](const std::string& k,
                                 const std::string& v) -> std::optional<Status> {
    if (IsListenerConfigKey(k)) return Status::OK();  // read together below
    if (IsAuthorizerKey(k)) return Status::OK();      // checked together below
    if (LoggerRegistry::IsLevelKey(k)) {              // log levels, applied as the broker starts
      LoggerRegistry check;
      return check.Configure({{k, v}});
    }
    if (any_secure && IsListenerSecurityKey(k)) return Status::OK();  // read below
    if (auto s = SetConfigKey(NodeSetters(), &c, k, v)) return s;
    if (auto s = c.socket.Set(k, v)) return s;
    if (auto s = c.group.Set(k, v)) return s;
    if (auto s = c.txn.Set(k, v)) return s;
    if (auto s = c.share.Set(k, v)) return s;
    return c.remote.Set(k, v);
  };
  LogManagerConfig::Parse(props, layers, &c, &errors);
  c.group.Validate(&errors);
  CheckAuthorizer(props, &errors);
  ListenerConfigs listeners;
  ParseListenerConfigs(props, &listeners, &errors);
  c.listeners = std::move(listeners.listeners);
  c.advertised_listeners = std::move(listeners.advertised_listeners);
  c.socket.security = ParseListenerSecurity(props, c.listeners, &errors);
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
