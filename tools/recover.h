// seglog recover: opens a log directory as a Kafka broker does at startup - lock, meta.properties,
// the clean-shutdown marker, the checkpoints - loads every partition with
// num.recovery.threads.per.data.dir threads (recovering them after an unclean shutdown, and
// quarantining what recovery cuts), then shuts down cleanly: trimmed indexes, checkpoints and
// .kafka_cleanshutdown. Progress lines go to `out` as they happen.
// Thread safety: a function; one call per log directory at a time (it takes the .lock).
#ifndef SEGLOG_TOOLS_RECOVER_H_
#define SEGLOG_TOOLS_RECOVER_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "base/progress.h"
#include "seglog/result.h"

namespace seglog {

struct RecoverOptions {
  std::string log_dir;
  int threads = 2;  // num.recovery.threads.per.data.dir (Kafka 4.x default 2)
  // Told the .log bytes and segments to load first, then each partition's as it is loaded.
  ProgressCallback progress = {};
};

struct RecoverResult {
  bool had_clean_shutdown = false;
  int partitions = 0;
  int segments_recovered = 0;
  int64_t bytes_quarantined = 0;
};

Result<RecoverResult> RecoverLogDir(const RecoverOptions& options, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_RECOVER_H_
