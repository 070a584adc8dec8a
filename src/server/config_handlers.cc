// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs: the topic configs (Kafka's
// TopicConfig names, types and defaults, the broker's log.* synonyms, the topic's overrides)
// and the broker's own settings, which are static: seglog changes no broker config at runtime.
// A GROUP resource (32) is a group's own configs (group/group_config.h: Kafka's GroupConfig),
// kept in the metadata log, checked as Kafka's controller checks them and described as Kafka's
// ConfigHelper describes them.
//
// ACLs (Kafka's ConfigHelper, ConfigAdminManager and ControllerApis), per resource, with the
// error's Errors.message(): DESCRIBE_CONFIGS (to describe) or ALTER_CONFIGS (to alter) on the
// topic (TOPIC_AUTHORIZATION_FAILED), the group (GROUP_AUTHORIZATION_FAILED), or the cluster
// for a broker, its loggers or client metrics (CLUSTER_AUTHORIZATION_FAILED). DescribeConfigs
// answers the refused resources after the others, with no configs.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include "base/logger_registry.h"
#include "group/group_config.h"
#include "log/topic_config_defs.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/generated/broker_config_defs.h"
#include "server/handlers.h"
#include "telemetry/client_metrics_config.h"

namespace seglog {

namespace {

// ConfigResource.Type ids.
constexpr int8_t kTopicResource = 2;
constexpr int8_t kBrokerResource = 4;
constexpr int8_t kBrokerLoggerResource = 8;
constexpr int8_t kClientMetricsResource = 16;
constexpr int8_t kGroupResource = 32;

// DescribeConfigsResponse.ConfigSource ids.
constexpr int8_t kTopicConfigSource = 1;  // DYNAMIC_TOPIC_CONFIG
constexpr int8_t kDynamicBrokerConfig = 2;
constexpr int8_t kDynamicDefaultBrokerConfig = 3;
constexpr int8_t kStaticBrokerConfig = 4;
constexpr int8_t kDefaultConfig = 5;
constexpr int8_t kGroupConfigSource = 8;  // GROUP_CONFIG

// DescribeConfigsResponse.ConfigType ids.
enum ConfigType : int8_t {
  kBoolean = 1,
  kString = 2,
  kInt = 3,
  kLong = 5,
  kDouble = 6,
  kList = 7,
};

// IncrementalAlterConfigs operations (AlterConfigOp.OpType).
constexpr int8_t kSet = 0;
constexpr int8_t kDelete = 1;
constexpr int8_t kAppend = 2;
constexpr int8_t kSubtract = 3;

const char* ResourceTypeName(int8_t type) {
  switch (type) {
    case kTopicResource:
      return "TOPIC";
    case kBrokerResource:
      return "BROKER";
    case kBrokerLoggerResource:
      return "BROKER_LOGGER";
    case kClientMetricsResource:
      return "CLIENT_METRICS";
    case kGroupResource:
      return "GROUP";
    default:
      return "UNKNOWN";
  }
}

struct ApiError {
  int16_t code = kafka_error::kNone;
  std::optional<std::string> message;
  bool ok() const { return code == kafka_error::kNone; }
};

ApiError Error(int16_t code, std::string message) { return ApiError{code, std::move(message)}; }

// The topic must be a valid name of an existing topic (Kafka's ConfigHelper and
// ConfigurationControlManager).
ApiError CheckTopic(const BrokerContext& ctx, const std::string& name, TopicMetadata* md) {
  if (Status s = ValidateTopicNameForClient(name); !s.ok()) {
    return Error(kafka_error::kInvalidTopic, std::string(s.message()));
  }
  Result<TopicMetadata> found = ctx.logs->FindTopic(name);
  if (!found.ok()) {
    return Error(kafka_error::kUnknownTopicOrPartition,
                 fmt::format("The topic '{}' does not exist.", name));
  }
  if (md != nullptr) *md = std::move(found).value();
  return {};
}

// A BROKER resource names this node, or (empty) the cluster-wide defaults.
ApiError CheckBroker(const BrokerContext& ctx, const std::string& name) {
  if (name.empty()) return {};
  int32_t id = 0;
  std::istringstream in(name);
  if (!(in >> id) || !in.eof()) {
    return Error(kafka_error::kInvalidRequest,
                 fmt::format("Broker id must be an integer, but it is: {}", name));
  }
  if (id != ctx.node_id) {
    return Error(kafka_error::kInvalidRequest,
                 fmt::format("Unexpected broker id, expected {} or empty string, but received {}",
                             ctx.node_id, name));
  }
  return {};
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

using Resp = protocol::DescribeConfigsResponseData;

// Whether `name` passes the request's configuration_keys filter (null: every key).
bool Wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
  return !keys.has_value() || std::find(keys->begin(), keys->end(), name) != keys->end();
}

Resp::DescribeConfigsResourceResult Entry(const std::string& name, std::optional<std::string> value,
                                          int8_t source, ConfigType type, bool read_only,
                                          int16_t version) {
  Resp::DescribeConfigsResourceResult e;
  e.name = name;
  e.value = std::move(value);
  e.read_only = read_only;
  e.config_source = source;
  e.is_sensitive = false;
  if (version >= 3) {
    e.config_type = type;
    e.documentation = std::nullopt;
  }
  return e;
}

// A topic config's synonyms as Kafka's ConfigHelper lists them: the topic's override, then its
// first broker synonym set dynamically for this node, then for the cluster (also one seglog
// keeps without applying, as a topic's own), then set in
// server.properties (folded into the topic default: the finest time unit given, in ms;
// reported under the first synonym), then the broker synonyms' defaults. The value and source
// are the first synonym's.
void DescribeTopic(const BrokerContext& ctx, const TopicMetadata& md,
                   const protocol::DescribeConfigsRequestData& req,
                   const protocol::DescribeConfigsRequestData::DescribeConfigsResource& resource,
                   int16_t version, Resp::DescribeConfigsResult* out) {
  const std::map<std::string, std::string>& broker = ctx.logs->config().topic_defaults;
  const std::map<std::string, std::string> dynamic_node =
      ctx.logs->DynamicBrokerConfigs(std::to_string(ctx.node_id));
  const std::map<std::string, std::string> dynamic_default = ctx.logs->DynamicBrokerConfigs("");
  for (const TopicConfigDef& def : TopicConfigDefs()) {
    // An internal config (internal.segment.bytes, ...) only when the topic sets it, as Kafka.
    if (!Wanted(resource.configuration_keys, def.name)) continue;
    if (def.internal && !md.configs.count(def.name)) continue;
    std::vector<Resp::DescribeConfigsSynonym> synonyms;
    auto add_synonym = [&](const std::string& name, std::optional<std::string> value,
                           int8_t source) {
      auto& s = synonyms.emplace_back();
      s.name = name;
      s.value = std::move(value);
      s.source = source;
    };
    if (auto it = md.configs.find(def.name); it != md.configs.end()) {
      add_synonym(def.name, it->second, kTopicConfigSource);
    }
    if (!def.synonyms.empty()) {
      const std::string& first = def.synonyms.front().name;
      if (auto it = dynamic_node.find(first); it != dynamic_node.end()) {
        add_synonym(first, it->second, kDynamicBrokerConfig);
      }
      if (auto it = dynamic_default.find(first); it != dynamic_default.end()) {
        add_synonym(first, it->second, kDynamicDefaultBrokerConfig);
      }
      if (auto it = broker.find(def.name); it != broker.end()) {
        add_synonym(first, it->second, kStaticBrokerConfig);
      }
    }
    for (const TopicConfigSynonym& s : def.synonyms) {
      if (s.default_value != nullptr) add_synonym(s.name, s.default_value, kDefaultConfig);
    }
    std::string value = def.default_value != nullptr ? def.default_value : "";
    int8_t source = kDefaultConfig;
    if (!synonyms.empty() && synonyms.front().source != kDefaultConfig) {
      value = synonyms.front().value.value_or("");
      source = synonyms.front().source;
    }
    auto e = Entry(def.name, value, source, static_cast<ConfigType>(def.type), /*read_only=*/false,
                   version);
    if (version >= 3 && req.include_documentation && def.documentation != nullptr) {
      e.documentation = def.documentation;
    }
    if (req.include_synonyms) e.synonyms = std::move(synonyms);
    out->configs.push_back(std::move(e));
  }
}

// What a BROKER config's value comes from: the keys as given (server.properties and
// --override), plus what seglog runs with where Kafka's server.properties must say it (node.id,
// log.dirs, process.roles), all STATIC_BROKER_CONFIG as in a Kafka node's file.
std::map<std::string, std::string> StaticBrokerConfigs(const BrokerContext& ctx) {
  const LogManagerConfig& c = ctx.logs->config();
  std::map<std::string, std::string> statics = ctx.static_configs;
  statics.try_emplace("node.id", std::to_string(ctx.node_id));
  if (!statics.count("log.dirs") && !statics.count("log.dir")) {
    statics["log.dirs"] = Join(c.log_dirs);
  }
  statics.try_emplace("process.roles", "broker,controller");
  return statics;
}

// Every config Kafka 4.4.0's broker has (src/server/generated/broker_config_defs.h), as
// Kafka's ConfigHelper describes them: the synonyms (the config's names, most specific first)
// set dynamically for this node, then for the cluster, then statically, then those with a
// default, leading synonyms of another name dropped; the value and source are the first
// synonym's. Only the log defaults seglog applies (LogManagerConfig::DynamicTopicDefaultKeys)
// can be changed; every other config is read-only (one Kafka set dynamically is shown as set). A
// PASSWORD is sensitive: no value is shown. The cluster-wide resource (empty name) lists the
// dynamic defaults stored, as Kafka does.
void DescribeBroker(const BrokerContext& ctx, const protocol::DescribeConfigsRequestData& req,
                    const protocol::DescribeConfigsRequestData::DescribeConfigsResource& resource,
                    int16_t version, Resp::DescribeConfigsResult* out) {
  const auto& dynamic_keys = LogManagerConfig::DynamicTopicDefaultKeys();
  const std::map<std::string, std::string> dynamic_default = ctx.logs->DynamicBrokerConfigs("");
  if (resource.resource_name.empty()) {
    for (const auto& [name, value] : dynamic_default) {
      if (!Wanted(resource.configuration_keys, name)) continue;
      const BrokerConfigDef* def = FindBrokerConfigDef(name);
      auto e = Entry(name, value, kDynamicDefaultBrokerConfig,
                     def != nullptr ? static_cast<ConfigType>(def->type) : kString,
                     /*read_only=*/!dynamic_keys.count(name), version);
      if (version >= 3 && req.include_documentation && def != nullptr) {
        e.documentation = def->documentation;
      }
      if (req.include_synonyms) {
        auto& syn = e.synonyms.emplace_back();
        syn.name = name;
        syn.value = value;
        syn.source = kDynamicDefaultBrokerConfig;
      }
      out->configs.push_back(std::move(e));
    }
    return;
  }
  const std::map<std::string, std::string> statics = StaticBrokerConfigs(ctx);
  const std::map<std::string, std::string> dynamic_node =
      ctx.logs->DynamicBrokerConfigs(resource.resource_name);
  constexpr int8_t kPassword = 9;
  for (const BrokerConfigDef& def : BrokerConfigDefs()) {
    if (!Wanted(resource.configuration_keys, def.name)) continue;
    const std::vector<std::string> names = SplitList(def.synonyms);
    std::vector<protocol::DescribeConfigsResponseData::DescribeConfigsSynonym> synonyms;
    auto add_from = [&](const std::map<std::string, std::string>& layer, int8_t source) {
      for (const std::string& n : names) {
        if (auto it = layer.find(n); it != layer.end()) {
          auto& syn = synonyms.emplace_back();
          syn.name = n;
          syn.value = it->second;
          syn.source = source;
        }
      }
    };
    add_from(dynamic_node, kDynamicBrokerConfig);
    add_from(dynamic_default, kDynamicDefaultBrokerConfig);
    add_from(statics, kStaticBrokerConfig);
    for (const std::string& n : names) {
      const BrokerConfigDef* d = FindBrokerConfigDef(n);
      if (d != nullptr && d->default_value != nullptr) {
        auto& syn = synonyms.emplace_back();
        syn.name = n;
        syn.value = d->default_value;
        syn.source = kDefaultConfig;
      }
    }
    auto first = std::find_if(synonyms.begin(), synonyms.end(),
                              [&](const auto& syn) { return syn.name == def.name; });
    synonyms.erase(synonyms.begin(), first);
    const bool sensitive = def.type == kPassword;
    if (sensitive) {
      for (auto& syn : synonyms) syn.value = std::nullopt;
    }
    std::optional<std::string> value;
    int8_t source = kDefaultConfig;
    if (!synonyms.empty()) {
      value = synonyms.front().value;
      source = synonyms.front().source;
    }
    auto e = Entry(def.name, value, source, static_cast<ConfigType>(def.type),
                   /*read_only=*/!dynamic_keys.count(def.name), version);
    e.is_sensitive = sensitive;
    if (version >= 3 && req.include_documentation) e.documentation = def.documentation;
    if (req.include_synonyms) e.synonyms = std::move(synonyms);
    out->configs.push_back(std::move(e));
  }
}

// A GROUP resource's configs as the metadata log holds them (none: empty).
std::map<std::string, std::string> GroupConfigsOf(const BrokerContext& ctx,
                                                  const std::string& name) {
  if (ctx.logs->metadata() == nullptr) return {};
  return ctx.logs->metadata()->GroupConfigs(name);
}

// A broker config's synonyms as Kafka's ConfigHelper.configSynonyms lists them for one name:
// set dynamically for this node, for the cluster, statically, then its default.
std::vector<Resp::DescribeConfigsSynonym> BrokerConfigSynonyms(const BrokerContext& ctx,
                                                               const std::string& name) {
  std::vector<Resp::DescribeConfigsSynonym> out;
  auto add = [&out, &name](const std::map<std::string, std::string>& layer, int8_t source) {
    if (auto it = layer.find(name); it != layer.end()) {
      auto& syn = out.emplace_back();
      syn.name = name;
      syn.value = it->second;
      syn.source = source;
    }
  };
  add(ctx.logs->DynamicBrokerConfigs(std::to_string(ctx.node_id)), kDynamicBrokerConfig);
  add(ctx.logs->DynamicBrokerConfigs(""), kDynamicDefaultBrokerConfig);
  add(StaticBrokerConfigs(ctx), kStaticBrokerConfig);
  const BrokerConfigDef* def = FindBrokerConfigDef(name);
  if (def != nullptr && def->default_value != nullptr) {
    add({{name, def->default_value}}, kDefaultConfig);
  }
  return out;
}

// A group's configs as Kafka's ConfigHelper describes them (createGroupConfigEntry): every key
// of GroupConfig that is not internal (an internal one when the group or the broker sets it),
// by name; the group's own value with source GROUP_CONFIG, else the broker's setting it maps
// to (extractGroupConfigMap; streams.assignor.name: the first of group.streams.assignors) with
// that setting's source, else GroupConfig's default (DEFAULT_CONFIG). The synonyms: the group's
// value, then the broker setting's layers (or GroupConfig's default for a key without one).
void DescribeGroup(const BrokerContext& ctx, const protocol::DescribeConfigsRequestData& req,
                   const protocol::DescribeConfigsRequestData::DescribeConfigsResource& resource,
                   int16_t version, Resp::DescribeConfigsResult* out) {
  const std::map<std::string, std::string> stored = GroupConfigsOf(ctx, resource.resource_name);
  const std::map<std::string, std::string> statics = StaticBrokerConfigs(ctx);
  std::map<std::string, Resp::DescribeConfigsResourceResult> entries;  // by name, as kafka-configs
  for (const GroupConfigDef& def : GroupConfigDefs()) {
    if (!Wanted(resource.configuration_keys, def.name)) continue;
    auto own = stored.find(def.name);
    if (def.internal && own == stored.end() &&
        (def.broker_synonym == nullptr || !statics.count(def.broker_synonym))) {
      continue;
    }
    std::vector<Resp::DescribeConfigsSynonym> synonyms;
    if (own != stored.end()) {
      auto& syn = synonyms.emplace_back();
      syn.name = def.name;
      syn.value = own->second;
      syn.source = kGroupConfigSource;
    }
    std::optional<std::string> broker_value;
    if (def.broker_synonym != nullptr) {
      for (auto& syn : BrokerConfigSynonyms(ctx, def.broker_synonym)) {
        if (!broker_value.has_value()) broker_value = syn.value;
        synonyms.push_back(std::move(syn));
      }
    } else if (def.default_value != nullptr) {
      auto& syn = synonyms.emplace_back();
      syn.name = def.name;
      syn.value = def.default_value;
      syn.source = kDefaultConfig;
    }
    std::optional<std::string> value;
    if (own != stored.end()) {
      value = own->second;
    } else if (def.broker_synonym != nullptr && broker_value.has_value()) {
      value = *broker_value;
      if (std::string_view(def.name) == "streams.assignor.name") {
        const std::vector<std::string> names = SplitConfigList(*broker_value);
        value = names.empty() ? std::string() : names.front();
      }
    } else if (def.default_value != nullptr) {
      value = def.default_value;
    }
    const int8_t source = synonyms.empty() ? kDefaultConfig : synonyms.front().source;
    auto e = Entry(def.name, value, source, static_cast<ConfigType>(def.type),
                   /*read_only=*/false, version);
    if (version >= 3 && req.include_documentation) e.documentation = def.documentation;
    if (req.include_synonyms) e.synonyms = std::move(synonyms);
    entries.emplace(def.name, std::move(e));
  }
  for (auto& [name, e] : entries) out->configs.push_back(std::move(e));
}

// A BROKER_LOGGER resource names this node (Kafka's ConfigHelper words).
ApiError CheckBrokerLogger(const BrokerContext& ctx, const std::string& name) {
  if (name.empty()) return Error(kafka_error::kInvalidRequest, "Broker id must not be empty");
  if (name != std::to_string(ctx.node_id)) {
    return Error(
        kafka_error::kInvalidRequest,
        fmt::format("Unexpected broker id, expected {} but received {}", ctx.node_id, name));
  }
  return {};
}

LoggerRegistry& Loggers(const BrokerContext& ctx) {
  return ctx.loggers != nullptr ? *ctx.loggers : LoggerRegistry::Global();
}

// The node's loggers (base/logger_registry.h): every registered name with its effective level,
// root first. As Kafka: source DYNAMIC_BROKER_LOGGER_CONFIG, not read-only, no synonyms, type
// UNKNOWN, empty documentation.
void DescribeBrokerLoggers(
    const BrokerContext& ctx, const protocol::DescribeConfigsRequestData& req,
    const protocol::DescribeConfigsRequestData::DescribeConfigsResource& resource, int16_t version,
    Resp::DescribeConfigsResult* out) {
  constexpr int8_t kDynamicBrokerLoggerConfig = 6;
  for (const LoggerRegistry::Entry& logger : Loggers(ctx).Loggers()) {
    if (!Wanted(resource.configuration_keys, logger.name)) continue;
    auto e =
        Entry(logger.name, std::string(LogLevelName(logger.effective)), kDynamicBrokerLoggerConfig,
              static_cast<ConfigType>(0), /*read_only=*/false, version);
    if (version >= 3 && req.include_documentation) e.documentation = "";
    out->configs.push_back(std::move(e));
  }
}

// IncrementalAlterConfigs on BROKER_LOGGER (Kafka's RuntimeLoggerManager): the name must be
// this node; every operation is checked before any applies: SET a registered logger to one
// of Kafka 4.4's levels - TRACE to FATAL, not OFF, upper case - (INVALID_CONFIG otherwise), DELETE
// a registered logger's own level so it inherits again (root's cannot be: INVALID_REQUEST), APPEND
// and SUBTRACT refused (INVALID_REQUEST). Unless `validate_only`, the changes take effect at once,
// each logged at WARN as Kafka logs them. Levels set at run time last until the broker stops.
ApiError AlterBrokerLoggers(
    const BrokerContext& ctx,
    const protocol::IncrementalAlterConfigsRequestData::AlterConfigsResource& resource,
    bool validate_only) {
  int32_t id = 0;
  std::istringstream in(resource.resource_name);
  if (!(in >> id) || !in.eof()) {
    return Error(kafka_error::kInvalidRequest,
                 fmt::format("Node id must be an integer, but it is: {}", resource.resource_name));
  }
  if (id != ctx.node_id) {
    return Error(kafka_error::kInvalidRequest,
                 fmt::format("Unexpected node id. Expected {}, but received {}", ctx.node_id,
                             resource.resource_name));
  }
  LoggerRegistry& loggers = Loggers(ctx);
  std::vector<std::pair<std::string, std::optional<LogLevel>>> changes;  // nullopt: unset
  for (const auto& c : resource.configs) {
    if (c.config_operation != kDelete && !c.value.has_value()) {
      return Error(kafka_error::kInvalidRequest,
                   fmt::format("Null value not supported for : {}", c.name));
    }
  }
  for (const auto& c : resource.configs) {
    switch (c.config_operation) {
      case kSet:
      case kDelete: {
        if (!loggers.Exists(c.name)) {
          return Error(kafka_error::kInvalidConfig,
                       fmt::format("Logger {} does not exist!", c.name));
        }
        if (c.config_operation == kDelete) {
          if (c.name == LoggerRegistry::kRoot) {
            return Error(kafka_error::kInvalidRequest,
                         fmt::format("Removing the log level of the {} logger is not allowed",
                                     LoggerRegistry::kRoot));
          }
          changes.emplace_back(c.name, std::nullopt);
          break;
        }
        std::optional<LogLevel> level = ParseLogLevel(*c.value);
        if (!level || *level == LogLevel::kOff) {
          return Error(kafka_error::kInvalidConfig,
                       fmt::format("Cannot set the log level of {} to {} as it is not a "
                                   "supported log level. Valid log levels are {}",
                                   c.name, *c.value, kValidLogLevels));
        }
        changes.emplace_back(c.name, level);
        break;
      }
      case kAppend:
      case kSubtract:
        return Error(kafka_error::kInvalidRequest,
                     fmt::format("{} operation is not allowed for the BROKER_LOGGER resource",
                                 c.config_operation == kAppend ? "APPEND" : "SUBTRACT"));
      default:
        return Error(kafka_error::kInvalidRequest,
                     fmt::format("Unknown operation type {} is not allowed for the BROKER_LOGGER "
                                 "resource",
                                 static_cast<int>(c.config_operation)));
    }
  }
  if (validate_only) return {};
  for (const auto& [name, level] : changes) {
    Status s = level ? loggers.SetLevel(name, *level) : loggers.Unset(name);
    if (!s.ok()) {
      ctx.logger.Error(fmt::format("Failed to update the log level of {}", name));
      return Error(kafka_error::kInvalidConfig, std::string(s.message()));
    }
    ctx.logger.Warn(
        level ? fmt::format("Updated the log level of {} to {}", name, LogLevelName(*level))
              : fmt::format("Unset the log level of {}", name));
  }
  return {};
}

// Every resource may appear once (Kafka's ConfigAdminManager.preprocess).
template <typename Resource>
std::set<std::pair<int8_t, std::string>> DuplicateResources(const std::vector<Resource>& rs) {
  std::set<std::pair<int8_t, std::string>> seen, dup;
  for (const auto& r : rs) {
    if (!seen.insert({r.resource_type, r.resource_name}).second) {
      dup.insert({r.resource_type, r.resource_name});
    }
  }
  return dup;
}

template <typename Resource>
bool DuplicateKeys(const Resource& r) {
  std::set<std::string> names;
  for (const auto& c : r.configs) {
    if (!names.insert(c.name).second) return true;
  }
  return false;
}

// Sets a BROKER resource's dynamic configs (LogManager::AlterBrokerConfigs; the name is this
// node, or empty for the cluster-wide defaults): seglog applies the log defaults
// (log.retention.ms, log.segment.bytes, ...); any other key set is refused as Kafka refuses a
// read-only one. Deleting a key that is not set (IncrementalAlterConfigs' DELETE;
// kafka-reassign-partitions.sh --verify clears the replication throttles that way) changes
// nothing and is answered with success, as Kafka answers it.
ApiError ApplyBrokerConfigs(const BrokerContext& ctx, const std::string& name,
                            const std::map<std::string, std::string>& next, bool validate_only) {
  Status s = ctx.logs->AlterBrokerConfigs(name, next, validate_only);
  if (s.ok()) {
    if (!validate_only) {
      ctx.logger.Info(fmt::format("Altered the dynamic configs of {}",
                                  name.empty() ? "the cluster default broker" : "broker " + name));
    }
    return {};
  }
  if (s.code() != Status::Code::kInvalidArgument) {
    return Error(kafka_error::FromStatus(s), kafka_error::MessageOf(s));
  }
  return Error(kafka_error::kInvalidConfig,
               fmt::format("Invalid config value for resource ConfigResource(type=BROKER, "
                           "name='{}'): {}",
                           name, s.message()));
}

// A CLIENT_METRICS resource's configs as the metadata log holds them (none: empty).
std::map<std::string, std::string> ClientMetricsConfigs(const BrokerContext& ctx,
                                                        const std::string& name) {
  if (ctx.logs->metadata() == nullptr) return {};
  auto all = ctx.logs->metadata()->ClientMetricsConfigs();
  auto it = all.find(name);
  return it != all.end() ? it->second : std::map<std::string, std::string>{};
}

// Validates a client metrics subscription's new configs as Kafka's controller does
// (ClientMetricsConfigs.validate: INVALID_REQUEST or INVALID_CONFIG) and, unless
// `validate_only`, records them (none left: the subscription is gone) and applies them.
ApiError ApplyClientMetricsConfigs(const BrokerContext& ctx, const std::string& name,
                                   const std::map<std::string, std::string>& next,
                                   bool validate_only) {
  Result<ClientMetricsSubscription> parsed = ClientMetricsSubscription::Parse(name, next);
  if (!parsed.ok()) {
    const Status& s = parsed.status();
    return Error(s.code() == Status::Code::kInvalidArgument ? kafka_error::kInvalidRequest
                                                            : kafka_error::kInvalidConfig,
                 std::string(s.message()));
  }
  if (validate_only) return {};
  if (ctx.logs->metadata() == nullptr) {
    return Error(kafka_error::kInvalidRequest, "There is no metadata log to keep subscriptions");
  }
  Status s = ctx.logs->metadata()->AlterClientMetricsConfig(name, next);
  if (!s.ok()) return Error(kafka_error::FromStatus(s), kafka_error::MessageOf(s));
  std::vector<std::string> shown;
  for (const auto& [k, v] : next) shown.push_back(fmt::format("{}={}", k, v));
  ctx.logger.Info(
      fmt::format("Client metrics subscription {} is now {{{}}}", name, fmt::join(shown, ", ")));
  if (ctx.telemetry != nullptr) {
    if (Status u = ctx.telemetry->UpdateSubscription(name, next); !u.ok()) {
      return Error(kafka_error::kInvalidConfig, std::string(u.message()));
    }
  }
  return {};
}

// The broker's group.* settings a group's configs are checked against and default to
// (Kafka's KafkaConfig.groupCoordinatorConfig and shareGroupConfig): the broker's settings as
// given, Kafka's defaults for the rest.
GroupCoordinatorConfig BrokerGroupConfig(const BrokerContext& ctx) {
  GroupCoordinatorConfig c;
  for (const auto& [key, value] : StaticBrokerConfigs(ctx)) {
    if (key.starts_with("group.")) (void)c.Set(key, value);
  }
  return c;
}

// Validates a group's new configs as Kafka's controller does (ControllerConfigurationValidator:
// no default resource, GroupConfig.validate; INVALID_CONFIG in its words) and, unless
// `validate_only`, records them (none left: the group has no configs of its own).
ApiError ApplyGroupConfigs(const BrokerContext& ctx, const std::string& name,
                           const std::map<std::string, std::string>& next, bool validate_only) {
  if (name.empty()) {
    return Error(kafka_error::kInvalidRequest, "Default group resources are not allowed.");
  }
  if (Status s = ValidateGroupConfig(next, BrokerGroupConfig(ctx)); !s.ok()) {
    return Error(kafka_error::kInvalidConfig, std::string(s.message()));
  }
  if (validate_only) return {};
  if (ctx.logs->metadata() == nullptr) {
    return Error(kafka_error::kInvalidRequest, "There is no metadata log to keep group configs");
  }
  Status s = ctx.logs->metadata()->AlterGroupConfig(name, next);
  if (!s.ok()) return Error(kafka_error::FromStatus(s), kafka_error::MessageOf(s));
  ctx.logger.Info(fmt::format("Altered the configs of group {}", name));
  return {};
}

// Validates the topic's new overrides and, unless `validate_only`, stores them.
ApiError ApplyTopicConfigs(const BrokerContext& ctx, const std::string& topic,
                           const std::map<std::string, std::string>& current,
                           const std::map<std::string, std::string>& next, bool validate_only) {
  // A config the topic already has may be one seglog keeps without applying (a Kafka broker
  // set it); only a new or changed one must be one seglog applies.
  for (const auto& [name, value] : next) {
    auto it = current.find(name);
    if ((it == current.end() || it->second != value) && !LogConfig::IsKnownName(name)) {
      return Error(kafka_error::kInvalidConfig, fmt::format("Unknown topic config name: {}", name));
    }
  }
  Result<LogConfig> lc = ctx.logs->StoredTopicConfig(next);
  if (!lc.ok()) return Error(kafka_error::kInvalidConfig, kafka_error::MessageOf(lc.status()));
  // Tiered storage's rules (Kafka's LogConfig.validate with the broker's switch).
  Result<LogConfig> was = ctx.logs->StoredTopicConfig(current);
  Status remote = lc->ValidateRemoteStorage(ctx.logs->config().remote_storage_system_enable,
                                            was.ok() && was->remote_storage_enable);
  if (!remote.ok()) return Error(kafka_error::kInvalidConfig, kafka_error::MessageOf(remote));
  if (validate_only) return {};
  std::map<std::string, std::string> set;
  std::vector<std::string> remove;
  for (const auto& [name, value] : next) {
    auto it = current.find(name);
    if (it == current.end() || it->second != value) set[name] = value;
  }
  for (const auto& [name, value] : current) {
    if (!next.count(name)) remove.push_back(name);
  }
  if (set.empty() && remove.empty()) return {};
  Status s = ctx.logs->AlterTopicConfig(topic, set, remove);
  if (!s.ok()) {
    const int16_t code = s.code() == Status::Code::kInvalidArgument ? kafka_error::kInvalidConfig
                                                                    : kafka_error::FromStatus(s);
    return Error(code, kafka_error::MessageOf(s));
  }
  ctx.logger.Info(fmt::format("Altered the configs of topic {}", topic));
  return {};
}

// The value an APPEND or SUBTRACT of `key` (the topic config `def`, or a broker key that
// defaults it) starts from: the resource's own, else the broker's default in force, else Kafka's.
std::string CurrentValue(const BrokerContext& ctx,
                         const std::map<std::string, std::string>& current, const std::string& key,
                         const TopicConfigDef& def) {
  if (auto it = current.find(key); it != current.end()) return it->second;
  const auto broker = ctx.logs->TopicDefaults();
  if (auto it = broker.find(def.name); it != broker.end()) return it->second;
  return def.default_value != nullptr ? def.default_value : "";
}

// The authorization error of `operation` (DESCRIBE_CONFIGS or ALTER_CONFIGS) on a config
// resource, or 0 when it is allowed. `broker_logger`: whether a BROKER_LOGGER resource is
// checked (IncrementalAlterConfigs' loggers are; legacy AlterConfigs refuses them unchecked);
// a type not listed is left to the caller's refusal.
int16_t ConfigRefusal(const BrokerContext& ctx, const RequestContext& rc, AclOperation operation,
                      int8_t type, const std::string& name, bool broker_logger) {
  switch (type) {
    case kTopicResource:
      return Authorized(ctx, rc, operation, ResourceType::kTopic, name)
                 ? kafka_error::kNone
                 : kafka_error::kTopicAuthorizationFailed;
    case kGroupResource:
      return Authorized(ctx, rc, operation, ResourceType::kGroup, name)
                 ? kafka_error::kNone
                 : kafka_error::kGroupAuthorizationFailed;
    case kBrokerLoggerResource:
      if (!broker_logger) return kafka_error::kNone;
      [[fallthrough]];
    case kBrokerResource:
    case kClientMetricsResource:
      return ClusterAuthorized(ctx, rc, operation) ? kafka_error::kNone
                                                   : kafka_error::kClusterAuthorizationFailed;
    default:
      return kafka_error::kNone;
  }
}

}  // namespace

protocol::DescribeConfigsResponseData HandleDescribeConfigs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeConfigsRequestData& req, int16_t version) {
  Resp resp;
  std::vector<Resp::DescribeConfigsResult> refused;  // answered after the others
  for (const auto& resource : req.resources) {
    if (const int16_t code =
            ConfigRefusal(ctx, rc, AclOperation::kDescribeConfigs, resource.resource_type,
                          resource.resource_name, /*broker_logger=*/true)) {
      auto& r = refused.emplace_back();
      r.resource_type = resource.resource_type;
      r.resource_name = resource.resource_name;
      r.error_code = code;
      r.error_message = AuthorizationErrorMessage(code);
      continue;
    }
    auto& r = resp.results.emplace_back();
    r.resource_type = resource.resource_type;
    r.resource_name = resource.resource_name;
    r.error_message = std::nullopt;
    ApiError e;
    if (resource.resource_type == kTopicResource) {
      TopicMetadata md;
      e = CheckTopic(ctx, resource.resource_name, &md);
      if (e.ok()) DescribeTopic(ctx, md, req, resource, version, &r);
    } else if (resource.resource_type == kBrokerResource) {
      e = CheckBroker(ctx, resource.resource_name);
      if (e.ok()) DescribeBroker(ctx, req, resource, version, &r);
    } else if (resource.resource_type == kBrokerLoggerResource) {
      e = CheckBrokerLogger(ctx, resource.resource_name);
      if (e.ok()) DescribeBrokerLoggers(ctx, req, resource, version, &r);
    } else if (resource.resource_type == kGroupResource) {
      if (resource.resource_name.empty()) {
        e = Error(kafka_error::kInvalidRequest, "Group name must not be empty");
      } else {
        DescribeGroup(ctx, req, resource, version, &r);
      }
    } else if (resource.resource_type == kClientMetricsResource) {
      // Kafka's ConfigHelper: every stored value (whatever keys were asked for),
      // CLIENT_METRICS_CONFIG (7), no type.
      if (resource.resource_name.empty()) {
        e = Error(kafka_error::kInvalidRequest,
                  "Client metrics subscription name must not be empty");
      } else {
        std::map<std::string, std::string> stored =
            ClientMetricsConfigs(ctx, resource.resource_name);
        for (const auto& [name, value] : stored) {
          auto& c = r.configs.emplace_back();
          c.name = name;
          c.value = value;
          c.config_source = 7;
          c.is_sensitive = false;
          c.read_only = false;
        }
        // A key the subscription never set is described with its default, as Kafka 4.4.0
        // does (kafka-client-metrics prints "match=" for a subscription made without
        // --match: interop.security_takeover compares the two).
        if (!stored.empty()) {
          for (const auto& [name, value] : std::map<std::string, std::string>{
                   {"interval.ms", "300000"}, {"match", ""}, {"metrics", ""}}) {
            if (stored.count(name) != 0) continue;
            auto& c = r.configs.emplace_back();
            c.name = name;
            c.value = value;
            c.config_source = 7;  // CLIENT_METRICS_CONFIG, as Kafka describes every key
            c.is_sensitive = false;
            c.read_only = false;
          }
        }
      }
    } else {
      e = Error(
          kafka_error::kInvalidRequest,
          fmt::format("Unsupported resource type: {}", ResourceTypeName(resource.resource_type)));
    }
    if (!e.ok()) {
      r.error_code = e.code;
      r.error_message = e.message;
      r.configs.clear();
    }
  }
  for (auto& r : refused) resp.results.push_back(std::move(r));
  return resp;
}

