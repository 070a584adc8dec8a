// Check; see check.h.
#include "tools/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "base/coding.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "log/log_loader.h"
#include "manager/log_directory.h"
#include "metadata/metadata_image.h"
#include "metadata/quorum_state.h"
#include "metadata/snapshot_file.h"
#include "record/batch_walker.h"
#include "record/legacy_record_batch.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct BatchInfo {
  int64_t position;
  int64_t last_offset;
  int64_t max_timestamp;
};

struct PartitionResult {
  std::vector<std::string> problems;
  int segments = 0;
  int64_t batches = 0;
  int64_t first_offset = -1;
  int64_t next_offset = 0;
  // Files of a deletion waiting for file.delete.delay.ms (*.deleted) or of an interrupted
  // clean (*.cleaned, *.swap): normal states that the next writable open finishes.
  int transient_files = 0;
  // After an unclean shutdown: the segments an open would recover (validate, re-index, cut at
  // the first bad batch), and what that recovery would do beyond rebuilding indexes.
  int segments_to_recover = 0;
  std::vector<std::string> notes;
};

class PartitionChecker {
 public:
  // `recover_from`: the recovery point an open would recover from (after an unclean
  // shutdown), or nullopt (after a clean one).
  PartitionChecker(std::string dir, PartitionResult* r, std::optional<int64_t> recover_from,
                   const ProgressCallback& progress)
      : dir_(std::move(dir)), r_(r), recover_from_(recover_from), progress_(progress) {}

