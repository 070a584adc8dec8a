// The API handlers: one function per API, (context, request context, request, version) ->
// response, each in the file named after its API family. They never see sockets or frames
// (broker.cc decodes the request and encodes what they return), so each is unit-tested with
// generated messages. The request context names the client (its principal and address, which
// each handler's ACL checks are about: authorization.h) and the listener it came in on.
//
// Thread safety: every handler may run on many threads at once.
#ifndef SEGLOG_SERVER_HANDLERS_H_
#define SEGLOG_SERVER_HANDLERS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/add_raft_voter_request.h"
#include "protocol/generated/add_raft_voter_response.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"
#include "protocol/generated/alter_share_group_offsets_request.h"
#include "protocol/generated/alter_share_group_offsets_response.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/delete_records_request.h"
#include "protocol/generated/delete_records_response.h"
#include "protocol/generated/delete_share_group_offsets_request.h"
#include "protocol/generated/delete_share_group_offsets_response.h"
#include "protocol/generated/delete_share_group_state_request.h"
#include "protocol/generated/delete_share_group_state_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "protocol/generated/describe_share_group_offsets_request.h"
#include "protocol/generated/describe_share_group_offsets_response.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/get_telemetry_subscriptions_request.h"
#include "protocol/generated/get_telemetry_subscriptions_response.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/initialize_share_group_state_request.h"
#include "protocol/generated/initialize_share_group_state_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/list_config_resources_request.h"
#include "protocol/generated/list_config_resources_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "protocol/generated/offset_for_leader_epoch_request.h"
#include "protocol/generated/offset_for_leader_epoch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "protocol/generated/push_telemetry_request.h"
#include "protocol/generated/push_telemetry_response.h"
#include "protocol/generated/read_share_group_state_request.h"
#include "protocol/generated/read_share_group_state_response.h"
#include "protocol/generated/read_share_group_state_summary_request.h"
#include "protocol/generated/read_share_group_state_summary_response.h"
#include "protocol/generated/remove_raft_voter_request.h"
#include "protocol/generated/remove_raft_voter_response.h"
#include "protocol/generated/share_group_describe_request.h"
#include "protocol/generated/share_group_describe_response.h"
#include "protocol/generated/share_group_heartbeat_request.h"
#include "protocol/generated/share_group_heartbeat_response.h"
#include "protocol/generated/streams_group_describe_request.h"
#include "protocol/generated/streams_group_describe_response.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"
#include "protocol/generated/streams_group_topology_description_update_request.h"
#include "protocol/generated/streams_group_topology_description_update_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"
#include "protocol/generated/txn_offset_commit_request.h"
#include "protocol/generated/txn_offset_commit_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "protocol/generated/unregister_controller_request.h"
#include "protocol/generated/unregister_controller_response.h"
#include "protocol/generated/write_share_group_state_request.h"
#include "protocol/generated/write_share_group_state_response.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "seglog/topic_partition.h"
#include "server/broker_context.h"
#include "server/request_handler.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

// Kafka's Topic.isInternal: the coordinators' topics (__consumer_offsets,
// __transaction_state, __share_group_state). Clients may not append to them, and they are
// created only as their coordinators create them.
bool IsInternalTopic(const std::string& name);

// Kafka's controller limits on partitions made by one request (ReplicationControlManager's
// MAX_PARTITIONS_PER_BATCH for CreateTopics, and the bound of its record list,
// MAX_RECORDS_PER_USER_OP, for CreatePartitions).
inline constexpr int64_t kMaxPartitionsPerRequest = 10000;

// The versions seglog serves of one API (what ApiVersions advertises).
struct ServedVersions {
  int16_t api_key;
  int16_t min_version;  // advertised
  int16_t max_version;
  // Below this the API is advertised but refused (Produce v0-2: KAFKA-18659).
  int16_t min_accepted_version;
};
// Every served API, in key order.
const std::vector<ServedVersions>& ServedApis();
const ServedVersions* FindServedApi(int16_t api_key);

protocol::ApiVersionsResponseData HandleApiVersions(const BrokerContext& ctx,
                                                    const protocol::ApiVersionsRequestData& req,
                                                    int16_t version);
// The host and port a client of `listener` is told to connect to (the advertised endpoint of
// that listener; the first advertised one for a listener not advertised, or "").
struct AdvertisedEndpoint {
  std::string host;
  int32_t port = 0;
};
AdvertisedEndpoint EndpointFor(const BrokerContext& ctx, std::string_view listener);

// The broker is named with the endpoint of the request's listener (rc.listener).
protocol::MetadataResponseData HandleMetadata(const BrokerContext& ctx, const RequestContext& rc,
                                              const protocol::MetadataRequestData& req,
                                              int16_t version);
