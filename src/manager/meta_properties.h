// meta.properties: the identity file at the root of every Kafka log directory
// (docs/format/checkpoints.md, "meta.properties") - java.util.Properties text:
//
//   #
//   #Sun Nov 29 14:52:24 UTC 2026
//   node.id=1
//   directory.id=8PHy8_T19vf4-fr7_P3-_w
//   version=1
//   cluster.id=J8qXkW3zS0ePcQ8vA2bLxg
//
// version 0 (ZooKeeper era: broker.id, cluster.id optional) or 1 (KRaft: node.id and cluster.id
// required); directory.id is optional. Any other version is an error, as in Kafka.
//
// Thread safety: functions over values; no shared state.
#ifndef SEGLOG_MANAGER_META_PROPERTIES_H_
#define SEGLOG_MANAGER_META_PROPERTIES_H_

#include <map>
#include <string>

#include "io/env.h"

#include "seglog/result.h"

namespace seglog {

inline constexpr const char* kMetaPropertiesFile = "meta.properties";

struct MetaProperties {
  int version = 1;
  std::string cluster_id;
  int32_t node_id = -1;  // node.id (v1) or broker.id (v0); -1 when absent
  std::string directory_id;
  std::map<std::string, std::string> other;  // keys seglog does not interpret, kept as read
};

// Parses the text of a meta.properties file. Corruption naming `path`, the key and the value
// when the version is unsupported or a required key is missing or malformed.
Result<MetaProperties> ParseMetaProperties(const std::string& path, const std::string& text);
// The file's text as Kafka's Properties.store writes it, with `date` as the second comment.
std::string FormatMetaProperties(const MetaProperties& props, const std::string& date);
// Now as Java's Date.toString prints it in UTC ("Sun Nov 29 14:52:24 UTC 2026").
std::string JavaDateNow();

// Reads <log_dir>/meta.properties, or - when it is missing and the directory is writable -
// creates one (version 1, node.id `node_id`, a new cluster.id unless `cluster_id` is given, a
// new directory.id), written atomically; through `env`.
Result<MetaProperties> LoadOrCreateMetaProperties(Env* env, const std::string& log_dir,
                                                  int32_t node_id, const std::string& cluster_id);

}  // namespace seglog

#endif  // SEGLOG_MANAGER_META_PROPERTIES_H_
