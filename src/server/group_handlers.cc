// The consumer group APIs: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
// OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups, OffsetDelete. The
// GroupCoordinator (src/group) keeps the groups; these functions translate each API version's
// shape (a single group or a batch, topic names or ids, where the errors go) to it and back,
// as Kafka's KafkaApis does.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/handlers.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

// Kafka's KafkaApis value for a group's authorized operations with no authorizer: READ,
// DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS.
constexpr int32_t kGroupAuthorizedOperations =
    (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

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
      return std::nullopt;
  }
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
  (void)rc;
  auto find = [&](int8_t key_type) {
    int16_t error = ke::kNone;
    if (key_type == kGroupKeyType) {
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
      error = ke::kCoordinatorNotAvailable;  // no share coordinator yet
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
    const int16_t e = find(key_type);
    resp.error_code = e;
    resp.error_message = e == ke::kNone ? std::optional<std::string>("NONE") : ErrorMessage(e);
    resp.node_id = e == ke::kNone ? ctx.node_id : -1;
    resp.host = e == ke::kNone ? endpoint.host : "";
    resp.port = e == ke::kNone ? port : -1;
    return resp;
  }
  for (const std::string& key : req.coordinator_keys) {
    auto& c = resp.coordinators.emplace_back();
    const int16_t e = find(key_type);
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
  (void)rc;
  auto shaped = [version, done = std::move(done)](p::JoinGroupResponseData r) {
    // Below v7 a null protocol name is sent as ""; from v7 an empty one as null.
    if (version < 7 && !r.protocol_name) r.protocol_name = "";
    if (version >= 7 && r.protocol_name && r.protocol_name->empty()) r.protocol_name.reset();
    done(std::move(r));
  };
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
  (void)rc;
  if (version >= 5 && (!req.protocol_type || !req.protocol_name)) {
    p::SyncGroupResponseData r;
    r.error_code = ke::kInconsistentGroupProtocol;
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
  (void)rc;
  (void)version;
  p::HeartbeatResponseData resp;
  resp.error_code = ctx.groups == nullptr
                        ? ke::kCoordinatorNotAvailable
                        : ctx.groups->Heartbeat(req.group_id, req.generation_id, req.member_id,
                                                req.group_instance_id);
  return resp;
}

p::LeaveGroupResponseData HandleLeaveGroup(const BrokerContext& ctx, const RequestContext& rc,
                                           const p::LeaveGroupRequestData& req, int16_t version) {
  (void)rc;
  p::LeaveGroupResponseData resp;
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
  (void)rc;
  p::OffsetCommitResponseData resp;
  std::vector<GroupCoordinator::CommitPartition> commits;
  // Where each partition's answer goes: (topic index, partition index) in resp.
  std::vector<std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    rt.topic_id = t.topic_id;
    std::optional<KnownTopic> known =
        version >= 10 ? TopicById(ctx, t.topic_id) : TopicByName(ctx, t.name);
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (!known) {
        rp.error_code = version >= 10 ? ke::kUnknownTopicId : ke::kUnknownTopicOrPartition;
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

// One group's OffsetFetch, in the v8+ shape.
p::OffsetFetchResponseData::OffsetFetchResponseGroup FetchGroup(
    const BrokerContext& ctx, const std::string& group_id,
    const std::optional<std::vector<p::OffsetFetchRequestData::OffsetFetchRequestTopics>>& topics,
    int16_t version, bool require_stable,
    const std::optional<std::string>& member_id = std::nullopt, int32_t member_epoch = -1) {
  p::OffsetFetchResponseData::OffsetFetchResponseGroup out;
  out.group_id = group_id;
  if (ctx.groups == nullptr) {
    out.error_code = ke::kCoordinatorNotAvailable;
    return out;
  }
  std::optional<std::vector<GroupCoordinator::FetchTopic>> want;
  // Requested topics unknown by id (v10) are answered UNKNOWN_TOPIC_ID without a lookup.
  std::vector<const p::OffsetFetchRequestData::OffsetFetchRequestTopics*> unknown_ids;
  if (topics) {
    want.emplace();
    for (const auto& t : *topics) {
      if (version >= 10) {
        std::optional<KnownTopic> k = TopicById(ctx, t.topic_id);
        if (!k) {
          unknown_ids.push_back(&t);
          continue;
        }
        want->push_back({k->name, t.partition_indexes});
      } else {
        want->push_back({t.name, t.partition_indexes});
      }
    }
  }
  GroupCoordinator::FetchResult r =
      ctx.groups->FetchOffsets(group_id, want, member_id, member_epoch, require_stable);
  out.error_code = r.error_code;
  if (r.error_code != ke::kNone) return out;
  std::map<std::string, size_t> at;
  for (const GroupCoordinator::FetchedOffset& f : r.offsets) {
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
  for (const auto* t : unknown_ids) {
    auto& rt = out.topics.emplace_back();
    rt.topic_id = t->topic_id;
    for (int32_t pi : t->partition_indexes) {
      auto& part = rt.partitions.emplace_back();
      part.partition_index = pi;
      part.committed_offset = -1;
      part.metadata = "";
      part.error_code = ke::kUnknownTopicId;
    }
  }
  return out;
}

}  // namespace

p::OffsetFetchResponseData HandleOffsetFetch(const BrokerContext& ctx, const RequestContext& rc,
                                             const p::OffsetFetchRequestData& req,
                                             int16_t version) {
  (void)rc;
  p::OffsetFetchResponseData resp;
  if (version >= 8) {
    for (const auto& g : req.groups) {
      resp.groups.push_back(FetchGroup(ctx, g.group_id, g.topics, version, req.require_stable,
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
      FetchGroup(ctx, req.group_id, topics, version, version >= 7 && req.require_stable);
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
  (void)rc;
  p::ListGroupsResponseData resp;
  if (ctx.groups == nullptr) return resp;
  for (const auto& g :
       ctx.groups->ListGroups(version >= 4 ? req.states_filter : std::vector<std::string>{},
                              version >= 5 ? req.types_filter : std::vector<std::string>{})) {
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
  (void)rc;
  p::DescribeGroupsResponseData resp;
  for (const std::string& id : req.groups) {
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
      if (version >= 3 && req.include_authorized_operations) {
        d->authorized_operations = kGroupAuthorizedOperations;
      }
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
  return resp;
}

p::DeleteGroupsResponseData HandleDeleteGroups(const BrokerContext& ctx, const RequestContext& rc,
                                               const p::DeleteGroupsRequestData& req,
                                               int16_t version) {
  (void)rc;
  (void)version;
  p::DeleteGroupsResponseData resp;
  std::set<std::string> seen;
  for (const std::string& id : req.groups_names) {
    if (!seen.insert(id).second) continue;
    auto& r = resp.results.emplace_back();
    r.group_id = id;
    r.error_code =
        ctx.groups == nullptr ? ke::kCoordinatorNotAvailable : ctx.groups->DeleteGroup(id);
  }
  return resp;
}

p::OffsetDeleteResponseData HandleOffsetDelete(const BrokerContext& ctx, const RequestContext& rc,
                                               const p::OffsetDeleteRequestData& req,
                                               int16_t version) {
  (void)rc;
  (void)version;
  p::OffsetDeleteResponseData resp;
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
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
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
  (void)rc;
  if (ctx.groups == nullptr) {
    p::ConsumerGroupHeartbeatResponseData r;
    r.error_code = ke::kCoordinatorNotAvailable;
    return r;
  }
  return ctx.groups->ConsumerGroupHeartbeat(
      version, GroupCoordinator::Client{client.client_id, client.client_host}, req);
}

p::ConsumerGroupDescribeResponseData HandleConsumerGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::ConsumerGroupDescribeRequestData& req, int16_t version) {
  (void)rc;
  p::ConsumerGroupDescribeResponseData resp;
  for (const std::string& id : req.group_ids) {
    p::ConsumerGroupDescribeResponseData::DescribedGroup d;
    if (ctx.groups == nullptr) {
      d.group_id = id;
      d.error_code = ke::kCoordinatorNotAvailable;
    } else {
      d = ctx.groups->DescribeConsumerGroup(id);
    }
    if (d.error_code == ke::kNone && req.include_authorized_operations) {
      d.authorized_operations = kGroupAuthorizedOperations;
    }
    if (version < 1) {
      for (auto& m : d.members) m.member_type = -1;  // MemberType is v1+
    }
    resp.groups.push_back(std::move(d));
  }
  return resp;
}

}  // namespace seglog
