// RemoteLogMetadataManager (remote_log_metadata_manager.h): the events of __remote_log_metadata,
// their replay (Kafka's RemoteLogMetadataCache and RemoteLogLeaderEpochState rules) and their
// durable writes.
#include "remote/remote_log_metadata_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>
#include <variant>

#include "coordinator/coordinator_log.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

using protocol::RemoteLogMetadataRecord;
using protocol::RemoteLogSegmentMetadataRecord;
using protocol::RemoteLogSegmentMetadataUpdateRecord;
using protocol::RemotePartitionDeleteMetadataRecord;

constexpr std::string_view kTopic = protocol::kRemoteLogMetadataTopic;
// How much one Read of the load asks for (Kafka's consumer fetches in similar sizes).

std::string PartitionName(const TopicIdPartition& p) {
  return fmt::format("{}:{}-{}", p.topic_id.ToString(), p.tp.topic, p.tp.partition);
}

std::string SegmentName(const RemoteLogSegmentId& id) {
  return fmt::format("RemoteLogSegmentId{{topicIdPartition={}, id={}}}",
                     PartitionName(id.partition), id.id.ToString());
}

bool IsUnfinished(RemoteLogSegmentState s) {
  return s == RemoteLogSegmentState::kCopySegmentStarted ||
         s == RemoteLogSegmentState::kDeleteSegmentStarted;
}

// The last offset of `epoch` in `segment`: the next epoch's start - 1, else the segment's end
// (Kafka's RemoteLogMetadataCache.highestOffsetForEpoch of a segment).
int64_t EpochEndOffset(const RemoteLogSegmentMetadata& segment, int32_t epoch) {
  auto next = segment.segment_leader_epochs.upper_bound(epoch);
  return next != segment.segment_leader_epochs.end() ? next->second - 1 : segment.end_offset;
}

// The generated records' TopicIdPartitionEntry and RemoteLogSegmentIdEntry, whichever record.
template <typename Entry>
Entry ToEntry(const TopicIdPartition& p) {
  Entry e;
  e.name = p.tp.topic;
  e.id = p.topic_id;
  e.partition = p.tp.partition;
  return e;
}
template <typename Entry>
TopicIdPartition FromEntry(const Entry& e) {
  return TopicIdPartition{e.id, TopicPartition{e.name, e.partition}};
}
template <typename Record>
typename Record::RemoteLogSegmentIdEntry ToSegmentIdEntry(const RemoteLogSegmentId& id) {
  typename Record::RemoteLogSegmentIdEntry e;
  e.topic_id_partition = ToEntry<typename Record::TopicIdPartitionEntry>(id.partition);
  e.id = id.id;
  return e;
}
template <typename Entry>
RemoteLogSegmentId FromSegmentIdEntry(const Entry& e) {
  return RemoteLogSegmentId{FromEntry(e.topic_id_partition), e.id};
}

RemoteLogSegmentMetadataRecord ToRecord(const RemoteLogSegmentMetadata& m) {
  RemoteLogSegmentMetadataRecord r;
  r.remote_log_segment_id = ToSegmentIdEntry<RemoteLogSegmentMetadataRecord>(m.segment_id);
  r.start_offset = m.start_offset;
  r.end_offset = m.end_offset;
  r.broker_id = m.broker_id;
  r.max_timestamp_ms = m.max_timestamp_ms;
  r.event_timestamp_ms = m.event_timestamp_ms;
  for (const auto& [epoch, offset] : m.segment_leader_epochs) {
    RemoteLogSegmentMetadataRecord::SegmentLeaderEpochEntry e;
    e.leader_epoch = epoch;
    e.offset = offset;
    r.segment_leader_epochs.push_back(std::move(e));
  }
  r.segment_size_in_bytes = m.segment_size_in_bytes;
  r.custom_metadata = m.custom_metadata;
  r.remote_log_segment_state = static_cast<int8_t>(m.state);
  r.txn_index_empty = m.txn_index_empty;
  return r;
}

