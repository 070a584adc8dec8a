// libFuzzer target: arbitrary bytes as a KIP-714 PushTelemetry payload. The bytes are decoded as
// OTLP MetricsData directly, then pushed through the ClientMetricsManager with the compression
// type the first byte picks (none, gzip, snappy, lz4, zstd, or an unknown one), so the codecs,
// the decoder and the series bookkeeping all see them. Nothing may crash, read out of bounds or
// grow past the manager's caps; what decodes must be collectable.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "telemetry/client_metrics_manager.h"
#include "telemetry/otlp_metrics_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using seglog::ClientMetricsManager;
  std::span<const uint8_t> bytes(data, size);
  (void)seglog::DecodeOtlpMetrics(bytes);
  if (size == 0) return 0;

  ClientMetricsManager::Options options;
  options.max_series = 50;
  options.max_series_per_client = 20;
  options.telemetry_max_bytes = 1 << 20;
  ClientMetricsManager m(options);
  if (!m.UpdateSubscription("all", {{"metrics", "*"}, {"interval.ms", "100"}}).ok()) abort();
  ClientMetricsManager::Caller caller{1, "fuzz", "127.0.0.1", "1"};
  auto got = m.GetSubscriptions(seglog::Uuid{}, caller, 1000);
  if (got.error_code != 0) abort();
  const int8_t compression = static_cast<int8_t>(data[0] % 6);
  auto pushed = m.Push(got.client_instance_id, got.subscription_id, false, compression,
                       bytes.subspan(1), caller, 1001);
  (void)pushed;
  (void)m.Collect(1002);
  if (m.SeriesCount() > options.max_series_per_client) abort();
  return 0;
}
