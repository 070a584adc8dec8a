// Storage: a seglog storage node for a program that embeds seglog - the storage half of a Kafka
// broker (its LogManager, with topic create/delete/alter) behind one small interface. Open it
// on a set of log directories with a server config in Kafka's server.properties names; create,
// alter and delete topics; take a partition's Log (seglog/log.h) to append, read and look up
// offsets; let Kafka's background tasks run on a scheduler, or run them yourself; shut down.
//
//   seglog::StorageOptions options;
//   options.properties = {{"log.dirs", "/var/lib/events"}, {"log.retention.hours", "24"}};
//   auto storage = seglog::Storage::Open(options);           // Result<unique_ptr<Storage>>
//   if (!storage.ok()) return Fail(storage.status());
//   Status s = (*storage)->CreateTopic("events", 1, {{"segment.bytes", "1048576"}});
//   auto log = (*storage)->GetLog({"events", 0});             // Result<shared_ptr<Log>>
//   auto appended = (*log)->AppendAsLeader(batch_bytes);     // seglog/record_batch.h builds them
//   auto fetched = (*log)->Read(0, 1 << 20);                 // FetchDataInfo: a file slice
//   s = (*storage)->Shutdown();
//
// Names. Storage is the public name of what seglog calls, inside, its LogManager
// (src/manager/log_manager.h, Kafka's LogManager): that class is not installed and changes
// freely; Storage is the stable face over it, in the one namespace `seglog`. The other public
// types keep Kafka's names: TopicPartition, TopicDescription, LogConfig, Log, Scheduler.
//
// Errors are Status / Result<T> in Kafka's words: "Unknown configuration 'x'", "Invalid value
// 0 for configuration num.partitions: Value must be at least 1", "Topic 'x' already exists.",
// "UnknownTopicOrPartitionException: ..." (NotFound).
//
// Thread safety: thread-safe; every call may come from any thread. Topic operations are
// serialised among themselves (they write the topic store); GetLog and the logs' appends,
// reads and lookups do not wait for them. Shutdown waits for calls in progress.
//
// Lifetimes: the Storage owns the log directories (each locked while open: a second Storage,
// or a Kafka broker, on the same directory fails to open). A Log from GetLog is shared: it stays
// a valid object after its topic is deleted (then every call answers NotFound) and after
// Shutdown or the Storage's destruction (then FailedPrecondition, "log is closed"). A scheduler
// passed in StorageOptions must outlive the Storage.
#ifndef SEGLOG_STORAGE_H_
#define SEGLOG_STORAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seglog/log.h"
#include "seglog/log_config.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/scheduler.h"
#include "seglog/status.h"
#include "seglog/topic_description.h"
#include "seglog/topic_partition.h"

namespace seglog {

struct StorageOptions {
  // The broker config, in server.properties names: log.dirs (else log.dir; default
  // /tmp/kafka-logs), num.partitions, num.recovery.threads.per.data.dir, background.threads,
  // the log.* topic defaults and their synonyms (log.retention.hours / .minutes / .ms,
  // log.segment.bytes, log.roll.hours, log.cleanup.policy, ...), log.retention.check.interval.ms,
  // log.cleaner.*. Keys of other parts of a Kafka broker (listeners, process.roles ...) are
  // accepted and ignored; anything else is an error. ReadServerProperties reads a file.
  std::map<std::string, std::string> properties;
  // Runs the background tasks and supplies the clock. nullptr (default): the Storage owns a
  // thread scheduler with background.threads threads on the wall clock. Otherwise yours
  // (NewManualScheduler to move time yourself), dedicated to this Storage: it must outlive
  // it, and Shutdown - or a failed Open - shuts it down.
  Scheduler* scheduler = nullptr;
  // Whether Open schedules Kafka's periodic tasks (kafka-log-retention, kafka-log-flusher, the
  // two checkpoints, kafka-delete-logs, and log.cleaner.threads cleaner threads when
  // log.cleaner.enable), after log.initial.task.delay.ms. false: nothing periodic runs until
  // StartBackgroundTasks, and the embedder drives them with RunTask. Either way one-shot tasks
  // (a rolled segment's flush, a deleted segment's delayed removal) go to the scheduler.
  bool start_background_tasks = true;
  // Receives the node's INFO/WARN/ERROR lines in Kafka's words ("Rolled new log segment ...",
  // "Deleting segment ..."). Optional (seglog/logger.h: a lambda taking the line converts, and
  // gets "WARN ..." for a warning); called from any thread, sometimes under a log's lock: it
  // must not call back into seglog.
  Logger logger;
};

// Reads a server.properties file (java.util.Properties syntax) into name -> value.
Result<std::map<std::string, std::string>> ReadServerProperties(const std::string& path);

class Storage {
 public:
  // Validates the config (every problem at once), locks and opens every log directory
  // (creating it if needed), and loads all partitions - recovering them after an unclean
  // shutdown, num.recovery.threads.per.data.dir at a time per directory. Fails with
  // InvalidArgument on a bad config, FailedPrecondition when a directory is locked by another
  // process or Storage ("Failed to acquire lock on file .lock in <dir>"), or the loader's error.
  static Result<std::unique_ptr<Storage>> Open(const StorageOptions& options);
  // Shuts down if Shutdown was not called (its error is then lost).
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // The log directories, as configured.
  std::vector<std::string> log_dirs() const;