// Kafka's RemoteLogSegmentMetadataTransform.fromApiMessageAndVersion. The state id is one
// Kafka knows: DecodeRemoteLogMetadata refuses the others.
RemoteLogSegmentMetadata FromRecord(const RemoteLogSegmentMetadataRecord& r) {
  RemoteLogSegmentMetadata m;
  m.segment_id = FromSegmentIdEntry(r.remote_log_segment_id);
  m.start_offset = r.start_offset;
  m.end_offset = r.end_offset;
  m.max_timestamp_ms = r.max_timestamp_ms;
  m.broker_id = r.broker_id;
  m.event_timestamp_ms = r.event_timestamp_ms;
  for (const auto& e : r.segment_leader_epochs) m.segment_leader_epochs[e.leader_epoch] = e.offset;
  m.segment_size_in_bytes = r.segment_size_in_bytes;
  m.custom_metadata = r.custom_metadata;
  m.state = static_cast<RemoteLogSegmentState>(r.remote_log_segment_state);
  m.txn_index_empty = r.txn_index_empty;
  return m;
}

RemoteLogSegmentMetadataUpdateRecord ToRecord(const RemoteLogSegmentMetadataUpdate& u) {
  RemoteLogSegmentMetadataUpdateRecord r;
  r.remote_log_segment_id = ToSegmentIdEntry<RemoteLogSegmentMetadataUpdateRecord>(u.segment_id);
  r.broker_id = u.broker_id;
  r.event_timestamp_ms = u.event_timestamp_ms;
  r.custom_metadata = u.custom_metadata;
  r.remote_log_segment_state = static_cast<int8_t>(u.state);
  return r;
}

RemoteLogSegmentMetadataUpdate FromRecord(const RemoteLogSegmentMetadataUpdateRecord& r) {
  RemoteLogSegmentMetadataUpdate u;
  u.segment_id = FromSegmentIdEntry(r.remote_log_segment_id);
  u.broker_id = r.broker_id;
  u.event_timestamp_ms = r.event_timestamp_ms;
  u.custom_metadata = r.custom_metadata;
  u.state = static_cast<RemoteLogSegmentState>(r.remote_log_segment_state);
  return u;
}

RemotePartitionDeleteMetadataRecord ToRecord(const RemotePartitionDeleteMetadata& d) {
  RemotePartitionDeleteMetadataRecord r;
  r.topic_id_partition =
      ToEntry<RemotePartitionDeleteMetadataRecord::TopicIdPartitionEntry>(d.partition);
  r.broker_id = d.broker_id;
  r.event_timestamp_ms = d.event_timestamp_ms;
  r.remote_partition_delete_state = static_cast<int8_t>(d.state);
  return r;
}

RemotePartitionDeleteMetadata FromRecord(const RemotePartitionDeleteMetadataRecord& r) {
  RemotePartitionDeleteMetadata d;
  d.partition = FromEntry(r.topic_id_partition);
  d.broker_id = r.broker_id;
  d.event_timestamp_ms = r.event_timestamp_ms;
  d.state = static_cast<RemotePartitionDeleteState>(r.remote_partition_delete_state);
  return d;
}

}  // namespace

std::string_view RemotePartitionDeleteStateName(RemotePartitionDeleteState state) {
  switch (state) {
    case RemotePartitionDeleteState::kDeletePartitionMarked:
      return "DELETE_PARTITION_MARKED";
    case RemotePartitionDeleteState::kDeletePartitionStarted:
      return "DELETE_PARTITION_STARTED";
    case RemotePartitionDeleteState::kDeletePartitionFinished:
      return "DELETE_PARTITION_FINISHED";
  }
  return "UNKNOWN";
}

bool RemoteLogMetadataManager::PartitionLess::operator()(const TopicIdPartition& a,
                                                         const TopicIdPartition& b) const {
  return std::tie(a.topic_id.bytes, a.tp.partition, a.tp.topic) <
         std::tie(b.topic_id.bytes, b.tp.partition, b.tp.topic);
}

