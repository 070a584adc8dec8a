// ShareFetch and ShareAcknowledge; see share_fetch_handlers.h.
#include "server/share_fetch_handlers.h"

#include <set>

#include "protocol/kafka_error.h"
#include "server/api_table.h"
#include "server/authorization.h"
#include "server/broker.h"
#include "server/handlers.h"
#include "share/share_partition_manager.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

using FetchPartitionData = p::ShareFetchResponseData::PartitionData;

// validateAcknowledgementBatches (4.4.0): INVALID_REQUEST for the partition's first bad batch.
template <typename Batch>
bool ValidAcknowledgements(const std::vector<Batch>& batches, bool supports_renew,
                           bool is_renew_ack) {
  int64_t prev_end = -1;
  const int8_t max_type = supports_renew ? 4 : 3;
  for (const Batch& b : batches) {
    if (b.first_offset > b.last_offset) return false;
    if (b.first_offset < prev_end) return false;
    if (b.acknowledge_types.empty()) return false;
    if (b.acknowledge_types.size() > 1 &&
        b.last_offset - b.first_offset != static_cast<int64_t>(b.acknowledge_types.size()) - 1) {
      return false;
    }
    for (int8_t t : b.acknowledge_types) {
      if (t < 0 || t > max_type) return false;
    }
    for (int8_t t : b.acknowledge_types) {
      if (t == 4 && !is_renew_ack) return false;
    }
    prev_end = b.last_offset;
  }
  return true;
}

template <typename Batch>
std::vector<AcknowledgementBatch> ToBatches(const std::vector<Batch>& in) {
  std::vector<AcknowledgementBatch> out;
  out.reserve(in.size());
  for (const Batch& b : in) {
    out.push_back(AcknowledgementBatch{b.first_offset, b.last_offset, b.acknowledge_types});
  }
  return out;
}

bool PartitionExists(const BrokerContext& ctx, const std::string& topic, int32_t partition) {
  return ctx.logs != nullptr && ctx.logs->GetLog({topic, partition}).ok();
}

// One partition's acknowledgements (handleAcknowledgements after the topic-id lookup).
template <typename Batch>
ShareError AcknowledgeOne(const BrokerContext& ctx, const RequestContext& rc,
                          const std::string& group_id, const std::string& member_id,
                          const ShareTopicIdPartition& tip, const std::optional<std::string>& topic,
                          const std::vector<Batch>& batches, bool supports_renew,
                          bool is_renew_ack) {
  if (!topic) return ShareError(ke::kUnknownTopicId, "");
  if (!ValidAcknowledgements(batches, supports_renew, is_renew_ack)) {
    return ShareError(ke::kInvalidRequest, "");
  }
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, *topic)) {
    return ShareError(ke::kTopicAuthorizationFailed, "");
  }
  if (!PartitionExists(ctx, *topic, tip.partition)) {
    return ShareError(ke::kUnknownTopicOrPartition, "");
  }
  if (batches.empty()) return ShareError::None();
  std::vector<AcknowledgementBatch> converted = ToBatches(batches);
  return ctx.share_partitions->Acknowledge(group_id, member_id, tip, converted);
}

std::optional<std::string> OptionalMessage(const ShareError& e) {
  if (e.ok() || e.message().empty()) return std::nullopt;
  return e.message();
}

}  // namespace

TopicPartition ShareAvailabilityKey(const std::string& group_id) {
  return TopicPartition{"\x01share-available:" + group_id, 0};
}

