// LogLoader; see log_loader.h. Section numbers refer to kafka-format.md.
#include "log/log_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "io/atomic_file.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/file_batch_walker.h"

namespace seglog {

SegmentOptions MakeSegmentOptions(const LogConfig& c, bool writable, int64_t jitter, Env* env) {
  SegmentOptions o;
  o.env = env;
  o.index_interval_bytes = c.index_interval_bytes;
  o.max_index_size = c.segment_index_bytes;
  o.roll_jitter_ms = jitter;
  o.preallocate = c.preallocate;
  o.segment_bytes = c.SegmentSize();
  o.writable = writable;
  return o;
}

namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsKnownMetadataFile(const std::string& name) {
  return name == "leader-epoch-checkpoint" || name == "partition.metadata" ||
         name == "leader-epoch-checkpoint.tmp" || name == "partition.metadata.tmp";
}

bool IsSegmentFileName(const std::string& name) {
  return EndsWith(name, kLogFileSuffix) || EndsWith(name, kIndexFileSuffix) ||
         EndsWith(name, kTimeIndexFileSuffix) || EndsWith(name, kTxnIndexFileSuffix) ||
         EndsWith(name, kSnapshotFileSuffix);
}

// Quarantine: keeps what recovery removes, outside the partition directory.
class Quarantine {
 public:
  Quarantine(Env* env, std::string dir, std::string partition_dir, int64_t now, LoadReport* report)
      : env_(env),
        dir_(std::move(dir)),
        partition_dir_(std::move(partition_dir)),
        now_(now),
        report_(report) {}

