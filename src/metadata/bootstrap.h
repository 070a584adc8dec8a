// The bootstrap snapshot: what `seglog format` (Kafka's `kafka-storage.sh format`) writes into a
// new log directory's metadata log - the snapshot 00000000000000000000-0000000000.checkpoint
// holding the cluster's first feature levels (and, for a dynamic quorum made with
// --standalone, kraft.version 1 and the voter set). Kafka 4.4.0 writes no bootstrap.checkpoint.
//
// Thread safety: functions over values.
#ifndef SEGLOG_METADATA_BOOTSTRAP_H_
#define SEGLOG_METADATA_BOOTSTRAP_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "io/env.h"
#include "metadata/metadata_record_serde.h"
#include "seglog/result.h"

namespace seglog {

// The metadata.version seglog runs (4.4-IV2, Kafka 4.4.0's latest production level), and the
// oldest one it reads.
inline constexpr int16_t kLatestMetadataVersion = 33;
inline constexpr int16_t kMinimumMetadataVersion = 7;  // 3.3-IV3, KRaft's first

// The levels a new cluster starts at: Kafka 4.4.0's defaults for the features seglog has
// (metadata.version, eligible.leader.replicas.version, group.version, share.version,
// streams.version, transaction.version). Only a new directory gets them: a directory formatted
// before seglog finalized share.version and streams.version keeps them unfinalized when opened,
// as Kafka's controller appends bootstrap records only to an empty metadata log.
std::map<std::string, int16_t> DefaultBootstrapFeatures();

// The metadata.version of a --release-version ("4.4", "4.4-IV2", "3.9-IV0", ...): InvalidArgument
// for a name seglog does not know.
Result<int16_t> MetadataVersionForRelease(const std::string& release);
// "4.4-IV2" for 33.
std::string MetadataVersionName(int16_t level);

struct StandaloneVoter {
  int32_t node_id = 1;
  Uuid directory_id;
  std::string listener = "CONTROLLER";
  std::string host;
  uint16_t port = 0;
};

// Writes <log_dir>/__cluster_metadata-0/ with the bootstrap snapshot 0-0. AlreadyExists when
// the directory has one. `more` is appended after the feature levels (the SCRAM credentials of
// kafka-storage's --add-scram).
Status WriteBootstrapSnapshot(Env* env, const std::string& log_dir,
                              const std::map<std::string, int16_t>& features, int64_t now_ms,
                              const std::optional<StandaloneVoter>& standalone = std::nullopt,
                              std::span<const MetadataRecordValue> more = {});

}  // namespace seglog

#endif  // SEGLOG_METADATA_BOOTSTRAP_H_
