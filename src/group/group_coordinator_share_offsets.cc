// GroupCoordinator::Core: KIP-932's share group offset admin APIs, DescribeShareGroupOffsets,
// AlterShareGroupOffsets and DeleteShareGroupOffsets, as Kafka 4.4.0's GroupCoordinatorService
// and GroupMetadataManager answer them. Each works in up to three steps, so that no shard mutex
// is held while the share coordinator (ShareStateAdmin) or a partition log is asked:
//   1. under the shard's mutex: the checks, and the type-15 record that says what is about to
//      happen (partitions initializing, or deleting);
//   2. without it: the share state is read, initialized or deleted;
//   3. under it again: the type-15 record of the outcome (initialized, or forgotten).
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
namespace p = protocol;
using DescribedGroup =
    p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup;
using DescribedTopic =
    p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseTopic;
using DescribedPartition =
    p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponsePartition;
using AlterResp = p::AlterShareGroupOffsetsResponseData;
using DeleteResp = p::DeleteShareGroupOffsetsResponseData;

// Kafka's Errors.message() of the codes these APIs answer without a message of their own.
std::string DefaultMessage(int16_t code) {
  switch (code) {
    case ke::kCoordinatorNotAvailable:
      return "The coordinator is not available.";
    case ke::kCoordinatorLoadInProgress:
      return "The coordinator is loading and hence can't process requests.";
    case ke::kNotCoordinator:
      return "This is not the correct coordinator.";
    case ke::kInvalidGroupId:
      return "The configured groupId is invalid.";
    case ke::kNonEmptyGroup:
      return "The group is not empty.";
    case ke::kUnknownTopicOrPartition:
      return "This server does not host this topic-partition.";
    case ke::kGroupIdNotFound:
      return "The group id does not exist.";
    default:
      return "The server experienced an unexpected error when processing the request.";
  }
}

DescribedGroup DescribeError(const std::string& group_id, int16_t code) {
  DescribedGroup g;
  g.group_id = group_id;
  g.error_code = code;
  g.error_message = DefaultMessage(code);
  return g;
}

AlterResp AlterError(int16_t code, std::optional<std::string> message = std::nullopt) {
  AlterResp r;
  r.error_code = code;
  r.error_message = message ? std::move(message) : DefaultMessage(code);
  return r;
}

DeleteResp DeleteError(int16_t code, std::optional<std::string> message = std::nullopt) {
  DeleteResp r;
  r.error_code = code;
  r.error_message = message ? std::move(message) : DefaultMessage(code);
  return r;
}

}  // namespace

DescribedGroup GroupCoordinator::Core::ShareOffsetsFromSummary(
    const std::string& group_id, const std::vector<ShareStateAdmin::TopicPartitions>& topics,
    const std::map<Uuid, std::string, UuidLess>& names) {
  DescribedGroup out;
  out.group_id = group_id;
  if (topics.empty()) return out;
  std::shared_ptr<ShareStateAdmin> admin = ShareAdmin();
  Result<std::vector<ShareStateAdmin::TopicSummary>> summary =
      admin ? admin->ReadShareStateSummary(group_id, topics)
            : ShareStateAdmin::NoStateSummary(topics);
  if (!summary.ok()) {
    Warn(fmt::format("[GroupId {}] Failed to read summary of the share partitions: {}", group_id,
                     summary.status().ToString()));
    return DescribeError(group_id, ke::kUnknownServerError);
  }
  for (const ShareStateAdmin::TopicSummary& t : *summary) {
    DescribedTopic& topic = out.topics.emplace_back();
    topic.topic_id = t.topic_id;
    auto name = names.find(t.topic_id);
    topic.topic_name = name == names.end() ? "" : name->second;
    for (const ShareStateAdmin::PartitionSummary& ps : t.partitions) {
      DescribedPartition& part = topic.partitions.emplace_back();
      part.partition_index = ps.partition;
      part.lag = -1;
      const bool ok = ps.error_code == ke::kNone;
      // Kafka's shouldComputeSharePartitionLag.
      if (!ok || ps.start_offset == -1 || ps.delivery_complete_count == -1) {
        part.start_offset = ok ? ps.start_offset : -1;
        part.leader_epoch = ok ? ps.leader_epoch : 0;
        continue;
      }
      Result<std::shared_ptr<Log>> log = logs_->GetLog({topic.topic_name, ps.partition});
      if (!log.ok()) {
        part.error_code = ke::kUnknownTopicOrPartition;
        part.error_message = DefaultMessage(ke::kUnknownTopicOrPartition);
        part.start_offset = 0;
        continue;
      }
      part.start_offset = ps.start_offset;
      part.leader_epoch = ps.leader_epoch;
      part.lag = (*log)->high_watermark() - ps.start_offset - ps.delivery_complete_count;
    }
  }
  return out;
}

