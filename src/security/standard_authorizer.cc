// StandardAuthorizer (standard_authorizer.h).
#include "security/standard_authorizer.h"

#include "security/cidr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace seglog {
namespace {

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// An ACL's principal applies to the request's when it is the same "Type:Name" or User:*.
bool PrincipalMatches(const std::string& acl, const std::string& request) {
  return acl == request || acl == kWildcardPrincipal;
}

// `*`, the client's address, or (Kafka 4.4) a CIDR range holding it.
bool HostMatches(const std::string& acl, const std::string& request) {
  if (acl == kWildcardHost || acl == request) return true;
  return acl.find('/') != std::string::npos && AddressInCidr(request, acl);
}

// Whether an ALLOW of `granted` allows `requested`, Kafka's implied operations included.
bool AllowCovers(AclOperation granted, AclOperation requested) {
  if (granted == AclOperation::kAll || granted == requested) return true;
  if (requested == AclOperation::kDescribe) {
    return granted == AclOperation::kRead || granted == AclOperation::kWrite ||
           granted == AclOperation::kDelete || granted == AclOperation::kAlter;
  }
  return requested == AclOperation::kDescribeConfigs && granted == AclOperation::kAlterConfigs;
}

bool IsAllow(const AclBinding& acl) { return acl.permission == AclPermissionType::kAllow; }

}  // namespace

Result<AuthorizerOptions> AuthorizerOptions::FromProperties(
    const std::map<std::string, std::string>& props) {
  AuthorizerOptions o;
  if (auto it = props.find("super.users"); it != props.end()) {
    std::string_view rest = it->second;
    while (true) {
      const size_t semi = rest.find(';');
      const std::string piece = Trim(rest.substr(0, semi));
      if (!piece.empty()) {
        if (piece.find(':') == std::string::npos) {
          return Status::InvalidArgument(fmt::format(
              "expected a string in format principalType:principalName but got {}", piece));
        }
        o.super_users.insert(piece);
      }
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
  }
  if (auto it = props.find("allow.everyone.if.no.acl.found"); it != props.end()) {
    std::string v = Trim(it->second);
    std::transform(v.begin(), v.end(), v.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    o.allow_everyone_if_no_acl_found = v == "true";
  }
  return o;
}

StandardAuthorizer::StandardAuthorizer(AuthorizerOptions options)
    : options_(std::move(options)), index_(std::make_shared<const Index>()) {}

void StandardAuthorizer::SetAcls(const std::map<Uuid, AclBinding>& acls) {
  auto next = std::make_shared<Index>();
  next->by_id = acls;
  for (const auto& [id, acl] : acls) {
    auto& section = acl.pattern_type == PatternType::kPrefixed ? next->prefixed : next->literal;
    if (acl.pattern_type != PatternType::kPrefixed && acl.pattern_type != PatternType::kLiteral) {
      continue;  // not an ACL pattern (the metadata log never holds one)
    }
    section[acl.resource_type][acl.resource_name].push_back(acl);
  }
  std::shared_ptr<const Index> frozen = std::move(next);
  MutexLock l(&mu_);
  index_ = std::move(frozen);
}

std::shared_ptr<const StandardAuthorizer::Index> StandardAuthorizer::Snapshot() const {
  MutexLock l(&mu_);
  return index_;
}

bool StandardAuthorizer::IsSuperUser(const RequestPrincipal& who) const {
  return options_.super_users.count(who.principal) > 0;
}

bool StandardAuthorizer::Authorize(const RequestPrincipal& who, AclOperation operation,
                                   ResourceType type, std::string_view name) const {
  if (IsSuperUser(who)) return true;
  const std::shared_ptr<const Index> index = Snapshot();
  bool covered = false, allowed = false, denied = false;
  auto judge = [&](const std::vector<AclBinding>& acls) {
    for (const AclBinding& acl : acls) {
      covered = true;  // any ACL on the resource, whoever it is for
      if (!PrincipalMatches(acl.principal, who.principal) || !HostMatches(acl.host, who.host)) {
        continue;
      }
      if (!IsAllow(acl)) {
        denied |= acl.operation == operation || acl.operation == AclOperation::kAll;
      } else {
        allowed |= AllowCovers(acl.operation, operation);
      }
    }
  };
  auto section = [&](const auto& by_type, std::string_view key) {
    auto t = by_type.find(type);
    if (t == by_type.end()) return;
    if (auto it = t->second.find(key); it != t->second.end()) judge(it->second);
  };
  section(index->literal, name);
  if (name != kWildcardResource) section(index->literal, kWildcardResource);
  for (size_t len = 0; len <= name.size(); ++len) section(index->prefixed, name.substr(0, len));
  if (denied) return false;
  if (allowed) return true;
  return !covered && options_.allow_everyone_if_no_acl_found;
}

bool StandardAuthorizer::AuthorizeByResourceType(const RequestPrincipal& who,
                                                 AclOperation operation, ResourceType type) const {
  // A resource no ACL names: super users and the no-ACL default decide as for any resource.
  if (Authorize(who, operation, type, "hardcode")) return true;
  const std::shared_ptr<const Index> index = Snapshot();
  std::set<std::string> deny_literal, deny_prefixed, allow_literal, allow_prefixed;
  bool allow_all = false;
  for (const auto* by_type : {&index->literal, &index->prefixed}) {
    auto t = by_type->find(type);
    if (t == by_type->end()) continue;
    for (const auto& [name, acls] : t->second) {
      for (const AclBinding& acl : acls) {
        if (!PrincipalMatches(acl.principal, who.principal) || !HostMatches(acl.host, who.host) ||
            (acl.operation != operation && acl.operation != AclOperation::kAll)) {
          continue;
        }
        const bool literal = acl.pattern_type == PatternType::kLiteral;
        if (!IsAllow(acl)) {
          if (literal && name == kWildcardResource) return false;
          (literal ? deny_literal : deny_prefixed).insert(name);
        } else if (literal && name == kWildcardResource) {
          allow_all = true;
        } else {
          (literal ? allow_literal : allow_prefixed).insert(name);
        }
      }
    }
  }
  if (allow_all) return true;
  auto denied_by_prefix = [&](const std::string& name) {
    return std::any_of(deny_prefixed.begin(), deny_prefixed.end(),
                       [&](const std::string& p) { return name.compare(0, p.size(), p) == 0; });
  };
  for (const std::string& name : allow_literal) {
    if (!deny_literal.count(name) && !denied_by_prefix(name)) return true;
  }
  for (const std::string& name : allow_prefixed) {
    if (!denied_by_prefix(name)) return true;
  }
  return false;
}

int32_t StandardAuthorizer::AuthorizedOperations(const RequestPrincipal& who, ResourceType type,
                                                 std::string_view name) const {
  const int32_t supported = SupportedOperationsMask(type);
  int32_t out = 0;
  for (int code = 0; code < 31; ++code) {
    if ((supported & (int32_t{1} << code)) == 0) continue;
    if (Authorize(who, static_cast<AclOperation>(code), type, name)) out |= int32_t{1} << code;
  }
  return out;
}

std::vector<std::pair<Uuid, AclBinding>> StandardAuthorizer::Acls(
    const AclBindingFilter& filter) const {
  const std::shared_ptr<const Index> index = Snapshot();
  std::vector<std::pair<Uuid, AclBinding>> out;
  for (const auto& [id, acl] : index->by_id) {
    if (filter.Matches(acl)) out.emplace_back(id, acl);
  }
  return out;
}

}  // namespace seglog
