// Partition log benchmarks: append throughput, random offset lookups on a 1 GiB log
// with the default index interval, timestamp lookups and sequential reads, with memcpy beside
// them. No fsync anywhere (as Kafka's defaults). Set SEGLOG_BENCH_LOG_MIB to change the size of
// the lookup/read log (default 1024). Run:
//   build/release/bench/log_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "index/offset_index.h"
#include "seglog/log.h"

namespace seglog {
namespace {

constexpr int64_t kT0 = 1700000000000;

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("seglog_bench_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<uint8_t> ClientBatch(int records, int value_size, int64_t ts) {
  RecordBatchBuilder b(BatchOptions{});
  std::string value(static_cast<size_t>(value_size), 'x');
  std::mt19937 rng(1);
  for (auto& c : value) c = static_cast<char>('a' + rng() % 26);
  for (int i = 0; i < records; ++i) {
    const std::string key = "key-" + std::to_string(i);
    (void)b.Append(ts + i, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return *b.Build();
}

std::unique_ptr<Log> NewLog(const std::string& dir) {
  LogOptions o;
  o.clock = [] { return kT0 + 1000; };
  return std::move(Log::Open(dir, LogConfig{}, o)).value();
}

void BM_Memcpy16KiB(benchmark::State& state) {
  std::vector<uint8_t> a(16 * 1024, 1), b(16 * 1024);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), a.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(a.size()));
}
BENCHMARK(BM_Memcpy16KiB);

// The limit for appends through the page cache: pwrite of 16 KiB chunks at the end of a file,
// nothing else (a fresh file every 512 MiB, as BM_Append).
void BM_RawPwrite16KiB(benchmark::State& state) {
  const std::string dir = TempDir("pwrite");
  std::filesystem::create_directories(dir);
  std::vector<uint8_t> chunk(16 * 1024, 'x');
  FILE* f = std::fopen((dir + "/f").c_str(), "w");
  int fd = fileno(f);
  int64_t pos = 0;
  for (auto _ : state) {
    if (::pwrite(fd, chunk.data(), chunk.size(), pos) != static_cast<ssize_t>(chunk.size())) {
      state.SkipWithError("pwrite failed");
    }
    pos += static_cast<int64_t>(chunk.size());
    if (pos > (int64_t{512} << 20)) {
      state.PauseTiming();
      std::fclose(f);
      f = std::fopen((dir + "/f").c_str(), "w");
      fd = fileno(f);
      pos = 0;
      state.ResumeTiming();
    }
  }
  std::fclose(f);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(chunk.size()));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RawPwrite16KiB)->UseRealTime();

// Appends client batches (records x value bytes) as the leader: validation, offset assignment,
// write to the page cache, index maintenance. Starts a fresh log every 512 MiB.
void BM_Append(benchmark::State& state) {
  const auto batch =
      ClientBatch(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), kT0);
  const std::string dir = TempDir("append");
  auto log = NewLog(dir);
  int64_t records = 0;
  for (auto _ : state) {
    auto info = log->AppendAsLeader(batch);
    if (!info.ok()) state.SkipWithError(info.status().ToString().c_str());
    records += info->record_count;
    if (log->size_in_bytes() > (int64_t{512} << 20)) {
      state.PauseTiming();
      (void)log->Close();
      log.reset();
      std::filesystem::remove_all(dir);
      log = NewLog(dir);
      state.ResumeTiming();
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(batch.size()));
  state.SetItemsProcessed(records);
  (void)log->Close();
  std::filesystem::remove_all(dir);
}
// 1 KiB records in 16 KiB batches; 100-byte records in 1,000-record batches.
BENCHMARK(BM_Append)->Args({16, 1000})->Args({1000, 100})->UseRealTime();

// A log of about SEGLOG_BENCH_LOG_MIB MiB of 16 x 1 KiB batches, built once.
Log* LookupLog() {
  static std::unique_ptr<Log> log = [] {
    const char* env = std::getenv("SEGLOG_BENCH_LOG_MIB");
    const int64_t mib = env ? std::atoll(env) : 1024;
    const std::string dir = TempDir("lookup");
    auto l = NewLog(dir);
    int64_t ts = kT0;
    while (l->size_in_bytes() < (mib << 20)) {
      auto batch = ClientBatch(16, 1000, ts);
      (void)l->AppendAsLeader(batch);
      ts += 16;
    }
    return l;
  }();
  return log.get();
}

// The offset index alone: largest entry <= a random target, warm (the index is in memory).
void BM_WarmIndexLookup(benchmark::State& state) {
  Log* log = LookupLog();
  // The first segment's index; the lookup log has one 1 GiB segment per default segment.bytes.
  auto index = OffsetIndex::Open(
      Env::Default(),
      std::filesystem::temp_directory_path() / "seglog_bench_lookup" / "00000000000000000000.index",
      0, 10485760, /*writable=*/false);
  if (!index.ok()) {
    state.SkipWithError(index.status().ToString().c_str());
    return;
  }
  std::mt19937_64 rng(5);
  const uint64_t end = static_cast<uint64_t>(log->log_end_offset());
  for (auto _ : state) {
    benchmark::DoNotOptimize((*index)->Lookup(static_cast<int64_t>(rng() % end)));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["entries"] = (*index)->entries();
}
BENCHMARK(BM_WarmIndexLookup);

void BM_RandomOffsetLookup(benchmark::State& state) {
  Log* log = LookupLog();
  std::mt19937_64 rng(7);
  const uint64_t end = static_cast<uint64_t>(log->log_end_offset());
  for (auto _ : state) {
    auto loc = log->LookupOffset(static_cast<int64_t>(rng() % end));
    benchmark::DoNotOptimize(loc);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["log_MiB"] = static_cast<double>(log->size_in_bytes() >> 20);
}
BENCHMARK(BM_RandomOffsetLookup);

void BM_RandomTimestampLookup(benchmark::State& state) {
  Log* log = LookupLog();
  std::mt19937_64 rng(9);
  const uint64_t span = static_cast<uint64_t>(log->log_end_offset());
  for (auto _ : state) {
    auto found = log->FetchOffsetByTimestamp(kT0 + static_cast<int64_t>(rng() % span));
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RandomTimestampLookup);

// Reads the whole log front to back in 1 MiB fetches, copying the bytes out (pread).
void BM_SequentialRead(benchmark::State& state) {
  Log* log = LookupLog();
  int64_t bytes = 0;
  for (auto _ : state) {
    int64_t next = 0;
    while (next < log->log_end_offset()) {
      auto f = log->Read(next, 1 << 20);
      auto data = f->slice.ReadAll();
      bytes += static_cast<int64_t>(data->size());
      // Continue after the last whole batch in the slice.
      int64_t pos = 0, last_next = next;
      while (pos + 61 <= static_cast<int64_t>(data->size())) {
        auto v = RecordBatchView::Parse(Bytes(*data).subspan(static_cast<size_t>(pos)));
        if (!v.ok()) break;
        last_next = v->next_offset();
        pos += static_cast<int64_t>(v->size_in_bytes());
      }
      if (last_next == next) break;
      next = last_next;
    }
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_SequentialRead)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seglog

BENCHMARK_MAIN();
