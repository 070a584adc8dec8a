// ClientQuotaManager; see client_quota_manager.h.
#include "server/client_quota_manager.h"

#include <algorithm>
#include <limits>

namespace seglog {

std::string QuotaUserOf(const std::string& principal) {
  const size_t colon = principal.find(':');
  return colon == std::string::npos ? principal : principal.substr(colon + 1);
}

ClientQuotaManager::Entry& ClientQuotaManager::EntryFor(const Key& key, int64_t now_ms) {
  Entry& e = rates_[key];
  if (e.rate == nullptr)
    e.rate = std::make_unique<WindowedRate>(options_.samples, options_.window_ms);
  e.last_ms = now_ms;
  return e;
}

void ClientQuotaManager::PurgeIdle(int64_t now_ms) {
  const int64_t span = int64_t{options_.samples} * options_.window_ms;
  if (now_ms - last_purge_ms_ < span) return;
  last_purge_ms_ = now_ms;
  std::erase_if(rates_, [&](const auto& kv) { return now_ms - kv.second.last_ms > span; });
}

int64_t ClientQuotaManager::RecordAndGetThrottleMs(ClientQuotaType type, const std::string& user,
                                                   const std::string& client_id, double value,
                                                   int64_t now_ms) {
  const ClientQuotaLimit match = resolver_(type, user, client_id);
  if (!match.limit.has_value()) return 0;
  const double bound = std::max(*match.limit, std::numeric_limits<double>::min());
  MutexLock lock(&mu_);
  PurgeIdle(now_ms);
  Entry& e = EntryFor(Key{type, match.user_tag, match.client_id_tag}, now_ms);
  int64_t throttle = e.rate->RecordAndGetThrottleMs(value, bound, now_ms);
  // Kafka's ClientRequestQuotaManager bounds a request quota's throttle by one window.
  if (type == ClientQuotaType::kRequest) throttle = std::min(throttle, options_.window_ms);
  return throttle;
}

void ClientQuotaManager::Unrecord(ClientQuotaType type, const std::string& user,
                                  const std::string& client_id, double value, int64_t now_ms) {
  const ClientQuotaLimit match = resolver_(type, user, client_id);
  if (!match.limit.has_value()) return;
  MutexLock lock(&mu_);
  EntryFor(Key{type, match.user_tag, match.client_id_tag}, now_ms).rate->Record(-value, now_ms);
}

double ClientQuotaManager::MaxValueInQuotaWindow(ClientQuotaType type, const std::string& user,
                                                 const std::string& client_id) const {
  const ClientQuotaLimit match = resolver_(type, user, client_id);
  if (!match.limit.has_value()) return std::numeric_limits<double>::infinity();
  return *match.limit * (options_.samples - 1) * (static_cast<double>(options_.window_ms) / 1000);
}

size_t ClientQuotaManager::rates() const {
  MutexLock lock(&mu_);
  return rates_.size();
}

}  // namespace seglog
