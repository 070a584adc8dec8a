// The share coordinator's RPCs, which Kafka 4.4.0 lists on its broker listener:
// InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState and
// ReadShareGroupStateSummary. A partition leader elsewhere in a Kafka cluster sends them; here
// the share-partition manager and the group coordinator call the ShareCoordinator directly, and
// these answer a tool or a test. The rules are KafkaApis' (CLUSTER_ACTION on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED on every partition) and ShareCoordinatorService's (a request
// without a group id, topics or partitions gets an empty answer; each share-partition is
// answered by ShareCoordinator, src/sharestate/share_coordinator.h).
#include <fmt/format.h>

#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"
#include "sharestate/share_coordinator.h"

namespace seglog {

namespace p = protocol;
namespace ke = kafka_error;

namespace {

constexpr const char* kNotAvailable = "Share coordinator is not available.";

// The request's topics and their partitions, each answered by `answer(topic id, partition)`,
// in the request's order (Kafka groups them by topic id in a HashMap: order is not part of
// the answer).
template <typename Response, typename Request, typename Answer>
Response ForEachPartition(const Request& req, Answer answer) {
  Response resp;
  for (const auto& t : req.topics) {
    auto& r = resp.results.emplace_back();
    r.topic_id = t.topic_id;
    for (const auto& part : t.partitions) r.partitions.push_back(answer(t.topic_id, part));
  }
  return resp;
}

// Every partition of the request with `code` and `message` (toGlobalErrorResponse and
// generateError*Response).
template <typename Response, typename Request>
Response AllFailed(const Request& req, int16_t code, std::optional<std::string> message) {
  return ForEachPartition<Response>(req, [&](const Uuid&, const auto& part) {
    typename Response::PartitionResult r;
    r.partition = part.partition;
    r.error_code = code;
    r.error_message = message;
    return r;
  });
}

// Whether Kafka's ShareCoordinatorService answers the request with an empty response: no
// group id, no topics, or a topic without partitions.
template <typename Request>
bool Malformed(const Request& req) {
  if (req.group_id.empty() || req.topics.empty()) return true;
  for (const auto& t : req.topics) {
    if (t.partitions.empty()) return true;
  }
  return false;
}

// Kafka's answers before any share-partition is looked at: CLUSTER_AUTHORIZATION_FAILED on
// every partition without CLUSTER_ACTION; then, in `order`, the empty answer to a malformed
// request (Malformed) and COORDINATOR_NOT_AVAILABLE without a coordinator (ShareCoordinatorService
// checks the two in a different order per RPC). Nothing: serve the request.
enum class CheckOrder { kMalformedFirst, kAvailableFirst };
template <typename Response, typename Request>
std::optional<Response> Refused(const BrokerContext& ctx, const RequestContext& rc,
                                const Request& req, CheckOrder order, bool malformed) {
  if (!ClusterAuthorized(ctx, rc, AclOperation::kClusterAction)) {
    return AllFailed<Response>(req, ke::kClusterAuthorizationFailed,
                               AuthorizationErrorMessage(ke::kClusterAuthorizationFailed));
  }
  if (order == CheckOrder::kMalformedFirst && malformed) return Response{};
  if (ctx.share_state == nullptr) {
    return AllFailed<Response>(req, ke::kCoordinatorNotAvailable, kNotAvailable);
  }
  if (malformed) return Response{};
  return std::nullopt;
}

template <typename PartitionResult>
void SetOutcome(PartitionResult& r, const ShareCoordinator::Outcome& o) {
  r.error_code = o.error_code;
  r.error_message = o.error_message;
}

SharePartitionKey Key(const std::string& group, const Uuid& topic, int32_t partition) {
  return {.group_id = group, .topic_id = topic, .partition = partition};
}

}  // namespace

p::InitializeShareGroupStateResponseData HandleInitializeShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::InitializeShareGroupStateRequestData& req, int16_t /*version*/) {
  using R = p::InitializeShareGroupStateResponseData;
  if (auto r = Refused<R>(ctx, rc, req, CheckOrder::kAvailableFirst,
                          req.group_id.empty() || req.topics.empty())) {
    return *r;
  }
  return ForEachPartition<R>(req, [&](const Uuid& topic, const auto& part) {
    R::PartitionResult r;
    r.partition = part.partition;
    SetOutcome(r, ctx.share_state->Initialize(Key(req.group_id, topic, part.partition),
                                              part.state_epoch, part.start_offset));
    return r;
  });
}

