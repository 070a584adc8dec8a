// storage_scale_bench: the two issue-4 scale measurements, as a plain program (each needs a
// directory of gigabytes or hundreds of thousands of files, built once per run, which does not
// fit Google Benchmark's repeat-the-body model). Numbers go to docs/benchmarks.md.
//
//   storage_scale_bench open    DIR [PARTITIONS=10000] [SEGMENTS=10] [THREADS=2]
//     Builds PARTITIONS partitions of SEGMENTS small segments each (as a clean shutdown leaves
//     them: trimmed indexes, checkpoints, .kafka_cleanshutdown), then times LogDirectory::Open
//     + LoadAll + Close and reports RSS growth, descriptors and mappings held after the load.
//   storage_scale_bench manager DIR [PARTITIONS=10000] [SEGMENTS=10]
//     The same directory under a LogManager: open time, RSS, descriptors and mappings, and the
//     cost of one retention pass with nothing to delete and one deleting a segment per
//     partition.
//   storage_scale_bench clean DIR [GIB=1] [KEYS=1000000]
//     One cleaner round over GIB GiB of a compacted log whose records cycle over KEYS keys:
//     cleaning throughput and map-build rate.
//   storage_scale_bench recover DIR [GIB=2] [PARTITIONS=4] [THREADS=1,2]
//     Builds GIB GiB of 128 MiB segments of 16 KiB batches, makes the shutdown unclean (no
//     marker, no recovery-point checkpoint) and times full recovery, cold (page cache dropped
//     with posix_fadvise) and warm, beside CRC32C speed and a plain cold read of the same files.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/crc32c.h"
#include "base/scheduler.h"
#include "cleaner/cleaner.h"
#include "io/file.h"
#include "io/file_names.h"
#include "manager/log_directory.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace fs = std::filesystem;
using namespace seglog;  // NOLINT: a benchmark program

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int64_t ProcStatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  }
  return -1;
}

int CountFds() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;
}

int CountMappingsUnder(const std::string& dir) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) n += line.find(" " + dir) != std::string::npos;
  return n;
}

