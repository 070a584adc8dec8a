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
//
// With `remote` (--remote), the node's remote tier too (tools/remote_tier.h; the node config
// must set remote.log.storage.system.enable=true): for every tiered partition - every one
// __remote_log_metadata has segments of, and every tiered log - each COPY_SEGMENT_FINISHED
// segment's objects are fetched from the store and checked against the custom metadata the
// copy recorded (remote/segment_objects.h): every index object whole (size, CRC-32C), the
// .log in chunks (its size and CRC-32C, and each batch whole with a valid CRC, offsets
// increasing inside the segment's [start, end]), and the offset, time and transaction indexes
// as the remote index cache checks them, the offset index's entries against the batches. A
// problem names the segment, the object and the position or offset (a missing object is the
// store's NotFound). Segments left COPY_SEGMENT_STARTED or DELETE_SEGMENT_STARTED are listed
// as orphans, not counted as problems: the broker's next remote log manager pass deletes them
// (and a running broker's copy in progress looks the same).
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_CHECK_H_
#define SEGLOG_TOOLS_CHECK_H_

#include <ostream>
#include <string>

#include "base/progress.h"
#include "seglog/result.h"

namespace seglog {

class RemoteStorageManager;

struct CheckOptions {
  std::string log_dir;
  std::string topic;    // empty: every partition directory
  bool remote = false;  // also check the remote tier (see above)
  // server.properties of the node (its remote.log.* and rsm.config.* settings), for `remote`.
  std::string server_config = {};
  // Tests: the remote tier's store instead of the configured S3 one.
  RemoteStorageManager* rsm_for_tests = nullptr;
  // Told the .log bytes and segments to check first, then each segment as it is checked.
  ProgressCallback progress = {};
};

// Prints one line per partition ("<partition>: OK ..." or its problems) and a summary, then
// with `remote` the remote tier's report (CheckRemoteTier); returns the number of problems
// found (the CLI exits non-zero when it is not 0).
Result<int64_t> CheckLogDir(const CheckOptions& options, std::ostream& out);

// The remote tier's part alone: per tiered partition a line, then one per remote segment
// ("<segment> (offsets a to b, n bytes): OK (k batch(es))" or its problems, indented) and its
// orphans, then "checked N remote segment(s) of P tiered partition(s): X problem(s), Y
// orphan(s)". Returns X. Opens the node read-only.
Result<int64_t> CheckRemoteTier(const CheckOptions& options, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_CHECK_H_
