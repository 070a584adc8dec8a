// The consumer group APIs: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
// OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups, OffsetDelete. The
// GroupCoordinator (src/group) keeps the groups; these functions translate each API version's
// shape (a single group or a batch, topic names or ids, where the errors go) to it and back,
// as Kafka's KafkaApis does.
//
// ACLs (Kafka's KafkaApis), checked before the coordinator is asked anything:
// - READ on the group for JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit and
//   ConsumerGroupHeartbeat; DESCRIBE for FindCoordinator (a transactional id's: DESCRIBE on it),
//   OffsetFetch, DescribeGroups and ConsumerGroupDescribe; DELETE for DeleteGroups and
//   OffsetDelete. GROUP_AUTHORIZATION_FAILED, for the whole request or the one group.
// - On topics: READ to commit or delete offsets, DESCRIBE to fetch them or to subscribe
//   (TOPIC_AUTHORIZATION_FAILED); a fetch of every offset leaves other topics out.
// - ListGroups lists every group with DESCRIBE on the cluster, else only those the client may
//   describe.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"
#include "sharestate/share_coordinator.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

constexpr int8_t kGroupKeyType = 0;
constexpr int8_t kTransactionKeyType = 1;
constexpr int8_t kShareKeyType = 2;

std::optional<std::string> ErrorMessage(int16_t code) {
  switch (code) {
    case ke::kNone:
      return std::nullopt;
    case ke::kCoordinatorNotAvailable:
      return "The coordinator is not available.";
    case ke::kNotCoordinator:
      return "This is not the correct coordinator.";
    case ke::kInvalidRequest:
      return "This most likely occurs because of a request being malformed by the client library "
             "or the message was sent to an incompatible broker. See the broker logs for more "
             "details.";
    default:
      return AuthorizationErrorMessage(code);  // nullopt for the others
  }
}

// Whether `key` is a share coordinator key Kafka's SharePartitionKey.getInstance accepts: at
// least three ':'-separated parts, the last a partition number, the one before a topic id, and
// a group id (the parts before, joined) that is not blank.
bool ValidShareCoordinatorKey(const std::string& key) {
  const size_t last = key.rfind(':');
  if (last == std::string::npos || last == 0) return false;
  const size_t topic = key.rfind(':', last - 1);
  if (topic == std::string::npos) return false;
  const std::string group = key.substr(0, topic);
  if (group.find_first_not_of(" \t\n\r\f\v") == std::string::npos) return false;
  if (!Uuid::Parse(key.substr(topic + 1, last - topic - 1)).ok()) return false;
  std::string partition = key.substr(last + 1);
  if (partition.size() > 1 && partition[0] == '+') partition.erase(0, 1);  // Integer.parseInt's
  int32_t p = 0;
  auto [end, ec] = std::from_chars(partition.data(), partition.data() + partition.size(), p);
  return !partition.empty() && ec == std::errc() && end == partition.data() + partition.size();
}

// A topic's name and id as the metadata knows them; nullopt for an unknown topic.
struct KnownTopic {
  std::string name;
  Uuid id;
  int32_t partitions = 0;
};
std::optional<KnownTopic> TopicByName(const BrokerContext& ctx, const std::string& name) {
  Result<TopicMetadata> md = ctx.logs->FindTopic(name);
  if (!md.ok()) return std::nullopt;
  KnownTopic t{name, {}, md->partitions};
  if (auto id = Uuid::Parse(md->topic_id); id.ok()) t.id = *id;
  return t;
}
std::optional<KnownTopic> TopicById(const BrokerContext& ctx, const Uuid& id) {
  std::optional<std::string> name = TopicNameForId(ctx, id);
  return name ? TopicByName(ctx, *name) : std::nullopt;
}

}  // namespace

