// ClientQuotaSnapshot (see the header).
#include "manager/client_quota_lookup.h"

namespace seglog {

namespace {

constexpr int kClientIdShape = 1;      // Kafka's CLIENT_ID_QUOTA_ENABLED
constexpr int kUserShape = 2;          // USER_QUOTA_ENABLED
constexpr int kUserClientIdShape = 4;  // USER_CLIENT_ID_QUOTA_ENABLED

constexpr ClientQuotaType kTypes[kClientQuotaTypes] = {
    ClientQuotaType::kProduce, ClientQuotaType::kFetch, ClientQuotaType::kRequest,
    ClientQuotaType::kControllerMutation};

}  // namespace

const char* ClientQuotaKey(ClientQuotaType type) {
  switch (type) {
    case ClientQuotaType::kProduce:
      return kProducerByteRate;
    case ClientQuotaType::kFetch:
      return kConsumerByteRate;
    case ClientQuotaType::kRequest:
      return kRequestPercentage;
    case ClientQuotaType::kControllerMutation:
      return kControllerMutationRate;
  }
  return "";
}

std::string SanitizeQuotaUser(std::string_view name) {
  // Java's URLEncoder (UTF-8): letters, digits and ".-*_" stay, " " becomes "+", every other
  // byte %XX; then Kafka writes "*" as %2A and "+" as %20.
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '_') {
      out.push_back(ch);
    } else if (c == '*') {
      out += "%2A";
    } else if (c == ' ') {
      out += "%20";
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

std::shared_ptr<const ClientQuotaSnapshot> ClientQuotaSnapshot::Empty() {
  static const std::shared_ptr<const ClientQuotaSnapshot> empty = Build({}, 0);
  return empty;
}

std::optional<double> ClientQuotaSnapshot::IpConnectionRate(const std::string& address) const {
  for (const std::optional<std::string>& name :
       {std::optional<std::string>(address), std::optional<std::string>()}) {
    auto it = quotas_.find(ClientQuotaEntity{{kQuotaEntityIp, name}});
    if (it == quotas_.end()) continue;
    auto v = it->second.find(kConnectionCreationRate);
    if (v != it->second.end()) return v->second;
  }
  return std::nullopt;
}

std::shared_ptr<const ClientQuotaSnapshot> ClientQuotaSnapshot::Build(const ClientQuotaMap& quotas,
                                                                      uint64_t version) {
  std::shared_ptr<ClientQuotaSnapshot> s(new ClientQuotaSnapshot());
  s->version_ = version;
  s->quotas_ = quotas;
  for (const auto& [entity, values] : quotas) {
    if (entity.count(kQuotaEntityIp)) continue;  // connection quotas: not these types
    auto user = entity.find(kQuotaEntityUser);
    auto client = entity.find(kQuotaEntityClientId);
    const Part u = user == entity.end()       ? Part::kAbsent
                   : user->second.has_value() ? Part::kName
                                              : Part::kDefault;
    const Part c = client == entity.end()       ? Part::kAbsent
                   : client->second.has_value() ? Part::kName
                                                : Part::kDefault;
    if (u == Part::kAbsent && c == Part::kAbsent) continue;
    const std::string sanitized = u == Part::kName ? SanitizeQuotaUser(*user->second) : "";
    const std::string client_id = c == Part::kName ? *client->second : "";
    const int shape = u == Part::kAbsent   ? kClientIdShape
                      : c == Part::kAbsent ? kUserShape
                                           : kUserClientIdShape;
    for (int t = 0; t < kClientQuotaTypes; ++t) {
      auto v = values.find(ClientQuotaKey(kTypes[t]));
      if (v == values.end()) continue;
      s->values_[t][Key(u, sanitized, c, client_id)] = v->second;
      s->shapes_[t] |= shape;
    }
  }
  return s;
}

std::string ClientQuotaSnapshot::Key(Part user, std::string_view sanitized_user, Part client,
                                     std::string_view client_id) {
  // A sanitized name has no NUL, so the separator is unambiguous.
  std::string key;
  key.reserve(3 + sanitized_user.size() + client_id.size());
  key.push_back(static_cast<char>(user));
  key.push_back(static_cast<char>(client));
  if (user == Part::kName) key.append(sanitized_user);
  key.push_back('\0');
  if (client == Part::kName) key.append(client_id);
  return key;
}

const double* ClientQuotaSnapshot::Find(ClientQuotaType type, Part user,
                                        std::string_view sanitized_user, Part client,
                                        std::string_view client_id) const {
  const auto& values = values_[static_cast<int>(type)];
  if (values.empty()) return nullptr;
  auto it = values.find(Key(user, sanitized_user, client, client_id));
  return it == values.end() ? nullptr : &it->second;
}

bool ClientQuotaSnapshot::enabled(ClientQuotaType type) const {
  return shapes_[static_cast<int>(type)] != 0;
}

std::optional<double> ClientQuotaSnapshot::LimitOfTags(ClientQuotaType type, std::string_view user,
                                                       std::string_view client) const {
  // Kafka's DefaultQuotaCallback.quotaLimit.
  const double* found = nullptr;
  if (!user.empty() && !client.empty()) {
    found = Find(type, Part::kName, user, Part::kName, client);
    if (!found) found = Find(type, Part::kName, user, Part::kDefault, {});
    if (!found) found = Find(type, Part::kDefault, {}, Part::kName, client);
    if (!found) found = Find(type, Part::kDefault, {}, Part::kDefault, {});
  } else if (!user.empty()) {
    found = Find(type, Part::kName, user, Part::kAbsent, {});
    if (!found) found = Find(type, Part::kDefault, {}, Part::kAbsent, {});
  } else if (!client.empty()) {
    found = Find(type, Part::kAbsent, {}, Part::kName, client);
    if (!found) found = Find(type, Part::kAbsent, {}, Part::kDefault, {});
  }
  return found ? std::optional<double>(*found) : std::nullopt;
}

ClientQuotaLimit ClientQuotaSnapshot::Lookup(ClientQuotaType type, std::string_view user,
                                             std::string_view client_id) const {
  // Kafka's DefaultQuotaCallback.quotaMetricTags: with one shape of quotas the tags follow it;
  // with several, the most specific level that exists decides.
  ClientQuotaLimit out;
  const std::string sanitized = SanitizeQuotaUser(user);
  auto tags = [&](bool with_user, bool with_client) {
    out.user_tag = with_user ? sanitized : std::string();
    out.client_id_tag = with_client ? std::string(client_id) : std::string();
  };
  auto has = [&](Part u, Part c) { return Find(type, u, sanitized, c, client_id) != nullptr; };
  switch (shapes_[static_cast<int>(type)]) {
    case 0:
    case kClientIdShape:
      tags(false, true);
      break;
    case kUserShape:
      tags(true, false);
      break;
    case kUserClientIdShape:
      tags(true, true);
      break;
    default:
      if (has(Part::kName, Part::kName) || has(Part::kName, Part::kDefault)) {
        tags(true, true);  // levels 1, 2
      } else if (has(Part::kName, Part::kAbsent)) {
        tags(true, false);  // level 3
      } else if (has(Part::kDefault, Part::kName) || has(Part::kDefault, Part::kDefault)) {
        tags(true, true);  // levels 4, 5
      } else if (has(Part::kDefault, Part::kAbsent)) {
        tags(true, false);  // level 6
      } else {
        tags(false, true);  // levels 7, 8
      }
  }
  out.limit = LimitOfTags(type, out.user_tag, out.client_id_tag);
  return out;
}

}  // namespace seglog