  // Copies bytes [from, to) of `log` before they are cut.
  Status KeepRange(const File& log, int64_t from, int64_t to, const std::string& reason) {
    SEGLOG_RETURN_IF_ERROR(env_->CreateDirectories(dir_));
    const std::string name = std::filesystem::path(log.path()).filename().string();
    const std::string target = fmt::format("{}/{}.{}-{}.{}", dir_, name, from, to, now_);
    std::vector<uint8_t> bytes(static_cast<size_t>(to - from));
    SEGLOG_RETURN_IF_ERROR(log.ReadAt(from, bytes));
    SEGLOG_RETURN_IF_ERROR(WriteFileAtomically(
        env_, target, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
    report_->bytes_quarantined += to - from;
    return Note(fmt::format("cut bytes [{}, {}) of {} ({}), kept in {}", from, to, log.path(),
                            reason, target));
  }

  // Moves a whole file out of the partition directory.
  Status KeepFile(const std::string& path, const std::string& reason) {
    if (!env_->FileExists(path)) return Status::OK();
    SEGLOG_RETURN_IF_ERROR(env_->CreateDirectories(dir_));
    const std::string name = std::filesystem::path(path).filename().string();
    const std::string target = fmt::format("{}/{}.{}", dir_, name, now_);
    auto st = env_->Stat(path);
    SEGLOG_RETURN_IF_ERROR(env_->RenameFile(path, target));
    if (st.ok()) report_->bytes_quarantined += st->size;
    return Note(fmt::format("removed {} ({}), kept as {}", path, reason, target));
  }

  Status Note(const std::string& line) {
    report_->actions.push_back(line);
    SEGLOG_RETURN_IF_ERROR(env_->CreateDirectories(dir_));
    SEGLOG_ASSIGN_OR_RETURN(auto f, env_->OpenFile(dir_ + "/cuts.log", File::Mode::kCreate));
    SEGLOG_ASSIGN_OR_RETURN(const int64_t end, f->Size());
    const std::string text = fmt::format("{} {}\n", now_, line);
    SEGLOG_RETURN_IF_ERROR(f->WriteAt(
        end, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
    return f->Sync();
  }

 private:
  Env* const env_;
  std::string dir_;
  std::string partition_dir_;
  int64_t now_;
  LoadReport* report_;
};

// The offset after the last whole batch of a .log file (or `base` when it has none).
Result<int64_t> NextOffsetOfFile(Env* env, const std::string& path, int64_t base) {
  SEGLOG_ASSIGN_OR_RETURN(auto f, env->OpenFile(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, f->Size());
  FileBatchWalker w(*f, 0, size);
  int64_t next = base;
  while (w.Next()) next = w.last_offset() + 1;
  return next;
}

}  // namespace

Result<LoadedLog> LoadLog(const std::string& dir, const LogConfig& config,
                          const LogOptions& options, int64_t now) {
  const bool writable = !options.read_only;
  Env* const env = options.env;
  LoadedLog out;
  const std::string partition = std::filesystem::path(dir).filename().string();
  const std::string quarantine_dir =
      options.quarantine_dir.empty()
          ? (std::filesystem::path(dir).parent_path() / ".quarantine" / partition).string()
          : options.quarantine_dir;
  Quarantine quarantine(env, quarantine_dir, dir, now, &out.report);
  auto remove = [&](const std::string& name, const char* why) -> Status {
    SEGLOG_RETURN_IF_ERROR(env->RemoveFile(dir + "/" + name, true));
    out.report.actions.push_back(fmt::format("deleted {}/{} ({})", dir, name, why));
    return Status::OK();
  };

  // Pass 1 (10.1): temporary files.
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDirectory(dir));
  std::sort(names.begin(), names.end());
  int64_t min_cleaned = INT64_MAX;
  std::vector<std::string> swaps, cleaned;
  for (const std::string& name : names) {
    if (EndsWith(name, kDeletedFileSuffix)) {
      if (writable) SEGLOG_RETURN_IF_ERROR(remove(name, "left by an interrupted delete"));
    } else if (EndsWith(name, kCleanedFileSuffix)) {
      auto offset = OffsetFromFileName(name);
      if (offset.ok()) min_cleaned = std::min(min_cleaned, *offset);
      cleaned.push_back(name);
    } else if (EndsWith(name, kSwapFileSuffix)) {
      swaps.push_back(name);
    }
  }
  if (!writable && (!swaps.empty() || !cleaned.empty())) {
    return Status::FailedPrecondition(fmt::format(
        "{}: an interrupted clean or swap ({} .cleaned, {} .swap files); open it writable to "
        "complete it",
        dir, cleaned.size(), swaps.size()));
  }
  std::vector<std::string> valid_swaps;
  for (const std::string& name : swaps) {
    auto offset = OffsetFromFileName(name);
    if (offset.ok() && *offset >= min_cleaned) {
      SEGLOG_RETURN_IF_ERROR(remove(name, "swap of an unfinished segment split"));
    } else {
      valid_swaps.push_back(name);
    }
  }
  for (const std::string& name : cleaned) {
    SEGLOG_RETURN_IF_ERROR(remove(name, "output of an unfinished cleaning"));
  }

  // Pass 2 (10.2): complete interrupted swaps.
  if (!valid_swaps.empty()) {
    int64_t min_swap = INT64_MAX, max_swap = INT64_MIN;
    for (const std::string& name : valid_swaps) {
      if (!EndsWith(name, std::string(kLogFileSuffix) + std::string(kSwapFileSuffix))) continue;
      SEGLOG_ASSIGN_OR_RETURN(const int64_t base, OffsetFromFileName(name));
      SEGLOG_ASSIGN_OR_RETURN(const int64_t next, NextOffsetOfFile(env, dir + "/" + name, base));
      min_swap = std::min(min_swap, base);
      max_swap = std::max(max_swap, next);
    }
    SEGLOG_ASSIGN_OR_RETURN(names, env->ListDirectory(dir));
    for (const std::string& name : names) {
      if (EndsWith(name, kSwapFileSuffix) || !IsSegmentFileName(name)) continue;
      auto offset = OffsetFromFileName(name);
      if (offset.ok() && *offset >= min_swap && *offset < max_swap) {
        SEGLOG_RETURN_IF_ERROR(remove(name, "replaced by a completed swap"));
      }
    }
    for (const std::string& name : valid_swaps) {
      const std::string target = name.substr(0, name.size() - kSwapFileSuffix.size());
      SEGLOG_RETURN_IF_ERROR(env->RenameFile(dir + "/" + name, dir + "/" + target));
      out.report.actions.push_back(fmt::format("completed swap {}/{} -> {}", dir, name, target));
    }
    SEGLOG_RETURN_IF_ERROR(env->SyncDirectory(dir));
  }

  // Pass 3: the file list, orphan indexes, segments.
  SEGLOG_ASSIGN_OR_RETURN(names, env->ListDirectory(dir));
  std::sort(names.begin(), names.end());
  std::set<int64_t> log_bases;
  for (const std::string& name : names) {
    if (IsKnownMetadataFile(name)) continue;
    // A read-only view leaves a pending deletion's files alone (a writable open deletes them).
    if (!writable && EndsWith(name, kDeletedFileSuffix)) continue;
    if (!IsSegmentFileName(name)) {
      return Status::InvalidArgument(fmt::format(
          "{}/{}: not a file Kafka or seglog keeps in a partition directory", dir, name));
    }
    auto offset = OffsetFromFileName(name);
    const size_t dot = name.find('.');
    if (!offset.ok() || name.substr(0, dot).size() != 20) {
      return Status::InvalidArgument(
          fmt::format("{}/{}: file name does not start with a 20-digit offset", dir, name));
    }
    if (EndsWith(name, kLogFileSuffix)) log_bases.insert(*offset);
  }
  std::set<int64_t> needs_recovery;
  for (const std::string& name : names) {
    const bool index = EndsWith(name, kIndexFileSuffix) || EndsWith(name, kTimeIndexFileSuffix) ||
                       EndsWith(name, kTxnIndexFileSuffix);
    if (!index) continue;
    const int64_t offset = *OffsetFromFileName(name);
    if (!log_bases.count(offset) && writable) {
      SEGLOG_RETURN_IF_ERROR(remove(name, "index without its .log"));
    }
  }
  const SegmentOptions seg_options = MakeSegmentOptions(config, writable, 0, env);
  for (int64_t base : log_bases) {
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<LogSegment> seg,
                            LogSegment::Open(dir, base, seg_options, true, now));
    // A missing offset index is rebuilt by recovery - unless the .log is empty, whose index is
    // empty too (seglog creates index files lazily, on first use).
    if (!env->FileExists(OffsetIndexFilePath(dir, base)) && seg->size() > 0)
      needs_recovery.insert(base);
    out.segments[base] = std::move(seg);
  }

  // Pass 4 (10.2-10.3): recovery.
  auto recover = [&](std::map<int64_t, std::shared_ptr<LogSegment>>::iterator it,
                     const char* why) -> Result<bool> {
    LogSegment& seg = *it->second;
    auto result = seg.Recover([&](const File& log, int64_t from, int64_t to) {
      return quarantine.KeepRange(log, from, to, "invalid or partial batch");
    });
    ++out.report.segments_recovered;
    if (!result.ok()) return result.status();
    out.report.actions.push_back(fmt::format(
        "recovered {} ({}): {} valid batch(es), {} byte(s) cut{}", seg.log_path(), why,
        result->batches, result->truncated_bytes,
        result->stop_reason.ok() ? "" : fmt::format(": {}", result->stop_reason.message())));
    return result->truncated_bytes > 0;
  };
  if (writable) {
    bool truncated = false;
    for (auto it = out.segments.begin(); it != out.segments.end() && !truncated; ++it) {
      auto next = std::next(it);
      const bool after_recovery_point =
          !options.had_clean_shutdown &&
          RecoveredAfterUncleanShutdown(
              next == out.segments.end() ? std::nullopt : std::optional<int64_t>(next->first),
              options.recovery_point);
      if (!after_recovery_point && !needs_recovery.count(it->first)) continue;
      SEGLOG_ASSIGN_OR_RETURN(
          truncated,
          recover(it, after_recovery_point ? "unclean shutdown" : "missing offset index"));
      if (truncated && after_recovery_point) {
        // Every later segment goes (Kafka deletes them); seglog keeps their files.
        for (auto later = std::next(it); later != out.segments.end();) {
          const int64_t base = later->first;
          SEGLOG_RETURN_IF_ERROR(later->second->Close());
          for (const std::string& path :
               {LogFilePath(dir, base), OffsetIndexFilePath(dir, base),
                TimeIndexFilePath(dir, base), TxnIndexFilePath(dir, base)}) {
            SEGLOG_RETURN_IF_ERROR(quarantine.KeepFile(path, "after a cut in an earlier segment"));
          }
          later = out.segments.erase(later);
        }
      } else {
        truncated = false;  // a cut in a segment recovered only for its index stops nothing
      }
    }
  }

  // Pass 5: the log end, start and an active segment.
  if (!out.segments.empty() && writable) {
    SEGLOG_ASSIGN_OR_RETURN(const int64_t next, out.segments.rbegin()->second->ReadNextOffset());
    if (next < options.log_start_offset) {
      // Files were lost: everything below the checkpointed log start offset goes.
      for (auto& [base, seg] : out.segments) {
        SEGLOG_RETURN_IF_ERROR(seg->Close());
        for (const std::string& path :
             {LogFilePath(dir, base), OffsetIndexFilePath(dir, base), TimeIndexFilePath(dir, base),
              TxnIndexFilePath(dir, base)}) {
          SEGLOG_RETURN_IF_ERROR(quarantine.KeepFile(path, "below the log start offset"));
        }
      }
      out.segments.clear();
    }
  }
  if (out.segments.empty()) {
    if (!writable)
      return Status::NotFound(fmt::format("{}: no segments (.log files) to read", dir));
    const int64_t base = std::max<int64_t>(0, options.log_start_offset);
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<LogSegment> seg,
                            LogSegment::Open(dir, base, seg_options, false, now));
    out.segments[base] = std::move(seg);
    SEGLOG_RETURN_IF_ERROR(env->SyncDirectory(dir));
  }
  LogSegment& active = *out.segments.rbegin()->second;
  SEGLOG_ASSIGN_OR_RETURN(out.log_end_offset, active.ReadNextOffset());
  if (writable) SEGLOG_RETURN_IF_ERROR(active.ResizeIndexes(config.segment_index_bytes));
  out.log_start_offset = std::max(options.log_start_offset, out.segments.begin()->first);
  out.recovery_point = options.had_clean_shutdown
                           ? out.log_end_offset
                           : std::min(options.recovery_point, out.log_end_offset);
  return out;
}

}  // namespace seglog