// Appends each partition's batch; `appended` lists the partitions that grew (to wake fetches).
protocol::ProduceResponseData HandleProduce(const BrokerContext& ctx, const RequestContext& rc,
                                            const protocol::ProduceRequestData& req,
                                            int16_t version, std::vector<TopicPartition>* appended,
                                            bool* any_error);
protocol::ListOffsetsResponseData HandleListOffsets(const BrokerContext& ctx,
                                                    const RequestContext& rc,
                                                    const protocol::ListOffsetsRequestData& req,
                                                    int16_t version);
protocol::InitProducerIdResponseData HandleInitProducerId(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::InitProducerIdRequestData& req, int16_t version);
// CreateTopics, DeleteTopics and CreatePartitions charge each topic that passed every other
// check to `mutations` (null: no controller mutation quota).
protocol::CreateTopicsResponseData HandleCreateTopics(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::CreateTopicsRequestData& req,
                                                      int16_t version,
                                                      ControllerMutationQuota* mutations = nullptr);
protocol::DeleteTopicsResponseData HandleDeleteTopics(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::DeleteTopicsRequestData& req,
                                                      int16_t version,
                                                      ControllerMutationQuota* mutations = nullptr);
protocol::DescribeClusterResponseData HandleDescribeCluster(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeClusterRequestData& req, int16_t version);

// Partitions (partition_handlers.cc).
protocol::CreatePartitionsResponseData HandleCreatePartitions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::CreatePartitionsRequestData& req, int16_t version,
    ControllerMutationQuota* mutations = nullptr);
protocol::DeleteRecordsResponseData HandleDeleteRecords(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DeleteRecordsRequestData& req, int16_t version);
protocol::OffsetForLeaderEpochResponseData HandleOffsetForLeaderEpoch(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::OffsetForLeaderEpochRequestData& req, int16_t version);
protocol::DescribeLogDirsResponseData HandleDescribeLogDirs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeLogDirsRequestData& req, int16_t version);
protocol::DescribeTopicPartitionsResponseData HandleDescribeTopicPartitions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeTopicPartitionsRequestData& req, int16_t version);

// Configs (config_handlers.cc).
protocol::DescribeConfigsResponseData HandleDescribeConfigs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeConfigsRequestData& req, int16_t version);
protocol::AlterConfigsResponseData HandleAlterConfigs(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::AlterConfigsRequestData& req,
                                                      int16_t version);
protocol::IncrementalAlterConfigsResponseData HandleIncrementalAlterConfigs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::IncrementalAlterConfigsRequestData& req, int16_t version);

// Topic ids: the name of the topic with `id`, if there is one.
std::optional<std::string> TopicNameForId(const BrokerContext& ctx, const Uuid& id);
// Kafka's Topic.validate: "Topic name is illegal, it ..." when the name is not allowed.
Status ValidateTopicNameForClient(const std::string& name);

// ACLs (acl_handlers.cc): kept in the metadata log when an authorizer is configured, else
// SECURITY_DISABLED, as Kafka without one.
// Gives the authorizer, if any, the metadata log's ACLs (after a change, and at start).
void RefreshAuthorizer(const BrokerContext& ctx);
protocol::DescribeAclsResponseData HandleDescribeAcls(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::DescribeAclsRequestData& req,
                                                      int16_t version);
protocol::CreateAclsResponseData HandleCreateAcls(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::CreateAclsRequestData& req,
                                                  int16_t version);
protocol::DeleteAclsResponseData HandleDeleteAcls(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::DeleteAclsRequestData& req,
                                                  int16_t version);

// SCRAM users (scram_handlers.cc): kept in the metadata log.
protocol::DescribeUserScramCredentialsResponseData HandleDescribeUserScramCredentials(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeUserScramCredentialsRequestData& req, int16_t version);
protocol::AlterUserScramCredentialsResponseData HandleAlterUserScramCredentials(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterUserScramCredentialsRequestData& req, int16_t version);

// Client quotas (client_quota_handlers.cc): kept in the metadata log.
protocol::DescribeClientQuotasResponseData HandleDescribeClientQuotas(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeClientQuotasRequestData& req, int16_t version);
protocol::AlterClientQuotasResponseData HandleAlterClientQuotas(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterClientQuotasRequestData& req, int16_t version);

// ---- Replicas, the quorum, producers (admin_handlers.cc) ----
//
// One node, one replica per partition: no election or reassignment is ever needed, and each
// answer is Kafka 4.4.0's on a single node.
protocol::ElectLeadersResponseData HandleElectLeaders(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::ElectLeadersRequestData& req,
                                                      int16_t version);
