// LogLoader; see log_loader.h. Kafka's passes: docs/design/recovery.md ("The order").
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
         name == "leader-epoch-checkpoint.tmp" || name == "partition.metadata.tmp" ||
         // KRaft's metadata log (__cluster_metadata-0): its election state and its snapshots,
         // finished, in progress or marked for deletion (src/metadata).
         name == "quorum-state" || name == "quorum-state.tmp" || EndsWith(name, ".checkpoint") ||
         EndsWith(name, ".checkpoint.part") || EndsWith(name, ".checkpoint.deleted");
}

// A producer snapshot being written (ProducerStateManager::TakeSnapshot writes <name>.tmp and
// renames it): a leftover of a crash mid-write, removed at open. Kafka's loader ignores it.
bool IsSnapshotTempFileName(const std::string& name) {
  return EndsWith(name, std::string(kSnapshotFileSuffix) + ".tmp");
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

namespace {

// One load of one partition directory, as the named passes of Kafka's LogLoader (see
// log_loader.h): RemoveTemporaryFiles, CompleteSwaps, LoadSegments, Recover, then
// EnsureActiveSegment. Lives for one LoadLog call. Thread safety: not thread-safe.
class LogLoader {
 public:
  LogLoader(const std::string& dir, const LogConfig& config, const LogOptions& options, int64_t now)
      : dir_(dir),
        config_(config),
        options_(options),
        now_(now),
        writable_(!options.read_only),
        env_(options.env),
        quarantine_(env_, QuarantineDir(dir, options), dir, now, &out_.report),
        seg_options_(MakeSegmentOptions(config, writable_, 0, env_)) {}

  Result<LoadedLog> Run() {
    SEGLOG_ASSIGN_OR_RETURN(const std::vector<std::string> swaps, RemoveTemporaryFiles());
    SEGLOG_RETURN_IF_ERROR(CompleteSwaps(swaps));
    SEGLOG_RETURN_IF_ERROR(LoadSegments());
    if (writable_) SEGLOG_RETURN_IF_ERROR(Recover());
    SEGLOG_RETURN_IF_ERROR(EnsureActiveSegment());
    return std::move(out_);
  }

 private:
  static std::string QuarantineDir(const std::string& dir, const LogOptions& options) {
    if (!options.quarantine_dir.empty()) return options.quarantine_dir;
    const std::string partition = std::filesystem::path(dir).filename().string();
    return (std::filesystem::path(dir).parent_path() / ".quarantine" / partition).string();
  }

  Status Remove(const std::string& name, const char* why) {
    SEGLOG_RETURN_IF_ERROR(env_->RemoveFile(dir_ + "/" + name, true));
    out_.report.actions.push_back(fmt::format("deleted {}/{} ({})", dir_, name, why));
    return Status::OK();
  }

  // Moves every file of the segment at `base` into the quarantine.
  Status QuarantineSegment(int64_t base, LogSegment& seg, const char* why) {
    SEGLOG_RETURN_IF_ERROR(seg.Close());
    for (const std::string& path : {LogFilePath(dir_, base), OffsetIndexFilePath(dir_, base),
                                    TimeIndexFilePath(dir_, base), TxnIndexFilePath(dir_, base)}) {
      SEGLOG_RETURN_IF_ERROR(quarantine_.KeepFile(path, why));
    }
    return Status::OK();
  }

  // Pass 1 (recovery.md, "The order" 1-2): *.deleted leftovers and *.cleaned output go, and so do
  // the .swap files of an unfinished split (at or above the smallest .cleaned offset). Returns the
  // .swap files of completed cleanings, whose swap Pass 2 finishes. A read-only view refuses a
  // directory with either, rather than change it.
  Result<std::vector<std::string>> RemoveTemporaryFiles() {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDirectory(dir_));
    std::sort(names.begin(), names.end());
    int64_t min_cleaned = INT64_MAX;
    std::vector<std::string> swaps, cleaned;
    for (const std::string& name : names) {
      if (EndsWith(name, kDeletedFileSuffix)) {
        if (writable_) SEGLOG_RETURN_IF_ERROR(Remove(name, "left by an interrupted delete"));
      } else if (IsSnapshotTempFileName(name)) {
        if (writable_) SEGLOG_RETURN_IF_ERROR(Remove(name, "producer snapshot never completed"));
      } else if (EndsWith(name, kCleanedFileSuffix)) {
        auto offset = OffsetFromFileName(name);
        if (offset.ok()) min_cleaned = std::min(min_cleaned, *offset);
        cleaned.push_back(name);
      } else if (EndsWith(name, kSwapFileSuffix)) {
        swaps.push_back(name);
      }
    }
    if (!writable_ && (!swaps.empty() || !cleaned.empty())) {
      return Status::FailedPrecondition(fmt::format(
          "{}: an interrupted clean or swap ({} .cleaned, {} .swap files); open it writable to "
          "complete it",
          dir_, cleaned.size(), swaps.size()));
    }
    std::vector<std::string> valid_swaps;
    for (const std::string& name : swaps) {
      auto offset = OffsetFromFileName(name);
      if (offset.ok() && *offset >= min_cleaned) {
        SEGLOG_RETURN_IF_ERROR(Remove(name, "swap of an unfinished segment split"));
      } else {
        valid_swaps.push_back(name);
      }
    }
    for (const std::string& name : cleaned) {
      SEGLOG_RETURN_IF_ERROR(Remove(name, "output of an unfinished cleaning"));
    }
    return valid_swaps;
  }

  // Pass 2 ("The order" 3): completes interrupted swaps - the segment files in the swapped range
  // go, then the .swap suffix is dropped.
  Status CompleteSwaps(const std::vector<std::string>& swaps) {
    if (swaps.empty()) return Status::OK();
    int64_t min_swap = INT64_MAX, max_swap = INT64_MIN;
    for (const std::string& name : swaps) {
      if (!EndsWith(name, std::string(kLogFileSuffix) + std::string(kSwapFileSuffix))) continue;
      SEGLOG_ASSIGN_OR_RETURN(const int64_t base, OffsetFromFileName(name));
      SEGLOG_ASSIGN_OR_RETURN(const int64_t next, NextOffsetOfFile(env_, dir_ + "/" + name, base));
      min_swap = std::min(min_swap, base);
      max_swap = std::max(max_swap, next);
    }
    SEGLOG_ASSIGN_OR_RETURN(const std::vector<std::string> names, env_->ListDirectory(dir_));
    for (const std::string& name : names) {
      if (EndsWith(name, kSwapFileSuffix) || !IsSegmentFileName(name)) continue;
      auto offset = OffsetFromFileName(name);
      if (offset.ok() && *offset >= min_swap && *offset < max_swap) {
        SEGLOG_RETURN_IF_ERROR(Remove(name, "replaced by a completed swap"));
      }
    }
    for (const std::string& name : swaps) {
      const std::string target = name.substr(0, name.size() - kSwapFileSuffix.size());
      SEGLOG_RETURN_IF_ERROR(env_->RenameFile(dir_ + "/" + name, dir_ + "/" + target));
      out_.report.actions.push_back(fmt::format("completed swap {}/{} -> {}", dir_, name, target));
    }
    return env_->SyncDirectory(dir_);
  }

  // Pass 3: checks every file name, removes orphan indexes (no .log), and opens a segment per
  // .log (lazily: no descriptor or mapping yet). A non-empty segment without its offset index
  // is marked for recovery, which rebuilds it.
  Status LoadSegments() {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDirectory(dir_));
    std::sort(names.begin(), names.end());
    std::set<int64_t> log_bases;
    for (const std::string& name : names) {
      if (IsKnownMetadataFile(name) || IsSnapshotTempFileName(name)) continue;
      // A read-only view leaves a pending deletion's files alone (a writable open deletes them).
      if (!writable_ && EndsWith(name, kDeletedFileSuffix)) continue;
      if (!IsSegmentFileName(name)) {
        return Status::InvalidArgument(fmt::format(
            "{}/{}: not a file Kafka or seglog keeps in a partition directory", dir_, name));
      }
      auto offset = OffsetFromFileName(name);
      const size_t dot = name.find('.');
      if (!offset.ok() || name.substr(0, dot).size() != 20) {
        return Status::InvalidArgument(
            fmt::format("{}/{}: file name does not start with a 20-digit offset", dir_, name));
      }
      if (EndsWith(name, kLogFileSuffix)) log_bases.insert(*offset);
    }
    for (const std::string& name : names) {
      const bool index = EndsWith(name, kIndexFileSuffix) || EndsWith(name, kTimeIndexFileSuffix) ||
                         EndsWith(name, kTxnIndexFileSuffix);
      if (!index) continue;
      const int64_t offset = *OffsetFromFileName(name);
      if (!log_bases.count(offset) && writable_) {
        SEGLOG_RETURN_IF_ERROR(Remove(name, "index without its .log"));
      }
    }
    for (int64_t base : log_bases) {
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<LogSegment> seg,
                              LogSegment::Open(dir_, base, seg_options_, true, now_));
      // A missing offset index is rebuilt by recovery - unless the .log is empty, whose index
      // is empty too (seglog creates index files lazily, on first use).
      if (!env_->FileExists(OffsetIndexFilePath(dir_, base)) && seg->size() > 0) {
        missing_index_.insert(base);
      }
      out_.segments[base] = std::move(seg);
    }
    return Status::OK();
  }

  // Recovers one segment; returns whether bytes were cut (they go to the quarantine).
  Result<bool> RecoverSegment(LogSegment& seg, const char* why) {
    auto result = seg.Recover([&](const File& log, int64_t from, int64_t to) {
      return quarantine_.KeepRange(log, from, to, "invalid or partial batch");
    });
    ++out_.report.segments_recovered;
    if (!result.ok()) return result.status();
    if (result->txn_index_reset && !out_.txn_index_rebuild_from) {
      out_.txn_index_rebuild_from = seg.base_offset();  // segments are recovered in order
    }
    out_.report.actions.push_back(fmt::format(
        "recovered {} ({}): {} valid batch(es), {} byte(s) cut{}", seg.log_path(), why,
        result->batches, result->truncated_bytes,
        result->stop_reason.ok() ? "" : fmt::format(": {}", result->stop_reason.message())));
    return result->truncated_bytes > 0;
  }

  // Pass 4 ("The order" 4-5): after an unclean shutdown, every segment from the recovery point on
  // is recovered, and a cut in one removes every later segment (Kafka deletes them; seglog
  // quarantines their files); a segment recovered only for a missing index stops nothing.
  Status Recover() {
    auto unflushed = [&](auto it) {
      auto next = std::next(it);
      return !options_.had_clean_shutdown &&
             RecoveredAfterUncleanShutdown(
                 next == out_.segments.end() ? std::nullopt : std::optional<int64_t>(next->first),
                 options_.recovery_point);
    };
    // Kafka's LogLoader line before each segment recovered after an unclean shutdown:
    // "[LogLoader partition=t-0, dir=/data] Recovering unflushed segment 0. 0/2 recovered for
    // t-0."
    int64_t to_recover = 0, recovered = 0;
    for (auto it = out_.segments.begin(); it != out_.segments.end(); ++it) {
      to_recover += unflushed(it) ? 1 : 0;
    }
    const size_t slash = dir_.find_last_of('/');
    const std::string partition = slash == std::string::npos ? dir_ : dir_.substr(slash + 1);
    const std::string parent = slash == std::string::npos ? "." : dir_.substr(0, slash);
    for (auto it = out_.segments.begin(); it != out_.segments.end(); ++it) {
      auto next = std::next(it);
      const bool after_recovery_point = unflushed(it);
      if (after_recovery_point) {
        out_.report.actions.push_back(fmt::format(
            "[LogLoader partition={}, dir={}] Recovering unflushed segment {}. {}/{} recovered "
            "for {}.",
            partition, parent, it->first, recovered++, to_recover, partition));
      }
      // Kafka's sanityCheck of every segment's transaction index at load.
      Status txn = it->second->txn_index().SanityCheck(
          next == out_.segments.end() ? std::nullopt : std::optional<int64_t>(next->first));
      if (!after_recovery_point && !missing_index_.count(it->first) && txn.ok()) continue;
      SEGLOG_ASSIGN_OR_RETURN(const bool truncated,
                              RecoverSegment(*it->second, after_recovery_point ? "unclean shutdown"
                                                          : !txn.ok() ? "corrupt transaction index"
                                                                      : "missing offset index"));
      if (!truncated || !after_recovery_point) continue;
      for (auto later = std::next(it); later != out_.segments.end();) {
        SEGLOG_RETURN_IF_ERROR(
            QuarantineSegment(later->first, *later->second, "after a cut in an earlier segment"));
        later = out_.segments.erase(later);
      }
      break;
    }
    return Status::OK();
  }

  // Pass 5: segments whose data ends below the checkpointed log start offset (files were lost)
  // go; a log left without segments gets an empty one at the log start offset; then the log
  // end, log start and recovery point, and the active segment's indexes regrown.
  Status EnsureActiveSegment() {
    if (!out_.segments.empty() && writable_) {
      SEGLOG_ASSIGN_OR_RETURN(const int64_t next, out_.segments.rbegin()->second->ReadNextOffset());
      if (next < options_.log_start_offset) {
        for (auto& [base, seg] : out_.segments) {
          SEGLOG_RETURN_IF_ERROR(QuarantineSegment(base, *seg, "below the log start offset"));
        }
        out_.segments.clear();
      }
    }
    if (out_.segments.empty()) {
      if (!writable_) {
        return Status::NotFound(fmt::format("{}: no segments (.log files) to read", dir_));
      }
      const int64_t base = std::max<int64_t>(0, options_.log_start_offset);
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<LogSegment> seg,
                              LogSegment::Open(dir_, base, seg_options_, false, now_));
      out_.segments[base] = std::move(seg);
      SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(dir_));
    }
    LogSegment& active = *out_.segments.rbegin()->second;
    SEGLOG_ASSIGN_OR_RETURN(out_.log_end_offset, active.ReadNextOffset());
    if (writable_) SEGLOG_RETURN_IF_ERROR(active.ResizeIndexes(config_.segment_index_bytes));
    // A tiered log's start may lie in remote storage, below its first local segment (Kafka's
    // LogLoader keeps the checkpoint then).
    out_.log_start_offset = RemoteLogEnabledFor(dir_, config_, options_)
                                ? std::max<int64_t>(0, options_.log_start_offset)
                                : std::max(options_.log_start_offset, out_.segments.begin()->first);
    out_.recovery_point = options_.had_clean_shutdown
                              ? out_.log_end_offset
                              : std::min(options_.recovery_point, out_.log_end_offset);
    return Status::OK();
  }

  const std::string& dir_;
  const LogConfig& config_;
  const LogOptions& options_;
  const int64_t now_;
  const bool writable_;
  Env* const env_;
  LoadedLog out_;
  Quarantine quarantine_;
  const SegmentOptions seg_options_;
  std::set<int64_t> missing_index_;  // segments recovered to rebuild their offset index
};

}  // namespace

Result<LoadedLog> LoadLog(const std::string& dir, const LogConfig& config,
                          const LogOptions& options, int64_t now) {
  return LogLoader(dir, config, options, now).Run();
}

}  // namespace seglog
