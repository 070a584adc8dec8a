// Feature levels and UpdateFeatures. See features.h.
#include "server/features.h"

#include <fmt/format.h>

#include <algorithm>

#include "manager/metadata_store.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "share/share_partition_manager.h"
#include "share/share_session_cache.h"

namespace seglog {

namespace {
constexpr int8_t kUpgrade = 1;
constexpr int8_t kSafeDowngrade = 2;
constexpr int8_t kUnsafeDowngrade = 3;
// metadata.version 33 is Kafka 4.4.0's latest production level (IBP_4_4_IV2).
constexpr int16_t kMetadataVersion = 33;
}  // namespace

std::vector<FeatureLevel> NodeFeatures(const BrokerContext& ctx) {
  // Kafka 4.4.0 answers in this order (its HashMap's).
  return {
      {"group.version", 0, 1, 1},
      {"kraft.version", 0, 1, ctx.logs != nullptr ? ctx.logs->KRaftVersion() : int16_t{0}},
      {"metadata.version", kMetadataVersion, kMetadataVersion, kMetadataVersion},
      {"share.version", 0, 2, ctx.share_version()},
      {"streams.version", 0, 1, ctx.streams_version()},
      {"transaction.version", 0, 2, ctx.transaction_version},
      {"eligible.leader.replicas.version", 0, 1, 1},
  };
}

void AddFeatures(const BrokerContext& ctx, int16_t version,
                 protocol::ApiVersionsResponseData* resp) {
  if (version < 3) return;
  for (const FeatureLevel& f : NodeFeatures(ctx)) {
    if (f.max_supported == 0) continue;
    if (version < 4 && f.min_supported == 0) continue;  // alterFeatureLevel0
    auto& sf = resp->supported_features.emplace_back();
    sf.name = f.name;
    sf.min_version = f.min_supported;
    sf.max_version = f.max_supported;
  }
  resp->finalized_features_epoch = ctx.features->epoch.load();
  for (const FeatureLevel& f : NodeFeatures(ctx)) {
    if (f.finalized == 0) continue;
    auto& ff = resp->finalized_features.emplace_back();
    ff.name = f.name;
    ff.min_version_level = f.finalized;
    ff.max_version_level = f.finalized;
  }
}

namespace {

// The features whose level the metadata log records and the node follows at run time.
bool IsLive(const std::string& name) {
  return name == "share.version" || name == "streams.version";
}

// Why `update` cannot be applied (Kafka's reason after "Invalid update version N for feature
// F. "), or empty.
std::string Refusal(const BrokerContext& ctx, const std::vector<FeatureLevel>& features,
                    const std::string& name, int16_t level, int8_t type) {
  if (type != kUpgrade && type != kSafeDowngrade && type != kUnsafeDowngrade) {
    return "The controller does not support the given upgrade type.";
  }
  if (level < 0) return "A feature version cannot be less than 0.";
  const FeatureLevel* f = nullptr;
  for (const FeatureLevel& candidate : features) {
    if (candidate.name == name) f = &candidate;
  }
  if (f == nullptr || f->max_supported == 0) {
    return fmt::format("Local controller {} does not support this feature.", ctx.node_id);
  }
  if (level < f->min_supported || level > f->max_supported) {
    return fmt::format("Local controller {} only supports versions {}-{}", ctx.node_id,
                       f->min_supported, f->max_supported);
  }
  if (level < f->finalized && type == kUpgrade) {
    return "Can't downgrade the version of this feature without setting the upgrade type to "
           "either safe or unsafe downgrade.";
  }
  if (level > f->finalized && type != kUpgrade) return "Can't downgrade to a newer version.";
  // Kafka's Feature.validateVersion: a level above 0 needs metadata.version 7 (seglog runs at
  // 33), and neither share.version nor streams.version depends on another feature.
  if (IsLive(name)) return "";
  if (level != f->finalized) {
    // seglog's own refusal: the level is fixed for the life of the process.
    if (name == "transaction.version") {
      return fmt::format(
          "seglog runs at {} {} until it restarts; set transaction.version={} in "
          "server.properties and restart to run at {}.",
          name, f->finalized, level, level);
    }
    return fmt::format("seglog runs at {} {} and cannot change it while it runs.", name,
                       f->finalized);
  }
  return "";
}

}  // namespace

protocol::UpdateFeaturesResponseData HandleUpdateFeatures(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UpdateFeaturesRequestData& req, int16_t version) {
  protocol::UpdateFeaturesResponseData resp;
  resp.error_message = std::nullopt;
  // ALTER on the cluster (Kafka's controller throws; its message names its request object, so
  // none is sent here), else nothing changes and no feature is answered.
  if (!ClusterAuthorized(ctx, rc, AclOperation::kAlter)) {
    resp.error_code = kafka_error::kClusterAuthorizationFailed;
    return resp;
  }
  // One UpdateFeatures at a time from the check to the published level, as Kafka's controller
  // runs them: the levels checked are the ones the append follows.
  MutexLock serialized(&ctx.features->update_mu);
  const std::vector<FeatureLevel> features = NodeFeatures(ctx);
  std::vector<std::pair<std::string, int16_t>> records;
  for (const auto& u : req.feature_updates) {
    // v0's AllowDowngrade is not read (Kafka 4.4.0 ignores it): v0 updates are upgrades.
    const int8_t type = version >= 1 ? u.upgrade_type : kUpgrade;
    std::string why = Refusal(ctx, features, u.feature, u.max_version_level, type);
    if (!why.empty()) {
      resp.error_code = kafka_error::kInvalidUpdateVersion;
      resp.error_message = fmt::format(
          "The update failed for all features since the following feature had an error: "
          "Invalid update version {} for feature {}. {}",
          u.max_version_level, u.feature, why);
      resp.results.clear();
      return resp;
    }
    if (IsLive(u.feature)) records.emplace_back(u.feature, u.max_version_level);
    if (version < 2) {
      auto& r = resp.results.emplace_back();
      r.feature = u.feature;
      r.error_message = "NONE";  // Errors.NONE.message()
    }
  }
  if (req.validate_only || records.empty()) return resp;
  // Kafka's controller records a FeatureLevelRecord for every live update, one atomic batch.
  MetadataStore* metadata = ctx.logs != nullptr ? ctx.logs->metadata() : nullptr;
  Status appended = metadata != nullptr ? metadata->SetFeatureLevels(records)
                                        : Status::FailedPrecondition("there is no metadata log");
  if (!appended.ok()) {
    resp.error_code = kafka_error::kUnknownServerError;
    resp.error_message = appended.ToString();
    resp.results.clear();
    return resp;
  }
  ctx.features->epoch = std::max<int64_t>(ctx.features->epoch.load(), metadata->end_offset() - 1);
  for (const auto& [name, level] : records) {
    (name == "share.version" ? ctx.features->share_version : ctx.features->streams_version)
        .store(level);
    ctx.logger.Info(fmt::format("Feature {} has been updated to version {}", name, level));
  }
  // share.version below 1: the share sessions and partitions are forgotten, as Kafka's
  // SharePartitionManager.onShareVersionToggle does.
  if (ctx.share_version() < 1) {
    if (ctx.share_sessions != nullptr) ctx.share_sessions->RemoveAll();
    if (ctx.share_partitions != nullptr) ctx.share_partitions->ForgetAll();
  }
  return resp;
}

}  // namespace seglog
