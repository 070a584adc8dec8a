// RemoteFetchSlot and SubmitRemoteFetch: see delayed_remote_fetch.h.
#include "server/delayed_remote_fetch.h"

#include <utility>

#include "remote/remote_log_manager.h"

namespace seglog {

void RemoteFetchSlot::Complete(Result<RemoteFetchResult> result) {
  std::optional<Result<RemoteFetchResult>> dropped;  // freed outside the lock
  MutexLock l(&mu_);
  if (abandoned_) {
    dropped.emplace(std::move(result));
    return;
  }
  result_.emplace(std::move(result));
  ticket_.reset();
  if (waker_) waker_();
}

void RemoteFetchSlot::SetTicket(const std::shared_ptr<RemoteReaderPool::Ticket>& ticket) {
  {
    MutexLock l(&mu_);
    if (!abandoned_) {
      if (!result_) ticket_ = ticket;
      return;
    }
  }
  ticket->Cancel();
}

void RemoteFetchSlot::SetWaker(std::function<void()> wake) {
  MutexLock l(&mu_);
  if (abandoned_) return;
  waker_ = std::move(wake);
  if (result_) waker_();
}

std::optional<Result<RemoteFetchResult>> RemoteFetchSlot::Take() {
  MutexLock l(&mu_);
  std::optional<Result<RemoteFetchResult>> out = std::move(result_);
  result_.reset();
  return out;
}

void RemoteFetchSlot::Abandon() {
  std::shared_ptr<RemoteReaderPool::Ticket> ticket;
  std::optional<Result<RemoteFetchResult>> dropped;
  std::function<void()> waker;
  {
    MutexLock l(&mu_);
    abandoned_ = true;
    waker = std::move(waker_);
    waker_ = nullptr;
    ticket = ticket_.lock();
    ticket_.reset();
    dropped = std::move(result_);
    result_.reset();
  }
  // Outside the lock: the cancelled read's function holds this slot too.
  if (ticket != nullptr) ticket->Cancel();
}

bool RemoteFetchSlot::abandoned() const {
  MutexLock l(&mu_);
  return abandoned_;
}

void SubmitRemoteFetch(RemoteLogManager* remote, const RemoteFetchInfo& info,
                       const std::shared_ptr<RemoteFetchSlot>& slot,
                       std::shared_ptr<MemoryCharge> charge) {
  Result<std::shared_ptr<RemoteReaderPool::Ticket>> ticket =
      remote->readers()->Submit([remote, info, slot, charge = std::move(charge)] {
        if (slot->abandoned()) return;  // the fetch was answered (or dropped) meanwhile
        Result<RemoteFetchResult> result = ReadRemoteFetch(remote, info);
        if (result.ok() && charge != nullptr) {
          charge->Add(static_cast<int64_t>(result->records.size()));
        }
        slot->Complete(std::move(result));
      });
  if (!ticket.ok()) {
    slot->Complete(ticket.status());
    return;
  }
  slot->SetTicket(*ticket);
}

}  // namespace seglog
