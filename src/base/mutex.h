// Mutex and MutexLock: std::mutex with clang capability annotations, so that the analysis can
// prove every GUARDED_BY member is touched only under its lock.
//
// Thread safety: a Mutex is thread-safe by definition; a MutexLock belongs to one scope.
#ifndef SEGLOG_BASE_MUTEX_H_
#define SEGLOG_BASE_MUTEX_H_

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "base/thread_annotations.h"

namespace seglog {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Documents (and tells the analysis) that the caller holds this mutex.
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for the lifetime of the scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A reader-writer mutex: many holders of the shared side, or one of the exclusive side.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void ReaderLock() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void ReaderUnlock() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds the shared side of a SharedMutex for the lifetime of the scope.
class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_->ReaderLock(); }
  ~ReaderMutexLock() RELEASE() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds the exclusive side of a SharedMutex for the lifetime of the scope.
class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A condition variable bound to one Mutex. The waits name that mutex again so that the
// thread-safety analysis can check the caller holds it.
class CondVar {
 public:
  explicit CondVar(Mutex* mu) : mu_(mu) {}
  // REQUIRES: `mu` is the bound mutex, held. Releases it while waiting, re-acquires it before
  // returning.
  void Wait(Mutex* mu) REQUIRES(mu) {
    assert(mu == mu_);
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // As Wait, but returns after at most `ms` milliseconds.
  void WaitForMs(Mutex* mu, int64_t ms) REQUIRES(mu) {
    assert(mu == mu_);
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait_for(lock, std::chrono::milliseconds(ms));
    lock.release();
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  [[maybe_unused]] Mutex* const mu_;
  std::condition_variable cv_;
};

}  // namespace seglog

#endif  // SEGLOG_BASE_MUTEX_H_