p::FindCoordinatorResponseData HandleFindCoordinator(const BrokerContext& ctx,
                                                     const RequestContext& rc,
                                                     const p::FindCoordinatorRequestData& req,
                                                     int16_t version) {
  auto find = [&](int8_t key_type, const std::string& key) {
    int16_t error = ke::kNone;
    // DESCRIBE on the group or transactional id, before its coordinator's topic is made.
    if (key_type == kGroupKeyType &&
        !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, key)) {
      error = ke::kGroupAuthorizationFailed;
    } else if (key_type == kTransactionKeyType &&
               !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTransactionalId, key)) {
      error = ke::kTransactionalIdAuthorizationFailed;
    } else if (key_type == kGroupKeyType) {
      if (ctx.groups == nullptr) {
        error = ke::kCoordinatorNotAvailable;
      } else if (Status s = ctx.groups->EnsureOffsetsTopic(); !s.ok()) {
        ctx.logger.Warn(fmt::format("Could not create the internal topic __consumer_offsets: {}",
                                    s.ToString()));
        error = ke::kCoordinatorNotAvailable;
      }
    } else if (key_type == kTransactionKeyType) {
      if (ctx.txns == nullptr) {
        error = ke::kCoordinatorNotAvailable;
      } else if (Status s = ctx.txns->EnsureStateTopic(); !s.ok()) {
        ctx.logger.Warn(fmt::format("Could not create the internal topic __transaction_state: {}",
                                    s.ToString()));
        error = ke::kCoordinatorNotAvailable;
      }
    } else if (key_type == kShareKeyType && version >= 6) {
      // "<group>:<topic id>:<partition>" as Kafka's SharePartitionKey.getInstance parses it.
      if (!ValidShareCoordinatorKey(key)) {
        ctx.logger.Error("Share coordinator key is invalid: " + key);
        error = ke::kInvalidRequest;
      } else if (ctx.share_state == nullptr) {
        error = ke::kCoordinatorNotAvailable;
      } else if (Status s = ctx.share_state->EnsureStateTopic(); !s.ok()) {
        ctx.logger.Warn(fmt::format("Could not create the internal topic __share_group_state: {}",
                                    s.ToString()));
        error = ke::kCoordinatorNotAvailable;
      }
    } else {
      error = ke::kInvalidRequest;
    }
    return error;
  };
  p::FindCoordinatorResponseData resp;
  const int8_t key_type = version >= 1 ? req.key_type : kGroupKeyType;
  const AdvertisedEndpoint endpoint = EndpointFor(ctx, rc.listener);
  const int32_t port = endpoint.port;
  if (version < 4) {
    // v1-3 carry Kafka's Errors.message(): the error's text, or its name "NONE" on success.
    const int16_t e = find(key_type, req.key);
    resp.error_code = e;
    resp.error_message = e == ke::kNone ? std::optional<std::string>("NONE") : ErrorMessage(e);
    resp.node_id = e == ke::kNone ? ctx.node_id : -1;
    resp.host = e == ke::kNone ? endpoint.host : "";
    resp.port = e == ke::kNone ? port : -1;
    return resp;
  }
  // A share coordinator is found only for a broker (CLUSTER_ACTION); anyone else's request
  // fails as a whole, each key with Errors.message() (Kafka's prepareErrorResponse).
  const bool share_refused = key_type == kShareKeyType && version >= 6 &&
                             !ClusterAuthorized(ctx, rc, AclOperation::kClusterAction);
  for (const std::string& key : req.coordinator_keys) {
    auto& c = resp.coordinators.emplace_back();
    if (share_refused) {
      c.key = key;
      c.error_code = ke::kClusterAuthorizationFailed;
      c.error_message = AuthorizationErrorMessage(c.error_code);
      c.node_id = -1;
      c.host = "";
      c.port = -1;
      continue;
    }
    const int16_t e = find(key_type, key);
    c.key = key;
    c.error_code = e;
    // v4+ entries carry a message only on the invalid-request path, as Kafka's.
    c.error_message = e == ke::kInvalidRequest ? ErrorMessage(e) : std::nullopt;
    c.node_id = e == ke::kNone ? ctx.node_id : -1;
    c.host = e == ke::kNone ? endpoint.host : "";
    c.port = e == ke::kNone ? port : -1;
  }
  return resp;
}

