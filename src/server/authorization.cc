// Authorization of a request; see authorization.h.
#include "server/authorization.h"

#include "protocol/kafka_error.h"

namespace seglog {

RequestPrincipal ClientPrincipal(const RequestContext& rc) {
  return RequestPrincipal{rc.principal, rc.client_host};
}

bool Authorized(const BrokerContext& ctx, const RequestContext& rc, AclOperation operation,
                ResourceType type, std::string_view name) {
  return ctx.authorizer == nullptr ||
         ctx.authorizer->Authorize(ClientPrincipal(rc), operation, type, name);
}

bool ClusterAuthorized(const BrokerContext& ctx, const RequestContext& rc, AclOperation operation) {
  return Authorized(ctx, rc, operation, ResourceType::kCluster, kClusterResourceName);
}

bool AuthorizedByResourceType(const BrokerContext& ctx, const RequestContext& rc,
                              AclOperation operation, ResourceType type) {
  return ctx.authorizer == nullptr ||
         ctx.authorizer->AuthorizeByResourceType(ClientPrincipal(rc), operation, type);
}

int32_t AuthorizedOperations(const BrokerContext& ctx, const RequestContext& rc, ResourceType type,
                             std::string_view name) {
  if (ctx.authorizer == nullptr) return SupportedOperationsMask(type);
  return ctx.authorizer->AuthorizedOperations(ClientPrincipal(rc), type, name);
}

std::optional<std::string> AuthorizationErrorMessage(int16_t code) {
  switch (code) {
    case kafka_error::kTopicAuthorizationFailed:
      return "Topic authorization failed.";
    case kafka_error::kGroupAuthorizationFailed:
      return "Group authorization failed.";
    case kafka_error::kClusterAuthorizationFailed:
      return "Cluster authorization failed.";
    case kafka_error::kTransactionalIdAuthorizationFailed:
      return "Transactional Id authorization failed.";
    default:
      return std::nullopt;
  }
}

}  // namespace seglog