  Status Run() {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(dir_));
    std::sort(names.begin(), names.end());
    std::vector<int64_t> bases;
    for (const std::string& name : names) {
      if (name == "leader-epoch-checkpoint" || name == "partition.metadata") continue;
      // KRaft's metadata log keeps its election state and snapshots beside its segments.
      if (name == kQuorumStateFile) {
        CheckQuorumState();
        continue;
      }
      if (ParseSnapshotFileName(name)) {
        CheckMetadataSnapshot(name);
        continue;
      }
      if (EndsWith(name, kPartialSnapshotSuffix) || EndsWith(name, kDeletedSnapshotSuffix)) {
        ++r_->transient_files;
        continue;
      }
      // (.snapshot.tmp: a producer snapshot whose write a crash interrupted; an open removes it.)
      if ((EndsWith(name, ".deleted") || EndsWith(name, ".cleaned") || EndsWith(name, ".swap") ||
           EndsWith(name, ".snapshot.tmp")) &&
          OffsetFromFileName(name).ok() && name.find('.') == 20) {
        ++r_->transient_files;
        continue;
      }
      const bool segment_file = EndsWith(name, ".log") || EndsWith(name, ".index") ||
                                EndsWith(name, ".timeindex") || EndsWith(name, ".txnindex") ||
                                EndsWith(name, ".snapshot");
      auto offset = OffsetFromFileName(name);
      if (!segment_file || !offset.ok() || name.find('.') != 20) {
        Problem(fmt::format("{}/{}: stray file (not a segment, index, snapshot or checkpoint)",
                            dir_, name));
        continue;
      }
      if (EndsWith(name, ".log")) bases.push_back(*offset);
    }
    for (const std::string& name : names) {
      if (!(EndsWith(name, ".index") || EndsWith(name, ".timeindex"))) continue;
      auto offset = OffsetFromFileName(name);
      if (offset.ok() && !std::binary_search(bases.begin(), bases.end(), *offset)) {
        Problem(fmt::format("{}/{}: index without its .log", dir_, name));
      }
    }
    r_->segments = static_cast<int>(bases.size());
    for (size_t i = 0; i < bases.size(); ++i) {
      const bool last = i + 1 == bases.size();
      // The loader's rule: the segments an open recovers get their indexes rebuilt and are cut
      // at their first bad batch, so neither is a problem here - only a note when bytes go.
      const bool recovered =
          recover_from_ &&
          RecoveredAfterUncleanShutdown(last ? std::nullopt : std::optional<int64_t>(bases[i + 1]),
                                        *recover_from_);
      if (recovered) ++r_->segments_to_recover;
      bool cut = false;
      SEGLOG_RETURN_IF_ERROR(CheckSegment(bases[i], last, recovered, &cut));
      if (progress_) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(LogFilePath(dir_, bases[i]), ec);
        progress_({.bytes = ec ? 0 : static_cast<int64_t>(size), .segments = 1});
      }
      if (cut && !last) {
        Note(fmt::format("recovery then removes the {} later segment(s), from {} on",
                         bases.size() - i - 1, LogFilePath(dir_, bases[i + 1])));
        break;
      }
    }
    return Status::OK();
  }

 private:
  void Problem(std::string p) { r_->problems.push_back(std::move(p)); }
  // quorum-state: what Kafka's FileQuorumStateStore would read.
  void CheckQuorumState() {
    Result<QuorumState> qs = ReadQuorumState(Env::Default(), dir_);
    if (!qs.ok()) Problem(std::string(qs.status().message()));
  }
  // A KRaft snapshot: header, footer, CRCs, and every record one this build can replay.
  void CheckMetadataSnapshot(const std::string& name) {
    const std::string path = dir_ + "/" + name;
    Result<SnapshotContents> c = ReadSnapshot(Env::Default(), path);
    if (!c.ok()) {
      Problem(std::string(c.status().message()));
      return;
    }
    MetadataImage image;
    for (size_t i = 0; i < c.value().records.size(); ++i) {
      if (Status s = image.ReplayValue(c.value().records[i]); !s.ok()) {
        Problem(fmt::format("{}: record {}: {}", path, i + 1, s.message()));
        return;
      }
    }
    Note(fmt::format("{}: snapshot of {} record(s), metadata.version {}", name,
                     c.value().records.size(), image.FeatureLevel(kMetadataVersionFeature)));
  }
  void Note(std::string n) { r_->notes.push_back(std::move(n)); }

  // `recovered`: an open would recover this segment; *cut: that recovery would cut it.
  Status CheckSegment(int64_t base, bool last, bool recovered, bool* cut) {
    const std::string log_path = LogFilePath(dir_, base);
    SEGLOG_ASSIGN_OR_RETURN(auto file, MappedRegion::MapWholeFile(log_path));
    const auto bytes = file->bytes();
    if (base < r_->next_offset) {
      Problem(fmt::format("{}: base offset {} is below the previous segment's next offset {}",
                          log_path, base, r_->next_offset));
    }
    std::vector<BatchInfo> batches;
    LogBatchWalker w(bytes);
    int64_t prev_last = base - 1;
    while (w.Next()) {
      const BatchPrefix& p = w.current();
      int64_t first_offset = p.base_offset, last_offset = p.base_offset, max_ts = -1;
      Status valid;
      if (p.magic >= kMagicV2) {
        auto v = RecordBatchView::Parse(w.current_bytes(), p.position);
        valid = v.ok() ? v->ValidateCrc() : v.status();
        if (v.ok()) {
          last_offset = v->last_offset();
          max_ts = v->max_timestamp();
        }
      } else {
        auto v = LegacyRecordBatchView::Parse(w.current_bytes(), p.position);
        valid = v.ok() ? v->ValidateCrc() : v.status();
        first_offset = last_offset;  // a legacy entry names its last offset
      }
      if (!valid.ok()) {
        if (recovered) {
          *cut = true;
          Note(
              fmt::format("{}: recovery cuts the segment at position {}, the first invalid batch "
                          "({})",
                          log_path, p.position, valid.message()));
        } else {
          Problem(valid.WithContext(log_path).ToString());
        }
        return Status::OK();  // nothing after a bad batch can be trusted
      }
      if (first_offset <= prev_last) {
        Problem(
            fmt::format("{}: batch at position {}: offset {} does not follow the previous "
                        "last offset {}",
                        log_path, p.position, first_offset, prev_last));
      }
      if (last_offset - base < 0 || last_offset - base > INT32_MAX) {
        Problem(
            fmt::format("{}: batch at position {}: last offset {} is not representable "
                        "relative to the base offset {}",
                        log_path, p.position, last_offset, base));
      }
      if (r_->first_offset < 0) r_->first_offset = p.base_offset;
      prev_last = last_offset;
      batches.push_back({p.position, last_offset, max_ts});
      ++r_->batches;
    }
    if (!w.status().ok()) {
      if (recovered) {
        *cut = true;
        Note(fmt::format("{}: recovery cuts the segment at position {} ({})", log_path,
                         w.end_of_batches(), w.status().message()));
      } else {
        Problem(w.status().WithContext(log_path).ToString());
      }
      return Status::OK();
    }
    if (w.trailing_bytes() > 0) {
      if (recovered) {
        *cut = true;
        Note(fmt::format("{}: recovery cuts the {} byte(s) at position {}, not a whole batch",
                         log_path, w.trailing_bytes(), w.end_of_batches()));
      } else {
        Problem(fmt::format("{}: {} byte(s) at position {} are not a whole batch", log_path,
                            w.trailing_bytes(), w.end_of_batches()));
      }
    }
    r_->next_offset = std::max(r_->next_offset, prev_last + 1);
    if (recovered) return Status::OK();  // recovery rebuilds both indexes
    CheckOffsetIndex(base, last, batches);
    CheckTimeIndex(base, last, batches);
    return Status::OK();
  }

  // Entries of an index file, stopping at a zero-filled tail (entry i > 0 equal to the base).
  template <typename Entry, typename Parse>
  std::vector<Entry> Entries(const std::string& path, size_t entry_size, bool last, Parse parse,
                             bool* ok) {
    std::vector<Entry> out;
    *ok = true;
    auto file = MappedRegion::MapWholeFile(path);
    if (!file.ok()) {
      if (!file.status().IsNotFound() && FileExists(path)) Problem(file.status().ToString());
      *ok = false;
      return out;
    }
    const auto bytes = (*file)->bytes();
    if (bytes.size() % entry_size != 0) {
      Problem(fmt::format("{}: {} bytes, not a whole number of {}-byte entries", path, bytes.size(),
                          entry_size));
    }
    const size_t n = bytes.size() / entry_size;
    bool zero_tail = false;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* e = bytes.data() + i * entry_size;
      bool all_zero = std::all_of(e, e + entry_size, [](uint8_t b) { return b == 0; });
      if (i > 0 && all_zero) {
        zero_tail = true;
        break;
      }
      out.push_back(parse(e));
    }
    if (zero_tail && !last) {
      Problem(
          fmt::format("{}: untrimmed, zero-filled tail after {} entries on a segment that is "
                      "not the active one",
                      path, out.size()));
    }
    return out;
  }

  void CheckOffsetIndex(int64_t base, bool last, const std::vector<BatchInfo>& batches) {
    const std::string path = OffsetIndexFilePath(dir_, base);
    bool ok = false;
    auto entries = Entries<std::pair<int64_t, int64_t>>(
        path, 8, last,
        [base](const uint8_t* e) {
          return std::pair<int64_t, int64_t>{base + LoadBEInt32(e), LoadBEInt32(e + 4)};
        },
        &ok);
    int64_t prev = -1;
    for (const auto& [offset, position] : entries) {
      if (prev != -1 && offset <= prev) {
        Problem(
            fmt::format("{}: entry offset {} does not increase (previous {})", path, offset, prev));
      }
      prev = offset;
      auto it = std::lower_bound(batches.begin(), batches.end(), position,
                                 [](const BatchInfo& b, int64_t p) { return b.position < p; });
      if (it == batches.end() || it->position != position) {
        Problem(fmt::format("{}: entry {} -> position {}: no batch starts there", path, offset,
                            position));
      } else if (it->last_offset != offset) {
        Problem(
            fmt::format("{}: entry at position {}: expected the batch's last offset {}, "
                        "found {}",
                        path, position, it->last_offset, offset));
      }
    }
  }

  void CheckTimeIndex(int64_t base, bool last, const std::vector<BatchInfo>& batches) {
    const std::string path = TimeIndexFilePath(dir_, base);
    bool ok = false;
    auto entries = Entries<std::pair<int64_t, int64_t>>(
        path, 12, last,
        [base](const uint8_t* e) {
          return std::pair<int64_t, int64_t>{LoadBEInt64(e), base + LoadBEInt32(e + 8)};
        },
        &ok);
    int64_t prev_ts = -1, prev_offset = -1;
    const int64_t last_offset = batches.empty() ? base - 1 : batches.back().last_offset;
    for (const auto& [ts, offset] : entries) {
      if (ts <= prev_ts || offset < prev_offset) {
        Problem(fmt::format("{}: entry ({}, {}) is out of order after ({}, {})", path, ts, offset,
                            prev_ts, prev_offset));
      }
      if (offset < base || offset > last_offset) {
        Problem(fmt::format("{}: entry ({}, {}): offset outside the segment [{}, {}]", path, ts,
                            offset, base, last_offset));
      }
      prev_ts = ts;
      prev_offset = offset;
    }
  }

  std::string dir_;
  PartitionResult* r_;
  const std::optional<int64_t> recover_from_;
  const ProgressCallback& progress_;
};

