// CreatePartitions, DeleteRecords, OffsetForLeaderEpoch, DescribeLogDirs and
// DescribeTopicPartitions: what a client asks of and about a topic's partitions.
//
// ACLs (Kafka's ControllerApis, KafkaApis and DescribeTopicPartitionsRequestHandler), each
// failure TOPIC_AUTHORIZATION_FAILED unless said otherwise: CreatePartitions needs ALTER on
// each topic; DeleteRecords DELETE on each topic; OffsetForLeaderEpoch CLUSTER_ACTION on the
// cluster or DESCRIBE on each topic; DescribeLogDirs DESCRIBE on the cluster (else
// CLUSTER_AUTHORIZATION_FAILED and no directories); DescribeTopicPartitions DESCRIBE on each
// topic (a request for every topic leaves the others out).
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace {

// Kafka's DeleteRecordsResponse.INVALID_LOW_WATERMARK.
constexpr int64_t kInvalidLowWatermark = -1;
// OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET.
constexpr int32_t kUndefinedEpoch = -1;
constexpr int64_t kUndefinedEpochOffset = -1;
// The leader epoch of every partition: seglog's one leader appends with epoch 0.
// The partition's leader epoch (its log's), 0 when it has no log.
int32_t LeaderEpochOf(const BrokerContext& ctx, const TopicPartition& tp) {
  Result<std::shared_ptr<Log>> log = ctx.logs->GetLog(tp);
  return log.ok() ? log.value()->leader_epoch() : 0;
}
// Kafka's max.request.partition.size.limit default: DescribeTopicPartitions answers at most
// this many partitions whatever the request asks.
constexpr int32_t kMaxRequestPartitionSizeLimit = 2000;

Uuid TopicIdOf(const TopicMetadata& md) {
  Result<Uuid> id = Uuid::Parse(md.topic_id);
  return id.ok() ? id.value() : Uuid{};
}

// Kafka's ReplicationControlManager.validateManualPartitionAssignment, for a node that is the
// only registered broker.
Status ValidateAssignment(const std::vector<int32_t>& replicas, int32_t node_id) {
  if (replicas.empty()) {
    return Status::InvalidArgument(
        "The manual partition assignment includes an empty replica list.");
  }
  std::set<int32_t> seen;
  for (int32_t b : replicas) {
    if (!seen.insert(b).second) {
      return Status::InvalidArgument(
          fmt::format("The manual partition assignment includes the broker {} more than once.", b));
    }
    if (b != node_id) {
      return Status::InvalidArgument(
          fmt::format("The manual partition assignment includes broker {}, but no such broker is "
                      "registered.",
                      b));
    }
  }
  return Status::OK();
}

}  // namespace

