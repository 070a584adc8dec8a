// The share group offset admin APIs (KIP-932): DescribeShareGroupOffsets, AlterShareGroupOffsets
// and DeleteShareGroupOffsets, as Kafka 4.4.0's KafkaApis checks them before the group
// coordinator answers:
//   - share.version below 1: UNSUPPORTED_VERSION (per group for Describe, top-level otherwise);
//   - Describe: DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED, no message); named topics the
//     client may not DESCRIBE come last with TOPIC_AUTHORIZATION_FAILED per partition; with all
//     topics (null), those it may not DESCRIBE are left out;
//   - Alter: READ on the group (top-level GROUP_AUTHORIZATION_FAILED), READ on each topic
//     (TOPIC_AUTHORIZATION_FAILED per partition) and the topic must exist
//     (UNKNOWN_TOPIC_OR_PARTITION per partition); those refused come first;
//   - Delete: DELETE on the group, READ on each topic (TOPIC_AUTHORIZATION_FAILED, listed
//     first).
// A group-level error of the coordinator drops the topics the broker refused (Kafka answers
// getErrorResponse then).
#include <map>

#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

constexpr const char* kUnsupportedVersionMessage = "The version of API is not supported.";
constexpr const char* kUnknownTopicMessage = "This server does not host this topic-partition.";
constexpr const char* kCoordinatorNotAvailableMessage = "The coordinator is not available.";

std::string AuthMessage(int16_t code) { return AuthorizationErrorMessage(code).value_or(""); }

Uuid TopicIdOf(const BrokerContext& ctx, const std::string& topic) {
  if (ctx.logs == nullptr) return Uuid{};
  std::optional<LogManager::TopicIdentity> md = ctx.logs->FindTopicIdentity(topic);
  if (!md) return Uuid{};
  Result<Uuid> id = Uuid::Parse(md->topic_id);
  return id.ok() ? *id : Uuid{};
}

}  // namespace

p::DescribeShareGroupOffsetsResponseData HandleDescribeShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::DescribeShareGroupOffsetsRequestData& req, int16_t /*version*/) {
  using Group = p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup;
  using Topic = p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseTopic;
  p::DescribeShareGroupOffsetsResponseData resp;
  for (const auto& g : req.groups) {
    Group& out = resp.groups.emplace_back();
    out.group_id = g.group_id;
    if (ctx.share_version() < 1) {
      out.error_code = ke::kUnsupportedVersion;
      continue;
    }
    if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, g.group_id)) {
      out.error_code = ke::kGroupAuthorizationFailed;
      continue;
    }
    if (g.topics && g.topics->empty()) continue;
    if (ctx.groups == nullptr) {
      out.error_code = ke::kCoordinatorNotAvailable;
      out.error_message = kCoordinatorNotAvailableMessage;
      continue;
    }
    auto may_describe = [&](const std::string& topic) {
      return Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic);
    };
    if (!g.topics) {
      out = ctx.groups->DescribeShareGroupOffsets(g);
      if (out.error_code != ke::kNone) continue;
      std::vector<Topic> allowed;
      for (Topic& t : out.topics) {
        if (may_describe(t.topic_name)) allowed.push_back(std::move(t));
      }
      out.topics = std::move(allowed);
      continue;
    }
    p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup authorized;
    authorized.group_id = g.group_id;
    std::vector<p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestTopic>
        allowed;
    std::vector<Topic> refused;
    for (const auto& t : *g.topics) {
      if (may_describe(t.topic_name)) {
        allowed.push_back(t);
        continue;
      }
      Topic& r = refused.emplace_back();
      r.topic_name = t.topic_name;
      for (int32_t partition : t.partitions) {
        auto& part = r.partitions.emplace_back();
        part.partition_index = partition;
        part.start_offset = -1;
        part.lag = -1;
        part.error_code = ke::kTopicAuthorizationFailed;
        part.error_message = AuthMessage(ke::kTopicAuthorizationFailed);
      }
    }
    authorized.topics = std::move(allowed);
    out = ctx.groups->DescribeShareGroupOffsets(authorized);
    if (out.error_code != ke::kNone) continue;
    for (Topic& r : refused) out.topics.push_back(std::move(r));
  }
  return resp;
}