void HandleJoinGroup(const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
                     const p::JoinGroupRequestData& req, int16_t version,
                     std::function<void(p::JoinGroupResponseData)> done) {
  auto shaped = [version, done = std::move(done)](p::JoinGroupResponseData r) {
    // Below v7 a null protocol name is sent as ""; from v7 an empty one as null.
    if (version < 7 && !r.protocol_name) r.protocol_name = "";
    if (version >= 7 && r.protocol_name && r.protocol_name->empty()) r.protocol_name.reset();
    done(std::move(r));
  };
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    // Kafka's JoinGroupRequest.getErrorResponse: no generation, leader or member id.
    p::JoinGroupResponseData r;
    r.error_code = ke::kGroupAuthorizationFailed;
    r.generation_id = -1;
    r.protocol_name = std::nullopt;
    r.leader = "";
    r.member_id = "";
    return shaped(std::move(r));
  }
  if (ctx.groups == nullptr) {
    p::JoinGroupResponseData r;
    r.error_code = ke::kCoordinatorNotAvailable;
    r.member_id = req.member_id;
    return shaped(std::move(r));
  }
  ctx.groups->JoinGroup(version, {client.client_id, client.client_host}, req, std::move(shaped));
}

void HandleSyncGroup(const BrokerContext& ctx, const RequestContext& rc,
                     const p::SyncGroupRequestData& req, int16_t version,
                     std::function<void(p::SyncGroupResponseData)> done) {
  if (version >= 5 && (!req.protocol_type || !req.protocol_name)) {
    p::SyncGroupResponseData r;
    r.error_code = ke::kInconsistentGroupProtocol;
    return done(std::move(r));
  }
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    p::SyncGroupResponseData r;
    r.error_code = ke::kGroupAuthorizationFailed;
    return done(std::move(r));
  }
  if (ctx.groups == nullptr) {
    p::SyncGroupResponseData r;
    r.error_code = ke::kCoordinatorNotAvailable;
    return done(std::move(r));
  }
  ctx.groups->SyncGroup(version, req, std::move(done));
}

p::HeartbeatResponseData HandleHeartbeat(const BrokerContext& ctx, const RequestContext& rc,
                                         const p::HeartbeatRequestData& req, int16_t version) {
  (void)version;
  p::HeartbeatResponseData resp;
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    resp.error_code = ke::kGroupAuthorizationFailed;
    return resp;
  }
  resp.error_code = ctx.groups == nullptr
                        ? ke::kCoordinatorNotAvailable
                        : ctx.groups->Heartbeat(req.group_id, req.generation_id, req.member_id,
                                                req.group_instance_id);
  return resp;
}

p::LeaveGroupResponseData HandleLeaveGroup(const BrokerContext& ctx, const RequestContext& rc,
                                           const p::LeaveGroupRequestData& req, int16_t version) {
  p::LeaveGroupResponseData resp;
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    resp.error_code = ke::kGroupAuthorizationFailed;  // no member is answered
    return resp;
  }
  std::vector<GroupCoordinator::LeavingMember> members;
  if (version < 3) {
    members.push_back({req.member_id, std::nullopt});
  } else {
    for (const auto& m : req.members) members.push_back({m.member_id, m.group_instance_id});
  }
  if (ctx.groups == nullptr) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  GroupCoordinator::LeaveResult r = ctx.groups->LeaveGroup(req.group_id, members);
  resp.error_code = r.error_code;
  if (version < 3) {
    if (resp.error_code == ke::kNone && !r.member_errors.empty()) {
      resp.error_code = r.member_errors[0];
    }
    return resp;
  }
  if (r.error_code != ke::kNone) return resp;
  for (size_t i = 0; i < members.size() && i < r.member_errors.size(); ++i) {
    auto& m = resp.members.emplace_back();
    m.member_id = members[i].member_id;
    m.group_instance_id = members[i].group_instance_id;
    m.error_code = r.member_errors[i];
  }
  return resp;
}

