// Kafka's client quota rules (see the header).
#include "manager/client_quota_control.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace seglog {

namespace {

// Java's String.hashCode over the UTF-16 code units of a UTF-8 string (bytes that are not valid
// UTF-8 count as one unit each).
int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;
  auto unit = [&h](uint32_t u) { h = 31 * h + u; };
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      unit(b);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      unit(0xd800 + (cp >> 10));
      unit(0xdc00 + (cp & 0x3ff));
    } else {
      unit(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

std::string JavaNameString(const std::optional<std::string>& name) {
  return name.has_value() ? *name : "null";
}

// The types of an entity in the order Kafka's HashMap, built from the request's list of pairs,
// iterates them.
std::vector<std::string> EntityTypeOrder(const ClientQuotaEntity& entity) {
  std::vector<std::string> types;
  for (const auto& [type, name] : entity) types.push_back(type);
  return JavaHashMapOrder(types, types.size());
}

ClientQuotaEntity EntityOf(const ClientQuotaAlteration& a) {
  ClientQuotaEntity e;
  for (const auto& [type, name] : a.entity) e[type] = name;  // Kafka's HashMap: the last wins
  return e;
}

}  // namespace

bool IsValidIpEntityName(const std::string& name) {
  std::string host = name;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned char buf[sizeof(struct in6_addr)];
  if (inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1) {
    return true;
  }
  struct addrinfo hints;
  std::memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  struct addrinfo* res = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (res != nullptr) freeaddrinfo(res);
  return rc == 0;
}

std::set<std::string> IpEntityNames(const std::vector<ClientQuotaAlteration>& alterations) {
  std::set<std::string> out;
  for (const ClientQuotaAlteration& a : alterations) {
    for (const auto& [type, name] : a.entity) {
      if (type == kQuotaEntityIp && name.has_value()) out.insert(*name);
    }
  }
  return out;
}

namespace {

// Kafka's validateEntity: the types in its HashMap's order.
ClientQuotaError ValidateEntity(const ClientQuotaEntity& entity) {
  if (entity.empty()) return ClientQuotaError::InvalidRequest("Invalid empty client quota entity");
  for (const std::string& type : EntityTypeOrder(entity)) {
    if (type != kQuotaEntityUser && type != kQuotaEntityClientId && type != kQuotaEntityIp) {
      return ClientQuotaError::InvalidRequest("Unhandled client quota entity type: " + type);
    }
    const auto& name = entity.at(type);
    if (name.has_value() && name->empty()) {
      return ClientQuotaError::InvalidRequest("Empty " + type + " not supported");
    }
  }
  return {};
}

ClientQuotaError IntegralQuotaError(double value, const std::string& key) {
  if (std::fabs(std::fmod(value, 1.0)) > 1e-6) {
    return ClientQuotaError::InvalidRequest(key + " cannot be a fractional value.");
  }
  return {};
}

// Kafka's validateQuotaKeyValue.
ClientQuotaError ValidateQuotaKeyValue(const std::map<std::string, QuotaValueType>& keys,
                                       const std::string& key, double value) {
  auto it = keys.find(key);
  if (it == keys.end()) return ClientQuotaError::InvalidRequest("Invalid configuration key " + key);
  if (!std::isfinite(value)) {
    return ClientQuotaError::InvalidRequest("Quota " + key + " must be a finite number");
  }
  if (value <= 0.0) {
    return ClientQuotaError::InvalidRequest("Quota " + key + " must be greater than 0");
  }
  switch (it->second) {
    case QuotaValueType::kDouble:
      return {};
    case QuotaValueType::kInt:
      if (value > 2147483647.0) {
        return ClientQuotaError::InvalidRequest("Proposed value for " + key +
                                                " is too large for an INT.");
      }
      return IntegralQuotaError(value, key);
    case QuotaValueType::kLong:
      // Java compares with (double) Long.MAX_VALUE, 2^63.
      if (value > 9223372036854775807.0) {
        return ClientQuotaError::InvalidRequest("Proposed value for " + key +
                                                " is too large for a LONG.");
      }
      return IntegralQuotaError(value, key);
  }
  return {};
}

// Java's Objects.equals of two Doubles: the same bits (NaN equals NaN, 0.0 is not -0.0).
bool SameDouble(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof(x));
  std::memcpy(&y, &b, sizeof(y));
  return x == y;
}

// Kafka's alterClientQuotaEntity: an error, or the entity's records appended to `changes`.
ClientQuotaError AlterEntity(const ClientQuotaMap& current, const ClientQuotaEntity& entity,
                             const std::function<bool(const std::string&)>& valid_ip,
                             const std::vector<std::string>& key_order,
                             const std::map<std::string, std::optional<double>>& ops,
                             std::vector<ClientQuotaChange>* changes) {
  if (ClientQuotaError e = ValidateEntity(entity); !e.ok()) return e;
  const bool ip = entity.count(kQuotaEntityIp) > 0;
  if (ip && (entity.count(kQuotaEntityUser) || entity.count(kQuotaEntityClientId))) {
    // (Kafka's words, the missing space included.)
    return ClientQuotaError::InvalidRequest(
        "Invalid quota entity combination, IP entity shouldnot be combined with User or "
        "ClientId");
  }
  if (ip && entity.at(kQuotaEntityIp).has_value() && !valid_ip(*entity.at(kQuotaEntityIp))) {
    return ClientQuotaError::InvalidRequest(*entity.at(kQuotaEntityIp) +
                                            " is not a valid IP or resolvable host.");
  }
  const auto keys = QuotaKeysFor(entity);
  if (!keys.has_value()) {
    return ClientQuotaError::InvalidRequest("Invalid empty client quota entity");
  }
  static const std::map<std::string, double> kNone;
  auto found = current.find(entity);
  const auto& now = found != current.end() ? found->second : kNone;
  std::vector<ClientQuotaChange> out;
  for (const std::string& key : key_order) {
    const std::optional<double>& value = ops.at(key);
    auto have = now.find(key);
    if (!value.has_value()) {
      if (have != now.end()) out.push_back({entity, key, 0, true});
      continue;
    }
    if (ClientQuotaError e = ValidateQuotaKeyValue(*keys, key, *value); !e.ok()) return e;
    if (have == now.end() || !SameDouble(have->second, *value)) {
      out.push_back({entity, key, *value, false});
    }
  }
  for (ClientQuotaChange& c : out) changes->push_back(std::move(c));
  return {};
}

bool IsKnownEntityType(const std::string& type) {
  return type == kQuotaEntityUser || type == kQuotaEntityClientId || type == kQuotaEntityIp;
}

}  // namespace

