// Broker: decode, dispatch, encode. See broker.h.
#include "server/broker.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/kafka_error.h"
#include "protocol/request_body.h"
#include "server/features.h"
#include "server/fetch_handler.h"
#include "server/handlers.h"

namespace seglog {

namespace {
using protocol::ApiKey;
using protocol::ProtocolReader;
using protocol::ProtocolWriter;

std::string ApiName(int16_t api_key) {
  const protocol::ApiMessageInfo* info = protocol::FindApi(api_key);
  return info ? std::string(info->name) : std::to_string(api_key);
}

// Header then body at `version`; false (and a log line) when the body cannot be encoded.
template <typename Body>
bool EncodeResponse(const BrokerContext& ctx, int16_t api_key, int16_t version,
                    int32_t correlation_id, const Body& body, ProtocolWriter* w) {
  protocol::ResponseHeaderData header;
  header.correlation_id = correlation_id;
  Status s = header.Encode(w, protocol::ResponseHeaderVersion(api_key, version));
  if (s.ok()) s = body.Encode(w, version);
  if (!s.ok()) {
    ctx.Log(fmt::format("Failed to encode the {} v{} response: {}", ApiName(api_key), version,
                        s.ToString()));
    return false;
  }
  return true;
}

template <typename Body>
void Reply(const BrokerContext& ctx, int16_t api_key, int16_t version, int32_t correlation_id,
           const Body& body, Responder& respond) {
  ProtocolWriter w;
  if (!EncodeResponse(ctx, api_key, version, correlation_id, body, &w)) {
    respond.CloseConnection();
    return;
  }
  respond.Send(Broker::ToResponseBuffer(w));
}

// Java's InetAddress.toString of the client's address, as Kafka's members show it: "/ip".
std::string ClientHost(const RequestContext& rc) {
  std::string host = rc.client_address;
  if (auto colon = host.rfind(':'); colon != std::string::npos) host.resize(colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return "/" + host;
}

}  // namespace

Broker::Broker(BrokerContext context) : ctx_(std::move(context)) {}

Broker::~Broker() { Shutdown(); }

void Broker::Shutdown() { purgatory_.Shutdown(); }

TransactionCoordinator::MarkerWriter Broker::MarkerWriter() {
  return BrokerMarkerWriter(ctx_, [this](const TopicPartition& tp) { purgatory_.Notify({tp}); });
}

void Broker::OnConnectionClosed(uint64_t connection_id) {
  purgatory_.DropConnection(connection_id);
}

bool Broker::HandlesInline(const std::vector<uint8_t>& frame) const {
  if (frame.size() < 2) return true;  // answered by closing the connection
  switch (static_cast<ApiKey>(LoadBEInt16(frame.data()))) {
    case ApiKey::kProduce:
      // An append that may fsync (flush.messages) waits for the disk: not on a network thread.
      return !ctx_.logs->AppendsMayFlush();
    case ApiKey::kFetch:
    case ApiKey::kListOffsets:
      // A tiered log may answer from remote storage: a network round trip, not on a network
      // thread.
      return ctx_.remote == nullptr;
    case ApiKey::kApiVersions:
      return true;
    default:
      return false;
  }
}

ResponseBuffer Broker::ToResponseBuffer(const ProtocolWriter& writer) {
  ResponseBuffer out;
  const std::vector<uint8_t>& bytes = writer.bytes();
  size_t from = 0;
  for (const ProtocolWriter::Splice& s : writer.splices()) {
    out.Append(std::span<const uint8_t>(bytes.data() + from, s.offset - from));
    out.AppendFileRegion(FileRegion{s.region.file, s.region.position, s.region.length});
    from = s.offset;
  }
  out.Append(std::span<const uint8_t>(bytes.data() + from, bytes.size() - from));
  return out;
}

void Broker::Handle(const RequestContext& rc, std::vector<uint8_t> frame, Responder respond) {
  auto close = [&](const std::string& why) {
    ctx_.Log(fmt::format("Closing socket connection to {} (connectionId={}): {}", rc.client_address,
                         rc.connection_id, why));
    respond.CloseConnection();
  };
  if (frame.size() < 8) {
    close(fmt::format("Invalid request: {} bytes cannot hold a request header", frame.size()));
    return;
  }
  const int16_t api_key = LoadBEInt16(frame.data());
  const int16_t version = LoadBEInt16(frame.data() + 2);
  const int32_t correlation_id = LoadBEInt32(frame.data() + 4);
  const ServedVersions* served = FindServedApi(api_key);
  const int16_t api_versions_key = static_cast<int16_t>(ApiKey::kApiVersions);
  if (api_key == api_versions_key && version > served->max_version) {
    // KIP-511: a v0 answer the client can read, naming the versions it may retry with.
    protocol::ApiVersionsResponseData resp;
    resp.error_code = kafka_error::kUnsupportedVersion;
    auto& v = resp.api_keys.emplace_back();
    v.api_key = api_versions_key;
    v.min_version = served->min_version;
    v.max_version = served->max_version;
    Reply(ctx_, api_key, 0, correlation_id, resp, respond);
    return;
  }
  if (served == nullptr || version < served->min_accepted_version ||
      version > served->max_version) {
    close(fmt::format("Received request api key {} with version {} which is not enabled",
                      ApiName(api_key), version));
    return;
  }
  ProtocolReader reader(frame);
  protocol::RequestHeaderData header;
  Status hs = header.Decode(&reader, protocol::RequestHeaderVersion(api_key, version));
  if (!hs.ok()) {
    close("Error parsing request header: " + hs.ToString());
    return;
  }
  const size_t body_offset = reader.position();
  const std::span<const uint8_t> body(frame.data() + body_offset, frame.size() - body_offset);
  auto parse_failed = [&](const Status& s) {
    close(
        fmt::format("Error getting request for apiKey: {}, apiVersion: {}, connectionId: {}, "
                    "listenerName: {}, principal: User:ANONYMOUS: {}",
                    ApiName(api_key), version, rc.connection_id, rc.listener, s.ToString()));
  };
#define SEGLOG_PARSE(Type, var)                                        \
  auto var##_parsed = protocol::ParseRequestBody<Type>(body, version); \
  if (!var##_parsed.ok()) {                                            \
    parse_failed(var##_parsed.status());                               \
    return;                                                            \
  }                                                                    \
  const Type& var = var##_parsed.value()
  // A request answered by one call of `handler(ctx, request, version)`.
#define SEGLOG_UNARY(Type, handler)                                                            \
  do {                                                                                         \
    SEGLOG_PARSE(Type, unary_req);                                                             \
    Reply(ctx_, api_key, version, correlation_id, handler(ctx_, unary_req, version), respond); \
    return;                                                                                    \
  } while (0)

  switch (static_cast<ApiKey>(api_key)) {
    case ApiKey::kApiVersions:
      SEGLOG_UNARY(protocol::ApiVersionsRequestData, HandleApiVersions);
    case ApiKey::kMetadata:
      SEGLOG_UNARY(protocol::MetadataRequestData, HandleMetadata);
    case ApiKey::kProduce: {
      SEGLOG_PARSE(protocol::ProduceRequestData, req);
      std::vector<TopicPartition> appended;
      bool any_error = false;
      protocol::ProduceResponseData resp = HandleProduce(ctx_, req, version, &appended, &any_error);
      purgatory_.Notify(appended);
      if (req.acks == 0) {
        // No answer for acks=0; a failed one closes the connection so the client notices
        // (Kafka's handleProduceRequest).
        if (any_error) {
          close("a Produce request with acks=0 failed");
        } else {
          respond.NoResponse();
        }
        return;
      }
      Reply(ctx_, api_key, version, correlation_id, resp, respond);
      return;
    }
    case ApiKey::kFetch:
      HandleFetch(rc, version, correlation_id, std::move(frame), body_offset, std::move(respond));
      return;
    case ApiKey::kListOffsets:
      SEGLOG_UNARY(protocol::ListOffsetsRequestData, HandleListOffsets);
    case ApiKey::kInitProducerId:
      SEGLOG_UNARY(protocol::InitProducerIdRequestData, HandleInitProducerId);
    case ApiKey::kAddPartitionsToTxn:
      SEGLOG_UNARY(protocol::AddPartitionsToTxnRequestData, HandleAddPartitionsToTxn);
    case ApiKey::kAddOffsetsToTxn:
      SEGLOG_UNARY(protocol::AddOffsetsToTxnRequestData, HandleAddOffsetsToTxn);
    case ApiKey::kEndTxn:
      SEGLOG_UNARY(protocol::EndTxnRequestData, HandleEndTxn);
    case ApiKey::kTxnOffsetCommit:
      SEGLOG_UNARY(protocol::TxnOffsetCommitRequestData, HandleTxnOffsetCommit);
    case ApiKey::kDescribeTransactions:
      SEGLOG_UNARY(protocol::DescribeTransactionsRequestData, HandleDescribeTransactions);
    case ApiKey::kListTransactions:
      SEGLOG_UNARY(protocol::ListTransactionsRequestData, HandleListTransactions);
    case ApiKey::kCreateTopics:
      SEGLOG_UNARY(protocol::CreateTopicsRequestData, HandleCreateTopics);
    case ApiKey::kDeleteTopics:
      SEGLOG_UNARY(protocol::DeleteTopicsRequestData, HandleDeleteTopics);
    case ApiKey::kDescribeCluster:
      SEGLOG_UNARY(protocol::DescribeClusterRequestData, HandleDescribeCluster);
    case ApiKey::kCreatePartitions:
      SEGLOG_UNARY(protocol::CreatePartitionsRequestData, HandleCreatePartitions);
    case ApiKey::kDeleteRecords:
      SEGLOG_UNARY(protocol::DeleteRecordsRequestData, HandleDeleteRecords);
    case ApiKey::kOffsetForLeaderEpoch:
      SEGLOG_UNARY(protocol::OffsetForLeaderEpochRequestData, HandleOffsetForLeaderEpoch);
    case ApiKey::kDescribeLogDirs:
      SEGLOG_UNARY(protocol::DescribeLogDirsRequestData, HandleDescribeLogDirs);
    case ApiKey::kDescribeTopicPartitions:
      SEGLOG_UNARY(protocol::DescribeTopicPartitionsRequestData, HandleDescribeTopicPartitions);
    case ApiKey::kDescribeConfigs:
      SEGLOG_UNARY(protocol::DescribeConfigsRequestData, HandleDescribeConfigs);
    case ApiKey::kAlterConfigs:
      SEGLOG_UNARY(protocol::AlterConfigsRequestData, HandleAlterConfigs);
    case ApiKey::kIncrementalAlterConfigs:
      SEGLOG_UNARY(protocol::IncrementalAlterConfigsRequestData, HandleIncrementalAlterConfigs);
    case ApiKey::kDescribeAcls: {
      SEGLOG_PARSE(protocol::DescribeAclsRequestData, req);
      // Kafka's DescribeAclsRequest refuses a filter with an UNKNOWN (0) element before any
      // handler sees it: the connection is closed.
      if (req.resource_type_filter == 0 || req.pattern_type_filter == 0 || req.operation == 0 ||
          req.permission_type == 0) {
        parse_failed(Status::InvalidArgument("Filter contain UNKNOWN elements"));
        return;
      }
      Reply(ctx_, api_key, version, correlation_id, HandleDescribeAcls(ctx_, req, version),
            respond);
      return;
    }
    case ApiKey::kCreateAcls:
      SEGLOG_UNARY(protocol::CreateAclsRequestData, HandleCreateAcls);
    case ApiKey::kDeleteAcls:
      SEGLOG_UNARY(protocol::DeleteAclsRequestData, HandleDeleteAcls);
    case ApiKey::kFindCoordinator:
      SEGLOG_UNARY(protocol::FindCoordinatorRequestData, HandleFindCoordinator);
    case ApiKey::kJoinGroup: {
      SEGLOG_PARSE(protocol::JoinGroupRequestData, req);
      auto shared = std::make_shared<Responder>(std::move(respond));
      HandleJoinGroup(
          ctx_, GroupClient{header.client_id.value_or(""), ClientHost(rc)}, req, version,
          [this, api_key, version, correlation_id, shared](protocol::JoinGroupResponseData r) {
            Reply(ctx_, api_key, version, correlation_id, r, *shared);
          });
      return;
    }
    case ApiKey::kSyncGroup: {
      SEGLOG_PARSE(protocol::SyncGroupRequestData, req);
      auto shared = std::make_shared<Responder>(std::move(respond));
      HandleSyncGroup(
          ctx_, req, version,
          [this, api_key, version, correlation_id, shared](protocol::SyncGroupResponseData r) {
            Reply(ctx_, api_key, version, correlation_id, r, *shared);
          });
      return;
    }
    case ApiKey::kHeartbeat:
      SEGLOG_UNARY(protocol::HeartbeatRequestData, HandleHeartbeat);
    case ApiKey::kLeaveGroup:
      SEGLOG_UNARY(protocol::LeaveGroupRequestData, HandleLeaveGroup);
    case ApiKey::kOffsetCommit:
      SEGLOG_UNARY(protocol::OffsetCommitRequestData, HandleOffsetCommit);
    case ApiKey::kOffsetFetch:
      SEGLOG_UNARY(protocol::OffsetFetchRequestData, HandleOffsetFetch);
    case ApiKey::kListGroups:
      SEGLOG_UNARY(protocol::ListGroupsRequestData, HandleListGroups);
    case ApiKey::kDescribeGroups:
      SEGLOG_UNARY(protocol::DescribeGroupsRequestData, HandleDescribeGroups);
    case ApiKey::kConsumerGroupHeartbeat: {
      SEGLOG_PARSE(protocol::ConsumerGroupHeartbeatRequestData, req);
      Reply(ctx_, api_key, version, correlation_id,
            HandleConsumerGroupHeartbeat(
                ctx_, GroupClient{header.client_id.value_or(""), ClientHost(rc)}, req, version),
            respond);
      return;
    }
    case ApiKey::kConsumerGroupDescribe:
      SEGLOG_UNARY(protocol::ConsumerGroupDescribeRequestData, HandleConsumerGroupDescribe);
    case ApiKey::kDeleteGroups:
      SEGLOG_UNARY(protocol::DeleteGroupsRequestData, HandleDeleteGroups);
    case ApiKey::kOffsetDelete:
      SEGLOG_UNARY(protocol::OffsetDeleteRequestData, HandleOffsetDelete);
    case ApiKey::kElectLeaders:
      SEGLOG_UNARY(protocol::ElectLeadersRequestData, HandleElectLeaders);
    case ApiKey::kAlterPartitionReassignments:
      SEGLOG_UNARY(protocol::AlterPartitionReassignmentsRequestData,
                   HandleAlterPartitionReassignments);
    case ApiKey::kListPartitionReassignments:
      SEGLOG_UNARY(protocol::ListPartitionReassignmentsRequestData,
                   HandleListPartitionReassignments);
    case ApiKey::kDescribeQuorum:
      SEGLOG_UNARY(protocol::DescribeQuorumRequestData, HandleDescribeQuorum);
    case ApiKey::kDescribeProducers:
      SEGLOG_UNARY(protocol::DescribeProducersRequestData, HandleDescribeProducers);
    case ApiKey::kUpdateFeatures:
      SEGLOG_UNARY(protocol::UpdateFeaturesRequestData, HandleUpdateFeatures);
    case ApiKey::kAlterReplicaLogDirs:
      SEGLOG_UNARY(protocol::AlterReplicaLogDirsRequestData, HandleAlterReplicaLogDirs);
    case ApiKey::kUnregisterBroker:
      SEGLOG_UNARY(protocol::UnregisterBrokerRequestData, HandleUnregisterBroker);
    case ApiKey::kUnregisterController:
      SEGLOG_UNARY(protocol::UnregisterControllerRequestData, HandleUnregisterController);
    case ApiKey::kAddRaftVoter:
      SEGLOG_UNARY(protocol::AddRaftVoterRequestData, HandleAddRaftVoter);
    case ApiKey::kRemoveRaftVoter:
      SEGLOG_UNARY(protocol::RemoveRaftVoterRequestData, HandleRemoveRaftVoter);
    case ApiKey::kListConfigResources:
      SEGLOG_UNARY(protocol::ListConfigResourcesRequestData, HandleListConfigResources);
    case ApiKey::kWriteTxnMarkers: {
      SEGLOG_PARSE(protocol::WriteTxnMarkersRequestData, req);
      Reply(ctx_, api_key, version, correlation_id,
            HandleWriteTxnMarkers(ctx_, req, version, MarkerWriter()), respond);
      return;
    }
    default:
      break;
  }
#undef SEGLOG_UNARY
#undef SEGLOG_PARSE
  // Invariant: every served API has a case above.
  close(fmt::format("No handler for request api key {}", ApiName(api_key)));
}

void Broker::HandleFetch(const RequestContext& rc, int16_t version, int32_t correlation_id,
                         std::vector<uint8_t> frame, size_t body_offset, Responder respond) {
  const std::span<const uint8_t> body(frame.data() + body_offset, frame.size() - body_offset);
  auto parsed = protocol::ParseRequestBody<protocol::FetchRequestData>(body, version);
  if (!parsed.ok()) {
    ctx_.Log(
        fmt::format("Closing socket connection to {} (connectionId={}): Error getting "
                    "request for apiKey: FETCH, apiVersion: {}: {}",
                    rc.client_address, rc.connection_id, version, parsed.status().ToString()));
    respond.CloseConnection();
    return;
  }
  // The request no longer needs the frame (it has no records), so the parked copy owns it.
  auto request = std::make_shared<protocol::FetchRequestData>(std::move(parsed).value());
  const int16_t api_key = static_cast<int16_t>(ApiKey::kFetch);
  const uint64_t sequence = purgatory_.append_sequence();
  FetchRead read = ReadFetch(ctx_, *request, version);
  if (read.has_error || read.bytes >= request->min_bytes || request->max_wait_ms <= 0 ||
      read.bytes >= request->max_bytes) {
    Reply(ctx_, api_key, version, correlation_id, read.response, respond);
    return;
  }
  auto shared_respond = std::make_shared<Responder>(std::move(respond));
  purgatory_.Park(rc.connection_id, read.partitions, request->max_wait_ms, sequence,
                  [this, request, version, correlation_id, shared_respond](bool passed) {
                    FetchRead again = ReadFetch(ctx_, *request, version);
                    if (!passed && !again.has_error && again.bytes < request->min_bytes) {
                      return false;
                    }
                    Reply(ctx_, api_key, version, correlation_id, again.response, *shared_respond);
                    return true;
                  });
}

}  // namespace seglog
