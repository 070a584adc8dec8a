// TopicStore: the topics a log directory holds as its files say - the partition directories
// (with the topic id of each partition.metadata) and, in a directory an earlier seglog wrote,
// <log.dir>/seglog-topics.json, where seglog kept its topics (partition count, topic id and
// config overrides) before it kept them in KRaft's metadata log (manager/metadata_store.h).
// LogManager reads it to migrate such a directory into the metadata log (the file is then
// renamed seglog-topics.json.migrated) and for read-only views of directories without a
// metadata log. SaveTopics writes the legacy file (tests make old directories with it):
// temporary file, fsync, rename, fsync of the directory.
//
//   {"version": 1, "topics": {"orders": {"partitions": 3, "topic_id": "8PHy8_T19vf4-fr7_P3-_w",
//   "configs": {"segment.bytes": "1048576"}}}}
//
// Thread safety: the functions are not synchronised; callers hold the LogDirLock.
#ifndef SEGLOG_MANAGER_TOPIC_STORE_H_
#define SEGLOG_MANAGER_TOPIC_STORE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/env.h"
#include "seglog/log_config.h"
#include "seglog/result.h"

namespace seglog {

struct TopicMetadata {
  int32_t partitions = 1;
  std::map<std::string, std::string> configs;  // Kafka topic property names
  // Kafka's topic id (Uuid text), written to each partition's partition.metadata. Topics that
  // exist only as partition directories take it from there; empty when unknown.
  std::string topic_id;
};

using TopicMap = std::map<std::string, TopicMetadata>;

// The legacy topic store's file name.
inline constexpr const char* kTopicStoreFile = "seglog-topics.json";

// Reads the store; topics that exist only as partition directories (written by Kafka, or before
// the store existed) are added with default configs and the partition count found on disk.
// Both through `env`; SaveTopics replaces the file atomically (WriteFileAtomically).
Result<TopicMap> LoadTopics(Env* env, const std::string& log_dir);
Status SaveTopics(Env* env, const std::string& log_dir, const TopicMap& topics);

// Partition numbers of `topic` that have a directory in `log_dir`, sorted.
Result<std::vector<int32_t>> ListPartitionDirs(Env* env, const std::string& log_dir,
                                               const std::string& topic);

#ifndef SEGLOG_ENGINE_NO_DEFAULT_ENV
// Over Env::Default(), for tools and tests.
inline Result<TopicMap> LoadTopics(const std::string& log_dir) {
  return LoadTopics(Env::Default(), log_dir);
}
inline Status SaveTopics(const std::string& log_dir, const TopicMap& topics) {
  return SaveTopics(Env::Default(), log_dir, topics);
}
inline Result<std::vector<int32_t>> ListPartitionDirs(const std::string& log_dir,
                                                      const std::string& topic) {
  return ListPartitionDirs(Env::Default(), log_dir, topic);
}
#endif  // SEGLOG_ENGINE_NO_DEFAULT_ENV

// The topic's LogConfig: defaults plus its overrides.
Result<LogConfig> TopicConfig(const TopicMetadata& topic);

}  // namespace seglog

#endif  // SEGLOG_MANAGER_TOPIC_STORE_H_
