// ACLs as Kafka has them: the resource, pattern, operation and permission types with Kafka's
// codes (the same on the wire - CreateAcls, DescribeAcls, DeleteAcls - and in the metadata log's
// AccessControlEntryRecord), an ACL binding, and the filters DescribeAcls and DeleteAcls match
// with (Kafka's AclBindingFilter rules: docs/design/security.md, "ACLs").
//
// Thread safety: plain values and pure functions.
#ifndef SEGLOG_SECURITY_ACL_H_
#define SEGLOG_SECURITY_ACL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace seglog {

// Kafka's ResourceType codes.
enum class ResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,
  kTransactionalId = 5,
  kDelegationToken = 6,
  kUser = 7,
};

// Kafka's PatternType codes. An ACL is LITERAL or PREFIXED; ANY and MATCH are for filters.
enum class PatternType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kMatch = 2,
  kLiteral = 3,
  kPrefixed = 4,
};

// Kafka's AclOperation codes. authorized_operations fields carry bit 1 << code.
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,
  kAll = 2,
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
  kCreateTokens = 13,
  kDescribeTokens = 14,
};

// Kafka's AclPermissionType codes.
enum class AclPermissionType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kDeny = 2,
  kAllow = 3,
};

// The CLUSTER resource's only name, the wildcard resource name, principal and host.
inline constexpr std::string_view kClusterResourceName = "kafka-cluster";
inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";

// Kafka's upper-case names ("TOPIC", "PREFIXED", "DESCRIBE_CONFIGS", "ALLOW"); "UNKNOWN" for a
// code Kafka does not define.
std::string_view ResourceTypeName(ResourceType t);
std::string_view PatternTypeName(PatternType t);
std::string_view AclOperationName(AclOperation o);
std::string_view AclPermissionTypeName(AclPermissionType p);
// Codes Kafka does not define read as kUnknown, as its fromCode does.
ResourceType ResourceTypeFromCode(int8_t code);
PatternType PatternTypeFromCode(int8_t code);
AclOperation AclOperationFromCode(int8_t code);
AclPermissionType AclPermissionTypeFromCode(int8_t code);

// One ACL: who (principal "Type:Name", host) may or may not do what (operation) on which
// resources (type, name, pattern).
struct AclBinding {
  ResourceType resource_type = ResourceType::kUnknown;
  std::string resource_name;
  PatternType pattern_type = PatternType::kLiteral;
  std::string principal;
  std::string host = std::string(kWildcardHost);
  AclOperation operation = AclOperation::kUnknown;
  AclPermissionType permission = AclPermissionType::kUnknown;

  bool operator==(const AclBinding&) const = default;
  auto operator<=>(const AclBinding&) const = default;
};

// Kafka's AclBindingFilter: ANY matches every type, operation or permission; a null name,
// principal or host every value. The pattern: ANY or the same type with the exact name; MATCH
// every ACL that applies to the named resource (LITERAL with that name or "*", PREFIXED with a
// prefix of it). No implied operations and no wildcard expansion of principals or hosts.
struct AclBindingFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermissionType permission = AclPermissionType::kAny;

  bool Matches(const AclBinding& acl) const;
};

// Whether `acl`'s resource pattern covers the resource `name` of its type: LITERAL with that
// name or "*", PREFIXED with a prefix of it (the whole name included).
bool PatternCovers(const AclBinding& acl, std::string_view name);

// The operations Kafka reports in authorized_operations for a resource type (its AclEntry
// supportedOperations), as the bit field 1 << code of each: TOPIC 3576, GROUP 3400, CLUSTER 8096.
int32_t SupportedOperationsMask(ResourceType type);

}  // namespace seglog

#endif  // SEGLOG_SECURITY_ACL_H_
