// DescribeClientQuotas and AlterClientQuotas: the client quotas kept in the metadata log as
// ClientQuotaRecords (MetadataStore; Kafka's rules in manager/client_quota_control.h,
// docs/design/quotas.md). As a Kafka broker, describing needs DESCRIBE_CONFIGS on the cluster
// and altering ALTER_CONFIGS; a refusal, or a filter Kafka refuses, fails the whole request.
#include <fmt/format.h>

#include "manager/client_quota_control.h"
#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace {

int16_t CodeOf(const ClientQuotaError& e) {
  switch (e.code) {
    case ClientQuotaError::Code::kNone:
      return kafka_error::kNone;
    case ClientQuotaError::Code::kInvalidRequest:
      return kafka_error::kInvalidRequest;
    case ClientQuotaError::Code::kUnsupportedVersion:
      return kafka_error::kUnsupportedVersion;
    case ClientQuotaError::Code::kUnknownServerError:
      return kafka_error::kUnknownServerError;
  }
  return kafka_error::kUnknownServerError;
}

// The entity types in the order Kafka's ClientQuotaEntity map lists them.
template <typename EntityData>
std::vector<EntityData> EntityDataOf(const ClientQuotaEntity& entity) {
  std::vector<std::string> types;
  for (const auto& [type, name] : entity) types.push_back(type);
  std::vector<EntityData> out;
  for (const std::string& type : JavaHashMapOrder(types, types.size())) {
    auto& e = out.emplace_back();
    e.entity_type = type;
    e.entity_name = entity.at(type);
  }
  return out;
}

// Kafka's AlterClientQuotasRequest.getErrorResponse: every entry as sent, with the error.
protocol::AlterClientQuotasResponseData AlterFailed(
    const protocol::AlterClientQuotasRequestData& req, int16_t code,
    std::optional<std::string> message) {
  protocol::AlterClientQuotasResponseData resp;
  for (const auto& entry : req.entries) {
    auto& r = resp.entries.emplace_back();
    r.error_code = code;
    r.error_message = message;
    for (const auto& e : entry.entity) {
      auto& d = r.entity.emplace_back();
      d.entity_type = e.entity_type;
      d.entity_name = e.entity_name;
    }
  }
  return resp;
}

}  // namespace

protocol::DescribeClientQuotasResponseData HandleDescribeClientQuotas(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeClientQuotasRequestData& req, int16_t version) {
  (void)version;
  protocol::DescribeClientQuotasResponseData resp;
  MetadataStore* store = ctx.logs->metadata();
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribeConfigs) || store == nullptr) {
    resp.error_code = store == nullptr ? kafka_error::kUnknownServerError
                                       : kafka_error::kClusterAuthorizationFailed;
    resp.error_message = AuthorizationErrorMessage(resp.error_code);
    resp.entries = std::nullopt;
    return resp;
  }
  ClientQuotaFilter filter;
  filter.strict = req.strict;
  for (const auto& c : req.components) {
    filter.components.push_back({c.entity_type, c.match_type, c.match});
  }
  ClientQuotaDescription d = store->DescribeClientQuotas(filter);
  if (!d.error.ok()) {
    // Kafka's image throws; the request's error response carries no entries.
    resp.error_code = CodeOf(d.error);
    resp.error_message = d.error.message;
    resp.entries = std::nullopt;
    return resp;
  }
  for (const auto& [entity, values] : d.entries) {
    auto& entry = resp.entries->emplace_back();
    entry.entity = EntityDataOf<protocol::DescribeClientQuotasResponseData::EntityData>(entity);
    for (const auto& [key, value] : values) {
      auto& v = entry.values.emplace_back();
      v.key = key;
      v.value = value;
    }
  }
  return resp;
}

protocol::AlterClientQuotasResponseData HandleAlterClientQuotas(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterClientQuotasRequestData& req, int16_t version) {
  (void)version;
  MetadataStore* store = ctx.logs->metadata();
  if (store == nullptr) return AlterFailed(req, kafka_error::kUnknownServerError, std::nullopt);
  if (!ClusterAuthorized(ctx, rc, AclOperation::kAlterConfigs)) {
    return AlterFailed(req, kafka_error::kClusterAuthorizationFailed,
                       AuthorizationErrorMessage(kafka_error::kClusterAuthorizationFailed));
  }
  std::vector<ClientQuotaAlteration> alterations;
  for (const auto& entry : req.entries) {
    ClientQuotaAlteration& a = alterations.emplace_back();
    for (const auto& e : entry.entity) a.entity.emplace_back(e.entity_type, e.entity_name);
    for (const auto& op : entry.ops) a.ops.push_back({op.key, op.value, op.remove});
  }
  auto results = store->AlterClientQuotas(alterations, req.validate_only);
  if (!results.ok()) {
    return AlterFailed(req, kafka_error::FromStatus(results.status()),
                       kafka_error::MessageOf(results.status()));
  }
  protocol::AlterClientQuotasResponseData resp;
  size_t changed = 0;
  for (const auto& [entity, error] : *results) {
    auto& r = resp.entries.emplace_back();
    r.error_code = CodeOf(error);
    r.error_message = error.message;
    r.entity = EntityDataOf<protocol::AlterClientQuotasResponseData::EntityData>(entity);
    if (error.ok()) ++changed;
  }
  if (changed > 0 && !req.validate_only) {
    ctx.logger.Info(fmt::format("Altered the client quotas of {} entit{}", changed,
                                changed == 1 ? "y" : "ies"));
  }
  return resp;
}

}  // namespace seglog