protocol::CreatePartitionsResponseData HandleCreatePartitions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::CreatePartitionsRequestData& req, int16_t version,
    ControllerMutationQuota* mutations) {
  (void)version;
  protocol::CreatePartitionsResponseData resp;
  std::set<std::string> seen, duplicates;
  for (const auto& t : req.topics) {
    if (!seen.insert(t.name).second) duplicates.insert(t.name);
  }
  std::set<std::string> answered_duplicates;
  // New partitions so far: Kafka's controller builds one record per new partition in a list
  // bounded at MAX_RECORDS_PER_USER_OP, and a topic that would overflow it fails with
  // UNKNOWN_SERVER_ERROR (no message). seglog refuses such a topic whole (Kafka may keep the
  // records that fit, a partial topic).
  int64_t new_partitions = 0;
  for (const auto& t : req.topics) {
    // Kafka's ControllerApis answers a duplicated name once.
    if (duplicates.count(t.name) && !answered_duplicates.insert(t.name).second) continue;
    auto& r = resp.results.emplace_back();
    r.name = t.name;
    r.error_message = std::nullopt;
    auto fail = [&](int16_t code, std::optional<std::string> message) {
      r.error_code = code;
      r.error_message = std::move(message);
    };
    if (duplicates.count(t.name)) {
      fail(kafka_error::kInvalidRequest, "Duplicate topic name.");
      continue;
    }
    if (!Authorized(ctx, rc, AclOperation::kAlter, ResourceType::kTopic, t.name)) {
      fail(kafka_error::kTopicAuthorizationFailed, std::nullopt);  // whether it exists or not
      continue;
    }
    Result<TopicMetadata> md = ctx.logs->FindTopic(t.name);
    if (!md.ok()) {
      // Kafka throws UnknownTopicOrPartitionException() without a message.
      fail(kafka_error::kUnknownTopicOrPartition, std::nullopt);
      continue;
    }
    const int32_t current = md.value().partitions;
    if (t.count < current) {
      fail(kafka_error::kInvalidPartitions,
           fmt::format("The topic {} currently has {} partition(s); {} would not be an increase.",
                       t.name, current, t.count));
      continue;
    }
    if (t.count == current) {
      fail(kafka_error::kInvalidPartitions,
           fmt::format("Topic already has {} partition(s).", current));
      continue;
    }
    const int32_t additional = t.count - current;
    if (t.assignments.has_value()) {
      if (static_cast<int32_t>(t.assignments->size()) != additional) {
        fail(kafka_error::kInvalidReplicaAssignment,
             fmt::format("Attempted to add {} additional partition(s), but only {} "
                         "assignment(s) were specified.",
                         additional, t.assignments->size()));
        continue;
      }
      Status bad;
      for (const auto& a : *t.assignments) {
        bad = ValidateAssignment(a.broker_ids, ctx.node_id);
        if (!bad.ok()) break;
      }
      if (!bad.ok()) {
        fail(kafka_error::kInvalidReplicaAssignment, std::string(bad.message()));
        continue;
      }
    }
    // The controller mutation quota, charged with the partitions added (Kafka's
    // createPartitions, after every other check and before the records are made).
    if (mutations != nullptr && !mutations->Record(additional)) {
      fail(kafka_error::kThrottlingQuotaExceeded, std::nullopt);  // no message, as Kafka
      continue;
    }
    if (new_partitions + additional > kMaxPartitionsPerRequest) {
      new_partitions = kMaxPartitionsPerRequest;
      fail(kafka_error::kUnknownServerError, std::nullopt);
      ctx.logger.Warn(fmt::format(
          "Unexpected createPartitions error for {}: adding {} partition(s) would exceed the "
          "{} records a request may make",
          t.name, additional, kMaxPartitionsPerRequest));
      continue;
    }
    new_partitions += additional;
    if (req.validate_only) continue;
    Status s = ctx.logs->AddPartitions(t.name, t.count);
    if (!s.ok()) {
      fail(kafka_error::FromStatus(s), kafka_error::MessageOf(s));
      continue;
    }
    ctx.logger.Info(
        fmt::format("Added {} partition(s) to topic {}, now {}", additional, t.name, t.count));
  }
  return resp;
}

protocol::DeleteRecordsResponseData HandleDeleteRecords(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DeleteRecordsRequestData& req, int16_t version) {
  (void)version;
  protocol::DeleteRecordsResponseData resp;
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    const bool may_delete =
        Authorized(ctx, rc, AclOperation::kDelete, ResourceType::kTopic, t.name);
    for (const auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      rp.low_watermark = kInvalidLowWatermark;
      if (!may_delete) {
        rp.error_code = kafka_error::kTopicAuthorizationFailed;
        continue;
      }
      Result<std::shared_ptr<Log>> log =
          ctx.logs->GetLog(TopicPartition{t.name, p.partition_index});
      if (!log.ok()) {
        rp.error_code = kafka_error::kUnknownTopicOrPartition;
        continue;
      }
      // -1 means the high watermark; the log refuses other negative offsets, offsets above the
      // high watermark (OffsetOutOfRangeException) and a log without the delete policy
      // (PolicyViolationException), as Kafka's Partition.deleteRecordsOnLeader does.
      Result<int64_t> start = log.value()->DeleteRecords(p.offset);
      if (!start.ok()) {
        rp.error_code = kafka_error::FromStatus(start.status());
        ctx.logger.Info(fmt::format("DeleteRecords on {}-{} failed: {}", t.name, p.partition_index,
                                    start.status().ToString()));
        continue;
      }
      rp.low_watermark = start.value();
    }
  }
  return resp;
}

