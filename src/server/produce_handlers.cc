// Produce and ListOffsets: appending batches from clients, and finding offsets.
//
// ACLs (Kafka's KafkaApis): a Produce with a transactional batch needs WRITE on its
// transactional id, else nothing is appended and every partition fails
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED; each topic needs WRITE (TOPIC_AUTHORIZATION_FAILED per
// partition). ListOffsets needs DESCRIBE on each topic.
#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/kafka_error.h"
#include "remote/remote_log_manager.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace {

// Kafka's ProduceRequest.validateRecords for v3+: one v2 batch; ZStandard only from v7.
Status ValidateProduceRecords(std::span<const uint8_t> bytes, int16_t version) {
  // Invariant: byte 16 of a batch is its magic, bytes 21-22 its attributes (record_batch.h).
  if (bytes.size() < 61) {
    return Status::Corruption("InvalidRecordException: Produce request has no record batch");
  }
  if (bytes[16] != 2) {
    return Status::InvalidArgument(
        "InvalidRecordException: Produce requests with version 3 and above must use message "
        "format v2 (magic 2)");
  }
  const int codec = bytes[22] & 0x07;
  if (codec == 4 && version < 7) {
    return Status::InvalidArgument(
        "UnsupportedCompressionTypeException: Produce requests with version " +
        std::to_string(version) + " are not allowed to use ZStandard compression");
  }
  return Status::OK();
}

// A transactional batch's producer (Kafka's v2 batch header: attributes at 21, producer id
// at 43, epoch at 51; record_batch.h). nullopt for a batch that is not transactional.
struct TransactionalProducer {
  int64_t producer_id;
  int16_t producer_epoch;
};
std::optional<TransactionalProducer> TransactionalBatchProducer(std::span<const uint8_t> bytes) {
  if (bytes.size() < 61 || (bytes[22] & 0x10) == 0) return std::nullopt;
  return TransactionalProducer{LoadBEInt64(bytes.data() + 43), LoadBEInt16(bytes.data() + 51)};
}

// Kafka's check that a transactional batch's partition is in its producer's open transaction
// (KIP-890 part 1: ReplicaManager's verification through AddPartitionsToTxn VerifyOnly, or for
// Produce v12+ its ADD_PARTITION), with the error the producer gets; 0 when it may append.
int16_t VerifyTransactionalBatch(const BrokerContext& ctx, const std::string& transactional_id,
                                 const TransactionalProducer& producer, const TopicPartition& tp,
                                 int16_t version) {
  namespace ke = kafka_error;
  if (version < 12 && !ctx.transaction_partition_verification) return ke::kNone;
  if (ctx.txns == nullptr) return ke::kNotEnoughReplicas;
  int16_t code = ke::kNone;
  if (version >= 12) {
    code = ctx.txns->AddPartitions(transactional_id, producer.producer_id, producer.producer_epoch,
                                   {tp}, /*client_transaction_version=*/2);
  } else {
    TransactionCoordinator::Verification v = ctx.txns->VerifyPartitions(
        transactional_id, producer.producer_id, producer.producer_epoch, {tp});
    code = v.error_code != ke::kNone ? v.error_code : v.partition_errors.front();
    // Produce v0-10 (DEFAULT_ERROR) cannot carry TRANSACTION_ABORTABLE.
    if (code == ke::kTransactionAbortable && version <= 10) code = ke::kInvalidTxnState;
  }
  switch (code) {
    case ke::kProducerFenced:
      return ke::kInvalidProducerEpoch;
    case ke::kCoordinatorNotAvailable:
    case ke::kCoordinatorLoadInProgress:
    case ke::kNotCoordinator:
      return ke::kNotEnoughReplicas;  // retriable: "unable to verify the partition"
    case ke::kConcurrentTransactions:
      return version >= 12 ? code : ke::kNotEnoughReplicas;
    default:
      return code;
  }
}

// Whether some partition's batch is transactional (Kafka's RequestUtils.hasTransactionalRecords).
bool HasTransactionalBatch(const protocol::ProduceRequestData& req) {
  for (const auto& topic : req.topic_data) {
    for (const auto& part : topic.partition_data) {
      if (part.records.has_value() &&
          TransactionalBatchProducer(part.records->contiguous()).has_value()) {
        return true;
      }
    }
  }
  return false;
}

// Kafka's ProduceRequest.getErrorResponse: every partition fails with `code`.
protocol::ProduceResponseData ErrorResponse(const protocol::ProduceRequestData& req, int16_t code) {
  protocol::ProduceResponseData resp;
  for (const auto& topic : req.topic_data) {
    auto& tr = resp.responses.emplace_back();
    tr.name = topic.name;
    tr.topic_id = topic.topic_id;
    for (const auto& part : topic.partition_data) {
      auto& pr = tr.partition_responses.emplace_back();
      pr.index = part.index;
      pr.error_code = code;
      pr.base_offset = -1;
    }
  }
  return resp;
}

}  // namespace