ShareFetchPlan PrepareShareFetch(const BrokerContext& ctx, const RequestContext& rc,
                                 const p::ShareFetchRequestData& req, int16_t version) {
  ShareFetchPlan plan;
  // Kafka answers every top-level error with ShareFetchRequest.getErrorResponse: the code,
  // never the exception's message (ErrorMessage stays null).
  auto fail = [&](int16_t code) {
    plan.done = true;
    plan.response.error_code = code;
    return plan;
  };
  if (ctx.share_version() < 1) return fail(ke::kUnsupportedVersion);
  if (!req.group_id) return fail(ke::kInvalidRequest);  // "Invalid group id in the request."
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, *req.group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  const std::string member_id = req.member_id.value_or("");
  if (!req.member_id || !IsValidShareMemberId(member_id)) {
    return fail(ke::kInvalidRequest);  // "Invalid member id in the request." (logged only)
  }
  const bool renew = version >= 2 && req.is_renew_ack;
  // IsRenewAck with any of the sizes or the wait set: INVALID_REQUEST (Kafka logs which).
  if (renew &&
      (req.max_bytes != 0 || req.min_bytes != 0 || req.max_records != 0 || req.max_wait_ms != 0)) {
    return fail(ke::kInvalidRequest);
  }
  if (ctx.share_sessions == nullptr || ctx.share_partitions == nullptr) {
    return fail(ke::kCoordinatorNotAvailable);
  }
  plan.group_id = *req.group_id;
  plan.member_id = member_id;
  bool has_acks = false;
  std::vector<ShareTopicIdPartition> to_fetch;
  for (const auto& t : req.topics) {
    for (const auto& part : t.partitions) {
      to_fetch.push_back(ShareTopicIdPartition{t.topic_id, part.partition_index});
      has_acks = has_acks || !part.acknowledgement_batches.empty();
    }
  }
  std::vector<ShareTopicIdPartition> forgotten;
  for (const auto& t : req.forgotten_topics_data) {
    for (int32_t part : t.partitions) forgotten.push_back(ShareTopicIdPartition{t.topic_id, part});
  }
  ShareFetchContext sc =
      ctx.share_sessions->NewContext(plan.group_id, member_id, req.share_session_epoch, to_fetch,
                                     forgotten, has_acks, std::to_string(rc.connection_id));
  if (!sc.error.ok()) return fail(sc.error.code());
  plan.is_new = sc.is_new;
  plan.added.insert(sc.added.begin(), sc.added.end());
  plan.is_final = sc.is_final;
  plan.fetch = !sc.is_final && !renew;

  // Acknowledgements first; their outcome never stops the partition's fetch.
  if (has_acks) {
    for (const auto& t : req.topics) {
      const std::optional<std::string> name = TopicNameForId(ctx, t.topic_id);
      for (const auto& part : t.partitions) {
        const ShareTopicIdPartition tip{t.topic_id, part.partition_index};
        plan.acknowledged[tip] =
            AcknowledgeOne(ctx, rc, plan.group_id, member_id, tip, name,
                           part.acknowledgement_batches, version == 2, req.is_renew_ack);
      }
    }
  }
  if (!plan.fetch) return plan;

  // handleFetchFromShareFetchRequest: the session's partitions.
  std::map<Uuid, std::optional<std::string>> names;
  std::map<std::string, bool> readable;
  for (const ShareTopicIdPartition& tip : sc.partitions) {
    auto [it, added] = names.try_emplace(tip.topic_id);
    if (added) it->second = TopicNameForId(ctx, tip.topic_id);
    if (!it->second) {
      plan.partitions.emplace_back(tip, ke::kUnknownTopicId);
      continue;
    }
    const std::string& topic = *it->second;
    auto [r, fresh] = readable.try_emplace(topic, false);
    if (fresh) r->second = Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, topic);
    if (!r->second) {
      plan.partitions.emplace_back(tip, ke::kTopicAuthorizationFailed);
      continue;
    }
    if (!PartitionExists(ctx, topic, tip.partition)) {
      plan.partitions.emplace_back(tip, ke::kUnknownTopicOrPartition);
      continue;
    }
    plan.partitions.emplace_back(tip, ke::kNone);
    plan.topic_names[tip] = topic;
    plan.watched.push_back(TopicPartition{topic, tip.partition});
  }
  plan.watched.push_back(ShareAvailabilityKey(plan.group_id));
  return plan;
}