p::OffsetCommitResponseData HandleOffsetCommit(const BrokerContext& ctx, const RequestContext& rc,
                                               const p::OffsetCommitRequestData& req,
                                               int16_t version) {
  p::OffsetCommitResponseData resp;
  // READ on the group, else every partition fails (Kafka's OffsetCommitRequest
  // getErrorResponse).
  const bool may_commit =
      Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id);
  std::vector<GroupCoordinator::CommitPartition> commits;
  // Where each partition's answer goes: (topic index, partition index) in resp.
  std::vector<std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    rt.topic_id = t.topic_id;
    std::optional<KnownTopic> known =
        version >= 10 ? TopicById(ctx, t.topic_id) : TopicByName(ctx, t.name);
    // READ on the topic: after an unknown topic id, before an unknown name.
    const bool may_read =
        version >= 10
            ? known && Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, known->name)
            : Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, t.name);
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (!may_commit) {
        rp.error_code = ke::kGroupAuthorizationFailed;
        continue;
      }
      if (!known && version >= 10) {
        rp.error_code = ke::kUnknownTopicId;
        continue;
      }
      if (!may_read) {
        rp.error_code = ke::kTopicAuthorizationFailed;
        continue;
      }
      if (!known) {
        rp.error_code = ke::kUnknownTopicOrPartition;
        continue;
      }
      if (part.partition_index < 0 || part.partition_index >= known->partitions) {
        rp.error_code = ke::kUnknownTopicOrPartition;
        continue;
      }
      GroupCoordinator::CommitPartition c;
      c.topic = known->name;
      c.topic_id = known->id;
      c.partition = part.partition_index;
      c.offset = part.committed_offset;
      c.leader_epoch = part.committed_leader_epoch;
      c.metadata = part.committed_metadata;
      commits.push_back(std::move(c));
      slots.emplace_back(resp.topics.size() - 1, rt.partitions.size() - 1);
    }
  }
  // Nothing valid: answered without the coordinator (no group is created).
  if (commits.empty()) return resp;
  if (ctx.groups == nullptr) {
    for (const auto& [ti, pi] : slots) {
      resp.topics[ti].partitions[pi].error_code = ke::kCoordinatorNotAvailable;
    }
    return resp;
  }
  ctx.groups->CommitOffsets(version, req.group_id, req.generation_id_or_member_epoch, req.member_id,
                            req.group_instance_id, version <= 4 ? req.retention_time_ms : -1,
                            &commits);
  for (size_t i = 0; i < commits.size(); ++i) {
    resp.topics[slots[i].first].partitions[slots[i].second].error_code = commits[i].error_code;
  }
  return resp;
}

