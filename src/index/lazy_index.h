// LazyIndex<T>: an OffsetIndex or TimeIndex that is opened (and its file created and mapped) only
// on first use, so that a log with thousands of segments opens without touching their indexes
// (Kafka's LazyIndex). Until then it is only a path.
//
// Thread safety: thread-safe. Get() may race with itself; exactly one caller opens the index.
#ifndef SEGLOG_INDEX_LAZY_INDEX_H_
#define SEGLOG_INDEX_LAZY_INDEX_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "io/env.h"
#include "seglog/result.h"

namespace seglog {

template <typename T>
class LazyIndex {
 public:
  // All I/O of the index goes through `env`.
  LazyIndex(Env* env, std::string path, int64_t base_offset, int64_t max_index_size, bool writable)
      : env_(env),
        path_(std::move(path)),
        base_offset_(base_offset),
        max_index_size_(max_index_size),
        writable_(writable) {}

  // The index, opened on first call.
  Result<T*> Get() EXCLUDES(mu_) {
    if (T* p = loaded_.load(std::memory_order_acquire)) return p;
    MutexLock l(&mu_);
    if (!index_) {
      auto opened = T::Open(env_, path_, base_offset_, max_index_size_, writable_);
      if (!opened.ok()) return opened.status();
      if (resize_on_open_ && writable_) {
        SEGLOG_RETURN_IF_ERROR((*opened)->Resize(*resize_on_open_));
      }
      index_ = std::move(opened).value();
      loaded_.store(index_.get(), std::memory_order_release);
    }
    return index_.get();
  }

  // Resizes the index file to `size` (rounded down to whole entries) now if it is open, else
  // when it is first opened (a writable index only): the active segment's indexes regrow
  // without being mapped at load.
  Status Resize(int64_t size) EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (index_) return index_->Resize(size);
    resize_on_open_ = size;
    return Status::OK();
  }

  bool IsLoaded() const { return loaded_.load(std::memory_order_acquire) != nullptr; }

  std::string path() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return index_ ? index_->path() : path_;
  }

  // Renames the file (if it exists yet) and remembers the new path.
  Status RenameTo(const std::string& new_path) EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (index_) {
      SEGLOG_RETURN_IF_ERROR(index_->RenameTo(new_path));
    } else if (env_->FileExists(path_)) {
      SEGLOG_RETURN_IF_ERROR(env_->RenameFile(path_, new_path));
    }
    path_ = new_path;
    return Status::OK();
  }

  // Closes the index if it was opened (trimming it when writable).
  Status Close() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return index_ ? index_->Close() : Status::OK();
  }

  // Removes the file whether or not the index was opened.
  Status Delete() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (index_) return index_->Delete();
    return env_->RemoveFile(path_, /*missing_ok=*/true);
  }

 private:
  Env* const env_;
  Mutex mu_;
  std::string path_ GUARDED_BY(mu_);
  const int64_t base_offset_;
  const int64_t max_index_size_;
  const bool writable_;
  std::unique_ptr<T> index_ GUARDED_BY(mu_);
  std::optional<int64_t> resize_on_open_ GUARDED_BY(mu_);
  std::atomic<T*> loaded_{nullptr};
};

}  // namespace seglog

#endif  // SEGLOG_INDEX_LAZY_INDEX_H_