protocol::OffsetForLeaderEpochResponseData HandleOffsetForLeaderEpoch(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::OffsetForLeaderEpochRequestData& req, int16_t version) {
  (void)version;
  protocol::OffsetForLeaderEpochResponseData resp;
  // A replica's CLUSTER_ACTION allows every topic; a client needs DESCRIBE on each.
  const bool cluster_action = ClusterAuthorized(ctx, rc, AclOperation::kClusterAction);
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.topic = t.topic;
    const bool may_describe = cluster_action || Authorized(ctx, rc, AclOperation::kDescribe,
                                                           ResourceType::kTopic, t.topic);
    for (const auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition = p.partition;
      rp.leader_epoch = kUndefinedEpoch;
      rp.end_offset = kUndefinedEpochOffset;
      if (!may_describe) {
        rp.error_code = kafka_error::kTopicAuthorizationFailed;
        continue;
      }
      Result<std::shared_ptr<Log>> log = ctx.logs->GetLog(TopicPartition{t.topic, p.partition});
      if (!log.ok()) {
        rp.error_code = kafka_error::kUnknownTopicOrPartition;
        continue;
      }
      // Kafka's Partition.localLogWithEpochOrThrow: -1 means "no epoch given".
      const int32_t leader_epoch = log.value()->leader_epoch();
      if (p.current_leader_epoch != -1 && p.current_leader_epoch < leader_epoch) {
        rp.error_code = kafka_error::kFencedLeaderEpoch;
        continue;
      }
      if (p.current_leader_epoch > leader_epoch) {
        rp.error_code = kafka_error::kUnknownLeaderEpoch;
        continue;
      }
      // Kafka's LeaderEpochFileCache.endOffsetFor.
      const std::vector<std::pair<int32_t, int64_t>> epochs = log.value()->leader_epochs();
      const int32_t requested = p.leader_epoch;
      if (requested == kUndefinedEpoch) continue;
      if (!epochs.empty() && epochs.back().first == requested) {
        rp.leader_epoch = requested;
        rp.end_offset = log.value()->log_end_offset();
        continue;
      }
      // The first epoch above the requested one, and the last at or below it.
      auto higher = std::upper_bound(
          epochs.begin(), epochs.end(), requested,
          [](int32_t e, const std::pair<int32_t, int64_t>& entry) { return e < entry.first; });
      if (higher == epochs.end()) continue;  // above every known epoch: undefined
      rp.end_offset = higher->second;
      rp.leader_epoch = higher == epochs.begin() ? requested : std::prev(higher)->first;
    }
  }
  return resp;
}

protocol::DescribeLogDirsResponseData HandleDescribeLogDirs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeLogDirsRequestData& req, int16_t version) {
  protocol::DescribeLogDirsResponseData resp;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribe)) {
    resp.error_code = kafka_error::kClusterAuthorizationFailed;  // v3+; older: no directories
    return resp;
  }
  // Which partitions to report, by topic; nullopt: every partition.
  std::map<std::string, std::optional<std::set<int32_t>>> wanted;
  const TopicMap all = ctx.logs->AllTopicMetadata();
  if (!req.topics.has_value()) {
    for (const auto& [name, md] : all) wanted[name] = std::nullopt;
  } else {
    for (const auto& t : *req.topics) {
      auto& set = wanted[t.topic];
      if (!set) set.emplace();
      set->insert(t.partitions.begin(), t.partitions.end());
    }
  }
  // dir -> topic -> partitions; a partition moving to another directory is listed there too,
  // as a future log with its lag behind the partition's log.
  struct Entry {
    int32_t partition;
    int64_t bytes;
    int64_t lag;
    bool future;
  };
  std::map<std::string, std::map<std::string, std::vector<Entry>>> by_dir;
  auto is_wanted = [&](const std::string& name, int32_t partition) {
    auto it = wanted.find(name);
    return it != wanted.end() && all.count(name) && (!it->second || it->second->count(partition));
  };
  for (const auto& [name, partitions] : wanted) {
    if (!all.count(name)) continue;
    Result<TopicDescription> d = ctx.logs->DescribeTopic(name);
    if (!d.ok()) continue;
    for (const PartitionDescription& p : d.value().partitions) {
      if (partitions && !partitions->count(p.partition)) continue;
      by_dir[p.log_dir][name].push_back({p.partition, p.bytes, 0, false});
    }
  }
  for (const LogManager::FutureLogInfo& f : ctx.logs->FutureLogs()) {
    if (!is_wanted(f.tp.topic, f.tp.partition)) continue;
    by_dir[f.dir][f.tp.topic].push_back(
        {f.tp.partition, f.log->size_in_bytes(), f.offset_lag, true});
  }
  for (const std::string& dir : ctx.logs->config().log_dirs) {
    auto& r = resp.results.emplace_back();
    r.log_dir = LogManager::AbsoluteDir(dir);
    auto it = by_dir.find(dir);
    if (it != by_dir.end()) {
      for (const auto& [name, parts] : it->second) {
        auto& t = r.topics.emplace_back();
        t.name = name;
        for (const Entry& e : parts) {
          auto& p = t.partitions.emplace_back();
          p.partition_index = e.partition;
          p.partition_size = e.bytes;
          p.offset_lag = e.lag;
          p.is_future_key = e.future;
        }
      }
    }
    if (version >= 4) {
      struct statvfs st {};
      if (statvfs(dir.c_str(), &st) == 0) {
        r.total_bytes = static_cast<int64_t>(st.f_blocks) * static_cast<int64_t>(st.f_frsize);
        r.usable_bytes = static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
      }
    }
  }
  return resp;
}

