// Cleaner micro-benchmarks: the key hash (XXH3-128, which seglog's offset map uses, against
// MD5, Kafka's) and the offset map's put and get rates. Numbers in docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <xxhash.h>

#include <string>
#include <vector>

#include "cleaner/skimpy_offset_map.h"

namespace seglog {
namespace {

std::vector<std::string> Keys(size_t n, size_t size) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; ++i) {
    std::string k = fmt::format("key-{:012d}", i);
    k.resize(size, 'k');
    keys.push_back(k);
  }
  return keys;
}

void BM_HashXxh3_128(benchmark::State& state) {
  const auto keys = Keys(4096, static_cast<size_t>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& k = keys[i++ & 4095];
    benchmark::DoNotOptimize(XXH3_128bits(k.data(), k.size()));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_HashXxh3_128)->Arg(16)->Arg(64)->Arg(1024);

void BM_HashMd5(benchmark::State& state) {
  const auto keys = Keys(4096, static_cast<size_t>(state.range(0)));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char out[16];
  unsigned int len = 0;
  size_t i = 0;
  for (auto _ : state) {
    const std::string& k = keys[i++ & 4095];
    EVP_DigestInit_ex(ctx, EVP_md5(), nullptr);
    EVP_DigestUpdate(ctx, k.data(), k.size());
    EVP_DigestFinal_ex(ctx, out, &len);
    benchmark::DoNotOptimize(out);
  }
  EVP_MD_CTX_free(ctx);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_HashMd5)->Arg(16)->Arg(64)->Arg(1024);

// Filling a default-size map (128 MiB) with 1,000,000 distinct keys, then looking them up.
void BM_OffsetMapPut(benchmark::State& state) {
  const auto keys = Keys(1000000, 16);
  SkimpyOffsetMap map(134217728, 0.9);
  for (auto _ : state) {
    map.Clear();
    int64_t offset = 0;
    for (const std::string& k : keys) {
      (void)map.Put({reinterpret_cast<const uint8_t*>(k.data()), k.size()}, offset++);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(keys.size()));
  state.counters["keys_per_MiB"] =
      static_cast<double>(map.max_desired_size()) / (134217728.0 / 1048576.0);
}
BENCHMARK(BM_OffsetMapPut)->Unit(benchmark::kMillisecond);

void BM_OffsetMapGet(benchmark::State& state) {
  const auto keys = Keys(1000000, 16);
  SkimpyOffsetMap map(134217728, 0.9);
  int64_t offset = 0;
  for (const std::string& k : keys) {
    (void)map.Put({reinterpret_cast<const uint8_t*>(k.data()), k.size()}, offset++);
  }
  size_t i = 0;
  for (auto _ : state) {
    const std::string& k = keys[i++ % keys.size()];
    benchmark::DoNotOptimize(map.Get({reinterpret_cast<const uint8_t*>(k.data()), k.size()}));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OffsetMapGet);

}  // namespace
}  // namespace seglog

BENCHMARK_MAIN();
