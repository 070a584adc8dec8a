// TopicStore; see topic_store.h.
#include "manager/topic_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/uuid.h"
#include "io/atomic_file.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"

namespace seglog {

namespace {}

Result<std::vector<int32_t>> ListPartitionDirs(Env* env, const std::string& log_dir,
                                               const std::string& topic) {
  std::vector<int32_t> out;
  if (!env->FileExists(log_dir)) return out;
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDirectory(log_dir));
  for (const std::string& name : names) {
    if (name.find('.') != std::string::npos && name.ends_with("-delete")) continue;
    auto tp = ParsePartitionDirName(name);
    if (tp.ok() && tp->topic == topic && name == PartitionDirName(*tp))
      out.push_back(tp->partition);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<TopicMap> LoadTopics(Env* env, const std::string& log_dir) {
  TopicMap topics;
  const std::string path = log_dir + "/" + kTopicStoreFile;
  if (env->FileExists(path)) {
    SEGLOG_ASSIGN_OR_RETURN(const std::string text, ReadFileToString(env, path));
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("topics") || !j["topics"].is_object()) {
      return Status::Corruption(
          fmt::format("{}: not a seglog topic store (expected JSON with "
                      "\"topics\")",
                      path));
    }
    for (const auto& [name, t] : j["topics"].items()) {
      TopicMetadata md;
      if (!t.contains("partitions") || !t["partitions"].is_number_integer()) {
        return Status::Corruption(fmt::format("{}: topic {} has no partition count", path, name));
      }
      md.partitions = t["partitions"].get<int32_t>();
      if (t.contains("topic_id")) {
        if (!t["topic_id"].is_string() || !Uuid::Parse(t["topic_id"].get<std::string>()).ok()) {
          return Status::Corruption(
              fmt::format("{}: topic {} has a topic_id that is not a Kafka Uuid", path, name));
        }
        md.topic_id = t["topic_id"].get<std::string>();
      }
      if (t.contains("configs") && t["configs"].is_object()) {
        for (const auto& [k, v] : t["configs"].items()) {
          if (!v.is_string()) {
            return Status::Corruption(
                fmt::format("{}: topic {} config {} is not a string", path, name, k));
          }
          md.configs[k] = v.get<std::string>();
        }
      }
      topics[name] = md;
    }
  }
  // Partition directories without an entry (for example, written by Kafka).
  if (env->FileExists(log_dir)) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDirectory(log_dir));
    for (const std::string& name : names) {
      auto tp = ParsePartitionDirName(name);
      if (!tp.ok() || name != PartitionDirName(*tp)) continue;
      if (tp->topic == "__cluster_metadata") continue;  // KRaft's metadata log, not a topic
      TopicMetadata& md = topics[tp->topic];
      md.partitions = std::max(md.partitions, tp->partition + 1);
      if (md.topic_id.empty()) {
        auto id = ReadPartitionMetadata(env, log_dir + "/" + name + "/" + kPartitionMetadataFile);
        if (id.ok()) md.topic_id = *id;
      }
    }
  }
  return topics;
}

Status SaveTopics(Env* env, const std::string& log_dir, const TopicMap& topics) {
  nlohmann::json j;
  j["version"] = 1;
  j["topics"] = nlohmann::json::object();
  for (const auto& [name, md] : topics) {
    j["topics"][name] = {{"partitions", md.partitions}, {"configs", md.configs}};
    if (!md.topic_id.empty()) j["topics"][name]["topic_id"] = md.topic_id;
  }
  return WriteFileAtomically(env, log_dir + "/" + kTopicStoreFile, j.dump(1) + "\n");
}

Result<LogConfig> TopicConfig(const TopicMetadata& topic) {
  return LogConfig::FromProperties(topic.configs);
}

}  // namespace seglog