// ---- State: the rules of every event ----

const RemoteLogMetadataManager::PartitionState* RemoteLogMetadataManager::State::Find(
    const TopicIdPartition& partition) const {
  auto it = partitions.find(partition);
  return it == partitions.end() ? nullptr : &it->second;
}

Status RemoteLogMetadataManager::State::CheckAdd(const RemoteLogSegmentMetadata& m) const {
  // Kafka's addRemoteLogSegmentMetadata and addCopyInProgressSegment.
  if (m.state != RemoteLogSegmentState::kCopySegmentStarted) {
    return Status::InvalidArgument(
        fmt::format("Given remoteLogSegmentMetadata should have state as COPY_SEGMENT_STARTED but "
                    "it contains state as: {} ({})",
                    RemoteLogSegmentStateName(m.state), SegmentName(m.segment_id)));
  }
  // Kafka's RemoteLogSegmentMetadata constructor.
  if (m.segment_leader_epochs.empty()) {
    return Status::InvalidArgument(fmt::format("segmentLeaderEpochs can not be null or empty ({})",
                                               SegmentName(m.segment_id)));
  }
  if (m.end_offset < m.start_offset) {
    return Status::InvalidArgument(fmt::format("{}: end offset {} is below start offset {}",
                                               SegmentName(m.segment_id), m.end_offset,
                                               m.start_offset));
  }
  if (const PartitionState* p = Find(m.segment_id.partition)) {
    auto it = p->segments.find(m.segment_id.id);
    if (it != p->segments.end() && !IsValidTransition(it->second.state, m.state)) {
      return Status::FailedPrecondition(
          fmt::format("Current state: {} can not be transitioned to target state: {}, "
                      "segmentId: {}",
                      RemoteLogSegmentStateName(it->second.state),
                      RemoteLogSegmentStateName(m.state), SegmentName(m.segment_id)));
    }
  }
  return Status::OK();
}

Status RemoteLogMetadataManager::State::CheckUpdate(const RemoteLogSegmentMetadataUpdate& u) const {
  if (u.state == RemoteLogSegmentState::kCopySegmentStarted) {
    return Status::InvalidArgument(fmt::format(
        "Given remoteLogSegmentMetadata should not have the state as: COPY_SEGMENT_STARTED ({})",
        SegmentName(u.segment_id)));
  }
  const PartitionState* p = Find(u.segment_id.partition);
  const RemoteLogSegmentMetadata* current = nullptr;
  if (p != nullptr) {
    if (auto it = p->segments.find(u.segment_id.id); it != p->segments.end()) {
      current = &it->second;
    }
  }
  if (current == nullptr) {
    return Status::NotFound(
        fmt::format("No remote log segment metadata found for :{}", SegmentName(u.segment_id)));
  }
  if (!IsValidTransition(current->state, u.state)) {
    return Status::FailedPrecondition(
        fmt::format("Current state: {} can not be transitioned to target state: {}, segmentId: {}",
                    RemoteLogSegmentStateName(current->state), RemoteLogSegmentStateName(u.state),
                    SegmentName(u.segment_id)));
  }
  return Status::OK();
}

void RemoteLogMetadataManager::State::Add(const RemoteLogSegmentMetadata& m) {
  PartitionState& p = partitions[m.segment_id.partition];
  const Uuid& id = m.segment_id.id;
  if (auto old = p.segments.find(id); old != p.segments.end()) {
    // A retried add (COPY_SEGMENT_STARTED again): forget where the old one was listed.
    for (const auto& [epoch, start] : old->second.segment_leader_epochs) {
      p.epochs[epoch].unreferenced.erase(id);
    }
  }
  // Not readable until COPY_SEGMENT_FINISHED: listed, but mapped to no offset.
  for (const auto& [epoch, start] : m.segment_leader_epochs)
    p.epochs[epoch].unreferenced.insert(id);
  p.segments[id] = m;
  p.unfinished_at_open.erase(id);
}

