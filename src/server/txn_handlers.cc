// The transaction APIs (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit,
// DescribeTransactions, ListTransactions, InitProducerId of a transactional id) over the
// TransactionCoordinator, and the marker writer it is started with. Kafka's KafkaApis rules:
// docs/design/transaction_coordinator_facts.md §3, §4, §7.
//
// ACLs (Kafka's KafkaApis), checked before the coordinator is asked anything: WRITE on the
// transactional id for InitProducerId, AddPartitionsToTxn (v0-3), AddOffsetsToTxn, EndTxn and
// TxnOffsetCommit (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); then READ on the group to add or
// commit offsets (GROUP_AUTHORIZATION_FAILED); WRITE on each topic added (v0-3) and READ on
// each topic committed (TOPIC_AUTHORIZATION_FAILED). AddPartitionsToTxn v4+ comes from brokers:
// CLUSTER_ACTION. DescribeTransactions needs DESCRIBE on each id and hides the topics the
// client may not describe; ListTransactions lists the ids the client may describe.
#include <fmt/format.h>

#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"
#include "txn/transaction_coordinator.h"
#include "txn/transaction_marker.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
namespace p = protocol;

// Kafka's Topic.isInternal.
bool MayWrite(const BrokerContext& ctx, const RequestContext& rc,
              const std::string& transactional_id) {
  return Authorized(ctx, rc, AclOperation::kWrite, ResourceType::kTransactionalId,
                    transactional_id);
}

// Below these versions PRODUCER_FENCED (v4+ of InitProducerId, v2+ of the others) is
// INVALID_PRODUCER_EPOCH for the client.
int16_t OldFenced(int16_t code, int16_t version, int16_t fenced_from) {
  return code == ke::kProducerFenced && version < fenced_from ? ke::kInvalidProducerEpoch : code;
}

}  // namespace

p::InitProducerIdResponseData HandleTransactionalInitProducerId(
    const BrokerContext& ctx, const RequestContext& rc, const p::InitProducerIdRequestData& req,
    int16_t version) {
  p::InitProducerIdResponseData resp;
  if (!MayWrite(ctx, rc, *req.transactional_id)) {
    resp.error_code = ke::kTransactionalIdAuthorizationFailed;
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    return resp;
  }
  if (ctx.txns == nullptr) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  if (version >= 6 && req.keep_prepared_txn) {
    resp.error_code = ke::kUnsupportedVersion;  // KIP-939's prepared transactions: not in 4.4.0
    return resp;
  }
  if (version >= 6 && req.enable2_pc) {
    // transaction.two.phase.commit.enable is false, as Kafka 4.4.0's default.
    resp.error_code = ke::kTransactionalIdAuthorizationFailed;
    return resp;
  }
  TransactionCoordinator::ProducerIdAndEpoch r = ctx.txns->InitProducerId(
      *req.transactional_id, req.transaction_timeout_ms, version >= 3 ? req.producer_id : -1,
      version >= 3 ? req.producer_epoch : -1);
  resp.error_code = OldFenced(r.error_code, version, 4);
  resp.producer_id = r.producer_id;
  resp.producer_epoch = r.producer_epoch;
  return resp;
}

