// seglog's half of bench/compare: the same workloads as
// bench/compare/kafka/KafkaStorageBench.java on identical inputs, one JSON line per result:
//   {"system":"seglog","workload":...,"metric":...,"higher_is_better":...,"runs":[...],
//    "median":...,"params":{...}}
// The driver (bench/compare/compare.sh) alternates these with Kafka's runs and takes ratios.
//
//   seglog_bench append --record-size N --batch-records K --total-bytes B --codec none|zstd
//   seglog_bench append-sweep --total-bytes B
//   seglog_bench lookup --log-bytes B          (offset-lookup and timestamp-lookup)
//   seglog_bench read-all --log-bytes B
//   seglog_bench limits --dir D --bytes B      (memcpy, CRC32C, disk write/fdatasync/read)
//   seglog_bench make-recover-dir|make-clean-dir|make-open-dir --src S ...  (shared inputs)
//   seglog_bench recover|clean --src S (on a fresh copy of S each run); open-many --src S
//   [--name N] (the workload's name in the results, default open-10k)
//   (run it with --warmup 0: the resident-memory growth of a second open in one process is
//   the allocator's reuse, not the cost)
// Common: --iterations N (default 5), --warmup N (default 2), --dir D (scratch, default /tmp),
// --hold-mib N (touched memory held for the run, default 2048: the Kafka harness's heap).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "base/scheduler.h"
#include "cleaner/cleaner.h"
#include "manager/log_directory.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace fs = std::filesystem;
using namespace seglog;  // NOLINT: a benchmark program

