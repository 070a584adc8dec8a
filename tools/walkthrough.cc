// Walkthrough; see walkthrough.h.
#include "tools/walkthrough.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <vector>

#include "io/file_names.h"
#include "manager/log_dir_lock.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tools/dump_log.h"

namespace seglog {

namespace {

constexpr int kRecords = 12000;
constexpr int kPerBatch = 10;
constexpr int kValueSize = 250;

void ListDir(const std::string& dir, std::ostream& out) {
  std::vector<std::pair<std::string, uintmax_t>> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    files.emplace_back(e.path().filename().string(), e.file_size());
  }
  std::sort(files.begin(), files.end());
  for (const auto& [name, size] : files) out << fmt::format("{:>10} {}\n", size, name);
}

std::string Head(const std::string& text, int lines) {
  std::istringstream in(text);
  std::string line, result;
  for (int i = 0; i < lines && std::getline(in, line); ++i) result += line + "\n";
  return result;
}

}  // namespace

Status RunWalkthrough(const std::string& log_dir, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(auto lock, LogDirLock::Acquire(Env::Default(), log_dir));
  const std::string dir = log_dir + "/walkthrough-0";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) return Status::IOError(fmt::format("{}: {}", dir, ec.message()));
  LogConfig config;
  SEGLOG_RETURN_IF_ERROR(config.Set("segment.bytes", "1048576"));
  const int64_t t0 = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();

  out << fmt::format(
      "=== produce {} records to walkthrough-0, {} per batch, {}-byte values, "
      "segment.bytes=1048576 (seed 000, Example 1)\n",
      kRecords, kPerBatch, kValueSize);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> log, Log::Open(dir, config));
  const std::string value(kValueSize, 'v');
  for (int b = 0; b < kRecords / kPerBatch; ++b) {
    RecordBatchBuilder builder{BatchOptions{}};
    for (int i = 0; i < kPerBatch; ++i) {
      const int n = b * kPerBatch + i;
      const std::string key = fmt::format("k-{:06d}", n);
      SEGLOG_RETURN_IF_ERROR(
          builder.Append(t0 + n, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                         Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size())));
    }
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch, builder.Build());
    SEGLOG_RETURN_IF_ERROR(log->AppendAsLeader(batch).status());
  }
  out << fmt::format("sent {} records; log end offset {}\n\n", kRecords, log->log_end_offset());

  out << "=== files in the partition directory while the log is open (size name)\n";
  ListDir(dir, out);
  SEGLOG_RETURN_IF_ERROR(log->Close());
  log.reset();
  out << "\n=== after a clean close: the active segment's indexes are trimmed\n";
  ListDir(dir, out);

  out << "\n=== first batches of the first segment (kafka-dump-log.sh format)\n";
  {
    std::ostringstream dump, err;
    const std::vector<std::string> files = {LogFilePath(dir, 0)};
    DumpLogOptions o;
    o.max_bytes = 4 * 2731;  // the first four batches
    SEGLOG_RETURN_IF_ERROR(DumpFiles(files, o, dump, err));
    out << Head(dump.str(), 6);
  }
  out << "\n=== first entries of the offset index (.index) and the time index (.timeindex)\n";
  for (const std::string& file : {OffsetIndexFilePath(dir, 0), TimeIndexFilePath(dir, 0)}) {
    std::ostringstream dump, err;
    const std::vector<std::string> files = {file};
    SEGLOG_RETURN_IF_ERROR(DumpFiles(files, DumpLogOptions{}, dump, err));
    out << Head(dump.str(), 4);
  }

  LogOptions read_only;
  read_only.read_only = true;
  SEGLOG_ASSIGN_OR_RETURN(log, Log::Open(dir, config, read_only));
  out << "\n=== offset -> file position (floor segment, index, then a header-only walk)\n";
  for (int64_t target :
       {int64_t{0}, int64_t{35}, int64_t{49}, int64_t{50}, int64_t{3829}, int64_t{5000}}) {
    SEGLOG_ASSIGN_OR_RETURN(std::optional<BatchLocation> loc, log->LookupOffset(target));
    if (!loc) return Status::NotFound(fmt::format("offset {} not found", target));
    out << fmt::format("target {} -> segment {}, batch at position {} (baseOffset {}, size {})\n",
                       target, loc->segment_base_offset, loc->position, loc->base_offset,
                       loc->size);
  }

  out << "\n=== timestamp -> offset (ListOffsets)\n";
  for (auto [name, ts] : {std::pair<const char*, int64_t>{"earliest", kEarliestTimestamp},
                          {"latest", kLatestTimestamp},
                          {"max-timestamp", kMaxTimestamp},
                          {"t0 + 5000 ms", t0 + 5000}}) {
    SEGLOG_ASSIGN_OR_RETURN(std::optional<TimestampAndOffset> found,
                            log->FetchOffsetByTimestamp(ts));
    out << fmt::format("{}: offset {}\n", name, found ? found->offset : -1);
  }

  out << "\n=== consume from offset 11995\n";
  SEGLOG_ASSIGN_OR_RETURN(FetchDataInfo fetch, log->Read(11995, 1 << 20));
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, fetch.slice.ReadAll());
  LogBatchWalker w(bytes, fetch.slice.position);
  while (w.Next()) {
    SEGLOG_ASSIGN_OR_RETURN(RecordBatchView batch,
                            RecordBatchView::Parse(w.current_bytes(), w.current().position));
    SEGLOG_RETURN_IF_ERROR(batch.ValidateCrc());
    RecordIterator it(batch);
    while (it.Next()) {
      const Record& r = it.record();
      if (r.offset < 11995) continue;
      out << fmt::format(
          "Offset:{}\t{}\t{}...\n", r.offset,
          std::string_view(reinterpret_cast<const char*>(r.key->data()), r.key->size()),
          std::string_view(reinterpret_cast<const char*>(r.value->data()), 10));
    }
    SEGLOG_RETURN_IF_ERROR(it.status());
  }
  return log->Close();
}

}  // namespace seglog
