// RemoteIndexCache; see remote_index_cache.h.
#include "remote/remote_index_cache.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <map>
#include <optional>

#include "io/file_names.h"

namespace seglog {
namespace {

constexpr std::string_view kDeletedSuffix = kDeletedFileSuffix;
// The three files of a set, in RemoteIndexPaths order.
constexpr std::array<std::string_view, 3> kSuffixes = {kIndexFileSuffix, kTimeIndexFileSuffix,
                                                       kTxnIndexFileSuffix};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A cache file name "<start offset>_<segment id><suffix>": which of kSuffixes, the prefix, and
// the parsed offset and id. nullopt for any other name.
struct ParsedName {
  size_t kind = 0;
  std::string prefix;
  int64_t start_offset = 0;
  Uuid segment_id;
};
std::optional<ParsedName> ParseFileName(std::string_view name) {
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::optional<size_t> kind;
  for (size_t k = 0; k < kSuffixes.size(); ++k) {
    if (name.substr(dot) == kSuffixes[k]) kind = k;
  }
  if (!kind) return std::nullopt;
  const std::string_view prefix = name.substr(0, dot);
  const size_t underscore = prefix.find('_');  // offsets have no '_'; ids may
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  ParsedName out;
  out.kind = *kind;
  out.prefix = std::string(prefix);
  const char* first = prefix.data();
  const char* last = prefix.data() + underscore;
  const auto [end, ec] = std::from_chars(first, last, out.start_offset);
  if (ec != std::errc() || end != last || out.start_offset < 0) return std::nullopt;
  Result<Uuid> id = Uuid::Parse(prefix.substr(underscore + 1));
  if (!id.ok()) return std::nullopt;
  out.segment_id = *id;
  return out;
}

RemoteIndexPaths PathsWithPrefix(const std::string& dir, std::string_view prefix,
                                 std::string_view extra_suffix = "") {
  auto path = [&](std::string_view suffix) {
    return fmt::format("{}/{}{}{}", dir, prefix, suffix, extra_suffix);
  };
  return {path(kSuffixes[0]), path(kSuffixes[1]), path(kSuffixes[2])};
}

// Writes `bytes` as the whole of `path` and fsyncs it.
Status WriteWholeFile(Env* env, const std::string& path, std::span<const uint8_t> bytes) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env->OpenFile(path, File::Mode::kCreate));
  SEGLOG_RETURN_IF_ERROR(file->Truncate(0));
  if (!bytes.empty()) SEGLOG_RETURN_IF_ERROR(file->WriteAt(0, bytes));
  return file->Sync();
}

}  // namespace

size_t RemoteIndexCache::UuidHash::operator()(const Uuid& id) const {
  return std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()));
}

std::string RemoteIndexCache::FileNamePrefix(int64_t start_offset, const Uuid& segment_id) {
  return fmt::format("{}_{}", start_offset, segment_id.ToString());
}

RemoteIndexPaths RemoteIndexCache::IndexPaths(const std::string& dir, int64_t start_offset,
                                              const Uuid& segment_id) {
  return PathsWithPrefix(dir, FileNamePrefix(start_offset, segment_id));
}

Result<std::unique_ptr<RemoteIndexCache>> RemoteIndexCache::Open(RemoteIndexCacheOptions options,
                                                                 RemoteStorageManager* rsm) {
  if (options.dir.empty()) {
    return Status::InvalidArgument("remote index cache: no directory given");
  }
  if (options.total_size_bytes <= 0) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value {} for configuration remote.log.index.file.cache.total.size.bytes: "
        "Value must be at least 1",
        options.total_size_bytes));
  }
  if (rsm == nullptr) {
    return Status::InvalidArgument("remote index cache: no remote storage manager");
  }
  std::unique_ptr<RemoteIndexCache> cache(new RemoteIndexCache(std::move(options), rsm));
  cache->env_ = cache->options_.env != nullptr ? cache->options_.env : Env::Default();
  SEGLOG_RETURN_IF_ERROR(cache->LoadExisting());
  return cache;
}

RemoteIndexCache::~RemoteIndexCache() = default;

