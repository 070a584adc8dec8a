// SharePersister; see share_state_persister.h.
#include "node/share_state_persister.h"

#include <fmt/format.h>

#include "sharestate/share_coordinator.h"

namespace seglog {

namespace {

Status Failed(const char* what, const SharePartitionKey& key, const ShareCoordinator::Outcome& o) {
  return Status::IOError(fmt::format("{} share state of {} failed with error {}: {}", what,
                                     key.CoordinatorKey(), o.error_code,
                                     o.error_message.value_or("")));
}

}  // namespace

Status SharePersister::InitializeShareState(const std::string& group_id, int32_t state_epoch,
                                            const std::vector<InitializeTopic>& topics) {
  for (const InitializeTopic& t : topics) {
    for (int32_t p : t.partitions) {
      const SharePartitionKey key{.group_id = group_id, .topic_id = t.topic_id, .partition = p};
      ShareCoordinator::Outcome o = coordinator_->Initialize(key, state_epoch, t.start_offset);
      if (o.error_code != 0) return Failed("Initializing the", key, o);
    }
  }
  return Status::OK();
}

Status SharePersister::DeleteShareState(const std::string& group_id,
                                        const std::vector<TopicPartitions>& topics) {
  for (const TopicPartitions& t : topics) {
    for (int32_t p : t.partitions) {
      const SharePartitionKey key{.group_id = group_id, .topic_id = t.topic_id, .partition = p};
      ShareCoordinator::Outcome o = coordinator_->Delete(key);
      // A partition of a topic deleted meanwhile has no state left to delete.
      if (o.error_code != 0 && o.error_code != 3) return Failed("Deleting the", key, o);
    }
  }
  return Status::OK();
}

Result<std::vector<ShareStateAdmin::TopicSummary>> SharePersister::ReadShareStateSummary(
    const std::string& group_id, const std::vector<TopicPartitions>& topics) {
  std::vector<TopicSummary> out;
  for (const TopicPartitions& t : topics) {
    TopicSummary& summary = out.emplace_back();
    summary.topic_id = t.topic_id;
    for (int32_t p : t.partitions) {
      const SharePartitionKey key{.group_id = group_id, .topic_id = t.topic_id, .partition = p};
      ShareCoordinator::SummaryOutcome o = coordinator_->ReadSummary(key);
      summary.partitions.push_back(
          PartitionSummary{.partition = p,
                           .error_code = o.error_code,
                           .error_message = o.error_message,
                           .start_offset = o.start_offset,
                           .leader_epoch = o.leader_epoch,
                           .state_epoch = o.state_epoch,
                           .delivery_complete_count = o.delivery_complete_count});
    }
  }
  return out;
}

}  // namespace seglog
