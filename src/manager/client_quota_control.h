// Client quotas as data: the entities quotas are set on, and Kafka 4.4.0's rules for changing and
// describing them (its ClientQuotaControlManager.alterClientQuotas and
// ClientQuotasImage.describe), as pure functions over the current quotas. The MetadataStore
// (manager/metadata_store.h) keeps the quotas as ClientQuotaRecords in the metadata log and calls
// these; the lookup the throttling uses is manager/client_quota_lookup.h. docs/design/quotas.md
// has the facts and where in Kafka each comes from.
//
// An entity is a map from entity type ("user", "client-id", "ip") to a name, a null name being
// the type's default entity ("<default>" in kafka-configs.sh). Kafka accepts user, client-id,
// user + client-id and ip entities; the keys each may carry:
//
//   user, client-id, both   producer_byte_rate (a long), consumer_byte_rate (a long),
//                           request_percentage (a double), controller_mutation_rate (a double)
//   ip                      connection_creation_rate (an int)
//
// Kafka keeps its maps in Java HashMaps, and which of several errors an alteration reports
// depends on their iteration order; JavaHashMapOrder reproduces it, so the same request gets the
// same answer here.
//
// Thread safety: value types and pure functions; distinct objects may be used from any thread.
#ifndef SEGLOG_MANAGER_CLIENT_QUOTA_CONTROL_H_
#define SEGLOG_MANAGER_CLIENT_QUOTA_CONTROL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seglog {

// Kafka's ClientQuotaEntity types.
inline constexpr const char* kQuotaEntityUser = "user";
inline constexpr const char* kQuotaEntityClientId = "client-id";
inline constexpr const char* kQuotaEntityIp = "ip";

// Kafka's QuotaConfig keys.
inline constexpr const char* kProducerByteRate = "producer_byte_rate";
inline constexpr const char* kConsumerByteRate = "consumer_byte_rate";
inline constexpr const char* kRequestPercentage = "request_percentage";
inline constexpr const char* kControllerMutationRate = "controller_mutation_rate";
inline constexpr const char* kConnectionCreationRate = "connection_creation_rate";

// A quota entity: entity type -> name (nullopt: the default entity of that type).
using ClientQuotaEntity = std::map<std::string, std::optional<std::string>>;
// Every entity with quotas, and its quotas by key.
using ClientQuotaMap = std::map<ClientQuotaEntity, std::map<std::string, double>>;

// Kafka's ClientQuotaEntity.toString of a request's entity: "ClientQuotaEntity(entries={client-id=
// c1, user=alice})", the entries in the order Kafka's HashMap gives them, a default as "null".
std::string ClientQuotaEntityString(const ClientQuotaEntity& entity);

// The order a java.util.HashMap created with `initial_capacity` iterates `keys` put in that order
// (duplicates after the first are ignored): by bucket of String.hashCode, then insertion.
std::vector<std::string> JavaHashMapOrder(const std::vector<std::string>& keys,
                                          size_t initial_capacity);

// Kafka's ApiError for one entity or one describe call: NONE, INVALID_REQUEST (Kafka's
// InvalidRequestException), UNSUPPORTED_VERSION or UNKNOWN_SERVER_ERROR, and its message.
struct ClientQuotaError {
  enum class Code { kNone, kInvalidRequest, kUnsupportedVersion, kUnknownServerError };
  Code code = Code::kNone;
  std::optional<std::string> message;

  bool ok() const { return code == Code::kNone; }
  static ClientQuotaError InvalidRequest(std::string message) {
    return {Code::kInvalidRequest, std::move(message)};
  }
  bool operator==(const ClientQuotaError&) const = default;
};

// One entry of an AlterClientQuotas request. The entity is the request's list of (type, name)
// pairs, as sent (Kafka makes a map of it: a type named twice keeps its last name).
struct ClientQuotaAlteration {
  struct Op {
    std::string key;
    double value = 0;
    bool remove = false;  // remove the key (the value is ignored)
  };
  std::vector<std::pair<std::string, std::optional<std::string>>> entity;
  std::vector<Op> ops;
};

// One ClientQuotaRecord to write: set `key` of `entity` to `value`, or remove it.
struct ClientQuotaChange {
  ClientQuotaEntity entity;
  std::string key;
  double value = 0;
  bool remove = false;
};

// What Kafka's controller decides for a batch of alterations: an error (or none) per distinct
// entity, in the order the entities first appear, and the records to write (none for an entity
// that fails; a value equal to the current one and the removal of an absent key write nothing).
struct ClientQuotaAlterationPlan {
  std::vector<std::pair<ClientQuotaEntity, ClientQuotaError>> results;
  std::vector<ClientQuotaChange> changes;
};
// `valid_ip` answers whether an ip entity's name is an address or resolves (Kafka's
// InetAddress.getByName); IsValidIpEntityName asks the resolver, so a caller holding a lock
// resolves the names first (IpEntityNames) and passes their answers.
ClientQuotaAlterationPlan PlanClientQuotaAlterations(
    const ClientQuotaMap& current, const std::vector<ClientQuotaAlteration>& alterations,
    const std::function<bool(const std::string&)>& valid_ip);
bool IsValidIpEntityName(const std::string& name);
// The names of the ip entities of `alterations`.
std::set<std::string> IpEntityNames(const std::vector<ClientQuotaAlteration>& alterations);

// The keys an entity may carry and their type; nullopt for an entity of no known shape.
enum class QuotaValueType { kLong, kDouble, kInt };
std::optional<std::map<std::string, QuotaValueType>> QuotaKeysFor(const ClientQuotaEntity& entity);

// A DescribeClientQuotas filter component: match_type 0 (EXACT: `match` names the entity), 1
// (DEFAULT: the default entity, `match` null) or 2 (SPECIFIED: any entity of the type, `match`
// null).
inline constexpr int8_t kQuotaMatchExact = 0;
inline constexpr int8_t kQuotaMatchDefault = 1;
inline constexpr int8_t kQuotaMatchSpecified = 2;
struct ClientQuotaFilterComponent {
  std::string entity_type;
  int8_t match_type = kQuotaMatchExact;
  std::optional<std::string> match;
};
struct ClientQuotaFilter {
  std::vector<ClientQuotaFilterComponent> components;
  bool strict = false;  // only entities with no other entity types than the components'
};

// The entities `filter` matches with their quotas (Kafka's ClientQuotasImage.describe), or the
// error Kafka answers a bad filter with (the whole request fails).
struct ClientQuotaDescription {
  ClientQuotaError error;
  std::vector<std::pair<ClientQuotaEntity, std::map<std::string, double>>> entries;
};
ClientQuotaDescription DescribeClientQuotas(const ClientQuotaMap& quotas,
                                            const ClientQuotaFilter& filter);

// Applies `changes` to `quotas` as Kafka's replay of ClientQuotaRecords does (an entity whose
// last key is removed is gone).
void ApplyClientQuotaChanges(const std::vector<ClientQuotaChange>& changes, ClientQuotaMap* quotas);

}  // namespace seglog

#endif  // SEGLOG_MANAGER_CLIENT_QUOTA_CONTROL_H_
