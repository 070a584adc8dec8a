// CheckRemoteTier (`seglog check --remote`); see check.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "record/batch_walker.h"
#include "record/legacy_record_batch.h"
#include "remote/remote_indexes.h"
#include "remote/segment_objects.h"
#include "seglog/record_batch.h"
#include "tools/check.h"
#include "tools/node.h"
#include "tools/remote_tier.h"

namespace seglog {

namespace {

// How much of a remote .log one fetch asks for.
constexpr int64_t kFetchChunk = int64_t{1} << 20;

struct IndexObject {
  IndexType type;
  RemoteObjectKind kind;
  bool required;  // every copy has it (the others only when the segment had the file)
};
constexpr std::array<IndexObject, 5> kIndexObjects = {{
    {IndexType::kOffset, RemoteObjectKind::kOffsetIndex, true},
    {IndexType::kTimestamp, RemoteObjectKind::kTimeIndex, true},
    {IndexType::kTransaction, RemoteObjectKind::kTransactionIndex, false},
    {IndexType::kProducerSnapshot, RemoteObjectKind::kProducerSnapshot, false},
    {IndexType::kLeaderEpoch, RemoteObjectKind::kLeaderEpochCheckpoint, true},
}};

struct BatchAt {
  int64_t position;
  int64_t last_offset;
};

// The checks of one COPY_SEGMENT_FINISHED segment; each problem names the object (by its
// suffix: the store's own errors add its key) and the position or offset.
class SegmentChecker {
 public:
  SegmentChecker(TieredStorage* tiered, const RemoteLogSegmentMetadata& segment)
      : tiered_(tiered), s_(segment) {}

  void Run() {
    if (!s_.custom_metadata.has_value()) {
      Problem("custom metadata: none recorded, so no object's size and CRC-32C can be checked");
      return;
    }
    Result<SegmentObjects> objects = SegmentObjects::Decode(*s_.custom_metadata);
    if (!objects.ok()) {
      Problem("custom metadata: " + objects.status().ToString());
      return;
    }
    objects_ = std::move(objects).value();
    bool indexes_fetched = true;
    for (const IndexObject& index : kIndexObjects) indexes_fetched &= CheckIndexObject(index);
    CheckLog();
    // The offset, time and transaction indexes as the remote index cache opens them (their
    // entries in the segment's offsets and size), and the offset index against the batches.
    if (indexes_fetched) CheckIndexContents();
  }

  const std::vector<std::string>& problems() const { return problems_; }
  int64_t batches() const { return static_cast<int64_t>(batches_.size()); }

 private:
  void Problem(std::string p) { problems_.push_back(std::move(p)); }
  static std::string Object(RemoteObjectKind kind) {
    return fmt::format(".{}", RemoteObjectSuffix(kind));
  }

  // Fetches one index object and compares it with what the copy recorded. False when it could
  // not be fetched.
  bool CheckIndexObject(const IndexObject& index) {
    const std::optional<SegmentObject> expected = objects_.Find(index.kind);
    if (!expected.has_value()) {
      if (index.required) {
        Problem(fmt::format("{}: the custom metadata lists no such object", Object(index.kind)));
      }
      return true;  // the copy has none: nothing to fetch
    }
    Result<std::vector<uint8_t>> bytes = tiered_->storage()->FetchIndex(s_, index.type);
    if (!bytes.ok()) {
      Problem(fmt::format("{}: {}", Object(index.kind), bytes.status().ToString()));
      return false;
    }
    // The store checks these too (remote_storage_manager.h); a store that does not is caught.
    if (static_cast<int64_t>(bytes->size()) != expected->size) {
      Problem(fmt::format("{}: {} bytes, the copy recorded {}", Object(index.kind), bytes->size(),
                          expected->size));
    } else if (const uint32_t crc = Crc32c(*bytes); crc != expected->crc32c) {
      Problem(fmt::format("{}: CRC-32C 0x{:08x}, the copy recorded 0x{:08x}", Object(index.kind),
                          crc, expected->crc32c));
    }
    return true;
  }

