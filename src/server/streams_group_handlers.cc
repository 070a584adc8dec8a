// The streams group APIs (KIP-1071): StreamsGroupHeartbeat, StreamsGroupDescribe and
// StreamsGroupTopologyDescriptionUpdate, as Kafka 4.4.0's KafkaApis checks them before the group
// coordinator answers:
//   - streams.version below 1: UNSUPPORTED_VERSION (the APIs are listed in ApiVersions anyway);
//   - StreamsGroupHeartbeat: READ on the group (GROUP_AUTHORIZATION_FAILED, code only, as
//     Kafka's getErrorResponse); with a topology, its topics may not be internal or invalid
//     (STREAMS_INVALID_TOPOLOGY with Kafka's messages) and must all be DESCRIBE-able
//     (TOPIC_AUTHORIZATION_FAILED); the internal topics the coordinator asks for are created
//     when CREATE is allowed on the cluster or on each of them, else the MISSING_INTERNAL_TOPICS
//     status says "Unauthorized to CREATE on topics ...";
//   - StreamsGroupDescribe: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED, listed first);
//     with an authorizer, a group whose topology names a topic the client may not describe is
//     answered TOPIC_AUTHORIZATION_FAILED without members or topology;
//   - StreamsGroupTopologyDescriptionUpdate: READ on the group, then the coordinator.
#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

constexpr int16_t kStreamsInvalidTopology = kStreamsInvalidTopologyCode;
constexpr int8_t kMissingInternalTopics =
    static_cast<int8_t>(StreamsGroupStatus::kMissingInternalTopics);

std::string Join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

// The topology's topics in Kafka's order (per subtopology: source, repartition sink,
// repartition source, changelog), each once.
template <typename Subtopologies>
std::vector<std::string> RequiredTopics(const Subtopologies& subtopologies) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (const auto& st : subtopologies) {
    for (const std::string& t : st.source_topics) add(t);
    for (const std::string& t : st.repartition_sink_topics) add(t);
    for (const auto& t : st.repartition_source_topics) add(t.name);
    for (const auto& t : st.state_changelog_topics) add(t.name);
  }
  return out;
}

}  // namespace

p::StreamsGroupHeartbeatResponseData HandleStreamsGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const p::StreamsGroupHeartbeatRequestData& req, int16_t version) {
  auto fail = [](int16_t code, std::optional<std::string> message = std::nullopt) {
    p::StreamsGroupHeartbeatResponseData r;
    r.error_code = code;
    r.error_message = std::move(message);
    return r;
  };
  if (ctx.streams_version() < 1) return fail(ke::kUnsupportedVersion);
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  if (req.topology) {
    const std::vector<std::string> required = RequiredTopics(req.topology->subtopologies);
    std::vector<std::string> prohibited, invalid;
    for (const std::string& t : required) {
      if (IsInternalTopic(t)) prohibited.push_back(t);
      if (!ValidateTopicNameForClient(t).ok()) invalid.push_back(t);
    }
    if (!prohibited.empty()) {
      return fail(kStreamsInvalidTopology, "Use of Kafka internal topics " + Join(prohibited, ",") +
                                               " in a Kafka Streams topology is prohibited.");
    }
    if (!invalid.empty()) {
      return fail(kStreamsInvalidTopology,
                  "Topic names " + Join(invalid, ",") + " are not valid topic names.");
    }
    for (const std::string& t : required) {
      if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, t)) {
        return fail(ke::kTopicAuthorizationFailed);
      }
    }
  }
  if (ctx.groups == nullptr) return fail(ke::kCoordinatorNotAvailable);
  StreamsGroupHeartbeatResult r = ctx.groups->StreamsGroupHeartbeat(
      version, GroupCoordinator::Client{client.client_id, client.client_host}, req);
  p::StreamsGroupHeartbeatResponseData resp = std::move(r.response);
  if (r.internal_topics_to_create.empty()) return resp;
  std::vector<std::string> unauthorized;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kCreate)) {
    for (const auto& [name, t] : r.internal_topics_to_create) {
      if (!Authorized(ctx, rc, AclOperation::kCreate, ResourceType::kTopic, name)) {
        unauthorized.push_back(name);
      }
    }
  }
  if (!resp.status) resp.status.emplace();
  auto missing = std::find_if(resp.status->begin(), resp.status->end(), [](const auto& s) {
    return s.status_code == kMissingInternalTopics;
  });
  auto add_detail = [&](const std::string& detail) {
    if (missing != resp.status->end()) {
      missing->status_detail += "; " + detail;
    } else {
      auto& s = resp.status->emplace_back();
      s.status_code = kMissingInternalTopics;
      s.status_detail = detail;
      missing = resp.status->end() - 1;
    }
  };
  if (!unauthorized.empty()) {
    add_detail("Unauthorized to CREATE on topics " + Join(unauthorized, ", ") + ".");
    return resp;
  }
  std::map<std::string, std::string> errors =
      ctx.groups->CreateStreamsInternalTopics(r.internal_topics_to_create);
  if (!errors.empty() && missing != resp.status->end()) {
    std::vector<std::string> listed;
    for (const auto& [topic, error] : errors) {
      if (listed.size() == 3) break;
      listed.push_back(topic + " (" + error + ")");
    }
    std::string detail = Join(listed, ", ");
    if (errors.size() > 3) detail += " and " + std::to_string(errors.size() - 3) + " more";
    add_detail("Creation failed: " + detail + ".");
  }
  return resp;
}

p::StreamsGroupDescribeResponseData HandleStreamsGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::StreamsGroupDescribeRequestData& req, int16_t /*version*/) {
  using DescribedGroup = p::StreamsGroupDescribeResponseData::DescribedGroup;
  p::StreamsGroupDescribeResponseData resp;
  if (ctx.streams_version() < 1) {
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
  for (const std::string& id : allowed) {
    DescribedGroup d;
    if (ctx.groups == nullptr) {
      d.group_id = id;
      d.error_code = ke::kCoordinatorNotAvailable;
    } else {
      d = ctx.groups->DescribeStreamsGroup(id);
    }
    if (d.error_code == ke::kNone && req.include_authorized_operations) {
      d.authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kGroup, d.group_id);
    }
    resp.groups.push_back(std::move(d));
  }
  if (ctx.authorizer != nullptr) {
    for (DescribedGroup& d : resp.groups) {
      if (!d.topology || !d.topology->subtopologies) continue;
      bool hidden = false;
      for (const std::string& t : RequiredTopics(*d.topology->subtopologies)) {
        hidden = hidden || !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, t);
      }
      if (!hidden) continue;
      DescribedGroup refused;
      refused.group_id = d.group_id;
      refused.error_code = ke::kTopicAuthorizationFailed;
      refused.error_message =
          "The described group uses topics that the client is not authorized to describe.";
      refused.topology = std::nullopt;
      d = std::move(refused);
    }
  }
  return resp;
}

p::StreamsGroupTopologyDescriptionUpdateResponseData HandleStreamsGroupTopologyDescriptionUpdate(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::StreamsGroupTopologyDescriptionUpdateRequestData& req, int16_t /*version*/) {
  auto fail = [](int16_t code) {
    p::StreamsGroupTopologyDescriptionUpdateResponseData r;
    r.error_code = code;
    return r;
  };
  if (ctx.streams_version() < 1) return fail(ke::kUnsupportedVersion);
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  if (ctx.groups == nullptr) return fail(ke::kCoordinatorNotAvailable);
  return ctx.groups->StreamsGroupTopologyDescriptionUpdate(req);
}

}  // namespace seglog