namespace {

// What both AlterConfigs forms share: the duplicate checks, the resource dispatch and the
// answer. `next_configs(resource, current, &next)` computes a topic's new overrides.
template <typename Response, typename Request, typename NextConfigs>
Response AlterResources(const BrokerContext& ctx, const RequestContext& rc, const Request& req,
                        bool incremental, NextConfigs next_configs) {
  Response resp;
  const auto duplicates = DuplicateResources(req.resources);
  for (const auto& resource : req.resources) {
    auto& r = resp.responses.emplace_back();
    r.resource_type = resource.resource_type;
    r.resource_name = resource.resource_name;
    ApiError e;
    if (duplicates.count({resource.resource_type, resource.resource_name})) {
      e = Error(kafka_error::kInvalidRequest, "Each resource must appear at most once.");
    } else if (DuplicateKeys(resource)) {
      e = Error(kafka_error::kInvalidRequest, "Error due to duplicate config keys");
    } else if (const int16_t code =
                   ConfigRefusal(ctx, rc, AclOperation::kAlterConfigs, resource.resource_type,
                                 resource.resource_name, incremental)) {
      e = ApiError{code, AuthorizationErrorMessage(code)};
    } else if (resource.resource_type == kTopicResource) {
      TopicMetadata md;
      e = CheckTopic(ctx, resource.resource_name, &md);
      std::map<std::string, std::string> next;
      if (e.ok()) e = next_configs(resource, md.configs, &next);
      if (e.ok()) {
        e = ApplyTopicConfigs(ctx, resource.resource_name, md.configs, next, req.validate_only);
      }
    } else if (resource.resource_type == kBrokerResource) {
      e = CheckBroker(ctx, resource.resource_name);
      std::map<std::string, std::string> next;
      if (e.ok()) {
        e = next_configs(resource, ctx.logs->DynamicBrokerConfigs(resource.resource_name), &next);
      }
      if (e.ok()) e = ApplyBrokerConfigs(ctx, resource.resource_name, next, req.validate_only);
    } else if (resource.resource_type == kClientMetricsResource) {
      std::map<std::string, std::string> next;
      e = next_configs(resource, ClientMetricsConfigs(ctx, resource.resource_name), &next);
      if (e.ok()) {
        e = ApplyClientMetricsConfigs(ctx, resource.resource_name, next, req.validate_only);
      }
    } else if (resource.resource_type == kGroupResource) {
      std::map<std::string, std::string> next;
      e = next_configs(resource, GroupConfigsOf(ctx, resource.resource_name), &next);
      if (e.ok()) e = ApplyGroupConfigs(ctx, resource.resource_name, next, req.validate_only);
    } else if (resource.resource_type == kBrokerLoggerResource && incremental) {
      if constexpr (std::is_same_v<Request, protocol::IncrementalAlterConfigsRequestData>) {
        e = AlterBrokerLoggers(ctx, resource, req.validate_only);
      }
    } else {
      e = Error(
          kafka_error::kInvalidRequest,
          fmt::format("Unsupported resource type: {}", ResourceTypeName(resource.resource_type)));
    }
    r.error_code = e.code;
    r.error_message = e.message;
  }
  return resp;
}

}  // namespace

