// quorum-state: KRaft's election state file in __cluster_metadata-0 (Kafka's
// FileQuorumStateStore; docs/format/metadata_log.md, "quorum-state"). One line of JSON, no
// newline, replaced atomically (quorum-state.tmp, fsync, rename) at every change:
//
//   data_version 0 (a static quorum, kraft.version 0):
//   {"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,
//    "currentVoters":[{"voterId":1}],"data_version":0}
//   data_version 1 (kraft.version 1):
//   {"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA",
//    "data_version":1}
//
// Only the first line is read; a data_version other than 0 or 1 is refused, as Kafka does.
//
// Thread safety: functions over values; callers serialise writers of one file.
#ifndef SEGLOG_METADATA_QUORUM_STATE_H_
#define SEGLOG_METADATA_QUORUM_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "io/env.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr const char* kQuorumStateFile = "quorum-state";

struct QuorumState {
  int16_t data_version = 0;
  int32_t leader_id = -1;
  int32_t leader_epoch = 0;
  int32_t voted_id = -1;
  Uuid voted_directory_id;      // data_version 1
  std::vector<int32_t> voters;  // data_version 0: currentVoters
  bool operator==(const QuorumState&) const = default;
};

// The file's text as Kafka writes it for `state.data_version`.
std::string FormatQuorumState(const QuorumState& state);
// Corruption naming `path` for text Kafka would refuse.
Result<QuorumState> ParseQuorumState(const std::string& path, const std::string& text);

// <dir>/quorum-state: NotFound when absent.
Result<QuorumState> ReadQuorumState(Env* env, const std::string& dir);
Status WriteQuorumState(Env* env, const std::string& dir, const QuorumState& state);

}  // namespace seglog

#endif  // SEGLOG_METADATA_QUORUM_STATE_H_
