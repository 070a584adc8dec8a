// IndexType's names (remote_storage_manager.h), as Kafka's RemoteStorageManager.IndexType.
#include "remote/remote_storage_manager.h"

namespace seglog {

std::string_view IndexTypeName(IndexType type) {
  switch (type) {
    case IndexType::kOffset:
      return "OFFSET";
    case IndexType::kTimestamp:
      return "TIMESTAMP";
    case IndexType::kProducerSnapshot:
      return "PRODUCER_SNAPSHOT";
    case IndexType::kTransaction:
      return "TRANSACTION";
    case IndexType::kLeaderEpoch:
      return "LEADER_EPOCH";
  }
  return "UNKNOWN";
}

}  // namespace seglog