std::vector<std::string> JavaHashMapOrder(const std::vector<std::string>& keys,
                                          size_t initial_capacity) {
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& k : keys) {
    if (seen.insert(k).second) unique.push_back(k);
  }
  // HashMap(initialCapacity): the first table has tableSizeFor(initialCapacity) buckets, its
  // threshold 0.75 of that; each put past the threshold doubles the table.
  size_t n = 1;
  while (n < initial_capacity) n <<= 1;
  size_t threshold = n * 3 / 4;
  for (size_t size = 1; size <= unique.size(); ++size) {
    if (size > threshold) {
      n <<= 1;
      threshold = n * 3 / 4;
    }
  }
  std::vector<std::pair<uint32_t, size_t>> order;  // (bucket, insertion index)
  for (size_t i = 0; i < unique.size(); ++i) {
    const auto h = static_cast<uint32_t>(JavaStringHash(unique[i]));
    order.emplace_back((h ^ (h >> 16)) & static_cast<uint32_t>(n - 1), i);
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (const auto& [bucket, i] : order) out.push_back(unique[i]);
  return out;
}

std::string ClientQuotaEntityString(const ClientQuotaEntity& entity) {
  std::string out = "ClientQuotaEntity(entries={";
  bool first = true;
  for (const std::string& type : EntityTypeOrder(entity)) {
    if (!first) out += ", ";
    first = false;
    out += type + "=" + JavaNameString(entity.at(type));
  }
  return out + "})";
}

std::optional<std::map<std::string, QuotaValueType>> QuotaKeysFor(const ClientQuotaEntity& entity) {
  const bool user = entity.count(kQuotaEntityUser) > 0;
  const bool client = entity.count(kQuotaEntityClientId) > 0;
  const bool ip = entity.count(kQuotaEntityIp) > 0;
  if (ip && !user && !client && entity.size() == 1) {
    return std::map<std::string, QuotaValueType>{{kConnectionCreationRate, QuotaValueType::kInt}};
  }
  if (!ip && (user || client) && entity.size() == static_cast<size_t>(user) + client) {
    return std::map<std::string, QuotaValueType>{
        {kProducerByteRate, QuotaValueType::kLong},
        {kConsumerByteRate, QuotaValueType::kLong},
        {kRequestPercentage, QuotaValueType::kDouble},
        {kControllerMutationRate, QuotaValueType::kDouble}};
  }
  return std::nullopt;
}