protocol::ProduceResponseData HandleProduce(const BrokerContext& ctx, const RequestContext& rc,
                                            const protocol::ProduceRequestData& req,
                                            int16_t version, std::vector<TopicPartition>* appended,
                                            bool* any_error) {
  protocol::ProduceResponseData resp;
  *any_error = false;
  // Kafka's hasTransactionalRecords: a request with a transactional batch needs WRITE on its
  // transactional id (none counts as denied), or nothing of it is appended.
  if (HasTransactionalBatch(req) &&
      (!req.transactional_id ||
       !Authorized(ctx, rc, AclOperation::kWrite, ResourceType::kTransactionalId,
                   *req.transactional_id))) {
    *any_error = true;
    return ErrorResponse(req, kafka_error::kTransactionalIdAuthorizationFailed);
  }
  const bool acks_ok = req.acks == -1 || req.acks == 0 || req.acks == 1;
  for (const auto& topic : req.topic_data) {
    auto& tr = resp.responses.emplace_back();
    tr.name = topic.name;
    tr.topic_id = topic.topic_id;
    std::optional<std::string> name = topic.name;
    if (version >= 13) name = TopicNameForId(ctx, topic.topic_id);
    const bool may_write =
        name && Authorized(ctx, rc, AclOperation::kWrite, ResourceType::kTopic, *name);
    for (const auto& part : topic.partition_data) {
      auto& pr = tr.partition_responses.emplace_back();
      pr.index = part.index;
      pr.base_offset = -1;
      auto fail = [&](int16_t code) {
        pr.error_code = code;
        *any_error = true;
      };
      // Kafka's order: an unknown topic id, then WRITE on the topic, then an unknown topic
      // (so a client that may not write learns nothing of what exists), then the acks.
      if (!name) {
        fail(kafka_error::kUnknownTopicId);
        continue;
      }
      if (!may_write) {
        fail(kafka_error::kTopicAuthorizationFailed);
        continue;
      }
      const TopicPartition tp{*name, part.index};
      Result<std::shared_ptr<Log>> log = ctx.logs->GetLog(tp);
      if (!log.ok()) {
        fail(kafka_error::kUnknownTopicOrPartition);
        continue;
      }
      if (!acks_ok) {
        fail(kafka_error::kInvalidRequiredAcks);
        continue;
      }
      if (IsInternalTopic(*name)) {
        // Kafka's ReplicaManager.appendToLocalLog: only the coordinators write there.
        fail(kafka_error::kInvalidTopic);
        ctx.logger.Info(
            fmt::format("Error processing append operation on partition {}: "
                        "Cannot append to internal topic {}",
                        tp.ToString(), *name));
        continue;
      }
      std::span<const uint8_t> bytes;
      if (part.records.has_value()) bytes = part.records->contiguous();
      Status valid = ValidateProduceRecords(bytes, version);
      if (valid.ok()) {
        if (std::optional<TransactionalProducer> producer = TransactionalBatchProducer(bytes)) {
          const int16_t code =
              VerifyTransactionalBatch(ctx, *req.transactional_id, *producer, tp, version);
          if (code != kafka_error::kNone) {
            fail(code);
            pr.error_message =
                code == kafka_error::kInvalidTxnState || code == kafka_error::kTransactionAbortable
                    ? std::optional<std::string>("Partition was not added to the transaction")
                    : std::nullopt;
            ctx.logger.Info(
                fmt::format("Error processing append operation on partition {}: the "
                            "transactional batch of producer {} failed verification ({})",
                            tp.ToString(), producer->producer_id, code));
            continue;
          }
        }
      }
      Result<LogAppendInfo> info =
          valid.ok()
              ? log.value()->AppendAsLeader(bytes, Log::kCurrentLeaderEpoch, AppendOrigin::kClient)
              : Result<LogAppendInfo>(valid);
      if (!info.ok()) {
        ValidationError e = ValidationError::FromStatus(info.status());
        int16_t code = e.error_code;
        if (code == kafka_error::kUnknownServerError) code = kafka_error::FromStatus(info.status());
        fail(code);
        if (ctx.metrics != nullptr) ctx.metrics->RecordProduce(tp.topic, 0, 0, /*failed=*/true);
        if (!e.record_errors.empty()) {
          for (const RecordError& re : e.record_errors) {
            auto& out = pr.record_errors.emplace_back();
            out.batch_index = re.batch_index;
            out.batch_index_error_message = re.message;
          }
          pr.error_message = e.message;
        }
        ctx.logger.Info(fmt::format("Error processing append operation on partition {}: {}",
                                    tp.ToString(), info.status().ToString()));
        continue;
      }
      if (ctx.metrics != nullptr) {
        ctx.metrics->RecordProduce(tp.topic, info.value().duplicate ? 0 : info.value().record_count,
                                   static_cast<int64_t>(bytes.size()), /*failed=*/false);
      }
      // A retried batch (LogAppendInfo::duplicate) is answered with its original offsets.
      pr.base_offset = info.value().first_offset;
      pr.log_append_time_ms = info.value().log_append_time;
      pr.log_start_offset = log.value()->log_start_offset();
      if (!info.value().duplicate) appended->push_back(tp);
    }
  }
  return resp;
}

