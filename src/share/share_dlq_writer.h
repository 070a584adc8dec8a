// ShareDlqWriter: a share group's dead-letter queue (KIP-1191) - the records a share partition
// archived by a Reject or at the delivery count limit are written, one DLQ record per offset,
// to the group's errors.deadletterqueue.topic.name, as Kafka 4.4.0's ShareGroupDLQStateManager
// writes them (facts: docs/design/share_groups.md, "Dead-letter queue (KIP-1191)").
//
// Kafka 4.4.0 rules kept (ShareGroupDLQStateManager and its ProduceRequestHandler, read from
// the jar):
//   - The group's DLQ is on when share.version is 2 or more and the group's
//     errors.deadletterqueue.topic.name is not blank.
//   - The topic is checked in Kafka's order and words: a name starting with "__"; an existing
//     topic without errors.deadletterqueue.group.enable=true; a missing topic while
//     errors.deadletterqueue.auto.create.topics.enable is false; a name not starting with
//     errors.deadletterqueue.topic.name.prefix (when that is not empty). A refused topic writes
//     nothing (the records stay archived).
//   - A missing topic is created with the broker's num.partitions and the configs
//     errors.deadletterqueue.group.enable=true and message.timestamp.type=CreateTime.
//   - The DLQ partition is the source partition modulo the DLQ topic's partition count.
//   - Each record: timestamp now; key and value copied from the source record only when the
//     group's errors.deadletterqueue.copy.record.enable is true (null when it is not, or the
//     record is no longer in the log); none of the source headers; the headers
//     __dlq.errors.topic, __dlq.errors.partition, __dlq.errors.offset, __dlq.errors.group,
//     __dlq.errors.delivery.count and __dlq.errors.message, each value UTF-8 text (numbers in
//     decimal). Uncompressed v2 batches, each at most the DLQ topic's max.message.bytes.
//   - Appended as a client's produce is (the produce path's AppendAsLeader, origin client).
//
// Differences, on purpose:
//   - As Kafka, the records stay ARCHIVING (3, written to __share_group_state) until the write
//     ends (on_done: SharePartitionManager::CompleteArchiving writes ARCHIVED), and a load that
//     finds ARCHIVING records queues them again; the queue itself is in memory.
//   - One worker thread appends to the local log; Kafka sends Produce and CreateTopics requests
//     from an inter-broker send thread, with retries (5 attempts, backoff 1 s to 30 s).
//   - Source records of magic 0/1 batches are not copied (headers only).
//
// Thread safety: thread-safe. mu_ guards the queue only; Enqueue takes it briefly (a share
// partition's mutex may be held then; mu_ is a leaf) and the worker drops it before any log
// read, topic creation or append.
#ifndef SEGLOG_SHARE_SHARE_DLQ_WRITER_H_
#define SEGLOG_SHARE_SHARE_DLQ_WRITER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "seglog/logger.h"
#include "seglog/status.h"
#include "seglog/topic_partition.h"
#include "share/share_partition.h"
#include "sharestate/share_partition_key.h"

namespace seglog {

class LogManager;

// Kafka 4.4.0's header names and cause messages (ShareGroupDLQStateManager.ProduceRequestHandler,
// ShareGroupDLQManager).
inline constexpr char kDlqHeaderTopic[] = "__dlq.errors.topic";
inline constexpr char kDlqHeaderPartition[] = "__dlq.errors.partition";
inline constexpr char kDlqHeaderOffset[] = "__dlq.errors.offset";
inline constexpr char kDlqHeaderGroup[] = "__dlq.errors.group";
inline constexpr char kDlqHeaderDeliveryCount[] = "__dlq.errors.delivery.count";
inline constexpr char kDlqHeaderMessage[] = "__dlq.errors.message";
inline constexpr char kDlqClientRejectMessage[] = "Offset rejected by client.";
inline constexpr char kDlqDeliveryCountExceededMessage[] =
    "Offset delivery count exceeded the threshold.";

std::string_view DlqCauseMessage(DlqCause cause);

// A share group's DLQ settings, as the writer reads them at each write.
struct ShareDlqGroupConfig {
  bool enabled = false;      // share.version >= 2 and a DLQ topic is named
  std::string topic_name;    // errors.deadletterqueue.topic.name
  bool copy_record = false;  // errors.deadletterqueue.copy.record.enable
};

class ShareDlqWriter {
 public:
  struct Options {
    LogManager* logs = nullptr;
    // The group's settings; unset: no group has a DLQ.
    std::function<ShareDlqGroupConfig(const std::string& group_id)> group_config;
    std::string topic_prefix = "dlq.";  // errors.deadletterqueue.topic.name.prefix
    bool auto_create_topics = false;    // errors.deadletterqueue.auto.create.topics.enable
    int32_t default_partitions = 1;     // num.partitions, for a created DLQ topic
    // Called after an append to a DLQ partition (wakes fetches waiting on it); may be unset.
    std::function<void(const TopicPartition&)> on_appended;
    // Called when the write of a queued item ended, written or not (the share partition
    // manager's CompleteArchiving); may be unset.
    std::function<void(const SharePartitionKey&, const DlqArchive&)> on_done;
    // ms since the epoch (the records' timestamps); unset: the system clock.
    std::function<int64_t()> clock;
    Logger logger;
  };

  explicit ShareDlqWriter(Options options);
  ~ShareDlqWriter();
  ShareDlqWriter(const ShareDlqWriter&) = delete;
  ShareDlqWriter& operator=(const ShareDlqWriter&) = delete;

  // Starts the worker thread; without it, Drain() writes what is queued.
  void Start() EXCLUDES(mu_);
  // Stops the worker after the queue is written.
  void Stop() EXCLUDES(mu_);

  // Queues the share partition's archived records; cheap, never does I/O.
  void Enqueue(const SharePartitionKey& key, std::vector<DlqArchive> archives) EXCLUDES(mu_);

  // Writes everything queued on the calling thread (tests, and Stop).
  void Drain() EXCLUDES(mu_);

  // Writes one partition's archived records to the group's DLQ topic now: nothing (OK) when
  // the group has no DLQ; the refusal in Kafka's words when the topic may not be used.
  Status Write(const SharePartitionKey& key, const DlqArchive& archive);

  // Whether the group has a DLQ now (group_config's answer).
  bool EnabledFor(const std::string& group_id) const;

  // DLQ records appended so far (tests, metrics).
  int64_t records_written() const { return records_written_.load(); }

 private:
  struct Item {
    SharePartitionKey key;
    DlqArchive archive;
  };
  void Run() EXCLUDES(mu_);
  Status CheckTopic(const std::string& group_id, const std::string& topic, bool* exists) const;
  int64_t NowMs() const;

  Options options_;
  Mutex mu_;
  CondVar queued_;
  std::deque<Item> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool running_ GUARDED_BY(mu_) = false;
  std::thread worker_;
  std::atomic<int64_t> records_written_{0};
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_DLQ_WRITER_H_