protocol::AlterPartitionReassignmentsResponseData HandleAlterPartitionReassignments(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterPartitionReassignmentsRequestData& req, int16_t version);
protocol::ListPartitionReassignmentsResponseData HandleListPartitionReassignments(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ListPartitionReassignmentsRequestData& req, int16_t version);
// `__cluster_metadata` partition 0 with this node as its one voter and leader.
protocol::DescribeQuorumResponseData HandleDescribeQuorum(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeQuorumRequestData& req, int16_t version);
// Each partition's producer state (Log::active_producers).
protocol::DescribeProducersResponseData HandleDescribeProducers(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeProducersRequestData& req, int16_t version);
// Markers from an admin client (kafka-transactions.sh abort), written through `write`.
protocol::WriteTxnMarkersResponseData HandleWriteTxnMarkers(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::WriteTxnMarkersRequestData& req, int16_t version,
    const TransactionCoordinator::MarkerWriter& write);
// The config resources there are: client metrics subscriptions, this node's loggers, this node,
// every topic.
protocol::ListConfigResourcesResponseData HandleListConfigResources(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ListConfigResourcesRequestData& req, int16_t version);

// Moves partitions between log directories (LogManager::AlterReplicaLogDir); the copy goes on
// in the background, as in Kafka.
protocol::AlterReplicaLogDirsResponseData HandleAlterReplicaLogDirs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterReplicaLogDirsRequestData& req, int16_t version);
// The cluster's membership (admin_handlers.cc): this node is its only broker, controller and
// voter, registered while it runs; the voters are static (kraft.version 0).
protocol::UnregisterBrokerResponseData HandleUnregisterBroker(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UnregisterBrokerRequestData& req, int16_t version);
protocol::UnregisterControllerResponseData HandleUnregisterController(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UnregisterControllerRequestData& req, int16_t version);
protocol::AddRaftVoterResponseData HandleAddRaftVoter(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::AddRaftVoterRequestData& req,
                                                      int16_t version);
protocol::RemoveRaftVoterResponseData HandleRemoveRaftVoter(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::RemoveRaftVoterRequestData& req, int16_t version);

// ---- Consumer groups (group_handlers.cc) ----

// Who sent a group request: its header's client id and "/ip".
struct GroupClient {
  std::string client_id;
  std::string client_host;
};
protocol::FindCoordinatorResponseData HandleFindCoordinator(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::FindCoordinatorRequestData& req, int16_t version);
// JoinGroup and SyncGroup answer through `done`, now or when the rebalance moves on.
void HandleJoinGroup(const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
                     const protocol::JoinGroupRequestData& req, int16_t version,
                     std::function<void(protocol::JoinGroupResponseData)> done);
void HandleSyncGroup(const BrokerContext& ctx, const RequestContext& rc,
                     const protocol::SyncGroupRequestData& req, int16_t version,
                     std::function<void(protocol::SyncGroupResponseData)> done);
protocol::HeartbeatResponseData HandleHeartbeat(const BrokerContext& ctx, const RequestContext& rc,
                                                const protocol::HeartbeatRequestData& req,
                                                int16_t version);
protocol::LeaveGroupResponseData HandleLeaveGroup(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::LeaveGroupRequestData& req,
                                                  int16_t version);
protocol::OffsetCommitResponseData HandleOffsetCommit(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::OffsetCommitRequestData& req,
                                                      int16_t version);
protocol::OffsetFetchResponseData HandleOffsetFetch(const BrokerContext& ctx,
                                                    const RequestContext& rc,
                                                    const protocol::OffsetFetchRequestData& req,
                                                    int16_t version);
protocol::ListGroupsResponseData HandleListGroups(const BrokerContext& ctx,
                                                  const RequestContext& rc,
                                                  const protocol::ListGroupsRequestData& req,
                                                  int16_t version);
protocol::DescribeGroupsResponseData HandleDescribeGroups(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeGroupsRequestData& req, int16_t version);
protocol::DeleteGroupsResponseData HandleDeleteGroups(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::DeleteGroupsRequestData& req,
                                                      int16_t version);
protocol::OffsetDeleteResponseData HandleOffsetDelete(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::OffsetDeleteRequestData& req,
                                                      int16_t version);
// KIP-714 client telemetry (telemetry_handlers.cc), answered by ctx.telemetry, which must be
// set (the APIs are not served without it). `client_id`: the request header's.
protocol::GetTelemetrySubscriptionsResponseData HandleGetTelemetrySubscriptions(
    const BrokerContext& ctx, const RequestContext& rc, const std::string& client_id,
    const protocol::GetTelemetrySubscriptionsRequestData& req, int16_t version);
