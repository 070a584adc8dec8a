#include "share/share_dlq_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "manager/log_manager.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// Java's Boolean parsing of a topic config: "true" in any case.
bool IsTrue(std::string_view v) {
  if (v.size() != 4) return false;
  std::string lower(v);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true";
}

Bytes AsBytes(const std::string& s) {
  return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// A source record's key and value, owned.
struct CopiedRecord {
  std::optional<std::vector<uint8_t>> key;
  std::optional<std::vector<uint8_t>> value;
};

std::optional<std::vector<uint8_t>> Own(const NullableBytes& b) {
  if (!b) return std::nullopt;
  return std::vector<uint8_t>(b->begin(), b->end());
}

NullableBytes View(const std::optional<std::vector<uint8_t>>& b) {
  if (!b) return std::nullopt;
  return Bytes(b->data(), b->size());
}

// Reads the source records [first, last] (v2 batches) up to the high watermark, at most
// `max_bytes` of key and value in all; offsets missing from the answer are not in the log any
// more (or did not fit) and are written with headers only.
std::map<int64_t, CopiedRecord> ReadSource(Log& log, int64_t first, int64_t last,
                                           int64_t max_bytes) {
  std::map<int64_t, CopiedRecord> out;
  int64_t collected = 0;
  int64_t next = std::max(first, log.log_start_offset());
  // Each read moves `next` forward by one batch at least; bounded by the range's size.
  for (int reads = 0; next <= last && reads < 1 + (last - first + 1); ++reads) {
    Result<FetchDataInfo> read = log.Read(next, 1 << 20, /*min_one_message=*/true);
    if (!read.ok() || read->slice.length == 0) break;
    Result<std::vector<uint8_t>> bytes = read->slice.ReadAll();
    if (!bytes.ok()) break;
    const int64_t before = next;
    LogBatchWalker walker(*bytes);
    while (walker.Next() && next <= last) {
      const BatchPrefix& prefix = walker.current();
      Result<RecordBatchView> batch = RecordBatchView::Parse(walker.current_bytes());
      if (!batch.ok() || prefix.magic < 2) {
        // Not copied: skip the batch's offsets (headers only).
        if (batch.ok())
          next = std::max(next, batch->last_offset() + 1);
        else
          next = std::max(next, prefix.base_offset + 1);
        continue;
      }
      next = std::max(next, batch->last_offset() + 1);
      if (batch->is_control()) continue;
      RecordIterator it(*batch);
      while (it.Next()) {
        const Record& r = it.record();
        if (r.offset < first || r.offset > last) continue;
        int64_t size = (r.key ? static_cast<int64_t>(r.key->size()) : 0) +
                       (r.value ? static_cast<int64_t>(r.value->size()) : 0);
        if (collected + size > max_bytes) continue;
        collected += size;
        out[r.offset] = CopiedRecord{Own(r.key), Own(r.value)};
      }
    }
    if (next <= before) break;
  }
  return out;
}

}  // namespace

std::string_view DlqCauseMessage(DlqCause cause) {
  return cause == DlqCause::kClientReject ? kDlqClientRejectMessage
                                          : kDlqDeliveryCountExceededMessage;
}

ShareDlqWriter::ShareDlqWriter(Options options) : options_(std::move(options)), queued_(&mu_) {}

ShareDlqWriter::~ShareDlqWriter() { Stop(); }

void ShareDlqWriter::Start() {
  MutexLock lock(&mu_);
  if (running_) return;
  running_ = true;
  stopping_ = false;
  worker_ = std::thread([this] { Run(); });
}

void ShareDlqWriter::Stop() {
  {
    MutexLock lock(&mu_);
    if (!running_) return;
    stopping_ = true;
    queued_.SignalAll();
  }
  worker_.join();
  MutexLock lock(&mu_);
  running_ = false;
}

void ShareDlqWriter::Enqueue(const SharePartitionKey& key, std::vector<DlqArchive> archives) {
  if (archives.empty()) return;
  MutexLock lock(&mu_);
  for (DlqArchive& a : archives) queue_.push_back(Item{key, a});
  queued_.Signal();
}

