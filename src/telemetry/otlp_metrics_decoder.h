// DecodeOtlpMetrics: the part of an OpenTelemetry MetricsData message (OTLP protobuf, the payload
// of a KIP-714 PushTelemetry once decompressed) that the broker exposes: every metric's name,
// whether it is a gauge or a sum (with its temporality and monotonicity), and its number data
// points with their attributes and values. Histograms, summaries, exemplars and every other field
// are skipped without being looked into.
//
// Why a hand-written decoder: the OTLP .proto files are not packaged in Debian, so protoc cannot
// generate classes for them, and vendoring them is not allowed here. The subset read is small
// (seven message types) and the protobuf wire format is stable, so a bounded reader is less code
// than a build-time dependency. It trusts nothing: every length is checked against the bytes left,
// the nesting is fixed by the schema (unknown or unread fields are skipped as opaque bytes, never
// descended into), and the counts of metrics, points and attributes and the sizes of strings are
// capped (OtlpLimits); any violation is a Corruption status, never a crash.
//
// Thread safety: a pure function; safe from any thread.
#ifndef SEGLOG_TELEMETRY_OTLP_METRICS_DECODER_H_
#define SEGLOG_TELEMETRY_OTLP_METRICS_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "seglog/result.h"

namespace seglog {

// OTLP's AggregationTemporality.
enum class OtlpTemporality : int32_t { kUnspecified = 0, kDelta = 1, kCumulative = 2 };

struct OtlpDataPoint {
  // Attribute keys and values as text (a bool as "true"/"false", numbers in decimal; array,
  // key-value list and bytes values are left out).
  std::vector<std::pair<std::string, std::string>> attributes;
  double value = 0;
  uint64_t time_unix_nano = 0;
};

struct OtlpMetric {
  enum class Kind { kGauge, kSum };
  std::string name;
  Kind kind = Kind::kGauge;
  OtlpTemporality temporality = OtlpTemporality::kUnspecified;  // sums only
  bool monotonic = false;                                       // sums only
  std::vector<OtlpDataPoint> points;
};

struct OtlpLimits {
  size_t max_metrics = 10000;
  size_t max_points = 100000;  // over all metrics
  size_t max_attributes_per_point = 64;
  size_t max_string_bytes = 4096;  // a name, key or value
};

// Corruption naming the first problem: a truncated or over-long field, a length that runs past
// its message, a wire type the field cannot have, a limit exceeded.
Result<std::vector<OtlpMetric>> DecodeOtlpMetrics(std::span<const uint8_t> bytes,
                                                  const OtlpLimits& limits = {});

}  // namespace seglog

#endif  // SEGLOG_TELEMETRY_OTLP_METRICS_DECODER_H_
