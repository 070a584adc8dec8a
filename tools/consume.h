// Consume and GetOffsets: the library functions behind `seglog consume` and `seglog
// get-offsets`, reading a topic's partitions in a log directory. They open it as the storage
// node does, read-only (LogManager::OpenReadOnly, tools/node.h): the checkpointed log start
// offsets (delete-records), recovery points and topic configs apply; no lock is taken, so they
// also read a directory a running node holds; nothing is written.
//
// Tiered topics (KIP-405): with a node config that sets remote.log.storage.system.enable=true
// (--server-config), the offsets below a tiered partition's local log start offset are read from
// the remote tier (tools/remote_tier.h: the node's TieredStorage without its tasks, with a
// temporary index cache), then the read goes on locally - `--offset earliest` prints every
// record the partition holds, remote and local. Without that setting a tiered partition's log
// starts at its first local segment, as for any log.
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_CONSUME_H_
#define SEGLOG_TOOLS_CONSUME_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "seglog/result.h"

namespace seglog {

class RemoteStorageManager;

struct ConsumeOptions {
  std::string log_dir;
  std::string topic;
  std::optional<int32_t> partition;  // default: every partition, one after another
  std::string offset = "earliest";   // "earliest", "latest" or a number
  std::optional<int64_t> max_records;
  std::string format = "text";  // "text": Offset:<o>\t<key>\t<value>; "json": one object per line
  // An explicit --offset outside [log start, log end]: auto.offset.reset's choice - "earliest"
  // (the log start), "latest" (the log end) or "none" (the out-of-range error, with both
  // bounds).
  std::string reset = "none";
  // server.properties of the node (optional; --log-dir overrides its log.dirs): its log.* and
  // remote.log.* settings apply, as the broker applies them.
  std::string server_config = {};
  // Tests: the remote tier's store instead of the configured S3 one.
  RemoteStorageManager* rsm_for_tests = nullptr;
};

// Prints records; returns how many.
// A reset is reported on `reset_out` when given.
Result<int64_t> Consume(const ConsumeOptions& options, std::ostream& out,
                        std::ostream* reset_out = nullptr);

struct GetOffsetsOptions {
  std::string log_dir;
  std::string topic;
  std::vector<int32_t> partitions;  // empty: all
  std::string time = "latest";      // earliest | latest | max-timestamp | -1 | -2 | -3 | <ms>
};

// Prints "topic:partition:offset" lines as kafka-get-offsets.sh does (partitions with no
// offset for the time are left out).
Status GetOffsets(const GetOffsetsOptions& options, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_CONSUME_H_
