// LogLoader: turns a partition directory into a segment map at open, in Kafka's order
// (LogLoader.java; docs/design/recovery.md, "The order"):
//
//   1. delete *.deleted leftovers; delete *.cleaned, and *.swap files from an unfinished split
//      (offset >= the smallest .cleaned offset);
//   2. complete interrupted swaps: delete the files the swap replaces, drop the .swap suffix;
//   3. delete orphan index files (no .log); load each .log; a segment without its offset index is
//      recovered;
//   4. without a clean shutdown, recover every segment from the recovery point on: validate each
//      batch, rebuild both indexes, cut at the first invalid batch and remove every later segment;
//   5. no segment left: create an empty one at the log start offset; regrow the active
//      segment's indexes.
//
// Unlike Kafka, nothing is lost without a trace: bytes cut from a segment and segments removed
// after a cut are moved or copied into the quarantine directory (outside the partition
// directory, which Kafka ignores), and each action is recorded in <quarantine>/cuts.log and in
// the LoadReport.
//
// Thread safety: runs before the Log is shared; single-threaded.
#ifndef SEGLOG_LOG_LOG_LOADER_H_
#define SEGLOG_LOG_LOG_LOADER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "log/log_segment.h"
#include "seglog/log.h"

namespace seglog {

struct LoadedLog {
  std::map<int64_t, std::shared_ptr<LogSegment>> segments;
  int64_t log_end_offset = 0;
  int64_t log_start_offset = 0;
  int64_t recovery_point = 0;
  LoadReport report;
  // The lowest base offset of a segment whose transaction index recovery emptied (its entries
  // are written again by the producer state's replay).
  std::optional<int64_t> txn_index_rebuild_from;
};

// REQUIRES: options.env is set.
// Kafka's remoteLogEnabled(): the broker's remote.log.storage.system.enable, the topic's
// remote.storage.enable, and not an internal topic (judged by the partition directory's name).
// A tiered log keeps its checkpointed log start offset even below its first local segment.
bool RemoteLogEnabledFor(const std::string& dir, const LogConfig& config,
                         const LogOptions& options);

Result<LoadedLog> LoadLog(const std::string& dir, const LogConfig& config,
                          const LogOptions& options, int64_t now_ms);

// Step 4's rule: after an unclean shutdown, whether the segment whose successor starts at
// `next_base` (nullopt: the active segment) is recovered - every segment that may hold offsets
// at or above the recovery point. `seglog check` applies the same rule to say what an open
// would mend.
inline bool RecoveredAfterUncleanShutdown(std::optional<int64_t> next_base,
                                          int64_t recovery_point) {
  return !next_base || *next_base > recovery_point;
}

// The SegmentOptions a log's config implies.
SegmentOptions MakeSegmentOptions(const LogConfig& config, bool writable, int64_t roll_jitter_ms,
                                  Env* env);

}  // namespace seglog

#endif  // SEGLOG_LOG_LOG_LOADER_H_
