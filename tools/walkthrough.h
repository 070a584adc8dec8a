// Walkthrough: the README's main job until the broker exists. It writes seed 000's Example 1
// (12,000 records, keys k-%06d, 250-byte values, ten records per batch, segment.bytes=1048576)
// into topic "walkthrough" (one partition, <log_dir>/walkthrough-0; a previous run's topic is
// deleted first) on a storage node over the log directory, as produce does, then shows the
// partition directory while the log is open and after a clean shutdown, Kafka-format dumps of
// a batch and of an offset index, and - on a read-only node, as consume reads - offset
// lookups, timestamp lookups, and a consume. The numbers are the
// seed's: segments 0/3830/7660/11490, 1,045,973-byte segments, index entries 29 -> 5462, ...
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_WALKTHROUGH_H_
#define SEGLOG_TOOLS_WALKTHROUGH_H_

#include <ostream>
#include <string>

#include "seglog/status.h"

namespace seglog {

// Replaces <log_dir>/walkthrough-0 (and only that partition) with a fresh run.
Status RunWalkthrough(const std::string& log_dir, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_WALKTHROUGH_H_
