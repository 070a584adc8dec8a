// seglog recover; see recover.h.
#include "tools/recover.h"

#include <fmt/format.h>

#include "manager/log_directory.h"

namespace seglog {

Result<RecoverResult> RecoverLogDir(const RecoverOptions& o, std::ostream& out) {
  if (o.threads < 1) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value {} for configuration num.recovery.threads.per.data.dir: Value must be at "
        "least 1",
        o.threads));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogDirectory> dir, LogDirectory::Open(o.log_dir));
  for (const std::string& w : dir->warnings()) out << "WARN " << w << "\n";
  RecoverResult r;
  r.had_clean_shutdown = dir->had_clean_shutdown();
  SEGLOG_RETURN_IF_ERROR(dir->LoadAll(
      o.threads,
      [&out](const std::string& line) {
        out << line << "\n";
        out.flush();
      },
      {}, o.progress));
  for (const auto& [tp, log] : dir->logs()) {
    ++r.partitions;
    r.segments_recovered += log->load_report().segments_recovered;
    r.bytes_quarantined += log->load_report().bytes_quarantined;
  }
  SEGLOG_RETURN_IF_ERROR(dir->Close());
  out << fmt::format(
      "{}: {} partition(s) after {} shutdown; {} segment(s) recovered, {} byte(s) quarantined; "
      "shut down cleanly\n",
      o.log_dir, r.partitions, r.had_clean_shutdown ? "a clean" : "an unclean",
      r.segments_recovered, r.bytes_quarantined);
  return r;
}

}  // namespace seglog