namespace {

using Args = std::map<std::string, std::string>;

int64_t Int(const Args& a, const std::string& k, int64_t def) {
  auto it = a.find(k);
  return it == a.end() ? def : std::stoll(it->second);
}
std::string Str(const Args& a, const std::string& k, const std::string& def) {
  auto it = a.find(k);
  return it == a.end() ? def : it->second;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// CPU time of the calling thread, split into user and kernel time, since construction. The
// timed sections run on one thread in both harnesses (Kafka's: ThreadMXBean of that thread), so
// these say where a workload's time goes: in the storage code or in the kernel's page cache.
class ThreadCpu {
 public:
  ThreadCpu() { getrusage(RUSAGE_THREAD, &start_); }
  double UserSeconds() const { return Elapsed(&rusage::ru_utime); }
  double KernelSeconds() const { return Elapsed(&rusage::ru_stime); }

 private:
  double Elapsed(timeval rusage::*field) const {
    rusage now{};
    getrusage(RUSAGE_THREAD, &now);
    const timeval& a = start_.*field;
    const timeval& b = now.*field;
    return static_cast<double>(b.tv_sec - a.tv_sec) +
           static_cast<double>(b.tv_usec - a.tv_usec) / 1e6;
  }
  rusage start_{};
};

// Runs the tasks already due on a one-thread scheduler, as the Kafka harness's drain() does:
// before a log is closed or a timed section starts, no background flush is still running.
// Appends one batch; a refused append ends the run (a benchmark of refusals measures nothing).
void MustAppend(Log& log, const std::vector<uint8_t>& batch) {
  auto r = log.AppendAsLeader(batch);
  if (!r.ok()) {
    std::fprintf(stderr, "seglog_bench: append refused: %s\n", r.status().ToString().c_str());
    std::exit(2);
  }
}

void Drain(Scheduler* scheduler) {
  for (int i = 0; i < 2; ++i) {
    std::promise<void> done;
    scheduler->ScheduleOnce("bench-drain", [&done] { done.set_value(); });
    done.get_future().wait();
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

void Emit(const std::string& workload, const std::string& metric, bool higher_is_better,
          const std::vector<double>& runs, const std::string& params) {
  std::string list;
  for (double r : runs) list += fmt::format("{}{:.6g}", list.empty() ? "" : ",", r);
  fmt::print(
      "{{\"system\":\"seglog\",\"workload\":\"{}\",\"metric\":\"{}\",\"higher_is_better\":{},"
      "\"runs\":[{}],\"median\":{:.6g},\"params\":{{{}}}}}\n",
      workload, metric, higher_is_better ? "true" : "false", list, Median(runs), params);
  std::fflush(stdout);
}

// Record i: key "key-%010d" (i % keys), value of `size` bytes of 'a' + i % 26, timestamp
// 1700000000000 + i - the inputs the Kafka harness builds too. Calls `fn` with each batch as
// it is built, until `total_bytes` of batches were made.
void ForEachBatch(int64_t record_size, int64_t batch_records, int64_t total_bytes,
                  CompressionType codec, int64_t keys,
                  const std::function<void(const std::vector<uint8_t>&)>& fn) {
  int64_t bytes = 0, i = 0;
  while (bytes < total_bytes) {
    BatchOptions o;
    o.compression = codec;
    RecordBatchBuilder b(o);
    for (int64_t r = 0; r < batch_records; ++r, ++i) {
      const std::string key = fmt::format("key-{:010d}", i % keys);
      const std::string value(static_cast<size_t>(record_size), static_cast<char>('a' + i % 26));
      (void)b.Append(1700000000000 + i,
                     Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                     Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
    }
    const std::vector<uint8_t> batch = *b.Build();
    bytes += static_cast<int64_t>(batch.size());
    fn(batch);
  }
}

// All the batches at once, for the append workloads (which time appends of batches already in
// memory, as Kafka's harness does). Logs that are only inputs are written batch by batch as
// they are made (ForEachBatch), as Kafka's harness writes its own: holding a gigabyte of
// batches while the log's page cache is filled leaves the kernel fewer large folios for the
// file, and reading that file back was 35% slower (bench/compare notes in docs/benchmarks.md).
std::vector<std::vector<uint8_t>> Batches(int64_t record_size, int64_t batch_records,
                                          int64_t total_bytes, CompressionType codec,
                                          int64_t keys = 1000000) {
  std::vector<std::vector<uint8_t>> out;
  ForEachBatch(record_size, batch_records, total_bytes, codec, keys,
               [&out](const std::vector<uint8_t>& b) { out.push_back(b); });
  return out;
}

std::string FreshDir(const Args& a, const std::string& name) {
  const std::string d = fmt::format("{}/seglog-compare-{}", Str(a, "--dir", "/tmp"), name);
  fs::remove_all(d);
  return d;
}

void Repeat(const Args& a, const std::function<void(std::vector<double>*)>& once,
            std::vector<std::vector<double>>* results) {
  const int64_t warmup = Int(a, "--warmup", 2), iterations = Int(a, "--iterations", 5);
  for (int64_t i = 0; i < warmup + iterations; ++i) {
    std::vector<double> r;
    once(&r);
    if (i < warmup) continue;
    results->resize(r.size());
    for (size_t k = 0; k < r.size(); ++k) (*results)[k].push_back(r[k]);
  }
}

void Append(const Args& a, const std::string& workload, int64_t record_size, int64_t batch_records,
            int64_t total, CompressionType codec) {
  const auto batches = Batches(record_size, batch_records, total, codec);
  int64_t bytes = 0;
  for (const auto& b : batches) bytes += static_cast<int64_t>(b.size());
  const int64_t records = static_cast<int64_t>(batches.size()) * batch_records;
  std::vector<std::vector<double>> results;
  Repeat(
      a,
      [&](std::vector<double>* r) {
        const std::string dir = FreshDir(a, "append");
        // A background thread for the flush after a roll, as Kafka's harness has (its
        // KafkaScheduler); without one seglog would flush inline on the append path.
        ThreadScheduler scheduler(1);
        LogOptions o;
        o.scheduler = &scheduler;
        auto log = Log::Open(fmt::format("{}/bench-0", dir), {}, o);
        const ThreadCpu cpu;
        const auto t0 = std::chrono::steady_clock::now();
        for (const auto& b : batches) MustAppend(**log, b);
        const double s = Seconds(t0);
        const double gb = static_cast<double>(bytes) / 1e9;
        const double user = cpu.UserSeconds() / gb, kernel = cpu.KernelSeconds() / gb;
        Drain(&scheduler);
        (void)(*log)->Close();
        log->reset();
        scheduler.Shutdown();
        fs::remove_all(dir);
        r->push_back(static_cast<double>(bytes) / 1e6 / s);
        r->push_back(static_cast<double>(records) / s);
        r->push_back(user);
        r->push_back(kernel);
      },
      &results);
  const std::string params =
      fmt::format("\"record_size\":{},\"batch_records\":{},\"bytes\":{},\"codec\":\"{}\"",
                  record_size, batch_records, bytes, CompressionName(codec));
  Emit(workload, "MB/s", true, results[0], params);
  Emit(workload, "records/s", true, results[1], params);
  Emit(workload, "user CPU s/GB", false, results[2], params);
  Emit(workload, "kernel CPU s/GB", false, results[3], params);
}

std::unique_ptr<Log> BuildLog(const Args& a, int64_t log_bytes, int64_t* records) {
  const std::string dir = FreshDir(a, "lookup");
  auto log = Log::Open(fmt::format("{}/bench-0", dir), {}, {});
  int64_t n = 0;
  ForEachBatch(1024, 16, log_bytes, CompressionType::kNone, 1000000,
               [&](const std::vector<uint8_t>& b) {
                 MustAppend(**log, b);
                 n += 16;
               });
  *records = n;
  // Everything on disk before the timed reads, as the Kafka harness's buildLog does (flush):
  // otherwise the flusher threads write the log back while it is being read.
  (void)(*log)->Flush((*log)->log_end_offset());
  return std::move(log).value();
}

void Lookup(const Args& a) {
  int64_t records = 0;
  auto log = BuildLog(a, Int(a, "--log-bytes", 1 << 30), &records);
  std::vector<std::vector<double>> results;
  Repeat(
      a,
      [&](std::vector<double>* r) {
        std::mt19937_64 rng(42);
        const int n = 1000000;
        auto t0 = std::chrono::steady_clock::now();
        int64_t sink = 0;
        for (int i = 0; i < n; ++i) {
          auto read = log->Read(static_cast<int64_t>(rng() % static_cast<uint64_t>(records)), 1);
          sink += read.ok() ? read->slice.position : 0;
        }
        r->push_back(Seconds(t0) * 1e9 / n);
        const int m = 100000;
        t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < m; ++i) {
          auto f = log->FetchOffsetByTimestamp(
              1700000000000 + static_cast<int64_t>(rng() % static_cast<uint64_t>(records)));
          sink += f.ok() && f->has_value() ? (*f)->offset : 0;
        }
        r->push_back(Seconds(t0) * 1e9 / m);
        if (sink == 42) std::fprintf(stderr, " ");
      },
      &results);
  const std::string params = fmt::format("\"log_records\":{}", records);
  Emit("offset-lookup", "ns", false, results[0], params);
  Emit("timestamp-lookup", "ns", false, results[1], params);
  (void)log->Close();
}

void ReadAll(const Args& a) {
  int64_t records = 0;
  auto log = BuildLog(a, Int(a, "--log-bytes", 1 << 30), &records);
  std::vector<std::vector<double>> results;
  std::vector<uint8_t> buf(1 << 20);
  Repeat(
      a,
      [&](std::vector<double>* r) {
        int64_t next = 0, bytes = 0;
        const auto t0 = std::chrono::steady_clock::now();
        while (next < log->log_end_offset()) {
          auto f = log->Read(next, 1 << 20);
          if (!f.ok()) break;
          // Copies the bytes out, as a consumer's fetch would, into one reused buffer (as the
          // Kafka harness reads into one direct buffer).
          if (!f->slice.ReadInto(&buf).ok()) break;
          const int64_t len = static_cast<int64_t>(buf.size());
          bytes += len;
          // The next batch after the last whole one in the chunk.
          int64_t pos = 0, last = next;
          while (pos + 61 <= len) {
            const int64_t size = 12 + static_cast<int64_t>(LoadBEInt32(buf.data() + pos + 8));
            if (pos + size > len) break;
            last = static_cast<int64_t>(LoadBE64(buf.data() + pos)) +
                   static_cast<int64_t>(LoadBEInt32(buf.data() + pos + 23)) + 1;
            pos += size;
          }
          if (last == next) break;
          next = last;
        }
        r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
      },
      &results);
  Emit("read-all", "MB/s", true, results[0], fmt::format("\"log_records\":{}", records));
  (void)log->Close();
}

void Limits(const Args& a) {
  const int64_t bytes = Int(a, "--bytes", 1 << 30);
  std::vector<uint8_t> src(64 << 20, 0x5a), dst(64 << 20);
  std::vector<std::vector<double>> results;
  const std::string path = fmt::format("{}.file", FreshDir(a, "limits"));
  Repeat(
      a,
      [&](std::vector<double>* r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 16; ++i) std::memcpy(dst.data(), src.data(), src.size());
        r->push_back(16.0 * static_cast<double>(src.size()) / 1e6 / Seconds(t0));
        t0 = std::chrono::steady_clock::now();
        uint32_t crc = 0;
        for (int i = 0; i < 16; ++i) crc ^= Crc32c(src);
        r->push_back(16.0 * static_cast<double>(src.size()) / 1e6 / Seconds(t0) +
                     (crc == 1 ? 1e-9 : 0));
        for (bool sync : {false, true}) {
          const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
          t0 = std::chrono::steady_clock::now();
          for (int64_t done = 0; done < bytes; done += static_cast<int64_t>(src.size())) {
            (void)!::write(fd, src.data(), src.size());
          }
          if (sync) ::fdatasync(fd);
          r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
          if (!sync) ::fdatasync(fd);
          ::close(fd);
        }
        const int fd = ::open(path.c_str(), O_RDONLY);
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        t0 = std::chrono::steady_clock::now();
        while (::read(fd, dst.data(), dst.size()) > 0) {
        }
        r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
        // The same file again, now in the page cache, in 1 MiB reads: what a warm recovery
        // (every batch read with pread, then checked) can reach at best.
        t0 = std::chrono::steady_clock::now();
        for (int64_t at = 0; ::pread(fd, dst.data(), 1 << 20, static_cast<off_t>(at)) > 0;) {
          at += 1 << 20;
        }
        r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
        ::close(fd);
        fs::remove(path);
        // Buffered writes of 16 KiB, the batch size of append-1KiB-16, into a new file, taken
        // in turn from 64 MiB of memory (as the workload's batches come from memory, not from
        // the cache): what an append of such batches through write(2) can reach at best.
        const int wfd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        t0 = std::chrono::steady_clock::now();
        for (int64_t at = 0; at < bytes; at += 16384) {
          const size_t from = static_cast<size_t>(at) % src.size();
          (void)!::pwrite(wfd, src.data() + from, 16384, static_cast<off_t>(at));
        }
        r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
        ::close(wfd);
        fs::remove(path);
        // The same with writes of 16,813 bytes, append-1KiB-16's real batch size: each write
        // then starts inside a page, and the kernel can give the file only small folios.
        const int bfd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        t0 = std::chrono::steady_clock::now();
        for (int64_t at = 0; at + 16813 <= bytes; at += 16813) {
          const size_t from = static_cast<size_t>(at) % (src.size() - 16813);
          (void)!::pwrite(bfd, src.data() + from, 16813, static_cast<off_t>(at));
        }
        r->push_back(static_cast<double>(bytes) / 1e6 / Seconds(t0));
        ::close(bfd);
        fs::remove(path);
      },
      &results);
  const std::string params = fmt::format("\"bytes\":{}", bytes);
  Emit("limit-memcpy", "MB/s", true, results[0], params);
  Emit("limit-crc32c", "MB/s", true, results[1], params);
  Emit("limit-disk-write-buffered", "MB/s", true, results[2], params);
  Emit("limit-disk-write-fdatasync", "MB/s", true, results[3], params);
  Emit("limit-disk-read-cold", "MB/s", true, results[4], params);
  Emit("limit-page-cache-read", "MB/s", true, results[5], params);
  Emit("limit-page-cache-write-16KiB", "MB/s", true, results[6], params);
  Emit("limit-page-cache-write-batches", "MB/s", true, results[7], params);
}

// Directories both systems work on: written once by seglog (its files are Kafka's files), and
// copied fresh for every timed run.
void CopyDir(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(to)) {
    if (!e.is_regular_file()) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY);
    ::fdatasync(fd);
    ::close(fd);
  }
}

int64_t DirBytes(const std::string& dir, const char* ext) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ext)
      n += static_cast<int64_t>(e.file_size());
  }
  return n;
}

