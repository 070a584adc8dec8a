// ShareFetch and ShareAcknowledge (KIP-932), as Kafka 4.4.0's KafkaApis orders their checks
// (handleShareFetchRequest, handleFetchFromShareFetchRequest, handleAcknowledgements,
// handleShareAcknowledgeRequest, validateAcknowledgementBatches, processShareFetchResponse):
//   1. share.version below 1: UNSUPPORTED_VERSION; no group id: INVALID_REQUEST; no READ on
//      the group: GROUP_AUTHORIZATION_FAILED; a member id not of 1-36 characters:
//      INVALID_REQUEST; (ShareFetch v2 IsRenewAck) MaxBytes, MinBytes, MaxRecords and MaxWaitMs
//      must be 0: INVALID_REQUEST naming each. These are top-level errors with no message but
//      the INVALID_REQUEST ones (ShareFetchRequest.getErrorResponse keeps the code only).
//   2. The share session rules (ShareSessionCache): their errors are top-level too.
//   3. Acknowledgements, before the fetch: an unknown topic id is UNKNOWN_TOPIC_ID; a bad
//      batch (first > last, overlapping the previous one, no types, types not matching the
//      range, a type above 3 (4 from v2), Renew without IsRenewAck) INVALID_REQUEST; then no
//      READ on the topic TOPIC_AUTHORIZATION_FAILED, an unknown partition
//      UNKNOWN_TOPIC_OR_PARTITION; else the share partition's answer. In a ShareFetch they go
//      in AcknowledgeErrorCode/AcknowledgeErrorMessage and never stop the partition's fetch.
//   4. The fetch: every partition of the session (none for a final request, or IsRenewAck);
//      unknown topic id UNKNOWN_TOPIC_ID, no READ TOPIC_AUTHORIZATION_FAILED, unknown
//      partition UNKNOWN_TOPIC_OR_PARTITION. A new session's response lists all its
//      partitions; a later one only those with an error or acquired records, plus those with
//      an acknowledgement outcome.
// Broker::ServeShareFetch parks a fetch that acquired nothing in the fetch purgatory until an
// append to one of its partitions, records becoming available for the group
// (ShareAvailabilityKey), or MaxWaitMs.
//
// Thread safety: functions of their arguments; the context's share managers are thread-safe.
#ifndef SEGLOG_SERVER_SHARE_FETCH_HANDLERS_H_
#define SEGLOG_SERVER_SHARE_FETCH_HANDLERS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/generated/share_acknowledge_request.h"
#include "protocol/generated/share_acknowledge_response.h"
#include "protocol/generated/share_fetch_request.h"
#include "protocol/generated/share_fetch_response.h"
#include "seglog/topic_partition.h"
#include "server/broker_context.h"
#include "server/request_handler.h"
#include "share/share_session_cache.h"

namespace seglog {

// The purgatory key a share fetch of `group_id` also watches: records became available for
// the group. A topic name no Kafka topic can have (it starts with \x01).
TopicPartition ShareAvailabilityKey(const std::string& group_id);

// A ShareFetch after its checks, acknowledgements and session update: what to fetch.
struct ShareFetchPlan {
  bool done = false;  // `response` is the whole answer (a top-level error)
  protocol::ShareFetchResponseData response;
  std::string group_id;
  std::string member_id;
  bool is_new = false;
  bool is_final = false;
  bool fetch = true;  // false for a final request and IsRenewAck
  // The response's partitions in order, with their fetch errors found before fetching.
  std::vector<std::pair<ShareTopicIdPartition, int16_t>> partitions;
  std::map<ShareTopicIdPartition, std::string> topic_names;  // of the partitions to fetch
  std::map<ShareTopicIdPartition, ShareError> acknowledged;  // acknowledgement outcomes
  std::set<ShareTopicIdPartition> added;                     // new to the session
  std::vector<TopicPartition> watched;
};

ShareFetchPlan PrepareShareFetch(const BrokerContext& ctx, const RequestContext& rc,
                                 const protocol::ShareFetchRequestData& req, int16_t version);
// Fetches the plan's partitions into `fetched` (one entry per fetched partition); true when
// something was acquired or a partition failed.
bool ReadShareFetch(
    const BrokerContext& ctx, const ShareFetchPlan& plan,
    const protocol::ShareFetchRequestData& req,
    std::map<ShareTopicIdPartition, protocol::ShareFetchResponseData::PartitionData>* fetched);
// The response of a plan with what was fetched; a final request's session is removed and its
// records released.
protocol::ShareFetchResponseData FinishShareFetch(
    const BrokerContext& ctx, const ShareFetchPlan& plan,
    std::map<ShareTopicIdPartition, protocol::ShareFetchResponseData::PartitionData> fetched);

// One ShareFetch answered without waiting (tests; Broker::ServeShareFetch waits).
protocol::ShareFetchResponseData HandleShareFetch(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::ShareFetchRequestData& req,
                                                  int16_t version);

protocol::ShareAcknowledgeResponseData HandleShareAcknowledge(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ShareAcknowledgeRequestData& req, int16_t version);

}  // namespace seglog

#endif  // SEGLOG_SERVER_SHARE_FETCH_HANDLERS_H_
