// Feature levels and UpdateFeatures. See features.h.
#include "server/features.h"

#include <fmt/format.h>

#include "protocol/kafka_error.h"
#include "server/authorization.h"

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
      {"share.version", 0, 2, ctx.share_version},
      // Kafka 4.4.0 finalizes streams.version 1 on a new cluster (KIP-1071's streams groups).
      {"streams.version", 0, 1, ctx.streams_version},
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
  resp->finalized_features_epoch = 1;
  for (const FeatureLevel& f : NodeFeatures(ctx)) {
    if (f.finalized == 0) continue;
    auto& ff = resp->finalized_features.emplace_back();
    ff.name = f.name;
    ff.min_version_level = f.finalized;
    ff.max_version_level = f.finalized;
  }
}

namespace {

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
  const std::vector<FeatureLevel> features = NodeFeatures(ctx);
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
    if (version < 2) {
      auto& r = resp.results.emplace_back();
      r.feature = u.feature;
      r.error_message = "NONE";  // Errors.NONE.message()
    }
  }
  return resp;
}

}  // namespace seglog