namespace {

// One group's OffsetFetch, in the v8+ shape. The client needs DESCRIBE on the group, and on
// each topic: a topic it names without it is answered TOPIC_AUTHORIZATION_FAILED, one it may
// not describe is left out of a request for every committed offset.
p::OffsetFetchResponseData::OffsetFetchResponseGroup FetchGroup(
    const BrokerContext& ctx, const RequestContext& rc, const std::string& group_id,
    const std::optional<std::vector<p::OffsetFetchRequestData::OffsetFetchRequestTopics>>& topics,
    int16_t version, bool require_stable,
    const std::optional<std::string>& member_id = std::nullopt, int32_t member_epoch = -1) {
  p::OffsetFetchResponseData::OffsetFetchResponseGroup out;
  out.group_id = group_id;
  if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, group_id)) {
    out.error_code = ke::kGroupAuthorizationFailed;
    return out;
  }
  if (ctx.groups == nullptr) {
    out.error_code = ke::kCoordinatorNotAvailable;
    return out;
  }
  auto may_describe = [&](const std::string& topic) {
    return Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic);
  };
  std::optional<std::vector<GroupCoordinator::FetchTopic>> want;
  // Requested topics answered without a lookup, in request order after the others: unknown by
  // id (v10, UNKNOWN_TOPIC_ID), or not to be described.
  std::vector<std::pair<const p::OffsetFetchRequestData::OffsetFetchRequestTopics*, int16_t>>
      refused;
  if (topics) {
    want.emplace();
    for (const auto& t : *topics) {
      std::string name = t.name;
      if (version >= 10) {
        std::optional<KnownTopic> k = TopicById(ctx, t.topic_id);
        if (!k) {
          refused.emplace_back(&t, ke::kUnknownTopicId);
          continue;
        }
        name = k->name;
      }
      if (!may_describe(name)) {
        refused.emplace_back(&t, ke::kTopicAuthorizationFailed);
        continue;
      }
      want->push_back({name, t.partition_indexes});
    }
  }
  GroupCoordinator::FetchResult r =
      ctx.groups->FetchOffsets(group_id, want, member_id, member_epoch, require_stable);
  out.error_code = r.error_code;
  if (r.error_code != ke::kNone) return out;
  std::map<std::string, size_t> at;
  std::map<std::string, bool> describable;  // for a request for every topic
  for (const GroupCoordinator::FetchedOffset& f : r.offsets) {
    if (!topics) {
      auto [d, added] = describable.emplace(f.topic, false);
      if (added) d->second = may_describe(f.topic);
      if (!d->second) continue;
    }
    auto it = at.find(f.topic);
    if (it == at.end()) {
      Uuid id;
      if (version >= 10) {
        std::optional<KnownTopic> k = TopicByName(ctx, f.topic);
        if (!k) continue;  // a deleted topic's offsets are not listed by id
        id = k->id;
      }
      it = at.emplace(f.topic, out.topics.size()).first;
      auto& t = out.topics.emplace_back();
      t.name = f.topic;
      t.topic_id = id;
    }
    auto& t = out.topics[it->second];
    auto& part = t.partitions.emplace_back();
    part.partition_index = f.partition;
    // A commit recorded for another incarnation of the topic (recreated since) counts as none.
    const bool mismatched = version >= 10 && !f.topic_id.IsZero() && f.topic_id != t.topic_id;
    part.committed_offset = mismatched ? -1 : f.offset;
    part.committed_leader_epoch = mismatched ? -1 : f.leader_epoch;
    part.metadata = mismatched ? "" : f.metadata;
    part.error_code = f.error_code;
  }
  for (const auto& [t, code] : refused) {
    auto& rt = out.topics.emplace_back();
    rt.name = t->name;
    rt.topic_id = t->topic_id;
    for (int32_t pi : t->partition_indexes) {
      auto& part = rt.partitions.emplace_back();
      part.partition_index = pi;
      part.committed_offset = -1;
      part.metadata = "";
      part.error_code = code;
    }
  }
  return out;
}

}  // namespace

p::OffsetFetchResponseData HandleOffsetFetch(const BrokerContext& ctx, const RequestContext& rc,
                                             const p::OffsetFetchRequestData& req,
                                             int16_t version) {
  p::OffsetFetchResponseData resp;
  if (version >= 8) {
    for (const auto& g : req.groups) {
      resp.groups.push_back(FetchGroup(ctx, rc, g.group_id, g.topics, version, req.require_stable,
                                       g.member_id, g.member_epoch));
    }
    return resp;
  }
  // v1-7: one group, the v8 shape converted back.
  std::optional<std::vector<p::OffsetFetchRequestData::OffsetFetchRequestTopics>> topics;
  if (req.topics) {
    topics.emplace();
    for (const auto& t : *req.topics) {
      auto& e = topics->emplace_back();
      e.name = t.name;
      e.partition_indexes = t.partition_indexes;
    }
  }
  p::OffsetFetchResponseData::OffsetFetchResponseGroup g =
      FetchGroup(ctx, rc, req.group_id, topics, version, version >= 7 && req.require_stable);
  if (version >= 2) resp.error_code = g.error_code;
  if (g.error_code != ke::kNone) {
    if (version < 2 && req.topics) {
      // v1 has no top-level error: every requested partition carries the group's.
      for (const auto& t : *req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (int32_t pi : t.partition_indexes) {
          auto& part = rt.partitions.emplace_back();
          part.partition_index = pi;
          part.committed_offset = -1;
          part.metadata = "";
          part.error_code = g.error_code;
        }
      }
    }
    return resp;
  }
  for (const auto& t : g.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      rp.committed_offset = part.committed_offset;
      rp.committed_leader_epoch = part.committed_leader_epoch;
      rp.metadata = part.metadata;
      rp.error_code = part.error_code;
    }
  }
  return resp;
}