p::AlterShareGroupOffsetsResponseData HandleAlterShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::AlterShareGroupOffsetsRequestData& req, int16_t /*version*/) {
  using Resp = p::AlterShareGroupOffsetsResponseData;
  auto fail = [](int16_t code, std::optional<std::string> message) {
    Resp r;
    r.error_code = code;
    r.error_message = std::move(message);
    return r;
  };
  if (ctx.share_version() < 1) return fail(ke::kUnsupportedVersion, kUnsupportedVersionMessage);
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed, AuthMessage(ke::kGroupAuthorizationFailed));
  }
  // Kafka's AlterShareGroupOffsetsResponse.Builder: one entry per topic name, in the order
  // first seen (the refused ones, then the coordinator's).
  Resp resp;
  std::map<std::string, size_t> index;
  auto topic = [&](const std::string& name) -> Resp::AlterShareGroupOffsetsResponseTopic& {
    auto [it, added] = index.emplace(name, resp.responses.size());
    if (added) {
      auto& t = resp.responses.emplace_back();
      t.topic_name = name;
      t.topic_id = TopicIdOf(ctx, name);
    }
    return resp.responses[it->second];
  };
  p::AlterShareGroupOffsetsRequestData authorized;
  authorized.group_id = req.group_id;
  for (const auto& t : req.topics) {
    int16_t error = ke::kNone;
    std::string message;
    if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, t.topic_name)) {
      error = ke::kTopicAuthorizationFailed;
      message = AuthMessage(error);
    } else if (ctx.logs == nullptr || !ctx.logs->FindTopicIdentity(t.topic_name)) {
      error = ke::kUnknownTopicOrPartition;
      message = kUnknownTopicMessage;
    }
    if (error == ke::kNone) {
      authorized.topics.push_back(t);
      continue;
    }
    for (const auto& part : t.partitions) {
      auto& rp = topic(t.topic_name).partitions.emplace_back();
      rp.partition_index = part.partition_index;
      rp.error_code = error;
      rp.error_message = message;
    }
  }
  if (ctx.groups == nullptr) {
    return fail(ke::kCoordinatorNotAvailable, kCoordinatorNotAvailableMessage);
  }
  Resp r = ctx.groups->AlterShareGroupOffsets(authorized);
  if (r.error_code != ke::kNone) return fail(r.error_code, std::move(r.error_message));
  for (auto& t : r.responses) {
    auto& merged = topic(t.topic_name);
    for (auto& part : t.partitions) merged.partitions.push_back(std::move(part));
  }
  return resp;
}

p::DeleteShareGroupOffsetsResponseData HandleDeleteShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::DeleteShareGroupOffsetsRequestData& req, int16_t /*version*/) {
  using Resp = p::DeleteShareGroupOffsetsResponseData;
  auto fail = [](int16_t code, std::optional<std::string> message) {
    Resp r;
    r.error_code = code;
    r.error_message = std::move(message);
    return r;
  };
  if (ctx.share_version() < 1) return fail(ke::kUnsupportedVersion, kUnsupportedVersionMessage);
  if (!Authorized(ctx, rc, AclOperation::kDelete, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed, AuthMessage(ke::kGroupAuthorizationFailed));
  }
  Resp resp;
  p::DeleteShareGroupOffsetsRequestData authorized;
  authorized.group_id = req.group_id;
  for (const auto& t : req.topics) {
    if (Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, t.topic_name)) {
      authorized.topics.push_back(t);
      continue;
    }
    auto& r = resp.responses.emplace_back();
    r.topic_name = t.topic_name;
    r.error_code = ke::kTopicAuthorizationFailed;
    r.error_message = AuthMessage(ke::kTopicAuthorizationFailed);
  }
  if (ctx.groups == nullptr) {
    return fail(ke::kCoordinatorNotAvailable, kCoordinatorNotAvailableMessage);
  }
  Resp r = ctx.groups->DeleteShareGroupOffsets(authorized);
  if (r.error_code != ke::kNone) return fail(r.error_code, std::move(r.error_message));
  for (auto& t : r.responses) resp.responses.push_back(std::move(t));
  return resp;
}

}  // namespace seglog
