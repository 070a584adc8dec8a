// The wait of a fetch for its remote read (Kafka's DelayedRemoteFetch, honouring
// remote.fetch.max.wait.ms).
//
// The broker (Broker::ServeFetch) reads every partition at once (ReadFetch). When one must come
// from remote storage (FetchRead::remote), it parks the fetch in the FetchPurgatory for
// remote.fetch.max.wait.ms - not the request's max_wait_ms - watching no partition, and submits
// the read to the remote log manager's reader pool (remote.log.reader.threads threads, at most
// remote.log.reader.max.pending.tasks queued; remote/remote_reader_pool.h). Then:
//   - the read finishes in time: it wakes the fetch (FetchPurgatory::Wake), which is answered
//     at once with the records, or with the read's error (UNKNOWN_SERVER_ERROR for the store's
//     failures, OFFSET_OUT_OF_RANGE when no remote segment holds the offset any more);
//   - the wait passes first: the fetch is answered with the other partitions' reads and the
//     remote partition without records and without error (Kafka answers it with its local read
//     result); a read no thread has started is cancelled, and one that finishes later is
//     dropped, its bytes freed. The client fetches again, and that fetch reads again;
//   - the reader queue is full: the partition is answered UNKNOWN_SERVER_ERROR at once
//     (Kafka's RejectedExecutionException);
//   - the client disconnects: the purgatory drops the fetch (DropConnection), which abandons
//     the read the same way.
// No thread waits for a read: the handler thread returns once the fetch is parked, and a reader
// thread holds only the read. The read's bytes are charged to its request's MemoryCharge
// (queued.max.request.bytes): released once its response is written, or, for a read nobody
// waits for any more, when the read ends.
//
// RemoteFetchSlot is what a parked fetch and its read share; RemoteFetchWaiter is the parked
// fetch's hold on it, which abandons it when the fetch is gone (answered or dropped).
//
// Thread safety: RemoteFetchSlot is thread-safe. Lock order: a slot's mutex, then the
// purgatory's (the waker runs under the slot's mutex, so it never runs after the fetch is gone).
// RemoteFetchWaiter is immutable.
#ifndef SEGLOG_SERVER_DELAYED_REMOTE_FETCH_H_
#define SEGLOG_SERVER_DELAYED_REMOTE_FETCH_H_

#include <functional>
#include <memory>
#include <optional>

#include "base/mutex.h"
#include "remote/remote_reader_pool.h"
#include "seglog/result.h"
#include "server/fetch_handler.h"
#include "server/memory_pool.h"

namespace seglog {

class RemoteFetchSlot {
 public:
  RemoteFetchSlot() = default;
  RemoteFetchSlot(const RemoteFetchSlot&) = delete;
  RemoteFetchSlot& operator=(const RemoteFetchSlot&) = delete;

  // The read's outcome (from a reader thread): kept and the fetch woken, unless abandoned (then
  // dropped at once).
  void Complete(Result<RemoteFetchResult> result) EXCLUDES(mu_);
  // The submitted read, cancelled if the fetch is abandoned before it starts.
  void SetTicket(const std::shared_ptr<RemoteReaderPool::Ticket>& ticket) EXCLUDES(mu_);
  // How to wake the parked fetch; called at once if the read is done already. Ignored once
  // abandoned.
  void SetWaker(std::function<void()> wake) EXCLUDES(mu_);
  // The outcome (moved out) once the read is done; nullopt before.
  std::optional<Result<RemoteFetchResult>> Take() EXCLUDES(mu_);
  // Nobody waits any more: the waker is forgotten, a queued read cancelled, a result dropped.
  void Abandon() EXCLUDES(mu_);
  bool abandoned() const EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  std::optional<Result<RemoteFetchResult>> result_ GUARDED_BY(mu_);
  std::function<void()> waker_ GUARDED_BY(mu_);
  std::weak_ptr<RemoteReaderPool::Ticket> ticket_ GUARDED_BY(mu_);
  bool abandoned_ GUARDED_BY(mu_) = false;
};

class RemoteFetchWaiter {
 public:
  explicit RemoteFetchWaiter(std::shared_ptr<RemoteFetchSlot> slot) : slot_(std::move(slot)) {}
  ~RemoteFetchWaiter() { slot_->Abandon(); }
  RemoteFetchWaiter(const RemoteFetchWaiter&) = delete;
  RemoteFetchWaiter& operator=(const RemoteFetchWaiter&) = delete;
  RemoteFetchSlot& slot() const { return *slot_; }

 private:
  const std::shared_ptr<RemoteFetchSlot> slot_;
};

// Submits the read of `info` to remote->readers(); its outcome goes to `slot`, and the bytes
// read are charged to `charge` (may be null). A read whose slot was abandoned before it started
// is skipped. A refused submit (a full queue, a pool shut down) completes the slot with the
// refusal at once.
void SubmitRemoteFetch(RemoteLogManager* remote, const RemoteFetchInfo& info,
                       const std::shared_ptr<RemoteFetchSlot>& slot,
                       std::shared_ptr<MemoryCharge> charge);

}  // namespace seglog

#endif  // SEGLOG_SERVER_DELAYED_REMOTE_FETCH_H_