p::ListGroupsResponseData HandleListGroups(const BrokerContext& ctx, const RequestContext& rc,
                                           const p::ListGroupsRequestData& req, int16_t version) {
  p::ListGroupsResponseData resp;
  if (ctx.groups == nullptr) return resp;
  // DESCRIBE on the cluster lists every group; without it, those the client may describe.
  const bool cluster_describe = ClusterAuthorized(ctx, rc, AclOperation::kDescribe);
  for (const auto& g :
       ctx.groups->ListGroups(version >= 4 ? req.states_filter : std::vector<std::string>{},
                              version >= 5 ? req.types_filter : std::vector<std::string>{})) {
    if (!cluster_describe &&
        !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, g.group_id)) {
      continue;
    }
    auto& e = resp.groups.emplace_back();
    e.group_id = g.group_id;
    e.protocol_type = g.protocol_type;
    e.group_state = g.state;
    e.group_type = g.type;
  }
  return resp;
}

p::DescribeGroupsResponseData HandleDescribeGroups(const BrokerContext& ctx,
                                                   const RequestContext& rc,
                                                   const p::DescribeGroupsRequestData& req,
                                                   int16_t version) {
  p::DescribeGroupsResponseData resp;
  // The groups the client may not DESCRIBE come first (Kafka's DescribeGroupsResponse
  // groupError: empty state, protocol and members), then those the coordinator describes.
  std::vector<std::string> allowed;
  for (const std::string& id : req.groups) {
    if (Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kGroup, id)) {
      allowed.push_back(id);
      continue;
    }
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    g.error_code = ke::kGroupAuthorizationFailed;
  }
  const size_t first_described = resp.groups.size();
  for (const std::string& id : allowed) {
    int16_t error = ke::kCoordinatorNotAvailable;
    std::optional<p::DescribeGroupsResponseData::DescribedGroup> d;
    if (ctx.groups != nullptr) d = ctx.groups->DescribeGroup(id, &error);
    if (d && d->error_code == ke::kGroupIdNotFound) {
      // Not a classic group: v6+ say so, older versions see a Dead group.
      if (version < 6) {
        d->error_code = ke::kNone;
        d->error_message.reset();
      }
      resp.groups.push_back(std::move(*d));
      continue;
    }
    if (d) {
      resp.groups.push_back(std::move(*d));
      continue;
    }
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    g.group_state = "Dead";
    if (error != ke::kNone) {
      g.error_code = error;
      g.group_state = "";
    } else if (version >= 6) {
      g.error_code = ke::kGroupIdNotFound;
      g.error_message = fmt::format("Group {} not found.", id);
    }
  }
  // The client's operations on each group described without an error (a Dead one included).
  if (version >= 3 && req.include_authorized_operations) {
    for (size_t i = first_described; i < resp.groups.size(); ++i) {
      auto& g = resp.groups[i];
      if (g.error_code != ke::kNone) continue;
      g.authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kGroup, g.group_id);
    }
  }
  return resp;
}

p::DeleteGroupsResponseData HandleDeleteGroups(const BrokerContext& ctx, const RequestContext& rc,
                                               const p::DeleteGroupsRequestData& req,
                                               int16_t version) {
  (void)version;
  p::DeleteGroupsResponseData resp;
  // Each group once; those the client may not DELETE are answered after the others.
  std::set<std::string> seen;
  std::vector<std::string> refused;
  for (const std::string& id : req.groups_names) {
    if (!seen.insert(id).second) continue;
    if (!Authorized(ctx, rc, AclOperation::kDelete, ResourceType::kGroup, id)) {
      refused.push_back(id);
      continue;
    }
    auto& r = resp.results.emplace_back();
    r.group_id = id;
    r.error_code =
        ctx.groups == nullptr ? ke::kCoordinatorNotAvailable : ctx.groups->DeleteGroup(id);
  }
  for (const std::string& id : refused) {
    auto& r = resp.results.emplace_back();
    r.group_id = id;
    r.error_code = ke::kGroupAuthorizationFailed;
  }
  return resp;
}

