// LogConfig: a topic's log settings, with Kafka's names, defaults and validation (Kafka's
// LogConfig.java; docs/design/log_manager.md, "Settings: Kafka's names, defaults and
// synonyms"). One field per property; the table in log_config.cc maps
// `segment.bytes=1048576`-style names onto the fields.
//
// Thread safety: a plain value; externally synchronised.
#ifndef SEGLOG_LOG_CONFIG_H_
#define SEGLOG_LOG_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

struct LogConfig {
  // segment.bytes: roll when the next append would pass this size. Default 1 GiB, min 1 MiB.
  int32_t segment_bytes = 1073741824;
  // internal.segment.bytes: test-only override of segment.bytes with no minimum (as Kafka's).
  std::optional<int32_t> internal_segment_bytes;
  // segment.ms: roll when the segment's records span this long. Default 7 days.
  int64_t segment_ms = 604800000;
  // segment.jitter.ms: random reduction of segment.ms per segment. Default 0.
  int64_t segment_jitter_ms = 0;
  // segment.index.bytes: preallocated size of each index file. Default 10 MiB, min 4.
  int32_t segment_index_bytes = 10485760;
  // index.interval.bytes: bytes between offset index entries. Default 4096.
  int32_t index_interval_bytes = 4096;
  // max.message.bytes: largest batch accepted on append. Default 1048588.
  int32_t max_message_bytes = 1048588;
  // message.timestamp.type: CreateTime (default) or LogAppendTime.
  TimestampType message_timestamp_type = TimestampType::kCreateTime;
  // message.timestamp.before.max.ms / after.max.ms: accepted CreateTime window around now.
  int64_t message_timestamp_before_max_ms = INT64_MAX;
  int64_t message_timestamp_after_max_ms = 3600000;
  // cleanup.policy: "delete" (default), "compact", or "compact,delete".
  bool cleanup_delete = true;
  bool cleanup_compact = false;
  // max.compaction.lag.ms: caps segment.ms on compacted topics. Default Long.MAX_VALUE.
  int64_t max_compaction_lag_ms = INT64_MAX;
  // compression.type: "producer" (keep the producer's codec) or a codec name.
  std::optional<CompressionType> compression;  // nullopt = producer
  // flush.messages: fsync the log once this many messages are unflushed. Default
  // Long.MAX_VALUE (leave it to the OS and replication, as Kafka does). Min 1.
  int64_t flush_messages = INT64_MAX;
  // flush.ms: fsync the log when it was last flushed this long ago (checked by the flusher
  // task). Default Long.MAX_VALUE. Min 0.
  int64_t flush_ms = INT64_MAX;
  // retention.ms: delete a segment once its largest record timestamp is this old. Default
  // 7 days; -1 = unlimited. Min -1.
  int64_t retention_ms = 604800000;
  // retention.bytes: cap on a partition's size, enforced a whole segment at a time. Default -1
  // (unlimited; any negative value is).
  int64_t retention_bytes = -1;
  // file.delete.delay.ms: how long .deleted files (and -delete directories) wait before they
  // are removed. Default 60000. Min 0.
  int64_t file_delete_delay_ms = 60000;
  // delete.retention.ms: how long tombstones survive after cleaning. Default 1 day. Min 0.
  int64_t delete_retention_ms = 86400000;
  // min.compaction.lag.ms: records younger than this are not compacted. Default 0. Min 0.
  int64_t min_compaction_lag_ms = 0;
  // min.cleanable.dirty.ratio: dirty share of a log that makes it cleanable. Default 0.5, in
  // [0, 1].
  double min_cleanable_dirty_ratio = 0.5;
  // preallocate: create .log files at full segment size. Default false.
  bool preallocate = false;

  // Tiered storage (KIP-405; docs/design/tiered_storage.md). They act only when the broker's
  // remote.log.storage.system.enable is true (LogOptions::remote_storage_system_enable).
  // remote.storage.enable: copy rolled segments to remote storage. Default false.
  bool remote_storage_enable = false;
  // local.retention.ms / local.retention.bytes: how long / how much of a tiered log stays on
  // local disk once copied. -2 (the default) = retention.ms / retention.bytes; -1 = unlimited.
  int64_t local_retention_ms = -2;
  int64_t local_retention_bytes = -2;
  // remote.log.copy.disable: stop copying (the remote data stays readable and expires).
  bool remote_log_copy_disable = false;
  // remote.log.delete.on.disable: remote.storage.enable=false may only be set with this true
  // (the remote data is then deleted).
  bool remote_log_delete_on_disable = false;
  // errors.deadletterqueue.group.enable (KIP-1191): share groups may write their dead-letter
  // records to this topic.
  bool errors_deadletterqueue_group_enable = false;
  // remote.copy.lag.ms / remote.copy.lag.bytes (KIP-1241): a rolled segment waits to be copied
  // until it is this old (by its largest timestamp) or this many bytes follow it, whichever
  // comes first. 0 = no wait (the .ms default); -1 (the .bytes default) = the effective
  // local.retention.* (so, by default, only the time rule acts).
  int64_t remote_copy_lag_ms = 0;
  int64_t remote_copy_lag_bytes = -1;

  // local.retention.ms, with -2 resolved to retention.ms (Kafka's localRetentionMs()).
  int64_t LocalRetentionMs() const {
    return local_retention_ms == -2 ? retention_ms : local_retention_ms;
  }
  int64_t LocalRetentionBytes() const {
    return local_retention_bytes == -2 ? retention_bytes : local_retention_bytes;
  }
  // Kafka's LogConfig.validateRemoteStorage* rules for a topic's new config, in Kafka's words
  // (InvalidArgument): remote storage only when the broker has it (`system_enabled`), only
  // with cleanup.policy=delete, local.retention.* within retention.*, and not turned off
  // (`was_enabled` -> false) without remote.log.delete.on.disable=true; with
  // remote.log.copy.disable=true local.retention.* must equal retention.* (or be -2), and
  // remote.copy.lag.* may not exceed the effective local.retention.*.
  Status ValidateRemoteStorage(bool system_enabled, bool was_enabled) const;

  // The size that rolls a segment: internal.segment.bytes when set, else segment.bytes.
  int32_t SegmentSize() const { return internal_segment_bytes.value_or(segment_bytes); }
  // segment.ms, capped by max.compaction.lag.ms on compacted topics (docs/design/log.md, "The
  // time limit: segment.ms").
  int64_t MaxSegmentMs() const;

  // Applies `name=value` (Kafka's topic property names). InvalidArgument in Kafka's words for a
  // bad value, and naming the key for an unknown one.
  Status Set(const std::string& name, const std::string& value);
  // Whether `name` is a topic config seglog knows (keeps and applies).
  static bool IsKnownName(const std::string& name);
  // Whether `name` is one of Kafka 4.4.0's topic configs, kept by seglog or not.
  static bool IsKafkaName(const std::string& name);
  // Builds a config from properties over the defaults, reporting every problem at once.
  static Result<LogConfig> FromProperties(const std::map<std::string, std::string>& props);
  // The properties that differ from the defaults, by Kafka name.
  std::map<std::string, std::string> Overrides() const;
};

}  // namespace seglog

#endif  // SEGLOG_LOG_CONFIG_H_
