// The share group membership APIs (KIP-932): ShareGroupHeartbeat and ShareGroupDescribe, as
// Kafka 4.4.0's KafkaApis checks them before the group coordinator answers:
//   - share.version below 1: UNSUPPORTED_VERSION (the APIs are listed in ApiVersions anyway);
//   - ShareGroupHeartbeat: READ on the group, a member id of 1 to 36 characters
//     (INVALID_REQUEST), DESCRIBE on every subscribed topic (TOPIC_AUTHORIZATION_FAILED); these
//     errors carry no message, as Kafka's getErrorResponse;
//   - ShareGroupDescribe: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED for that group,
//     listed first); with an authorizer, a group whose members are assigned a topic the client
//     may not describe is answered TOPIC_AUTHORIZATION_FAILED without members.
#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

bool ValidMemberId(const std::string& id) { return !id.empty() && id.size() <= 36; }

}  // namespace

p::ShareGroupHeartbeatResponseData HandleShareGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const p::ShareGroupHeartbeatRequestData& req, int16_t /*version*/) {
  // Kafka's getErrorResponse: the code only, no message.
  auto fail = [](int16_t code) {
    p::ShareGroupHeartbeatResponseData r;
    r.error_code = code;
    return r;
  };
  if (ctx.share_version() < 1) return fail(ke::kUnsupportedVersion);
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  if (!ValidMemberId(req.member_id)) return fail(ke::kInvalidRequest);
  if (req.subscribed_topic_names) {
    for (const std::string& topic : *req.subscribed_topic_names) {
      // Kafka sets only the code here, no message.
      if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic)) {
        return fail(ke::kTopicAuthorizationFailed);
      }
    }
  }
  if (ctx.groups == nullptr) return fail(ke::kCoordinatorNotAvailable);
  return ctx.groups->ShareGroupHeartbeat(
      GroupCoordinator::Client{client.client_id, client.client_host}, req);
}

p::ShareGroupDescribeResponseData HandleShareGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc, const p::ShareGroupDescribeRequestData& req,
    int16_t /*version*/) {
  using DescribedGroup = p::ShareGroupDescribeResponseData::DescribedGroup;
  p::ShareGroupDescribeResponseData resp;
  if (ctx.share_version() < 1) {
    for (const std::string& id : req.group_ids) {
      auto& d = resp.groups.emplace_back();
      d.group_id = id;
      d.error_code = ke::kUnsupportedVersion;
    }
    return resp;
  }
  std::vector<std::string> allowed;
  for (const std::string& id : req.group_ids) {
    if (Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, id)) {
      allowed.push_back(id);
      continue;
    }
    auto& d = resp.groups.emplace_back();
    d.group_id = id;
    d.error_code = ke::kGroupAuthorizationFailed;
  }
  std::map<std::string, bool> describable;  // topic -> DESCRIBE, asked once each
  auto may_describe = [&](const std::string& topic) {
    auto [it, added] = describable.emplace(topic, false);
    if (added) {
      it->second = Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic);
    }
    return it->second;
  };
  for (const std::string& id : allowed) {
    DescribedGroup d;
    if (ctx.groups == nullptr) {
      d.group_id = id;
      d.error_code = ke::kCoordinatorNotAvailable;
    } else {
      d = ctx.groups->DescribeShareGroup(id);
    }
    if (d.error_code == ke::kNone && req.include_authorized_operations) {
      d.authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kGroup, d.group_id);
    }
    bool hidden = false;
    if (ctx.authorizer != nullptr) {
      for (const auto& m : d.members) {
        for (const auto& tp : m.assignment.topic_partitions) {
          hidden = hidden || !may_describe(tp.topic_name);
        }
      }
    }
    if (hidden) {
      DescribedGroup refused;
      refused.group_id = d.group_id;
      refused.error_code = ke::kTopicAuthorizationFailed;
      refused.error_message =
          "The group has described topic(s) that the client is not authorized to describe.";
      d = std::move(refused);
    }
    resp.groups.push_back(std::move(d));
  }
  return resp;
}

}  // namespace seglog