std::vector<uint8_t> Batch(int records, int value_size) {
  RecordBatchBuilder b(BatchOptions{});
  const std::string value(static_cast<size_t>(value_size), 'v');
  for (int i = 0; i < records; ++i) {
    const std::string key = fmt::format("key-{:08d}", i);
    (void)b.Append(1700000000000 + i,
                   Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return *b.Build();
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    fmt::print(stderr, "{}: {}\n", what, s.ToString());
    std::exit(1);
  }
}

void DropCache(const std::string& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

int Open(const std::string& dir, int partitions, int segments, int threads) {
  fs::remove_all(dir);
  const auto build_start = std::chrono::steady_clock::now();
  {
    // Each partition is written and closed in turn (a writer keeps its rolled segments open),
    // then the directory is marked as cleanly shut down.
    LogConfig c;
    Check(c.Set("internal.segment.bytes", "600"), "config");
    const std::vector<uint8_t> batch = Batch(4, 100);  // ~560 bytes: one batch per segment
    for (int p = 0; p < partitions; ++p) {
      auto log = Log::Open(dir + "/" + PartitionDirName({"scale", p}), c);
      Check(log.status(), "create");
      for (int s = 0; s < segments; ++s) Check((*log)->AppendAsLeader(batch).status(), "append");
      Check((*log)->Close(), "close");
    }
    std::ofstream(dir + "/.kafka_cleanshutdown") << "{\"version\":0,\"brokerEpoch\":-1}";
  }
  fmt::print("built {} partitions x {} segments in {:.1f} s\n", partitions, segments,
             Seconds(build_start));
  for (int round = 0; round < 3; ++round) {
    const int64_t rss_before = ProcStatusKb("VmRSS:");
    const int fds_before = CountFds();
    const auto t0 = std::chrono::steady_clock::now();
    auto d = LogDirectory::Open(dir);
    Check(d.status(), "reopen");
    Check((*d)->LoadAll(threads), "load");
    const double load_s = Seconds(t0);
    int64_t segs = 0;
    for (const auto& [tp, log] : (*d)->logs()) segs += log->num_segments();
    const int64_t rss_after = ProcStatusKb("VmRSS:");
    const int fds = CountFds() - fds_before;
    const int maps = CountMappingsUnder(dir);
    const auto t1 = std::chrono::steady_clock::now();
    Check((*d)->Close(), "close");
    fmt::print(
        "round {}: clean open of {} partitions / {} segments with {} thread(s): {:.3f} s "
        "({:.1f} us/segment); RSS +{:.1f} MiB ({} bytes/segment); {} descriptors and {} "
        "mappings held; close {:.3f} s\n",
        round, (*d)->logs().size(), segs, threads, load_s, load_s * 1e6 / static_cast<double>(segs),
        static_cast<double>(rss_after - rss_before) / 1024.0,
        (rss_after - rss_before) * 1024 / std::max<int64_t>(1, segs), fds, maps, Seconds(t1));
  }
  return 0;
}

// Issue 5's scale measurement: a LogManager over PARTITIONS partitions of SEGMENTS segments.
int Manager(const std::string& dir, int partitions, int segments) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  LogConfig c;
  Check(c.Set("internal.segment.bytes", "600"), "config");
  Check(c.Set("retention.ms", "-1"), "config");
  const std::vector<uint8_t> batch = Batch(4, 100);
  const auto build_start = std::chrono::steady_clock::now();
  for (int p = 0; p < partitions; ++p) {
    auto log = Log::Open(dir + "/" + PartitionDirName({"scale", p}), c);
    Check(log.status(), "create");
    for (int s = 0; s < segments; ++s) Check((*log)->AppendAsLeader(batch).status(), "append");
    Check((*log)->Close(), "close");
  }
  TopicMap topics;
  topics["scale"] = TopicMetadata{partitions, c.Overrides(), ""};
  Check(SaveTopics(dir, topics), "topics");
  std::ofstream(dir + "/.kafka_cleanshutdown") << "{\"version\":0,\"brokerEpoch\":-1}";
  fmt::print("built {} partitions x {} segments in {:.1f} s\n", partitions, segments,
             Seconds(build_start));

  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir}});
  Check(config.status(), "server config");
  MockScheduler scheduler(1800000000000);
  const int64_t rss_before = ProcStatusKb("VmRSS:");
  const int fds_before = CountFds();
  auto t0 = std::chrono::steady_clock::now();
  auto m = LogManager::Open(*config, &scheduler);
  Check(m.status(), "open");
  const double open_s = Seconds(t0);
  const int64_t rss = ProcStatusKb("VmRSS:") - rss_before;
  fmt::print(
      "LogManager open: {} partitions / {} segments in {:.3f} s; RSS +{:.1f} MiB ({} B/partition); "
      "{} descriptors and {} mappings held\n",
      partitions, partitions * segments, open_s, static_cast<double>(rss) / 1024.0,
      rss * 1024 / partitions, CountFds() - fds_before, CountMappingsUnder(dir));
  t0 = std::chrono::steady_clock::now();
  Check((*m)->CleanupLogs(), "retention");
  fmt::print(
      "retention pass, nothing to delete: {:.3f} s ({:.1f} us/partition); {} descriptors "
      "and {} mappings held after it\n",
      Seconds(t0), Seconds(t0) * 1e6 / partitions, CountFds() - fds_before,
      CountMappingsUnder(dir));
  // Now every partition is one segment over a cap: each pass deletes its oldest segment.
  const int64_t segment_size = static_cast<int64_t>(batch.size());
  Check((*m)->AlterTopicConfig(
            "scale", {{"retention.bytes", std::to_string(segment_size * (segments - 1))}}, {}),
        "alter");
  t0 = std::chrono::steady_clock::now();
  Check((*m)->CleanupLogs(), "retention");
  const double del_s = Seconds(t0);
  fmt::print(
      "retention pass deleting 1 segment per partition ({} renames to .deleted): {:.3f} s "
      "({:.1f} us/partition); {} descriptors and {} mappings held after it\n",
      partitions, del_s, del_s * 1e6 / partitions, CountFds() - fds_before,
      CountMappingsUnder(dir));
  // The leader-epoch checkpoints the pass left to the scheduler (Kafka flushes them
  // asynchronously too): the rest of its cost, off the retention path.
  t0 = std::chrono::steady_clock::now();
  scheduler.RunPendingNow("leader-epoch-cache-flush");
  fmt::print("its deferred leader-epoch checkpoint writes: {:.3f} s ({:.1f} us/partition)\n",
             Seconds(t0), Seconds(t0) * 1e6 / partitions);
  t0 = std::chrono::steady_clock::now();
  Check((*m)->Shutdown(), "shutdown");
  fmt::print("shutdown: {:.3f} s\n", Seconds(t0));
  return 0;
}