protocol::AlterConfigsResponseData HandleAlterConfigs(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::AlterConfigsRequestData& req,
                                                      int16_t version) {
  (void)version;
  // The legacy API replaces the whole set of overrides.
  return AlterResources<protocol::AlterConfigsResponseData>(
      ctx, rc, req, /*incremental=*/false,
      [](const auto& resource, const std::map<std::string, std::string>& current,
         std::map<std::string, std::string>* next) {
        (void)current;
        for (const auto& c : resource.configs) {
          if (!c.value.has_value()) {
            return Error(kafka_error::kInvalidConfig,
                         fmt::format("Null value not supported for topic configs: {}", c.name));
          }
          (*next)[c.name] = *c.value;
        }
        return ApiError{};
      });
}

protocol::IncrementalAlterConfigsResponseData HandleIncrementalAlterConfigs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::IncrementalAlterConfigsRequestData& req, int16_t version) {
  (void)version;
  return AlterResources<protocol::IncrementalAlterConfigsResponseData>(
      ctx, rc, req, /*incremental=*/true,
      [&ctx](const auto& resource, const std::map<std::string, std::string>& current,
             std::map<std::string, std::string>* out) {
        std::map<std::string, std::string> next = current;
        ApiError e;
        for (const auto& c : resource.configs) {
          if (!e.ok()) break;
          // A broker resource's keys default topic configs (log.cleanup.policy: cleanup.policy).
          const TopicConfigDef* def = FindTopicConfigDef(c.name);
          if (resource.resource_type == kBrokerResource) {
            const auto& keys = LogManagerConfig::DynamicTopicDefaultKeys();
            auto k = keys.find(c.name);
            def = k != keys.end() ? FindTopicConfigDef(k->second) : nullptr;
          }
          switch (c.config_operation) {
            case kSet:
              if (!c.value.has_value()) {
                e = Error(kafka_error::kInvalidConfig,
                          fmt::format("Null value not supported for topic configs: {}", c.name));
              } else {
                next[c.name] = *c.value;
              }
              break;
            case kDelete:
              next.erase(c.name);
              break;
            case kAppend:
            case kSubtract: {
              const char* op = c.config_operation == kAppend ? "APPEND" : "SUBTRACT";
              if (resource.resource_type == kGroupResource) {
                // streams.rack.aware.assignment.tags is GroupConfig's one LIST; a group
                // without it starts from its default, "" (ConfigurationControlManager).
                const GroupConfigDef* group_def = FindGroupConfigDef(c.name);
                if (group_def == nullptr || group_def->type != GroupConfigType::kList) {
                  e = Error(
                      kafka_error::kInvalidConfig,
                      fmt::format("Can't {} to key {} because its type is not LIST.", op, c.name));
                  break;
                }
                auto at_key = next.find(c.name);
                std::vector<std::string> items =
                    SplitConfigList(at_key != next.end() ? at_key->second : "");
                for (const std::string& v : SplitConfigList(c.value.value_or(""))) {
                  auto at = std::find(items.begin(), items.end(), v);
                  if (c.config_operation == kAppend && at == items.end()) items.push_back(v);
                  if (c.config_operation == kSubtract && at != items.end()) items.erase(at);
                }
                next[c.name] = Join(items);
                break;
              }
              if (resource.resource_type == kClientMetricsResource) {
                // metrics and match are LISTs (Kafka's ClientMetricsConfigs).
                if (c.name != "metrics" && c.name != "match") {
                  e = Error(
                      kafka_error::kInvalidConfig,
                      fmt::format("Can't {} to key {} because its type is not LIST.", op, c.name));
                  break;
                }
                auto at_key = next.find(c.name);
                std::vector<std::string> items =
                    SplitConfigList(at_key != next.end() ? at_key->second : "");
                for (const std::string& v : SplitConfigList(c.value.value_or(""))) {
                  auto at = std::find(items.begin(), items.end(), v);
                  if (c.config_operation == kAppend && at == items.end()) items.push_back(v);
                  if (c.config_operation == kSubtract && at != items.end()) items.erase(at);
                }
                next[c.name] = Join(items);
                break;
              }
              if (def == nullptr) {
                e = Error(
                    kafka_error::kInvalidConfig,
                    resource.resource_type == kBrokerResource
                        ? fmt::format("Cannot update these configs dynamically: Set({})", c.name)
                        : fmt::format("Unknown topic config name: {}", c.name));
                break;
              }
              if (def->type != TopicConfigType::kList) {
                e = Error(
                    kafka_error::kInvalidConfig,
                    fmt::format("Can't {} to key {} because its type is not LIST.", op, c.name));
                break;
              }
              std::vector<std::string> items = SplitList(CurrentValue(ctx, next, c.name, *def));
              for (const std::string& v : SplitList(c.value.value_or(""))) {
                auto at = std::find(items.begin(), items.end(), v);
                if (c.config_operation == kAppend && at == items.end()) items.push_back(v);
                if (c.config_operation == kSubtract && at != items.end()) items.erase(at);
              }
              next[c.name] = Join(items);
              break;
            }
            default:
              e = Error(kafka_error::kInvalidRequest,
                        fmt::format("Unknown alter configs operation type {}",
                                    static_cast<int>(c.config_operation)));
              break;
          }
        }
        *out = std::move(next);
        return e;
      });
}

}  // namespace seglog