protocol::ListOffsetsResponseData HandleListOffsets(const BrokerContext& ctx,
                                                    const RequestContext& rc,
                                                    const protocol::ListOffsetsRequestData& req,
                                                    int16_t version) {
  protocol::ListOffsetsResponseData resp;
  // Leader epochs are in the response from v4.
  const int32_t epoch = version >= 4 ? 0 : -1;
  for (const auto& topic : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = topic.name;
    const bool may_describe =
        Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, topic.name);
    for (const auto& part : topic.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = part.partition_index;
      if (!may_describe) {  // offset and timestamp stay -1
        pr.error_code = kafka_error::kTopicAuthorizationFailed;
        continue;
      }
      Result<std::shared_ptr<Log>> log = ctx.logs->GetLog({topic.name, part.partition_index});
      if (!log.ok()) {
        pr.error_code = kafka_error::kUnknownTopicOrPartition;
        continue;
      }
      // Kafka's Partition.checkCurrentLeaderEpoch: -1 means "no epoch given".
      if (const int32_t leader_epoch = log.value()->leader_epoch();
          part.current_leader_epoch != -1) {
        if (part.current_leader_epoch > leader_epoch) {
          pr.error_code = kafka_error::kUnknownLeaderEpoch;
          continue;
        }
        if (part.current_leader_epoch < leader_epoch) {
          pr.error_code = kafka_error::kFencedLeaderEpoch;
          continue;
        }
      }
      const std::shared_ptr<Log>& l = log.value();
      // The sentinels' first versions (Kafka's timestampMinSupportedVersion): -4 from v8
      // (KIP-405), -5 from v9 (KIP-1005), -6 from v11 (KIP-1023).
      const int16_t first_version = part.timestamp == -4   ? 8
                                    : part.timestamp == -5 ? 9
                                    : part.timestamp == -6 ? 11
                                                           : 0;
      if (version < first_version) {
        pr.error_code = kafka_error::kUnsupportedVersion;
        continue;
      }
      auto answer = [&](int64_t offset, std::optional<int32_t> leader_epoch) {
        pr.timestamp = -1;
        pr.offset = offset;
        pr.leader_epoch = version >= 4 ? leader_epoch.value_or(-1) : -1;
      };
      switch (part.timestamp) {
        case -1:  // latest: the high watermark, or for read_committed the last stable offset
          answer(req.isolation_level == 1 ? l->last_stable_offset() : l->high_watermark(), epoch);
          continue;
        case -2:  // earliest: the log start, remote storage included
          answer(l->log_start_offset(), epoch);
          continue;
        case -4:    // earliest local (KIP-405): the local log start offset
        case -5: {  // latest tiered (KIP-1005): the highest offset copied, -1 when none
          Result<std::optional<TimestampAndOffset>> found =
              l->FetchOffsetByTimestamp(part.timestamp);
          if (!found.ok()) {
            pr.error_code = kafka_error::FromStatus(found.status());
          } else {
            answer((*found)->offset, (*found)->leader_epoch);
          }
          continue;
        }
        case -6: {  // earliest pending upload (KIP-1023): the first offset not yet copied
          const int64_t highest = l->highest_offset_in_remote_storage();
          if (!l->remote_log_enabled()) {
            answer(-1, std::nullopt);
          } else if (highest < 0) {
            if (l->local_log_start_offset() == l->log_start_offset()) {
              answer(l->log_start_offset(), epoch);
            } else {
              answer(-1, std::nullopt);
            }
          } else {
            answer(std::max(highest + 1, l->log_start_offset()), epoch);
          }
          continue;
        }
        default:
          break;
      }
      if (part.timestamp < 0 && part.timestamp != -3) {
        pr.error_code = kafka_error::kInvalidRequest;
        continue;
      }
      Result<std::optional<TimestampAndOffset>> found = std::optional<TimestampAndOffset>();
      // A tiered log looks in its remote segments first (Kafka's findOffsetByTimestamp).
      if (part.timestamp >= 0 && ctx.remote != nullptr && l->remote_log_enabled() &&
          l->log_start_offset() < l->local_log_start_offset()) {
        found =
            ctx.remote->FindOffsetByTimestamp({topic.name, part.partition_index}, part.timestamp);
      }
      if (found.ok() && !found.value().has_value()) {
        found = l->FetchOffsetByTimestamp(part.timestamp);
      }
      if (!found.ok()) {
        pr.error_code = kafka_error::FromStatus(found.status());
        continue;
      }
      // Kafka's lastFetchableOffset: a read_committed client is not told of an offset at or
      // past the last stable offset (the high watermark bounds the others, and is the log end
      // here); it gets no offset, as for a timestamp past the last record.
      const int64_t last_fetchable =
          req.isolation_level == 1 ? l->last_stable_offset() : l->high_watermark();
      if (found.value().has_value() && found.value()->offset < last_fetchable) {
        pr.timestamp = found.value()->timestamp;
        pr.offset = found.value()->offset;
        if (version >= 4) pr.leader_epoch = found.value()->leader_epoch.value_or(-1);
      }
    }
  }
  return resp;
}

}  // namespace seglog