void MakeRecoverDir(const Args& a) {
  const std::string dir = Str(a, "--src", "/tmp/seglog-compare-recover-src");
  fs::remove_all(dir);
  auto log = Log::Open(dir + "/rec-0", {}, {});
  ForEachBatch(1024, 16, Int(a, "--bytes", 2 * (int64_t{1} << 30)), CompressionType::kNone, 1000000,
               [&](const std::vector<uint8_t>& b) { MustAppend(**log, b); });
  (void)(*log)->Close();  // then the marker is absent: the shutdown counts as unclean
}

void Recover(const Args& a) {
  const std::string src = Str(a, "--src", "/tmp/seglog-compare-recover-src");
  const std::string work = FreshDir(a, "recover");
  const int64_t bytes = DirBytes(src, ".log");
  std::vector<std::vector<double>> results;
  Repeat(
      a,
      [&](std::vector<double>* r) {
        CopyDir(src, work);  // indexes included: both systems then recover each segment once
        LogOptions o;
        o.had_clean_shutdown = false;
        o.recovery_point = 0;
        const ThreadCpu cpu;
        const auto t0 = std::chrono::steady_clock::now();
        auto log = Log::Open(work + "/rec-0", {}, o);
        const double s = Seconds(t0);
        const double gb = static_cast<double>(bytes) / 1e9;
        const double user = cpu.UserSeconds() / gb, kernel = cpu.KernelSeconds() / gb;
        if (!log.ok()) std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
        r->push_back(static_cast<double>(bytes) / 1e6 / s);
        r->push_back(user);
        r->push_back(kernel);
      },
      &results);
  fs::remove_all(work);
  const std::string params = fmt::format("\"bytes\":{}", bytes);
  Emit("recover-2GiB", "MB/s", true, results[0], params);
  Emit("recover-2GiB", "user CPU s/GB", false, results[1], params);
  Emit("recover-2GiB", "kernel CPU s/GB", false, results[2], params);
}