bool ReadShareFetch(const BrokerContext& ctx, const ShareFetchPlan& plan,
                    const p::ShareFetchRequestData& req,
                    std::map<ShareTopicIdPartition, FetchPartitionData>* fetched) {
  bool any = false;
  int64_t budget = std::min<int64_t>(req.max_bytes, ctx.fetch_max_bytes);
  SharePartitionManager::FetchParams params;
  params.group_id = plan.group_id;
  params.member_id = plan.member_id;
  params.mode = req.share_acquire_mode == 1 ? ShareAcquireMode::kRecordLimit
                                            : ShareAcquireMode::kBatchOptimized;
  params.max_records = req.max_records > 0 ? req.max_records : 500;
  params.batch_size = req.batch_size > 0 ? req.batch_size : params.max_records;
  for (const auto& [tip, topic] : plan.topic_names) {
    FetchPartitionData data;
    data.partition_index = tip.partition;
    SharePartitionManager::PartitionFetch f = ctx.share_partitions->Fetch(
        params, tip, topic, static_cast<int32_t>(std::max<int64_t>(budget, 0)));
    data.error_code = f.error_code;
    if (f.error_code != 0) any = true;
    if (!f.acquired.empty()) {
      any = true;
      for (const AcquiredRecords& a : f.acquired) {
        auto& out = data.acquired_records.emplace_back();
        out.first_offset = a.first_offset;
        out.last_offset = a.last_offset;
        out.delivery_count = a.delivery_count;
      }
      if (f.records.length > 0) {
        budget -= f.records.length;
        data.records.AppendFile(f.records);
      }
    }
    (*fetched)[tip] = std::move(data);
  }
  return any;
}

p::ShareFetchResponseData FinishShareFetch(
    const BrokerContext& ctx, const ShareFetchPlan& plan,
    std::map<ShareTopicIdPartition, FetchPartitionData> fetched) {
  p::ShareFetchResponseData resp;
  resp.acquisition_lock_timeout_ms = ctx.share_partitions->RecordLockDurationMs(plan.group_id);
  std::map<ShareTopicIdPartition, ShareError> acks = plan.acknowledged;
  auto topic_of = [&](const Uuid& id) -> p::ShareFetchResponseData::ShareFetchableTopicResponse& {
    for (auto& t : resp.responses) {
      if (t.topic_id == id) return t;
    }
    auto& t = resp.responses.emplace_back();
    t.topic_id = id;
    return t;
  };
  for (const auto& [tip, error] : plan.partitions) {
    FetchPartitionData data;
    data.partition_index = tip.partition;
    data.error_code = error;
    if (auto f = fetched.find(tip); f != fetched.end()) data = std::move(f->second);
    auto a = acks.find(tip);
    const bool has_ack = a != acks.end();
    // An incremental session's response lists only partitions with something to say.
    if (!plan.is_new && !has_ack && data.error_code == ke::kNone && data.acquired_records.empty()) {
      continue;
    }
    if (has_ack) {
      data.acknowledge_error_code = a->second.code();
      data.acknowledge_error_message = OptionalMessage(a->second);
      acks.erase(a);
    }
    topic_of(tip.topic_id).partitions.push_back(std::move(data));
  }
  // Acknowledgement outcomes of partitions not fetched.
  for (const auto& [tip, error] : acks) {
    FetchPartitionData data;
    data.partition_index = tip.partition;
    data.acknowledge_error_code = error.code();
    data.acknowledge_error_message = OptionalMessage(error);
    topic_of(tip.topic_id).partitions.push_back(std::move(data));
  }
  if (plan.is_final) {
    if (std::optional<ReleasedShareSession> s =
            ctx.share_sessions->RemoveSession(plan.group_id, plan.member_id)) {
      ctx.share_partitions->ReleaseSession(*s);
    }
  }
  return resp;
}

p::ShareFetchResponseData HandleShareFetch(const BrokerContext& ctx, const RequestContext& rc,
                                           const p::ShareFetchRequestData& req, int16_t version) {
  ShareFetchPlan plan = PrepareShareFetch(ctx, rc, req, version);
  if (plan.done) return plan.response;
  std::map<ShareTopicIdPartition, FetchPartitionData> fetched;
  if (plan.fetch) ReadShareFetch(ctx, plan, req, &fetched);
  return FinishShareFetch(ctx, plan, std::move(fetched));
}

