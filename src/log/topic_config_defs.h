// The topic configs: one table of every config Kafka 4.4.0's LogConfig defines, with what
// DescribeConfigs shows (type, Kafka's default, the broker settings it falls back to, most
// specific first: Kafka's ServerTopicConfigSynonyms; the documentation) - generated from Kafka's
// own classes (log/generated/topic_config_kafka.h) - and, for the ones seglog keeps, how
// LogConfig parses and validates a value (Kafka's ConfigDef validators and messages) and
// prints it back. LogConfig's parsing, LogManagerConfig's synonyms and the DescribeConfigs /
// AlterConfigs handlers all read this table, so a config is defined once. Every topic config is
// dynamic (AlterConfigs changes it on a live topic), as in Kafka.
//
// Thread safety: immutable.
#ifndef SEGLOG_LOG_TOPIC_CONFIG_DEFS_H_
#define SEGLOG_LOG_TOPIC_CONFIG_DEFS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "log/generated/topic_config_kafka.h"
#include "seglog/log_config.h"
#include "seglog/status.h"

namespace seglog {

struct TopicConfigDef {
  const char* name;
  TopicConfigType type;
  const char* default_value;  // Kafka's; nullptr for an internal config without one
  std::vector<TopicConfigSynonym> synonyms;
  const char* documentation;  // Kafka's, as DescribeConfigs v3+ returns it
  // How LogConfig sets (parses and validates) and prints the value; null for a config seglog
  // does not keep (described at Kafka's default, refused by AlterConfigs).
  std::function<Status(LogConfig*, const std::string&)> set;
  std::function<std::string(const LogConfig&)> get;
  // Kafka's internal configs (not described, not documented): accepted by LogConfig only.
  bool internal = false;
};

// Every topic config, by name.
const std::vector<TopicConfigDef>& TopicConfigDefs();
const TopicConfigDef* FindTopicConfigDef(std::string_view name);

}  // namespace seglog

#endif  // SEGLOG_LOG_TOPIC_CONFIG_DEFS_H_
