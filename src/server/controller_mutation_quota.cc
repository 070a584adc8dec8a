// ControllerMutationQuota and its manager; see controller_mutation_quota.h.
#include "server/controller_mutation_quota.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <limits>

namespace seglog {

bool ControllerMutationQuota::Record(double permits) {
  if (manager_ == nullptr) return true;
  const int64_t now = manager_->NowMs();
  const int64_t throttle = manager_->Charge(limit_, permits, strict_, now);
  if (throttle > 0) {
    last_throttle_ms_ = throttle;
    last_recorded_ms_ = now;
    return !strict_;
  }
  return true;
}

int64_t ControllerMutationQuota::ThrottleMs() const {
  if (manager_ == nullptr || last_throttle_ms_ == 0) return 0;
  return std::max<int64_t>(0, last_throttle_ms_ - (manager_->NowMs() - last_recorded_ms_));
}

ControllerMutationQuotaManager::ControllerMutationQuotaManager(Options options,
                                                               ClientQuotaResolver resolver)
    : options_(std::move(options)), resolver_(std::move(resolver)) {}

int64_t ControllerMutationQuotaManager::NowMs() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ControllerMutationQuota ControllerMutationQuotaManager::QuotaFor(const std::string& user,
                                                                 const std::string& client_id,
                                                                 bool strict) {
  ControllerMutationQuota q;
  ClientQuotaLimit limit = resolver_(ClientQuotaType::kControllerMutation, user, client_id);
  if (!limit.limit.has_value()) return q;  // Kafka's UNBOUNDED_CONTROLLER_MUTATION_QUOTA
  q.manager_ = this;
  q.limit_ = std::move(limit);
  q.strict_ = strict;
  return q;
}

ControllerMutationQuotaManager::Entry& ControllerMutationQuotaManager::EntryFor(const Key& key,
                                                                                double rate,
                                                                                int64_t now_ms) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    it = buckets_.emplace(key, Entry{TokenBucket(options_.samples, options_.window_ms)}).first;
  }
  it->second.rate = rate;
  it->second.last_ms = now_ms;
  return it->second;
}

void ControllerMutationQuotaManager::PurgeFull(int64_t now_ms) {
  // A bucket back at its burst is what a new one would be: dropping it loses nothing. Looked
  // at once per burst span, which bounds the buckets kept to the clients of that span.
  const int64_t span = int64_t{options_.samples} * options_.window_ms;
  if (now_ms - last_purge_ms_ < span) return;
  last_purge_ms_ = now_ms;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    Entry& e = it->second;
    const bool full = e.bucket.Tokens(e.rate, now_ms) >= e.bucket.Burst(e.rate);
    it = now_ms - e.last_ms >= span && full ? buckets_.erase(it) : std::next(it);
  }
}

int64_t ControllerMutationQuotaManager::Charge(const ClientQuotaLimit& limit, double permits,
                                               bool strict, int64_t now_ms) {
  const double rate = std::max(*limit.limit, std::numeric_limits<double>::min());
  MutexLock lock(&mu_);
  PurgeFull(now_ms);
  Entry& e = EntryFor(Key{limit.user_tag, limit.client_id_tag}, rate, now_ms);
  if (strict) {
    if (const int64_t throttle = e.bucket.ThrottleMs(rate, now_ms); throttle > 0) return throttle;
    e.bucket.Record(permits, rate, now_ms);
    return 0;
  }
  e.bucket.Record(permits, rate, now_ms);
  return e.bucket.ThrottleMs(rate, now_ms);
}

size_t ControllerMutationQuotaManager::buckets() const {
  MutexLock lock(&mu_);
  return buckets_.size();
}

}  // namespace seglog