void ShareDlqWriter::Run() {
  for (;;) {
    std::deque<Item> batch;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) queued_.Wait(&mu_);
      if (queue_.empty() && stopping_) return;
      batch.swap(queue_);
    }
    // No lock held: the writes read the source log and append to the DLQ topic.
    for (const Item& item : batch) {
      Status s = Write(item.key, item.archive);
      if (options_.on_done) options_.on_done(item.key, item.archive);
      if (!s.ok()) {
        options_.logger.Error(fmt::format(
            "Failed to write to DLQ, proceeding to ARCHIVED regardless. Share partition {}, "
            "offsets {}-{}: {}",
            item.key.CoordinatorKey(), item.archive.first_offset, item.archive.last_offset,
            s.message()));
      }
    }
  }
}

void ShareDlqWriter::Drain() {
  std::deque<Item> batch;
  {
    MutexLock lock(&mu_);
    batch.swap(queue_);
  }
  for (const Item& item : batch) {
    Status s = Write(item.key, item.archive);
    if (options_.on_done) options_.on_done(item.key, item.archive);
    if (!s.ok()) options_.logger.Error(fmt::format("Failed to write to DLQ: {}", s.message()));
  }
}

bool ShareDlqWriter::EnabledFor(const std::string& group_id) const {
  if (!options_.group_config) return false;
  const ShareDlqGroupConfig c = options_.group_config(group_id);
  return c.enabled && !c.topic_name.empty();
}

int64_t ShareDlqWriter::NowMs() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status ShareDlqWriter::CheckTopic(const std::string& group_id, const std::string& topic,
                                  bool* exists) const {
  // ProduceRequestHandler.validateDlqTopic, in its order and words.
  if (topic.empty()) {
    return Status::InvalidArgument(
        fmt::format("Configured DLQ topic name in share group: {} is empty.", group_id));
  }
  if (StartsWith(topic, "__")) {
    return Status::InvalidArgument(
        fmt::format("Configured DLQ topic name in share group: {} cannot start with __, topic: {}.",
                    group_id, topic));
  }
  Result<TopicMetadata> found = options_.logs->FindTopic(topic);
  *exists = found.ok();
  if (*exists) {
    auto it = found->configs.find("errors.deadletterqueue.group.enable");
    if (it == found->configs.end() || !IsTrue(it->second)) {
      return Status::InvalidArgument(
          fmt::format("DLQ is not enabled on configured DLQ topic for share group: {}, topic: {}.",
                      group_id, topic));
    }
  } else if (!options_.auto_create_topics) {
    return Status::InvalidArgument(
        fmt::format("DLQ topic does not exist and auto create is disabled on cluster for share "
                    "group: {}, topic: {}.",
                    group_id, topic));
  }
  const std::string& prefix = options_.topic_prefix;
  if (!prefix.empty() && !StartsWith(topic, prefix)) {
    return Status::InvalidArgument(
        fmt::format("Configured DLQ topic name does not comply with the DLQ topic prefix in share "
                    "group: {}, topic: {}, prefix: {}.",
                    group_id, topic, prefix));
  }
  return Status::OK();
}

