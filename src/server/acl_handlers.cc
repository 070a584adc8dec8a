// DescribeAcls, CreateAcls and DeleteAcls (Kafka's AclApis and AclControlManager rules;
// docs/design/security.md).
//
// Without an authorizer (authorizer.class.name unset) Kafka 4.4.0 answers every ACL request
// SECURITY_DISABLED, which clients (the admin client, MirrorMaker 2's ACL sync) read as "no ACLs
// here"; seglog does the same. With one, the ACLs live in the metadata log
// (AccessControlEntryRecord, RemoveAccessControlEntryRecord), so a Kafka broker taking the
// directory over has the same ACLs, and the authorizer is given the new set after each change.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "security/standard_authorizer.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace {

using kafka_error::kSecurityDisabled;
constexpr const char* kNoAuthorizer = "No Authorizer is configured on the broker";

// Why CreateAcls or DeleteAcls is refused as a whole (no authorizer, or no ALTER on the
// cluster): the error code and message of every entry.
std::optional<std::pair<int16_t, std::optional<std::string>>> RefuseAlter(
    const BrokerContext& ctx, const RequestContext& rc) {
  if (ctx.authorizer == nullptr) {
    return std::make_pair(kSecurityDisabled, std::optional<std::string>(kNoAuthorizer));
  }
  if (!ClusterAuthorized(ctx, rc, AclOperation::kAlter)) {
    return std::make_pair(kafka_error::kClusterAuthorizationFailed, std::optional<std::string>());
  }
  return std::nullopt;
}

// `n` entries of `out` with the same error.
template <typename Entries>
void FillEvery(Entries* out, size_t n, int16_t code, const std::optional<std::string>& message) {
  for (size_t i = 0; i < n; ++i) {
    auto& r = out->emplace_back();
    r.error_code = code;
    r.error_message = message;
  }
}

AclBindingFilter FilterOf(int8_t resource_type, const std::optional<std::string>& name,
                          int8_t pattern_type, const std::optional<std::string>& principal,
                          const std::optional<std::string>& host, int8_t operation,
                          int8_t permission) {
  AclBindingFilter f;
  f.resource_type = ResourceTypeFromCode(resource_type);
  f.resource_name = name;
  f.pattern_type = PatternTypeFromCode(pattern_type);
  f.principal = principal;
  f.host = host;
  f.operation = AclOperationFromCode(operation);
  f.permission = AclPermissionTypeFromCode(permission);
  return f;
}

}  // namespace

void RefreshAuthorizer(const BrokerContext& ctx) {
  if (ctx.authorizer != nullptr) ctx.authorizer->SetAcls(ctx.logs->Acls());
}

protocol::DescribeAclsResponseData HandleDescribeAcls(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::DescribeAclsRequestData& req,
                                                      int16_t version) {
  (void)version;
  protocol::DescribeAclsResponseData resp;
  if (ctx.authorizer == nullptr) {
    resp.error_code = kSecurityDisabled;
    resp.error_message = kNoAuthorizer;
    return resp;
  }
  resp.error_message = std::nullopt;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribe)) {
    resp.error_code = kafka_error::kClusterAuthorizationFailed;
    return resp;
  }
  const AclBindingFilter filter =
      FilterOf(req.resource_type_filter, req.resource_name_filter, req.pattern_type_filter,
               req.principal_filter, req.host_filter, req.operation, req.permission_type);
  // Grouped by resource pattern, as Kafka's DescribeAclsResponse.aclsResources does.
  std::map<std::tuple<int8_t, std::string, int8_t>, std::vector<AclBinding>> by_resource;
  for (const auto& [id, acl] : ctx.authorizer->Acls(filter)) {
    by_resource[{static_cast<int8_t>(acl.resource_type), acl.resource_name,
                 static_cast<int8_t>(acl.pattern_type)}]
        .push_back(acl);
  }
  for (const auto& [key, acls] : by_resource) {
    auto& r = resp.resources.emplace_back();
    r.resource_type = std::get<0>(key);
    r.resource_name = std::get<1>(key);
    r.pattern_type = std::get<2>(key);
    for (const AclBinding& acl : acls) {
      auto& d = r.acls.emplace_back();
      d.principal = acl.principal;
      d.host = acl.host;
      d.operation = static_cast<int8_t>(acl.operation);
      d.permission_type = static_cast<int8_t>(acl.permission);
    }
  }
  return resp;
}