p::AddPartitionsToTxnResponseData HandleAddPartitionsToTxn(
    const BrokerContext& ctx, const RequestContext& rc, const p::AddPartitionsToTxnRequestData& req,
    int16_t version) {
  p::AddPartitionsToTxnResponseData resp;
  // v4+ is a broker's (its produce's partitions, or their verification): CLUSTER_ACTION, else
  // the whole request fails.
  if (version >= 4 && !ClusterAuthorized(ctx, rc, AclOperation::kClusterAction)) {
    resp.error_code = ke::kClusterAuthorizationFailed;
    return resp;
  }
  // v0-3 are the v4+ shape with one transaction (KafkaApis normalizes them so).
  std::vector<p::AddPartitionsToTxnRequestData::AddPartitionsToTxnTransaction> txns;
  if (version < 4) {
    auto& t = txns.emplace_back();
    t.transactional_id = req.v3_and_below_transactional_id;
    t.producer_id = req.v3_and_below_producer_id;
    t.producer_epoch = req.v3_and_below_producer_epoch;
    t.topics = req.v3_and_below_topics;
  } else {
    txns = req.transactions;
  }
  for (const auto& t : txns) {
    std::vector<TopicPartition> partitions;
    // Per partition: the error the broker found itself (unknown, internal at v0-3), else 0.
    std::vector<int16_t> errors;
    bool any_bad = false;
    // v0-3, a client's: WRITE on the transactional id, else every partition fails.
    const bool txn_refused = version < 4 && !MayWrite(ctx, rc, t.transactional_id);
    for (const auto& topic : t.topics) {
      Result<TopicMetadata> md = ctx.logs->FindTopic(topic.name);
      // A client never adds an internal topic itself, and needs WRITE on the others.
      const bool topic_refused = version < 4 && (IsInternalTopic(topic.name) ||
                                                 !Authorized(ctx, rc, AclOperation::kWrite,
                                                             ResourceType::kTopic, topic.name));
      for (int32_t partition : topic.partitions) {
        int16_t e = ke::kNone;
        if (txn_refused) {
          e = ke::kTransactionalIdAuthorizationFailed;
        } else if (topic_refused) {
          e = ke::kTopicAuthorizationFailed;
        } else if (!md.ok() || partition < 0 || partition >= md->partitions) {
          e = ke::kUnknownTopicOrPartition;
        }
        any_bad = any_bad || e != ke::kNone;
        partitions.push_back(TopicPartition{topic.name, partition});
        errors.push_back(e);
      }
    }
    if (txn_refused) {
      // Every partition carries the transactional id's failure.
    } else if (any_bad) {
      // The rest are not attempted; the coordinator is not asked.
      for (int16_t& e : errors) {
        if (e == ke::kNone) e = ke::kOperationNotAttempted;
      }
    } else if (ctx.txns == nullptr) {
      errors.assign(errors.size(), ke::kCoordinatorNotAvailable);
    } else if (version >= 4 && t.verify_only) {
      TransactionCoordinator::Verification v = ctx.txns->VerifyPartitions(
          t.transactional_id, t.producer_id, t.producer_epoch, partitions);
      if (v.error_code != ke::kNone) {
        errors.assign(errors.size(), v.error_code);
      } else {
        errors = v.partition_errors;
      }
    } else {
      // v4+ come from brokers adding their produce's partitions (transaction.version 2).
      const int16_t e = ctx.txns->AddPartitions(t.transactional_id, t.producer_id, t.producer_epoch,
                                                partitions, version >= 4 ? 2 : 0);
      errors.assign(errors.size(), OldFenced(e, version, 2));
    }
    // The answer, grouped by topic in the request's order.
    std::vector<p::AddPartitionsToTxnResponseData::AddPartitionsToTxnTopicResult> by_topic;
    size_t i = 0;
    for (const auto& topic : t.topics) {
      auto& tr = by_topic.emplace_back();
      tr.name = topic.name;
      for (int32_t partition : topic.partitions) {
        auto& pr = tr.results_by_partition.emplace_back();
        pr.partition_index = partition;
        pr.partition_error_code = errors[i++];
      }
    }
    if (version < 4) {
      resp.results_by_topic_v3_and_below = std::move(by_topic);
    } else {
      auto& r = resp.results_by_transaction.emplace_back();
      r.transactional_id = t.transactional_id;
      r.topic_results = std::move(by_topic);
    }
  }
  return resp;
}

p::AddOffsetsToTxnResponseData HandleAddOffsetsToTxn(const BrokerContext& ctx,
                                                     const RequestContext& rc,
                                                     const p::AddOffsetsToTxnRequestData& req,
                                                     int16_t version) {
  p::AddOffsetsToTxnResponseData resp;
  if (!MayWrite(ctx, rc, req.transactional_id)) {
    resp.error_code = ke::kTransactionalIdAuthorizationFailed;
    return resp;
  }
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)) {
    resp.error_code = ke::kGroupAuthorizationFailed;
    return resp;
  }
  if (ctx.txns == nullptr || ctx.groups == nullptr) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  // The group's offsets partition joins the transaction; TxnOffsetCommit then writes there.
  const TopicPartition offsets{"__consumer_offsets", ctx.groups->PartitionFor(req.group_id)};
  if (Status s = ctx.groups->EnsureOffsetsTopic(); !s.ok()) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  resp.error_code = OldFenced(
      ctx.txns->AddPartitions(req.transactional_id, req.producer_id, req.producer_epoch, {offsets}),
      version, 2);
  return resp;
}