void RemoteLogMetadataManager::State::Update(const RemoteLogSegmentMetadataUpdate& u) {
  PartitionState& p = partitions[u.segment_id.partition];
  const Uuid& id = u.segment_id.id;
  auto it = p.segments.find(id);
  // Kafka's createWithUpdates.
  RemoteLogSegmentMetadata m = it->second;
  m.broker_id = u.broker_id;
  m.event_timestamp_ms = u.event_timestamp_ms;
  m.custom_metadata = u.custom_metadata;
  m.state = u.state;
  for (const auto& [epoch, start] : m.segment_leader_epochs) {
    EpochState& e = p.epochs[epoch];
    switch (u.state) {
      case RemoteLogSegmentState::kCopySegmentFinished: {
        const int64_t epoch_end = EpochEndOffset(m, epoch);
        // A new leader may copy again offsets an earlier copy holds (it lagged in tiering):
        // the earlier segments starting at or after this one's start become unreferenced,
        // while the epoch's highest offset does not pass this one's end (Kafka's
        // handleSegmentWithCopySegmentFinishedState).
        while (!e.offset_to_id.empty()) {
          auto last = std::prev(e.offset_to_id.end());
          if (last->first < start || !e.highest_log_offset || *e.highest_log_offset > epoch_end) {
            break;
          }
          if (last->second != id) e.unreferenced.insert(last->second);
          e.offset_to_id.erase(last);
        }
        // One entry per start offset: one it replaces stays listed, for its deletion.
        auto [slot, inserted] = e.offset_to_id.try_emplace(start, id);
        if (!inserted && slot->second != id) {
          e.unreferenced.insert(slot->second);
          slot->second = id;
        }
        e.unreferenced.erase(id);
        if (!e.highest_log_offset || epoch_end > *e.highest_log_offset) {
          e.highest_log_offset = epoch_end;
        }
        break;
      }
      case RemoteLogSegmentState::kDeleteSegmentStarted:
        // No longer readable; still listed, so that a deletion can be retried.
        if (auto o = e.offset_to_id.find(start); o != e.offset_to_id.end() && o->second == id) {
          e.offset_to_id.erase(o);
        }
        e.unreferenced.insert(id);
        break;
      case RemoteLogSegmentState::kDeleteSegmentFinished:
        if (auto o = e.offset_to_id.find(start); o != e.offset_to_id.end() && o->second == id) {
          e.offset_to_id.erase(o);
        }
        e.unreferenced.erase(id);
        break;
      case RemoteLogSegmentState::kCopySegmentStarted:
        break;  // refused by CheckUpdate
    }
  }
  if (u.state == RemoteLogSegmentState::kDeleteSegmentFinished) {
    // The terminal state: the segment is forgotten.
    p.segments.erase(it);
    p.unfinished_at_open.erase(id);
  } else {
    it->second = std::move(m);
  }
}

void RemoteLogMetadataManager::State::PutDelete(const RemotePartitionDeleteMetadata& d) {
  if (d.state == RemotePartitionDeleteState::kDeletePartitionFinished) {
    // Kafka's handleRemotePartitionDeleteMetadata: the partition's state goes with it.
    partitions.erase(d.partition);
    return;
  }
  partitions[d.partition].delete_metadata = d;
}

// ---- Open and the replay ----

RemoteLogMetadataManager::RemoteLogMetadataManager(LogManager* logs, Options options)
    : logs_(logs), options_(std::move(options)) {}

RemoteLogMetadataManager::~RemoteLogMetadataManager() = default;