DescribedGroup GroupCoordinator::Core::DescribeShareGroupOffsets(
    const p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup& req) {
  if (Status t = EnsureOffsetsTopic(); !t.ok()) {
    return DescribeError(req.group_id, ke::kCoordinatorNotAvailable);
  }
  std::vector<ShareStateAdmin::TopicPartitions> topics;
  std::map<Uuid, std::string, UuidLess> names;
  std::vector<DescribedTopic> unknown;
  if (req.topics) {
    // Named topics: Kafka asks the share coordinator without looking at the group.
    for (const auto& t : *req.topics) {
      std::optional<ConsumerGroupTopic> md = TopicByName(t.topic_name);
      if (!md) {
        DescribedTopic& u = unknown.emplace_back();
        u.topic_name = t.topic_name;
        for (int32_t p : t.partitions) {
          DescribedPartition& part = u.partitions.emplace_back();
          part.partition_index = p;
          part.start_offset = -1;
        }
        continue;
      }
      names[md->id] = t.topic_name;
      topics.push_back(ShareStateAdmin::TopicPartitions{md->id, t.partitions});
    }
  } else {
    // Every initialized share-partition (initializedShareGroupPartitions).
    Shard& s = ShardFor(req.group_id);
    ShareStateTopics initialized;
    {
      MutexLock l(&s.mu);
      if (int16_t e = Unavailable(s); e != ke::kNone) return DescribeError(req.group_id, e);
      if (ShareGroup* g = FindShareGroup(s, req.group_id); g && g->state_partitions()) {
        initialized = g->state_partitions()->initialized;
      }
    }
    for (const auto& [id, t] : initialized) {
      std::optional<std::string> name = TopicName(id);
      if (!name) continue;
      names[id] = *name;
      topics.push_back(ShareStateAdmin::TopicPartitions{
          id, std::vector<int32_t>(t.partitions.begin(), t.partitions.end())});
    }
  }
  DescribedGroup out = ShareOffsetsFromSummary(req.group_id, topics, names);
  if (out.error_code != ke::kNone) return out;
  for (DescribedTopic& u : unknown) out.topics.push_back(std::move(u));
  return out;
}

