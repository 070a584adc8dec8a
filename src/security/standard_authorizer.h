// StandardAuthorizer: Kafka 4.4's ACL decisions (its StandardAuthorizer, the one
// `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer` names) over a
// set of ACLs - in seglog those of the metadata log (AccessControlEntryRecord).
//
// A request (principal "Type:Name", client host, operation, resource type and name) is:
//   1. allowed for a super user (super.users, exact "Type:Name"), whatever the ACLs say;
//   2. otherwise judged by the ACLs that cover the resource - LITERAL with its name, LITERAL "*",
//      PREFIXED with a prefix of its name - and whose principal is the request's or "User:*" and
//      whose host is the client's address or "*":
//        a DENY of the operation (or ALL) denies;
//        else an ALLOW of the operation (or ALL) allows; an ALLOW of READ, WRITE, DELETE or ALTER
//        also allows DESCRIBE, one of ALTER_CONFIGS also DESCRIBE_CONFIGS (a DENY implies
//        nothing);
//   3. with none of those: allowed when no ACL at all covers the resource and
//      allow.everyone.if.no.acl.found is true, else denied (an ACL on the resource for someone
//      else still denies).
// AuthorizeByResourceType is Kafka's Authorizer default of the same name (InitProducerId
// without a transactional id asks whether WRITE is allowed on any topic).
//
// Thread safety: thread-safe. SetAcls swaps an immutable snapshot under mu_; a decision takes
// the snapshot and decides without the lock.
#ifndef SEGLOG_SECURITY_STANDARD_AUTHORIZER_H_
#define SEGLOG_SECURITY_STANDARD_AUTHORIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/uuid.h"
#include "security/acl.h"
#include "seglog/result.h"

namespace seglog {

struct AuthorizerOptions {
  std::set<std::string> super_users;            // "Type:Name", as written
  bool allow_everyone_if_no_acl_found = false;  // allow.everyone.if.no.acl.found

  // super.users (';'-separated, each "Type:Name"; blanks skipped) and
  // allow.everyone.if.no.acl.found (true only for "true", any case), with Kafka's message for a
  // super user without a type.
  static Result<AuthorizerOptions> FromProperties(const std::map<std::string, std::string>& props);
};

// The client a decision is for.
struct RequestPrincipal {
  std::string principal;  // "User:alice"; "User:ANONYMOUS" on a PLAINTEXT listener
  std::string host;       // the client's IP address as text
};

class StandardAuthorizer {
 public:
  explicit StandardAuthorizer(AuthorizerOptions options);

  // Replaces every ACL (id -> ACL), as the metadata log's image holds them.
  void SetAcls(const std::map<Uuid, AclBinding>& acls) EXCLUDES(mu_);

  bool Authorize(const RequestPrincipal& who, AclOperation operation, ResourceType type,
                 std::string_view name) const EXCLUDES(mu_);
  // Whether `operation` is allowed on some resource of `type` (Kafka's Authorizer
  // authorizeByResourceType: no implied operations; a DENY of a prefix or of the name hides an
  // ALLOW under it; LITERAL "*" decides at once).
  bool AuthorizeByResourceType(const RequestPrincipal& who, AclOperation operation,
                               ResourceType type) const EXCLUDES(mu_);
  // authorized_operations: bit 1 << code of each operation `type` supports that is allowed.
  int32_t AuthorizedOperations(const RequestPrincipal& who, ResourceType type,
                               std::string_view name) const EXCLUDES(mu_);
  // The ACLs `filter` matches, by id.
  std::vector<std::pair<Uuid, AclBinding>> Acls(const AclBindingFilter& filter) const EXCLUDES(mu_);

  const AuthorizerOptions& options() const { return options_; }

 private:
  // The ACLs by resource type, then pattern, then name.
  struct Index {
    std::map<ResourceType, std::map<std::string, std::vector<AclBinding>, std::less<>>> literal;
    std::map<ResourceType, std::map<std::string, std::vector<AclBinding>, std::less<>>> prefixed;
    std::map<Uuid, AclBinding> by_id;
  };
  std::shared_ptr<const Index> Snapshot() const EXCLUDES(mu_);
  bool IsSuperUser(const RequestPrincipal& who) const;

  const AuthorizerOptions options_;
  mutable Mutex mu_;
  std::shared_ptr<const Index> index_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_SECURITY_STANDARD_AUTHORIZER_H_