Status RemoteIndexCache::RemovePaths(const RemoteIndexPaths& paths) {
  Status first;
  for (const std::string* p : {&paths.offset_index, &paths.time_index, &paths.txn_index}) {
    Status s = env_->RemoveFile(*p, /*missing_ok=*/true);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status RemoteIndexCache::LoadExisting() {
  const std::string& dir = options_.dir;
  SEGLOG_RETURN_IF_ERROR(env_->CreateDirectories(dir));
  SEGLOG_ASSIGN_OR_RETURN(const std::vector<std::string> names, env_->ListDirectory(dir));
  struct FoundSet {
    int64_t start_offset = 0;
    Uuid segment_id;
    std::array<bool, 3> present{};
  };
  std::map<std::string, FoundSet> sets;  // by prefix; sorted, so the order is reproducible
  for (const std::string& name : names) {
    const std::string path = fmt::format("{}/{}", dir, name);
    std::optional<ParsedName> parsed;
    if (!EndsWith(name, kRemoteIndexTmpSuffix) && !EndsWith(name, kDeletedSuffix)) {
      parsed = ParseFileName(name);
    }
    if (!parsed) {
      // A write a crash interrupted, Kafka's *.deleted, or a name that is not the cache's.
      SEGLOG_RETURN_IF_ERROR(
          env_->RemoveFile(path, /*missing_ok=*/true).WithContext("remote index cache"));
      continue;
    }
    FoundSet& set = sets[parsed->prefix];
    set.start_offset = parsed->start_offset;
    set.segment_id = parsed->segment_id;
    set.present[parsed->kind] = true;
  }

  int64_t reused = 0;
  int64_t discarded = 0;
  for (const auto& [prefix, set] : sets) {
    const RemoteIndexPaths paths = PathsWithPrefix(dir, prefix);
    bool keep = set.present[0] && set.present[1] && set.present[2];
    std::shared_ptr<RemoteIndexes> indexes;
    if (keep) {
      Result<std::shared_ptr<RemoteIndexes>> opened = RemoteIndexes::Open(
          env_, paths, {set.segment_id, set.start_offset, std::nullopt, std::nullopt});
      if (opened.ok()) {
        indexes = std::move(*opened);
      } else if (opened.status().IsCorruption()) {
        keep = false;
      } else {
        return opened.status().WithContext("remote index cache");
      }
    }
    if (keep) {
      MutexLock l(&mu_);
      // Two sets of one id (e.g. "0000...0042_<id>" beside "42_<id>"): the first wins.
      keep = entries_.count(set.segment_id) == 0;
      if (keep) InsertLocked(indexes);
    }
    if (!keep) {
      indexes.reset();
      SEGLOG_RETURN_IF_ERROR(RemovePaths(paths).WithContext("remote index cache"));
      ++discarded;
      continue;
    }
    ++reused;
  }

  std::vector<std::shared_ptr<RemoteIndexes>> victims;
  {
    MutexLock l(&mu_);
    stats_.reused_at_open = reused;
    stats_.discarded_at_open = discarded;
    EvictLocked(&victims);  // a smaller bound than the last run's
  }
  return DeleteFiles(victims);
}

void RemoteIndexCache::InsertLocked(std::shared_ptr<RemoteIndexes> indexes) {
  const Uuid id = indexes->segment_id();
  size_bytes_ += indexes->size_bytes();
  lru_.push_front(id);
  entries_[id] = Entry{std::move(indexes), lru_.begin()};
}

std::shared_ptr<RemoteIndexes> RemoteIndexCache::TakeLocked(const Uuid& segment_id) {
  auto it = entries_.find(segment_id);
  if (it == entries_.end()) return nullptr;
  std::shared_ptr<RemoteIndexes> indexes = std::move(it->second.indexes);
  lru_.erase(it->second.lru);
  entries_.erase(it);
  size_bytes_ -= indexes->size_bytes();
  return indexes;
}

void RemoteIndexCache::EvictLocked(std::vector<std::shared_ptr<RemoteIndexes>>* victims) {
  while (size_bytes_ > options_.total_size_bytes && !lru_.empty()) {
    const Uuid id = lru_.back();
    victims->push_back(TakeLocked(id));
    busy_.emplace(id, Busy{});
    ++stats_.evictions;
  }
}

Status RemoteIndexCache::DeleteFiles(const std::vector<std::shared_ptr<RemoteIndexes>>& victims) {
  if (victims.empty()) return Status::OK();
  Status first;
  int64_t failures = 0;
  for (const std::shared_ptr<RemoteIndexes>& v : victims) {
    Status s = RemovePaths(v->paths());
    if (!s.ok()) {
      ++failures;
      if (first.ok()) first = s.WithContext(RemoteSegmentName(v->segment_id(), v->start_offset()));
    }
  }
  MutexLock l(&mu_);
  for (const std::shared_ptr<RemoteIndexes>& v : victims) busy_.erase(v->segment_id());
  stats_.delete_failures += failures;
  busy_cv_.SignalAll();
  return first;
}

Result<std::shared_ptr<RemoteIndexes>> RemoteIndexCache::Fetch(
    const RemoteLogSegmentMetadata& metadata) {
  const Uuid& id = metadata.segment_id.id;
  const std::string name = RemoteSegmentName(id, metadata.start_offset);
  // Every index into memory first: a failed fetch leaves no file at all.
  constexpr std::array<IndexType, 3> kTypes = {IndexType::kOffset, IndexType::kTimestamp,
                                               IndexType::kTransaction};
  std::array<std::vector<uint8_t>, 3> bytes;
  for (size_t k = 0; k < kTypes.size(); ++k) {
    Result<std::vector<uint8_t>> fetched = rsm_->FetchIndex(metadata, kTypes[k]);
    if (fetched.ok()) {
      bytes[k] = std::move(*fetched);
    } else if (!(kTypes[k] == IndexType::kTransaction && fetched.status().IsNotFound())) {
      return fetched.status().WithContext(
          fmt::format("fetch of the {} index of {}", IndexTypeName(kTypes[k]), name));
    }  // else: no aborted transactions - an empty .txnindex
  }

  const RemoteIndexPaths final_paths = IndexPaths(options_.dir, metadata.start_offset, id);
  const RemoteIndexPaths tmp_paths = PathsWithPrefix(
      options_.dir, FileNamePrefix(metadata.start_offset, id), kRemoteIndexTmpSuffix);
  auto fail = [&](const Status& s) {
    // This thread owns the id (busy_), so no other set of these names can exist.
    (void)RemovePaths(tmp_paths);
    (void)RemovePaths(final_paths);
    return s;
  };
  const std::array<const std::string*, 3> tmp = {&tmp_paths.offset_index, &tmp_paths.time_index,
                                                 &tmp_paths.txn_index};
  for (size_t k = 0; k < tmp.size(); ++k) {
    Status s = WriteWholeFile(env_, *tmp[k], bytes[k]);
    if (!s.ok()) return fail(s.WithContext(name));
  }
  RemoteIndexes::SegmentBounds bounds{id, metadata.start_offset, metadata.end_offset, std::nullopt};
  if (metadata.segment_size_in_bytes > 0) bounds.segment_size = metadata.segment_size_in_bytes;
  Result<std::shared_ptr<RemoteIndexes>> opened = RemoteIndexes::Open(env_, tmp_paths, bounds);
  if (!opened.ok()) return fail(opened.status());  // names the segment
  Status s = (*opened)->RenameTo(final_paths);
  if (!s.ok()) {
    opened->reset();
    return fail(s.WithContext(name));
  }
  return opened;
}

Result<std::shared_ptr<const RemoteIndexes>> RemoteIndexCache::Get(
    const RemoteLogSegmentMetadata& metadata) {
  const Uuid id = metadata.segment_id.id;
  std::shared_ptr<RemoteIndexes> stale;
  {
    MutexLock l(&mu_);
    for (;;) {
      auto it = entries_.find(id);
      if (it != entries_.end()) {
        if (it->second.indexes->Matches(metadata)) {
          lru_.splice(lru_.begin(), lru_, it->second.lru);
          ++stats_.hits;
          return std::shared_ptr<const RemoteIndexes>(it->second.indexes);
        }
        // Files from a previous run that do not fit the segment: fetch them again.
        stale = TakeLocked(id);
        ++stats_.mismatches;
        break;
      }
      if (busy_.count(id) == 0) break;
      busy_cv_.Wait(&mu_);  // another thread is fetching it, or deleting its files
    }
    busy_.emplace(id, Busy{});
    ++stats_.misses;
  }

  if (stale != nullptr) {
    Status s = RemovePaths(stale->paths());
    stale.reset();
    if (!s.ok()) {
      {
        MutexLock l(&mu_);
        busy_.erase(id);
        ++stats_.delete_failures;
        busy_cv_.SignalAll();
      }
      return s.WithContext(RemoteSegmentName(id, metadata.start_offset));
    }
  }

  Result<std::shared_ptr<RemoteIndexes>> fetched = Fetch(metadata);
  std::vector<std::shared_ptr<RemoteIndexes>> victims;
  {
    MutexLock l(&mu_);
    auto busy = busy_.find(id);
    const bool remove_requested = busy->second.remove_requested;
    busy_.erase(busy);
    if (fetched.ok()) {
      if (remove_requested) {
        // Removed while it was fetched: the caller gets it, the cache does not keep it.
        victims.push_back(*fetched);
        busy_.emplace(id, Busy{});
        ++stats_.removals;
      } else {
        InsertLocked(*fetched);
        EvictLocked(&victims);  // possibly this very entry, if it alone passes the bound
      }
    }
    busy_cv_.SignalAll();
  }
  (void)DeleteFiles(victims);  // failures are counted in stats_.delete_failures
  if (!fetched.ok()) return fetched.status();
  return std::shared_ptr<const RemoteIndexes>(std::move(*fetched));
}

Status RemoteIndexCache::Remove(const Uuid& segment_id) {
  std::shared_ptr<RemoteIndexes> victim;
  {
    MutexLock l(&mu_);
    auto busy = busy_.find(segment_id);
    if (busy != busy_.end()) {
      // Being fetched: dropped when the fetch completes. Being deleted: nothing left to do.
      busy->second.remove_requested = true;
      return Status::OK();
    }
    victim = TakeLocked(segment_id);
    if (victim == nullptr) return Status::OK();
    busy_.emplace(segment_id, Busy{});
    ++stats_.removals;
  }
  return DeleteFiles({victim});
}

int64_t RemoteIndexCache::size_bytes() const {
  MutexLock l(&mu_);
  return size_bytes_;
}

RemoteIndexCacheStats RemoteIndexCache::stats() const {
  MutexLock l(&mu_);
  RemoteIndexCacheStats out = stats_;
  out.entries = static_cast<int64_t>(entries_.size());
  out.size_bytes = size_bytes_;
  return out;
}

}  // namespace seglog
