// RemoteLogSegmentState's names and Kafka's transition rules (remote_log_segment_metadata.h).
#include "remote/remote_log_segment_metadata.h"

#include <fmt/format.h>

namespace seglog {

std::string_view RemoteLogSegmentStateName(RemoteLogSegmentState state) {
  switch (state) {
    case RemoteLogSegmentState::kCopySegmentStarted:
      return "COPY_SEGMENT_STARTED";
    case RemoteLogSegmentState::kCopySegmentFinished:
      return "COPY_SEGMENT_FINISHED";
    case RemoteLogSegmentState::kDeleteSegmentStarted:
      return "DELETE_SEGMENT_STARTED";
    case RemoteLogSegmentState::kDeleteSegmentFinished:
      return "DELETE_SEGMENT_FINISHED";
  }
  return "UNKNOWN";
}

bool IsValidTransition(RemoteLogSegmentState from, RemoteLogSegmentState to) {
  using S = RemoteLogSegmentState;
  // Kafka treats every self transition as valid (a retried event, or one replayed after a
  // failover), not only DELETE_SEGMENT_STARTED's.
  if (from == to) return true;
  switch (from) {
    case S::kCopySegmentStarted:
      return to == S::kCopySegmentFinished || to == S::kDeleteSegmentStarted;
    case S::kCopySegmentFinished:
      return to == S::kDeleteSegmentStarted;
    case S::kDeleteSegmentStarted:
      return to == S::kDeleteSegmentFinished;
    case S::kDeleteSegmentFinished:
      return false;
  }
  return false;
}

std::string DescribeRemoteSegment(const RemoteLogSegmentMetadata& m) {
  return fmt::format("remote segment {} of {} (offsets {}..{})", m.segment_id.id.ToString(),
                     m.segment_id.partition.tp.ToString(), m.start_offset, m.end_offset);
}

}  // namespace seglog