Result<std::unique_ptr<RemoteLogMetadataManager>> RemoteLogMetadataManager::Open(LogManager* logs,
                                                                                 Options options) {
  if (logs == nullptr) return Status::InvalidArgument("RemoteLogMetadataManager: no LogManager");
  if (options.num_partitions <= 0) {
    return Status::InvalidArgument(
        fmt::format("Invalid value {} for configuration remote.log.metadata.topic.num.partitions: "
                    "Value must be at least 1",
                    options.num_partitions));
  }
  std::unique_ptr<RemoteLogMetadataManager> m(
      new RemoteLogMetadataManager(logs, std::move(options)));
  Result<TopicMetadata> md = logs->FindTopic(std::string(kTopic));
  if (!md.ok()) {
    if (!md.status().IsNotFound()) return md.status();
    return m;  // created by the first write
  }
  if (md->partitions != m->options_.num_partitions) {
    return Status::FailedPrecondition(
        fmt::format("Existing topic partition count [{}] is not same as the expected partition "
                    "count [{}] ({}, remote.log.metadata.topic.num.partitions)",
                    md->partitions, m->options_.num_partitions, kTopic));
  }
  State state;
  std::vector<std::shared_ptr<Log>> partition_logs;
  for (int32_t p = 0; p < md->partitions; ++p) {
    Result<std::shared_ptr<Log>> log = logs->GetLog({std::string(kTopic), p});
    if (!log.ok()) return log.status().WithContext(fmt::format("loading {}-{}", kTopic, p));
    SEGLOG_RETURN_IF_ERROR(m->LoadPartition(p, *log, &state));
    partition_logs.push_back(std::move(log).value());
  }
  for (auto& [partition, ps] : state.partitions) {
    for (const auto& [id, segment] : ps.segments) {
      if (IsUnfinished(segment.state)) ps.unfinished_at_open.insert(id);
    }
  }
  {
    MutexLock w(&m->write_mu_);
    m->logs_by_partition_ = std::move(partition_logs);
    WriterMutexLock l(&m->state_mu_);
    m->state_ = std::move(state);
  }
  if (m->skipped_records() > 0) {
    m->LogLine(LogLevel::kInfo, fmt::format("Loaded {} with {} records skipped of {}", kTopic,
                                            m->skipped_records(), m->load_stats_.records));
  }
  return m;
}

Status RemoteLogMetadataManager::LoadPartition(int32_t p, const std::shared_ptr<Log>& log,
                                               State* state) {
  const std::string tp = fmt::format("{}-{}", kTopic, p);
  ReplayHandler h;
  h.record = [&](const RecordBatchView&, const Record& r) {
    if (!r.value) {
      ++load_stats_.undecodable;
      LogLine(LogLevel::kWarn,
              fmt::format("Skipping the record without a value at offset {} of {}", r.offset, tp));
      return;
    }
    // Kafka's consumer reads the value only; a key, if any, is ignored.
    Result<RemoteLogMetadataRecord> record = protocol::DecodeRemoteLogMetadata(*r.value);
    if (!record.ok()) {
      ++load_stats_.undecodable;
      LogLine(LogLevel::kWarn, fmt::format("Skipping the undecodable record at offset {} of {}: {}",
                                           r.offset, tp, record.status().ToString()));
      return;
    }
    Replay(*record, p, r.offset, state);
  };
  // Strict: a batch that cannot be read would forget tiered segments, so the load fails.
  Result<ReplayStats> loaded = ReplayCoordinatorLog(*log, tp, ReplayPolicy::kStrict, h);
  if (!loaded.ok()) return loaded.status().WithContext(fmt::format("loading {}", tp));
  load_stats_.records += loaded->records;
  return Status::OK();
}