AlterResp GroupCoordinator::Core::AlterShareGroupOffsets(
    const p::AlterShareGroupOffsetsRequestData& req) {
  if (Status t = EnsureOffsetsTopic(); !t.ok()) return AlterError(ke::kCoordinatorNotAvailable);
  if (req.group_id.empty()) return AlterError(ke::kInvalidGroupId);
  AlterResp resp;
  // Per topic id: the partitions to initialize, grouped by start offset.
  std::map<Uuid, std::map<int64_t, std::vector<int32_t>>, UuidLess> offsets;
  ShareStateTopics initializing;
  int32_t state_epoch = 0;
  Shard& s = ShardFor(req.group_id);
  {
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return AlterError(e);
    // getOrMaybeCreateShareGroup(groupId, true).
    if (s.groups.count(req.group_id) || s.consumer_groups.count(req.group_id)) {
      return AlterError(ke::kGroupIdNotFound,
                        fmt::format("Group {} is not a share group.", req.group_id));
    }
    ShareGroup* existing = FindShareGroup(s, req.group_id);
    if (existing != nullptr && existing->dead()) existing = nullptr;
    if (existing != nullptr && !existing->members().empty()) {
      return AlterError(ke::kNonEmptyGroup);
    }
    const int64_t now = scheduler_->NowMs();
    for (const auto& t : req.topics) {
      auto& rt = resp.responses.emplace_back();
      rt.topic_name = t.topic_name;
      std::optional<ConsumerGroupTopic> md = TopicByName(t.topic_name);
      if (md) rt.topic_id = md->id;
      for (const auto& part : t.partitions) {
        auto& rp = rt.partitions.emplace_back();
        rp.partition_index = part.partition_index;
        if (!md || part.partition_index < 0 || part.partition_index >= md->partitions) {
          rp.error_code = ke::kUnknownTopicOrPartition;
          rp.error_message = DefaultMessage(ke::kUnknownTopicOrPartition);
          continue;
        }
        offsets[md->id][part.start_offset].push_back(part.partition_index);
        ShareStateTopic& init = initializing[md->id];
        init.name = t.topic_name;
        init.partitions.insert(part.partition_index);
        init.timestamp_ms = now;
      }
    }
    if (initializing.empty()) return resp;
    // addInitializingTopicsRecords: added to initializing, no longer deleting.
    ShareGroup next = existing != nullptr ? *existing : ShareGroup(req.group_id);
    ShareGroupStatePartitions sp = next.state_partitions().value_or(ShareGroupStatePartitions{});
    for (const auto& [id, t] : initializing) {
      ShareStateTopic& cur = sp.initializing[id];
      cur.name = t.name;
      cur.partitions.insert(t.partitions.begin(), t.partitions.end());
      cur.timestamp_ms = now;
      if (sp.deleting.erase(id) != 0) {
        Warn(
            fmt::format("Initializing topic {} for share group {} found in deleting state as "
                        "well, removing from deleting.",
                        t.name, req.group_id));
      }
    }
    OffsetsRecord record = ShareGroupStatePartitionMetadataRecord(req.group_id, sp);
    if (Status w = Append(s, {record}); !w.ok()) return AlterError(AppendErrorToClient(w));
    next.set_state_partitions(std::move(sp));
    state_epoch = next.group_epoch();
    if (existing != nullptr) {
      *existing = std::move(next);
    } else {
      s.share_groups[req.group_id] = std::make_unique<ShareGroup>(std::move(next));
    }
  }
  // The share state, topic by topic, so that one topic's failure is that topic's alone.
  std::map<Uuid, Status, UuidLess> outcome;
  std::shared_ptr<ShareStateAdmin> admin = ShareAdmin();
  for (const auto& [id, by_offset] : offsets) {
    std::vector<ShareStateAdmin::InitializeTopic> topic;
    for (const auto& [offset, partitions] : by_offset) {
      topic.push_back(ShareStateAdmin::InitializeTopic{id, partitions, offset});
    }
    outcome[id] =
        admin ? admin->InitializeShareState(req.group_id, state_epoch, topic) : Status::OK();
  }
  ShareStateTopics done;
  for (const auto& [id, st] : outcome) {
    if (st.ok()) {
      done[id] = initializing[id];
      continue;
    }
    Warn(
        fmt::format("[GroupId {}] Unable to initialize share group state for topic {} while "
                    "altering share group offsets: {}",
                    req.group_id, initializing[id].name, st.ToString()));
    for (auto& rt : resp.responses) {
      if (rt.topic_id != id) continue;
      for (auto& rp : rt.partitions) {
        if (rp.error_code != ke::kNone) continue;
        rp.error_code = ke::FromStatus(st);
        rp.error_message = ke::MessageOf(st);
      }
    }
  }
  if (done.empty()) return resp;
  MutexLock l(&s.mu);
  if (Unavailable(s) != ke::kNone) return resp;
  ShareGroup* g = FindShareGroup(s, req.group_id);
  if (g == nullptr || g->dead()) return resp;
  ShareGroup next = *g;
  std::optional<OffsetsRecord> record = CompleteShareStateInitialization(&next, done, true);
  // A failed append leaves the partitions initializing: a heartbeat asks again later.
  if (record && Append(s, {*record}).ok()) *g = std::move(next);
  return resp;
}

