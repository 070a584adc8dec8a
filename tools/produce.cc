// Produce; see produce.h.
#include "tools/produce.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "base/murmur2.h"
#include "manager/topic_store.h"
#include "seglog/log.h"
#include "tools/node.h"

namespace seglog {

Result<std::string> FormatKey(const std::string& pattern, int64_t n) {
  std::string out;
  bool used = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool zero = false;
    if (j < pattern.size() && pattern[j] == '0') {
      zero = true;
      ++j;
    }
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
      width = width * 10 + (pattern[j] - '0');
      ++j;
    }
    if (j >= pattern.size() || pattern[j] != 'd' || used || width > 40) {
      return Status::InvalidArgument(
          fmt::format("key format '{}': only one %d (optionally %0Nd) is supported", pattern));
    }
    std::string digits = std::to_string(n);
    if (static_cast<int>(digits.size()) < width) {
      digits.insert(digits.begin(), static_cast<size_t>(width) - digits.size(), zero ? '0' : ' ');
    }
    out += digits;
    used = true;
    i = j;
  }
  return out;
}

namespace {

struct Pending {
  std::unique_ptr<RecordBatchBuilder> builder;  // copies each record's bytes as it is appended
};

class Producer {
 public:
  Producer(const ProduceOptions& o, std::map<int32_t, std::shared_ptr<Log>>* logs,
           ProduceResult* result)
      : o_(o), logs_(logs), result_(result) {}

  Status Add(int64_t index, std::optional<std::string> key, std::optional<std::string> value) {
    const int32_t n = static_cast<int32_t>(logs_->size());
    int32_t partition;
    if (o_.partition) {
      partition = *o_.partition;
    } else if (key) {
      partition =
          PartitionForKey(Bytes(reinterpret_cast<const uint8_t*>(key->data()), key->size()), n);
    } else {
      partition = sticky_;
    }
    Pending& p = pending_[partition];
    if (!p.builder) {
      BatchOptions bo;
      bo.compression = o_.compression;
      p.builder = std::make_unique<RecordBatchBuilder>(bo);
    }
    auto view = [](const std::optional<std::string>& s) -> NullableBytes {
      if (!s) return std::nullopt;
      return Bytes(reinterpret_cast<const uint8_t*>(s->data()), s->size());
    };
    const int64_t ts = o_.timestamp_start ? *o_.timestamp_start + index * o_.timestamp_step : Now();
    const NullableBytes kb = view(key);
    const NullableBytes vb = view(value);
    SEGLOG_RETURN_IF_ERROR(p.builder->Append(ts, kb, vb));
    if (p.builder->record_count() >= o_.batch_records) {
      SEGLOG_RETURN_IF_ERROR(Send(partition));
      if (!key && !o_.partition) sticky_ = (sticky_ + 1) % n;
    }
    return Status::OK();
  }

  Status SendAll() {
    for (auto& [partition, p] : pending_) {
      if (p.builder && p.builder->record_count() > 0) SEGLOG_RETURN_IF_ERROR(Send(partition));
    }
    return Status::OK();
  }

 private:
  int64_t Now() const {
    if (o_.clock) return o_.clock();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  Status Send(int32_t partition) {
    Pending& p = pending_[partition];
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch, p.builder->Build());
    Log& log = *logs_->at(partition);
    auto info = log.AppendAsLeader(batch, /*leader_epoch=*/0);
    if (!info.ok()) return info.status();
    result_->records += info->record_count;
    result_->batches += info->batch_count;
    result_->log_end_offsets[partition] = log.log_end_offset();
    p.builder.reset();
    return Status::OK();
  }

  const ProduceOptions& o_;
  std::map<int32_t, std::shared_ptr<Log>>* logs_;
  ProduceResult* result_;
  std::map<int32_t, Pending> pending_;
  int32_t sticky_ = 0;
};

}  // namespace

Result<ProduceResult> Produce(const ProduceOptions& o, std::istream& input) {
  SEGLOG_RETURN_IF_ERROR(ValidateTopicName(o.topic));
  if (o.batch_records < 1) return Status::InvalidArgument("--batch-records must be at least 1");
  if (o.value_size < 0) return Status::InvalidArgument("--value-size must not be negative");
  if (o.partitions < 1) return Status::InvalidArgument("--partitions must be at least 1");
  // The node's own path in: recovery after an unclean shutdown (every partition, before any
  // is written, as Kafka does), the checkpoints, and the topic created by CreateTopic.
  NodeOptions node;
  node.log_dir = o.log_dir;
  node.clock = o.clock;
  node.recovery_threads = o.recovery_threads;
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode n,
                          OpenNode(node, /*read_only=*/false, [&o](const std::string& line) {
                            if (o.progress && IsNoteworthyNodeLine(line)) o.progress(line);
                          }));
  LogManager& m = *n.manager;
  auto described = m.DescribeTopic(o.topic);
  if (described.status().IsNotFound()) {
    if (Status s = m.CreateTopic(o.topic, o.partitions, o.configs); !s.ok()) {
      return FinishNode(n, s);
    }
    described = m.DescribeTopic(o.topic);
  }
  if (!described.ok()) return FinishNode(n, described.status());
  const int32_t partitions = static_cast<int32_t>(described->partitions.size());
  if (o.partition && (*o.partition < 0 || *o.partition >= partitions)) {
    return FinishNode(
        n, Status::InvalidArgument(fmt::format("partition {} does not exist: topic {} has {}",
                                               *o.partition, o.topic, partitions)));
  }
  std::map<int32_t, std::shared_ptr<Log>> logs;
  for (const PartitionDescription& p : described->partitions) {
    auto log = m.GetLog({o.topic, p.partition});
    if (!log.ok()) return FinishNode(n, log.status());
    logs[p.partition] = std::move(log).value();
  }
  ProduceResult result;
  Producer producer(o, &logs, &result);
  Status s;
  if (o.num_records) {
    const std::string value(static_cast<size_t>(o.value_size), o.value_char);
    for (int64_t i = 0; i < *o.num_records && s.ok(); ++i) {
      auto key = FormatKey(o.key_format, i);
      s = key.ok() ? producer.Add(i, *key, value) : key.status();
    }
  } else {
    std::string line;
    int64_t i = 0;
    while (s.ok() && std::getline(input, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::optional<std::string> key, value = line;
      if (!o.key_separator.empty()) {
        const size_t at = line.find(o.key_separator);
        if (at == std::string::npos) {
          s = Status::InvalidArgument(
              fmt::format("No key separator found on line number {}: '{}'", i + 1, line));
          break;
        }
        key = line.substr(0, at);
        value = line.substr(at + o.key_separator.size());
      }
      if (!o.null_marker.empty()) {
        if (key && *key == o.null_marker) key.reset();
        if (value && *value == o.null_marker) value.reset();
      }
      s = producer.Add(i++, key, value);
    }
  }
  if (s.ok()) s = producer.SendAll();
  logs.clear();
  // Closes every log, writes the checkpoints and then .kafka_cleanshutdown.
  SEGLOG_RETURN_IF_ERROR(FinishNode(n, s));
  return result;
}

}  // namespace seglog
