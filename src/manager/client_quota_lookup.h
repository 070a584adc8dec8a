// ClientQuotaSnapshot: the client quotas as the throttling reads them on every request - for a
// quota type, a client's user principal name and client id, the quota that applies and the
// metric tags of the sensor that counts the client's rate (Kafka's ClientQuotaManager with its
// DefaultQuotaCallback: quotaMetricTags, then quotaLimit of those tags).
//
// The precedence, most specific first (Kafka's /config paths):
//
//   1 /config/users/<user>/clients/<client-id>      5 /config/users/<default>/clients/<default>
//   2 /config/users/<user>/clients/<default>        6 /config/users/<default>
//   3 /config/users/<user>                          7 /config/clients/<client-id>
//   4 /config/users/<default>/clients/<client-id>   8 /config/clients/<default>
//
// Kafka first picks the sensor's tags (user tag, client-id tag) from the levels that exist, then
// the limit from the tags: both tags set reads levels 1, 2, 4, 5; the user tag alone 3, 6; the
// client-id tag alone 7, 8. Clients with the same tags share one rate: with only client-id
// quotas every user's "app" counts as one client, with a user quota all of a user's clients
// count as one. The user tag is the principal's name as Kafka's Sanitizer.sanitize writes it
// (URL-encoded, "*" as %2A, " " as %20); the principal of an unauthenticated client is
// "ANONYMOUS", a user like any other (User:ANONYMOUS gets the <default> user's quota).
//
// A snapshot is immutable, built from the quotas when they change (MetadataStore::ClientQuotas),
// each with a larger version() than the last, so a caller may keep one and swap it when
// MetadataStore::client_quotas_version() moves. A lookup is a few hash lookups.
//
// Thread safety: immutable after Build; any thread may call its const methods.
#ifndef SEGLOG_MANAGER_CLIENT_QUOTA_LOOKUP_H_
#define SEGLOG_MANAGER_CLIENT_QUOTA_LOOKUP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "manager/client_quota_control.h"

namespace seglog {

// Kafka's ClientQuotaType: which quota manager, and the key of its quota.
enum class ClientQuotaType {
  kProduce,             // producer_byte_rate
  kFetch,               // consumer_byte_rate
  kRequest,             // request_percentage
  kControllerMutation,  // controller_mutation_rate
};
inline constexpr int kClientQuotaTypes = 4;
const char* ClientQuotaKey(ClientQuotaType type);

// Kafka's Sanitizer.sanitize: the form of a user principal's name in quota metric tags.
std::string SanitizeQuotaUser(std::string_view name);

// The answer of a lookup: the sensor's tags, and the quota (nullopt: none, Kafka's unbounded
// Long.MAX_VALUE) for them.
struct ClientQuotaLimit {
  std::optional<double> limit;
  std::string user_tag;       // "user" tag: the sanitized principal name, or ""
  std::string client_id_tag;  // "client-id" tag: the client id, or ""
  bool operator==(const ClientQuotaLimit&) const = default;
};

class ClientQuotaSnapshot {
 public:
  static std::shared_ptr<const ClientQuotaSnapshot> Build(const ClientQuotaMap& quotas,
                                                          uint64_t version);
  static std::shared_ptr<const ClientQuotaSnapshot> Empty();

  uint64_t version() const { return version_; }
  // Every entity with quotas (ip entities too), as AlterClientQuotas left them.
  const ClientQuotaMap& quotas() const { return quotas_; }

  // Whether any user or client-id quota of `type` exists (Kafka's quotasEnabled: without one
  // Kafka records no rate for the type at all).
  bool enabled(ClientQuotaType type) const;
  // The quota of `type` for a client of user principal `user` (its name, unsanitized:
  // "ANONYMOUS" without authentication) and `client_id`, and its sensor's tags.
  ClientQuotaLimit Lookup(ClientQuotaType type, std::string_view user,
                          std::string_view client_id) const;
  // The connection_creation_rate of a client address: its ip entity's, else the default ip
  // entity's (Kafka's ConnectionQuotas.connectionRateForIp); nullopt: unlimited.
  std::optional<double> IpConnectionRate(const std::string& address) const;
  // Kafka's quotaLimit alone: the quota of the sensor with these tags (user tag sanitized).
  std::optional<double> LimitOfTags(ClientQuotaType type, std::string_view user_tag,
                                    std::string_view client_id_tag) const;

 private:
  ClientQuotaSnapshot() = default;
  // A user or client-id part of an entity: absent, the default, or a name.
  enum class Part : char { kAbsent = 'a', kDefault = 'd', kName = 'n' };
  static std::string Key(Part user, std::string_view sanitized_user, Part client,
                         std::string_view client_id);
  const double* Find(ClientQuotaType type, Part user, std::string_view sanitized_user, Part client,
                     std::string_view client_id) const;

  uint64_t version_ = 0;
  ClientQuotaMap quotas_;
  // Per type: entity key -> value; and which shapes exist (Kafka's quotaTypesEnabled bits:
  // 1 client-id, 2 user, 4 user + client-id).
  std::unordered_map<std::string, double> values_[kClientQuotaTypes];
  int shapes_[kClientQuotaTypes] = {};
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_CLIENT_QUOTA_LOOKUP_H_
