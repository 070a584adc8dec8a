// RemoteIndexCache: a local-disk cache of the offset, time and transaction indexes of remote
// segments (Kafka's RemoteIndexCache), so that a fetch from remote storage finds the .log
// position of an offset, or the offset of a timestamp, and the aborted transactions of a
// read_committed fetch, without fetching the indexes from the store each time.
//
// Files, in the cache directory (Kafka's `<log dir>/remote-log-index-cache`):
//
//   remote-log-index-cache/
//       3830_<segment id>.index         offset index of the remote segment at offset 3830
//       3830_<segment id>.timeindex     its time index
//       3830_<segment id>.txnindex      its aborted transactions (empty: the segment has none)
//       3830_<segment id>.index.tmp     being written (a fetch in progress, or a crash)
//
// The prefix is Kafka's: the segment's start offset in plain decimal (not zero-padded), '_',
// the segment id's Kafka text (22 characters of URL-safe Base64, which may hold '-' and '_' but
// never '.'). Names with a zero-padded offset are read too.
//
// Entries are keyed by the remote segment id and weighed by the bytes of their three files;
// when the total passes `total_size_bytes` the least recently used entries are evicted (Kafka's
// Caffeine cache is a W-TinyLFU; seglog's is plain LRU) and their files deleted. Readers hold
// entries by std::shared_ptr: an evicted entry stays usable (its files are mapped or open)
// until the last reader lets go.
//
// A miss fetches the three indexes (RemoteStorageManager::FetchIndex; NotFound for the
// transaction index means the segment has none: an empty file), writes each to "<name>.tmp",
// fsyncs it, opens and checks it (RemoteIndexes), then renames it to its name. A fetch or check
// that fails leaves no file behind. Opening the cache reuses the files of a previous run (as
// Kafka does): "*.tmp" and "*.deleted" files and incomplete or unparseable sets are deleted,
// every complete set is checked and a corrupt one deleted; the segment's end offset and size,
// unknown until then, are checked at its first Get (a set that does not fit its metadata is
// deleted and fetched again).
//
// Concurrency: one mutex guards the map, the LRU list and the counters; no fetch and no file
// I/O happens under it. Concurrent misses for one segment are deduplicated: the first caller
// fetches, the others wait (on a condition variable, without holding the mutex) and then take
// its entry - or, if its fetch failed, fetch themselves. A segment whose files are being
// deleted (evicted, removed) is likewise waited for, so a new fetch never writes files that a
// deletion then unlinks.
//
// Thread safety: thread-safe.
#ifndef SEGLOG_REMOTE_REMOTE_INDEX_CACHE_H_
#define SEGLOG_REMOTE_REMOTE_INDEX_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/uuid.h"
#include "io/env.h"
#include "remote/remote_indexes.h"
#include "remote/remote_log_segment_metadata.h"
#include "remote/remote_storage_manager.h"
#include "seglog/result.h"

namespace seglog {

// Kafka's RemoteIndexCache.DIR_NAME, under a log directory.
inline constexpr std::string_view kRemoteIndexCacheDirName = "remote-log-index-cache";
// The suffix of a file being written (Kafka's TMP_FILE_SUFFIX).
inline constexpr std::string_view kRemoteIndexTmpSuffix = ".tmp";

struct RemoteIndexCacheOptions {
  // The cache directory, created if missing; normally <log dir>/remote-log-index-cache. Every
  // file in it belongs to the cache.
  std::string dir;
  // remote.log.index.file.cache.total.size.bytes: the bound, in bytes, on the cached index
  // files. Default 1073741824 (1 GiB, Kafka's). Must be > 0.
  int64_t total_size_bytes = 1073741824;
  // Every file operation of the cache. nullptr: Env::Default().
  Env* env = nullptr;
};

// Counters, for tests and metrics.
struct RemoteIndexCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;             // Gets that fetched (successfully or not)
  int64_t evictions = 0;          // entries evicted by the size bound
  int64_t removals = 0;           // entries removed by Remove
  int64_t mismatches = 0;         // entries found on disk that did not fit their segment's metadata
  int64_t reused_at_open = 0;     // complete, valid sets found at Open
  int64_t discarded_at_open = 0;  // corrupt or incomplete sets deleted at Open
  int64_t delete_failures = 0;    // files of evicted or removed entries that could not go
  int64_t entries = 0;
  int64_t size_bytes = 0;
};

