// ClientQuotaManager: Kafka's client quota enforcement (its ClientQuotaManager and
// ClientRequestQuotaManager, KIP-13, KIP-124, KIP-219): the rate each client uses of a quota
// type, measured with Kafka's windowed rate, and the throttle time of a client past its quota.
//
// - Which quota applies to a request, and which clients share its rate, is the resolver's
//   answer (the metadata log's ClientQuotaRecords by Kafka's precedence, user and client id
//   with their defaults): a limit and the metric tags (user, client-id) that key the rate, so
//   clients under one quota entity share one rate, as in Kafka.
// - Produce records the request's size, Fetch the response's (a throttled fetch is answered
//   empty and its bytes are unrecorded), Request the time handling took as a percentage of one
//   thread (its throttle is bounded by one quota window, as Kafka bounds it).
// - A throttled client gets its response at once with throttle_time_ms set, and its
//   connection reads nothing more for that long (KIP-219: the broker mutes the channel; Kafka's
//   clients also wait before sending to it).
// - Rates idle longer than the whole quota window are dropped (their samples have expired, so
//   nothing is lost), which bounds the rates kept to the clients active in the window.
//
// Thread safety: thread-safe (one mutex over the rates; the resolver must be thread-safe).
#ifndef SEGLOG_SERVER_CLIENT_QUOTA_MANAGER_H_
#define SEGLOG_SERVER_CLIENT_QUOTA_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "base/mutex.h"
#include "base/windowed_rate.h"
#include "manager/client_quota_lookup.h"

namespace seglog {

// The quota that applies to (user, client id) and the tags of the rate it is measured by
// (ClientQuotaSnapshot::Lookup over the metadata log's quotas). `user` is the principal's name
// (ANONYMOUS without authentication).
using ClientQuotaResolver = std::function<ClientQuotaLimit(
    ClientQuotaType type, const std::string& user, const std::string& client_id)>;

class ClientQuotaManager {
 public:
  struct Options {
    int32_t samples = 11;      // quota.window.num
    int64_t window_ms = 1000;  // quota.window.size.seconds x 1000
  };
  ClientQuotaManager(Options options, ClientQuotaResolver resolver)
      : options_(options), resolver_(std::move(resolver)) {}

  // Records `value` for the client; 0, or how long (ms) it must be throttled.
  int64_t RecordAndGetThrottleMs(ClientQuotaType type, const std::string& user,
                                 const std::string& client_id, double value, int64_t now_ms)
      EXCLUDES(mu_);
  // Takes `value` back (a throttled fetch's bytes, which were not sent).
  void Unrecord(ClientQuotaType type, const std::string& user, const std::string& client_id,
                double value, int64_t now_ms) EXCLUDES(mu_);
  // The most one request may record without certainly being throttled (Kafka's
  // maxValueInQuotaWindow: limit x (samples - 1) x window); infinity when unlimited.
  double MaxValueInQuotaWindow(ClientQuotaType type, const std::string& user,
                               const std::string& client_id) const;
  // The rates kept (tests).
  size_t rates() const EXCLUDES(mu_);

 private:
  using Key = std::tuple<ClientQuotaType, std::string, std::string>;
  struct Entry {
    std::unique_ptr<WindowedRate> rate;
    int64_t last_ms = 0;
  };
  Entry& EntryFor(const Key& key, int64_t now_ms) REQUIRES(mu_);
  void PurgeIdle(int64_t now_ms) REQUIRES(mu_);

  const Options options_;
  const ClientQuotaResolver resolver_;
  mutable Mutex mu_;
  std::map<Key, Entry> rates_ GUARDED_BY(mu_);
  int64_t last_purge_ms_ GUARDED_BY(mu_) = 0;
};

// The principal's name as quotas know it ("User:alice" -> "alice").
std::string QuotaUserOf(const std::string& principal);

}  // namespace seglog

#endif  // SEGLOG_SERVER_CLIENT_QUOTA_MANAGER_H_