protocol::CreateAclsResponseData HandleCreateAcls(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::CreateAclsRequestData& req,
                                                  int16_t version) {
  (void)version;
  protocol::CreateAclsResponseData resp;
  auto all = [&](int16_t code, std::optional<std::string> message) {
    FillEvery(&resp.results, req.creations.size(), code, std::move(message));
    return resp;
  };
  if (auto refused = RefuseAlter(ctx, rc)) return all(refused->first, refused->second);
  std::vector<AclBinding> acls;
  for (const auto& c : req.creations) {
    AclBinding a;
    a.resource_type = ResourceTypeFromCode(c.resource_type);
    a.resource_name = c.resource_name;
    a.pattern_type = PatternTypeFromCode(c.resource_pattern_type);
    a.principal = c.principal;
    a.host = c.host;
    a.operation = AclOperationFromCode(c.operation);
    a.permission = AclPermissionTypeFromCode(c.permission_type);
    // Kafka builds an AclBinding of each first; ANY or MATCH anywhere throws there, and the
    // whole request fails with UNKNOWN_SERVER_ERROR.
    if (a.resource_type == ResourceType::kAny || a.pattern_type == PatternType::kAny ||
        a.pattern_type == PatternType::kMatch || a.operation == AclOperation::kAny ||
        a.permission == AclPermissionType::kAny) {
      return all(kafka_error::kUnknownServerError, std::nullopt);
    }
    acls.push_back(std::move(a));
  }
  // The broker's checks (AclApis), then the controller's (AclControlManager) on the rest.
  std::vector<Status> results(acls.size());
  std::vector<AclBinding> valid;
  std::vector<size_t> slots;
  for (size_t i = 0; i < acls.size(); ++i) {
    if (acls[i].resource_type == ResourceType::kCluster &&
        acls[i].resource_name != kClusterResourceName) {
      results[i] =
          Status::InvalidArgument("The only valid name for the CLUSTER resource is kafka-cluster");
    } else if (acls[i].resource_name.empty()) {
      results[i] = Status::InvalidArgument("Invalid empty resource name");
    } else {
      valid.push_back(acls[i]);
      slots.push_back(i);
    }
  }
  const std::vector<Status> stored = ctx.logs->CreateAcls(valid);
  for (size_t k = 0; k < slots.size(); ++k) results[slots[k]] = stored[k];
  RefreshAuthorizer(ctx);
  for (const Status& s : results) {
    auto& r = resp.results.emplace_back();
    r.error_message = std::nullopt;
    if (s.ok()) continue;
    r.error_code = s.code() == Status::Code::kInvalidArgument ? kafka_error::kInvalidRequest
                                                              : kafka_error::FromStatus(s);
    r.error_message = kafka_error::MessageOf(s);
  }
  if (!valid.empty())
    ctx.logger.Info(fmt::format("Processed CreateAcls of {} ACL(s)", acls.size()));
  return resp;
}

protocol::DeleteAclsResponseData HandleDeleteAcls(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::DeleteAclsRequestData& req,
                                                  int16_t version) {
  (void)version;
  protocol::DeleteAclsResponseData resp;
  auto all = [&](int16_t code, std::optional<std::string> message) {
    FillEvery(&resp.filter_results, req.filters.size(), code, std::move(message));
    return resp;
  };
  if (auto refused = RefuseAlter(ctx, rc)) return all(refused->first, refused->second);
  std::vector<AclBindingFilter> filters;
  for (const auto& f : req.filters) {
    filters.push_back(FilterOf(f.resource_type_filter, f.resource_name_filter,
                               f.pattern_type_filter, f.principal_filter, f.host_filter,
                               f.operation, f.permission_type));
  }
  auto deleted = ctx.logs->DeleteAcls(filters);
  if (!deleted.ok()) {
    return all(kafka_error::FromStatus(deleted.status()), kafka_error::MessageOf(deleted.status()));
  }
  RefreshAuthorizer(ctx);
  for (const auto& matched : *deleted) {
    auto& r = resp.filter_results.emplace_back();
    r.error_message = std::nullopt;
    for (const auto& [id, acl] : matched) {
      auto& m = r.matching_acls.emplace_back();
      m.error_message = std::nullopt;
      m.resource_type = static_cast<int8_t>(acl.resource_type);
      m.resource_name = acl.resource_name;
      m.pattern_type = static_cast<int8_t>(acl.pattern_type);
      m.principal = acl.principal;
      m.host = acl.host;
      m.operation = static_cast<int8_t>(acl.operation);
      m.permission_type = static_cast<int8_t>(acl.permission);
    }
  }
  return resp;
}

}  // namespace seglog
