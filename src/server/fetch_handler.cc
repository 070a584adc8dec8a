// Fetch: record batches from the logs, as file regions the socket server sends with
// sendfile(2). Long polling lives in fetch_purgatory.h, the wait for a remote read in
// delayed_remote_fetch.h; this is one read of every partition, and the remote read itself.
//
// ACLs (Kafka's KafkaApis.handleFetchRequest): a consumer needs READ on each topic; a follower
// (a replica id of 0 or more) needs CLUSTER_ACTION on the cluster, without which every
// partition fails. Both failures are TOPIC_AUTHORIZATION_FAILED on the partition, which is not
// read.
#include <fmt/format.h>

#include "protocol/kafka_error.h"
#include "remote/remote_log_manager.h"
#include "server/authorization.h"
#include "server/fetch_handler.h"

namespace seglog {

FetchRead ReadFetch(const BrokerContext& ctx, const RequestContext& rc,
                    const protocol::FetchRequestData& req, int16_t version) {
  FetchRead out;
  protocol::FetchResponseData& resp = out.response;
  // KIP-227 sessions: seglog keeps none. A full fetch without a session (id 0, epoch -1) and
  // a request for a new one (id 0, epoch 0) are both answered in full with session id 0,
  // which tells the client no session was made; anything naming a session is refused.
  if (version >= 7) {
    if (req.session_id != 0) {
      resp.error_code = kafka_error::kFetchSessionIdNotFound;
      out.has_error = true;
      return out;
    }
    if (req.session_epoch != -1 && req.session_epoch != 0) {
      resp.error_code = kafka_error::kInvalidFetchSessionEpoch;
      out.has_error = true;
      return out;
    }
  }
  const bool read_committed = req.isolation_level == 1;
  int64_t budget = req.max_bytes > 0 ? req.max_bytes : 0;
  bool min_one_message = true;
  // One partition per fetch is read from remote storage; a later partition that would need
  // remote storage is answered without records this time (the client fetches it again).
  const int32_t replica_id = version >= 15 ? req.replica_state.replica_id : req.replica_id;
  // A follower may read every topic with CLUSTER_ACTION, and none without it.
  const bool from_follower = replica_id >= 0;
  const bool follower_allowed =
      from_follower && ClusterAuthorized(ctx, rc, AclOperation::kClusterAction);
  for (size_t ti = 0; ti < req.topics.size(); ++ti) {
    const auto& topic = req.topics[ti];
    auto& tr = resp.responses.emplace_back();
    tr.topic = topic.topic;
    tr.topic_id = topic.topic_id;
    std::optional<std::string> name = topic.topic;
    if (version >= 13) name = TopicNameForId(ctx, topic.topic_id);
    const bool may_read = from_follower ? follower_allowed
                                        : name && Authorized(ctx, rc, AclOperation::kRead,
                                                             ResourceType::kTopic, *name);
    for (const auto& part : topic.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = part.partition;
      pr.high_watermark = -1;
      pr.aborted_transactions = std::nullopt;
      auto fail = [&](int16_t code) {
        pr.error_code = code;
        out.has_error = true;
      };
      // Kafka's order: a follower without CLUSTER_ACTION fails everything; otherwise an
      // unknown topic id, then READ on the topic, then an unknown topic.
      if (from_follower && !follower_allowed) {
        fail(kafka_error::kTopicAuthorizationFailed);
        continue;
      }
      if (!name) {
        fail(kafka_error::kUnknownTopicId);
        continue;
      }
      if (!may_read) {
        fail(kafka_error::kTopicAuthorizationFailed);
        continue;
      }
      const TopicPartition tp{*name, part.partition};
      out.partitions.push_back(tp);
      Result<std::shared_ptr<Log>> log = ctx.logs->GetLog(tp);
      if (!log.ok()) {
        fail(kafka_error::kUnknownTopicOrPartition);
        continue;
      }
      // Kafka's Partition.checkCurrentLeaderEpoch: -1 means "no epoch given".
      if (const int32_t epoch = log.value()->leader_epoch(); part.current_leader_epoch != -1) {
        if (part.current_leader_epoch > epoch) {
          fail(kafka_error::kUnknownLeaderEpoch);
          continue;
        }
        if (part.current_leader_epoch < epoch) {
          fail(kafka_error::kFencedLeaderEpoch);
          continue;
        }
      }
      const std::shared_ptr<Log>& l = log.value();
      const int64_t log_start = l->log_start_offset();
      const int64_t high_watermark = l->high_watermark();
      if (part.fetch_offset < log_start || part.fetch_offset > high_watermark) {
        fail(kafka_error::kOffsetOutOfRange);
        continue;
      }
      const int64_t last_stable = l->last_stable_offset();
      pr.high_watermark = high_watermark;
      pr.last_stable_offset = last_stable;
      pr.log_start_offset = log_start;
      if (read_committed) pr.aborted_transactions.emplace();
      pr.records.emplace();
      // read_committed reads stop at the last stable offset (Kafka's TXN_COMMITTED isolation).
      const int64_t bound = read_committed ? last_stable : high_watermark;
      const int64_t limit = std::min<int64_t>(part.partition_max_bytes, budget);
      if (part.fetch_offset >= bound || (limit <= 0 && !min_one_message)) continue;
      Result<FetchDataInfo> data =
          l->Read(part.fetch_offset, static_cast<int32_t>(std::max<int64_t>(limit, 0)),
                  min_one_message, bound);
      if (!data.ok() && ctx.remote != nullptr && IsOffsetMovedToTieredStorage(data.status())) {
        // Below the local log start: remote storage holds it (Kafka's remote fetch). The read
        // is the caller's to make; until then the partition has no records and no error.
        if (out.remote) continue;
        out.remote = RemoteFetchInfo{tp,
                                     ti,
                                     tr.partitions.size() - 1,
                                     part.fetch_offset,
                                     std::max<int64_t>(limit, 0),
                                     min_one_message,
                                     bound,
                                     read_committed};
        // Kafka's readFromLog: the read's size is unknown until it is done, so it counts as
        // its whole limit, which keeps the response within max_bytes.
        if (limit > 0) {
          budget -= limit;
          min_one_message = false;
        }
        continue;
      }
      if (data.ok() && read_committed) {
        // The aborted transactions the records may hold, so the client drops them.
        Result<std::vector<AbortedTransaction>> aborted =
            l->CollectAbortedTransactions(part.fetch_offset, bound);
        if (aborted.ok()) {
          for (const AbortedTransaction& a : *aborted) {
            auto& e = pr.aborted_transactions->emplace_back();
            e.producer_id = a.producer_id;
            e.first_offset = a.first_offset;
          }
        } else {
          data = aborted.status();
        }
      }
      if (!data.ok()) {
        if (data.status().IsOutOfRange() && !IsOffsetMovedToTieredStorage(data.status())) {
          fail(kafka_error::kOffsetOutOfRange);
        } else {
          fail(kafka_error::FromStatus(data.status()));
          ctx.logger.Info(
              fmt::format("Error processing fetch with max size {} from partition {}: {}", limit,
                          tp.ToString(), data.status().ToString()));
        }
        pr.high_watermark = -1;
        pr.last_stable_offset = -1;
        pr.log_start_offset = -1;
        pr.records.emplace();
        continue;
      }
      const FileSlice& slice = data.value().slice;
      if (slice.length > 0 && slice.file != nullptr) {
        pr.records->AppendFile(slice);
        budget -= slice.length;
        out.bytes += slice.length;
        min_one_message = false;
      }
    }
  }
  return out;
}

Result<RemoteFetchResult> ReadRemoteFetch(RemoteLogManager* remote, const RemoteFetchInfo& info) {
  SEGLOG_ASSIGN_OR_RETURN(
      RemoteFetchData data,
      remote->Read(info.tp, info.fetch_offset,
                   static_cast<int32_t>(std::min<int64_t>(info.max_bytes, INT32_MAX)),
                   info.min_one_message, info.bound));
  RemoteFetchResult out;
  if (info.read_committed && !data.records.empty()) {
    SEGLOG_ASSIGN_OR_RETURN(out.aborted, remote->CollectAbortedTransactions(
                                             info.tp, info.fetch_offset, data.next_offset));
  }
  out.records = std::move(data.records);
  return out;
}

void CompleteRemoteFetch(const BrokerContext& ctx, Result<RemoteFetchResult> result,
                         FetchRead* read) {
  const RemoteFetchInfo& info = *read->remote;
  auto& pr = read->response.responses[info.topic_index].partitions[info.partition_index];
  if (result.ok()) {
    for (const AbortedTransaction& a : result->aborted) {
      auto& e = pr.aborted_transactions->emplace_back();
      e.producer_id = a.producer_id;
      e.first_offset = a.first_offset;
    }
    auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(result->records));
    pr.records->AppendBytes(*owned);
    read->bytes += static_cast<int64_t>(owned->size());
    read->remote_records.push_back(std::move(owned));
    return;
  }
  const Status& s = result.status();
  if (s.IsOutOfRange() && !IsOffsetMovedToTieredStorage(s)) {
    pr.error_code = kafka_error::kOffsetOutOfRange;
  } else {
    // The store's failure (missing, truncated or corrupt object, unreachable store, a full
    // reader queue): Kafka answers a failed remote read UNKNOWN_SERVER_ERROR.
    ctx.logger.Info(fmt::format("Error reading remote storage for partition {} at offset {}: {}",
                                info.tp.ToString(), info.fetch_offset, s.ToString()));
    pr.error_code = kafka_error::kUnknownServerError;
  }
  read->has_error = true;
  pr.high_watermark = -1;
  pr.last_stable_offset = -1;
  pr.log_start_offset = -1;
  pr.records.emplace();
}

FetchRead ReadFetchWaitingForRemote(const BrokerContext& ctx, const RequestContext& rc,
                                    const protocol::FetchRequestData& req, int16_t version) {
  FetchRead read = ReadFetch(ctx, rc, req, version);
  if (read.remote) CompleteRemoteFetch(ctx, ReadRemoteFetch(ctx.remote, *read.remote), &read);
  return read;
}

}  // namespace seglog
