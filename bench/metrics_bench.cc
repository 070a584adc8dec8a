// The cost of recording one latency on the broker's hot path: seglog's WindowedHistogram
// against prometheus-cpp's Summary (CKMS) at the quantiles and error bounds Kafka's exported
// percentiles need, after `range(0)` values already recorded (the Summary's cost grows with
// them). docs/benchmarks.md, "Metrics", has the numbers and the command.
#include <benchmark/benchmark.h>
#include <prometheus/summary.h>

#include <chrono>
#include <random>

#include "metrics/broker_metrics.h"
#include "metrics/windowed_histogram.h"

namespace seglog {
namespace {

double Latency(std::mt19937_64& rng) {
  // Mostly sub-millisecond, with a long tail: a broker's request times.
  std::lognormal_distribution<double> d(-1.0, 1.2);
  return d(rng);
}

void BM_WindowedHistogramRecord(benchmark::State& state) {
  WindowedHistogram h;
  std::mt19937_64 rng(1);
  for (int64_t i = 0; i < state.range(0); ++i) h.Record(Latency(rng), 1000);
  for (auto _ : state) h.Record(Latency(rng), 1000);
}
BENCHMARK(BM_WindowedHistogramRecord)->Arg(0)->Arg(100000)->Arg(1000000);

void BM_SummaryObserve(benchmark::State& state) {
  prometheus::Summary s(
      {{0.50, 0.01}, {0.75, 0.01}, {0.95, 0.005}, {0.98, 0.002}, {0.99, 0.001}, {0.999, 0.0001}},
      std::chrono::minutes(5), 5);
  std::mt19937_64 rng(1);
  for (int64_t i = 0; i < state.range(0); ++i) s.Observe(Latency(rng));
  for (auto _ : state) s.Observe(Latency(rng));
}
BENCHMARK(BM_SummaryObserve)->Arg(0)->Arg(100000)->Arg(1000000);

// What the broker does per answered request: six phases under one request name.
void BM_RecordRequestTimes(benchmark::State& state) {
  BrokerMetrics m;
  BrokerMetrics::PhaseMs ms{0.01, 0.002, 0.3, 0.0, 0.004, 0.02};
  for (auto _ : state) m.RecordRequestTimes("Produce", ms);
}
BENCHMARK(BM_RecordRequestTimes);

// A scrape's cost with 70 request names' histograms.
void BM_Scrape(benchmark::State& state) {
  BrokerMetrics m;
  BrokerMetrics::PhaseMs ms{0.01, 0.002, 0.3, 0.0, 0.004, 0.02};
  for (int api = 0; api < 70; ++api) m.RecordRequestTimes("Api" + std::to_string(api), ms);
  for (auto _ : state) benchmark::DoNotOptimize(m.Scrape());
}
BENCHMARK(BM_Scrape);

}  // namespace
}  // namespace seglog

BENCHMARK_MAIN();
