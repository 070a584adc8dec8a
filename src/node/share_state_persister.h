// SharePersister: the group coordinator's ShareStateAdmin over the node's own ShareCoordinator
// (Kafka's DefaultStatePersister, which sends InitializeShareGroupState,
// ReadShareGroupStateSummary and DeleteShareGroupState to the share coordinator; on one node the
// call is direct). Each
// share-partition is initialized or deleted in turn; the first failure is the call's error,
// in Kafka's words, and the group coordinator asks again later.
//
// Thread safety: thread-safe (the ShareCoordinator is).
#ifndef SEGLOG_NODE_SHARE_STATE_PERSISTER_H_
#define SEGLOG_NODE_SHARE_STATE_PERSISTER_H_

#include <string>
#include <vector>

#include "group/share_state_admin.h"

namespace seglog {

class ShareCoordinator;

class SharePersister : public ShareStateAdmin {
 public:
  explicit SharePersister(ShareCoordinator* coordinator) : coordinator_(coordinator) {}
  Status InitializeShareState(const std::string& group_id, int32_t state_epoch,
                              const std::vector<InitializeTopic>& topics) override;
  Status DeleteShareState(const std::string& group_id,
                          const std::vector<TopicPartitions>& topics) override;
  Result<std::vector<TopicSummary>> ReadShareStateSummary(
      const std::string& group_id, const std::vector<TopicPartitions>& topics) override;

 private:
  ShareCoordinator* const coordinator_;
};

}  // namespace seglog

#endif  // SEGLOG_NODE_SHARE_STATE_PERSISTER_H_
