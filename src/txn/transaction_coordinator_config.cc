// TransactionCoordinatorConfig; see transaction_coordinator_config.h.
#include "txn/transaction_coordinator_config.h"

#include "base/config_values.h"

namespace seglog {

namespace {

using C = TransactionCoordinatorConfig;

const ConfigSetters<C>& Setters() {
  static const ConfigSetters<C> setters = {
      {"transaction.state.log.num.partitions",
       SetConfigInt<C, int32_t, &C::transaction_state_log_num_partitions, 1>},
      {"transaction.state.log.segment.bytes",
       SetConfigInt<C, int32_t, &C::transaction_state_log_segment_bytes, 1>},
      {"transaction.max.timeout.ms", SetConfigInt<C, int32_t, &C::transaction_max_timeout_ms, 1>},
      {"transactional.id.expiration.ms",
       SetConfigInt<C, int32_t, &C::transactional_id_expiration_ms, 1>},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms",
       SetConfigInt<C, int32_t, &C::abort_timed_out_transaction_cleanup_interval_ms, 1>},
      {"transaction.remove.expired.transaction.cleanup.interval.ms",
       SetConfigInt<C, int32_t, &C::remove_expired_transaction_cleanup_interval_ms, 1>},
      {"transaction.version",
       [](C* c, const std::string&, const std::string& v) {
         int32_t x = 0;
         Status s = ParseConfigInt<int32_t>("transaction.version", v, 0, &x);
         if (s.ok() && x > 2) {
           s = ConfigInvalid("transaction.version", v, "Value must be no more than 2");
         }
         if (s.ok()) c->transaction_version = static_cast<int16_t>(x);
         return s;
       }},
      {"transaction.partition.verification.enable",
       SetConfigBool<C, &C::transaction_partition_verification_enable>},
  };
  return setters;
}

}  // namespace

std::optional<Status> TransactionCoordinatorConfig::Set(const std::string& key,
                                                        const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