p::EndTxnResponseData HandleEndTxn(const BrokerContext& ctx, const RequestContext& rc,
                                   const p::EndTxnRequestData& req, int16_t version) {
  p::EndTxnResponseData resp;
  if (!MayWrite(ctx, rc, req.transactional_id)) {
    resp.error_code = ke::kTransactionalIdAuthorizationFailed;
    return resp;
  }
  if (ctx.txns == nullptr) {
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  // v5+ is a transaction.version 2 client's (KIP-890 part 2): the answer carries the epoch it
  // bumped.
  TransactionCoordinator::ProducerIdAndEpoch r =
      ctx.txns->EndTxn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed,
                       version >= 5 ? 2 : 0);
  resp.error_code = OldFenced(r.error_code, version, 2);
  resp.producer_id = r.producer_id;
  resp.producer_epoch = r.producer_epoch;
  return resp;
}

p::TxnOffsetCommitResponseData HandleTxnOffsetCommit(const BrokerContext& ctx,
                                                     const RequestContext& rc,
                                                     const p::TxnOffsetCommitRequestData& req,
                                                     int16_t version) {
  p::TxnOffsetCommitResponseData resp;
  // WRITE on the transactional id, then READ on the group, else every partition fails
  // (Kafka's TxnOffsetCommitRequest.getErrorResponse).
  const int16_t refused =
      !MayWrite(ctx, rc, req.transactional_id) ? ke::kTransactionalIdAuthorizationFailed
      : !Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, req.group_id)
          ? ke::kGroupAuthorizationFailed
          : ke::kNone;
  std::vector<GroupCoordinator::CommitPartition> commits;
  std::vector<std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    rt.topic_id = t.topic_id;
    std::optional<std::string> name = t.name;
    if (version >= 6) name = TopicNameForId(ctx, t.topic_id);
    Result<TopicMetadata> md =
        name ? ctx.logs->FindTopic(*name) : Result<TopicMetadata>(Status::NotFound("topic id"));
    // READ on the topic: after an unknown topic id, before an unknown name.
    const bool may_read =
        name && Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, *name);
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (refused != ke::kNone) {
        rp.error_code = refused;
        continue;
      }
      if (!name) {
        rp.error_code = ke::kUnknownTopicId;
        continue;
      }
      if (!may_read) {
        rp.error_code = ke::kTopicAuthorizationFailed;
        continue;
      }
      if (!md.ok()) {
        rp.error_code = version >= 6 ? ke::kUnknownTopicId : ke::kUnknownTopicOrPartition;
        continue;
      }
      if (part.partition_index < 0 || part.partition_index >= md->partitions) {
        rp.error_code = ke::kUnknownTopicOrPartition;
        continue;
      }
      GroupCoordinator::CommitPartition c;
      c.topic = *name;
      if (auto id = Uuid::Parse(md->topic_id); id.ok()) c.topic_id = *id;
      c.partition = part.partition_index;
      c.offset = part.committed_offset;
      c.leader_epoch = part.committed_leader_epoch;
      c.metadata = part.committed_metadata;
      commits.push_back(std::move(c));
      slots.emplace_back(resp.topics.size() - 1, rt.partitions.size() - 1);
    }
  }
  if (commits.empty()) return resp;
  auto fail_all = [&](int16_t code) {
    for (const auto& [ti, pi] : slots) resp.topics[ti].partitions[pi].error_code = code;
    return resp;
  };
  if (ctx.groups == nullptr || ctx.txns == nullptr) return fail_all(ke::kCoordinatorNotAvailable);
  if (req.group_id.empty()) return fail_all(ke::kInvalidGroupId);
  if (Status s = ctx.groups->EnsureOffsetsTopic(); !s.ok()) {
    return fail_all(ke::kCoordinatorNotAvailable);
  }
  // The group's offsets partition must be in the transaction (AddOffsetsToTxn): Kafka's
  // verification of the coordinator's own transactional write, with Produce's error mapping.
  const TopicPartition offsets{"__consumer_offsets", ctx.groups->PartitionFor(req.group_id)};
  int16_t verified = ke::kNone;
  if (version >= 5) {
    verified = ctx.txns->AddPartitions(req.transactional_id, req.producer_id, req.producer_epoch,
                                       {offsets}, 2);
  } else {
    TransactionCoordinator::Verification v = ctx.txns->VerifyPartitions(
        req.transactional_id, req.producer_id, req.producer_epoch, {offsets});
    verified = v.error_code != ke::kNone ? v.error_code : v.partition_errors.front();
    if (verified == ke::kTransactionAbortable && version < 4) verified = ke::kInvalidTxnState;
  }
  switch (verified) {
    case ke::kNone:
      break;
    case ke::kProducerFenced:
      return fail_all(ke::kInvalidProducerEpoch);
    case ke::kCoordinatorNotAvailable:
    case ke::kCoordinatorLoadInProgress:
    case ke::kNotCoordinator:
    case ke::kConcurrentTransactions:
      return fail_all(ke::kNotEnoughReplicas);
    default:
      return fail_all(verified);
  }
  ctx.groups->CommitTransactionalOffsets(version, req.group_id, req.producer_id, req.producer_epoch,
                                         req.generation_id_or_member_epoch, req.member_id,
                                         req.group_instance_id, &commits);
  for (size_t i = 0; i < commits.size(); ++i) {
    resp.topics[slots[i].first].partitions[slots[i].second].error_code = commits[i].error_code;
  }
  return resp;
}

