// Kafka's controller mutation quota (KIP-599, `controller_mutation_rate`): how fast a client
// may create and delete partitions, per user, client id, or both, as the other client quotas.
//
// - A token bucket per quota entity (base/token_bucket.h) sized by controller.quota.window.num
//   x controller.quota.window.size.seconds; its rate is the entity's controller_mutation_rate
//   from the metadata log (ClientQuotaSnapshot::Lookup), so clients under one entity share it.
// - CreateTopics, CreatePartitions and DeleteTopics take one ControllerMutationQuota per
//   request and charge each topic, once it has passed every other check, with the partitions
//   it creates, adds or deletes (Kafka's ReplicationControlManager calls
//   applyPartitionChangeQuota at that point, for validate-only requests too).
// - Strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+, whose clients know the
//   error): a topic charged while the bucket is below zero is refused with
//   THROTTLING_QUOTA_EXCEEDED and nothing is taken; one charged while tokens remain is
//   accepted whatever its size (the bucket may go below zero).
// - Permissive (older versions): every topic is accepted and charged.
// - The response carries the throttle time (the debt over the rate, less the time since it was
//   found) and the connection is muted for it (KIP-219), as Kafka's
//   sendResponseMaybeThrottleWithControllerQuota.
//
// Thread safety: ControllerMutationQuotaManager is thread-safe (one mutex over the buckets);
// a ControllerMutationQuota belongs to one request's thread.
#ifndef SEGLOG_SERVER_CONTROLLER_MUTATION_QUOTA_H_
#define SEGLOG_SERVER_CONTROLLER_MUTATION_QUOTA_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "base/mutex.h"
#include "base/token_bucket.h"
#include "server/client_quota_manager.h"

namespace seglog {

class ControllerMutationQuotaManager;

class ControllerMutationQuota {
 public:
  ControllerMutationQuota() = default;  // unbounded: no quota applies

  // Charges `permits` partitions. False when the strict quota refuses them (the topic fails
  // with THROTTLING_QUOTA_EXCEEDED); a permissive or unbounded quota always accepts.
  bool Record(double permits);
  // The throttle time for the response, in ms.
  int64_t ThrottleMs() const;

 private:
  friend class ControllerMutationQuotaManager;
  ControllerMutationQuotaManager* manager_ = nullptr;
  ClientQuotaLimit limit_;
  bool strict_ = false;
  int64_t last_throttle_ms_ = 0;
  int64_t last_recorded_ms_ = 0;
};

class ControllerMutationQuotaManager {
 public:
  struct Options {
    int32_t samples = 11;             // controller.quota.window.num
    int64_t window_ms = 1000;         // controller.quota.window.size.seconds x 1000
    std::function<int64_t()> now_ms;  // the clock (ms); null: the system clock
  };
  ControllerMutationQuotaManager(Options options, ClientQuotaResolver resolver);

  // The quota of one request of a client (`user` as ClientQuotaManager has it), strict or
  // permissive by the request's version.
  ControllerMutationQuota QuotaFor(const std::string& user, const std::string& client_id,
                                   bool strict);
  // The buckets kept (tests).
  size_t buckets() const EXCLUDES(mu_);

 private:
  friend class ControllerMutationQuota;
  using Key = std::pair<std::string, std::string>;  // the user and client-id tags
  struct Entry {
    TokenBucket bucket;
    double rate = 0;
    int64_t last_ms = 0;
  };
  int64_t NowMs() const;
  // Strict: the throttle time if the bucket is below zero (nothing taken), else takes
  // `permits` and answers 0. Permissive: takes `permits`, then the throttle time.
  int64_t Charge(const ClientQuotaLimit& limit, double permits, bool strict, int64_t now_ms)
      EXCLUDES(mu_);
  Entry& EntryFor(const Key& key, double rate, int64_t now_ms) REQUIRES(mu_);
  void PurgeFull(int64_t now_ms) REQUIRES(mu_);

  const Options options_;
  const ClientQuotaResolver resolver_;
  mutable Mutex mu_;
  std::map<Key, Entry> buckets_ GUARDED_BY(mu_);
  int64_t last_purge_ms_ GUARDED_BY(mu_) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_CONTROLLER_MUTATION_QUOTA_H_