void RemoteLogMetadataManager::Replay(const RemoteLogMetadataRecord& record, int32_t p,
                                      int64_t offset, State* state) {
  const auto skip = [&](int64_t* counter, const Status& why) {
    ++*counter;
    LogLine(LogLevel::kWarn, fmt::format("Dropping the event at offset {} of {}-{}: {}", offset,
                                         kTopic, p, why.ToString()));
  };
  // Kafka's RemotePartitionMetadataEventHandler.handleRemoteLogMetadata.
  if (const auto* add = std::get_if<RemoteLogSegmentMetadataRecord>(&record)) {
    RemoteLogSegmentMetadata m = FromRecord(*add);
    if (Status s = state->CheckAdd(m); !s.ok()) return skip(&load_stats_.invalid_events, s);
    state->Add(m);
  } else if (const auto* update = std::get_if<RemoteLogSegmentMetadataUpdateRecord>(&record)) {
    RemoteLogSegmentMetadataUpdate u = FromRecord(*update);
    if (Status s = state->CheckUpdate(u); !s.ok()) {
      // Unknown: its DELETE_SEGMENT_FINISHED came first, or its add was lost (Kafka drops it
      // while loading).
      return skip(
          s.IsNotFound() ? &load_stats_.unknown_segment_updates : &load_stats_.invalid_events, s);
    }
    state->Update(u);
  } else if (const auto* del = std::get_if<RemotePartitionDeleteMetadataRecord>(&record)) {
    state->PutDelete(FromRecord(*del));
  } else {
    skip(&load_stats_.invalid_events,
         Status::InvalidArgument("a RemoteLogSegmentMetadataSnapshotRecord is not a topic record"));
  }
}

// ---- Writes ----

Result<std::shared_ptr<Log>> RemoteLogMetadataManager::LogFor(int32_t p) {
  if (logs_by_partition_.empty()) {
    const std::string topic(kTopic);
    Result<TopicMetadata> md = logs_->FindTopic(topic);
    if (!md.ok()) {
      // Kafka's createRemoteLogMetadataTopicRequest, but for min.insync.replicas: one node
      // holds the only replica.
      Status created = logs_->CreateTopic(topic, options_.num_partitions,
                                          {{"cleanup.policy", "delete"},
                                           {"retention.ms", std::to_string(options_.retention_ms)},
                                           {"remote.storage.enable", "false"}});
      if (!created.ok() && created.code() != Status::Code::kAlreadyExists) {
        return created.WithContext(fmt::format("creating {}", kTopic));
      }
      if (created.ok()) {
        LogLine(LogLevel::kInfo, fmt::format("Created the internal topic {} with {} partitions",
                                             kTopic, options_.num_partitions));
      }
      md = logs_->FindTopic(topic);
      if (!md.ok()) return md.status();
    }
    if (md->partitions != options_.num_partitions) {
      return Status::FailedPrecondition(
          fmt::format("Existing topic partition count [{}] is not same as the expected partition "
                      "count [{}] ({})",
                      md->partitions, options_.num_partitions, kTopic));
    }
    std::vector<std::shared_ptr<Log>> logs;
    for (int32_t i = 0; i < md->partitions; ++i) {
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<Log> log, logs_->GetLog({topic, i}));
      logs.push_back(std::move(log));
    }
    logs_by_partition_ = std::move(logs);
  }
  return logs_by_partition_[static_cast<size_t>(p)];
}

Status RemoteLogMetadataManager::Write(const TopicIdPartition& partition,
                                       const RemoteLogMetadataRecord& record,
                                       int64_t timestamp_ms) {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> value, protocol::EncodeRemoteLogMetadata(record));
  const int32_t p = MetadataPartitionFor(partition);
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<Log> log, LogFor(p));
  RecordBatchBuilder builder{BatchOptions{}};
  // Null key (Kafka's ProducerManager.publishMessage); the record's time is the event's.
  SEGLOG_RETURN_IF_ERROR(builder.Append(timestamp_ms, std::nullopt, Bytes(value)));
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch, builder.Build());
  const std::string where =
      fmt::format("writing the event of {} to {}-{}", PartitionName(partition), kTopic, p);
  Result<LogAppendInfo> info = log->AppendAsLeader(batch, 0, AppendOrigin::kClient);
  if (!info.ok()) return info.status().WithContext(where);
  // Invariant: acknowledged = durable. Kafka's producer has acks=all and a replicated topic;
  // one node has only its fsync.
  Status flushed = log->Flush(info->last_offset + 1);
  if (!flushed.ok()) return flushed.WithContext(where);
  return Status::OK();
}

