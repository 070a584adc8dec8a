// meta.properties; see meta_properties.h.
#include "manager/meta_properties.h"

#include <fmt/format.h>

#include <charconv>
#include <ctime>
#include <optional>

#include "base/properties.h"
#include "base/uuid.h"
#include "io/atomic_file.h"
#include "io/file.h"

namespace seglog {

std::string JavaDateNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm);
  return buf;
}

Result<MetaProperties> ParseMetaProperties(const std::string& path, const std::string& text) {
  std::map<std::string, std::string> kv = ParseProperties(text);
  MetaProperties m;
  auto take = [&](const char* key) -> std::optional<std::string> {
    auto it = kv.find(key);
    if (it == kv.end()) return std::nullopt;
    std::string v = it->second;
    kv.erase(it);
    return v;
  };
  auto parse_int = [&](const char* key, const std::string& v, int32_t* out) -> Status {
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
      return Status::Corruption(fmt::format("{}: {} is '{}', expected an integer", path, key, v));
    }
    return Status::OK();
  };
  const auto version = take("version");
  if (!version) return Status::Corruption(fmt::format("{}: no version key", path));
  int32_t ver = -1;
  SEGLOG_RETURN_IF_ERROR(parse_int("version", *version, &ver));
  if (ver != 0 && ver != 1) {
    return Status::Corruption(fmt::format(
        "{}: version is {}, expected 0 or 1 (Kafka's MetaPropertiesVersion)", path, ver));
  }
  m.version = ver;
  if (auto c = take("cluster.id")) m.cluster_id = *c;
  const auto node = take("node.id");
  const auto broker = take("broker.id");
  if (ver == 1) {
    if (!node) return Status::Corruption(fmt::format("{}: version 1 requires node.id", path));
    if (m.cluster_id.empty()) {
      return Status::Corruption(fmt::format("{}: version 1 requires cluster.id", path));
    }
    SEGLOG_RETURN_IF_ERROR(parse_int("node.id", *node, &m.node_id));
  } else if (broker) {
    SEGLOG_RETURN_IF_ERROR(parse_int("broker.id", *broker, &m.node_id));
  }
  if (auto d = take("directory.id")) {
    auto id = Uuid::Parse(*d);
    if (!id.ok()) {
      return Status::Corruption(fmt::format("{}: directory.id: {}", path, id.status().message()));
    }
    m.directory_id = *d;
  }
  m.other = std::move(kv);
  return m;
}

std::string FormatMetaProperties(const MetaProperties& p, const std::string& date) {
  std::string out = "#\n#" + date + "\n";
  if (p.node_id >= 0) {
    out += fmt::format("{}={}\n", p.version == 1 ? "node.id" : "broker.id", p.node_id);
  }
  if (!p.directory_id.empty()) out += "directory.id=" + EscapeProperty(p.directory_id) + "\n";
  out += fmt::format("version={}\n", p.version);
  if (!p.cluster_id.empty()) out += "cluster.id=" + EscapeProperty(p.cluster_id) + "\n";
  for (const auto& [k, v] : p.other) out += EscapeProperty(k) + "=" + EscapeProperty(v) + "\n";
  return out;
}

Result<MetaProperties> LoadOrCreateMetaProperties(Env* env, const std::string& log_dir,
                                                  int32_t node_id, const std::string& cluster_id) {
  const std::string path = log_dir + "/" + kMetaPropertiesFile;
  auto text = ReadFileToString(env, path);
  if (text.ok()) return ParseMetaProperties(path, *text);
  if (!text.status().IsNotFound()) return text.status();
  MetaProperties m;
  m.version = 1;
  m.node_id = node_id;
  m.cluster_id = cluster_id.empty() ? Uuid::Random().ToString() : cluster_id;
  m.directory_id = Uuid::Random().ToString();
  SEGLOG_RETURN_IF_ERROR(WriteFileAtomically(env, path, FormatMetaProperties(m, JavaDateNow())));
  return m;
}

}  // namespace seglog
