// Clocks in milliseconds: the wall clock (Kafka's time.milliseconds(), for timestamps and
// schedules) and a monotonic one (for measuring how long something took).
// Thread safety: pure functions.
#ifndef SEGLOG_BASE_CLOCK_H_
#define SEGLOG_BASE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace seglog {

inline int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace seglog

#endif  // SEGLOG_BASE_CLOCK_H_