p::ReadShareGroupStateResponseData HandleReadShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::ReadShareGroupStateRequestData& req, int16_t /*version*/) {
  using R = p::ReadShareGroupStateResponseData;
  if (auto r = Refused<R>(ctx, rc, req, CheckOrder::kMalformedFirst, Malformed(req))) return *r;
  if (ctx.share_state == nullptr)
    return AllFailed<R>(req, ke::kCoordinatorNotAvailable, kNotAvailable);
  return ForEachPartition<R>(req, [&](const Uuid& topic, const auto& part) {
    R::PartitionResult r;
    r.partition = part.partition;
    ShareCoordinator::ReadOutcome o =
        ctx.share_state->Read(Key(req.group_id, topic, part.partition), part.leader_epoch);
    SetOutcome(r, o);
    if (o.error_code != ke::kNone) return r;
    r.state_epoch = o.state_epoch;
    r.start_offset = o.start_offset;
    for (const PersisterStateBatch& b : o.state_batches) {
      auto& sb = r.state_batches.emplace_back();
      sb.first_offset = b.first_offset;
      sb.last_offset = b.last_offset;
      sb.delivery_state = b.delivery_state;
      sb.delivery_count = b.delivery_count;
    }
    return r;
  });
}

p::WriteShareGroupStateResponseData HandleWriteShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::WriteShareGroupStateRequestData& req, int16_t /*version*/) {
  using R = p::WriteShareGroupStateResponseData;
  if (auto r = Refused<R>(ctx, rc, req, CheckOrder::kMalformedFirst, Malformed(req))) return *r;
  if (ctx.share_state == nullptr)
    return AllFailed<R>(req, ke::kCoordinatorNotAvailable, kNotAvailable);
  return ForEachPartition<R>(req, [&](const Uuid& topic, const auto& part) {
    R::PartitionResult r;
    r.partition = part.partition;
    ShareCoordinator::WriteData w;
    w.state_epoch = part.state_epoch;
    w.leader_epoch = part.leader_epoch;
    w.start_offset = part.start_offset;
    w.delivery_complete_count = part.delivery_complete_count;
    for (const auto& b : part.state_batches) {
      w.state_batches.push_back({.first_offset = b.first_offset,
                                 .last_offset = b.last_offset,
                                 .delivery_state = b.delivery_state,
                                 .delivery_count = b.delivery_count});
    }
    SetOutcome(r, ctx.share_state->Write(Key(req.group_id, topic, part.partition), w));
    return r;
  });
}

p::DeleteShareGroupStateResponseData HandleDeleteShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::DeleteShareGroupStateRequestData& req, int16_t /*version*/) {
  using R = p::DeleteShareGroupStateResponseData;
  if (auto r = Refused<R>(ctx, rc, req, CheckOrder::kAvailableFirst, Malformed(req))) return *r;
  return ForEachPartition<R>(req, [&](const Uuid& topic, const auto& part) {
    R::PartitionResult r;
    r.partition = part.partition;
    SetOutcome(r, ctx.share_state->Delete(Key(req.group_id, topic, part.partition)));
    return r;
  });
}

p::ReadShareGroupStateSummaryResponseData HandleReadShareGroupStateSummary(
    const BrokerContext& ctx, const RequestContext& rc,
    const p::ReadShareGroupStateSummaryRequestData& req, int16_t /*version*/) {
  using R = p::ReadShareGroupStateSummaryResponseData;
  if (auto r = Refused<R>(ctx, rc, req, CheckOrder::kAvailableFirst, Malformed(req))) return *r;
  return ForEachPartition<R>(req, [&](const Uuid& topic, const auto& part) {
    R::PartitionResult r;
    r.partition = part.partition;
    ShareCoordinator::SummaryOutcome o =
        ctx.share_state->ReadSummary(Key(req.group_id, topic, part.partition));
    SetOutcome(r, o);
    if (o.error_code != ke::kNone) return r;
    r.state_epoch = o.state_epoch;
    r.leader_epoch = o.leader_epoch;
    r.start_offset = o.start_offset;
    r.delivery_complete_count = o.delivery_complete_count;
    return r;
  });
}

}  // namespace seglog
