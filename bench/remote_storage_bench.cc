// Tiered storage against a local Versity S3 Gateway (issue 16's "Performance"): upload
// throughput of one segment copy (MB/s, and seglog's CPU seconds per GB - curl, SHA-256 of
// every body for SigV4, CRC-32C of every object), and the latency of fetches from a copied
// segment: the first index fetch and .log range, then later ones. Not a test; numbers and the
// command are in docs/benchmarks.md.
//
//   remote_storage_bench [--segment-mib N] [--part-mib N] [--concurrency N] [--copies N]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "remote/s3_remote_storage_manager.h"
#include "remote/testing/versitygw.h"

using namespace seglog;
using Clock = std::chrono::steady_clock;

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void WriteFile(const std::string& path, size_t bytes, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> buf(1 << 17);  // 1 MiB
  std::ofstream out(path, std::ios::binary);
  for (size_t done = 0; done < bytes;) {
    for (auto& w : buf) w = rng();
    const size_t n = std::min(bytes - done, buf.size() * sizeof(uint64_t));
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(n));
    done += n;
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Fail(const Status& s) {
  std::fprintf(stderr, "remote_storage_bench: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t segment_mib = 256, part_mib = 25, concurrency = 8, copies = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int64_t v = std::atoll(argv[i + 1]);
    if (flag == "--segment-mib")
      segment_mib = v;
    else if (flag == "--part-mib")
      part_mib = v;
    else if (flag == "--concurrency")
      concurrency = v;
    else if (flag == "--copies")
      copies = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  Result<std::unique_ptr<VersityGateway>> gw = VersityGateway::Start();
  if (!gw.ok()) return Fail(gw.status());
  const std::string dir = (*gw)->root_dir() + "/../segment";
  std::filesystem::create_directories(dir);
  LogSegmentData data;
  data.log_segment = dir + "/00000000000000000000.log";
  data.offset_index = dir + "/00000000000000000000.index";
  data.time_index = dir + "/00000000000000000000.timeindex";
  data.producer_snapshot = dir + "/00000000000000100000.snapshot";
  const size_t log_bytes = static_cast<size_t>(segment_mib) << 20;
  WriteFile(data.log_segment, log_bytes, 1);
  WriteFile(data.offset_index, 10 << 20, 2);  // Kafka's default index size
  WriteFile(data.time_index, 10 << 20, 3);
  WriteFile(data.producer_snapshot, 4096, 4);
  data.leader_epoch_index = {'0', '\n', '1', '\n', '0', ' ', '0', '\n'};

  std::map<std::string, std::string> props = {
      {"rsm.config.storage.s3.endpoint.url", (*gw)->endpoint_url()},
      {"rsm.config.storage.s3.bucket.name", "bench"},
      {"rsm.config.storage.s3.region", (*gw)->options().region},
      {"rsm.config.storage.aws.access.key.id", (*gw)->options().access_key},
      {"rsm.config.storage.aws.secret.access.key", (*gw)->options().secret_key},
      {"rsm.config.storage.s3.multipart.upload.part.size", std::to_string(part_mib << 20)},
      {"rsm.config.storage.s3.max.concurrent.transfers", std::to_string(concurrency)}};
  Result<std::unique_ptr<S3RemoteStorageManager>> rsm =
      S3RemoteStorageManager::FromProperties(props);
  if (!rsm.ok()) return Fail(rsm.status());
  if (Status s = (*rsm)->client()->CreateBucket("bench"); !s.ok()) return Fail(s);

  const double total_mb = static_cast<double>(log_bytes + (20 << 20) + 4096) / 1e6;
  std::printf("segment: %lld MiB .log + 2 x 10 MiB indexes; part %lld MiB; concurrency %lld\n",
              static_cast<long long>(segment_mib), static_cast<long long>(part_mib),
              static_cast<long long>(concurrency));
  RemoteLogSegmentMetadata m;
  m.segment_id.partition.topic_id = Uuid::Random();
  m.segment_id.partition.tp = TopicPartition{"bench", 0};
  m.end_offset = 99999;
  std::vector<double> rates, cpu_per_gb;
  for (int64_t c = 0; c < copies; ++c) {
    m.segment_id.id = Uuid::Random();
    const double cpu0 = CpuSeconds();
    const auto t0 = Clock::now();
    Result<std::optional<std::vector<uint8_t>>> custom = (*rsm)->CopyLogSegmentData(m, data);
    const auto t1 = Clock::now();
    const double cpu = CpuSeconds() - cpu0;
    if (!custom.ok()) return Fail(custom.status());
    m.custom_metadata = **custom;
    const double rate = total_mb / (Ms(t0, t1) / 1000);
    rates.push_back(rate);
    cpu_per_gb.push_back(cpu / (total_mb / 1000));
    std::printf("copy %lld: %.0f ms, %.0f MB/s, seglog CPU %.2f s (%.2f s/GB)\n",
                static_cast<long long>(c + 1), Ms(t0, t1), rate, cpu, cpu / (total_mb / 1000));
  }
  std::printf("upload: median %.0f MB/s, %.2f CPU s/GB\n", Median(rates), Median(cpu_per_gb));

  // Fetches from the last copy: a fresh manager (no connection, nothing cached), then again.
  Result<std::unique_ptr<S3RemoteStorageManager>> reader =
      S3RemoteStorageManager::FromProperties(props);
  if (!reader.ok()) return Fail(reader.status());
  std::mt19937_64 rng(7);
  std::vector<double> index_ms, range_ms;
  for (int i = 0; i < 21; ++i) {
    const auto t0 = Clock::now();
    Result<std::vector<uint8_t>> idx = (*reader)->FetchIndex(m, IndexType::kOffset);
    const auto t1 = Clock::now();
    if (!idx.ok()) return Fail(idx.status());
    const int64_t pos = static_cast<int64_t>(rng() % (log_bytes - (1 << 20)));
    Result<std::vector<uint8_t>> bytes = (*reader)->FetchLogSegment(m, pos, 1 << 20);
    const auto t2 = Clock::now();
    if (!bytes.ok()) return Fail(bytes.status());
    index_ms.push_back(Ms(t0, t1));
    range_ms.push_back(Ms(t1, t2));
  }
  std::printf("first fetch: offset index (10 MiB, CRC checked) %.1f ms, 1 MiB .log range %.1f ms\n",
              index_ms[0], range_ms[0]);
  index_ms.erase(index_ms.begin());
  range_ms.erase(range_ms.begin());
  std::printf("later fetches (median of 20): offset index %.1f ms, 1 MiB .log range %.1f ms\n",
              Median(index_ms), Median(range_ms));
  return 0;
}