protocol::DescribeTopicPartitionsResponseData HandleDescribeTopicPartitions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeTopicPartitionsRequestData& req, int16_t version) {
  (void)version;
  using Resp = protocol::DescribeTopicPartitionsResponseData;
  Resp resp;
  const TopicMap all = ctx.logs->AllTopicMetadata();
  // The topics in name order: all of them for an empty list (Kafka's fetchAllTopics).
  std::set<std::string> names;
  if (req.topics.empty()) {
    for (const auto& [name, md] : all) names.insert(name);
  } else {
    for (const auto& t : req.topics) names.insert(t.name);
  }
  auto refuse = [&](const std::string& message) {
    ctx.logger.Info("DescribeTopicPartitions refused: " + message);
    for (const std::string& name : names) {
      auto& t = resp.topics.emplace_back();
      t.error_code = kafka_error::kInvalidRequest;
      t.name = name;
    }
    return resp;
  };
  std::string first_topic;
  int32_t first_partition = 0;
  if (req.cursor.has_value()) {
    first_topic = req.cursor->topic_name;
    first_partition = req.cursor->partition_index;
    if (!req.topics.empty() && !names.count(first_topic)) {
      return refuse(fmt::format(
          "DescribeTopicPartitionsRequest topic list should contain the cursor topic: {}",
          first_topic));
    }
    if (first_partition < 0) {
      return refuse(fmt::format("DescribeTopicPartitionsRequest cursor partition must be valid: {}",
                                first_partition));
    }
  }
  // The topics from the cursor on that the client may describe; the others it named are
  // listed after them as TOPIC_AUTHORIZATION_FAILED (Kafka checks every name before it
  // describes any), those of a request for every topic left out.
  std::set<std::string> described;
  std::vector<std::string> refused;
  for (auto it = names.lower_bound(first_topic); it != names.end(); ++it) {
    if (Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, *it)) {
      described.insert(*it);
    } else if (!req.topics.empty()) {
      refused.push_back(*it);
    }
  }
  int32_t remaining = std::min(req.response_partition_limit, kMaxRequestPartitionSizeLimit);
  for (const std::string& name : described) {
    if (remaining <= 0) {
      // The limit was used up exactly at the end of the previous topic.
      resp.next_cursor = Resp::Cursor{};
      resp.next_cursor->topic_name = name;
      resp.next_cursor->partition_index = 0;
      break;
    }
    auto& t = resp.topics.emplace_back();
    t.name = name;
    t.topic_authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kTopic, name);
    auto md = all.find(name);
    if (md == all.end()) {
      t.error_code = kafka_error::kUnknownTopicOrPartition;
      continue;
    }
    t.topic_id = TopicIdOf(md->second);
    t.is_internal = IsInternalTopic(name);
    const int32_t count = md->second.partitions;
    const int32_t start = name == first_topic ? first_partition : 0;
    const int32_t end =
        static_cast<int32_t>(std::min<int64_t>(static_cast<int64_t>(start) + remaining, count));
    for (int32_t p = start; p < end; ++p) {
      auto& part = t.partitions.emplace_back();
      part.partition_index = p;
      part.leader_id = ctx.node_id;
      part.leader_epoch = LeaderEpochOf(ctx, {name, p});
      part.replica_nodes = {ctx.node_id};
      part.isr_nodes = {ctx.node_id};
      part.eligible_leader_replicas = std::vector<int32_t>{};
      part.last_known_elr = std::vector<int32_t>{};
    }
    if (end > start) remaining -= end - start;
    if (end < count) {
      resp.next_cursor = Resp::Cursor{};
      resp.next_cursor->topic_name = name;
      resp.next_cursor->partition_index = end;
      break;
    }
  }
  for (const std::string& name : refused) {
    auto& t = resp.topics.emplace_back();
    t.error_code = kafka_error::kTopicAuthorizationFailed;
    t.name = name;
    t.is_internal = false;
  }
  return resp;
}

}  // namespace seglog
