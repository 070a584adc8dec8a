// Batch validation and record iteration over 1 MiB of batches, per codec, with the machine's
// memcpy and CRC32C throughput measured beside them (the limits validation should approach).
// Run: build/release/bench/record_batch_bench   (numbers and command in docs/benchmarks.md)
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/crc32c.h"
#include "record/batch_walker.h"
#include "seglog/record_batch.h"

namespace seglog {
namespace {

constexpr size_t kTotal = 1 << 20;

// About 1 MiB of batches: `record_size`-byte values, `per_batch` records per batch.
std::vector<uint8_t> MakeLog(CompressionType codec, size_t record_size, int per_batch) {
  std::mt19937 rng(1);
  std::string value(record_size, 'x');
  std::vector<uint8_t> log;
  int64_t offset = 0;
  while (log.size() < kTotal) {
    BatchOptions o;
    o.base_offset = offset;
    o.compression = codec;
    RecordBatchBuilder b(o);
    for (int i = 0; i < per_batch; ++i) {
      for (size_t j = 0; j < value.size(); j += 7) value[j] = static_cast<char>('a' + rng() % 20);
      std::string key = "key-" + std::to_string(offset + i);
      (void)b.Append(1700000000000 + offset + i,
                     Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                     Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
    }
    auto bytes = b.Build();
    log.insert(log.end(), bytes->begin(), bytes->end());
    offset += per_batch;
  }
  return log;
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<uint8_t> src(kTotal, 1), dst(kTotal);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kTotal));
}
BENCHMARK(BM_Memcpy);

void BM_Crc32c(benchmark::State& state) {
  std::vector<uint8_t> src(kTotal, 7);
  for (auto _ : state) benchmark::DoNotOptimize(Crc32c(src));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kTotal));
}
BENCHMARK(BM_Crc32c);

// Header walk + CRC of every batch: what recovery does per batch (Kafka's ensureValid).
void BM_WalkAndValidateCrc(benchmark::State& state) {
  const auto log = MakeLog(CompressionType::kNone, static_cast<size_t>(state.range(0)),
                           static_cast<int>(state.range(1)));
  for (auto _ : state) {
    LogBatchWalker w(log);
    int valid = 0;
    while (w.Next()) valid += RecordBatchView::Parse(w.current_bytes())->IsValid() ? 1 : 0;
    benchmark::DoNotOptimize(valid);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * log.size()));
}
// 1 KiB records in 16 KiB batches; 100-byte records in 1,000-record batches.
BENCHMARK(BM_WalkAndValidateCrc)->Args({1024, 16})->Args({100, 1000});

void BM_IterateRecords(benchmark::State& state) {
  const auto codec = static_cast<CompressionType>(state.range(0));
  const auto log = MakeLog(codec, 100, 1000);
  int64_t records = 0;
  for (auto _ : state) {
    LogBatchWalker w(log);
    while (w.Next()) {
      RecordIterator it(*RecordBatchView::Parse(w.current_bytes()));
      while (it.Next()) benchmark::DoNotOptimize(it.record().value);
      records += it.count();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * log.size()));
  state.SetItemsProcessed(records);
  state.SetLabel(std::string(CompressionName(codec)));
}
BENCHMARK(BM_IterateRecords)->DenseRange(0, 4);

void BM_ValidateDeep(benchmark::State& state) {
  const auto codec = static_cast<CompressionType>(state.range(0));
  const auto log = MakeLog(codec, 100, 1000);
  for (auto _ : state) {
    LogBatchWalker w(log);
    while (w.Next())
      benchmark::DoNotOptimize(RecordBatchView::Parse(w.current_bytes())->ValidateDeep());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * log.size()));
  state.SetLabel(std::string(CompressionName(codec)));
}
BENCHMARK(BM_ValidateDeep)->DenseRange(0, 4);

}  // namespace
}  // namespace seglog

BENCHMARK_MAIN();
