// TokenBucket; see token_bucket.h.
#include "base/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace seglog {

double TokenBucket::Burst(double rate) const {
  return static_cast<double>(samples_) * (static_cast<double>(window_ms_) / 1000) * rate;
}

void TokenBucket::Refill(double rate, int64_t now_ms) {
  const double burst = Burst(rate);
  if (!started_) {
    started_ = true;
    tokens_ = burst;
  } else {
    const double elapsed_s = static_cast<double>(now_ms - last_ms_) / 1000;
    tokens_ = std::min(burst, tokens_ + rate * elapsed_s);
  }
  last_ms_ = now_ms;
}

double TokenBucket::Tokens(double rate, int64_t now_ms) {
  Refill(rate, now_ms);
  return tokens_;
}

void TokenBucket::Record(double value, double rate, int64_t now_ms) {
  Refill(rate, now_ms);
  tokens_ = std::min(Burst(rate), tokens_ - value);
}

int64_t TokenBucket::ThrottleMs(double rate, int64_t now_ms) {
  const double tokens = Tokens(rate, now_ms);
  if (tokens >= 0) return 0;
  return static_cast<int64_t>(std::llround(-tokens / rate * 1000));
}

}  // namespace seglog
