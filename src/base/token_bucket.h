// TokenBucket: Kafka's token bucket quota (KIP-599), as its controller mutation quota uses it.
//
// Kafka's rules, kept exactly because clients' retries depend on them:
// - The bucket refills at `rate` tokens per second up to its burst, rate x samples x window
//   seconds (controller.quota.window.num x controller.quota.window.size.seconds, 11 s by
//   default).
// - A record takes `value` tokens and may take the bucket below zero; the quota is exhausted
//   while it is below zero, and the time to wait is -tokens / rate seconds, rounded to whole
//   milliseconds (ControllerMutationQuotaManager.throttleTimeMs).
// - A new bucket is full. (Kafka's starts empty but last refilled at the epoch, so its first
//   measure fills it; seglog states that directly rather than depend on the clock's origin.)
// - The rate is passed on every call, as Kafka reads it from the sensor's current config: a
//   changed quota applies at once to the tokens already there.
//
// Thread safety: not thread-safe; callers serialize (the quota manager holds a lock).
#ifndef SEGLOG_BASE_TOKEN_BUCKET_H_
#define SEGLOG_BASE_TOKEN_BUCKET_H_

#include <cstdint>

namespace seglog {

class TokenBucket {
 public:
  // `samples` >= 1, `window_ms` >= 1.
  TokenBucket(int32_t samples, int64_t window_ms) : samples_(samples), window_ms_(window_ms) {}

  // The tokens at `now_ms` for `rate` (> 0) tokens per second.
  double Tokens(double rate, int64_t now_ms);
  // Takes `value` tokens at `now_ms`.
  void Record(double value, double rate, int64_t now_ms);
  // 0 while tokens remain, else the ms until the bucket is back at zero.
  int64_t ThrottleMs(double rate, int64_t now_ms);
  // The most the bucket holds at `rate`.
  double Burst(double rate) const;

 private:
  void Refill(double rate, int64_t now_ms);

  const int32_t samples_;
  const int64_t window_ms_;
  bool started_ = false;
  double tokens_ = 0;
  int64_t last_ms_ = 0;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_TOKEN_BUCKET_H_
