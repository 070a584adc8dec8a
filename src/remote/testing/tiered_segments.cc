// Tiered segments for tests; see tiered_segments.h.
#include "remote/testing/tiered_segments.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "seglog/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog::testing {
namespace {

constexpr int64_t kProducerId = 7000;

Result<std::vector<uint8_t>> TransactionalBatch(int first_record, const TieredLogSpec& spec,
                                                int32_t sequence) {
  BatchOptions o;
  o.producer_id = kProducerId;
  o.producer_epoch = 0;
  o.base_sequence = sequence;
  o.is_transactional = true;
  RecordBatchBuilder b(o);
  const std::string value(static_cast<size_t>(spec.value_size), 't');
  for (int i = 0; i < spec.records_per_batch; ++i) {
    const int64_t ts = kTieredT0 + first_record + i;
    SEGLOG_RETURN_IF_ERROR(b.Append(
        ts, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size())));
  }
  return b.Build();
}

Result<std::vector<uint8_t>> AbortMarker(int64_t timestamp) {
  BatchOptions o;
  o.producer_id = kProducerId;
  o.producer_epoch = 0;
  o.is_transactional = true;
  o.is_control = true;
  RecordBatchBuilder b(o);
  SEGLOG_RETURN_IF_ERROR(b.AppendEndTxnMarker(ControlRecordType::kAbort, 0, timestamp));
  return b.Build();
}

}  // namespace

Result<std::vector<TieredSegment>> WriteTieredLog(const std::string& dir,
                                                  const TieredLogSpec& spec) {
  LogConfig config;
  config.internal_segment_bytes = spec.segment_bytes;
  config.index_interval_bytes = spec.index_interval_bytes;
  LogOptions options;
  const int64_t last_ts = kTieredT0 + int64_t{spec.batches} * spec.records_per_batch;
  options.clock = [last_ts] { return last_ts; };
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<Log> log, Log::Open(dir, config, options));
  int32_t sequence = 0;
  for (int i = 0; i < spec.batches; ++i) {
    const int first = i * spec.records_per_batch;
    if (spec.abort_every > 0 && i % spec.abort_every == spec.abort_every - 1) {
      SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch,
                              TransactionalBatch(first, spec, sequence));
      sequence += spec.records_per_batch;
      SEGLOG_RETURN_IF_ERROR(log->AppendAsLeader(batch).status());
      SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> marker,
                              AbortMarker(kTieredT0 + first + spec.records_per_batch - 1));
      SEGLOG_RETURN_IF_ERROR(log->AppendAsLeader(marker, 0, AppendOrigin::kCoordinator).status());
    } else {
      SEGLOG_RETURN_IF_ERROR(log->AppendAsLeader(ProducerBatch(first, spec.records_per_batch,
                                                               spec.value_size, kTieredT0))
                                 .status());
    }
  }
  SEGLOG_RETURN_IF_ERROR(log->Roll());
  SEGLOG_ASSIGN_OR_RETURN(const std::vector<RemoteCopyCandidate> candidates,
                          log->RemoteCopyCandidates(0));
  const std::vector<uint8_t> epochs = ReadFileBytes(dir + "/leader-epoch-checkpoint");
  const Uuid topic_id = Uuid::Random();
  std::vector<TieredSegment> out;
  for (const RemoteCopyCandidate& c : candidates) {
    TieredSegment s;
    s.local = c;
    s.data.log_segment = c.log_path;
    s.data.offset_index = c.offset_index_path;
    s.data.time_index = c.time_index_path;
    if (!c.txn_index_path.empty()) s.data.transaction_index = c.txn_index_path;
    s.data.producer_snapshot = c.producer_snapshot_path;
    if (s.data.producer_snapshot.empty()) {
      s.data.producer_snapshot = fmt::format("{}/{:020d}.snapshot.standin", dir, c.end_offset + 1);
      std::ofstream(s.data.producer_snapshot) << "snapshot";
    }
    s.data.leader_epoch_index = epochs;
    RemoteLogSegmentMetadata& m = s.metadata;
    m.segment_id.partition.topic_id = topic_id;
    m.segment_id.partition.tp = TopicPartition{"orders", 0};
    m.segment_id.id = Uuid::Random();
    m.start_offset = c.base_offset;
    m.end_offset = c.end_offset;
    m.max_timestamp_ms = c.max_timestamp;
    m.segment_leader_epochs = {{0, c.base_offset}};
    m.segment_size_in_bytes = static_cast<int32_t>(c.size_bytes);
    m.txn_index_empty = c.txn_index_path.empty();
    out.push_back(std::move(s));
  }
  SEGLOG_RETURN_IF_ERROR(log->Close());
  return out;
}

Status CopyAll(RemoteStorageManager* rsm, std::vector<TieredSegment>* segments) {
  for (TieredSegment& s : *segments) {
    SEGLOG_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> custom,
                            rsm->CopyLogSegmentData(s.metadata, s.data));
    s.metadata.custom_metadata = std::move(custom);
    s.metadata.state = RemoteLogSegmentState::kCopySegmentFinished;
  }
  return Status::OK();
}

}  // namespace seglog::testing
