// The served APIs and their dispatch; see api_table.h.
#include "server/api_table.h"

#include <memory>

#include "protocol/request_body.h"
#include "server/features.h"
#include "server/share_fetch_handlers.h"

namespace seglog {

namespace {

using protocol::ApiKey;

constexpr int16_t Key(ApiKey k) { return static_cast<int16_t>(k); }

// Java's InetAddress.toString of the client's address, as Kafka's members show it: "/ip".
std::string ClientHost(const RequestContext& rc) {
  std::string host = rc.client_address;
  if (auto colon = host.rfind(':'); colon != std::string::npos) host.resize(colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return "/" + host;
}

GroupClient ClientOf(const ApiCall& c) {
  return GroupClient{c.header.client_id.value_or(""), ClientHost(c.rc)};
}

// A request answered by one call of `handler(ctx, rc, request, version)`.
template <typename Request, auto Handler>
void Unary(ApiCall& c) {
  auto req = c.Parse<Request>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(Handler(c.ctx(), c.rc, *req, c.version));
}

// CreateTopics, DeleteTopics, CreatePartitions: with the client's controller mutation quota,
// strict from `kStrictSince` (Kafka's ControllerMutationQuotaManager.newQuotaFor), and the
// response throttled by the larger of it and the request quota.
template <typename Request, auto Handler, int16_t kStrictSince>
void Mutating(ApiCall& c) {
  auto req = c.Parse<Request>();
  if (!req.ok()) return c.ParseFailed(req.status());
  const BrokerContext& ctx = c.ctx();
  ControllerMutationQuota quota;
  if (ctx.mutation_quotas != nullptr) {
    quota = ctx.mutation_quotas->QuotaFor(QuotaUserOf(c.rc.principal), c.client_id(),
                                          c.version >= kStrictSince);
  }
  auto resp = Handler(ctx, c.rc, *req, c.version, &quota);
  c.Reply(std::move(resp), quota.ThrottleMs());
}

// ApiVersions: the one API answered the same to every client.
void ApiVersions(ApiCall& c) {
  auto req = c.Parse<protocol::ApiVersionsRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  // The client software KIP-714 subscriptions match (Kafka's ClientInformation, from v3).
  if (c.ctx().telemetry != nullptr && c.version >= 3) {
    c.ctx().telemetry->SetClientSoftware(c.rc.connection_id, req->client_software_name,
                                         req->client_software_version);
  }
  c.Reply(HandleApiVersions(c.ctx(), *req, c.version));
}

void Produce(ApiCall& c) {
  auto req = c.Parse<protocol::ProduceRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  std::vector<TopicPartition> appended;
  bool any_error = false;
  protocol::ProduceResponseData resp =
      HandleProduce(c.ctx(), c.rc, *req, c.version, &appended, &any_error);
  c.broker.NotifyAppended(appended);
  // The producer_byte_rate quota counts the request's bytes (Kafka's request.sizeInBytes).
  int64_t bandwidth_throttle = 0;
  if (c.ctx().quotas != nullptr) {
    bandwidth_throttle = c.ctx().quotas->RecordAndGetThrottleMs(
        ClientQuotaType::kProduce, QuotaUserOf(c.rc.principal), c.client_id(),
        static_cast<double>(c.frame.size()), c.ctx().NowMs());
  }
  if (req->acks == 0) {
    // No answer for acks=0; a failed one closes the connection so the client notices
    // (Kafka's handleProduceRequest). The request quota does not apply; the byte rate does.
    if (any_error) {
      c.Close("a Produce request with acks=0 failed");
    } else {
      c.respond.NoResponse(bandwidth_throttle);
    }
    return;
  }
  c.Reply(std::move(resp), bandwidth_throttle);
}

void Fetch(ApiCall& c) { c.broker.ServeFetch(c); }
void ShareFetch(ApiCall& c) { c.broker.ServeShareFetch(c); }

void ShareGroupHeartbeat(ApiCall& c) {
  auto req = c.Parse<protocol::ShareGroupHeartbeatRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(HandleShareGroupHeartbeat(c.ctx(), c.rc, ClientOf(c), *req, c.version));
}

void DescribeAcls(ApiCall& c) {
  auto req = c.Parse<protocol::DescribeAclsRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  // Kafka's DescribeAclsRequest refuses a filter with an UNKNOWN (0) element before any
  // handler sees it: the connection is closed.
  if (req->resource_type_filter == 0 || req->pattern_type_filter == 0 || req->operation == 0 ||
      req->permission_type == 0) {
    return c.ParseFailed(Status::InvalidArgument("Filter contain UNKNOWN elements"));
  }
  c.Reply(HandleDescribeAcls(c.ctx(), c.rc, *req, c.version));
}

// Kafka's CreateAclsRequest and DeleteAclsRequest refuse an UNKNOWN (0) element, as
// DescribeAcls's filter above: the connection is closed before any handler runs.
void CreateAcls(ApiCall& c) {
  auto req = c.Parse<protocol::CreateAclsRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  for (const auto& a : req->creations) {
    if (a.resource_type == 0 || a.resource_pattern_type == 0 || a.operation == 0 ||
        a.permission_type == 0) {
      return c.ParseFailed(Status::InvalidArgument("CreatableAcls contain unknown elements"));
    }
  }
  c.Reply(HandleCreateAcls(c.ctx(), c.rc, *req, c.version));
}

void DeleteAcls(ApiCall& c) {
  auto req = c.Parse<protocol::DeleteAclsRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  for (const auto& f : req->filters) {
    if (f.resource_type_filter == 0 || f.pattern_type_filter == 0 || f.operation == 0 ||
        f.permission_type == 0) {
      return c.ParseFailed(Status::InvalidArgument("Filters contain UNKNOWN elements"));
    }
  }
  c.Reply(HandleDeleteAcls(c.ctx(), c.rc, *req, c.version));
}

// The group APIs that answer later (a join waits for the rebalance; a sync for the leader's
// assignment): the responder moves into the callback.
void JoinGroup(ApiCall& c) {
  auto req = c.Parse<protocol::JoinGroupRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  auto shared = std::make_shared<Responder>(std::move(c.respond));
  const BrokerContext* ctx = &c.ctx();
  HandleJoinGroup(*ctx, c.rc, ClientOf(c), *req, c.version,
                  [ctx, key = c.api_key, version = c.version, corr = c.correlation_id,
                   shared](protocol::JoinGroupResponseData r) {
                    SendResponse(*ctx, key, version, corr, r, *shared);
                  });
}

void SyncGroup(ApiCall& c) {
  auto req = c.Parse<protocol::SyncGroupRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  auto shared = std::make_shared<Responder>(std::move(c.respond));
  const BrokerContext* ctx = &c.ctx();
  HandleSyncGroup(*ctx, c.rc, *req, c.version,
                  [ctx, key = c.api_key, version = c.version, corr = c.correlation_id,
                   shared](protocol::SyncGroupResponseData r) {
                    SendResponse(*ctx, key, version, corr, r, *shared);
                  });
}

void ConsumerGroupHeartbeat(ApiCall& c) {
  auto req = c.Parse<protocol::ConsumerGroupHeartbeatRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(HandleConsumerGroupHeartbeat(c.ctx(), c.rc, ClientOf(c), *req, c.version));
}

void StreamsGroupHeartbeat(ApiCall& c) {
  auto req = c.Parse<protocol::StreamsGroupHeartbeatRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(HandleStreamsGroupHeartbeat(c.ctx(), c.rc, ClientOf(c), *req, c.version));
}

// KIP-714: served only with a telemetry manager, as Kafka enables the two APIs only with a
// telemetry exporter; otherwise refused as any API that is not enabled.
template <typename Request, auto Handler>
void Telemetry(ApiCall& c) {
  if (c.ctx().telemetry == nullptr) {
    return c.Close(fmt::format("Received request api key {} with version {} which is not enabled",
                               ApiName(c.api_key), c.version));
  }
  auto req = c.Parse<Request>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(Handler(c.ctx(), c.rc, c.client_id(), *req, c.version));
}

void WriteTxnMarkers(ApiCall& c) {
  auto req = c.Parse<protocol::WriteTxnMarkersRequestData>();
  if (!req.ok()) return c.ParseFailed(req.status());
  c.Reply(HandleWriteTxnMarkers(c.ctx(), c.rc, *req, c.version, c.broker.MarkerWriter()));
}

#define SEGLOG_UNARY(Name) &Unary<protocol::Name##RequestData, Handle##Name>

constexpr ApiThread kHandler = ApiThread::kHandler;

// Kafka 4.4.0's version ranges (KIP-896 minimums), from the schemas: {key, advertised min, max,
// accepted min}.
const std::vector<ServedApi> kTable = {
    // Produce: advertised from 0 because older librdkafka needs it (KAFKA-18659), refused
    // below 3 as Kafka 4 does.
    // clang-format off
    {{Key(ApiKey::kProduce), 0, 13, 3}, ApiThread::kInlineUnlessAppendsMayFlush, &Produce},
    {{Key(ApiKey::kFetch), 4, 18, 4}, ApiThread::kInlineUnlessTiered, &Fetch},
    {{Key(ApiKey::kListOffsets), 1, 11, 1}, ApiThread::kInlineUnlessTiered,
     SEGLOG_UNARY(ListOffsets)},
    {{Key(ApiKey::kMetadata), 0, 13, 0}, kHandler, SEGLOG_UNARY(Metadata)},
    {{Key(ApiKey::kOffsetCommit), 2, 10, 2}, kHandler, SEGLOG_UNARY(OffsetCommit)},
    {{Key(ApiKey::kOffsetFetch), 1, 10, 1}, kHandler, SEGLOG_UNARY(OffsetFetch)},
    {{Key(ApiKey::kFindCoordinator), 0, 6, 0}, kHandler, SEGLOG_UNARY(FindCoordinator)},
    {{Key(ApiKey::kJoinGroup), 0, 9, 0}, kHandler, &JoinGroup},
    {{Key(ApiKey::kHeartbeat), 0, 4, 0}, kHandler, SEGLOG_UNARY(Heartbeat)},
    {{Key(ApiKey::kLeaveGroup), 0, 5, 0}, kHandler, SEGLOG_UNARY(LeaveGroup)},
    {{Key(ApiKey::kSyncGroup), 0, 5, 0}, kHandler, &SyncGroup},
    {{Key(ApiKey::kDescribeGroups), 0, 6, 0}, kHandler, SEGLOG_UNARY(DescribeGroups)},
    {{Key(ApiKey::kListGroups), 0, 5, 0}, kHandler, SEGLOG_UNARY(ListGroups)},
    {{Key(ApiKey::kSaslHandshake), 0, 1, 0}, ApiThread::kInline, &ServeSaslHandshake},
    {{Key(ApiKey::kApiVersions), 0, 5, 0}, ApiThread::kInline, &ApiVersions},
    {{Key(ApiKey::kCreateTopics), 2, 7, 2}, kHandler,
     &Mutating<protocol::CreateTopicsRequestData, HandleCreateTopics, 6>},
    {{Key(ApiKey::kDeleteTopics), 1, 6, 1}, kHandler,
     &Mutating<protocol::DeleteTopicsRequestData, HandleDeleteTopics, 5>},
    {{Key(ApiKey::kDeleteRecords), 0, 2, 0}, kHandler, SEGLOG_UNARY(DeleteRecords)},
    // v6 (KIP-939) is unstable in 4.4.0: a default broker advertises 0-5.
    {{Key(ApiKey::kInitProducerId), 0, 5, 0}, kHandler, SEGLOG_UNARY(InitProducerId)},
    {{Key(ApiKey::kOffsetForLeaderEpoch), 2, 4, 2}, kHandler, SEGLOG_UNARY(OffsetForLeaderEpoch)},
    {{Key(ApiKey::kAddPartitionsToTxn), 0, 5, 0}, kHandler, SEGLOG_UNARY(AddPartitionsToTxn)},
    {{Key(ApiKey::kAddOffsetsToTxn), 0, 4, 0}, kHandler, SEGLOG_UNARY(AddOffsetsToTxn)},
    {{Key(ApiKey::kEndTxn), 0, 5, 0}, kHandler, SEGLOG_UNARY(EndTxn)},
    {{Key(ApiKey::kWriteTxnMarkers), 1, 2, 1}, kHandler, &WriteTxnMarkers},
    {{Key(ApiKey::kTxnOffsetCommit), 0, 6, 0}, kHandler, SEGLOG_UNARY(TxnOffsetCommit)},
    {{Key(ApiKey::kDescribeAcls), 1, 3, 1}, kHandler, &DescribeAcls},
    {{Key(ApiKey::kCreateAcls), 1, 3, 1}, kHandler, &CreateAcls},
    {{Key(ApiKey::kDeleteAcls), 1, 3, 1}, kHandler, &DeleteAcls},
    {{Key(ApiKey::kDescribeConfigs), 1, 4, 1}, kHandler, SEGLOG_UNARY(DescribeConfigs)},
    {{Key(ApiKey::kAlterConfigs), 0, 2, 0}, kHandler, SEGLOG_UNARY(AlterConfigs)},
    {{Key(ApiKey::kAlterReplicaLogDirs), 1, 2, 1}, kHandler, SEGLOG_UNARY(AlterReplicaLogDirs)},
    {{Key(ApiKey::kDescribeLogDirs), 1, 5, 1}, kHandler, SEGLOG_UNARY(DescribeLogDirs)},
    {{Key(ApiKey::kSaslAuthenticate), 0, 2, 0}, ApiThread::kInline, &ServeSaslAuthenticate},
    {{Key(ApiKey::kCreatePartitions), 0, 3, 0}, kHandler,
     &Mutating<protocol::CreatePartitionsRequestData, HandleCreatePartitions, 3>},
    {{Key(ApiKey::kCreateDelegationToken), 1, 3, 1}, ApiThread::kInline,
     &ServeCreateDelegationToken},
    {{Key(ApiKey::kRenewDelegationToken), 1, 2, 1}, ApiThread::kInline,
     &ServeRenewDelegationToken},
    {{Key(ApiKey::kExpireDelegationToken), 1, 2, 1}, ApiThread::kInline,
     &ServeExpireDelegationToken},
    {{Key(ApiKey::kDescribeDelegationToken), 1, 3, 1}, ApiThread::kInline,
     &ServeDescribeDelegationToken},
    {{Key(ApiKey::kDeleteGroups), 0, 3, 0}, kHandler, SEGLOG_UNARY(DeleteGroups)},
    {{Key(ApiKey::kElectLeaders), 0, 2, 0}, kHandler, SEGLOG_UNARY(ElectLeaders)},
    {{Key(ApiKey::kIncrementalAlterConfigs), 0, 1, 0}, kHandler,
     SEGLOG_UNARY(IncrementalAlterConfigs)},
    {{Key(ApiKey::kAlterPartitionReassignments), 0, 1, 0}, kHandler,
     SEGLOG_UNARY(AlterPartitionReassignments)},
    {{Key(ApiKey::kListPartitionReassignments), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(ListPartitionReassignments)},
    {{Key(ApiKey::kOffsetDelete), 0, 0, 0}, kHandler, SEGLOG_UNARY(OffsetDelete)},
    {{Key(ApiKey::kDescribeUserScramCredentials), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(DescribeUserScramCredentials)},
    {{Key(ApiKey::kAlterUserScramCredentials), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(AlterUserScramCredentials)},
    {{Key(ApiKey::kDescribeClientQuotas), 0, 1, 0}, kHandler, SEGLOG_UNARY(DescribeClientQuotas)},
    {{Key(ApiKey::kAlterClientQuotas), 0, 1, 0}, kHandler, SEGLOG_UNARY(AlterClientQuotas)},
    {{Key(ApiKey::kDescribeQuorum), 0, 2, 0}, kHandler, SEGLOG_UNARY(DescribeQuorum)},
    {{Key(ApiKey::kUpdateFeatures), 0, 2, 0}, kHandler, SEGLOG_UNARY(UpdateFeatures)},
    {{Key(ApiKey::kDescribeCluster), 0, 2, 0}, kHandler, SEGLOG_UNARY(DescribeCluster)},
    {{Key(ApiKey::kDescribeProducers), 0, 0, 0}, kHandler, SEGLOG_UNARY(DescribeProducers)},
    {{Key(ApiKey::kUnregisterBroker), 0, 0, 0}, kHandler, SEGLOG_UNARY(UnregisterBroker)},
    {{Key(ApiKey::kDescribeTransactions), 0, 0, 0}, kHandler, SEGLOG_UNARY(DescribeTransactions)},
    {{Key(ApiKey::kListTransactions), 0, 2, 0}, kHandler, SEGLOG_UNARY(ListTransactions)},
    {{Key(ApiKey::kConsumerGroupHeartbeat), 0, 1, 0}, kHandler, &ConsumerGroupHeartbeat},
    {{Key(ApiKey::kConsumerGroupDescribe), 0, 1, 0}, kHandler,
     SEGLOG_UNARY(ConsumerGroupDescribe)},
    {{Key(ApiKey::kGetTelemetrySubscriptions), 0, 0, 0}, kHandler,
     &Telemetry<protocol::GetTelemetrySubscriptionsRequestData, HandleGetTelemetrySubscriptions>},
    {{Key(ApiKey::kPushTelemetry), 0, 0, 0}, kHandler,
     &Telemetry<protocol::PushTelemetryRequestData, HandlePushTelemetry>},
    {{Key(ApiKey::kListConfigResources), 0, 1, 0}, kHandler, SEGLOG_UNARY(ListConfigResources)},
    {{Key(ApiKey::kDescribeTopicPartitions), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(DescribeTopicPartitions)},
    {{Key(ApiKey::kAddRaftVoter), 0, 1, 0}, kHandler, SEGLOG_UNARY(AddRaftVoter)},
    {{Key(ApiKey::kRemoveRaftVoter), 0, 0, 0}, kHandler, SEGLOG_UNARY(RemoveRaftVoter)},
    {{Key(ApiKey::kUnregisterController), 0, 0, 0}, kHandler, SEGLOG_UNARY(UnregisterController)},
    {{Key(ApiKey::kInitializeShareGroupState), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(InitializeShareGroupState)},
    {{Key(ApiKey::kReadShareGroupState), 0, 0, 0}, kHandler, SEGLOG_UNARY(ReadShareGroupState)},
    {{Key(ApiKey::kWriteShareGroupState), 0, 1, 0}, kHandler, SEGLOG_UNARY(WriteShareGroupState)},
    {{Key(ApiKey::kDeleteShareGroupState), 0, 0, 0}, kHandler, SEGLOG_UNARY(DeleteShareGroupState)},
    {{Key(ApiKey::kReadShareGroupStateSummary), 0, 1, 0}, kHandler,
     SEGLOG_UNARY(ReadShareGroupStateSummary)},
    {{Key(ApiKey::kShareGroupHeartbeat), 1, 1, 1}, kHandler, &ShareGroupHeartbeat},
    {{Key(ApiKey::kShareGroupDescribe), 1, 1, 1}, kHandler, SEGLOG_UNARY(ShareGroupDescribe)},
    {{Key(ApiKey::kShareFetch), 1, 2, 1}, kHandler, &ShareFetch},
    {{Key(ApiKey::kShareAcknowledge), 1, 2, 1}, kHandler, SEGLOG_UNARY(ShareAcknowledge)},
    {{Key(ApiKey::kDescribeShareGroupOffsets), 0, 1, 0}, kHandler,
     SEGLOG_UNARY(DescribeShareGroupOffsets)},
    {{Key(ApiKey::kAlterShareGroupOffsets), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(AlterShareGroupOffsets)},
    {{Key(ApiKey::kDeleteShareGroupOffsets), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(DeleteShareGroupOffsets)},
    {{Key(ApiKey::kStreamsGroupHeartbeat), 0, 1, 0}, kHandler, &StreamsGroupHeartbeat},
    {{Key(ApiKey::kStreamsGroupDescribe), 0, 1, 0}, kHandler, SEGLOG_UNARY(StreamsGroupDescribe)},
    {{Key(ApiKey::kStreamsGroupTopologyDescriptionUpdate), 0, 0, 0}, kHandler,
     SEGLOG_UNARY(StreamsGroupTopologyDescriptionUpdate)},
    // clang-format on
};

#undef SEGLOG_UNARY

}  // namespace

std::string ApiName(int16_t api_key) {
  const protocol::ApiMessageInfo* info = protocol::FindApi(api_key);
  return info ? std::string(info->name) : std::to_string(api_key);
}

int64_t ApiCall::RequestThrottleMs() const {
  const BrokerContext& c = ctx();
  if (c.quotas == nullptr) return 0;
  // Kafka's nanosToPercentage: the handling time in seconds x 100, so the rate is a percentage
  // of one thread.
  const double nanos = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - started)
                                               .count());
  return c.quotas->RecordAndGetThrottleMs(ClientQuotaType::kRequest, QuotaUserOf(rc.principal),
                                          client_id(), nanos * 1e-7, c.NowMs());
}

void ApiCall::Close(const std::string& why) {
  ctx().logger.Info(fmt::format("Closing socket connection to {} (connectionId={}): {}",
                                rc.client_address, rc.connection_id, why));
  respond.CloseConnection();
}

void ApiCall::ParseFailed(const Status& s) {
  Close(fmt::format(
      "Error getting request for apiKey: {}, apiVersion: {}, connectionId: {}, "
      "listenerName: {}, principal: {}: {}",
      ApiName(api_key), version, rc.connection_id, rc.listener, rc.principal, s.ToString()));
}

const std::vector<ServedApi>& ServedApiTable() { return kTable; }

const ServedApi* FindServedApiEntry(int16_t api_key) {
  // Every request looks its API up (twice: its thread, then its dispatch): an index by key.
  static const std::vector<const ServedApi*> by_key = [] {
    std::vector<const ServedApi*> index;
    for (const ServedApi& a : kTable) {
      const auto key = static_cast<size_t>(a.versions.api_key);
      if (index.size() <= key) index.resize(key + 1, nullptr);
      index[key] = &a;
    }
    return index;
  }();
  if (api_key < 0 || static_cast<size_t>(api_key) >= by_key.size()) return nullptr;
  return by_key[static_cast<size_t>(api_key)];
}

const std::vector<ServedVersions>& ServedApis() {
  static const std::vector<ServedVersions> versions = [] {
    std::vector<ServedVersions> v;
    for (const ServedApi& a : kTable) v.push_back(a.versions);
    return v;
  }();
  return versions;
}

const ServedVersions* FindServedApi(int16_t api_key) {
  const ServedApi* a = FindServedApiEntry(api_key);
  return a == nullptr ? nullptr : &a->versions;
}

}  // namespace seglog
