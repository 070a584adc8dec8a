// Consume and GetOffsets; see consume.h.
#include "tools/consume.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "manager/topic_store.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tools/node.h"
#include "tools/remote_tier.h"

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

// The listed partitions (all of the topic's when `only` is empty) of a read-only node: the
// logs as the node would serve them, with the checkpointed log start offsets applied.
Result<std::map<int32_t, std::shared_ptr<Log>>> TopicLogs(LogManager& m, const std::string& topic,
                                                          const std::vector<int32_t>& only) {
  SEGLOG_RETURN_IF_ERROR(ValidateTopicName(topic));
  std::vector<int32_t> partitions;
  if (auto t = m.DescribeTopic(topic); t.ok()) {
    for (const PartitionDescription& p : t->partitions) partitions.push_back(p.partition);
  } else if (t.status().IsNotFound()) {
    // A directory without seglog's topic store (a Kafka broker's): the node loaded every
    // partition directory, so the topic is what they hold.
    for (const std::string& dir : m.config().log_dirs) {
      SEGLOG_ASSIGN_OR_RETURN(std::vector<int32_t> here, ListPartitionDirs(dir, topic));
      partitions.insert(partitions.end(), here.begin(), here.end());
    }
  } else {
    return t.status();
  }
  if (partitions.empty()) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist in {}.", topic,
                                        fmt::join(m.config().log_dirs, ", ")));
  }
  std::map<int32_t, std::shared_ptr<Log>> logs;
  for (int32_t p : partitions) {
    if (!only.empty() && std::find(only.begin(), only.end(), p) == only.end()) continue;
    SEGLOG_ASSIGN_OR_RETURN(logs[p], m.GetLog({topic, p}));
  }
  for (int32_t p : only) {
    if (!logs.count(p)) {
      return Status::NotFound(fmt::format("partition {} of topic {} is not in {}", p, topic,
                                          fmt::join(m.config().log_dirs, ", ")));
    }
  }
  return logs;
}

Result<OneShotNode> OpenReadOnly(const std::string& log_dir,
                                 const std::string& server_config = "") {
  NodeOptions node;
  node.log_dir = log_dir;
  node.server_config = server_config;
  return OpenNode(node, /*read_only=*/true);
}

// Prints the records at or above `first` of the whole batches in `bytes` (read at `position`
// of `where`, which errors name), moving *next past each batch and setting *progressed when
// there was one. False once max_records are printed.
Result<bool> PrintBatches(const ConsumeOptions& o, int32_t partition, int64_t first,
                          std::span<const uint8_t> bytes, int64_t position,
                          const std::string& where, std::ostream& out, int64_t* printed,
                          int64_t* next, bool* progressed) {
  LogBatchWalker w(bytes, position);
  while (w.Next()) {
    SEGLOG_ASSIGN_OR_RETURN(RecordBatchView batch,
                            RecordBatchView::Parse(w.current_bytes(), w.current().position));
    SEGLOG_RETURN_IF_ERROR(batch.ValidateCrc().WithContext(where));
    *next = std::max(*next, batch.next_offset());
    *progressed = true;
    if (batch.is_control()) continue;  // consumers never see control records
    RecordIterator it(batch);
    while (it.Next()) {
      const Record& r = it.record();
      if (r.offset < first) continue;
      if (o.max_records && *printed >= *o.max_records) return false;
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
      ++*printed;
    }
    SEGLOG_RETURN_IF_ERROR(it.status().WithContext(where));
  }
  SEGLOG_RETURN_IF_ERROR(w.status().WithContext(where));
  return true;
}

Result<int64_t> ConsumeLogs(const ConsumeOptions& o, LogManager& m, const BrokerConfig& config,
                            std::ostream& out, std::ostream* reset_out) {
  SEGLOG_ASSIGN_OR_RETURN(auto logs, TopicLogs(m, o.topic, Only(o.partition)));
  // The remote tier, opened at the first offset only it holds (a node whose tiered storage is
  // misconfigured still serves its local offsets). Goes before the LogManager shuts down.
  std::unique_ptr<RemoteTier> tier;
  auto remote_tier = [&]() -> Result<RemoteTier*> {
    if (!tier) {
      auto opened = RemoteTier::Open(config, &m, o.rsm_for_tests);
      if (!opened.ok()) return opened.status();
      tier = std::move(opened).value();
    }
    return tier.get();
  };
  int64_t printed = 0;
  for (auto& [partition, log] : logs) {
    int64_t next;
    if (o.offset == "earliest") {
      next = log->log_start_offset();
    } else if (o.offset == "latest") {
      next = log->log_end_offset();
    } else {
      SEGLOG_ASSIGN_OR_RETURN(next, ParseLong(o.offset, "--offset"));
      // An offset outside the log: what auto.offset.reset says (seed 001's table). One that
      // only the remote tier holds is inside it.
      if (Status in_range = log->Read(next, 0).status();
          !in_range.ok() && !IsOffsetMovedToTieredStorage(in_range)) {
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
      std::vector<uint8_t> bytes;
      int64_t position = 0;
      std::string where = log->dir();
      Result<FetchDataInfo> fetch = log->Read(next, 1 << 20);
      if (fetch.ok()) {
        SEGLOG_ASSIGN_OR_RETURN(bytes, fetch->slice.ReadAll());
        position = fetch->slice.position;
      } else if (IsOffsetMovedToTieredStorage(fetch.status())) {
        // Below the local log start: the remote segment holding `next`, then on.
        const std::string context = fmt::format("reading offset {} of {}-{} from the remote tier",
                                                next, o.topic, partition);
        Result<RemoteTier*> remote = remote_tier();
        if (!remote.ok()) return remote.status().WithContext(context);
        Result<RemoteFetchData> read = (*remote)->storage()->manager()->Read(
            {o.topic, partition}, next, 1 << 20, /*min_one_message=*/true, log->high_watermark());
        if (!read.ok()) return read.status().WithContext(context);
        bytes = std::move(read->records);
        where = fmt::format("remote tier of {} (offset {})", log->dir(), read->first_offset);
      } else {
        return fetch.status();
      }
      bool progressed = false;
      SEGLOG_ASSIGN_OR_RETURN(
          const bool more, PrintBatches(o, partition, first, bytes, position, where, out, &printed,
                                        &next, &progressed));
      if (!more) return printed;
      if (!progressed) break;
    }
  }
  return printed;
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
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode node, OpenReadOnly(o.log_dir, o.server_config));
  auto printed = ConsumeLogs(o, *node.manager, node.config, out, reset_out);
  return FinishNode(node, printed.status()).ok() ? printed : printed.status();
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
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode node, OpenReadOnly(o.log_dir));
  // kafka-get-offsets.sh sorts by the string "topic-partition".
  std::map<std::string, std::pair<int32_t, int64_t>> lines;
  Status found_all = [&]() -> Status {
    SEGLOG_ASSIGN_OR_RETURN(auto logs, TopicLogs(*node.manager, o.topic, o.partitions));
    for (auto& [partition, log] : logs) {
      SEGLOG_ASSIGN_OR_RETURN(auto found, log->FetchOffsetByTimestamp(ts));
      if (!found || found->offset < 0) continue;
      lines[fmt::format("{}-{}", o.topic, partition)] = {partition, found->offset};
    }
    return Status::OK();
  }();
  SEGLOG_RETURN_IF_ERROR(FinishNode(node, found_all));
  for (const auto& [name, po] : lines) {
    out << o.topic << ':' << po.first << ':' << po.second << '\n';
  }
  return Status::OK();
}

}  // namespace seglog
