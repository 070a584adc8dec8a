// Authorization of a request: whether its client may do an operation on a resource, as Kafka's
// AuthHelper asks its authorizer. Every API handler that checks an ACL goes through these
// functions (what each API checks: src/server/README.md, "Authorization").
//
// The client is the request's principal ("User:alice") from the address it connected from.
// Without an authorizer (authorizer.class.name unset) everything is allowed and
// authorized_operations fields carry every operation the resource type supports, as in Kafka.
// Each check is of one LITERAL resource: a TOPIC named "orders", the CLUSTER "kafka-cluster".
//
// Thread safety: pure functions over the thread-safe StandardAuthorizer.
#ifndef SEGLOG_SERVER_AUTHORIZATION_H_
#define SEGLOG_SERVER_AUTHORIZATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "security/acl.h"
#include "security/standard_authorizer.h"
#include "server/broker_context.h"
#include "server/request_handler.h"

namespace seglog {

// Who a decision is about: the request's principal and its client's IP address.
RequestPrincipal ClientPrincipal(const RequestContext& rc);

// Whether the request's client may do `operation` on the resource `type` named `name`; true
// when the broker has no authorizer.
bool Authorized(const BrokerContext& ctx, const RequestContext& rc, AclOperation operation,
                ResourceType type, std::string_view name);
// The same on the one CLUSTER resource, "kafka-cluster".
bool ClusterAuthorized(const BrokerContext& ctx, const RequestContext& rc, AclOperation operation);
// Whether `operation` is allowed on some resource of `type` (Kafka's authorizeByResourceType:
// InitProducerId of an idempotent producer asks it of WRITE on topics); true without an
// authorizer.
bool AuthorizedByResourceType(const BrokerContext& ctx, const RequestContext& rc,
                              AclOperation operation, ResourceType type);
// An authorized_operations field's value: bit 1 << code of each operation `type` supports that
// the client may do on `name` (all of them without an authorizer; TOPIC 3576, GROUP 3400,
// CLUSTER 8096).
int32_t AuthorizedOperations(const BrokerContext& ctx, const RequestContext& rc, ResourceType type,
                             std::string_view name);

// Kafka's Errors.message() of the authorization errors, which some responses carry:
// "Topic authorization failed.", "Group authorization failed.", "Cluster authorization
// failed.", "Transactional Id authorization failed."; nullopt for another code.
std::optional<std::string> AuthorizationErrorMessage(int16_t code);

}  // namespace seglog

#endif  // SEGLOG_SERVER_AUTHORIZATION_H_
