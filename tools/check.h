// Check: the library function behind `seglog check` - verifies a log directory read-only, so it
// also works on a real Kafka broker's directory. Per partition:
//   - every batch: a whole batch, size and CRC valid (v2 CRC-32C, legacy CRC-32);
//   - offsets increase across batches and segments, and fit each segment's base offset;
//   - the offset index agrees with the log (each entry names a batch's last offset and its start
//     position), the time index is ordered and in range, both within the segment; an untrimmed,
//     zero-filled index tail is allowed only on the last (active) segment;
//   - no stray files;
// and at the directory root, the recovery-point, log-start-offset and cleaner-offset checkpoints
// parse and name offsets inside their partitions. Problems name the file, position and the
// expected and found values.
//
// A directory without .kafka_cleanshutdown was not shut down cleanly (a crash, a SIGKILL, a
// copy of a live directory): the report then opens with the partitions an open would recover
// and the offset each recovers from (its checkpointed recovery point, or 0), and judges the
// segments that recovery reaches (LogLoader's rule, RecoveredAfterUncleanShutdown) as recovery
// will leave them: their indexes are rebuilt, so an untrimmed or not yet written index is no
// problem, and a torn or invalid batch is cut - printed as a note, not counted. What recovery
// does not touch (segments below the recovery point) is checked as after a clean shutdown.
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_CHECK_H_
#define SEGLOG_TOOLS_CHECK_H_

#include <ostream>
#include <string>

#include "seglog/result.h"

namespace seglog {

struct CheckOptions {
  std::string log_dir;
  std::string topic;  // empty: every partition directory
};

// Prints one line per partition ("<partition>: OK ..." or its problems) and a summary; returns
// the number of problems found (the CLI exits non-zero when it is not 0).
Result<int64_t> CheckLogDir(const CheckOptions& options, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_CHECK_H_