p::DescribeTransactionsResponseData HandleDescribeTransactions(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::DescribeTransactionsRequestData& req, int16_t version) {
  (void)version;
  p::DescribeTransactionsResponseData resp;
  for (const std::string& id : req.transactional_ids) {
    if (!Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTransactionalId, id)) {
      auto& s = resp.transaction_states.emplace_back();
      s.transactional_id = id;
      s.error_code = ke::kTransactionalIdAuthorizationFailed;
      continue;
    }
    if (ctx.txns == nullptr) {
      auto& s = resp.transaction_states.emplace_back();
      s.transactional_id = id;
      s.error_code = ke::kCoordinatorNotAvailable;
      continue;
    }
    auto& s = resp.transaction_states.emplace_back(ctx.txns->Describe(id));
    // Only the partitions of topics the client may describe.
    std::erase_if(s.topics, [&](const auto& t) {
      return !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, t.topic);
    });
  }
  return resp;
}

p::ListTransactionsResponseData HandleListTransactions(const BrokerContext& ctx,
                                                       const RequestContext& rc,
                                                       const p::ListTransactionsRequestData& req,
                                                       int16_t version) {
  (void)version;
  if (ctx.txns == nullptr) {
    p::ListTransactionsResponseData resp;
    resp.error_code = ke::kCoordinatorNotAvailable;
    return resp;
  }
  // Only the transactional ids the client may describe.
  p::ListTransactionsResponseData resp = ctx.txns->List(req);
  std::erase_if(resp.transaction_states, [&](const auto& s) {
    return !Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTransactionalId,
                       s.transactional_id);
  });
  return resp;
}

TransactionCoordinator::MarkerWriter BrokerMarkerWriter(
    const BrokerContext& ctx, std::function<void(const TopicPartition&)> appended) {
  LogManager* logs = ctx.logs;
  GroupCoordinator* groups = ctx.groups;
  return [logs, groups, appended = std::move(appended)](
             const TopicPartition& tp, int64_t pid, int16_t epoch, int32_t coordinator_epoch,
             bool commit, int64_t timestamp_ms) -> int16_t {
    int16_t code = ke::kNone;
    if (tp.topic == "__consumer_offsets") {
      // The group coordinator writes the marker and applies it to its pending offsets; its
      // unavailability is the partition's (Kafka: NOT_LEADER_OR_FOLLOWER, retried).
      code = groups == nullptr
                 ? ke::kNotLeaderOrFollower
                 : groups->CompleteTransaction(tp.partition, pid, epoch, coordinator_epoch, commit);
    } else {
      Result<std::shared_ptr<Log>> log = logs->GetLog(tp);
      if (!log.ok()) return ke::kUnknownTopicOrPartition;
      code = WriteTransactionMarker(**log, pid, epoch, coordinator_epoch, commit, timestamp_ms);
    }
    if (code == ke::kNone && appended) appended(tp);  // read_committed fetches may move on
    return code;
  };
}

}  // namespace seglog
