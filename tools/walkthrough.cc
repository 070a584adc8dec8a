// Walkthrough; see walkthrough.h.
#include "tools/walkthrough.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <vector>

#include "console/lookup_trace.h"
#include "io/file_names.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tools/dump_log.h"
#include "tools/node.h"

namespace seglog {

namespace {

constexpr const char* kTopic = "walkthrough";
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

// The produce half, on a writable node: a fresh topic "walkthrough" (a previous run's is
// deleted first), Example 1's records, and the files while its log is open.
Status ProduceExampleOne(LogManager& m, const std::string& dir, int64_t t0, std::ostream& out) {
  if (m.DescribeTopic(kTopic).ok()) {
    SEGLOG_RETURN_IF_ERROR(m.DeleteTopic(kTopic));
    SEGLOG_RETURN_IF_ERROR(m.RunTask("delete-files"));
  } else if (m.GetLog({kTopic, 0}).ok()) {
    return Status::AlreadyExists(
        fmt::format("{} exists but belongs to no topic; remove it to run the walkthrough", dir));
  }
  SEGLOG_RETURN_IF_ERROR(m.CreateTopic(kTopic, 1, {{"segment.bytes", "1048576"}}));
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<Log> log, m.GetLog({kTopic, 0}));

  out << fmt::format(
      "=== produce {} records to walkthrough-0, {} per batch, {}-byte values, "
      "segment.bytes=1048576 (seed 000, Example 1)\n",
      kRecords, kPerBatch, kValueSize);
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
  return Status::OK();
}

// A traced lookup as text: the steps the web console's partition page animates
// (console/lookup_trace.h), on the same files.
void PrintSearch(const IndexSearch& s, const char* key, const char* value, std::ostream& out) {
  out << fmt::format("  binary search of {} ({} entries, warm section from slot {}):\n", s.file,
                     s.entries, s.warm_first_slot);
  for (const IndexProbe& p : s.probes) {
    out << fmt::format("    {} slot {}: {} {} -> {} {} ({} the target)\n", p.phase, p.slot, key,
                       p.key, value, p.value, p.comparison);
  }
  out << fmt::format("  entry: {} {} -> {} {}{}\n", key, s.key, value, s.value,
                     s.slot < 0 ? " (none: the segment's start)" : "");
}

void PrintScan(const SegmentVisit& v, std::ostream& out) {
  out << fmt::format("  scan {} from position {}:\n", v.log_file, v.scan_from);
  for (const ScanStep& st : v.scan) {
    out << fmt::format("    batch at {} ({} B, offsets {}-{}, max timestamp {}){}\n", st.position,
                       st.size, st.base_offset, st.last_offset, st.max_timestamp,
                       st.match ? ": stop" : "");
  }
  if (v.scan_omitted > 0) out << fmt::format("    ({} batch headers not shown)\n", v.scan_omitted);
}

Status PrintTracedLookups(Log& log, int64_t offset, int64_t timestamp, int64_t t0,
                          std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(OffsetLookupTrace t, TraceOffsetLookup(log, offset));
  out << fmt::format(
      "\n=== offset {} step by step (what the web console's partition page animates)\n", offset);
  out << fmt::format("floor segment: {} (the largest base offset <= {} of {})\n",
                     t.floor_base_offset, offset, fmt::join(t.segment_bases, ", "));
  for (const SegmentVisit& v : t.visits) {
    PrintSearch(v.offset_index, "offset", "position", out);
    PrintScan(v, out);
  }
  if (t.found) {
    out << fmt::format("found: offset {} in segment {}, batch at position {}\n", offset,
                       t.found->segment_base_offset, t.found->position);
  } else {
    out << "not found: " << t.note << "\n";
  }
  SEGLOG_ASSIGN_OR_RETURN(TimestampLookupTrace tt, TraceTimestampLookup(log, timestamp));
  out << fmt::format("\n=== timestamp t0 + {} ms step by step\n", timestamp - t0);
  for (const auto& c : tt.checks) {
    out << fmt::format("segment {}: largest timestamp t0 + {} ms{}\n", c.base_offset,
                       c.largest_timestamp - t0, c.chosen ? ": the first >= target" : "");
  }
  if (tt.visit) {
    PrintSearch(*tt.visit->time_index, "timestamp", "offset", out);
    PrintSearch(tt.visit->offset_index, "offset", "position", out);
    PrintScan(*tt.visit, out);
  }
  if (tt.found) {
    out << fmt::format("found: offset {} (t0 + {} ms)\n", tt.found->offset,
                       tt.found->timestamp - t0);
  } else {
    out << "not found: " << tt.note << "\n";
  }
  return Status::OK();
}

// The read half, as consume and get-offsets read: on a read-only node.
Status ReadExampleOne(LogManager& m, int64_t t0, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<Log> log, m.GetLog({kTopic, 0}));
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

  SEGLOG_RETURN_IF_ERROR(PrintTracedLookups(*log, 5000, t0 + 5000, t0, out));

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
  return Status::OK();
}

}  // namespace

Status RunWalkthrough(const std::string& log_dir, std::ostream& out) {
  const std::string dir = log_dir + "/" + PartitionDirName({kTopic, 0});
  NodeOptions node;
  node.log_dir = log_dir;
  const int64_t t0 = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  {
    SEGLOG_ASSIGN_OR_RETURN(OneShotNode n, OpenNode(node, /*read_only=*/false));
    SEGLOG_RETURN_IF_ERROR(FinishNode(n, ProduceExampleOne(*n.manager, dir, t0, out)));
  }
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

  SEGLOG_ASSIGN_OR_RETURN(OneShotNode reader, OpenNode(node, /*read_only=*/true));
  Status read = ReadExampleOne(*reader.manager, t0, out);
  return FinishNode(reader, read);
}

}  // namespace seglog
