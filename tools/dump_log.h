// DumpLog: the library functions behind `seglog dump-log`, printing segment files in exactly the
// text Kafka 4.4.0's DumpLogSegments (kafka-dump-log.sh) prints, so operators can diff the two.
//
// Files are dispatched by suffix as Kafka does: .log (v2 and legacy magic 0/1 batches), .index
// (offset index), .timeindex (time index), .txnindex, .snapshot (producer state) and
// .checkpoint (a KRaft snapshot of __cluster_metadata, dumped as a .log after a "Snapshot end
// offset" line); any other suffix prints "Ignoring unknown file <f>" on stderr. KRaft's control
// records (leader change, snapshot header and footer, kraft.version, voters) print their message
// as JSON, and --cluster-metadata-decoder prints the metadata records' values so too, as
// --offsets-decoder, --share-group-state-decoder and --transaction-log-decoder print the keys and
// values of __consumer_offsets, __share_group_state and __transaction_state. The problems
// Kafka reports at the end of a run (index mismatches, time index errors, non-consecutive offsets)
// go to `err` after all files, grouped per file in the order of Java's HashMap over the files'
// absolute paths (tests/data/dump/README.md lists the verified outputs). Where Kafka dies with an
// exception (a sanity check failure, a missing sibling .log, an index entry past the end of the
// log) these functions return a non-OK Status; for sanity checks its message is the exception's
// message, word for word. Thread safety: thread-compatible (writes only to the streams it is
// given).
#ifndef SEGLOG_TOOLS_DUMP_LOG_H_
#define SEGLOG_TOOLS_DUMP_LOG_H_

#include <cstdint>
#include <limits>
#include <ostream>
#include <span>
#include <string>

#include "base/progress.h"
#include "seglog/status.h"

namespace seglog {

struct DumpLogOptions {
  bool deep_iteration = false;  // one line per record
  bool print_data_log = false;  // keys and values too (implies deep_iteration)
  // Values as KRaft metadata records, printed as JSON (implies print_data_log; Kafka's
  // --cluster-metadata-decoder; tools/metadata_record_text.h).
  bool cluster_metadata_decoder = false;
  // Keys and values as the records of a coordinator's topic, printed as JSON (each implies
  // print_data_log; tools/coordinator_record_text.h): __consumer_offsets (Kafka's
  // --offsets-decoder), __share_group_state (--share-group-state-decoder) and __transaction_state
  // (--transaction-log-decoder). With several decoders Kafka's precedence applies: offsets,
  // transaction log, cluster metadata, share group state.
  bool offsets_decoder = false;
  bool share_group_state_decoder = false;
  bool transaction_log_decoder = false;
  bool verify_index_only = false;   // indexes: report mismatches without printing the entries
  bool index_sanity_check = false;  // indexes: only run Kafka's sanityCheck
  // Indexes: bytes of the .log read at each offset-index entry (Kafka's --max-message-size).
  int32_t max_message_size = 5 * 1024 * 1024;
  // .log files: only this many bytes are read; any value but the default also suppresses the
  // "Found N invalid bytes" line (Kafka's --max-bytes).
  int32_t max_bytes = std::numeric_limits<int32_t>::max();
  // Told the bytes and count of the .log files to dump first, then each batch's bytes and each
  // file as it is done (a terminal's progress line: tools/progress_reporter.h).
  ProgressCallback progress = {};
};

// Dumps every file in `paths`, in order, as DumpLogSegments --files a,b,c does. Stops at the
// first file that fails (as Kafka stops at its first exception), without the end-of-run reports.
Status DumpFiles(std::span<const std::string> paths, const DumpLogOptions& options,
                 std::ostream& out, std::ostream& err);

// Dumps the batches of one .log file's bytes (already read; max_bytes is not applied).
// `path_as_given` is printed in the "Dumping" line, and the base offset is parsed from its file
// name. Non-consecutive offsets go to `err` at the end.
Status DumpLogBytes(const std::string& path_as_given, std::span<const uint8_t> bytes,
                    const DumpLogOptions& options, std::ostream& out, std::ostream& err);

// Dumps one file of any supported suffix: DumpFiles with a single path.
Status DumpLogFile(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                   std::ostream& err);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_DUMP_LOG_H_