Status RemoteLogMetadataManager::AddRemoteLogSegmentMetadata(const RemoteLogSegmentMetadata& m) {
  MutexLock w(&write_mu_);
  {
    ReaderMutexLock l(&state_mu_);
    SEGLOG_RETURN_IF_ERROR(state_.CheckAdd(m));
  }
  SEGLOG_RETURN_IF_ERROR(Write(m.segment_id.partition, ToRecord(m), m.event_timestamp_ms));
  WriterMutexLock l(&state_mu_);
  state_.Add(m);
  return Status::OK();
}

Status RemoteLogMetadataManager::UpdateRemoteLogSegmentMetadata(
    const RemoteLogSegmentMetadataUpdate& u) {
  MutexLock w(&write_mu_);
  {
    ReaderMutexLock l(&state_mu_);
    SEGLOG_RETURN_IF_ERROR(state_.CheckUpdate(u));
  }
  SEGLOG_RETURN_IF_ERROR(Write(u.segment_id.partition, ToRecord(u), u.event_timestamp_ms));
  WriterMutexLock l(&state_mu_);
  state_.Update(u);
  return Status::OK();
}

Status RemoteLogMetadataManager::UpdateRemoteLogSegmentMetadata(
    const RemoteLogSegmentMetadata& updated) {
  RemoteLogSegmentMetadataUpdate u;
  u.segment_id = updated.segment_id;
  u.event_timestamp_ms = updated.event_timestamp_ms;
  u.custom_metadata = updated.custom_metadata;
  u.state = updated.state;
  u.broker_id = updated.broker_id;
  return UpdateRemoteLogSegmentMetadata(u);
}

Status RemoteLogMetadataManager::PutRemotePartitionDeleteMetadata(
    const RemotePartitionDeleteMetadata& d) {
  MutexLock w(&write_mu_);
  SEGLOG_RETURN_IF_ERROR(Write(d.partition, ToRecord(d), d.event_timestamp_ms));
  WriterMutexLock l(&state_mu_);
  state_.PutDelete(d);
  return Status::OK();
}

Status RemoteLogMetadataManager::PutRemotePartitionDeleteMetadata(const TopicIdPartition& partition,
                                                                  RemotePartitionDeleteState state,
                                                                  int64_t event_timestamp_ms,
                                                                  int32_t broker_id) {
  return PutRemotePartitionDeleteMetadata(
      RemotePartitionDeleteMetadata{partition, state, event_timestamp_ms, broker_id});
}

