// The vocabulary of a share partition's records, with Kafka 4.4.0's wire and disk ids:
// RecordState (org.apache.kafka.server.share.fetch.RecordState, also the State byte of
// __share_group_state batches), AcknowledgeType (ShareFetch/ShareAcknowledge AcknowledgeTypes)
// and ShareAcquireMode (ShareFetch v2's ShareAcquireMode, KIP-1206).
//
// Thread safety: constants and pure functions.
#ifndef SEGLOG_SHARE_RECORD_STATE_H_
#define SEGLOG_SHARE_RECORD_STATE_H_

#include <cstdint>
#include <string_view>

namespace seglog {

// Transitions: AVAILABLE -> ACQUIRED; ACQUIRED -> AVAILABLE, ACKNOWLEDGED or ARCHIVED.
// ACKNOWLEDGED and ARCHIVED are final. With a share group's dead-letter queue (KIP-1191) a
// Reject, or a record at the delivery count limit, goes ACQUIRED -> ARCHIVING (persisted as 3,
// neither delivered nor finished) until its DLQ write ends, then ARCHIVING -> ARCHIVED.
enum class RecordState : int8_t {
  kAvailable = 0,
  kAcquired = 1,
  kAcknowledged = 2,
  kArchiving = 3,
  kArchived = 4,
};

// True for the states a record never leaves (the share-partition start offset moves past them).
inline bool IsTerminal(RecordState state) {
  return state == RecordState::kAcknowledged || state == RecordState::kArchived;
}

inline std::string_view RecordStateName(RecordState state) {
  switch (state) {
    case RecordState::kAvailable:
      return "AVAILABLE";
    case RecordState::kAcquired:
      return "ACQUIRED";
    case RecordState::kAcknowledged:
      return "ACKNOWLEDGED";
    case RecordState::kArchiving:
      return "ARCHIVING";
    case RecordState::kArchived:
      return "ARCHIVED";
  }
  return "UNKNOWN";
}

// Gap: the offset is not a record in the log (compacted away, a transaction marker); it is
// finished as ARCHIVED. Renew (v2, KIP-1222) restarts the acquisition lock.
enum class AcknowledgeType : int8_t {
  kGap = 0,
  kAccept = 1,
  kRelease = 2,
  kReject = 3,
  kRenew = 4,
};

inline constexpr int8_t kMaxAcknowledgeType = 4;

enum class ShareAcquireMode : int8_t {
  // Whole log batches, even past MaxRecords; acquired ranges split at log-batch boundaries
  // into pieces of about BatchSize records (Kafka's BatchOptimizedStrategy).
  kBatchOptimized = 0,
  // Exactly MaxRecords at most, one acquired range (Kafka's RecordLimitStrategy).
  kRecordLimit = 1,
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_RECORD_STATE_H_