p::ShareAcknowledgeResponseData HandleShareAcknowledge(const BrokerContext& ctx,
                                                       const RequestContext& rc,
                                                       const p::ShareAcknowledgeRequestData& req,
                                                       int16_t version) {
  p::ShareAcknowledgeResponseData resp;
  // ShareAcknowledgeRequest.getErrorResponse: the code only.
  auto fail = [&](int16_t code) {
    resp.error_code = code;
    return resp;
  };
  if (ctx.share_version() < 1) return fail(ke::kUnsupportedVersion);
  if (!req.group_id) return fail(ke::kInvalidRequest);
  const std::string& group_id = *req.group_id;
  if (!Authorized(ctx, rc, AclOperation::kRead, ResourceType::kGroup, group_id)) {
    return fail(ke::kGroupAuthorizationFailed);
  }
  const std::string member_id = req.member_id.value_or("");
  if (!req.member_id || !IsValidShareMemberId(member_id)) return fail(ke::kInvalidRequest);
  if (ctx.share_sessions == nullptr || ctx.share_partitions == nullptr) {
    return fail(ke::kCoordinatorNotAvailable);
  }
  ShareError session =
      ctx.share_sessions->AcknowledgeSessionUpdate(group_id, member_id, req.share_session_epoch);
  if (!session.ok()) return fail(session.code());
  for (const auto& t : req.topics) {
    const std::optional<std::string> name = TopicNameForId(ctx, t.topic_id);
    auto& tr = resp.responses.emplace_back();
    tr.topic_id = t.topic_id;
    for (const auto& part : t.partitions) {
      const ShareTopicIdPartition tip{t.topic_id, part.partition_index};
      ShareError e = AcknowledgeOne(ctx, rc, group_id, member_id, tip, name,
                                    part.acknowledgement_batches, version == 2, req.is_renew_ack);
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = part.partition_index;
      pr.error_code = e.code();
      pr.error_message = OptionalMessage(e);
    }
  }
  if (req.share_session_epoch == kFinalShareSessionEpoch) {
    if (std::optional<ReleasedShareSession> s =
            ctx.share_sessions->RemoveSession(group_id, member_id)) {
      ctx.share_partitions->ReleaseSession(*s);
    }
  }
  resp.acquisition_lock_timeout_ms = ctx.share_partitions->RecordLockDurationMs(group_id);
  return resp;
}

void Broker::ServeShareFetch(ApiCall& call) {
  auto parsed = call.Parse<p::ShareFetchRequestData>();
  if (!parsed.ok()) return call.ParseFailed(parsed.status());
  auto request = std::make_shared<p::ShareFetchRequestData>(std::move(parsed).value());
  const int16_t version = call.version;
  const int32_t correlation_id = call.correlation_id;
  const uint64_t sequence = purgatory_.append_sequence();
  auto plan = std::make_shared<ShareFetchPlan>(PrepareShareFetch(ctx_, call.rc, *request, version));
  if (plan->done) return call.Reply(std::move(plan->response));
  std::map<ShareTopicIdPartition, FetchPartitionData> fetched;
  const bool any = plan->fetch && ReadShareFetch(ctx_, *plan, *request, &fetched);
  // DelayedShareFetch: nothing acquired and MaxWaitMs > 0 waits for records.
  if (any || !plan->fetch || request->max_wait_ms <= 0 || plan->topic_names.empty()) {
    return call.Reply(FinishShareFetch(ctx_, *plan, std::move(fetched)));
  }
  auto shared_respond = std::make_shared<Responder>(std::move(call.respond));
  const int64_t throttle = call.RequestThrottleMs();
  purgatory_.Park(
      call.rc.connection_id, plan->watched, request->max_wait_ms, sequence,
      [this, request, plan, version, correlation_id, shared_respond, throttle](bool passed) {
        std::map<ShareTopicIdPartition, FetchPartitionData> again;
        const bool got = ReadShareFetch(ctx_, *plan, *request, &again);
        if (!got && !passed) return false;
        p::ShareFetchResponseData resp = FinishShareFetch(ctx_, *plan, std::move(again));
        SetThrottleTime(&resp, throttle);
        SendResponse(ctx_, static_cast<int16_t>(p::ApiKey::kShareFetch), version, correlation_id,
                     resp, *shared_respond, throttle);
        return true;
      });
}

}  // namespace seglog