  // Creates `topic` with `partitions` partitions (-1: num.partitions) and topic-level config
  // overrides by Kafka name (segment.bytes, retention.ms, cleanup.policy ...). Kafka's rules
  // for names; AlreadyExists for an existing topic. New partitions go to the log directory
  // holding the fewest.
  Status CreateTopic(const std::string& topic, int32_t partitions = -1,
                     const std::map<std::string, std::string>& configs = {});
  // Raises the topic's partition count to `total_partitions` (never lowers it).
  Status AddPartitions(const std::string& topic, int32_t total_partitions);
  // Deletes the topic: its logs answer NotFound from now on, their directories are renamed
  // "-delete" and removed file.delete.delay.ms later (by the kafka-delete-logs task, or
  // RunTask("delete-files")).
  Status DeleteTopic(const std::string& topic);
  // Sets and removes topic config overrides (Kafka's incremental AlterConfigs). They persist
  // and apply to the open logs at once, from their next append, roll or retention pass.
  // Nothing changes if any is invalid.
  Status AlterTopicConfig(const std::string& topic, const std::map<std::string, std::string>& set,
                          const std::vector<std::string>& remove = {});
  std::vector<std::string> ListTopics() const;
  // NotFound for an unknown topic.
  Result<TopicDescription> DescribeTopic(const std::string& topic) const;

  // The partition's log, shared (see Lifetimes above). NotFound
  // (UnknownTopicOrPartitionException) when the partition does not exist.
  Result<std::shared_ptr<Log>> GetLog(const TopicPartition& partition) const;

  // Schedules Kafka's periodic tasks, when Open did not (start_background_tasks = false).
  // FailedPrecondition if they are already scheduled.
  Status StartBackgroundTasks();
  // Runs one background task now, on the calling thread:
  //   "retention"     Kafka's kafka-log-retention: retention.ms, retention.bytes and the log
  //                   start offset, for every log (Log::DeleteOldSegments)
  //   "flush"         kafka-log-flusher: logs whose flush.ms has passed
  //   "checkpoint"    the recovery-point and log-start-offset checkpoint files
  //   "delete-files"  removes deleted segments and partitions whose file.delete.delay.ms has
  //                   not yet passed, at once
  //   "cleaner"       one round of the log cleaner (compacted topics)
  //   "producer-expiration"  PeriodicProducerExpirationCheck: forgets idempotent producers
  //                   idle for producer.id.expiration.ms (Log::RemoveExpiredProducers)
  // InvalidArgument naming the choices for any other name.
  Status RunTask(const std::string& name);

  // Stops the background tasks (waiting for running ones), then closes every log directory
  // cleanly: flushed logs, trimmed indexes, checkpoints, and the clean-shutdown marker, so the
  // next Open skips recovery - and releases their locks, so that Open may come at once, even
  // while this object lives on. Afterwards every call fails with FailedPrecondition.
  // Idempotent.
  Status Shutdown();

 private:
  struct Impl;
  explicit Storage(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace seglog

#endif  // SEGLOG_STORAGE_H_