p::OffsetDeleteResponseData HandleOffsetDelete(const BrokerContext& ctx, const RequestContext& rc,
                                               const p::OffsetDeleteRequestData& req,
                                               int16_t version) {
  (void)version;
  p::OffsetDeleteResponseData resp;
  if (!Authorized(ctx, rc, AclOperation::kDelete, ResourceType::kGroup, req.group_id)) {
    resp.error_code = ke::kGroupAuthorizationFailed;
    return resp;
  }
  if (ctx.groups == nullptr) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  if (req.group_id.empty()) {
    resp.error_code = ke::kInvalidGroupId;
    return resp;
  }
  std::vector<TopicPartition> valid;
  std::vector<std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    std::optional<KnownTopic> known = TopicByName(ctx, t.name);
    const bool may_read = Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, t.name);
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (!may_read) {
        rp.error_code = ke::kTopicAuthorizationFailed;
        continue;
      }
      if (!known || part.partition_index < 0 || part.partition_index >= known->partitions) {
        rp.error_code = ke::kUnknownTopicOrPartition;
        continue;
      }
      valid.push_back({t.name, part.partition_index});
      slots.emplace_back(resp.topics.size() - 1, rt.partitions.size() - 1);
    }
  }
  GroupCoordinator::DeleteOffsetsResult r = ctx.groups->DeleteOffsets(req.group_id, valid);
  if (r.error_code != ke::kNone) {
    resp.error_code = r.error_code;
    resp.topics.clear();
    return resp;
  }
  for (size_t i = 0; i < r.partitions.size() && i < slots.size(); ++i) {
    resp.topics[slots[i].first].partitions[slots[i].second].error_code = r.partitions[i].second;
  }
  return resp;
}

p::ConsumerGroupHeartbeatResponseData HandleConsumerGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const p::ConsumerGroupHeartbeatRequestData& req, int16_t version) {
  auto fail = [](int16_t code) {
    p::ConsumerGroupHeartbeatResponseData r;
    r.error_code = code;
    return r;
  };
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  // A member may subscribe only to topics it may describe (else it would learn they exist).
  if (req.subscribed_topic_names) {
    for (const std::string& topic : *req.subscribed_topic_names) {
      if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic)) {
        return fail(ke::kTopicAuthorizationFailed);
      }
    }
  }
  if (ctx.groups == nullptr) return fail(ke::kCoordinatorNotAvailable);
  return ctx.groups->ConsumerGroupHeartbeat(
      version, GroupCoordinator::Client{client.client_id, client.client_host}, req);
}

p::ConsumerGroupDescribeResponseData HandleConsumerGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::ConsumerGroupDescribeRequestData& req, int16_t version) {
  using DescribedGroup = p::ConsumerGroupDescribeResponseData::DescribedGroup;
  p::ConsumerGroupDescribeResponseData resp;
  // The groups the client may not DESCRIBE come first, then those the coordinator describes.
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
      d = ctx.groups->DescribeConsumerGroup(id);
    }
    if (d.error_code == ke::kNone && req.include_authorized_operations) {
      d.authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kGroup, d.group_id);
    }
    // With an authorizer, a group whose members are assigned a topic the client may not
    // describe is not shown.
    bool hidden = false;
    if (ctx.authorizer != nullptr) {
      for (const auto& m : d.members) {
        for (const auto* a : {&m.assignment, &m.target_assignment}) {
          for (const auto& tp : a->topic_partitions)
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
    if (version < 1) {
      for (auto& m : d.members) m.member_type = -1;  // MemberType is v1+
    }
    resp.groups.push_back(std::move(d));
  }
  return resp;
}

}  // namespace seglog