  // Fetches the whole .log in chunks: its size and CRC-32C against the custom metadata, and
  // each batch whole, its CRC valid, its offsets increasing and inside the segment's.
  void CheckLog() {
    const std::string log = Object(RemoteObjectKind::kLog);
    const std::optional<SegmentObject> expected = objects_.Find(RemoteObjectKind::kLog);
    if (!expected.has_value()) {
      Problem(log + ": the custom metadata lists no such object");
      return;
    }
    if (expected->size != s_.segment_size_in_bytes) {
      Problem(fmt::format("{}: the custom metadata records {} bytes, the segment metadata {}", log,
                          expected->size, s_.segment_size_in_bytes));
    }
    const int64_t size = expected->size;
    uint32_t crc = Crc32c({});
    int64_t fetched = 0;
    std::vector<uint8_t> pending;  // the bytes after the last whole batch
    int64_t pending_position = 0;  // of pending[0] in the object
    int64_t prev_last = s_.start_offset - 1;
    // After a bad batch nothing later can be framed; the rest is still fetched for the
    // object's CRC-32C (whether it changed since the copy, or was copied so).
    bool walking = true;
    while (fetched < size) {
      const int64_t want = std::min(kFetchChunk, size - fetched);
      Result<std::vector<uint8_t>> chunk = tiered_->storage()->FetchLogSegment(s_, fetched, want);
      if (!chunk.ok()) {
        Problem(fmt::format("{} at position {}: {}", log, fetched, chunk.status().ToString()));
        return;
      }
      if (chunk->empty()) {
        Problem(fmt::format("{}: truncated: no byte at position {}, the copy recorded {} bytes",
                            log, fetched, size));
        return;
      }
      crc = Crc32cExtend(crc, *chunk);
      fetched += static_cast<int64_t>(chunk->size());
      if (!walking) continue;
      pending.insert(pending.end(), chunk->begin(), chunk->end());
      LogBatchWalker w(pending, pending_position);
      while (walking && w.Next()) walking = CheckBatch(w.current(), w.current_bytes(), &prev_last);
      if (walking && !w.status().ok()) {
        Problem(fmt::format("{}: {}", log, w.status().ToString()));
        walking = false;
      }
      // A batch that reaches past the object's end can never be completed.
      if (walking && w.trailing_bytes() >= 12) {
        const uint8_t* at = pending.data() + (w.end_of_batches() - pending_position);
        const int64_t batch_size = 12 + int64_t{static_cast<int32_t>(LoadBE32(at + 8))};
        if (w.end_of_batches() + batch_size > size) {
          Problem(fmt::format("{}: the batch at position {} has {} bytes, past the object's {}",
                              log, w.end_of_batches(), batch_size, size));
          walking = false;
        }
      }
      if (!walking) {
        pending.clear();
        continue;
      }
      pending.erase(pending.begin(), pending.begin() + (w.end_of_batches() - pending_position));
      pending_position = w.end_of_batches();
    }
    if (!pending.empty()) {
      Problem(fmt::format("{}: {} byte(s) at position {} are not a whole batch", log,
                          pending.size(), pending_position));
    }
    if (crc != expected->crc32c) {
      Problem(fmt::format("{}: CRC-32C 0x{:08x} over its {} bytes, the copy recorded 0x{:08x}", log,
                          crc, size, expected->crc32c));
    }
  }

  // False when nothing after the batch can be trusted.
  bool CheckBatch(const BatchPrefix& p, std::span<const uint8_t> bytes, int64_t* prev_last) {
    const std::string log = Object(RemoteObjectKind::kLog);
    int64_t first = p.base_offset, last = p.base_offset;
    Status valid;
    if (p.magic >= kMagicV2) {
      auto v = RecordBatchView::Parse(bytes, p.position);
      valid = v.ok() ? v->ValidateCrc() : v.status();
      if (v.ok()) last = v->last_offset();
    } else {
      auto v = LegacyRecordBatchView::Parse(bytes, p.position);
      valid = v.ok() ? v->ValidateCrc() : v.status();
    }
    if (!valid.ok()) {
      Problem(fmt::format("{}: batch at position {} (offset {}): {}", log, p.position, first,
                          valid.ToString()));
      return false;
    }
    if (first < s_.start_offset || last > s_.end_offset) {
      Problem(
          fmt::format("{}: batch at position {}: offsets {} to {} are outside the segment's {} "
                      "to {}",
                      log, p.position, first, last, s_.start_offset, s_.end_offset));
    } else if (first <= *prev_last) {
      Problem(
          fmt::format("{}: batch at position {}: offset {} does not follow the previous last "
                      "offset {}",
                      log, p.position, first, *prev_last));
    }
    *prev_last = std::max(*prev_last, last);
    batches_.push_back({p.position, last});
    return true;
  }

  void CheckIndexContents() {
    Result<std::shared_ptr<const RemoteIndexes>> indexes = tiered_->index_cache()->Get(s_);
    if (!indexes.ok()) {
      Problem("indexes: " + indexes.status().ToString());
      return;
    }
    if (problems_.size() > 0) return;  // the batches are not all known
    const OffsetIndex& index = (*indexes)->offset_index();
    for (int i = 0; i < index.entries(); ++i) {
      const OffsetPosition e = index.EntryAt(i);
      auto it = std::lower_bound(batches_.begin(), batches_.end(), e.position,
                                 [](const BatchAt& b, int64_t p) { return b.position < p; });
      if (it == batches_.end() || it->position != e.position) {
        Problem(fmt::format("{}: entry {} -> position {}: no batch starts there",
                            Object(RemoteObjectKind::kOffsetIndex), e.offset, e.position));
      } else if (it->last_offset != e.offset) {
        Problem(fmt::format(
            "{}: entry at position {}: expected the batch's last offset {}, found {}",
            Object(RemoteObjectKind::kOffsetIndex), e.position, it->last_offset, e.offset));
      }
    }
  }

