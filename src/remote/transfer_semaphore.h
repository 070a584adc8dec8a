// TransferSemaphore: a counting semaphore that bounds how many S3 transfers (HTTP requests with
// their bodies) run at once across every caller of one S3Client; TransferSlot holds one permit
// for a scope. A request waiting for its retry backoff holds no permit.
//
// Thread safety: thread-safe.
#ifndef SEGLOG_REMOTE_TRANSFER_SEMAPHORE_H_
#define SEGLOG_REMOTE_TRANSFER_SEMAPHORE_H_

#include "base/mutex.h"

namespace seglog {

class TransferSemaphore {
 public:
  // REQUIRES: permits >= 1.
  explicit TransferSemaphore(int permits) : available_(permits) {}
  TransferSemaphore(const TransferSemaphore&) = delete;
  TransferSemaphore& operator=(const TransferSemaphore&) = delete;

  void Acquire() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (available_ == 0) cv_.Wait(&mu_);
    --available_;
  }
  void Release() EXCLUDES(mu_) {
    {
      MutexLock lock(&mu_);
      ++available_;
    }
    cv_.Signal();
  }

 private:
  Mutex mu_;
  CondVar cv_{&mu_};
  int available_ GUARDED_BY(mu_);
};

class TransferSlot {
 public:
  explicit TransferSlot(TransferSemaphore* semaphore) : semaphore_(semaphore) {
    semaphore_->Acquire();
  }
  ~TransferSlot() { semaphore_->Release(); }
  TransferSlot(const TransferSlot&) = delete;
  TransferSlot& operator=(const TransferSlot&) = delete;

 private:
  TransferSemaphore* const semaphore_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TRANSFER_SEMAPHORE_H_
