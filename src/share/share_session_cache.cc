#include "share/share_session_cache.h"

#include <limits>

namespace seglog {

namespace {

ShareError Error(int16_t code) { return ShareError(code, ""); }

ShareFetchContext FailedContext(int16_t code) {
  ShareFetchContext context;
  context.error = Error(code);
  return context;
}

}  // namespace

bool IsValidShareMemberId(std::string_view member_id) {
  return !member_id.empty() && member_id.size() <= 36;
}

int32_t NextShareSessionEpoch(int32_t epoch) {
  if (epoch < 0) return kFinalShareSessionEpoch;
  if (epoch == std::numeric_limits<int32_t>::max()) return 1;
  return epoch + 1;
}

ShareFetchContext ShareSessionCache::NewContext(const std::string& group_id,
                                                const std::string& member_id, int32_t epoch,
                                                std::span<const ShareTopicIdPartition> to_fetch,
                                                std::span<const ShareTopicIdPartition> forgotten,
                                                bool has_acknowledgements,
                                                const std::string& connection_id) {
  MutexLock lock(&mu_);
  SessionKey key{group_id, member_id};
  if (epoch == kFinalShareSessionEpoch) {
    // Kafka 4.4.0's FinalContext ignores partitions to fetch (no error): nothing is fetched.
    auto it = sessions_.find(key);
    if (it == sessions_.end()) return FailedContext(share_error::kShareSessionNotFound);
    ShareFetchContext context;
    context.is_final = true;
    context.next_epoch = kFinalShareSessionEpoch;
    context.partitions.assign(it->second.partitions.begin(), it->second.partitions.end());
    return context;
  }
  if (epoch == kInitialShareSessionEpoch) {
    if (has_acknowledgements) return FailedContext(share_error::kInvalidRequest);
    // The old session goes first, so a member reopening its own never hits the limit.
    sessions_.erase(key);
    if (static_cast<int64_t>(sessions_.size()) >= max_sessions_) {
      return FailedContext(share_error::kShareSessionLimitReached);
    }
    Session session;
    session.epoch = NextShareSessionEpoch(kInitialShareSessionEpoch);
    session.partitions.insert(to_fetch.begin(), to_fetch.end());
    session.connection_id = connection_id;
    ShareFetchContext context;
    context.is_new = true;
    context.next_epoch = session.epoch;
    context.partitions.assign(session.partitions.begin(), session.partitions.end());
    context.added = context.partitions;
    sessions_.emplace(std::move(key), std::move(session));
    return context;
  }
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return FailedContext(share_error::kShareSessionNotFound);
  Session& session = it->second;
  if (session.epoch != epoch) return FailedContext(share_error::kInvalidShareSessionEpoch);
  ShareFetchContext context;
  // ShareSession.update: Topics add (or update), then ForgottenTopicsData remove.
  for (const ShareTopicIdPartition& partition : to_fetch) {
    if (session.partitions.insert(partition).second) context.added.push_back(partition);
  }
  for (const ShareTopicIdPartition& partition : forgotten) {
    if (session.partitions.erase(partition) > 0) context.removed.push_back(partition);
  }
  session.epoch = NextShareSessionEpoch(epoch);
  context.next_epoch = session.epoch;
  context.partitions.assign(session.partitions.begin(), session.partitions.end());
  return context;
}

ShareError ShareSessionCache::AcknowledgeSessionUpdate(const std::string& group_id,
                                                       const std::string& member_id,
                                                       int32_t epoch) {
  if (epoch == kInitialShareSessionEpoch) return Error(share_error::kInvalidShareSessionEpoch);
  MutexLock lock(&mu_);
  auto it = sessions_.find(SessionKey{group_id, member_id});
  if (it == sessions_.end()) return Error(share_error::kShareSessionNotFound);
  if (epoch == kFinalShareSessionEpoch) return ShareError::None();
  if (it->second.epoch != epoch) return Error(share_error::kInvalidShareSessionEpoch);
  it->second.epoch = NextShareSessionEpoch(epoch);
  return ShareError::None();
}

std::optional<ReleasedShareSession> ShareSessionCache::RemoveSession(const std::string& group_id,
                                                                     const std::string& member_id) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(SessionKey{group_id, member_id});
  if (it == sessions_.end()) return std::nullopt;
  ReleasedShareSession released{
      group_id, member_id, {it->second.partitions.begin(), it->second.partitions.end()}};
  sessions_.erase(it);
  return released;
}

void ShareSessionCache::RemoveAll() {
  MutexLock lock(&mu_);
  sessions_.clear();
}

std::vector<ReleasedShareSession> ShareSessionCache::RemoveConnection(
    const std::string& connection_id) {
  MutexLock lock(&mu_);
  std::vector<ReleasedShareSession> released;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.connection_id != connection_id) {
      ++it;
      continue;
    }
    released.push_back({it->first.group_id,
                        it->first.member_id,
                        {it->second.partitions.begin(), it->second.partitions.end()}});
    it = sessions_.erase(it);
  }
  return released;
}

std::optional<int32_t> ShareSessionCache::SessionEpoch(const std::string& group_id,
                                                       const std::string& member_id) const {
  MutexLock lock(&mu_);
  auto it = sessions_.find(SessionKey{group_id, member_id});
  if (it == sessions_.end()) return std::nullopt;
  return it->second.epoch;
}

std::vector<ShareTopicIdPartition> ShareSessionCache::SessionPartitions(
    const std::string& group_id, const std::string& member_id) const {
  MutexLock lock(&mu_);
  auto it = sessions_.find(SessionKey{group_id, member_id});
  if (it == sessions_.end()) return {};
  return {it->second.partitions.begin(), it->second.partitions.end()};
}

size_t ShareSessionCache::size() const {
  MutexLock lock(&mu_);
  return sessions_.size();
}

size_t ShareSessionCache::TotalPartitions() const {
  MutexLock lock(&mu_);
  size_t total = 0;
  for (const auto& [key, session] : sessions_) total += session.partitions.size();
  return total;
}

}  // namespace seglog
