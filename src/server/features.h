// Kafka's feature flags as this node has them: the range of each level seglog can run at (what
// ApiVersions lists as SupportedFeatures) and the level it runs at (FinalizedFeatures), and
// UpdateFeatures' checks (Kafka 4.4.0's FeatureControlManager.updateFeature, in its order and
// words).
//
// Kafka 4.4.0 lists seven features. seglog's ranges are the levels whose behaviour it has:
//
//   feature                           Kafka 4.4.0   seglog   finalized (seglog)
//   metadata.version                  7-33          33-33    33 (4.4-IV2: the 4.4 protocol)
//   kraft.version                     0-1           0-1      the metadata log's (1: --standalone)
//   transaction.version               0-2           0-2      transaction.version setting (2)
//   group.version                     0-1           0-1      1 (KIP-848's consumer groups)
//   eligible.leader.replicas.version  0-1           0-1      1 (one replica: nothing to elect)
//   share.version                     0-2           0-2      the metadata log's (new: 2)
//   streams.version                   0-1           0-1      the metadata log's (new: 1)
//
// A feature whose supported maximum is 0 is left out of SupportedFeatures, and one finalized
// at 0 out of FinalizedFeatures, as Kafka does. share.version and streams.version follow the
// metadata log (BrokerContext::features, read from it at start): UpdateFeatures moves them
// within their ranges as Kafka's controller does, appending a FeatureLevelRecord per update in
// one batch (none for validateOnly), and the node serves at the new level from the next
// request. Kafka 4.4.0 checks nothing else for them (no dependency, and share or streams groups
// that exist do not block a downgrade: their APIs answer UNSUPPORTED_VERSION until an upgrade).
// The other features' levels are fixed while the node runs, so UpdateFeatures accepts an
// update of one only to the level the node runs at; any other level it could run at is
// refused with Kafka's INVALID_UPDATE_VERSION naming how to run at it.
//
// Thread safety: NodeFeatures and AddFeatures read the context's atomics; HandleUpdateFeatures
// runs one at a time (LiveFeatures::update_mu).
#ifndef SEGLOG_SERVER_FEATURES_H_
#define SEGLOG_SERVER_FEATURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "server/broker_context.h"
#include "server/request_handler.h"

namespace seglog {

struct FeatureLevel {
  std::string name;
  int16_t min_supported;
  int16_t max_supported;
  int16_t finalized;
};

// Every feature Kafka 4.4.0 knows, in Kafka's order, with this node's levels.
std::vector<FeatureLevel> NodeFeatures(const BrokerContext& ctx);

// ApiVersions' SupportedFeatures, FinalizedFeatures and their epoch for a response of
// `version` (v0-2 have none; v3 lists only supported features whose minimum is above 0, as
// Kafka's alterFeatureLevel0 does for clients older than KIP-1044).
void AddFeatures(const BrokerContext& ctx, int16_t version,
                 protocol::ApiVersionsResponseData* resp);

protocol::UpdateFeaturesResponseData HandleUpdateFeatures(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UpdateFeaturesRequestData& req, int16_t version);

}  // namespace seglog

#endif  // SEGLOG_SERVER_FEATURES_H_
