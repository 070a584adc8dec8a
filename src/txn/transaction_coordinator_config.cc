// TransactionCoordinatorConfig; see transaction_coordinator_config.h.
#include "txn/transaction_coordinator_config.h"

#include "base/config_values.h"

namespace seglog {

namespace {

using C = TransactionCoordinatorConfig;

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"transaction.state.log.num.partitions",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.state.log.num.partitions", v, 1,
                                        &c->transaction_state_log_num_partitions);
       }},
      {"transaction.state.log.segment.bytes",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.state.log.segment.bytes", v, 1,
                                        &c->transaction_state_log_segment_bytes);
       }},
      {"transaction.max.timeout.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("transaction.max.timeout.ms", v, 1,
                                        &c->transaction_max_timeout_ms);
       }},
      {"transactional.id.expiration.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>("transactional.id.expiration.ms", v, 1,
                                        &c->transactional_id_expiration_ms);
       }},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>(
             "transaction.abort.timed.out.transaction.cleanup.interval.ms", v, 1,
             &c->abort_timed_out_transaction_cleanup_interval_ms);
       }},
      {"transaction.remove.expired.transaction.cleanup.interval.ms",
       [](C* c, const std::string& v) {
         return ParseConfigInt<int32_t>(
             "transaction.remove.expired.transaction.cleanup.interval.ms", v, 1,
             &c->remove_expired_transaction_cleanup_interval_ms);
       }},
      {"transaction.version",
       [](C* c, const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("transaction.version", v, 0, &x);
         if (s.ok() && x > 2) {
           s = ConfigInvalid("transaction.version", v, "Value must be no more than 2");
         }
         if (s.ok()) c->transaction_version = static_cast<int16_t>(x);
         return s;
       }},
      {"transaction.partition.verification.enable",
       [](C* c, const std::string& v) {
         return ParseConfigBool("transaction.partition.verification.enable", v,
                                &c->transaction_partition_verification_enable);
       }},
  };
  return setters;
}

}  // namespace

std::optional<Status> TransactionCoordinatorConfig::Set(const std::string& key,
                                                        const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
