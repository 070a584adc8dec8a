// Pending transactional offsets; see transactional_offsets.h.
#include "group/transactional_offsets.h"

namespace seglog {

void PendingTransactionalOffsets::Add(int64_t producer_id, const std::string& group,
                                      const OffsetPartitionKey& partition, StoredOffset offset) {
  by_producer_[producer_id][group][partition] = std::move(offset);
  open_[group][partition].insert(producer_id);
}

void PendingTransactionalOffsets::RemovePartition(const std::string& group,
                                                  const OffsetPartitionKey& partition) {
  auto g = open_.find(group);
  if (g == open_.end()) return;
  auto p = g->second.find(partition);
  if (p == g->second.end()) return;
  for (int64_t producer_id : p->second) {
    auto pr = by_producer_.find(producer_id);
    if (pr == by_producer_.end()) continue;
    auto pg = pr->second.find(group);
    if (pg == pr->second.end()) continue;
    pg->second.erase(partition);
    if (pg->second.empty()) pr->second.erase(pg);
    // The producer's (now maybe empty) entry stays until its marker, as in Kafka.
  }
  g->second.erase(p);
  if (g->second.empty()) open_.erase(g);
}

OffsetsByGroup PendingTransactionalOffsets::Take(int64_t producer_id) {
  auto pr = by_producer_.find(producer_id);
  if (pr == by_producer_.end()) return {};
  OffsetsByGroup taken = std::move(pr->second);
  by_producer_.erase(pr);
  for (const auto& [group, offsets] : taken) {
    auto g = open_.find(group);
    if (g == open_.end()) continue;
    for (const auto& [partition, offset] : offsets) {
      (void)offset;
      auto p = g->second.find(partition);
      if (p == g->second.end()) continue;
      p->second.erase(producer_id);
      if (p->second.empty()) g->second.erase(p);
    }
    if (g->second.empty()) open_.erase(g);
  }
  return taken;
}

bool PendingTransactionalOffsets::Contains(const std::string& group,
                                           const OffsetPartitionKey& partition) const {
  auto g = open_.find(group);
  return g != open_.end() && g->second.count(partition) != 0;
}

std::vector<OffsetPartitionKey> PendingTransactionalOffsets::PartitionsOf(
    const std::string& group) const {
  std::vector<OffsetPartitionKey> out;
  auto g = open_.find(group);
  if (g == open_.end()) return out;
  for (const auto& [partition, producers] : g->second) out.push_back(partition);
  return out;
}

std::vector<std::string> PendingTransactionalOffsets::Groups() const {
  std::vector<std::string> out;
  for (const auto& [group, partitions] : open_) out.push_back(group);
  return out;
}

std::vector<int64_t> PendingTransactionalOffsets::ProducerIds() const {
  std::vector<int64_t> out;
  for (const auto& [producer_id, offsets] : by_producer_) out.push_back(producer_id);
  return out;
}

void CommitPendingOffsets(OffsetsByGroup pending, OffsetsByGroup* committed) {
  for (auto& [group, offsets] : pending) {
    for (auto& [partition, offset] : offsets) {
      auto g = committed->find(group);
      if (g != committed->end()) {
        auto c = g->second.find(partition);
        // Kafka keeps the most recent commit when plain and transactional ones mix, by record
        // offset (the log's order), so compacting the topic cannot bring an older one back.
        if (c != g->second.end() && c->second.record_offset >= offset.record_offset) continue;
      }
      (*committed)[group][partition] = std::move(offset);
    }
  }
}

Result<std::optional<bool>> ReadEndTransactionMarker(const RecordBatchView& batch) {
  RecordIterator it(batch);
  if (!it.Next()) {
    SEGLOG_RETURN_IF_ERROR(it.status());
    return std::optional<bool>();
  }
  SEGLOG_ASSIGN_OR_RETURN(const ControlRecordKey key, ParseControlRecordKey(it.record().key));
  if (key.type() == ControlRecordType::kCommit) return std::optional<bool>(true);
  if (key.type() == ControlRecordType::kAbort) return std::optional<bool>(false);
  return std::optional<bool>();
}

}  // namespace seglog