// Issue 6: one cleaner round over ~GIB GiB of a compacted log with KEYS distinct keys.
int CleanBench(const std::string& dir, int gib, int keys) {
  fs::remove_all(dir);
  LogConfig c;
  Check(c.Set("cleanup.policy", "compact"), "config");
  Check(c.Set("segment.bytes", std::to_string(128 << 20)), "config");
  auto log = Log::Open(dir + "/cmp-0", c);
  Check(log.status(), "open");
  const int64_t total = int64_t{gib} << 30;
  int64_t written = 0, records = 0;
  const std::string value(100, 'v');
  const auto build_start = std::chrono::steady_clock::now();
  while (written < total) {
    RecordBatchBuilder b{BatchOptions{}};
    for (int i = 0; i < 100; ++i, ++records) {
      // Keys cycle, so each is written total / (keys * record size) times.
      const std::string key = fmt::format("key-{:010d}", (records * 7919) % keys);
      (void)b.Append(1700000000000 + records,
                     Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                     Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
    }
    auto batch = b.Build();
    Check((*log)->AppendAsLeader(*batch).status(), "append");
    written += static_cast<int64_t>(batch->size());
  }
  Check((*log)->Roll(), "roll");
  fmt::print("built {:.2f} GB, {} records over {} keys in {:.1f} s\n",
             static_cast<double>(written) / 1e9, records, keys, Seconds(build_start));
  SkimpyOffsetMap map(134217728, 0.9);
  auto range = CleanableRange(**log, std::nullopt, 1800000000000);
  Check(range.status(), "range");
  Cleaner cleaner(0, &map);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = cleaner.Clean(**log, "cmp-0", *range, 1800000000000);
  Check(r.status(), "clean");
  const double s = Seconds(t0);
  const CleanerStats& st = r->stats;
  fmt::print(
      "cleaned: {:.1f} MB read in {:.2f} s = {:.0f} MB/s (1 thread, warm page cache); map build "
      "{:.1f} MB / {:.2f} s = {:.0f} MB/s, {:.1f} M records/s; {} -> {} records, {:.1f} MB "
      "written; map {} keys ({:.1f}% of slots)\n",
      static_cast<double>(st.bytes_read) / 1e6, s, static_cast<double>(st.bytes_read) / 1e6 / s,
      static_cast<double>(st.map_bytes_read) / 1e6, st.map_seconds,
      static_cast<double>(st.map_bytes_read) / 1e6 / st.map_seconds,
      static_cast<double>(st.map_messages_read) / 1e6 / st.map_seconds, st.messages_read,
      st.messages_written, static_cast<double>(st.bytes_written) / 1e6, map.size(),
      100.0 * st.map_utilization);
  return 0;
}

int Recover(const std::string& dir, int gib, int partitions, const std::vector<int>& threads) {
  fs::remove_all(dir);
  const int64_t total = int64_t{gib} << 30;
  const std::vector<uint8_t> batch = Batch(16, 1000);  // ~16.3 KiB
  {
    auto d = LogDirectory::Open(dir);
    Check(d.status(), "open");
    LogConfig c;
    Check(c.Set("segment.bytes", std::to_string(128 << 20)), "config");
    std::vector<std::shared_ptr<Log>> logs;
    for (int p = 0; p < partitions; ++p) logs.push_back(*(*d)->GetLog({"rec", p}, c));
    int64_t written = 0;
    for (int64_t i = 0; written < total; ++i) {
      Check(logs[static_cast<size_t>(i % partitions)]->AppendAsLeader(batch).status(), "append");
      written += static_cast<int64_t>(batch.size());
    }
    Check((*d)->Close(), "close");
  }
  int64_t bytes = 0;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".log") {
      bytes += static_cast<int64_t>(e.file_size());
      files.push_back(e.path().string());
    }
  }
  const double gb = static_cast<double>(bytes) / 1e9;
  fmt::print("built {:.2f} GB of segments ({} files) in {} partitions\n", gb, files.size(),
             partitions);

  // CRC32C over memory (ISA-L).
  {
    std::vector<uint8_t> buf(64 << 20, 0x5a);
    const auto t0 = std::chrono::steady_clock::now();
    uint32_t crc = 0;
    for (int i = 0; i < 32; ++i) crc ^= Crc32c(buf);
    const double s = Seconds(t0);
    fmt::print("crc32c (ISA-L): {:.2f} GB/s (checksum {:08x})\n", 32.0 * buf.size() / s / 1e9, crc);
  }
  // A plain sequential read of every .log, cold - repeated before each cold recovery, since
  // the disk under a VM has caches of its own that the first read may warm.
  auto cold_read = [&](bool drop = true) {
    if (drop) DropCache(dir);
    std::vector<uint8_t> buf(1 << 20);
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& f : files) {
      const int fd = ::open(f.c_str(), O_RDONLY);
      while (::read(fd, buf.data(), buf.size()) > 0) {
      }
      ::close(fd);
    }
    const double s = Seconds(t0);
    fmt::print("{} sequential read (1 MiB reads): {:.2f} GB/s\n", drop ? "cold" : "warm", gb / s);
  };
  cold_read(false);
  cold_read(false);
  for (int t : threads) {
    for (const char* cache : {"cold", "warm"}) {
      fs::remove(dir + "/.kafka_cleanshutdown");
      fs::remove(dir + "/recovery-point-offset-checkpoint");
      fs::remove_all(dir + "/.quarantine");
      if (std::strcmp(cache, "cold") == 0) {
        cold_read();
        DropCache(dir);
      }
      const auto t0 = std::chrono::steady_clock::now();
      auto d = LogDirectory::Open(dir);
      Check(d.status(), "reopen");
      Check((*d)->LoadAll(t), "recover");
      const double s = Seconds(t0);
      int recovered = 0;
      for (const auto& [tp, log] : (*d)->logs()) recovered += log->load_report().segments_recovered;
      Check((*d)->Close(), "close");
      fmt::print("recovery, {} threads, {}: {} segments, {:.2f} GB in {:.2f} s = {:.2f} GB/s\n", t,
                 cache, recovered, gb, s, gb / s);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr,
               "usage: {} open DIR [PARTITIONS] [SEGMENTS] [THREADS]\n"
               "       {} recover DIR [GIB] [PARTITIONS] [THREADS,...]\n"
               "       {} manager DIR [PARTITIONS] [SEGMENTS]\n",
               argv[0], argv[0], argv[0]);
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  auto arg = [&](int i, int def) { return argc > i ? std::atoi(argv[i]) : def; };
  if (mode == "open") return Open(dir, arg(3, 10000), arg(4, 10), arg(5, 2));
  if (mode == "manager") return Manager(dir, arg(3, 10000), arg(4, 10));
  if (mode == "clean") return CleanBench(dir, arg(3, 1), arg(4, 1000000));
  if (mode == "recover") {
    std::vector<int> threads;
    std::string list = argc > 5 ? argv[5] : "1,2";
    for (size_t at = 0; at < list.size();) {
      const size_t comma = list.find(',', at);
      threads.push_back(std::atoi(list.substr(at, comma - at).c_str()));
      at = comma == std::string::npos ? list.size() : comma + 1;
    }
    return Recover(dir, arg(3, 2), arg(4, 4), threads);
  }
  fmt::print(stderr, "unknown mode {}\n", mode);
  return 2;
}
