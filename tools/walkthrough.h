// Walkthrough: the README's main job until the broker exists. It writes the seeds' Example 1
// (12,000 records, keys k-%06d, 250-byte values, ten records per batch) as v2 batches into
// <log_dir>/walkthrough-0/00000000000000000000.log, then shows the batches, the sparse offset
// index Kafka would build over them, an offset lookup, a time lookup, and a consume.
// Rolling into 1 MiB segments and the on-disk .index/.timeindex files arrive with the
// partition log (issue 3); until then this shows one growing segment file.
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_WALKTHROUGH_H_
#define SEGLOG_TOOLS_WALKTHROUGH_H_

#include <ostream>
#include <string>

#include "seglog/status.h"

namespace seglog {

Status RunWalkthrough(const std::string& log_dir, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_WALKTHROUGH_H_