ClientQuotaAlterationPlan PlanClientQuotaAlterations(
    const ClientQuotaMap& current, const std::vector<ClientQuotaAlteration>& alterations,
    const std::function<bool(const std::string&)>& valid_ip) {
  ClientQuotaAlterationPlan plan;
  auto result_of = [&plan](const ClientQuotaEntity& e) -> ClientQuotaError* {
    for (auto& [entity, error] : plan.results) {
      if (entity == e) return &error;
    }
    return nullptr;
  };
  auto set_result = [&](const ClientQuotaEntity& e, ClientQuotaError error) {
    if (ClientQuotaError* r = result_of(e)) {
      *r = std::move(error);
    } else {
      plan.results.emplace_back(e, std::move(error));
    }
  };
  for (const ClientQuotaAlteration& a : alterations) {
    const ClientQuotaEntity entity = EntityOf(a);
    std::map<std::string, std::optional<double>> ops;
    std::vector<std::string> keys;
    for (const ClientQuotaAlteration::Op& op : a.ops) {
      if (ops.count(op.key)) {
        set_result(entity, ClientQuotaError::InvalidRequest(
                               fmt::format("Duplicate quota key {} not updating quota for this "
                                           "entity {}",
                                           op.key, ClientQuotaEntityString(entity))));
        continue;
      }
      ops[op.key] = op.remove ? std::nullopt : std::optional<double>(op.value);
      keys.push_back(op.key);
    }
    // A duplicate key, or an entity seen before, ends the same way: Kafka finds the entity in
    // its results already.
    if (result_of(entity) != nullptr) {
      set_result(entity, ClientQuotaError::InvalidRequest("Ignoring duplicate entity " +
                                                          ClientQuotaEntityString(entity)));
      continue;
    }
    set_result(entity, AlterEntity(current, entity, valid_ip, JavaHashMapOrder(keys, a.ops.size()),
                                   ops, &plan.changes));
  }
  return plan;
}

ClientQuotaDescription DescribeClientQuotas(const ClientQuotaMap& quotas,
                                            const ClientQuotaFilter& filter) {
  ClientQuotaDescription out;
  std::map<std::string, std::optional<std::string>> exact;
  std::set<std::string> specified;
  auto fail = [&out](ClientQuotaError::Code code, std::string message) {
    out.error = {code, std::move(message)};
    return out;
  };
  using Code = ClientQuotaError::Code;
  for (const ClientQuotaFilterComponent& c : filter.components) {
    if (c.entity_type.empty()) return fail(Code::kInvalidRequest, "Invalid empty entity type.");
    if (exact.count(c.entity_type) || specified.count(c.entity_type)) {
      return fail(Code::kInvalidRequest,
                  "Entity type " + c.entity_type + " cannot appear more than once in the filter.");
    }
    if (!IsKnownEntityType(c.entity_type)) {
      return fail(Code::kUnsupportedVersion, "Unsupported entity type " + c.entity_type);
    }
    switch (c.match_type) {
      case kQuotaMatchExact:
        if (!c.match.has_value()) {
          return fail(Code::kInvalidRequest,
                      "Request specified MATCH_TYPE_EXACT, but set match string to null.");
        }
        exact[c.entity_type] = c.match;
        break;
      case kQuotaMatchDefault:
        if (c.match.has_value()) {
          return fail(Code::kInvalidRequest,
                      "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
        }
        exact[c.entity_type] = std::nullopt;
        break;
      case kQuotaMatchSpecified:
        if (c.match.has_value()) {
          return fail(Code::kInvalidRequest,
                      "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
        }
        specified.insert(c.entity_type);
        break;
      default:
        return fail(Code::kInvalidRequest, fmt::format("Unknown match type {}", c.match_type));
    }
  }
  const bool ip = exact.count(kQuotaEntityIp) || specified.count(kQuotaEntityIp);
  const bool user_or_client = exact.count(kQuotaEntityUser) || specified.count(kQuotaEntityUser) ||
                              exact.count(kQuotaEntityClientId) ||
                              specified.count(kQuotaEntityClientId);
  if (ip && user_or_client) {
    return fail(Code::kInvalidRequest,
                "Invalid entity filter component combination. IP filter component should not be "
                "used with user or clientId filter component.");
  }
  for (const auto& [entity, values] : quotas) {
    if (filter.strict && entity.size() != exact.size() + specified.size()) continue;
    bool match = true;
    for (const auto& [type, name] : exact) {
      auto it = entity.find(type);
      if (it == entity.end() || it->second != name) {
        match = false;
        break;
      }
    }
    for (const std::string& type : specified) {
      if (!match) break;
      if (!entity.count(type)) match = false;
    }
    if (match) out.entries.emplace_back(entity, values);
  }
  return out;
}

void ApplyClientQuotaChanges(const std::vector<ClientQuotaChange>& changes,
                             ClientQuotaMap* quotas) {
  for (const ClientQuotaChange& c : changes) {
    if (c.remove) {
      auto it = quotas->find(c.entity);
      if (it == quotas->end()) continue;
      it->second.erase(c.key);
      if (it->second.empty()) quotas->erase(it);
    } else {
      (*quotas)[c.entity][c.key] = c.value;
    }
  }
}

}  // namespace seglog