// The .log files of `dir` and their bytes, for a progress total.
ProgressStep LogFilesIn(const std::string& dir) {
  ProgressStep total;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".log") continue;
    std::error_code size_ec;
    const auto size = e.file_size(size_ec);
    total.add_bytes_total += size_ec ? 0 : static_cast<int64_t>(size);
    ++total.add_segments_total;
  }
  return total;
}

}  // namespace

Result<int64_t> CheckLogDir(const CheckOptions& o, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(o.log_dir));
  std::sort(names.begin(), names.end());
  // First what an open would do: as LogDirectory::Open decides it, a directory holding
  // partitions but no clean-shutdown marker was not shut down cleanly, and each partition is
  // then recovered from its checkpointed recovery point (0 without one; an unreadable
  // checkpoint counts as none, and is reported below).
  bool any_partition = false;
  for (const std::string& name : names) any_partition |= IsLoadablePartitionDir(name);
  const bool unclean = any_partition && !FileExists(o.log_dir + "/" + kCleanShutdownFile);
  OffsetMap recovery_points;
  if (unclean && FileExists(o.log_dir + "/" + kRecoveryPointCheckpointFile)) {
    auto m = ReadOffsetCheckpoint(o.log_dir + "/" + kRecoveryPointCheckpointFile);
    if (m.ok()) recovery_points = std::move(m).value();
  }
  std::map<std::string, std::optional<int64_t>> recover_from;  // by partition dir name
  for (const std::string& name : names) {
    auto tp = ParsePartitionDirName(name);
    if (!tp.ok() || name != PartitionDirName(*tp)) continue;
    if (!o.topic.empty() && tp->topic != o.topic) continue;
    std::optional<int64_t>& from = recover_from[name];
    if (!unclean || !IsLoadablePartitionDir(name)) continue;
    auto it = recovery_points.find(*tp);
    from = it == recovery_points.end() ? 0 : it->second;
  }
  if (unclean) {
    const auto recovered = std::count_if(recover_from.begin(), recover_from.end(),
                                         [](const auto& e) { return e.second.has_value(); });
    out << fmt::format("{}: not shut down cleanly (no {}): opening it recovers {} partition(s)\n",
                       o.log_dir, kCleanShutdownFile, recovered);
    for (const auto& [name, from] : recover_from) {
      if (!from) continue;
      auto tp = ParsePartitionDirName(name);
      out << fmt::format(
          "  {} from offset {} ({})\n", name, *from,
          recovery_points.count(*tp) ? "its recovery point" : "no recovery point checkpointed");
    }
  }
  std::map<std::string, PartitionResult> results;             // by partition dir name
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;  // "topic partition" -> [start, end)
  if (o.progress) {
    for (const auto& [name, from] : recover_from) o.progress(LogFilesIn(o.log_dir + "/" + name));
  }
  for (const auto& [name, from] : recover_from) {
    auto tp = ParsePartitionDirName(name);
    PartitionResult& r = results[name];
    PartitionChecker checker(o.log_dir + "/" + name, &r, from, o.progress);
    Status s = checker.Run();
    if (!s.ok()) r.problems.push_back(s.ToString());
    ranges[tp->topic + " " + std::to_string(tp->partition)] = {r.first_offset, r.next_offset};
  }
  if (o.progress) o.progress({.done = true});
  int64_t problems = 0;
  // Root checkpoints.
  for (const char* cp : {kRecoveryPointCheckpointFile, kLogStartOffsetCheckpointFile,
                         kCleanerOffsetCheckpointFile}) {
    const std::string path = o.log_dir + "/" + cp;
    if (!FileExists(path)) continue;
    auto m = ReadOffsetCheckpoint(path);
    if (!m.ok()) {
      out << m.status().ToString() << "\n";
      ++problems;
      continue;
    }
    for (const auto& [tp, offset] : *m) {
      if (!o.topic.empty() && tp.topic != o.topic) continue;
      auto it = ranges.find(tp.topic + " " + std::to_string(tp.partition));
      if (it == ranges.end()) continue;  // a partition this directory no longer has
      const auto [start, end] = it->second;
      if (offset < 0 || offset > end) {
        out << fmt::format("{}: {}-{} at offset {}, outside the partition's offsets [{}, {}]\n",
                           path, tp.topic, tp.partition, offset, std::max<int64_t>(start, 0), end);
        ++problems;
      }
    }
  }
  for (const auto& [name, r] : results) {
    if (r.problems.empty()) {
      out << fmt::format(
          "{}: OK ({} segment(s), {} batch(es), offsets {} to {}{}{})\n", name, r.segments,
          r.batches, std::max<int64_t>(r.first_offset, 0), r.next_offset - 1,
          r.transient_files == 0
              ? ""
              : fmt::format("; {} file(s) awaiting deletion or swap", r.transient_files),
          r.segments_to_recover == 0
              ? ""
              : fmt::format("; {} segment(s) to recover", r.segments_to_recover));
    } else {
      out << fmt::format("{}: {} problem(s)\n", name, r.problems.size());
      for (const std::string& p : r.problems) out << "  " << p << "\n";
      problems += static_cast<int64_t>(r.problems.size());
    }
    for (const std::string& n : r.notes) out << "  note: " << n << "\n";
  }
  out << fmt::format("checked {} partition(s): {} problem(s)\n", results.size(), problems);
  if (o.remote) {
    SEGLOG_ASSIGN_OR_RETURN(const int64_t remote_problems, CheckRemoteTier(o, out));
    problems += remote_problems;
  }
  return problems;
}

}  // namespace seglog
