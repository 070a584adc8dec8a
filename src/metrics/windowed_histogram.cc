// WindowedHistogram; see windowed_histogram.h.
#include "metrics/windowed_histogram.h"

#include <algorithm>
#include <cmath>

namespace seglog {

namespace {
const double kLogGrowth = std::log(WindowedHistogram::kGrowth);
}  // namespace

WindowedHistogram::WindowedHistogram() : slots_(std::make_unique<std::array<Slot, kSlots>>()) {}

int WindowedHistogram::BucketOf(double ms) {
  if (!(ms > kMinMs)) return 0;  // also NaN
  const double i = std::ceil(std::log(ms / kMinMs) / kLogGrowth);
  return static_cast<int>(std::min<double>(i, kBuckets - 1));
}

double WindowedHistogram::ValueOf(int bucket) {
  if (bucket <= 0) return kMinMs;
  // The geometric middle of (kMinMs g^(b-1), kMinMs g^b].
  return kMinMs * std::pow(kGrowth, bucket - 0.5);
}

WindowedHistogram::Slot& WindowedHistogram::SlotFor(int64_t now_ms) {
  const int64_t minute = now_ms / kSlotMs;
  Slot& slot = (*slots_)[static_cast<size_t>(minute % kSlots)];
  int64_t seen = slot.minute.load(std::memory_order_acquire);
  // The first to see a new minute clears what the slot held five minutes ago. A recorder late
  // by a whole cycle (an older minute) never takes the slot back: it counts into the current
  // minute's, a value a few minutes late.
  while (seen < minute) {
    if (slot.minute.compare_exchange_weak(seen, minute, std::memory_order_acq_rel)) {
      for (auto& c : slot.counts) c.store(0, std::memory_order_relaxed);
      break;
    }
  }
  return slot;
}

void WindowedHistogram::Record(double ms, int64_t now_ms) {
  SlotFor(now_ms).counts[static_cast<size_t>(BucketOf(ms))].fetch_add(1, std::memory_order_relaxed);
  total_.fetch_add(1, std::memory_order_relaxed);
}

WindowedHistogram::Snapshot WindowedHistogram::Take(const std::vector<double>& qs,
                                                    int64_t now_ms) const {
  Snapshot s;
  s.total_count = total_.load(std::memory_order_relaxed);
  const int64_t minute = now_ms / kSlotMs;
  std::array<uint64_t, kBuckets> sum{};
  for (const Slot& slot : *slots_) {
    const int64_t m = slot.minute.load(std::memory_order_acquire);
    if (m < 0 || m > minute || minute - m >= kSlots) continue;  // empty or out of the window
    for (int b = 0; b < kBuckets; ++b) {
      sum[b] += slot.counts[b].load(std::memory_order_relaxed);
    }
  }
  for (uint64_t c : sum) s.window_count += c;
  for (double q : qs) {
    if (s.window_count == 0) {
      s.quantiles.push_back(0);
      continue;
    }
    // The smallest bucket whose cumulative count reaches q of the values (nearest rank).
    const uint64_t rank = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(s.window_count))));
    uint64_t seen = 0;
    int b = 0;
    for (; b < kBuckets; ++b) {
      seen += sum[b];
      if (seen >= rank) break;
    }
    s.quantiles.push_back(ValueOf(std::min(b, kBuckets - 1)));
  }
  return s;
}

}  // namespace seglog