Status ShareDlqWriter::Write(const SharePartitionKey& key, const DlqArchive& archive) {
  if (!options_.group_config || options_.logs == nullptr) return Status::OK();
  const ShareDlqGroupConfig config = options_.group_config(key.group_id);
  if (!config.enabled || config.topic_name.empty()) return Status::OK();
  if (archive.last_offset < archive.first_offset || archive.first_offset < 0) {
    return Status::InvalidArgument(
        "DLQ records parameters last offset cannot be less than "
        "first offset.");
  }
  const std::string& dlq_topic = config.topic_name;
  bool exists = false;
  if (Status s = CheckTopic(key.group_id, dlq_topic, &exists); !s.ok()) return s;
  if (!exists) {
    // CreateTopics with NumPartitions -1 (the broker's num.partitions) and these configs.
    Status created = options_.logs->CreateTopic(dlq_topic, std::max(1, options_.default_partitions),
                                                {{"errors.deadletterqueue.group.enable", "true"},
                                                 {"message.timestamp.type", "CreateTime"}});
    if (!created.ok() && !options_.logs->FindTopic(dlq_topic).ok()) {
      return created.WithContext("creating DLQ topic " + dlq_topic);
    }
    options_.logger.Info(
        fmt::format("Created DLQ topic {} for share group {}", dlq_topic, key.group_id));
  }
  Result<TopicMetadata> dlq_meta = options_.logs->FindTopic(dlq_topic);
  if (!dlq_meta.ok()) return dlq_meta.status();
  const int32_t partitions = std::max(1, dlq_meta->partitions);
  const TopicPartition dlq_tp{dlq_topic, key.partition % partitions};
  Result<std::shared_ptr<Log>> dlq_log = options_.logs->GetLog(dlq_tp);
  if (!dlq_log.ok()) return dlq_log.status();
  const int64_t max_message_bytes = std::max<int64_t>(batch_layout::kRecordBatchOverhead + 1,
                                                      (*dlq_log)->config().max_message_bytes);

  // The source topic's name (the topic id's text when it is gone).
  std::string source_topic =
      options_.logs->TopicNameForId(key.topic_id.ToString()).value_or(key.topic_id.ToString());
  std::map<int64_t, CopiedRecord> copied;
  if (config.copy_record) {
    Result<std::shared_ptr<Log>> source = options_.logs->GetLog({source_topic, key.partition});
    if (source.ok()) {
      copied = ReadSource(**source, archive.first_offset, archive.last_offset, max_message_bytes);
    } else {
      options_.logger.Warn(fmt::format(
          "Unable to fetch original record data for share partition {}; DLQ records will be "
          "produced with headers only.",
          key.CoordinatorKey()));
    }
  }

  const std::string partition_text = std::to_string(key.partition);
  const std::string count_text = std::to_string(archive.delivery_count);
  const std::string message(DlqCauseMessage(archive.cause));
  // Batches of DLQ records being built (each appended when full, the last at the end).
  std::optional<RecordBatchBuilder> builder;
  auto flush = [&]() -> Status {
    if (!builder || builder->record_count() == 0) return Status::OK();
    Result<std::vector<uint8_t>> bytes = builder->Build();
    builder.reset();
    if (!bytes.ok()) return bytes.status();
    // The produce path's append (Kafka's DLQ writes are Produce requests).
    Result<LogAppendInfo> appended =
        (*dlq_log)->AppendAsLeader(*bytes, Log::kCurrentLeaderEpoch, AppendOrigin::kClient);
    if (!appended.ok()) return appended.status();
    records_written_.fetch_add(appended->record_count);
    if (options_.on_appended) options_.on_appended(dlq_tp);
    return Status::OK();
  };
  for (int64_t offset = archive.first_offset; offset <= archive.last_offset; ++offset) {
    const std::string offset_text = std::to_string(offset);
    const Header headers[] = {
        {kDlqHeaderTopic, AsBytes(source_topic)},
        {kDlqHeaderPartition, AsBytes(partition_text)},
        {kDlqHeaderOffset, AsBytes(offset_text)},
        {kDlqHeaderGroup, AsBytes(key.group_id)},
        {kDlqHeaderDeliveryCount, AsBytes(count_text)},
        {kDlqHeaderMessage, AsBytes(message)},
    };
    NullableBytes k, v;
    if (auto it = copied.find(offset); it != copied.end()) {
      k = View(it->second.key);
      v = View(it->second.value);
    }
    // At most max.message.bytes a batch (Kafka's rounds): a record that may not fit starts the
    // next batch. The record's size is bounded from above (every varint at its widest).
    int64_t bound = 1 + 10 + 5 + 5 + 5 + 5 + 5;
    if (k) bound += static_cast<int64_t>(k->size());
    if (v) bound += static_cast<int64_t>(v->size());
    for (const Header& h : headers)
      bound += 10 + static_cast<int64_t>(h.key.size() + h.value->size());
    if (builder && builder->record_count() > 0 &&
        static_cast<int64_t>(builder->uncompressed_size()) + bound > max_message_bytes) {
      if (Status s = flush(); !s.ok()) return s;
    }
    if (!builder) builder.emplace(BatchOptions{});
    if (Status s = builder->Append(NowMs(), k, v, headers); !s.ok()) return s;
  }
  return flush();
}

}  // namespace seglog