protocol::PushTelemetryResponseData HandlePushTelemetry(
    const BrokerContext& ctx, const RequestContext& rc, const std::string& client_id,
    const protocol::PushTelemetryRequestData& req, int16_t version);
// KIP-848's consumer groups.
protocol::ConsumerGroupHeartbeatResponseData HandleConsumerGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const protocol::ConsumerGroupHeartbeatRequestData& req, int16_t version);
protocol::ConsumerGroupDescribeResponseData HandleConsumerGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ConsumerGroupDescribeRequestData& req, int16_t version);

// ---- Transactions (txn_handlers.cc) ----

// InitProducerId of a transactional id (HandleInitProducerId hands those over).
protocol::InitProducerIdResponseData HandleTransactionalInitProducerId(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::InitProducerIdRequestData& req, int16_t version);
protocol::AddPartitionsToTxnResponseData HandleAddPartitionsToTxn(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AddPartitionsToTxnRequestData& req, int16_t version);
protocol::AddOffsetsToTxnResponseData HandleAddOffsetsToTxn(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AddOffsetsToTxnRequestData& req, int16_t version);
protocol::EndTxnResponseData HandleEndTxn(const BrokerContext& ctx, const RequestContext& rc,
                                          const protocol::EndTxnRequestData& req, int16_t version);
protocol::TxnOffsetCommitResponseData HandleTxnOffsetCommit(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::TxnOffsetCommitRequestData& req, int16_t version);
// KIP-932 membership (share_group_handlers.cc).
protocol::ShareGroupHeartbeatResponseData HandleShareGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const protocol::ShareGroupHeartbeatRequestData& req, int16_t version);
protocol::ShareGroupDescribeResponseData HandleShareGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ShareGroupDescribeRequestData& req, int16_t version);
// KIP-932 share group offsets (share_offset_handlers.cc).
protocol::DescribeShareGroupOffsetsResponseData HandleDescribeShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeShareGroupOffsetsRequestData& req, int16_t version);
protocol::AlterShareGroupOffsetsResponseData HandleAlterShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterShareGroupOffsetsRequestData& req, int16_t version);
protocol::DeleteShareGroupOffsetsResponseData HandleDeleteShareGroupOffsets(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DeleteShareGroupOffsetsRequestData& req, int16_t version);
// KIP-1071 streams groups (streams_group_handlers.cc).
protocol::StreamsGroupHeartbeatResponseData HandleStreamsGroupHeartbeat(
    const BrokerContext& ctx, const RequestContext& rc, const GroupClient& client,
    const protocol::StreamsGroupHeartbeatRequestData& req, int16_t version);
protocol::StreamsGroupDescribeResponseData HandleStreamsGroupDescribe(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::StreamsGroupDescribeRequestData& req, int16_t version);
protocol::StreamsGroupTopologyDescriptionUpdateResponseData
HandleStreamsGroupTopologyDescriptionUpdate(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::StreamsGroupTopologyDescriptionUpdateRequestData& req, int16_t version);
// The share coordinator's RPCs (share_state_handlers.cc): CLUSTER_ACTION on the cluster.
protocol::InitializeShareGroupStateResponseData HandleInitializeShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::InitializeShareGroupStateRequestData& req, int16_t version);
protocol::ReadShareGroupStateResponseData HandleReadShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ReadShareGroupStateRequestData& req, int16_t version);
protocol::WriteShareGroupStateResponseData HandleWriteShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::WriteShareGroupStateRequestData& req, int16_t version);
protocol::DeleteShareGroupStateResponseData HandleDeleteShareGroupState(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DeleteShareGroupStateRequestData& req, int16_t version);
protocol::ReadShareGroupStateSummaryResponseData HandleReadShareGroupStateSummary(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ReadShareGroupStateSummaryRequestData& req, int16_t version);
protocol::DescribeTransactionsResponseData HandleDescribeTransactions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeTransactionsRequestData& req, int16_t version);
protocol::ListTransactionsResponseData HandleListTransactions(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ListTransactionsRequestData& req, int16_t version);
// The transaction coordinator's markers as this broker writes them: data partitions get the
// control batch appended, __consumer_offsets partitions go to the group coordinator;
// `appended` is told of each partition that got its marker (to wake parked fetches).
TransactionCoordinator::MarkerWriter BrokerMarkerWriter(
    const BrokerContext& ctx, std::function<void(const TopicPartition&)> appended);

}  // namespace seglog

#endif  // SEGLOG_SERVER_HANDLERS_H_
