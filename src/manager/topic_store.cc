// TopicStore; see topic_store.h.
#include "manager/topic_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/uuid.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"

namespace seglog {

namespace {
constexpr const char* kStoreFile = "seglog-topics.json";
}

Result<std::vector<int32_t>> ListPartitionDirs(const std::string& log_dir,
                                               const std::string& topic) {
  std::vector<int32_t> out;
  if (!FileExists(log_dir)) return out;
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(log_dir));
  for (const std::string& name : names) {
    if (name.find('.') != std::string::npos && name.ends_with("-delete")) continue;
    auto tp = ParsePartitionDirName(name);
    if (tp.ok() && tp->topic == topic && name == PartitionDirName(*tp))
      out.push_back(tp->partition);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<TopicMap> LoadTopics(const std::string& log_dir) {
  TopicMap topics;
  const std::string path = log_dir + "/" + kStoreFile;
  if (FileExists(path)) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
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
  if (FileExists(log_dir)) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(log_dir));
    for (const std::string& name : names) {
      auto tp = ParsePartitionDirName(name);
      if (!tp.ok() || name != PartitionDirName(*tp)) continue;
      if (tp->topic == "__cluster_metadata") continue;  // KRaft's metadata log, not a topic
      TopicMetadata& md = topics[tp->topic];
      md.partitions = std::max(md.partitions, tp->partition + 1);
      if (md.topic_id.empty()) {
        auto id = ReadPartitionMetadata(log_dir + "/" + name + "/" + kPartitionMetadataFile);
        if (id.ok()) md.topic_id = *id;
      }
    }
  }
  return topics;
}

Status SaveTopics(const std::string& log_dir, const TopicMap& topics) {
  nlohmann::json j;
  j["version"] = 1;
  j["topics"] = nlohmann::json::object();
  for (const auto& [name, md] : topics) {
    j["topics"][name] = {{"partitions", md.partitions}, {"configs", md.configs}};
    if (!md.topic_id.empty()) j["topics"][name]["topic_id"] = md.topic_id;
  }
  const std::string path = log_dir + "/" + kStoreFile;
  const std::string tmp = path + ".tmp";
  const std::string text = j.dump(1) + "\n";
  {
    SEGLOG_ASSIGN_OR_RETURN(auto f, File::Open(tmp, File::Mode::kCreate));
    SEGLOG_RETURN_IF_ERROR(f->Truncate(0));
    SEGLOG_RETURN_IF_ERROR(f->WriteAt(
        0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
    SEGLOG_RETURN_IF_ERROR(f->Sync());
  }
  SEGLOG_RETURN_IF_ERROR(RenameFile(tmp, path));
  return SyncDirectory(log_dir);
}

Result<LogConfig> TopicConfig(const TopicMetadata& topic) {
  return LogConfig::FromProperties(topic.configs);
}

}  // namespace seglog
