// TransactionCoordinatorConfig: the transaction coordinator's broker settings, with Kafka's
// names, defaults and validation (TransactionCoordinatorConfig). The replication factor and
// min.isr of __transaction_state are accepted and ignored by the node: one node holds the only
// replica.
//
// Thread safety: a value type.
#ifndef SEGLOG_TXN_TRANSACTION_COORDINATOR_CONFIG_H_
#define SEGLOG_TXN_TRANSACTION_COORDINATOR_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>

#include "seglog/status.h"

namespace seglog {

struct TransactionCoordinatorConfig {
  int32_t transaction_state_log_num_partitions = 50;        // transaction.state.log.num.partitions
  int32_t transaction_state_log_segment_bytes = 104857600;  // transaction.state.log.segment.bytes
  int32_t transaction_max_timeout_ms = 900000;              // transaction.max.timeout.ms, >= 1
  int32_t transactional_id_expiration_ms = 604800000;       // transactional.id.expiration.ms
  // transaction.abort.timed.out.transaction.cleanup.interval.ms, >= 1
  int32_t abort_timed_out_transaction_cleanup_interval_ms = 10000;
  // transaction.remove.expired.transaction.cleanup.interval.ms, >= 1
  int32_t remove_expired_transaction_cleanup_interval_ms = 3600000;
  bool transaction_partition_verification_enable =
      true;  // transaction.partition.verification.enable
  // The finalized level of Kafka's `transaction.version` feature (0-2; a Kafka cluster sets it
  // with kafka-storage format / kafka-features, seglog with this key). 2, Kafka 4.4.0's default,
  // is KIP-890 part 2: clients learn it from ApiVersions and the epoch is bumped by every EndTxn.
  int16_t transaction_version = 2;

  // Sets `key` when it is one of the settings above (the outcome of parsing `value`, in
  // Kafka's words); nullopt for any other key.
  std::optional<Status> Set(const std::string& key, const std::string& value);
};

}  // namespace seglog

#endif  // SEGLOG_TXN_TRANSACTION_COORDINATOR_CONFIG_H_