void MakeCleanDir(const Args& a) {
  const std::string dir = Str(a, "--src", "/tmp/seglog-compare-clean-src");
  fs::remove_all(dir);
  auto c = LogConfig::FromProperties({{"cleanup.policy", "compact"}});
  auto log = Log::Open(dir + "/cmp-0", *c, {});
  ForEachBatch(100, 100, Int(a, "--bytes", int64_t{1} << 30), CompressionType::kNone,
               Int(a, "--keys", 1000000),
               [&](const std::vector<uint8_t>& b) { MustAppend(**log, b); });
  (void)(*log)->Roll();
  (void)(*log)->Close();
}

void CleanWorkload(const Args& a) {
  const std::string src = Str(a, "--src", "/tmp/seglog-compare-clean-src");
  const std::string work = FreshDir(a, "clean");
  const int64_t bytes = DirBytes(src, ".log");
  SkimpyOffsetMap map(134217728, 0.9);
  std::vector<std::vector<double>> results;
  Repeat(
      a,
      [&](std::vector<double>* r) {
        CopyDir(src, work);
        auto c = LogConfig::FromProperties({{"cleanup.policy", "compact"}});
        auto log = Log::Open(work + "/cmp-0", *c, {});
        const ThreadCpu cpu;
        const auto t0 = std::chrono::steady_clock::now();
        auto range = CleanableRange(**log, std::nullopt, 1800000000000);
        Cleaner cleaner(0, &map);
        auto done = cleaner.Clean(**log, "cmp-0", *range, 1800000000000);
        const double s = Seconds(t0);
        const double gb = static_cast<double>(bytes) / 1e9;
        const double user = cpu.UserSeconds() / gb, kernel = cpu.KernelSeconds() / gb;
        if (!done.ok()) std::fprintf(stderr, "%s\n", done.status().ToString().c_str());
        r->push_back(static_cast<double>(bytes) / 1e6 / s);
        r->push_back(user);
        r->push_back(kernel);
        (void)(*log)->Close();
      },
      &results);
  fs::remove_all(work);
  const std::string params = fmt::format("\"bytes\":{}", bytes);
  Emit("clean-1GiB", "MB/s", true, results[0], params);
  Emit("clean-1GiB", "user CPU s/GB", false, results[1], params);
  Emit("clean-1GiB", "kernel CPU s/GB", false, results[2], params);
}

