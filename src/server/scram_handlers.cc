// DescribeUserScramCredentials and AlterUserScramCredentials (Kafka's ScramImage.describe and
// ScramControlManager.alterCredentials rules; docs/design/security.md, "SCRAM"). The
// credentials live in the metadata log (UserScramCredentialRecord), so a Kafka broker on the
// directory has the same users.
#include <fmt/format.h>

#include <map>
#include <set>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "security/scram.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace {

constexpr int16_t kUnsupportedSaslMechanism = 33;
constexpr int16_t kResourceNotFound = 91;
constexpr int16_t kDuplicateResource = 92;
constexpr int16_t kUnacceptableCredential = 93;

}  // namespace

protocol::DescribeUserScramCredentialsResponseData HandleDescribeUserScramCredentials(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeUserScramCredentialsRequestData& req, int16_t version) {
  (void)version;
  protocol::DescribeUserScramCredentialsResponseData resp;
  resp.error_message = std::nullopt;
  MetadataStore* store = ctx.logs->metadata();
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribe) || store == nullptr) {
    resp.error_code = store == nullptr ? kafka_error::kUnknownServerError
                                       : kafka_error::kClusterAuthorizationFailed;
    return resp;
  }
  const auto users = store->ScramUsers();
  auto describe = [&](const std::string& user) {
    auto& r = resp.results.emplace_back();
    r.user = user;
    r.error_message = std::nullopt;
    auto it = users.find(user);
    if (it == users.end()) {
      r.error_code = kResourceNotFound;
      r.error_message =
          fmt::format("Attempt to describe a user credential that does not exist: {}", user);
      return;
    }
    for (const auto& [mechanism, iterations] : it->second) {
      auto& info = r.credential_infos.emplace_back();
      info.mechanism = static_cast<int8_t>(mechanism);
      info.iterations = iterations;
    }
  };
  // Null or empty: every user (Kafka's ScramImage.describe).
  if (!req.users.has_value() || req.users->empty()) {
    for (const auto& [user, creds] : users) describe(user);
    return resp;
  }
  std::map<std::string, int> count;
  for (const auto& u : *req.users) ++count[u.name];
  std::set<std::string> done;
  for (const auto& u : *req.users) {
    if (!done.insert(u.name).second) continue;
    if (count[u.name] > 1) {
      auto& r = resp.results.emplace_back();
      r.user = u.name;
      r.error_code = kDuplicateResource;
      r.error_message = fmt::format(
          "Cannot describe SCRAM credentials for the same user twice in a single request: {}",
          u.name);
      continue;
    }
    describe(u.name);
  }
  return resp;
}

protocol::AlterUserScramCredentialsResponseData HandleAlterUserScramCredentials(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterUserScramCredentialsRequestData& req, int16_t version) {
  (void)version;
  protocol::AlterUserScramCredentialsResponseData resp;
  MetadataStore* store = ctx.logs->metadata();
  if (!ClusterAuthorized(ctx, rc, AclOperation::kAlter) || store == nullptr) {
    // The whole request fails: each user named gets the error.
    std::set<std::string> named;
    for (const auto& d : req.deletions) named.insert(d.name);
    for (const auto& u : req.upsertions) named.insert(u.name);
    for (const std::string& user : named) {
      auto& r = resp.results.emplace_back();
      r.user = user;
      r.error_code = store == nullptr ? kafka_error::kUnknownServerError
                                      : kafka_error::kClusterAuthorizationFailed;
      r.error_message = std::nullopt;
    }
    return resp;
  }
  // Kafka checks deletions, then upsertions, keeping one error per user name: a name seen twice
  // fails both entries ("altered twice").
  struct Pending {
    bool deletion;
    std::pair<std::string, ScramMechanism> del;
    std::pair<std::string, ScramCredential> up;
  };
  std::map<std::string, Pending> pending;
  std::vector<std::string> pending_order;
  std::map<std::string, std::pair<int16_t, std::string>> errors;
  std::vector<std::string> error_order;
  auto fail = [&](const std::string& user, int16_t code, std::string message) {
    pending.erase(user);
    if (errors.emplace(user, std::make_pair(code, std::move(message))).second) {
      error_order.push_back(user);
    }
  };
  auto check = [&](const std::string& user, int8_t mechanism_code) -> bool {
    if (errors.count(user)) return false;
    if (pending.count(user)) {
      fail(user, kDuplicateResource,
           "A user credential cannot be altered twice in the same request");
      return false;
    }
    if (user.empty()) {
      fail(user, kUnacceptableCredential, "Username must not be empty");
      return false;
    }
    if (ScramMechanismFromCode(mechanism_code) == ScramMechanism::kUnknown) {
      fail(user, kUnsupportedSaslMechanism, "Unknown SCRAM mechanism");
      return false;
    }
    return true;
  };
  for (const auto& d : req.deletions) {
    if (!check(d.name, d.mechanism)) continue;
    const ScramMechanism m = ScramMechanismFromCode(d.mechanism);
    if (!store->ScramCredentialOf(d.name, m).has_value()) {
      fail(d.name, kResourceNotFound, "Attempt to delete a user credential that does not exist");
      continue;
    }
    pending[d.name] = Pending{true, {d.name, m}, {}};
    pending_order.push_back(d.name);
  }
  for (const auto& u : req.upsertions) {
    if (!check(u.name, u.mechanism)) continue;
    if (u.iterations < kScramMinIterations) {
      fail(u.name, kUnacceptableCredential, "Too few iterations");
      continue;
    }
    if (u.iterations > kScramMaxIterations) {
      fail(u.name, kUnacceptableCredential, "Too many iterations");
      continue;
    }
    Result<ScramCredential> c = ScramCredentialFromSaltedPassword(
        ScramMechanismFromCode(u.mechanism), u.salted_password, u.salt, u.iterations);
    if (!c.ok()) {
      fail(u.name, kUnacceptableCredential, std::string(c.status().message()));
      continue;
    }
    pending[u.name] = Pending{false, {}, {u.name, std::move(*c)}};
    pending_order.push_back(u.name);
  }
  std::vector<std::pair<std::string, ScramMechanism>> deletions;
  std::vector<std::pair<std::string, ScramCredential>> upsertions;
  std::vector<std::string> done;
  for (bool want_deletion : {true, false}) {
    for (const std::string& user : pending_order) {
      auto it = pending.find(user);
      if (it == pending.end() || it->second.deletion != want_deletion) continue;
      if (want_deletion) {
        deletions.push_back(it->second.del);
      } else {
        upsertions.push_back(it->second.up);
      }
      done.push_back(user);
    }
  }
  const Status applied = store->AlterScramCredentials(deletions, upsertions);
  for (const std::string& user : done) {
    auto& r = resp.results.emplace_back();
    r.user = user;
    r.error_message = std::nullopt;
    if (!applied.ok()) {
      r.error_code = kafka_error::FromStatus(applied);
      r.error_message = kafka_error::MessageOf(applied);
    }
  }
  for (const std::string& user : error_order) {
    auto& r = resp.results.emplace_back();
    r.user = user;
    r.error_code = errors[user].first;
    r.error_message = errors[user].second;
  }
  if (!done.empty() && applied.ok()) {
    ctx.logger.Info(fmt::format("Altered the SCRAM credentials of {} user(s)", done.size()));
  }
  return resp;
}

}  // namespace seglog
