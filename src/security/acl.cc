// ACL types and filters (acl.h).
#include "security/acl.h"

#include <array>
#include <initializer_list>

namespace seglog {
namespace {

constexpr std::array<std::string_view, 8> kResourceTypeNames = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};
constexpr std::array<std::string_view, 5> kPatternTypeNames = {"UNKNOWN", "ANY", "MATCH", "LITERAL",
                                                               "PREFIXED"};
constexpr std::array<std::string_view, 15> kOperationNames = {"UNKNOWN",
                                                              "ANY",
                                                              "ALL",
                                                              "READ",
                                                              "WRITE",
                                                              "CREATE",
                                                              "DELETE",
                                                              "ALTER",
                                                              "DESCRIBE",
                                                              "CLUSTER_ACTION",
                                                              "DESCRIBE_CONFIGS",
                                                              "ALTER_CONFIGS",
                                                              "IDEMPOTENT_WRITE",
                                                              "CREATE_TOKENS",
                                                              "DESCRIBE_TOKENS"};
constexpr std::array<std::string_view, 4> kPermissionNames = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

template <size_t N>
std::string_view NameOf(const std::array<std::string_view, N>& names, int8_t code) {
  return code >= 0 && static_cast<size_t>(code) < N ? names[static_cast<size_t>(code)] : names[0];
}

template <typename Enum, size_t N>
Enum FromCode(const std::array<std::string_view, N>&, int8_t code) {
  return code >= 0 && static_cast<size_t>(code) < N ? static_cast<Enum>(code)
                                                    : static_cast<Enum>(0);
}

int32_t Mask(std::initializer_list<AclOperation> ops) {
  int32_t mask = 0;
  for (AclOperation op : ops) mask |= int32_t{1} << static_cast<int>(op);
  return mask;
}

}  // namespace

std::string_view ResourceTypeName(ResourceType t) {
  return NameOf(kResourceTypeNames, static_cast<int8_t>(t));
}
std::string_view PatternTypeName(PatternType t) {
  return NameOf(kPatternTypeNames, static_cast<int8_t>(t));
}
std::string_view AclOperationName(AclOperation o) {
  return NameOf(kOperationNames, static_cast<int8_t>(o));
}
std::string_view AclPermissionTypeName(AclPermissionType p) {
  return NameOf(kPermissionNames, static_cast<int8_t>(p));
}
ResourceType ResourceTypeFromCode(int8_t code) {
  return FromCode<ResourceType>(kResourceTypeNames, code);
}
PatternType PatternTypeFromCode(int8_t code) {
  return FromCode<PatternType>(kPatternTypeNames, code);
}
AclOperation AclOperationFromCode(int8_t code) {
  return FromCode<AclOperation>(kOperationNames, code);
}
AclPermissionType AclPermissionTypeFromCode(int8_t code) {
  return FromCode<AclPermissionType>(kPermissionNames, code);
}

bool PatternCovers(const AclBinding& acl, std::string_view name) {
  switch (acl.pattern_type) {
    case PatternType::kLiteral:
      return acl.resource_name == name || acl.resource_name == kWildcardResource;
    case PatternType::kPrefixed:
      return name.substr(0, acl.resource_name.size()) == acl.resource_name;
    default:
      return false;
  }
}

bool AclBindingFilter::Matches(const AclBinding& acl) const {
  // The resource pattern.
  if (resource_type != ResourceType::kAny && resource_type != acl.resource_type) return false;
  if (pattern_type != PatternType::kAny && pattern_type != PatternType::kMatch &&
      pattern_type != acl.pattern_type) {
    return false;
  }
  if (resource_name.has_value()) {
    if (pattern_type == PatternType::kMatch) {
      if (!PatternCovers(acl, *resource_name)) return false;
    } else if (*resource_name != acl.resource_name) {
      return false;
    }
  }
  // The entry.
  if (principal.has_value() && *principal != acl.principal) return false;
  if (host.has_value() && *host != acl.host) return false;
  if (operation != AclOperation::kAny && operation != acl.operation) return false;
  if (permission != AclPermissionType::kAny && permission != acl.permission) return false;
  return true;
}

int32_t SupportedOperationsMask(ResourceType type) {
  using O = AclOperation;
  switch (type) {
    case ResourceType::kTopic:
      return Mask({O::kRead, O::kWrite, O::kCreate, O::kDescribe, O::kDelete, O::kAlter,
                   O::kDescribeConfigs, O::kAlterConfigs});
    case ResourceType::kGroup:
      return Mask({O::kRead, O::kDescribe, O::kDelete, O::kDescribeConfigs, O::kAlterConfigs});
    case ResourceType::kCluster:
      return Mask({O::kCreate, O::kClusterAction, O::kDescribeConfigs, O::kAlterConfigs,
                   O::kIdempotentWrite, O::kAlter, O::kDescribe});
    case ResourceType::kTransactionalId:
      return Mask({O::kDescribe, O::kWrite});
    case ResourceType::kDelegationToken:
      return Mask({O::kDescribe});
    case ResourceType::kUser:
      return Mask({O::kCreateTokens, O::kDescribeTokens});
    default:
      return 0;
  }
}

}  // namespace seglog
