// ShareSessionCache: the broker's share sessions (KIP-932), as Kafka 4.4.0's ShareSessionCache,
// ShareSession and SharePartitionManager.newContext / acknowledgeSessionUpdate keep them
// (javap of kafka-server-4.4.0.jar and kafka_2.13-4.4.0.jar; design: docs/design/share_groups.md
// §1.4).
//
// A session is keyed (group id, member id) and holds the partitions the member fetches, the
// session epoch the next request must carry, and the connection that opened it. ShareFetch:
//   epoch 0   opens a session, dropping the member's old one (its records stay acquired: the
//             member is the same); acknowledgements in the same request are INVALID_REQUEST; a
//             full cache is SHARE_SESSION_LIMIT_REACHED (133).
//   epoch -1  closes the session after its acknowledgements (the caller then calls
//             RemoveSession and releases the member's records); nothing is fetched, partitions
//             named to fetch are ignored (Kafka 4.4.0's newContext and FinalContext check
//             nothing else; the design note's INVALID_REQUEST for them is not in the
//             bytecode); no session is SHARE_SESSION_NOT_FOUND (122).
//   other     must equal the session's epoch (else INVALID_SHARE_SESSION_EPOCH, 123; no session:
//             122); adds Topics' partitions, removes ForgottenTopicsData's, advances the epoch.
// ShareAcknowledge: epoch 0 is INVALID_SHARE_SESSION_EPOCH; -1 needs the session and does not
// advance it; others as ShareFetch, without partition changes.
// Epochs advance by one and wrap from INT32_MAX to 1 (ShareRequestMetadata.nextEpoch).
//
// Kafka maps a connection to the last session it opened; here a connection owns every session
// it opened and still holds.
//
// Thread safety: thread-safe (one mutex).
#ifndef SEGLOG_SHARE_SHARE_SESSION_CACHE_H_
#define SEGLOG_SHARE_SHARE_SESSION_CACHE_H_

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "base/uuid.h"
#include "share/share_error.h"

namespace seglog {

// Kafka's TopicIdPartition as the share requests name partitions: a topic id and a partition
// index (remote/'s TopicIdPartition also carries the topic name).
struct ShareTopicIdPartition {
  Uuid topic_id;
  int32_t partition = 0;
  bool operator==(const ShareTopicIdPartition&) const = default;
  auto operator<=>(const ShareTopicIdPartition&) const = default;
};

// KafkaApis.isMemberIdValid (4.4.0): a share request's member id must be 1 to 36 characters
// (it is not parsed as a Uuid); otherwise the request fails with INVALID_REQUEST "Invalid member
// id in the request." before any session rule.
bool IsValidShareMemberId(std::string_view member_id);

// ShareRequestMetadata: the initial and final epochs, and the next epoch after `epoch`.
inline constexpr int32_t kInitialShareSessionEpoch = 0;
inline constexpr int32_t kFinalShareSessionEpoch = -1;
int32_t NextShareSessionEpoch(int32_t epoch);

// What a ShareFetch may do with its session.
struct ShareFetchContext {
  ShareError error;        // the response's top-level error; nothing else is set when not ok
  bool is_new = false;     // epoch 0: a new session (every partition is in the response)
  bool is_final = false;   // epoch -1: acknowledge, answer, then RemoveSession
  int32_t next_epoch = 0;  // the session's epoch after this request (-1 when final)
  std::vector<ShareTopicIdPartition> partitions;  // the session's partitions, in order
  std::vector<ShareTopicIdPartition> added;       // not in the session before this request
  std::vector<ShareTopicIdPartition> removed;     // forgotten by this request
};

// A session gone: whose records to release, on which partitions.
struct ReleasedShareSession {
  std::string group_id;
  std::string member_id;
  std::vector<ShareTopicIdPartition> partitions;
  bool operator==(const ReleasedShareSession&) const = default;
};

class ShareSessionCache {
 public:
  // group.share.max.share.sessions
  static constexpr int32_t kDefaultMaxSessions = 2000;

  explicit ShareSessionCache(int32_t max_sessions = kDefaultMaxSessions)
      : max_sessions_(max_sessions) {}
  ShareSessionCache(const ShareSessionCache&) = delete;
  ShareSessionCache& operator=(const ShareSessionCache&) = delete;

  // The session rules of a ShareFetch (SharePartitionManager.newContext). `to_fetch` are the
  // request's Topics partitions, `forgotten` its ForgottenTopicsData, `has_acknowledgements`
  // whether any partition carries AcknowledgementBatches, `connection_id` the connection the
  // request came on (a new session belongs to it).
  ShareFetchContext NewContext(const std::string& group_id, const std::string& member_id,
                               int32_t epoch, std::span<const ShareTopicIdPartition> to_fetch,
                               std::span<const ShareTopicIdPartition> forgotten,
                               bool has_acknowledgements, const std::string& connection_id)
      EXCLUDES(mu_);

  // The session rules of a ShareAcknowledge (SharePartitionManager.acknowledgeSessionUpdate):
  // checks the epoch and advances it (not at -1).
  ShareError AcknowledgeSessionUpdate(const std::string& group_id, const std::string& member_id,
                                      int32_t epoch) EXCLUDES(mu_);

  // Removes the member's session (a final request answered, the member left the group);
  // none when it has none.
  std::optional<ReleasedShareSession> RemoveSession(const std::string& group_id,
                                                    const std::string& member_id) EXCLUDES(mu_);

  // share.version finalized below 1: every session is forgotten, as Kafka's
  // SharePartitionManager.onShareVersionToggle removes them (their records are not released
  // one by one: the share partitions holding them are forgotten too).
  void RemoveAll() EXCLUDES(mu_);

  // The connection closed: removes the sessions it opened (a session reopened since on another
  // connection is not its any more) and returns them, so their records are released.
  std::vector<ReleasedShareSession> RemoveConnection(const std::string& connection_id)
      EXCLUDES(mu_);

  // The epoch the member's next request must carry; none without a session.
  std::optional<int32_t> SessionEpoch(const std::string& group_id,
                                      const std::string& member_id) const EXCLUDES(mu_);
  std::vector<ShareTopicIdPartition> SessionPartitions(const std::string& group_id,
                                                       const std::string& member_id) const
      EXCLUDES(mu_);
  size_t size() const EXCLUDES(mu_);
  // Partitions over all sessions (Kafka's SharePartitionsCount).
  size_t TotalPartitions() const EXCLUDES(mu_);

 private:
  struct SessionKey {
    std::string group_id;
    std::string member_id;
    auto operator<=>(const SessionKey&) const = default;
  };
  struct Session {
    int32_t epoch = 0;
    std::set<ShareTopicIdPartition> partitions;
    std::string connection_id;
  };

  const int32_t max_sessions_;
  mutable Mutex mu_;
  std::map<SessionKey, Session> sessions_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_SESSION_CACHE_H_