DeleteResp GroupCoordinator::Core::DeleteShareGroupOffsets(
    const p::DeleteShareGroupOffsetsRequestData& req) {
  if (Status t = EnsureOffsetsTopic(); !t.ok()) return DeleteError(ke::kCoordinatorNotAvailable);
  if (req.group_id.empty()) return DeleteError(ke::kInvalidGroupId);
  std::vector<DeleteResp::DeleteShareGroupOffsetsResponseTopic> errors;
  std::vector<ShareStateAdmin::TopicPartitions> to_delete;
  std::map<Uuid, std::string, UuidLess> names;
  Shard& s = ShardFor(req.group_id);
  {
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return DeleteError(e);
    ShareGroup* g = FindShareGroup(s, req.group_id);
    if (g == nullptr || g->dead()) {
      return DeleteError(ke::kGroupIdNotFound,
                         s.groups.count(req.group_id) || s.consumer_groups.count(req.group_id)
                             ? fmt::format("Group {} is not a share group.", req.group_id)
                             : fmt::format("Group {} not found.", req.group_id));
    }
    if (!g->members().empty()) return DeleteError(ke::kNonEmptyGroup);
    // sharePartitionsEligibleForOffsetDeletion.
    if (!g->state_partitions()) return DeleteResp{};
    ShareGroupStatePartitions sp = *g->state_partitions();
    for (const auto& t : req.topics) {
      auto error = [&](std::string message) {
        auto& e = errors.emplace_back();
        e.topic_name = t.topic_name;
        e.error_code = ke::kUnknownTopicOrPartition;
        e.error_message = std::move(message);
      };
      std::optional<ConsumerGroupTopic> md = TopicByName(t.topic_name);
      if (!md) {
        error(DefaultMessage(ke::kUnknownTopicOrPartition));
        continue;
      }
      if (auto it = sp.initialized.find(md->id); it != sp.initialized.end()) {
        to_delete.push_back(ShareStateAdmin::TopicPartitions{
            md->id,
            std::vector<int32_t>(it->second.partitions.begin(), it->second.partitions.end())});
        sp.initialized.erase(it);
        sp.deleting[md->id] = t.topic_name;
      } else if (sp.deleting.count(md->id)) {
        ShareStateAdmin::TopicPartitions all{md->id, {}};
        for (int32_t p = 0; p < md->partitions; ++p) all.partitions.push_back(p);
        to_delete.push_back(std::move(all));
      } else {
        error("There is no offset information to delete.");
        continue;
      }
      names[md->id] = t.topic_name;
    }
    ShareGroup next = *g;
    OffsetsRecord record = ShareGroupStatePartitionMetadataRecord(req.group_id, sp);
    if (Status w = Append(s, {record}); !w.ok()) return DeleteError(AppendErrorToClient(w));
    next.set_state_partitions(std::move(sp));
    *g = std::move(next);
  }
  DeleteResp resp;
  if (to_delete.empty()) {
    resp.responses = std::move(errors);
    return resp;
  }
  std::shared_ptr<ShareStateAdmin> admin = ShareAdmin();
  std::set<Uuid, UuidLess> deleted;
  for (const ShareStateAdmin::TopicPartitions& t : to_delete) {
    Status d = admin ? admin->DeleteShareState(req.group_id, {t}) : Status::OK();
    if (d.ok()) {
      deleted.insert(t.topic_id);
      continue;
    }
    Warn(fmt::format("[GroupId {}] Failed to delete the share state of topic {}: {}", req.group_id,
                     names[t.topic_id], d.ToString()));
    auto& e = errors.emplace_back();
    e.topic_id = t.topic_id;
    e.topic_name = names[t.topic_id];
    e.error_code = ke::FromStatus(d);
    e.error_message = ke::MessageOf(d);
  }
  if (!deleted.empty()) {
    // completeDeleteShareGroupOffsets: the deleted topics leave deleting.
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return DeleteError(e);
    ShareGroup* g = FindShareGroup(s, req.group_id);
    if (g != nullptr && !g->dead() && g->state_partitions()) {
      ShareGroupStatePartitions sp = *g->state_partitions();
      for (const Uuid& id : deleted) sp.deleting.erase(id);
      OffsetsRecord record = ShareGroupStatePartitionMetadataRecord(req.group_id, sp);
      if (Status w = Append(s, {record}); !w.ok()) return DeleteError(AppendErrorToClient(w));
      g->set_state_partitions(std::move(sp));
    }
    for (const Uuid& id : deleted) {
      auto& ok = resp.responses.emplace_back();
      ok.topic_id = id;
      ok.topic_name = names[id];
    }
  }
  for (auto& e : errors) resp.responses.push_back(std::move(e));
  return resp;
}

}  // namespace seglog
