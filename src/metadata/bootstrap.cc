// The bootstrap snapshot (see the header).
#include "metadata/bootstrap.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "metadata/metadata_log.h"
#include "metadata/snapshot_file.h"
#include "protocol/generated/feature_level_record.h"
#include "protocol/generated/k_raft_version_record.h"
#include "protocol/generated/voters_record.h"

namespace seglog {

namespace {

// Kafka 4.4.0's MetadataVersion, from 3.3-IV3 (level 7) on, one name a level.
constexpr std::array<std::string_view, 27> kVersionNames = {
    "3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1",
    "3.6-IV2", "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0",
    "3.9-IV0", "4.0-IV0", "4.0-IV1", "4.0-IV2", "4.0-IV3", "4.1-IV0", "4.1-IV1",
    "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2",
};
static_assert(kMinimumMetadataVersion + kVersionNames.size() - 1 == kLatestMetadataVersion);

}  // namespace

std::map<std::string, int16_t> DefaultBootstrapFeatures() {
  return {
      {kMetadataVersionFeature, kLatestMetadataVersion},
      {"eligible.leader.replicas.version", 1},
      {"group.version", 1},
      // KIP-932's share groups and KIP-1071's streams groups, finalized on a new 4.4.0 cluster.
      {"share.version", 2},
      {"streams.version", 1},
      {"transaction.version", 2},
  };
}

Result<int16_t> MetadataVersionForRelease(const std::string& release) {
  // "4.4" is the latest level of that release; "4.4-IV1" exactly that one.
  int16_t found = -1;
  for (size_t i = 0; i < kVersionNames.size(); ++i) {
    const std::string_view name = kVersionNames[i];
    if (name == release || name.substr(0, name.find('-')) == release) {
      found = static_cast<int16_t>(kMinimumMetadataVersion + i);
    }
  }
  if (found < 0) {
    return Status::InvalidArgument(
        fmt::format("Unknown metadata.version '{}'. Supported metadata.version are {} to {}",
                    release, kVersionNames.front(), kVersionNames.back()));
  }
  return found;
}

std::string MetadataVersionName(int16_t level) {
  if (level < kMinimumMetadataVersion || level > kLatestMetadataVersion) {
    return fmt::format("level {}", level);
  }
  return std::string(kVersionNames[level - kMinimumMetadataVersion]);
}

Status WriteBootstrapSnapshot(Env* env, const std::string& log_dir,
                              const std::map<std::string, int16_t>& features, int64_t now_ms,
                              const std::optional<StandaloneVoter>& standalone,
                              std::span<const MetadataRecordValue> more) {
  const std::string dir = log_dir + "/" + kMetadataPartitionDir;
  SEGLOG_RETURN_IF_ERROR(env->CreateDirectories(dir));
  const std::string name = SnapshotName({0, 0});
  if (env->FileExists(fmt::format("{}/{}{}", dir, name, kSnapshotSuffix))) {
    return Status::AlreadyExists(fmt::format("{} already has the bootstrap snapshot", dir));
  }
  std::vector<MetadataRecordValue> records;
  auto add = [&](const std::string& feature, int16_t level) -> Status {
    protocol::FeatureLevelRecord r;
    r.name = feature;
    r.feature_level = level;
    SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue v, EncodeMetadataRecord(r));
    records.push_back(std::move(v));
    return Status::OK();
  };
  auto mv = features.find(kMetadataVersionFeature);
  if (mv == features.end()) {
    return Status::InvalidArgument("the bootstrap features have no metadata.version");
  }
  SEGLOG_RETURN_IF_ERROR(add(mv->first, mv->second));
  for (const auto& [feature, level] : features) {
    // kraft.version is the quorum's, recorded as control records; level 0 is not written.
    if (feature == kMetadataVersionFeature || feature == "kraft.version" || level == 0) continue;
    SEGLOG_RETURN_IF_ERROR(add(feature, level));
  }
  records.insert(records.end(), more.begin(), more.end());
  std::vector<ControlRecordValue> control;
  if (standalone.has_value()) {
    protocol::KRaftVersionRecord kv;
    kv.k_raft_version = 1;
    SEGLOG_ASSIGN_OR_RETURN(ControlRecordValue k,
                            EncodeControlRecord(ControlRecordType::kKRaftVersion, kv));
    control.push_back(std::move(k));
    protocol::VotersRecord voters;
    protocol::VotersRecord::Voter voter;
    voter.voter_id = standalone->node_id;
    voter.voter_directory_id = standalone->directory_id;
    protocol::VotersRecord::Endpoint ep;
    ep.name = standalone->listener;
    ep.host = standalone->host;
    ep.port = standalone->port;
    voter.endpoints.push_back(ep);
    voter.k_raft_version_feature.min_supported_version = 0;
    voter.k_raft_version_feature.max_supported_version = 1;
    voters.voters.push_back(voter);
    SEGLOG_ASSIGN_OR_RETURN(ControlRecordValue v,
                            EncodeControlRecord(ControlRecordType::kKRaftVoters, voters));
    control.push_back(std::move(v));
  }
  return WriteSnapshot(env, dir, {0, 0}, now_ms, now_ms, control, records);
}

}  // namespace seglog