// ---- Queries ----

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::SortedSegments(
    std::vector<RemoteLogSegmentMetadata> segments) {
  std::sort(segments.begin(), segments.end(),
            [](const RemoteLogSegmentMetadata& a, const RemoteLogSegmentMetadata& b) {
              return std::tie(a.start_offset, a.segment_id.id.bytes) <
                     std::tie(b.start_offset, b.segment_id.id.bytes);
            });
  return segments;
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::ListRemoteLogSegments(
    const TopicIdPartition& partition) const {
  std::vector<RemoteLogSegmentMetadata> out;
  {
    ReaderMutexLock l(&state_mu_);
    const PartitionState* p = state_.Find(partition);
    if (p == nullptr) return out;
    out.reserve(p->segments.size());
    for (const auto& [id, segment] : p->segments) out.push_back(segment);
  }
  return SortedSegments(std::move(out));
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::ListRemoteLogSegments(
    const TopicIdPartition& partition, int32_t leader_epoch) const {
  std::vector<RemoteLogSegmentMetadata> out;
  {
    ReaderMutexLock l(&state_mu_);
    const PartitionState* p = state_.Find(partition);
    if (p == nullptr) return out;
    auto e = p->epochs.find(leader_epoch);
    if (e == p->epochs.end()) return out;
    const auto add = [&](const Uuid& id) {
      if (auto s = p->segments.find(id); s != p->segments.end()) out.push_back(s->second);
    };
    for (const auto& [start, id] : e->second.offset_to_id) add(id);
    for (const Uuid& id : e->second.unreferenced) add(id);
  }
  return SortedSegments(std::move(out));
}

std::optional<RemoteLogSegmentMetadata> RemoteLogMetadataManager::RemoteLogSegmentMetadataFor(
    const TopicIdPartition& partition, int32_t leader_epoch, int64_t offset) const {
  ReaderMutexLock l(&state_mu_);
  const PartitionState* p = state_.Find(partition);
  if (p == nullptr) return std::nullopt;
  auto e = p->epochs.find(leader_epoch);
  if (e == p->epochs.end()) return std::nullopt;
  // The floor entry: the segment whose epoch start offset is the greatest at or below offset.
  auto floor = e->second.offset_to_id.upper_bound(offset);
  if (floor == e->second.offset_to_id.begin()) return std::nullopt;
  --floor;
  auto s = p->segments.find(floor->second);
  if (s == p->segments.end()) return std::nullopt;
  if (offset > EpochEndOffset(s->second, leader_epoch)) return std::nullopt;
  return s->second;
}

std::optional<int64_t> RemoteLogMetadataManager::HighestOffsetForEpoch(
    const TopicIdPartition& partition, int32_t leader_epoch) const {
  ReaderMutexLock l(&state_mu_);
  const PartitionState* p = state_.Find(partition);
  if (p == nullptr) return std::nullopt;
  auto e = p->epochs.find(leader_epoch);
  if (e == p->epochs.end()) return std::nullopt;
  return e->second.highest_log_offset;
}

std::vector<TopicIdPartition> RemoteLogMetadataManager::Partitions() const {
  ReaderMutexLock l(&state_mu_);
  std::vector<TopicIdPartition> out;
  out.reserve(state_.partitions.size());
  for (const auto& [partition, p] : state_.partitions) out.push_back(partition);
  return out;
}

std::vector<RemotePartitionDeleteMetadata> RemoteLogMetadataManager::PartitionsWithDeleteState()
    const {
  ReaderMutexLock l(&state_mu_);
  std::vector<RemotePartitionDeleteMetadata> out;
  for (const auto& [partition, p] : state_.partitions) {
    if (p.delete_metadata) out.push_back(*p.delete_metadata);
  }
  return out;
}

std::optional<RemotePartitionDeleteMetadata> RemoteLogMetadataManager::PartitionDeleteMetadata(
    const TopicIdPartition& partition) const {
  ReaderMutexLock l(&state_mu_);
  const PartitionState* p = state_.Find(partition);
  if (p == nullptr) return std::nullopt;
  return p->delete_metadata;
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::OrphanedSegments() const {
  std::vector<RemoteLogSegmentMetadata> out;
  for (const TopicIdPartition& partition : Partitions()) {
    std::vector<RemoteLogSegmentMetadata> orphans = OrphanedSegments(partition);
    std::move(orphans.begin(), orphans.end(), std::back_inserter(out));
  }
  return out;
}

std::vector<RemoteLogSegmentMetadata> RemoteLogMetadataManager::OrphanedSegments(
    const TopicIdPartition& partition) const {
  std::vector<RemoteLogSegmentMetadata> out;
  {
    ReaderMutexLock l(&state_mu_);
    const PartitionState* p = state_.Find(partition);
    if (p == nullptr) return out;
    for (const Uuid& id : p->unfinished_at_open) {
      auto s = p->segments.find(id);
      if (s != p->segments.end() && IsUnfinished(s->second.state)) out.push_back(s->second);
    }
  }
  return SortedSegments(std::move(out));
}

int32_t RemoteLogMetadataManager::MetadataPartitionFor(const TopicIdPartition& partition) const {
  return protocol::RemoteLogMetadataPartitionFor(partition.topic_id, partition.tp.partition,
                                                 options_.num_partitions);
}

int64_t RemoteLogMetadataManager::skipped_records() const {
  return load_stats_.undecodable + load_stats_.unknown_segment_updates + load_stats_.invalid_events;
}

void RemoteLogMetadataManager::LogLine(LogLevel level, const std::string& line) const {
  options_.logger.Log(level, "[TopicBasedRemoteLogMetadataManager] " + line);
}

}  // namespace seglog
