// ApiVersions, DescribeCluster and InitProducerId: who this broker is and what it speaks.
//
// ACLs (Kafka's KafkaApis and AuthHelper): ApiVersions and DescribeCluster need none (the
// cluster's authorized operations are 0 for a client that may not DESCRIBE it). An idempotent
// producer's InitProducerId needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic, else
// CLUSTER_AUTHORIZATION_FAILED (a transactional id's: txn_handlers.cc).
#include <fmt/format.h>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/features.h"
#include "server/handlers.h"

namespace seglog {

namespace {
// Kafka's ApiVersionsRequest.isValid pattern for the client software name and version,
// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?: alphanumerics, with '-' and '.' inside.
bool IsValidSoftwareToken(const std::string& s) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

protocol::ApiVersionsResponseData HandleApiVersions(const BrokerContext& ctx,
                                                    const protocol::ApiVersionsRequestData& req,
                                                    int16_t version) {
  protocol::ApiVersionsResponseData resp;
  if (version >= 3) {
    if (!IsValidSoftwareToken(req.client_software_name) ||
        !IsValidSoftwareToken(req.client_software_version)) {
      resp.error_code = kafka_error::kInvalidRequest;
      return resp;
    }
  }
  AddFeatures(ctx, version, &resp);
  for (const ServedVersions& s : ServedApis()) {
    // KIP-714's APIs only when pushed metrics have somewhere to go (Kafka: a telemetry exporter).
    if (ctx.telemetry == nullptr &&
        (s.api_key == protocol::GetTelemetrySubscriptionsRequestData::kApiKey ||
         s.api_key == protocol::PushTelemetryRequestData::kApiKey)) {
      continue;
    }
    protocol::ApiVersionsResponseData::ApiVersion v;
    v.api_key = s.api_key;
    v.min_version = s.min_version;
    v.max_version = s.max_version;
    resp.api_keys.push_back(v);
  }
  return resp;
}

protocol::DescribeClusterResponseData HandleDescribeCluster(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeClusterRequestData& req, int16_t version) {
  (void)version;
  protocol::DescribeClusterResponseData resp;
  // endpoint_type 1 is brokers; 2 (controllers) has no answer on a broker listener.
  if (req.endpoint_type != 1) {
    resp.error_code = kafka_error::kUnsupportedVersion;
    resp.error_message =
        "The request was sent to an endpoint of type BROKER, but we wanted an "
        "endpoint of type CONTROLLER";
    return resp;
  }
  resp.cluster_id = ctx.cluster_id;
  resp.controller_id = ctx.node_id;
  auto& b = resp.brokers.emplace_back();
  b.broker_id = ctx.node_id;
  const AdvertisedEndpoint endpoint = EndpointFor(ctx, rc.listener);
  b.host = endpoint.host;
  b.port = endpoint.port;
  if (req.include_cluster_authorized_operations) {
    resp.cluster_authorized_operations =
        ClusterAuthorized(ctx, rc, AclOperation::kDescribe)
            ? AuthorizedOperations(ctx, rc, ResourceType::kCluster, kClusterResourceName)
            : 0;
  }
  return resp;
}

protocol::InitProducerIdResponseData HandleInitProducerId(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::InitProducerIdRequestData& req, int16_t version) {
  (void)version;
  protocol::InitProducerIdResponseData resp;
  if (req.transactional_id.has_value())
    return HandleTransactionalInitProducerId(ctx, rc, req, version);
  // IDEMPOTENT_WRITE on the cluster, or WRITE on any topic (Kafka's authorizeByResourceType).
  if (!ClusterAuthorized(ctx, rc, AclOperation::kIdempotentWrite) &&
      !AuthorizedByResourceType(ctx, rc, AclOperation::kWrite, ResourceType::kTopic)) {
    resp.error_code = kafka_error::kClusterAuthorizationFailed;
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    return resp;
  }
  // An idempotent producer gets a fresh id each time (Kafka's non-transactional path), also
  // when it asks to bump the epoch of an old one (KIP-360).
  Result<int64_t> id = ctx.next_producer_id
                           ? ctx.next_producer_id()
                           : Result<int64_t>(Status::FailedPrecondition("no producer id source"));
  if (!id.ok()) {
    ctx.logger.Info("InitProducerId failed: " + id.status().ToString());
    resp.error_code = kafka_error::kUnknownServerError;
    return resp;
  }
  resp.producer_id = id.value();
  resp.producer_epoch = 0;
  return resp;
}

}  // namespace seglog