class RemoteIndexCache {
 public:
  // Opens the cache in options.dir, reusing the files of a previous run (see above). `rsm` is
  // where misses fetch from; it must outlive the cache. InvalidArgument for a bad option,
  // IOError when the directory cannot be listed or a file cannot be removed.
  static Result<std::unique_ptr<RemoteIndexCache>> Open(RemoteIndexCacheOptions options,
                                                        RemoteStorageManager* rsm);
  // Keeps the files (the next Open reuses them). REQUIRES: no call in progress.
  ~RemoteIndexCache();
  RemoteIndexCache(const RemoteIndexCache&) = delete;
  RemoteIndexCache& operator=(const RemoteIndexCache&) = delete;

  // The indexes of the remote segment `metadata` describes: cached, or fetched now. Errors: the
  // fetch's (IOError, Corruption for an object that is not what was copied, NotFound for a
  // missing offset or time index), Corruption naming the segment and file for an index that
  // fails its checks, IOError for the cache's own files - each naming the segment.
  Result<std::shared_ptr<const RemoteIndexes>> Get(const RemoteLogSegmentMetadata& metadata)
      EXCLUDES(mu_);

  // Forgets the segment and deletes its files (the segment was deleted from remote storage;
  // Kafka's remove). A Get in progress for it completes, but its entry is not kept. Returns the
  // error of a file that could not be deleted.
  Status Remove(const Uuid& segment_id) EXCLUDES(mu_);

  // Bytes of the cached files (entries being fetched or deleted not counted).
  int64_t size_bytes() const EXCLUDES(mu_);
  RemoteIndexCacheStats stats() const EXCLUDES(mu_);
  const std::string& dir() const { return options_.dir; }

  // "<start offset>_<segment id>", the name of a segment's files without the suffix.
  static std::string FileNamePrefix(int64_t start_offset, const Uuid& segment_id);
  // The paths of a segment's files in `dir`.
  static RemoteIndexPaths IndexPaths(const std::string& dir, int64_t start_offset,
                                     const Uuid& segment_id);

 private:
  struct UuidHash {
    size_t operator()(const Uuid& id) const;
  };
  struct Entry {
    std::shared_ptr<RemoteIndexes> indexes;
    std::list<Uuid>::iterator lru;  // its place in lru_
  };
  // A segment id some thread owns outside the lock: its files are being written or deleted.
  struct Busy {
    bool remove_requested = false;  // Remove was called while it was being fetched
  };

  RemoteIndexCache(RemoteIndexCacheOptions options, RemoteStorageManager* rsm)
      : options_(std::move(options)), rsm_(rsm) {}

  Status LoadExisting() EXCLUDES(mu_);
  // Fetches, writes, checks and renames the three files of `metadata`'s segment.
  Result<std::shared_ptr<RemoteIndexes>> Fetch(const RemoteLogSegmentMetadata& metadata);
  // Adds a loaded entry (most recently used).
  void InsertLocked(std::shared_ptr<RemoteIndexes> indexes) REQUIRES(mu_);
  // Takes entries out, least recently used first, until the total is within the bound; marks
  // them busy and appends them to *victims, whose files the caller deletes (DeleteFiles).
  void EvictLocked(std::vector<std::shared_ptr<RemoteIndexes>>* victims) REQUIRES(mu_);
  // Takes the entry out of the map and the LRU list (not marking it busy).
  std::shared_ptr<RemoteIndexes> TakeLocked(const Uuid& segment_id) REQUIRES(mu_);
  // Deletes the victims' files, then releases their ids. Returns the first failure.
  Status DeleteFiles(const std::vector<std::shared_ptr<RemoteIndexes>>& victims) EXCLUDES(mu_);
  Status RemovePaths(const RemoteIndexPaths& paths);

  const RemoteIndexCacheOptions options_;
  Env* env_ = nullptr;
  RemoteStorageManager* const rsm_;

  mutable Mutex mu_;
  CondVar busy_cv_{&mu_};  // signalled whenever an id leaves busy_
  std::unordered_map<Uuid, Entry, UuidHash> entries_ GUARDED_BY(mu_);
  std::list<Uuid> lru_ GUARDED_BY(mu_);  // most recently used first
  std::unordered_map<Uuid, Busy, UuidHash> busy_ GUARDED_BY(mu_);
  int64_t size_bytes_ GUARDED_BY(mu_) = 0;
  RemoteIndexCacheStats stats_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_REMOTE_INDEX_CACHE_H_
