// Walkthrough; see walkthrough.h.
#include "tools/walkthrough.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "record/batch_walker.h"
#include "seglog/record_batch.h"
#include "tools/dump_log.h"
#include "tools/mapped_file.h"

namespace seglog {

namespace {

constexpr int kRecords = 12000;
constexpr int kPerBatch = 10;
constexpr int kValueSize = 250;
constexpr int64_t kIndexIntervalBytes = 4096;  // index.interval.bytes default

struct IndexEntry {
  int64_t offset;
  int64_t position;
};

// Kafka's append rule (kafka-format.md 2.6): per batch, when more than index.interval.bytes
// have been written since the last entry, add (batch last offset -> batch start position).
std::vector<IndexEntry> SparseIndex(std::span<const uint8_t> log) {
  std::vector<IndexEntry> entries;
  int64_t since_last = 0;
  LogBatchWalker w(log);
  while (w.Next()) {
    if (since_last > kIndexIntervalBytes) {
      auto view = RecordBatchView::Parse(w.current_bytes(), w.current().position);
      entries.push_back({view->last_offset(), w.current().position});
      since_last = 0;
    }
    since_last += w.current().size_in_bytes();
  }
  return entries;
}

}  // namespace

Status RunWalkthrough(const std::string& log_dir, std::ostream& out) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(log_dir) / "walkthrough-0";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(fmt::format("{}: {}", dir.string(), ec.message()));
  const fs::path file = dir / "00000000000000000000.log";

  out << "=== produce " << kRecords << " records, " << kPerBatch
      << " per batch, 250-byte values (seed 000, Example 1)\n";
  const int64_t t0 = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  const std::string value(kValueSize, 'v');
  std::vector<uint8_t> log;
  for (int b = 0; b < kRecords / kPerBatch; ++b) {
    BatchOptions o;
    o.base_offset = int64_t{b} * kPerBatch;
    o.partition_leader_epoch = 0;
    RecordBatchBuilder builder(o);
    for (int i = 0; i < kPerBatch; ++i) {
      const int n = b * kPerBatch + i;
      const std::string key = fmt::format("k-{:06d}", n);
      SEGLOG_RETURN_IF_ERROR(builder.Append(
          t0 + n / 5, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
          Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size())));
    }
    auto bytes = builder.Build();
    if (!bytes.ok()) return bytes.status();
    log.insert(log.end(), bytes->begin(), bytes->end());
  }
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(log.data()), static_cast<std::streamsize>(log.size()));
    if (!f) return Status::IOError(fmt::format("{}: write failed", file.string()));
  }
  out << "sent " << kRecords << " records to walkthrough\n\n";

  out << "=== files in the partition directory (size name)\n";
  for (const auto& e : fs::directory_iterator(dir)) {
    out << fmt::format("{:>10} {}\n", e.file_size(), e.path().filename().string());
  }
  out << "(one segment: rolling at segment.bytes and the .index/.timeindex files come with the "
         "partition log, issue 3)\n\n";

  auto mapped = MappedFile::Open(file.string());
  if (!mapped.ok()) return mapped.status();
  const auto bytes = (*mapped)->bytes();

  out << "=== first batches (kafka-dump-log format)\n";
  {
    std::ostringstream dump, err;
    SEGLOG_RETURN_IF_ERROR(DumpLogBytes(file.string(), bytes.first(5 * 2731 + 10), {}, dump, err));
    std::istringstream lines(dump.str());
    std::string line;
    for (int i = 0; i < 6 && std::getline(lines, line); ++i) out << line << "\n";
  }
  out << "\n=== the sparse offset index Kafka builds over these batches "
         "(index.interval.bytes=4096)\n";
  const auto index = SparseIndex(bytes);
  for (size_t i = 0; i < 4 && i < index.size(); ++i) {
    out << fmt::format("offset: {} position: {}\n", index[i].offset, index[i].position);
  }
  out << fmt::format("... {} entries in all\n\n", index.size());

  out << "=== offset -> file position (largest index entry <= target, then a header-only walk)\n";
  for (int64_t target : {int64_t{0}, int64_t{35}, int64_t{49}, int64_t{50}, int64_t{3829}}) {
    IndexEntry hint{0, 0};
    for (const IndexEntry& e : index) {
      if (e.offset <= target) hint = e;
    }
    LogBatchWalker w(bytes.subspan(static_cast<size_t>(hint.position)), hint.position);
    while (w.Next()) {
      auto view = RecordBatchView::Parse(w.current_bytes(), w.current().position);
      if (view->last_offset() >= target) {
        out << fmt::format(
            "target {} -> index says (offset {}, position {}) -> batch at position {} "
            "(baseOffset {}, size {})\n",
            target, hint.offset, hint.position, w.current().position, view->base_offset(),
            view->size_in_bytes());
        break;
      }
    }
  }

  const int64_t target_ts = t0 + 1000;
  out << fmt::format("\n=== timestamp -> offset: first record with timestamp >= {}\n", target_ts);
  {
    LogBatchWalker w(bytes);
    bool found = false;
    while (!found && w.Next()) {
      auto view = RecordBatchView::Parse(w.current_bytes(), w.current().position);
      if (view->max_timestamp() < target_ts) continue;
      RecordIterator it(*view);
      while (it.Next()) {
        if (it.record().timestamp >= target_ts) {
          out << fmt::format("offset {} (timestamp {}, batch at position {})\n", it.record().offset,
                             it.record().timestamp, view->position());
          found = true;
          break;
        }
      }
    }
  }

  out << "\n=== consume from offset 11995\n";
  {
    LogBatchWalker w(bytes);
    int64_t count = 0;
    while (w.Next()) {
      auto view = RecordBatchView::Parse(w.current_bytes(), w.current().position);
      SEGLOG_RETURN_IF_ERROR(view->ValidateCrc());
      RecordIterator it(*view);
      while (it.Next()) {
        ++count;
        const Record& r = it.record();
        if (r.offset >= 11995) {
          out << fmt::format(
              "Offset:{}\t{}\t{}...\n", r.offset,
              std::string_view(reinterpret_cast<const char*>(r.key->data()), r.key->size()),
              std::string_view(reinterpret_cast<const char*>(r.value->data()), 10));
        }
      }
      SEGLOG_RETURN_IF_ERROR(it.status());
    }
    out << fmt::format("read {} records, every batch CRC valid\n", count);
  }
  return Status::OK();
}

}  // namespace seglog
