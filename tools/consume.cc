// Consume and GetOffsets; see consume.h.
#include "tools/consume.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "manager/log_dir_lock.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tools/partition_dirs.h"

namespace seglog {

namespace {

std::string Text(Bytes b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

Result<int64_t> ParseLong(const std::string& s, const char* what) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return Status::InvalidArgument(fmt::format("{}: '{}' is not a number", what, s));
  }
  return v;
}

std::vector<int32_t> Only(const std::optional<int32_t>& p) {
  return p ? std::vector<int32_t>{*p} : std::vector<int32_t>{};
}

}  // namespace

Result<int64_t> Consume(const ConsumeOptions& o, std::ostream& out, std::ostream* reset_out) {
  if (o.reset != "earliest" && o.reset != "latest" && o.reset != "none") {
    return Status::InvalidArgument(
        fmt::format("Invalid value {} for configuration auto.offset.reset: String must be one "
                    "of: latest, earliest, none",
                    o.reset));
  }
  if (o.format != "text" && o.format != "json") {
    return Status::InvalidArgument(
        fmt::format("--format must be text or json, not '{}'", o.format));
  }
  SEGLOG_ASSIGN_OR_RETURN(auto lock, LogDirLock::Acquire(Env::Default(), o.log_dir));
  LogOptions lo;
  lo.read_only = true;
  SEGLOG_ASSIGN_OR_RETURN(auto logs,
                          OpenTopicPartitions(o.log_dir, o.topic, Only(o.partition), lo));
  int64_t printed = 0;
  for (auto& [partition, log] : logs) {
    int64_t next;
    if (o.offset == "earliest") {
      next = log->log_start_offset();
    } else if (o.offset == "latest") {
      next = log->log_end_offset();
    } else {
      SEGLOG_ASSIGN_OR_RETURN(next, ParseLong(o.offset, "--offset"));
      // An offset outside the log: what auto.offset.reset says (seed 001's table).
      if (Status in_range = log->Read(next, 0).status(); !in_range.ok()) {
        if (!in_range.IsOutOfRange() || o.reset == "none") return in_range;
        next = o.reset == "earliest" ? log->log_start_offset() : log->log_end_offset();
        if (reset_out != nullptr) {
          *reset_out << fmt::format(
              "Resetting offset for partition {}-{} to position {} (auto.offset.reset={}): "
              "offset {} is out of range\n",
              o.topic, partition, next, o.reset, ParseLong(o.offset, "--offset").value());
        }
      }
    }
    const int64_t first = next;
    while (next < log->high_watermark()) {
      if (o.max_records && printed >= *o.max_records) return printed;
      SEGLOG_ASSIGN_OR_RETURN(FetchDataInfo fetch, log->Read(next, 1 << 20));
      SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, fetch.slice.ReadAll());
      LogBatchWalker w(bytes, fetch.slice.position);
      bool progressed = false;
      while (w.Next()) {
        SEGLOG_ASSIGN_OR_RETURN(RecordBatchView batch,
                                RecordBatchView::Parse(w.current_bytes(), w.current().position));
        SEGLOG_RETURN_IF_ERROR(batch.ValidateCrc().WithContext(log->dir()));
        next = std::max(next, batch.next_offset());
        progressed = true;
        if (batch.is_control()) continue;  // consumers never see control records
        RecordIterator it(batch);
        while (it.Next()) {
          const Record& r = it.record();
          if (r.offset < first) continue;
          if (o.max_records && printed >= *o.max_records) return printed;
          if (o.format == "text") {
            out << "Offset:" << r.offset << '\t' << (r.key ? Text(*r.key) : "null") << '\t'
                << (r.value ? Text(*r.value) : "null") << '\n';
          } else {
            nlohmann::json j = {
                {"topic", o.topic},
                {"partition", partition},
                {"offset", r.offset},
                {"timestamp", r.timestamp},
                {"timestampType", std::string(TimestampTypeName(batch.timestamp_type()))},
                {"key", r.key ? nlohmann::json(Text(*r.key)) : nlohmann::json(nullptr)},
                {"value", r.value ? nlohmann::json(Text(*r.value)) : nlohmann::json(nullptr)}};
            nlohmann::json headers = nlohmann::json::array();
            for (const Header& h : r.headers) {
              headers.push_back(
                  {{"key", std::string(h.key)},
                   {"value", h.value ? nlohmann::json(Text(*h.value)) : nlohmann::json(nullptr)}});
            }
            j["headers"] = headers;
            out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
          }
          ++printed;
        }
        SEGLOG_RETURN_IF_ERROR(it.status().WithContext(log->dir()));
      }
      SEGLOG_RETURN_IF_ERROR(w.status());
      if (!progressed) break;
    }
  }
  return printed;
}

Status GetOffsets(const GetOffsetsOptions& o, std::ostream& out) {
  int64_t ts;
  if (o.time == "earliest") {
    ts = kEarliestTimestamp;
  } else if (o.time == "latest") {
    ts = kLatestTimestamp;
  } else if (o.time == "max-timestamp") {
    ts = kMaxTimestamp;
  } else {
    auto v = ParseLong(o.time, "--time");
    if (!v.ok() || *v < kMaxTimestamp) {
      return Status::InvalidArgument(fmt::format(
          "Malformed time argument {}. Please use -1 or latest / -2 or earliest / -3 or "
          "max-timestamp, or a specified long format timestamp",
          o.time));
    }
    ts = *v;
  }
  SEGLOG_ASSIGN_OR_RETURN(auto lock, LogDirLock::Acquire(Env::Default(), o.log_dir));
  LogOptions lo;
  lo.read_only = true;
  SEGLOG_ASSIGN_OR_RETURN(auto logs, OpenTopicPartitions(o.log_dir, o.topic, o.partitions, lo));
  // kafka-get-offsets.sh sorts by the string "topic-partition".
  std::map<std::string, std::pair<int32_t, int64_t>> lines;
  for (auto& [partition, log] : logs) {
    SEGLOG_ASSIGN_OR_RETURN(auto found, log->FetchOffsetByTimestamp(ts));
    if (!found || found->offset < 0) continue;
    lines[fmt::format("{}-{}", o.topic, partition)] = {partition, found->offset};
  }
  for (const auto& [name, po] : lines) {
    out << o.topic << ':' << po.first << ':' << po.second << '\n';
  }
  return Status::OK();
}

}  // namespace seglog
