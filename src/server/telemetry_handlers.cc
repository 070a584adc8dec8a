// GetTelemetrySubscriptions and PushTelemetry (KIP-714), as Kafka's KafkaApis hands them to its
// ClientMetricsManager (telemetry/client_metrics_manager.h has the rules). No ACL applies: any
// client may ask for its subscription and push its metrics, as in Kafka.
#include "server/handlers.h"

namespace seglog {

namespace {

ClientMetricsManager::Caller CallerOf(const RequestContext& rc, const std::string& client_id) {
  ClientMetricsManager::Caller c;
  c.connection_id = rc.connection_id;
  c.client_id = client_id;
  c.source_address = rc.client_host;
  std::string address = rc.client_address;
  if (auto colon = address.rfind(':'); colon != std::string::npos) {
    c.source_port = address.substr(colon + 1);
    if (c.source_address.empty()) {
      address.resize(colon);
      if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
        address = address.substr(1, address.size() - 2);
      }
      c.source_address = address;
    }
  }
  return c;
}

}  // namespace

protocol::GetTelemetrySubscriptionsResponseData HandleGetTelemetrySubscriptions(
    const BrokerContext& ctx, const RequestContext& rc, const std::string& client_id,
    const protocol::GetTelemetrySubscriptionsRequestData& req, int16_t version) {
  (void)version;
  ClientMetricsManager::GetAnswer a =
      ctx.telemetry->GetSubscriptions(req.client_instance_id, CallerOf(rc, client_id), ctx.NowMs());
  protocol::GetTelemetrySubscriptionsResponseData resp;
  resp.error_code = a.error_code;
  if (a.error_code != 0) {
    ctx.logger.Debug(a.error_message);
    return resp;
  }
  resp.client_instance_id = a.client_instance_id;
  resp.subscription_id = a.subscription_id;
  resp.accepted_compression_types = a.accepted_compression_types;
  resp.push_interval_ms = a.push_interval_ms;
  resp.telemetry_max_bytes = a.telemetry_max_bytes;
  resp.delta_temporality = a.delta_temporality;
  resp.requested_metrics = a.requested_metrics;
  return resp;
}

protocol::PushTelemetryResponseData HandlePushTelemetry(
    const BrokerContext& ctx, const RequestContext& rc, const std::string& client_id,
    const protocol::PushTelemetryRequestData& req, int16_t version) {
  (void)version;
  ClientMetricsManager::PushAnswer a =
      ctx.telemetry->Push(req.client_instance_id, req.subscription_id, req.terminating,
                          req.compression_type, req.metrics, CallerOf(rc, client_id), ctx.NowMs());
  protocol::PushTelemetryResponseData resp;
  resp.error_code = a.error_code;
  if (a.error_code != 0) ctx.logger.Debug(a.error_message);
  return resp;
}

}  // namespace seglog
