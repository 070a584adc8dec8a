// quorum-state (see the header).
#include "metadata/quorum_state.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"

namespace seglog {

std::string FormatQuorumState(const QuorumState& s) {
  // Kafka's QuorumStateData JSON, its fields in schema order.
  nlohmann::ordered_json j;
  if (s.data_version == 0) j["clusterId"] = "";
  j["leaderId"] = s.leader_id;
  j["leaderEpoch"] = s.leader_epoch;
  j["votedId"] = s.voted_id;
  if (s.data_version >= 1) {
    j["votedDirectoryId"] = s.voted_directory_id.ToString();
  } else {
    j["appliedOffset"] = 0;
    nlohmann::ordered_json voters = nlohmann::ordered_json::array();
    for (int32_t v : s.voters) voters.push_back({{"voterId", v}});
    j["currentVoters"] = voters;
  }
  j["data_version"] = s.data_version;
  return j.dump();
}

Result<QuorumState> ParseQuorumState(const std::string& path, const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](std::string_view why) {
    return Status::Corruption(
        fmt::format("Error while reading the Quorum status from the file {}: {}", path, why));
  };
  if (!j.is_object()) return bad("not a JSON object");
  auto int_field = [&](const char* name, int64_t fallback, int64_t* out) -> bool {
    auto it = j.find(name);
    if (it == j.end()) {
      *out = fallback;
      return true;
    }
    if (!it->is_number_integer()) return false;
    *out = it->get<int64_t>();
    return true;
  };
  int64_t version = 0, leader = -1, epoch = 0, voted = -1;
  if (!int_field("data_version", -1, &version) || version < 0) return bad("no data_version");
  if (version > 1) {
    return bad(fmt::format("data_version {} is not supported (0 or 1)", version));
  }
  if (!int_field("leaderId", -1, &leader) || !int_field("leaderEpoch", 0, &epoch) ||
      !int_field("votedId", -1, &voted)) {
    return bad("a field is not an integer");
  }
  QuorumState s;
  s.data_version = static_cast<int16_t>(version);
  s.leader_id = static_cast<int32_t>(leader);
  s.leader_epoch = static_cast<int32_t>(epoch);
  s.voted_id = static_cast<int32_t>(voted);
  if (auto it = j.find("votedDirectoryId"); it != j.end() && it->is_string()) {
    Result<Uuid> id = Uuid::Parse(it->get<std::string>());
    if (!id.ok()) return bad(id.status().message());
    s.voted_directory_id = id.value();
  }
  if (auto it = j.find("currentVoters"); it != j.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_object() && v.contains("voterId") && v["voterId"].is_number_integer()) {
        s.voters.push_back(v["voterId"].get<int32_t>());
      }
    }
  }
  return s;
}

Result<QuorumState> ReadQuorumState(Env* env, const std::string& dir) {
  const std::string path = dir + "/" + kQuorumStateFile;
  Result<std::string> text = ReadFileToString(env, path);
  if (!text.ok()) return text.status();
  return ParseQuorumState(path, text.value());
}

Status WriteQuorumState(Env* env, const std::string& dir, const QuorumState& state) {
  return WriteFileAtomically(env, dir + "/" + kQuorumStateFile, FormatQuorumState(state));
}

}  // namespace seglog