int64_t RssKb() {
  FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  int64_t kb = -1;
  while (f != nullptr && std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kb = std::atoll(line + 6);
  }
  if (f != nullptr) std::fclose(f);
  return kb;
}

void MakeOpenDir(const Args& a) {
  const std::string dir = Str(a, "--src", "/tmp/seglog-compare-open-src");
  fs::remove_all(dir);
  LogConfig c;
  (void)c.Set("internal.segment.bytes", "600");
  const auto batch = Batches(100, 4, 1, CompressionType::kNone).front();
  for (int64_t p = 0; p < Int(a, "--partitions", 10000); ++p) {
    auto log = Log::Open(fmt::format("{}/scale-{}", dir, p), c, {});
    for (int64_t s = 0; s < Int(a, "--segments", 10); ++s) MustAppend(**log, batch);
    (void)(*log)->Close();
  }
  std::FILE* m = std::fopen((dir + "/.kafka_cleanshutdown").c_str(), "w");
  std::fputs("{\"version\":0,\"brokerEpoch\":-1}", m);
  std::fclose(m);
}

void OpenMany(const Args& a) {
  const std::string src = Str(a, "--src", "/tmp/seglog-compare-open-src");
  std::vector<std::vector<double>> results;
  Repeat(
      a,
      [&](std::vector<double>* r) {
        const int64_t rss0 = RssKb();
        const auto t0 = std::chrono::steady_clock::now();
        auto d = LogDirectory::Open(src);
        if (!d.ok() || !(*d)->LoadAll(2).ok()) std::fprintf(stderr, "open failed\n");
        r->push_back(Seconds(t0));
        r->push_back(static_cast<double>(RssKb() - rss0) / 1024.0);
        (void)(*d)->Close();
      },
      &results);
  const std::string name = Str(a, "--name", "open-10k");
  Emit(name, "s", false, results[0], "");
  Emit(name + "-rss", "MiB", false, results[1], "");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s append|append-sweep|lookup|read-all|limits [--flag value]...\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  Args a;
  for (int i = 2; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  // The Kafka harness's JVM starts by touching its whole heap (-Xms2g -Xmx2g, AlwaysPreTouch).
  // This harness holds as much touched memory for its life, so that both systems' page cache
  // comes from the same state of this VM's memory: which physical memory a file's pages land in
  // changed the speed of reading them back by up to 2x here (docs/benchmarks.md).
  const int64_t hold_mib = Int(a, "--hold-mib", 2048);
  std::unique_ptr<uint8_t[]> held;
  if (hold_mib > 0 && mode != "limits") {
    held.reset(new uint8_t[static_cast<size_t>(hold_mib) << 20]);
    for (size_t i = 0; i < (static_cast<size_t>(hold_mib) << 20); i += 4096) held[i] = 1;
  }
  if (mode == "append") {
    const std::string codec = Str(a, "--codec", "none");
    const int64_t size = Int(a, "--record-size", 1024), batch = Int(a, "--batch-records", 16);
    const std::string name = codec == "zstd" ? fmt::format("append-zstd-{}B-{}", size, batch)
                             : size == 1024  ? fmt::format("append-1KiB-{}", batch)
                                             : fmt::format("append-{}B-{}", size, batch);
    Append(a, name, size, batch, Int(a, "--total-bytes", 1 << 30),
           codec == "zstd" ? CompressionType::kZstd : CompressionType::kNone);
  } else if (mode == "append-sweep") {
    for (int64_t size : {10, 100, 1000, 10000}) {
      const int64_t batch = std::max<int64_t>(1, 16384 / (size + 20));
      Append(a, fmt::format("append-sweep-{}B", size), size, batch,
             Int(a, "--total-bytes", 256 << 20), CompressionType::kNone);
    }
  } else if (mode == "lookup") {
    Lookup(a);
  } else if (mode == "read-all") {
    ReadAll(a);
  } else if (mode == "make-recover-dir") {
    MakeRecoverDir(a);
  } else if (mode == "recover") {
    Recover(a);
  } else if (mode == "make-clean-dir") {
    MakeCleanDir(a);
  } else if (mode == "clean") {
    CleanWorkload(a);
  } else if (mode == "make-open-dir") {
    MakeOpenDir(a);
  } else if (mode == "open-many") {
    OpenMany(a);
  } else if (mode == "limits") {
    Limits(a);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  return 0;
}