  TieredStorage* const tiered_;
  const RemoteLogSegmentMetadata& s_;
  SegmentObjects objects_;
  std::vector<std::string> problems_;
  std::vector<BatchAt> batches_;
};

bool IsOrphanState(RemoteLogSegmentState state) {
  return state == RemoteLogSegmentState::kCopySegmentStarted ||
         state == RemoteLogSegmentState::kDeleteSegmentStarted;
}

std::string SegmentLine(const RemoteLogSegmentMetadata& s) {
  return fmt::format("{} (offsets {} to {}, {} bytes)",
                     RemoteSegmentName(s.segment_id.id, s.start_offset), s.start_offset,
                     s.end_offset, s.segment_size_in_bytes);
}

// The partitions to check: every one __remote_log_metadata has segments of (a deleted topic's
// too, until its remote data is gone), and every tiered log of the node.
std::vector<TopicIdPartition> TieredPartitions(LogManager& m, RemoteLogMetadataManager& rlmm,
                                               const std::string& topic) {
  std::vector<TopicIdPartition> out;
  for (const TopicIdPartition& id : rlmm.Partitions()) {
    if (topic.empty() || id.tp.topic == topic) out.push_back(id);
  }
  for (const std::string& name : m.ListTopics()) {
    if (!topic.empty() && name != topic) continue;
    const std::optional<LogManager::TopicIdentity> identity = m.FindTopicIdentity(name);
    if (!identity || identity->topic_id.empty()) continue;
    const Result<Uuid> topic_id = Uuid::Parse(identity->topic_id);
    if (!topic_id.ok()) continue;
    for (int32_t p = 0; p < identity->partitions; ++p) {
      const TopicIdPartition id{*topic_id, {name, p}};
      auto log = m.GetLog(id.tp);
      if (!log.ok() || !(*log)->remote_log_enabled()) continue;
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end(), [](const TopicIdPartition& a, const TopicIdPartition& b) {
    return std::tie(a.tp.topic, a.tp.partition) < std::tie(b.tp.topic, b.tp.partition);
  });
  return out;
}

Result<int64_t> CheckTier(const CheckOptions& o, LogManager& m, const BrokerConfig& config,
                          std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<RemoteTier> tier,
                          RemoteTier::Open(config, &m, o.rsm_for_tests));
  TieredStorage* tiered = tier->storage();
  int64_t problems = 0, segments = 0, orphans = 0;
  const std::vector<TopicIdPartition> partitions =
      TieredPartitions(m, *tiered->metadata(), o.topic);
  for (const TopicIdPartition& id : partitions) {
    std::vector<RemoteLogSegmentMetadata> finished, unfinished;
    for (RemoteLogSegmentMetadata& s : tiered->metadata()->ListRemoteLogSegments(id)) {
      if (s.state == RemoteLogSegmentState::kCopySegmentFinished) {
        finished.push_back(std::move(s));
      } else if (IsOrphanState(s.state)) {
        unfinished.push_back(std::move(s));
      }
    }
    const std::string name = id.tp.ToString();
    if (finished.empty()) {
      out << fmt::format("{} (remote, topic id {}): no remote segment\n", name,
                         id.topic_id.ToString());
    } else {
      out << fmt::format(
          "{} (remote, topic id {}): {} segment(s) COPY_SEGMENT_FINISHED, offsets {} "
          "to {}\n",
          name, id.topic_id.ToString(), finished.size(), finished.front().start_offset,
          finished.back().end_offset);
    }
    for (const RemoteLogSegmentMetadata& s : finished) {
      SegmentChecker checker(tiered, s);
      checker.Run();
      ++segments;
      if (checker.problems().empty()) {
        out << fmt::format("  {}: OK ({} batch(es))\n", SegmentLine(s), checker.batches());
      } else {
        out << fmt::format("  {}: {} problem(s)\n", SegmentLine(s), checker.problems().size());
        for (const std::string& p : checker.problems()) out << "    " << p << "\n";
        problems += static_cast<int64_t>(checker.problems().size());
      }
    }
    // Not problems: a copy or a deletion a crash (or a running broker) left in progress; the
    // broker's next remote log manager pass deletes their objects.
    for (const RemoteLogSegmentMetadata& s : unfinished) {
      out << fmt::format(
          "  orphan: {}: {} (the broker's next remote log manager pass deletes it)\n",
          SegmentLine(s), RemoteLogSegmentStateName(s.state));
      ++orphans;
    }
  }
  out << fmt::format(
      "checked {} remote segment(s) of {} tiered partition(s): {} problem(s), {} "
      "orphan(s)\n",
      segments, partitions.size(), problems, orphans);
  return problems;
}

}  // namespace

Result<int64_t> CheckRemoteTier(const CheckOptions& o, std::ostream& out) {
  NodeOptions node;
  node.log_dir = o.log_dir;
  node.server_config = o.server_config;
  SEGLOG_ASSIGN_OR_RETURN(OneShotNode n, OpenNode(node, /*read_only=*/true));
  Result<int64_t> problems = CheckTier(o, *n.manager, n.config, out);
  SEGLOG_RETURN_IF_ERROR(FinishNode(n, problems.status()));
  return problems;
}

}  // namespace seglog
