// DumpLog: the library function behind `seglog dump-log`, printing a .log segment in exactly
// the text Kafka's DumpLogSegments (kafka-dump-log.sh) prints, so operators can diff the two.
// Thread safety: thread-compatible (writes only to the streams it is given).
#ifndef SEGLOG_TOOLS_DUMP_LOG_H_
#define SEGLOG_TOOLS_DUMP_LOG_H_

#include <cstdint>
#include <ostream>
#include <span>
#include <string>

#include "seglog/status.h"

namespace seglog {

struct DumpLogOptions {
  bool deep_iteration = false;  // one line per record
  bool print_data_log = false;  // keys and values too (implies deep_iteration)
};

// Dumps the batches of one .log file's bytes. `path_as_given` is printed in the "Dumping" line,
// and the base offset is parsed from its file name. Non-consecutive offsets go to `err`.
Status DumpLogBytes(const std::string& path_as_given, std::span<const uint8_t> bytes,
                    const DumpLogOptions& options, std::ostream& out, std::ostream& err);

// Maps the file and dumps it.
Status DumpLogFile(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                   std::ostream& err);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_DUMP_LOG_H_
